#pragma once
// Test references for poisson_fft: grid coordinates, the second-order discrete
// Laplacian with each boundary rule (what a finite-difference code would apply), and
// separable eigenfunctions of the continuous Laplacian for manufactured solutions;
// the non-finite values and positions both suites put into a right-hand side.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <numeric>
#include <cstdint>
#include <string>
#include <vector>

#include "cunum/poisson_fft.hpp"
#include "test_support.hpp"

namespace cunum::testing::poisson {

constexpr double kPi = 3.14159265358979323846;

// The condition at one wall of an axis: none (periodic), u = 0 or du/dn = 0.
enum class Wall { none, dirichlet, neumann };

inline Wall lower_wall(PoissonBoundary boundary) {
  switch (boundary) {
    case PoissonBoundary::dirichlet:
    case PoissonBoundary::dirichlet_neumann: return Wall::dirichlet;
    case PoissonBoundary::neumann:
    case PoissonBoundary::neumann_dirichlet: return Wall::neumann;
    default: return Wall::none;
  }
}

inline Wall upper_wall(PoissonBoundary boundary) {
  switch (boundary) {
    case PoissonBoundary::dirichlet:
    case PoissonBoundary::neumann_dirichlet: return Wall::dirichlet;
    case PoissonBoundary::neumann:
    case PoissonBoundary::dirichlet_neumann: return Wall::neumann;
    default: return Wall::none;
  }
}

// One axis: its points, length, condition and centring.
struct Axis {
  std::int64_t n;
  double length;
  PoissonBoundary boundary;
  PoissonCentring centring;
};

// The spacing: cells are L / n wide; at vertices the n points and the unstored
// Dirichlet walls' points split [0, L] into n + 1 - (Neumann walls) intervals (a
// periodic axis: n).
inline double spacing(const Axis& axis) {
  if (axis.centring == PoissonCentring::cell || axis.boundary == PoissonBoundary::periodic) {
    return axis.length / static_cast<double>(axis.n);
  }
  const int neumann_walls = (lower_wall(axis.boundary) == Wall::neumann) + (upper_wall(axis.boundary) == Wall::neumann);
  return axis.length / static_cast<double>(axis.n + 1 - neumann_walls);
}

// x of grid point i (see cunum/poisson_fft.hpp): a cell centre, or a vertex that is
// one spacing in from an unstored Dirichlet wall and on a stored Neumann wall.
inline double coordinate(const Axis& axis, std::int64_t i) {
  const double h = spacing(axis);
  if (axis.centring == PoissonCentring::cell) return (static_cast<double>(i) + 0.5) * h;
  return static_cast<double>(i + (lower_wall(axis.boundary) == Wall::dirichlet ? 1 : 0)) * h;
}

// The grid as three axes (a 2-D grid gets a leading periodic axis of one point); the
// default centrings where the grid gives none (vertex for periodic and Dirichlet axes,
// cell otherwise).
struct Axes {
  std::int64_t n[3];
  double length[3];
  PoissonBoundary boundary[3];
  PoissonCentring centring[3];
  std::int64_t points() const { return n[0] * n[1] * n[2]; }
  Axis axis(int a) const { return {n[a], length[a], boundary[a], centring[a]}; }
};

inline Axes axes_of(const PoissonGrid& grid) {
  Axes axes{{1, 1, 1},
            {1, 1, 1},
            {PoissonBoundary::periodic, PoissonBoundary::periodic, PoissonBoundary::periodic},
            {PoissonCentring::vertex, PoissonCentring::vertex, PoissonCentring::vertex}};
  const std::size_t first = 3 - grid.shape.size();
  for (std::size_t a = 0; a < grid.shape.size(); ++a) {
    const PoissonBoundary boundary = grid.boundaries[a];
    const bool vertex_by_default = boundary == PoissonBoundary::periodic || boundary == PoissonBoundary::dirichlet;
    axes.n[first + a] = grid.shape[a];
    axes.length[first + a] = grid.lengths[a];
    axes.boundary[first + a] = boundary;
    axes.centring[first + a] = !grid.centrings.empty() ? grid.centrings[a]
                               : vertex_by_default     ? PoissonCentring::vertex
                                                       : PoissonCentring::cell;
  }
  return axes;
}

// The value at index j of an axis, j possibly one beyond either end, given the axis's
// stored values through `at`, as a finite-difference code sets its ghost points:
// periodic wraps around; a Dirichlet wall at a vertex is the unstored 0; a Neumann wall
// at a vertex is the stored end point, the ghost its mirror image about it; a wall at
// a cell face mirrors the end cell, evenly (Neumann) or oddly (Dirichlet, u = 0 on the
// face).
template <class At>
double neighbour(const Axis& axis, std::int64_t j, At at) {
  const std::int64_t n = axis.n;
  if (j >= 0 && j < n) return at(j);
  if (axis.boundary == PoissonBoundary::periodic) return at((j + n) % n);
  const Wall wall = j < 0 ? lower_wall(axis.boundary) : upper_wall(axis.boundary);
  const std::int64_t end = j < 0 ? 0 : n - 1;
  if (axis.centring == PoissonCentring::cell) return wall == Wall::neumann ? at(end) : -at(end);
  if (wall == Wall::dirichlet) return 0.0;
  // The mirror of j about the end point; with one point, beyond the other wall.
  return neighbour(axis, 2 * end - j, at);
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
          const Axis axis = axes.axis(a);
          const double h = spacing(axis);
          const auto at = [&](std::int64_t j) { return u[flat + (j - index[a]) * strides[a]]; };
          sum += (neighbour(axis, index[a] - 1, at) - 2 * u[flat] + neighbour(axis, index[a] + 1, at)) / (h * h);
        }
        result[flat] = sum;
      }
    }
  }
  return result;
}

// An eigenfunction of d2/dx2 that satisfies the axis's boundary condition, with its
// wavenumber: periodic cos(2 pi m x / L + phase), Dirichlet sin(pi m x / L) (m >= 1),
// Neumann cos(pi m x / L), dirichlet_neumann sin(pi (m + 1/2) x / L),
// neumann_dirichlet cos(pi (m + 1/2) x / L).
struct AxisMode {
  double wavenumber;
  double phase;
  double operator()(double x) const { return std::cos(wavenumber * x + phase); }
};

inline AxisMode axis_mode(PoissonBoundary boundary, double length, int m) {
  switch (boundary) {
    case PoissonBoundary::dirichlet: return {kPi * m / length, -kPi / 2};
    case PoissonBoundary::neumann: return {kPi * m / length, 0.0};
    case PoissonBoundary::dirichlet_neumann: return {kPi * (m + 0.5) / length, -kPi / 2};
    case PoissonBoundary::neumann_dirichlet: return {kPi * (m + 0.5) / length, 0.0};
    default: return {2 * kPi * m / length, 0.3};
  }
}

// The weight of point i in a singular problem's mean: a Neumann wall's point at a
// vertex stands for half a cell (the trapezoidal rule), every other point for one.
inline double mean_weight(const Axis& axis, std::int64_t i) {
  if (axis.centring != PoissonCentring::vertex) return 1.0;
  const bool at_neumann_wall = (i == 0 && lower_wall(axis.boundary) == Wall::neumann) ||
                               (i == axis.n - 1 && upper_wall(axis.boundary) == Wall::neumann);
  return at_neumann_wall ? 0.5 : 1.0;
}

// The weighted mean of one problem's values (see mean_weight).
inline double weighted_mean(const Axes& axes, const std::vector<double>& values) {
  double sum = 0, weights = 0;
  for (std::int64_t i0 = 0; i0 < axes.n[0]; ++i0)
    for (std::int64_t i1 = 0; i1 < axes.n[1]; ++i1)
      for (std::int64_t i2 = 0; i2 < axes.n[2]; ++i2) {
        const double w = mean_weight(axes.axis(0), i0) * mean_weight(axes.axis(1), i1) * mean_weight(axes.axis(2), i2);
        sum += w * values[static_cast<std::size_t>((i0 * axes.n[1] + i1) * axes.n[2] + i2)];
        weights += w;
      }
  return sum / weights;
}

// Whether a wall of the axis holds u = 0 (no constant null space).
inline bool has_dirichlet_wall(PoissonBoundary boundary) {
  return lower_wall(boundary) == Wall::dirichlet || upper_wall(boundary) == Wall::dirichlet;
}

// The boundaries and centrings of a grid's axes.
struct AxisConditions {
  std::vector<PoissonBoundary> boundaries;
  std::vector<PoissonCentring> centrings;
};

// Every combination of `rank` axes drawn from `boundaries` (all of them by default),
// with the default centrings (empty).
inline std::vector<std::vector<PoissonBoundary>> boundary_combinations(
    int rank, const std::vector<PoissonBoundary>& boundaries = {std::begin(PoissonBoundaryValues::all),
                                                                std::end(PoissonBoundaryValues::all)}) {
  std::vector<std::vector<PoissonBoundary>> all{{}};
  for (int a = 0; a < rank; ++a) {
    std::vector<std::vector<PoissonBoundary>> next;
    for (const auto& prefix : all) {
      for (PoissonBoundary boundary : boundaries) {
        next.push_back(prefix);
        next.back().push_back(boundary);
      }
    }
    all = next;
  }
  return all;
}

// Every boundary and every centring on each of `rank` axes.
inline std::vector<AxisConditions> condition_combinations(int rank) {
  std::vector<AxisConditions> all{{}};
  for (int a = 0; a < rank; ++a) {
    std::vector<AxisConditions> next;
    for (const AxisConditions& prefix : all) {
      for (PoissonBoundary boundary : PoissonBoundaryValues::all) {
        for (PoissonCentring centring : PoissonCentringValues::all) {
          next.push_back(prefix);
          next.back().boundaries.push_back(boundary);
          next.back().centrings.push_back(centring);
        }
      }
    }
    all = next;
  }
  return all;
}

inline std::string describe(const std::vector<PoissonBoundary>& boundaries,
                            const std::vector<PoissonCentring>& centrings = {}) {
  std::string text;
  for (std::size_t a = 0; a < boundaries.size(); ++a) {
    text += std::string(text.empty() ? "" : "/") + to_string(boundaries[a]);
    if (!centrings.empty()) text += std::string("@") + to_string(centrings[a]);
  }
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
