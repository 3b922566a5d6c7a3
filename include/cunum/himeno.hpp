#pragma once
/// @file
/// The Himeno benchmark's problem: point-Jacobi sweeps of the 19-point
/// general-coordinate pressure-Poisson stencil (RIKEN's Himeno benchmark, version 3.0,
/// C edition, `himenobmtxpa.c`), on one GPU or on the CPU (OpenMP).
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
/// @endcode

#include <cstdint>
#include <memory>
#include <vector>

#include "cunum/core/backend.hpp"
#include "cunum/core/enum.hpp"
#include "cunum/core/error.hpp"
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
  /// CUDA backend: Jacobi sweeps done per pass over memory (temporal blocking: the
  /// coefficients are read once for that many sweeps, the intermediate pressure planes
  /// stay on chip). 0 picks the fastest measured for the device and precision; 1 to 4
  /// forces it. The pressure is bit-identical for every choice (each point's
  /// arithmetic is the same); only the time differs. CPU backend: ignored.
  int sweeps_per_pass = 0;
};

/// A Himeno problem on one backend: the fields live in its memory (device memory for
/// CUDA) from construction on; iterate() sweeps them. Every member of a moved-from
/// problem throws Error ErrorCode::invalid_argument naming 'this'.
///
/// Deterministic: the pressure depends only on the fields, omega and the number of
/// sweeps, and the CPU's equals the GPU's bit for bit: neither backend contracts the
/// update into fused multiply-adds, both evaluate it as the serial C code writes it.
/// gosa is summed in double in a fixed order: bit-identical run to run on one device
/// (CUDA) or for any thread count (CPU); the backends' gosa differ only in that order.
template <class T>
class HimenoProblem {
 public:
  /// The benchmark's problem on `grid`: a = (1, 1, 1, 1/6), b = 0, c = 1, bnd = 1,
  /// wrk1 = 0, p(i, j, k) = i^2 / (nx - 1)^2 (computed in T as the benchmark does).
  /// @param grid    points per axis, each >= 3 (himeno_grid() gives the standard sizes)
  /// @param options omega and, for CUDA, the sweeps per pass
  /// @param backend where it runs (resolved once, here)
  /// @param stream CUDA backend: the fields are filled on it, and sweeps on other
  ///               streams are ordered after it. CPU: ignored
  /// @throws Error ErrorCode::invalid_argument naming 'grid' (an axis < 3, a (j, k)
  ///         plane of 2^31 points or more, or fields that overflow 64-bit byte counts) or 'options' (omega not finite,
  ///         sweeps_per_pass outside 0..4); ErrorCode::no_device for Backend::cuda without
  ///         a device; ErrorCode::out_of_memory when the fields do not fit: "needs N
  ///         bytes", before anything is allocated, when the 14 field arrays exceed the
  ///         machine's physical memory (CPU) or the device's total memory (CUDA)
  explicit HimenoProblem(const HimenoGrid& grid, const HimenoOptions& options = {},
                         Backend backend = Backend::automatic, StreamHandle stream = nullptr);

  /// A problem with the caller's fields (copied; the pointers need not outlive the call).
  /// @throws Error as above, and ErrorCode::invalid_argument naming the field
  ///         ('fields.a[3]', 'fields.pressure', ...) when it is null or holds a value that
  ///         is not finite
  HimenoProblem(const HimenoGrid& grid, const HimenoFields<T>& fields, const HimenoOptions& options = {},
                Backend backend = Backend::automatic, StreamHandle stream = nullptr);

  ~HimenoProblem();
  HimenoProblem(HimenoProblem&&) noexcept;
  HimenoProblem& operator=(HimenoProblem&&) noexcept;
  HimenoProblem(const HimenoProblem&) = delete;
  HimenoProblem& operator=(const HimenoProblem&) = delete;

  /// Runs `sweeps` Jacobi sweeps. Returns when they are done (it waits for gosa).
  /// @param sweeps  >= 1
  /// @param stream  CUDA backend: the sweeps are enqueued on it; CPU: ignored
  /// @return gosa of the last sweep
  /// @throws Error ErrorCode::invalid_argument naming 'sweeps' (< 1) or 'this' (another
  ///         CUDA device current than at construction)
  double iterate(std::int64_t sweeps, StreamHandle stream = nullptr);

  /// @param stream CUDA backend: the copy waits for the work enqueued on it; CPU: ignored
  /// @return the current pressure, grid().points() values, copied to the host
  std::vector<T> pressure(StreamHandle stream = nullptr) const;

  const HimenoGrid& grid() const;
  const HimenoOptions& options() const;
  /// @return the backend it runs on (never automatic)
  Backend backend() const;
  /// @return the sweeps per pass iterate() uses (CUDA), 1 on the CPU backend
  int sweeps_per_pass() const;
  /// @return the bytes of memory the fields occupy, 14 arrays of grid().points() values
  std::int64_t field_bytes() const;

 private:
  HimenoProblem(const HimenoGrid& grid, const HimenoFields<T>* fields, const HimenoOptions& options, Backend backend,
                StreamHandle stream);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The problem cut into slabs along i across several GPUs driven from this process (no
/// MPI): one slab per entry of `devices`, in order (HimenoDistributed's decomposition).
/// After every sweep each slab's first and last updated planes are copied into its
/// neighbours' ghost planes, device to device (peer access enabled where the devices
/// allow it; a device may appear more than once, its slabs then share it). The pressure
/// equals the one-box problem's bit for bit; gosa is the slabs' sums added in slab order.
/// With one device the slab is the whole grid and temporal blocking applies. Every
/// member of a moved-from object throws Error ErrorCode::invalid_argument naming 'this'.
template <class T>
class HimenoMultiDevice {
 public:
  /// The benchmark's problem.
  /// @throws Error ErrorCode::invalid_argument naming 'devices' (empty, an ordinal that is
  ///         not a device here, or more entries than the grid's nx - 2 interior planes),
  ///         or 'grid...' / 'options...' as HimenoProblem; ErrorCode::no_device without a GPU
  ///         (whatever non-negative ordinals `devices` lists)
  HimenoMultiDevice(const HimenoGrid& grid, const std::vector<int>& devices, const HimenoOptions& options = {});
  /// The caller's fields (host memory, the whole grid; copied).
  HimenoMultiDevice(const HimenoGrid& grid, const HimenoFields<T>& fields, const std::vector<int>& devices,
                    const HimenoOptions& options = {});
  ~HimenoMultiDevice();
  HimenoMultiDevice(HimenoMultiDevice&&) noexcept;
  HimenoMultiDevice& operator=(HimenoMultiDevice&&) noexcept;
  HimenoMultiDevice(const HimenoMultiDevice&) = delete;
  HimenoMultiDevice& operator=(const HimenoMultiDevice&) = delete;

  /// Runs `sweeps` sweeps on every device; returns when they are done.
  /// @return gosa of the last sweep over the whole grid
  /// @throws Error ErrorCode::invalid_argument naming 'sweeps' (< 1)
  double iterate(std::int64_t sweeps);
  /// @return the whole grid's pressure, gathered from the devices to the host
  std::vector<T> pressure() const;
  const HimenoGrid& grid() const;

 private:
  HimenoMultiDevice(const HimenoGrid& grid, const HimenoFields<T>* fields, const std::vector<int>& devices,
                    const HimenoOptions& options);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cunum
