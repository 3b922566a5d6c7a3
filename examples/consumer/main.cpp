// Compiled by the host compiler alone: cunum's headers need no CUDA header. It calls a
// reduction and a Poisson solve, so that its link line must carry everything libcunum
// links (cuFFT and FFTW included).
#include <cmath>
#include <cstdio>
#include <vector>

#include "cunum/core.hpp"
#include "cunum/poisson_fft.hpp"
#include "cunum/reduce.hpp"

int main() {
  const std::vector<double> values = {1.0, 2.0, 3.0, 4.0};
  const double sum = cunum::reduce(cunum::ReduceOp::sum, values);

  // Periodic unit square: f = -8 pi^2 sin(2 pi x) sin(2 pi y) has the zero-mean solution
  // u = sin(2 pi x) sin(2 pi y), which the spectral solver finds to rounding.
  const int n = 16;
  const double two_pi = 6.283185307179586;
  std::vector<double> f(n * n), exact(n * n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      exact[i * n + j] = std::sin(two_pi * i / n) * std::sin(two_pi * j / n);
      f[i * n + j] = -2 * two_pi * two_pi * exact[i * n + j];
    }
  }
  const auto periodic = cunum::PoissonBoundary::periodic;
  cunum::PoissonSolver<double> solver({{n, n}, {1.0, 1.0}, {periodic, periodic}});
  const std::vector<double> u = solver.solve(f);
  double error = 0;
  for (int k = 0; k < n * n; ++k) error = std::fmax(error, std::fabs(u[k] - exact[k]));

  // The installed-package tests read the version line back and compare it with the project's.
  std::printf("cunum %s (CUNUM_VERSION %d)\n", CUNUM_VERSION_STRING, CUNUM_VERSION);
  std::printf("cunum consumer: sum = %g on the %s backend; Poisson error %.1e on the %s backend\n", sum,
              cunum::to_string(cunum::resolve_backend(cunum::Backend::automatic)), error,
              cunum::to_string(solver.backend()));
  return sum == 10.0 && error < 1e-12 ? 0 : 1;
}
