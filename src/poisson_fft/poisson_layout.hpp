#pragma once
// Internal: how a PoissonGrid maps onto fast transforms, shared by both backends.
//
// Every problem is held as three axes, the first of length 1 for a 2-D grid. Each axis
// is diagonalised by its own transform of the grid's n points, never by an extended
// array (AxisTransform below). Each is the DFT of the axis's periodic extension of
// length N restricted by symmetry, and mode k of the transform is mode
// first_mode + mode_step k of that extension; a forward and inverse pair multiplies by
// its pair factor (unnormalised, as FFTW defines them). docs/poisson_fft.md has the
// derivation.

#include <cstdint>
#include <vector>

#include "cunum/poisson_fft.hpp"

namespace cunum::detail {

constexpr int kPoissonAxes = 3;

// The transform pair that diagonalises an axis, by boundary condition and centring, as
// FFTW names them (forward, inverse; the pair factor; the extension N; mode m of the
// extension at transform mode k):
enum class AxisTransform {
  fourier,                // periodic: the real DFT; n; N = n; m = k
  sine_vertex,            // dirichlet, vertex: RODFT00 both ways (DST-I); 2(n + 1); N = 2(n + 1); m = k + 1
  cosine_vertex,          // neumann, vertex: REDFT00 both ways (DCT-I); 2(n - 1); N = 2(n - 1); m = k
  sine_cell,              // dirichlet, cell: RODFT10, RODFT01 (DST-II, DST-III); 2n; N = 2n; m = k + 1
  cosine_cell,            // neumann, cell: REDFT10, REDFT01 (DCT-II, DCT-III); 2n; N = 2n; m = k
  sine_quarter_vertex,    // dirichlet_neumann, vertex: RODFT01, RODFT10 (DST-III, DST-II); 2n; N = 4n; m = 2k + 1
  cosine_quarter_vertex,  // neumann_dirichlet, vertex: REDFT01, REDFT10 (DCT-III, DCT-II); 2n; N = 4n; m = 2k + 1
  sine_quarter_cell,      // dirichlet_neumann, cell: RODFT11 both ways (DST-IV); 2n; N = 4n; m = 2k + 1
  cosine_quarter_cell,    // neumann_dirichlet, cell: REDFT11 both ways (DCT-IV); 2n; N = 4n; m = 2k + 1
};

// The transform of an axis with `boundary` and `centring`.
AxisTransform axis_transform(PoissonBoundary boundary, PoissonCentring centring);

// The centring an axis gets when PoissonGrid::centrings is empty.
PoissonCentring default_centring(PoissonBoundary boundary);

struct PoissonLayout {
  int rank;                                   // 2 or 3: the problem's dimensions
  std::int64_t batch;
  std::int64_t shape[kPoissonAxes];           // grid points per axis (axis 0 is 1 in 2-D)
  PoissonBoundary boundaries[kPoissonAxes];
  PoissonCentring centrings[kPoissonAxes];    // resolved (a 2-D grid's leading axis: vertex)
  AxisTransform transforms[kPoissonAxes];
  std::int64_t extended[kPoissonAxes];        // the length N of each axis's periodic extension
  std::int64_t points;                        // grid points of one problem
  std::int64_t pair_factor;                   // the product of the axes' pair factors: 1 / the division's scale
  // The axes transformed by the real DFT: periodic with more than one point.
  bool fourier[kPoissonAxes];
  int last_fourier;                           // the last of them (halved by R2C), -1 if none
  int wall_count;                             // the axes that are not periodic, in order
  int walls[kPoissonAxes];
  // The spectrum of one problem after every transform: shape[], except n / 2 + 1 on
  // last_fourier (the half spectrum); `modes` values (complex if last_fourier >= 0,
  // real otherwise).
  std::int64_t spectrum_shape[kPoissonAxes];
  std::int64_t modes;
  bool singular;                              // constants are a null space (no Dirichlet wall, alpha = 0)
  // The mean of a singular problem is weighted: the two wall points of an axis with
  // Neumann walls at vertices count half (the trapezoidal rule; the left null vector
  // of its operator). `half_weight_ends[a]` says which axes; `weight_total` is the
  // weights' sum over one problem (`points` when no axis is such).
  bool half_weight_ends[kPoissonAxes];
  double weight_total;
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
