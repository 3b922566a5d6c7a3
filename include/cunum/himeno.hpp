#pragma once
/// @file
/// The Himeno benchmark's problem: point-Jacobi sweeps of the 19-point
/// general-coordinate pressure-Poisson stencil (RIKEN's Himeno benchmark, version 3.0,
/// C edition, `himenobmtxpa.c`), on the CPU (OpenMP), one GPU, or
/// several GPUs of this process (slabs along i).
///
/// The grid has nx x ny x nz points, index (i, j, k) with i the slowest and k the
/// contiguous axis: point (i, j, k) is element (i * ny + j) * nz + k of every field.
/// Points with an index 0 or n - 1 on any axis are the boundary, which never changes;
/// the interior points 1..n-2 of each axis are updated. One sweep computes, for every
/// interior point, with p the pressure of the previous sweep,
///
///     s0 = a0 p(i+1,j,k) + a1 p(i,j+1,k) + a2 p(i,j,k+1)
///        + b0 (p(i+1,j+1,k) - p(i+1,j-1,k) - p(i-1,j+1,k) + p(i-1,j-1,k))
///        + b1 (p(i,j+1,k+1) - p(i,j-1,k+1) - p(i,j+1,k-1) + p(i,j-1,k-1))
///        + b2 (p(i+1,j,k+1) - p(i-1,j,k+1) - p(i+1,j,k-1) + p(i-1,j,k-1))
///        + c0 p(i-1,j,k) + c1 p(i,j-1,k) + c2 p(i,j,k-1) + wrk1
///     ss = (s0 a3 - p(i,j,k)) bnd
///     p'(i,j,k) = p(i,j,k) + omega ss
///
/// (all coefficients taken at (i,j,k); 34 floating-point operations), and
/// gosa = sum of ss^2 over the interior, the sweep's residual.
///
/// Example (the benchmark's size M, 100 sweeps, on the GPU when there is one):
/// @code
/// cunum::HimenoProblem<float> problem(cunum::himeno_grid(cunum::HimenoSize::m));
/// double gosa = problem.iterate(100);
/// std::vector<float> p = problem.pressure();
///
/// cunum::Placement two_gpus(cunum::Backend::cuda);
/// two_gpus.devices = {0, 1};                   // slabs on devices 0 and 1
/// cunum::HimenoProblem<float> split(cunum::himeno_grid(cunum::HimenoSize::xl), {}, two_gpus);
/// @endcode

#include <cstdint>
#include <memory>
#include <vector>

#include "cunum/core/backend.hpp"
#include "cunum/core/enum.hpp"
#include "cunum/core/error.hpp"
#include "cunum/core/placement.hpp"
#include "cunum/core/stream.hpp"

namespace cunum {

/// The benchmark's standard sizes. Their grids (himeno_grid()) are those of the
/// dynamic C edition: XS 32 x 32 x 64, S 64 x 64 x 128, M 128 x 128 x 256,
/// L 256 x 256 x 512, XL 512 x 512 x 1024 points. (The static edition declares its
/// arrays one larger on each axis, 33 x 33 x 65 for XS, and leaves the last plane unused.)
#define CUNUM_HIMENO_SIZES(X) \
  X(xs, "XS")                 \
  X(s, "S")                   \
  X(m, "M")                   \
  X(l, "L")                   \
  X(xl, "XL")
CUNUM_ENUM(HimenoSize, CUNUM_HIMENO_SIZES)

/// Points per axis, boundary included; each >= 3.
struct HimenoGrid {
  std::int64_t nx = 0;  ///< i, the slowest axis
  std::int64_t ny = 0;  ///< j
  std::int64_t nz = 0;  ///< k, the contiguous axis

  /// @return nx * ny * nz
  std::int64_t points() const noexcept { return nx * ny * nz; }
  /// @return the interior points, (nx - 2)(ny - 2)(nz - 2): each costs 34 flops a sweep
  std::int64_t interior_points() const noexcept { return (nx - 2) * (ny - 2) * (nz - 2); }
};

/// @return the grid of a standard size
/// @throws Error ErrorCode::invalid_argument naming 'size' for an unlisted value
HimenoGrid himeno_grid(HimenoSize size);

/// @return the floating-point operations of `sweeps` sweeps by the benchmark's
///         convention: 34 per interior point per sweep
double himeno_flops(const HimenoGrid& grid, std::int64_t sweeps) noexcept;

/// Caller-given fields, each grid.points() values in host memory, laid out as the
/// file comment says: a[0..3], b[0..2], c[0..2], bnd and wrk1 are the stencil's
/// coefficients (any finite values: nothing assumes the benchmark's constants), and
/// `pressure` is the initial p, whose boundary values stay fixed.
template <class T>
struct HimenoFields {
  const T* a[4] = {};
  const T* b[3] = {};
  const T* c[3] = {};
  const T* bnd = nullptr;
  const T* wrk1 = nullptr;
  const T* pressure = nullptr;
};

/// How the sweeps run.
struct HimenoOptions {
  double omega = 0.8;  ///< the relaxation factor, finite
  /// Jacobi sweeps done per pass over memory (temporal blocking: on CUDA the
  /// coefficients are read once for that many sweeps, the intermediate pressure planes
  /// stay on chip). 0 picks the fastest measured on one GPU for the precision (1 on the
  /// CPU backend; for a grid cut into slabs, at most the thinnest slab's planes); 1 to
  /// 4 forces it. Slabs (several
  /// devices, MPI ranks) hold ghost planes as deep as a pass has sweeps and exchange
  /// them once a pass, so a value deeper than the thinnest slab is refused. The
  /// pressure is bit-identical for every choice (each point's arithmetic is the same);
  /// only the time differs.
  int sweeps_per_pass = 0;
};

/// A Himeno problem: the fields live in its backend's memory from construction on,
/// and iterate() sweeps them. Where it runs is its Placement (cunum/core/placement.hpp):
///
/// - CPU (OpenMP): the whole grid in host memory.
/// - CUDA, one device (placement.devices empty: the device current at construction, or
///   one entry): the whole grid in that device's memory. Calls must be made with that
///   device current (another one current: ErrorCode::invalid_argument naming 'this').
/// - CUDA, several devices (placement.devices of more entries): the grid's interior
///   planes i = 1..nx-2 are cut into contiguous slabs along i, one per entry in order
///   (HimenoDistributed's decomposition; a device may appear more than once, its slabs
///   then share it), each on its device with S ghost planes on each side that faces
///   another slab, S the sweeps per pass. A pass of S sweeps also updates the ghost
///   planes a later sweep of the pass reads (recomputing what the neighbour owns);
///   after it each slab's first and last S updated planes are copied into its
///   neighbours' ghost planes, device to device where the devices allow it: the problem
///   enables peer access and has each device's current memory pool (which
///   cudaMallocAsync, the default device_memory, serves) grant its neighbours access,
///   process-wide; a device_memory with a pool of its own must grant that itself, or
///   the driver stages the copies. The pressure equals the one-device problem's bit for
///   bit; gosa is the slabs' sums added in slab order.
///   The first device is the problem's home: calls must be made with it current, and
///   their `stream` is a stream of it.
///
/// Memory: every device allocation (the fields, the gosa slots and partial sums) comes
/// from placement.device_memory, on every device listed. Setup (allocation, filling,
/// copying the caller's fields) is enqueued on placement.stream with one device, and
/// with several on a stream the problem keeps on each slab's device, ordered after
/// placement.stream; either way sweeps wait for it on the device, and the fields are
/// freed on the stream they were set up on when the problem is destroyed.
///
/// Every member of a moved-from problem throws Error ErrorCode::invalid_argument naming
/// 'this'.
///
/// Deterministic: the pressure depends only on the fields, omega and the number of
/// sweeps, and the CPU's equals the GPU's bit for bit (on one device or several):
/// neither backend contracts the update into fused multiply-adds, both evaluate it as
/// the serial C code writes it. gosa is summed in double in a fixed order:
/// bit-identical run to run for a given placement (CUDA) or for any thread count
/// (CPU); the backends' gosa, and those of different numbers of slabs, differ only in
/// that order.
///
/// CUDA graphs (docs/himeno.md): nothing here may be captured into a CUDA graph. The
/// constructors (placement.stream), iterate() and pressure() refuse a stream being
/// captured with ErrorCode::not_supported, before anything is enqueued.
template <class T>
class HimenoProblem {
 public:
  /// The benchmark's problem on `grid`: a = (1, 1, 1, 1/6), b = 0, c = 1, bnd = 1,
  /// wrk1 = 0, p(i, j, k) = i^2 / (nx - 1)^2 (computed in T as the benchmark does).
  /// Returns without waiting for the device setup.
  /// @param grid      points per axis, each >= 3 (himeno_grid() gives the standard sizes)
  /// @param options   omega and, for CUDA, the sweeps per pass
  /// @param placement where it runs (resolved once, here): the backend, the device or
  ///                  devices (several: the slabs above), the setup stream and the
  ///                  device memory resource (see the class comment)
  /// @throws Error ErrorCode::invalid_argument naming 'grid' (an axis < 3, a (j, k)
  ///         plane of 2^31 points or more, or fields that overflow 64-bit byte counts),
  ///         'options' (omega not finite, sweeps_per_pass outside 0..4),
  ///         'options.sweeps_per_pass' (several devices: more than the thinnest slab's
  ///         planes, (nx - 2) / devices: its neighbours' halos would reach past it),
  ///         'placement.backend' (not a listed Backend) or 'placement.devices' (given
  ///         with the CPU backend, an ordinal that is not a device here, or more entries
  ///         than the grid's nx - 2 interior planes); ErrorCode::no_device for CUDA
  ///         (Backend::cuda, or devices listed) without a device; ErrorCode::out_of_memory
  ///         when the fields do not fit: "needs N bytes", before anything is allocated,
  ///         when the 14 field arrays exceed the machine's physical memory (CPU) or a
  ///         device's total memory (CUDA: the whole grid on one device, each device's
  ///         slabs on several); ErrorCode::not_supported (CUDA) when placement.stream
  ///         is being captured into a CUDA graph, before anything is allocated: the
  ///         fields would belong to the graph
  explicit HimenoProblem(const HimenoGrid& grid, const HimenoOptions& options = {}, const Placement& placement = {});

  /// A problem with the caller's fields (copied; the pointers need not outlive the call).
  /// @throws Error as above, and ErrorCode::invalid_argument naming the field
  ///         ('fields.a[3]', 'fields.pressure', ...) when it is null or holds a value that
  ///         is not finite
  HimenoProblem(const HimenoGrid& grid, const HimenoFields<T>& fields, const HimenoOptions& options = {},
                const Placement& placement = {});

  ~HimenoProblem();
  HimenoProblem(HimenoProblem&&) noexcept;
  HimenoProblem& operator=(HimenoProblem&&) noexcept;
  HimenoProblem(const HimenoProblem&) = delete;
  HimenoProblem& operator=(const HimenoProblem&) = delete;

  /// Runs `sweeps` Jacobi sweeps. Returns when they are done (it waits for gosa).
  /// @param sweeps  >= 1
  /// @param stream  CUDA, one device: the sweeps are enqueued on it. Several devices:
  ///                a stream of the first device; the sweeps, on the problem's own
  ///                streams, start after the work enqueued on it so far, and are done
  ///                when the call returns. CPU: ignored
  /// @return gosa of the last sweep
  /// @throws Error ErrorCode::invalid_argument naming 'sweeps' (< 1) or 'this' (another
  ///         CUDA device current than the problem's, the first of several);
  ///         ErrorCode::not_supported (CUDA) when `stream` is being captured into a CUDA
  ///         graph: it waits for gosa
  double iterate(std::int64_t sweeps, StreamHandle stream = nullptr);

  /// @param stream CUDA: the copy waits for the work enqueued on it (several devices:
  ///               a stream of the first device; each slab's copy waits for it); CPU:
  ///               ignored
  /// @return the current pressure, grid().points() values, copied to the host
  /// @throws Error ErrorCode::invalid_argument naming 'this' (as iterate);
  ///         ErrorCode::not_supported (CUDA) when `stream` is being captured into a CUDA
  ///         graph: it copies to the host and waits
  std::vector<T> pressure(StreamHandle stream = nullptr) const;

  const HimenoGrid& grid() const;
  const HimenoOptions& options() const;
  /// @return the backend it runs on (never automatic)
  Backend backend() const;
  /// @return the resolved placement: backend cpu or cuda; for CUDA the devices (the
  ///         slabs' devices, in order, with several) and both resources filled in
  const Placement& placement() const;
  /// @return the sweeps per pass iterate() uses (the halos' depth on several devices):
  ///         the option, or for 0 the fastest measured on one CUDA device (on several,
  ///         at most the thinnest slab's planes), 1 on the CPU backend
  int sweeps_per_pass() const;
  /// @return the bytes of memory the whole grid's fields occupy, 14 arrays of
  ///         grid().points() values (slabs on several devices hold two ghost planes
  ///         more at each cut)
  std::int64_t field_bytes() const;

 private:
  HimenoProblem(const HimenoGrid& grid, const HimenoFields<T>* fields, const HimenoOptions& options,
                const Placement& placement);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cunum
