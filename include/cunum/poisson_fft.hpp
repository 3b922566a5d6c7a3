#pragma once
/// @file
/// Poisson and screened Poisson equations on rectangular 2-D and 3-D grids, solved by
/// fast Fourier transforms (cunum::PoissonSolver): (Laplacian - alpha) u = f, alpha >= 0,
/// with a boundary condition per axis (periodic; homogeneous Dirichlet or Neumann on both
/// walls, or Dirichlet on one and Neumann on the other), the walls at grid points or at
/// cell faces (a centring per axis), and two discretizations of the Laplacian
/// (spectral, or the eigenvalues of the second-order finite-difference stencil). float
/// and double; one problem or a batch of independent problems of the same shape per
/// call. docs/poisson_fft.md has the user guide, the formulas and the accuracy.
///
/// Grid and layout. Axis a has n_a points on [0, L_a]; where they sit depends on its
/// centring (PoissonCentring) and its boundary condition:
/// - cell (walls at cell faces, as in CaNS and AMReX): x_i = (i + 1/2) h, h = L / n;
/// - vertex (walls at grid points): a Neumann wall's point is stored, a Dirichlet
///   wall's (u = 0) is not: periodic x_i = i h, h = L / n; dirichlet x_i = (i + 1) h,
///   h = L / (n + 1); neumann x_i = i h, h = L / (n - 1) (n >= 2); dirichlet_neumann
///   x_i = (i + 1) h and neumann_dirichlet x_i = i h, both h = L / n.
/// The default centring (PoissonGrid::centrings empty) is vertex for periodic and
/// dirichlet axes and cell for the others.
/// Arrays are row-major with the last axis fastest: point (i, j) of a 2-D problem is
/// element i n_1 + j, point (i, j, k) of a 3-D problem is (i n_1 + j) n_2 + k, and
/// problem b of a batch starts at element b n_0 n_1 (n_2).
///
/// Discretizations. Each axis is diagonalised by the DFT of its periodic extension of
/// length N restricted by symmetry (periodic: n; dirichlet: 2(n + 1) at vertices, 2n at
/// cells; neumann: 2(n - 1) at vertices, 2n at cells; mixed: 4n), its transform mode k
/// being mode m of the extension (m = k, k + 1 or 2k + 1: docs/poisson_fft.md), with
/// wavenumber k = 2 pi m' / (N h), m' = m for m <= N/2 and m - N otherwise:
/// - spectral: the axis contributes -k^2 (exact for band-limited data; the method of the
///   reference work, NVIDIA's spectral Poisson example, docs/poisson_fft.md [1]);
/// - finite_difference: -(4 / h^2) sin^2(pi m / N), the eigenvalues of the 3-point
///   second difference, so that u solves the 5-point (2-D) or 7-point (3-D) system
///   exactly, with the boundary condition imposed as a finite-difference code would.
///
/// The null space. Without a Dirichlet wall and with alpha = 0, constants solve the
/// homogeneous problem: a solution exists only for f of mean zero (the compatibility
/// condition) and is unique up to a constant. PoissonOptions chooses what a non-zero
/// mean does (projected away or rejected) and which constant is returned (mean zero, or
/// u = 0 at the first grid point). The mean is over the grid's points, except that the
/// wall points of an axis with neumann walls at vertices count half (they stand for
/// half cells: the trapezoidal rule, which is what the operator's range leaves out).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cunum/core/backend.hpp"
#include "cunum/core/placement.hpp"
#include "cunum/core/enum.hpp"
#include "cunum/core/error.hpp"
#include "cunum/core/stream.hpp"

namespace cunum {

/// The boundary condition of one axis (cunum::PoissonBoundary), at its lower wall
/// (x = 0) and its upper wall (x = L): `periodic`; homogeneous `dirichlet` (u = 0) or
/// `neumann` (du/dn = 0) on both walls; `dirichlet_neumann` (u = 0 at x = 0, du/dx = 0
/// at x = L) and `neumann_dirichlet` (du/dx = 0 at x = 0, u = 0 at x = L), CaNS's 'DN'
/// and 'ND', AMReX's (odd, even) and (even, odd).
#define CUNUM_POISSON_BOUNDARIES(X)         \
  X(periodic, "periodic")                   \
  X(dirichlet, "dirichlet")                 \
  X(neumann, "neumann")                     \
  X(dirichlet_neumann, "dirichlet_neumann") \
  X(neumann_dirichlet, "neumann_dirichlet")
CUNUM_ENUM(PoissonBoundary, CUNUM_POISSON_BOUNDARIES)

/// Where an axis's walls sit (cunum::PoissonCentring): `vertex`, at grid points (a
/// Dirichlet wall's point, where u = 0, is not stored; a Neumann wall's is); `cell`, at
/// cell faces, half a spacing beyond the first and last points (cell-centred data, the
/// staggered grid of CaNS's pressure and AMReX's cell-centred solvers). See the file
/// comment for the points and spacing of each.
#define CUNUM_POISSON_CENTRINGS(X) \
  X(vertex, "vertex")              \
  X(cell, "cell")
CUNUM_ENUM(PoissonCentring, CUNUM_POISSON_CENTRINGS)

/// How the Laplacian is discretized (cunum::PoissonDiscretization): `spectral`, -k^2
/// per mode; `finite_difference`, the eigenvalues of the second-order stencil.
#define CUNUM_POISSON_DISCRETIZATIONS(X) \
  X(spectral, "spectral")                \
  X(finite_difference, "finite_difference")
CUNUM_ENUM(PoissonDiscretization, CUNUM_POISSON_DISCRETIZATIONS)

/// What a right-hand side of non-zero mean does when the problem has the constants as
/// null space (cunum::PoissonCompatibility): `project` solves for f - mean(f);
/// `reject` throws ErrorCode::invalid_argument naming 'rhs' when
/// |sum f| > compatibility_tolerance * sum |f| for any problem of the batch, and when
/// sum |f| is not finite (a NaN or an infinity in f: see PoissonSolver::solve). Means
/// and sums are weighted as the file comment says (neumann walls at vertices).
#define CUNUM_POISSON_COMPATIBILITIES(X) \
  X(project, "project")                  \
  X(reject, "reject")
CUNUM_ENUM(PoissonCompatibility, CUNUM_POISSON_COMPATIBILITIES)

/// The constant a solution of a singular problem is returned with (cunum::PoissonGauge):
/// `zero_mean`, the mean of u over the grid is 0; `zero_at_origin`, u = 0 at the first
/// grid point of each problem (the reference work's u(0, 0) = 0).
#define CUNUM_POISSON_GAUGES(X) \
  X(zero_mean, "zero_mean")     \
  X(zero_at_origin, "zero_at_origin")
CUNUM_ENUM(PoissonGauge, CUNUM_POISSON_GAUGES)

/// The grid of a problem: 2 or 3 axes, with a length, a boundary condition and a
/// centring each.
struct PoissonGrid {
  std::vector<std::int64_t> shape;             ///< points per axis, {n0, n1} or {n0, n1, n2}, each >= 1 (>= 2 for neumann at vertices)
  /// domain length per axis, finite and > 0, and such that every eigenvalue of the
  /// operator but the constant mode's is a normal value of T (in practice length /
  /// points above about 1e-153 and length below about 1e153 for double, 1e-19 and 1e19
  /// for float)
  std::vector<double> lengths;
  std::vector<PoissonBoundary> boundaries;     ///< boundary condition per axis
  std::int64_t batch = 1;                      ///< independent problems per call, >= 1
  /// Where each axis's walls sit, one per axis; empty: vertex for periodic and
  /// dirichlet axes, cell for neumann and the mixed ones (the placements of cunum
  /// before centrings existed).
  std::vector<PoissonCentring> centrings = {};
};

/// The equation and the rules for singular problems.
struct PoissonOptions {
  PoissonDiscretization discretization = PoissonDiscretization::spectral;  ///< see the file comment
  double screening = 0;                                                    ///< alpha >= 0 in (Laplacian - alpha) u = f
  PoissonCompatibility compatibility = PoissonCompatibility::project;      ///< non-zero mean: project or reject
  /// `reject`'s bound on |sum f| / sum |f|, finite and >= 0; 0 means the default,
  /// sqrt(epsilon) of the value type (3.5e-4 float, 1.5e-8 double).
  double compatibility_tolerance = 0;
  PoissonGauge gauge = PoissonGauge::zero_mean;                            ///< the free constant
};

/// A Poisson solver planned once for a grid, a value type T (float or double) and a
/// backend, then called many times. It owns its FFT plans (cuFFT on the CUDA backend,
/// FFTW on the CPU backend) and its work areas.
///
/// Method: every wall axis is transformed by the sine or cosine transform that
/// diagonalises it (DST or DCT of type I, II/III or IV; FFTW's real-to-real kinds on the
/// CPU), the periodic axes by a real-to-complex FFT; each mode is divided by the
/// eigenvalue of the discrete operator (the transforms' normalisation folded in), and
/// the inverse transforms run in reverse. The CUDA backend computes each wall transform
/// from one real FFT of the line (length n, 2n, 2(n + 1) or 2(n - 1)) and pre- and
/// post-processing passes (docs/poisson_fft.md).
///
/// Moved from, a solver holds nothing: every member function then throws Error
/// ErrorCode::invalid_argument naming 'this' (assigning to it or destroying it is fine).
/// Thread safety: one solve at a time per solver (its work areas are shared): with the
/// CUDA backend, solves on different streams must be ordered by the caller.
/// Lifetime: with the CUDA backend the solver's work areas and plans must outlive the
/// solves enqueued with it; synchronise their streams before destroying it.
/// Determinism: results are bit-identical run to run on a given device or CPU thread
/// count (cuFFT and FFTW plans are fixed at construction; FFTW plans with FFTW_ESTIMATE,
/// so they do not depend on timing).
/// CUDA graphs (docs/poisson_fft.md): solve() may be captured into a CUDA graph but for
/// the cases it refuses (below); the constructor refuses a capturing stream.
template <class T>
class PoissonSolver {
 public:
  /// Plans the solver.
  /// @param grid     shape, lengths, boundaries, batch and centrings
  /// @param options  discretization, screening and the singular-problem rules
  /// @param placement where it runs (cunum/core/placement.hpp), resolved once here: the
  ///                 backend, one device at most, the stream the one-time setup (tables,
  ///                 work areas) is enqueued on (solves on other streams are ordered
  ///                 after it), and the resource every work area comes from, cuFFT's
  ///                 included (a misaligned array's staging copy too)
  /// @throws Error ErrorCode::invalid_argument naming the argument ('grid.shape',
  ///         'grid.lengths', 'grid.boundaries', 'grid.batch', 'grid.centrings',
  ///         'options.screening', ...) for a value out of range or lists of different
  ///         sizes ('grid.shape' for fewer than 2 points on an axis with neumann walls
  ///         at vertices), and naming 'grid.lengths' when an eigenvalue of the operator
  ///         is not a normal T;
  ///         'placement.backend' or 'placement.devices';
  ///         ErrorCode::no_device for CUDA without a device;
  ///         ErrorCode::out_of_memory "needs N bytes", before anything is allocated, when
  ///         the work arrays (grid, spectrum, eigenvalue tables) exceed the machine's
  ///         physical memory (CPU) or the device's total memory (CUDA), and from the plans;
  ///         ErrorCode::not_supported (CUDA) when placement.stream is being captured into
  ///         a CUDA graph, before anything is allocated: the setup would belong to the graph;
  ///         ErrorCode::cuda_failure from the plans
  explicit PoissonSolver(const PoissonGrid& grid, const PoissonOptions& options = {}, const Placement& placement = {});
  ~PoissonSolver();
  PoissonSolver(PoissonSolver&&) noexcept;
  PoissonSolver& operator=(PoissonSolver&&) noexcept;
  PoissonSolver(const PoissonSolver&) = delete;
  PoissonSolver& operator=(const PoissonSolver&) = delete;

  /// Solves every problem of the batch: solution = (Laplacian - alpha)^-1 rhs.
  /// @param rhs       size() values in memory the backend can read (device memory for
  ///                  CUDA); not modified unless it is `solution`
  /// @param solution  size() values in memory the backend can write; may equal `rhs`
  ///                  (in place); any other overlap with it is refused
  /// @param stream    CUDA backend: the call is asynchronous on it, except that the
  ///                  `reject` compatibility check waits for its sums; CPU: ignored,
  ///                  the call returns when done
  /// @throws Error ErrorCode::invalid_argument naming 'rhs' or 'solution' (null, or
  ///         memory the backend cannot use), naming 'solution' when it overlaps `rhs`
  ///         without being `rhs`, naming 'rhs' for an incompatible mean or a
  ///         non-finite value under `reject` on a singular problem (nothing is written
  ///         then), or naming 'this' when another CUDA device is current than at
  ///         construction; ErrorCode::not_supported on a stream being captured into a
  ///         CUDA graph in the cases "CUDA graphs" lists below
  ///
  /// Non-finite input (a NaN, +inf or -inf anywhere in `rhs`) gets, by mode:
  /// - `reject` on a singular problem (no Dirichlet axis, screening 0): Error
  ///   ErrorCode::invalid_argument naming 'rhs' and the problem of the batch ("holds a
  ///   non-finite value in problem b"), before anything is written. The test reads the
  ///   sums the rule computes anyway (on the CUDA backend the same pass and the same
  ///   wait); a double rhs whose magnitudes sum past the largest double is refused
  ///   the same way.
  /// - every other mode (`project`, and `reject` where it does not apply: a Dirichlet
  ///   axis or screening > 0): no check and no error, so that these modes keep no pass
  ///   over the input and, on the CUDA backend, no host synchronisation. NaN in, NaN
  ///   out: every value of that problem's solution comes back non-finite (NaN; an
  ///   infinity may come back infinite at its own point), and the other problems of
  ///   the batch come back as without it. A caller who cannot rule such input out
  ///   checks the input or the output.
  /// Finite input is not checked for range in any mode: magnitudes whose sum over a
  /// problem nears the largest T (3.4e38 for float, whose transforms run in float)
  /// can overflow the transforms, and the solution comes back non-finite the same
  /// way, unreported.
  ///
  /// CUDA graphs: captures (cuFFT's transforms and the module's kernels), and each
  /// replay solves `rhs` as it is then; the solver must outlive the graph's launches
  /// and solve only in the graph's stream order (its work areas are shared). Refused
  /// with ErrorCode::not_supported on a capturing stream, before anything is enqueued:
  /// the `reject` rule where it applies (it waits for its sums), and the first solve of
  /// a fully periodic solver (zero_mean gauge) with `rhs` or `solution` not aligned to
  /// 2 x sizeof(T) (it allocates the staging array; after one such direct solve, such
  /// solves capture too).
  void solve(const T* rhs, T* solution, StreamHandle stream = nullptr);

  /// Host-vector convenience: copies through the device for the CUDA backend, on the
  /// placement's stream (into memory from its resource), and waits.
  /// @param rhs size() values
  /// @return the solution, size() values
  /// @throws Error as solve(), and naming 'rhs' when it has not size() values;
  ///         ErrorCode::not_supported when placement.stream is being captured into a
  ///         CUDA graph, before anything is enqueued (it waits)
  std::vector<T> solve(const std::vector<T>& rhs);

  /// Host-vector convenience, in place: `rhs_and_solution` holds f on entry, u on return.
  /// @throws Error as solve(const std::vector<T>&)
  void solve_in_place(std::vector<T>& rhs_and_solution);

  /// @return the values per call: batch times the points of one grid
  std::int64_t size() const;
  /// @return the bytes of work memory the solver holds (device memory for CUDA, host
  ///         memory for the CPU), FFT library work areas included. A fully periodic
  ///         CUDA solver adds one real array of size() values at its first solve with
  ///         an array not aligned to 2 x sizeof(T) (cuFFT's requirement; it is staged)
  std::size_t workspace_bytes() const;
  /// @return the backend it runs on (never automatic)
  Backend backend() const;
  /// @return the resolved placement (see Placement)
  const Placement& placement() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cunum
