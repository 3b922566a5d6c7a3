#pragma once
// Test references for poisson_fft: grid coordinates, the second-order discrete
// Laplacian with each boundary rule (what a finite-difference code would apply), and
// separable eigenfunctions of the continuous Laplacian for manufactured solutions;
// the non-finite values and positions both suites put into a right-hand side.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <cstdint>
#include <string>
#include <vector>

#include "cunum/poisson_fft.hpp"
#include "test_support.hpp"

namespace cunum::testing::poisson {

constexpr double kPi = 3.14159265358979323846;

inline double spacing(PoissonBoundary boundary, std::int64_t n, double length) {
  return boundary == PoissonBoundary::dirichlet ? length / static_cast<double>(n + 1)
                                                : length / static_cast<double>(n);
}

// x of grid point i on an axis (see cunum/poisson_fft.hpp).
inline double coordinate(PoissonBoundary boundary, std::int64_t n, double length, std::int64_t i) {
  const double h = spacing(boundary, n, length);
  switch (boundary) {
    case PoissonBoundary::dirichlet: return static_cast<double>(i + 1) * h;
    case PoissonBoundary::neumann: return (static_cast<double>(i) + 0.5) * h;
    default: return static_cast<double>(i) * h;
  }
}

// The grid as three axes (a 2-D grid gets a leading axis of one point).
struct Axes {
  std::int64_t n[3];
  double length[3];
  PoissonBoundary boundary[3];
  std::int64_t points() const { return n[0] * n[1] * n[2]; }
};

inline Axes axes_of(const PoissonGrid& grid) {
  Axes axes{{1, 1, 1}, {1, 1, 1}, {PoissonBoundary::periodic, PoissonBoundary::periodic, PoissonBoundary::periodic}};
  const std::size_t first = 3 - grid.shape.size();
  for (std::size_t a = 0; a < grid.shape.size(); ++a) {
    axes.n[first + a] = grid.shape[a];
    axes.length[first + a] = grid.lengths[a];
    axes.boundary[first + a] = grid.boundaries[a];
  }
  return axes;
}

// The neighbour of point i at offset +-1 along an axis: its value, given the axis's
// values through `at`, with the wall rules (Dirichlet: 0 beyond the wall; Neumann:
// the mirror of the last cell; periodic: wrap around).
template <class At>
double neighbour(PoissonBoundary boundary, std::int64_t n, std::int64_t j, At at) {
  if (j >= 0 && j < n) return at(j);
  switch (boundary) {
    case PoissonBoundary::dirichlet: return 0.0;
    case PoissonBoundary::neumann: return at(j < 0 ? 0 : n - 1);
    default: return at((j + n) % n);
  }
}

// (Laplacian_h - alpha) u for one problem (a periodic axis of one point contributes 0).
inline std::vector<double> apply_discrete_operator(const Axes& axes, const std::vector<double>& u, double alpha) {
  std::vector<double> result(u.size());
  const std::int64_t strides[3] = {axes.n[1] * axes.n[2], axes.n[2], 1};
  for (std::int64_t i0 = 0; i0 < axes.n[0]; ++i0) {
    for (std::int64_t i1 = 0; i1 < axes.n[1]; ++i1) {
      for (std::int64_t i2 = 0; i2 < axes.n[2]; ++i2) {
        const std::int64_t index[3] = {i0, i1, i2};
        const std::int64_t flat = i0 * strides[0] + i1 * strides[1] + i2;
        double sum = -alpha * u[flat];
        for (int a = 0; a < 3; ++a) {
          const double h = spacing(axes.boundary[a], axes.n[a], axes.length[a]);
          const auto at = [&](std::int64_t j) { return u[flat + (j - index[a]) * strides[a]]; };
          sum += (neighbour(axes.boundary[a], axes.n[a], index[a] - 1, at) - 2 * u[flat] +
                  neighbour(axes.boundary[a], axes.n[a], index[a] + 1, at)) /
                 (h * h);
        }
        result[flat] = sum;
      }
    }
  }
  return result;
}

// An eigenfunction of d2/dx2 that satisfies the axis's boundary condition, with its
// wavenumber: periodic cos(2 pi m x / L + phase), Dirichlet sin(pi m x / L), Neumann
// cos(pi m x / L).
struct AxisMode {
  double wavenumber;
  double phase;
  double operator()(double x) const { return std::cos(wavenumber * x + phase); }
};

inline AxisMode axis_mode(PoissonBoundary boundary, double length, int m) {
  switch (boundary) {
    case PoissonBoundary::dirichlet: return {kPi * m / length, -kPi / 2};
    case PoissonBoundary::neumann: return {kPi * m / length, 0.0};
    default: return {2 * kPi * m / length, 0.3};
  }
}

// Every boundary combination of `rank` axes, and its name ("periodic/dirichlet").
inline std::vector<std::vector<PoissonBoundary>> boundary_combinations(int rank) {
  std::vector<std::vector<PoissonBoundary>> all{{}};
  for (int a = 0; a < rank; ++a) {
    std::vector<std::vector<PoissonBoundary>> next;
    for (const auto& prefix : all) {
      for (PoissonBoundary boundary : PoissonBoundaryValues::all) {
        next.push_back(prefix);
        next.back().push_back(boundary);
      }
    }
    all = next;
  }
  return all;
}

inline std::string describe(const std::vector<PoissonBoundary>& boundaries) {
  std::string text;
  for (PoissonBoundary boundary : boundaries) text += std::string(text.empty() ? "" : "/") + to_string(boundary);
  return text;
}

// Non-finite right-hand sides for the tests of what they get (poisson_fft.hpp, solve).
struct NonFiniteValue {
  const char* name;
  double value;
};
inline const NonFiniteValue kNonFiniteValues[] = {{"NaN", NAN}, {"+inf", INFINITY}, {"-inf", -INFINITY}};

// Where the bad value goes in a batch of 3: the first point of all, the first, a
// middle and the last point of the second problem, the last point of all.
struct Position {
  std::int64_t problem;
  std::int64_t point;  // -1: the middle, -2: the last point
};
inline const Position kPositions[] = {{0, 0}, {1, 0}, {1, -1}, {1, -2}, {2, -2}};

inline std::int64_t flat_index(Position where, std::int64_t points) {
  const std::int64_t point = where.point == -1 ? points / 2 + 1 : where.point == -2 ? points - 1 : where.point;
  return where.problem * points + std::min(point, points - 1);
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Random f of mean zero in every problem, so that only the bad value can be refused.
template <class T>
std::vector<T> compatible_rhs(std::int64_t batch, std::int64_t points, std::uint64_t stream) {
  std::vector<T> f = cunum::testing::random_vector<T>(static_cast<std::size_t>(batch * points), stream);
  for (std::int64_t b = 0; b < batch; ++b) {
    const auto first = f.begin() + b * points, last = first + points;
    const T mean = std::accumulate(first, last, T(0)) / static_cast<T>(points);
    for (auto it = first; it != last; ++it) *it -= mean;
  }
  return f;
}

}  // namespace cunum::testing::poisson
