#pragma once
// Internal: how a PoissonGrid maps onto periodic FFTs, shared by both backends.
//
// Every problem is held as three axes, the first of length 1 for a 2-D grid. Each
// axis is extended to a periodic array of length N: periodic axes as they are,
// Dirichlet axes by the odd extension about both walls (the sine series: the grid is
// the interior of a vertex grid, N = 2(n + 1), values 0 at the walls), Neumann axes by
// the even extension about the half sample (the cosine series of the cell-centred
// grid, N = 2n). The extended right-hand side has the symmetry of the boundary
// conditions, so the periodic solution on the extended grid has it too and, restricted
// to the grid, is the solution of the wall problem.

#include <cstdint>
#include <vector>

#include "cunum/poisson_fft.hpp"
#include "src/core/host_device.hpp"

namespace cunum::detail {

constexpr int kPoissonAxes = 3;

// Where extended sample e of an axis comes from: the grid point `source` times `sign`,
// or nothing (sign 0: a Dirichlet wall).
struct ExtensionSource {
  std::int64_t source;
  int sign;
};

CUNUM_HOST_DEVICE inline ExtensionSource extension_source(PoissonBoundary boundary, std::int64_t n,
                                                          std::int64_t e) {
  switch (boundary) {
    case PoissonBoundary::dirichlet:
      if (e == 0 || e == n + 1) return {0, 0};
      if (e <= n) return {e - 1, 1};
      return {2 * n + 1 - e, -1};
    case PoissonBoundary::neumann:
      return e < n ? ExtensionSource{e, 1} : ExtensionSource{2 * n - 1 - e, 1};
    default:
      return {e, 1};
  }
}

// The extended index of grid point i: Dirichlet grids start one sample after the wall.
CUNUM_HOST_DEVICE inline std::int64_t extended_index(PoissonBoundary boundary, std::int64_t i) {
  return boundary == PoissonBoundary::dirichlet ? i + 1 : i;
}

struct PoissonLayout {
  int rank;                                   // 2 or 3: the FFT's dimensions
  std::int64_t batch;
  std::int64_t shape[kPoissonAxes];           // grid points per axis (axis 0 is 1 in 2-D)
  std::int64_t extended[kPoissonAxes];        // periodic extension lengths
  PoissonBoundary boundaries[kPoissonAxes];
  std::int64_t points;                        // grid points of one problem
  std::int64_t extended_points;               // extended samples of one problem
  std::int64_t half_last;                     // extended[2] / 2 + 1: the R2C output's last axis
  std::int64_t modes;                         // complex modes of one problem
  bool extends;                               // some axis is a wall: the extended array differs
  bool singular;                              // constants are a null space (no Dirichlet, alpha = 0)
  bool pin_origin;                            // singular, and the gauge is zero_at_origin
  bool reject_incompatible;                   // singular, and the compatibility rule is reject
  double screening;
  double compatibility_tolerance;             // resolved (never the 0 placeholder)
  // The eigenvalue contribution of each axis's modes, axis a at offset
  // eigen_offset[a], extended[a] values each; the operator's eigenvalue at mode
  // (m0, m1, m2) is the sum of the three minus the screening.
  std::int64_t eigen_offset[kPoissonAxes];
  std::vector<double> eigenvalues;
};

// Builds the layout of a validated grid and options for value type T.
template <class T>
PoissonLayout make_poisson_layout(const PoissonGrid& grid, const PoissonOptions& options);

}  // namespace cunum::detail
