#pragma once
// Internal: how a PoissonGrid maps onto fast transforms, shared by both backends.
//
// Every problem is held as three axes, the first of length 1 for a 2-D grid. Each axis
// is diagonalised by its own transform of the grid's n points, never by an extended
// array:
//   periodic   the real DFT (a periodic axis of length 1 is the identity);
//   dirichlet  the sine transform DST-I (FFTW's RODFT00): the grid is the interior of a
//              vertex grid, u = 0 at the walls; it is its own inverse;
//   neumann    the cosine transform DCT-II forward, DCT-III back (FFTW's REDFT10 and
//              REDFT01): the cell-centred grid, even about the half sample.
// Each is the DFT of the axis's periodic extension of length N (n, 2(n + 1), 2n)
// restricted by symmetry, so a forward and inverse pair multiplies by N (unnormalised,
// as FFTW defines them), and mode k of a wall transform is mode k + 1 (Dirichlet) or k
// (Neumann) of that extension. docs/poisson_fft.md has the derivation.

#include <cstdint>
#include <vector>

#include "cunum/poisson_fft.hpp"

namespace cunum::detail {

constexpr int kPoissonAxes = 3;

struct PoissonLayout {
  int rank;                                   // 2 or 3: the problem's dimensions
  std::int64_t batch;
  std::int64_t shape[kPoissonAxes];           // grid points per axis (axis 0 is 1 in 2-D)
  PoissonBoundary boundaries[kPoissonAxes];
  std::int64_t extended[kPoissonAxes];        // the length N of each axis's periodic extension
  std::int64_t points;                        // grid points of one problem
  std::int64_t extended_points;               // product of extended[]: the transform pair's factor
  // The axes transformed by the real DFT: periodic with more than one point.
  bool fourier[kPoissonAxes];
  int last_fourier;                           // the last of them (halved by R2C), -1 if none
  int wall_count;                             // Dirichlet and Neumann axes, in order
  int walls[kPoissonAxes];
  // The spectrum of one problem after every transform: shape[], except n / 2 + 1 on
  // last_fourier (the half spectrum); `modes` values (complex if last_fourier >= 0,
  // real otherwise).
  std::int64_t spectrum_shape[kPoissonAxes];
  std::int64_t modes;
  bool singular;                              // constants are a null space (no Dirichlet, alpha = 0)
  bool pin_origin;                            // singular, and the gauge is zero_at_origin
  bool reject_incompatible;                   // singular, and the compatibility rule is reject
  double screening;
  double compatibility_tolerance;             // resolved (never the 0 placeholder)
  // The eigenvalue contribution of each axis's transform modes, axis a at offset
  // eigen_offset[a], shape[a] values each; the operator's eigenvalue at mode
  // (m0, m1, m2) is the sum of the three minus the screening.
  std::int64_t eigen_offset[kPoissonAxes];
  std::vector<double> eigenvalues;
};

// Builds the layout of a validated grid and options for value type T.
template <class T>
PoissonLayout make_poisson_layout(const PoissonGrid& grid, const PoissonOptions& options);

}  // namespace cunum::detail
