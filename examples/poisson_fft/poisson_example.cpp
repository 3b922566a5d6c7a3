// The Poisson solver on the reference work's problem (NVIDIA's spectral Poisson
// example, docs/poisson_fft.md [1]) and on a 3-D wall problem, on the GPU when
// there is one, else on the CPU (FFTW) backend.
//
// 1. Periodic unit square, N = 64: f = exp(-r^2 / (2 s^2)) (r^2 - 2 s^2) / s^4,
//    s = 0.1, whose solution is the Gaussian exp(-r^2 / (2 s^2)); the constant fixed
//    by u = 0 at the first grid point, as in the reference work; Linf and L2 errors
//    printed.
// 2. Unit cube with u = 0 on every wall, 48 x 40 x 56 points, f = -3 pi^2 u for
//    u = sin(pi x) sin(pi y) sin(pi z): spectral and finite-difference errors.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "cunum/poisson_fft.hpp"

int main() {
  const double pi = 3.14159265358979323846;

  // 1. The reference work's Gaussian.
  const int n = 64;
  const double sigma = 0.1, s2 = sigma * sigma;
  std::vector<double> f(n * n), exact(n * n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double x = i / double(n) - 0.5, y = j / double(n) - 0.5, r2 = x * x + y * y;
      exact[i * n + j] = std::exp(-r2 / (2 * s2));
      f[i * n + j] = exact[i * n + j] * (r2 - 2 * s2) / (s2 * s2);
    }
  }
  cunum::PoissonOptions published_options;
  published_options.gauge = cunum::PoissonGauge::zero_at_origin;
  cunum::PoissonSolver<double> periodic({{n, n}, {1.0, 1.0}, {cunum::PoissonBoundary::periodic,
                                                              cunum::PoissonBoundary::periodic}},
                                        published_options);
  const std::vector<double> u = periodic.solve(f);
  double linf = 0, sum_squares = 0;
  for (int k = 0; k < n * n; ++k) {
    const double error = u[k] - (exact[k] - exact[0]);
    linf = std::max(linf, std::abs(error));
    sum_squares += error * error;
  }
  std::printf("periodic %dx%d (%s backend): u(N/2, N/2) = %.6f, exact %.6f\n", n, n,
              cunum::to_string(periodic.backend()), u[(n / 2) * n + n / 2], exact[(n / 2) * n + n / 2] - exact[0]);
  std::printf("  Linf error %.6e, L2 error / N^2 %.6e\n", linf, std::sqrt(sum_squares) / (n * n));

  // 2. A 3-D Dirichlet problem, both discretizations.
  const std::vector<std::int64_t> shape{48, 40, 56};
  const auto dirichlet = cunum::PoissonBoundary::dirichlet;
  const cunum::PoissonGrid box{shape, {1.0, 1.0, 1.0}, {dirichlet, dirichlet, dirichlet}};
  std::vector<double> rhs, solution;
  for (std::int64_t i = 0; i < shape[0]; ++i) {
    for (std::int64_t j = 0; j < shape[1]; ++j) {
      for (std::int64_t k = 0; k < shape[2]; ++k) {
        // Dirichlet grids hold the interior points x_i = (i + 1) / (n + 1).
        const double value = std::sin(pi * (i + 1) / double(shape[0] + 1)) *
                             std::sin(pi * (j + 1) / double(shape[1] + 1)) *
                             std::sin(pi * (k + 1) / double(shape[2] + 1));
        solution.push_back(value);
        rhs.push_back(-3 * pi * pi * value);
      }
    }
  }
  for (auto discretization : cunum::PoissonDiscretizationValues::all) {
    cunum::PoissonOptions options;
    options.discretization = discretization;
    cunum::PoissonSolver<double> solver(box, options);
    const std::vector<double> computed = solver.solve(rhs);
    double worst = 0;
    for (std::size_t k = 0; k < computed.size(); ++k) worst = std::max(worst, std::abs(computed[k] - solution[k]));
    std::printf("Dirichlet 48x40x56, %s: Linf error %.3e (workspace %.1f MB)\n", cunum::to_string(discretization),
                worst, solver.workspace_bytes() / 1e6);
  }
  return 0;
}
