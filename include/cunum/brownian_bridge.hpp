#pragma once
/// @file
/// Brownian bridge sample paths and scaled increments (after NAG g05xa..g05xe and
/// du Toit, "Brownian bridge on GPUs").
///
/// Times t0 < t_1 < ... < t_N < T. The caller names a construction order: a
/// permutation theta_1..theta_N of the interior times. X_T is built first, from Z_0:
///     X_T = x0 + C sqrt(T - t0) Z_0                       (free bridge)
///     X_T = w                                             (fixed end; Z_0 not consumed)
/// then theta_k from Z_k between its nearest already-built neighbours l < theta_k < r:
///     X_theta = (X_l (r - theta) + X_r (theta - l)) / (r - l)
///             + C Z_k sqrt((r - theta)(theta - l) / (r - l)),          X_t0 = x0.
/// C is a lower-triangular d x d factor with C C' = Sigma (given, or the Cholesky
/// factor of a given Sigma).
///
/// Memory layouts. A "record" is one d-vector; a path has R records:
///   Z:  R = N + 1 (free: record k is Z_k) or R = N (fixed end: record k-1 is Z_k).
///   paths output:      R = N + 1, record i-1 is X_{t_i}, i = 1..N+1 (t_{N+1} = T).
///   increments output: R = N + 1, record i-1 is (X_{t_i} - X_{t_{i-1}}) / (t_i - t_{i-1}).
/// Element j of record r of path p lives at
///   BridgeLayout::path_fastest:    (r * d + j) * paths + p   (coalesced on the GPU)
///   BridgeLayout::path_contiguous: (p * R + r) * d + j
/// All sizes and indices are 64-bit.
///
/// Aliasing. No routine works in place. generate_paths and generate_increments
/// write output records while later steps of the construction still read Z records,
/// which in place lie under them (in any layout, and also for increments: a step
/// writes the increments it completes before the steps that read the Z below them
/// have run), so `output` must not share a byte with `z`: any overlap, not only
/// `output == z`, is refused with Error(invalid_argument) naming `output`, before
/// anything runs, on both backends. generate_sobol_paths and
/// generate_sobol_increments read no caller array (their normals come from the
/// Sobol sequence), so there is nothing for `output` to alias. The host-vector
/// overloads return a new vector, distinct from `z`.
///
/// Streams and lifetime. The CUDA backend enqueues each generate call on the stream
/// of its options and returns; the arrays and the bridge must stay alive until that
/// work has completed (the bridge's device memory, from its placement's
/// device_memory, is released when it is destroyed). The CPU backend runs on OpenMP threads and returns when done. A
/// bridge's const member functions may be called from several host threads and on
/// several streams at once.
///
/// Determinism. The same bridge, inputs and options (pointer alignment included) on
/// the same device give bit-identical outputs, run to run; CPU results do not depend
/// on the number of OpenMP threads (blocks of paths are fixed in size and every path
/// is computed by the same operations). Different strategies and the two backends
/// agree to rounding (the tests hold them to 1e-12 relative in double, 1e-5 in float).

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "cunum/core/backend.hpp"
#include "cunum/core/enum.hpp"
#include "cunum/core/error.hpp"
#include "cunum/core/placement.hpp"
#include "cunum/core/stream.hpp"
#include "cunum/random.hpp"

namespace cunum {

namespace detail {
struct BridgeInternals;  // the library's own access to a bridge's compiled and device strategies
}  // namespace detail

// ---------------------------------------------------------------------------
/// Construction orders (g05xe):
/// - `bisection`: T, then the index midpoint floor((lo + hi) / 2) of every gap, level by level
/// - `ascending`: t_1, t_2, ..., t_N
/// - `important_first`: the caller's important times in their order, then bisection of the gaps
#define CUNUM_BRIDGE_ORDERS(X)  \
  X(bisection, "bisection")     \
  X(ascending, "ascending")     \
  X(important_first, "important_first")
CUNUM_ENUM(BridgeOrder, CUNUM_BRIDGE_ORDERS)

/// A construction order of a time grid (g05xe), for BrownianBridge's constructor.
/// @param times           the strictly increasing interior grid t_1..t_N, N >= 1, finite
/// @param order           how to order it (BridgeOrder)
/// @param important_times important_first only: distinct members of `times`, built first in this order
/// @return the interior times in construction order
/// @throws Error ErrorCode::invalid_argument naming `times` (empty, not finite, not
///         strictly increasing), `order` (not a BridgeOrder) or `important_times`
///         (a time not in `times`, a duplicate).
std::vector<double> make_bridge_order(const std::vector<double>& times, BridgeOrder order,
                                      const std::vector<double>& important_times = {});

// ---------------------------------------------------------------------------
/// How BrownianBridge reads its `covariance` argument:
/// - `factor`: row-major lower-triangular C (upper part zero), positive diagonal
/// - `covariance`: row-major symmetric positive definite Sigma, factored by Cholesky
#define CUNUM_COVARIANCE_FORMS(X) \
  X(factor, "factor")             \
  X(covariance, "covariance")
CUNUM_ENUM(CovarianceForm, CUNUM_COVARIANCE_FORMS)

/// Where element j of record r of path p lives (see the file comment):
/// - `path_fastest`: (r * d + j) * paths + p; coalesced on the GPU, the default
/// - `path_contiguous`: (p * R + r) * d + j; one path after another
#define CUNUM_BRIDGE_LAYOUTS(X)     \
  X(path_fastest, "path_fastest")   \
  X(path_contiguous, "path_contiguous")
CUNUM_ENUM(BridgeLayout, CUNUM_BRIDGE_LAYOUTS)

/// GPU strategies of du Toit's paper (limits in docs/brownian_bridge.md); the CPU
/// backend ignores the choice (it runs the same compiled strategy). `automatic`
/// picks one that serves the problem; an explicit one that cannot serve raises
/// Error(not_supported) naming the limit. Strategies 1-3 copy the strategy into a
/// constant-memory symbol that all bridges of a device share: cunum orders these
/// copies and kernels across streams and host threads itself (a call waits, on the
/// device, for the previous constant-memory kernel of the device), so bridges may
/// run them concurrently on different streams; their kernels then run one after
/// another. That ordering lives outside any CUDA graph, so strategies 1-3 raise
/// Error(not_supported) on a stream being captured; strategies 4-5 capture.
/// - `automatic`: 4 when it serves, else 3, else Error(not_supported)
/// - `constant_memory`: 1: strategy in constant memory, stack in local memory
/// - `vectorized`: 2: as 1, several paths per thread via vector loads
/// - `prefetch`: 3: as 1, P normals prefetched into registers
/// - `shared_memory`: 4: strategy staged through shared memory, C in registers
/// - `shared_memory_reuse`: 5: as 4, reusing {X_l, X_r, X_theta} for the next step
/// - `shared_memory_reuse_prefetch`: 5 with the prefetch of 4
#define CUNUM_BRIDGE_STRATEGIES(X)                              \
  X(automatic, "automatic")                                     \
  X(constant_memory, "constant_memory")                         \
  X(vectorized, "vectorized")                                   \
  X(prefetch, "prefetch")                                       \
  X(shared_memory, "shared_memory")                             \
  X(shared_memory_reuse, "shared_memory_reuse")                 \
  X(shared_memory_reuse_prefetch, "shared_memory_reuse_prefetch")
CUNUM_ENUM(BridgeStrategy, CUNUM_BRIDGE_STRATEGIES)

/// Options of generate_paths and generate_increments.
struct BridgeGenerateOptions {
  BridgeLayout z_layout = BridgeLayout::path_fastest;       ///< layout of `z`
  BridgeLayout output_layout = BridgeLayout::path_fastest;  ///< layout of `output`
  BridgeStrategy strategy = BridgeStrategy::automatic;      ///< GPU strategy (CPU: ignored)
  StreamHandle stream = nullptr;                            ///< CUDA: the stream the work is enqueued on
};

/// Options of generate_sobol_paths and generate_sobol_increments.
struct SobolBridgeOptions {
  SobolSequence sequence = SobolSequence::scrambled_sobol32;  ///< the sequence the normals come from
  std::uint64_t offset = 0;                                   ///< path p takes point offset + p
  BridgeLayout output_layout = BridgeLayout::path_fastest;    ///< layout of `output`
  StreamHandle stream = nullptr;                              ///< CUDA: the stream the work is enqueued on
};

/// One step of the construction as a bridge runs it (BrownianBridge::construction_steps()):
/// the point at time index i is built between its nearest already-built neighbours
/// at time indices l < i < r, for each dimension j,
///     X_{t_i} = left_weight X_{t_l} + right_weight X_{t_r} + std_dev (C Z)_j,
/// with Z the record `z_record` of the path. Time indices count t0 as 0, t_1..t_N
/// as 1..N and T as N + 1. The values live on a stack of stack_size() slots: x0 in
/// BrownianBridge::start_slot, X_T in end_slot before the first step.
struct BridgeConstructionStep {
  std::int64_t time_index = 0;        ///< i (1..N): the point built, output record i - 1
  std::int64_t left_time_index = 0;   ///< l: the nearest built neighbour before t_i (0 = t0)
  std::int64_t right_time_index = 0;  ///< r: the nearest built neighbour after t_i (N + 1 = T)
  std::int64_t z_record = 0;          ///< the Z record of a path this step consumes
  double left_weight = 0;             ///< (t_r - t_i) / (t_r - t_l)
  double right_weight = 0;            ///< (t_i - t_l) / (t_r - t_l)
  double std_dev = 0;                 ///< sqrt((t_r - t_i)(t_i - t_l) / (t_r - t_l))
  std::uint32_t left_slot = 0;        ///< the stack slot X_{t_l} is read from
  std::uint32_t right_slot = 0;       ///< the stack slot X_{t_r} is read from
  std::optional<std::uint32_t> store_slot;  ///< the slot X_{t_i} is stored in; none when no later step reads it
};

/// A Brownian bridge (g05xa): the time grid, construction order, covariance, start
/// and optional fixed end, compiled once into an execution strategy (an order
/// equivalent to the caller's, giving the same numbers, with a minimal stack) and,
/// for the CUDA backend, uploaded to the device; then any number of generate calls.
/// Movable, not copyable. A moved-from bridge may only be assigned to or destroyed:
/// its generate calls, construction_steps(), stack_size() and placement() throw
/// Error(invalid_argument), its other accessors return unspecified values.
class BrownianBridge {
 public:
  /// Stack slots holding x0 and X_T before the first interior step.
  static constexpr std::uint32_t start_slot = 0;
  static constexpr std::uint32_t end_slot = 1;

  /// g05xa: validates the problem, compiles the construction order and, for the
  /// CUDA backend, uploads the strategy to the placement's device (the current one
  /// unless placement.devices names it), which the bridge then belongs to.
  /// @param t0                 start time, finite
  /// @param T                  end time, finite, > t0, with T - t0 finite
  /// @param construction_order the interior times t_1..t_N in construction order
  ///                           (make_bridge_order, or any permutation): N >= 1,
  ///                           N <= 2^31 - 2, finite, distinct, inside (t0, T), and
  ///                           no two consecutive times of t0, t_1..t_N, T closer
  ///                           than 2^-1024 (increments divide by every gap)
  /// @param dimension          d >= 1
  /// @param covariance         d x d values, row-major, read as `form` says
  /// @param form               CovarianceForm::factor (C) or CovarianceForm::covariance (Sigma)
  /// @param start              x0: d finite values
  /// @param fixed_end          w: d finite values for a bridge pinned at T; empty for a free bridge
  /// @param placement          where generate calls run (cunum/core/placement.hpp):
  ///                           the backend, one device at most, and the resource
  ///                           every device allocation of the bridge comes from (the
  ///                           strategy, the Sobol tables, the host conveniences'
  ///                           copies). placement.stream is not used (below).
  /// @throws Error ErrorCode::invalid_argument naming the argument that breaks the
  ///         rules above (a factor that is not lower triangular with a positive
  ///         diagonal; a Sigma that is not symmetric to 1e-12 relative or not
  ///         positive definite; a `form` that is not a listed value), or naming
  ///         'placement.backend' or 'placement.devices';
  ///         ErrorCode::no_device for CUDA without a device;
  ///         ErrorCode::out_of_memory or ErrorCode::cuda_failure from the upload.
  /// CUDA: the upload is enqueued on a stream of cunum's own, not on
  /// placement.stream, and the constructor waits for those copies only, never for
  /// the caller's streams or the legacy default stream: it returns with the
  /// strategy on the device, so that calls on any stream and host thread may use
  /// it at once without ordering themselves after a setup. The strategy is freed on
  /// that stream when the bridge is destroyed.
  BrownianBridge(double t0, double T, std::vector<double> construction_order, int dimension,
                 const std::vector<double>& covariance, CovarianceForm form,
                 std::vector<double> start, std::optional<std::vector<double>> fixed_end = {},
                 const Placement& placement = {});
  /// Releases the device strategy: the bridge's work on every stream must have completed.
  ~BrownianBridge();
  BrownianBridge(BrownianBridge&&) noexcept;
  BrownianBridge& operator=(BrownianBridge&&) noexcept;
  BrownianBridge(const BrownianBridge&) = delete;
  BrownianBridge& operator=(const BrownianBridge&) = delete;

  /// The resolved backend: Backend::cpu or Backend::cuda.
  Backend backend() const noexcept { return backend_; }
  /// The resolved placement (see Placement); placement.stream is not used.
  /// @throws Error ErrorCode::invalid_argument for a moved-from bridge.
  const Placement& placement() const;
  /// d.
  int dimension() const noexcept { return dimension_; }
  /// N.
  std::int64_t interior_points() const noexcept { return static_cast<std::int64_t>(times_.size()) - 2; }
  /// Whether X_T is pinned to w.
  bool fixed_end() const noexcept { return fixed_end_.has_value(); }
  /// Records of Z per path: N + 1 for a free bridge, N for a fixed end.
  std::int64_t z_records() const noexcept { return interior_points() + (fixed_end() ? 0 : 1); }
  /// Records of output per path: N + 1.
  std::int64_t output_records() const noexcept { return interior_points() + 1; }
  /// t0, t_1..t_N, T.
  const std::vector<double>& times() const noexcept { return times_; }
  /// C, d x d row-major lower triangular (the Cholesky factor when Sigma was given).
  const std::vector<double>& factor() const noexcept { return factor_; }
  /// x0.
  const std::vector<double>& start() const noexcept { return start_; }
  /// w for a fixed-end bridge, else empty.
  const std::optional<std::vector<double>>& end_value() const noexcept { return fixed_end_; }
  /// Slots of the compiled strategy's stack (x0 and X_T included): the least any
  /// order equivalent to the caller's needs.
  /// @throws Error ErrorCode::invalid_argument for a moved-from bridge.
  std::uint32_t stack_size() const;
  /// The compiled strategy, step by step in the order the backends run it: every
  /// interior point once, each with the neighbours and Z record the caller's order
  /// gives it (so the numbers are the caller's order's).
  /// @throws Error ErrorCode::invalid_argument for a moved-from bridge.
  std::vector<BridgeConstructionStep> construction_steps() const;

  /// g05xb: sample paths from standard normals: X_{t_1}..X_{t_N}, X_T per path.
  /// @tparam T      float or double (the arithmetic is done in T)
  /// @param paths   number of paths, >= 0 (0 writes nothing, null pointers allowed)
  /// @param z       paths x z_records() records of d normals, in options.z_layout
  /// @param output  paths x output_records() records, in options.output_layout;
  ///                must not overlap `z` (no routine works in place: "Aliasing" above)
  /// @param options layouts, GPU strategy, stream
  /// @throws Error ErrorCode::invalid_argument, before anything is written: a
  ///         moved-from bridge; paths < 0 or arrays whose byte count overflows 64
  ///         bits; `z` or `output` null while addressing elements, or memory the
  ///         backend cannot access (CUDA: device, managed or mapped page-locked
  ///         memory, pageable host memory only on devices that access it; CPU: host
  ///         or managed memory); `output` overlapping `z` in any byte (naming
  ///         `output`); an option that is not a listed value; a CUDA bridge
  ///         called while another device is current. ErrorCode::not_supported: the
  ///         strategy asked for cannot serve this bridge (the message names the
  ///         limit), or none can (automatic), or a grid beyond 2^31 - 1 blocks.
  ///         ErrorCode::cuda_failure: a CUDA call failed.
  /// CUDA: device-accessible pointers; asynchronous, enqueued on options.stream.
  /// CPU: host pointers; synchronous; options.stream is ignored.
  /// CUDA graphs (docs/brownian_bridge.md): strategies 4-5 capture, and each replay
  /// writes what a direct call would; strategies 1-3 (and automatic where it falls
  /// back to 3) refuse a capturing stream with ErrorCode::not_supported, before
  /// anything is enqueued. The bridge must outlive the graph's launches.
  template <class T>
  void generate_paths(std::int64_t paths, const T* z, T* output,
                      const BridgeGenerateOptions& options = {}) const;
  /// g05xd: scaled increments (X_{t_i} - X_{t_{i-1}}) / (t_i - t_{i-1}), i = 1..N+1,
  /// per path. Arguments, errors, stream semantics and CUDA graphs as generate_paths:
  /// not in place either, `output` overlapping `z` is refused naming `output`.
  template <class T>
  void generate_increments(std::int64_t paths, const T* z, T* output,
                           const BridgeGenerateOptions& options = {}) const;

  /// Fused quasi-random bridge: path p is driven by point offset + p of a Sobol
  /// sequence of z_records() * dimension() dimensions, dimension r * d + j feeding
  /// element j of Z record r, so the lowest dimensions build X_T and the first points
  /// of the construction order. The numbers are those of the two-step route (a
  /// cuRAND generator of the same sequence, dimensions and offset writing Z, which is
  /// then path-fastest, followed by generate_paths), to rounding. CUDA: one kernel
  /// draws the normals in registers and Z never touches memory; the first call with
  /// each sequence uploads its tables and waits for that upload (not for the
  /// caller's stream; the tables come from the placement's device_memory). CPU:
  /// cuRAND's host generator a block of paths at a time, then the OpenMP bridge.
  /// @param paths   number of paths, >= 0
  /// @param output  paths x output_records() records, in options.output_layout (the
  ///                only array the call touches: no input to alias)
  /// @param options sequence, offset, output layout, stream
  /// @throws Error ErrorCode::invalid_argument, before anything is written: as
  ///         generate_paths for the bridge, `paths` and `output`; a sequence or layout
  ///         that is not a listed value; offset + paths beyond the sequence (2^32
  ///         points for the 32-bit sequences, 2^64 for the 64-bit ones).
  ///         ErrorCode::not_supported: more than 20,000 dimensions; on the GPU, Sobol
  ///         tables and stack beyond shared memory or d > 8 (docs/brownian_bridge.md);
  ///         on the CPU, offset >= 2^32 (cuRAND's host generator keeps only the low 32
  ///         bits of an offset). ErrorCode::cuda_failure: a CUDA or cuRAND call failed.
  /// Stream semantics as generate_paths.
  /// CUDA graphs: captures once the tables of options.sequence are on the device, and
  /// each replay writes what a direct call would; the first call with a sequence
  /// uploads its tables and waits for them, so on a capturing stream it is refused
  /// with ErrorCode::not_supported (make one call with that sequence before capturing).
  template <class T>
  void generate_sobol_paths(std::int64_t paths, T* output, const SobolBridgeOptions& options = {}) const;
  /// The fused quasi-random bridge's scaled increments; as generate_sobol_paths (CUDA
  /// graphs included).
  template <class T>
  void generate_sobol_increments(std::int64_t paths, T* output,
                                 const SobolBridgeOptions& options = {}) const;

  /// Host convenience: `z` and the result in host memory. The CUDA backend copies z
  /// to the device on options.stream, into memory from the placement's
  /// device_memory, generates there and copies the result back: synchronous, it
  /// returns when the result is on the host. The result is a new
  /// vector, so it never aliases `z`.
  /// @throws Error as generate_paths; ErrorCode::invalid_argument naming `z` when it
  ///         does not hold paths * z_records() * dimension() values;
  ///         ErrorCode::out_of_memory when the device arrays cannot be had;
  ///         ErrorCode::not_supported (CUDA) when options.stream is being captured into
  ///         a CUDA graph, before anything is enqueued: it waits for the result.
  template <class T>
  std::vector<T> generate_paths(std::int64_t paths, const std::vector<T>& z,
                                const BridgeGenerateOptions& options = {}) const;
  /// Host convenience for generate_increments; as the host generate_paths.
  template <class T>
  std::vector<T> generate_increments(std::int64_t paths, const std::vector<T>& z,
                                     const BridgeGenerateOptions& options = {}) const;

 private:
  friend struct detail::BridgeInternals;
  struct Impl;  // the compiled strategy and the CUDA backend's device state (brownian_bridge.cpp)
  Backend backend_;
  int dimension_;
  std::vector<double> times_;
  std::vector<double> factor_;
  std::vector<double> start_;
  std::optional<std::vector<double>> fixed_end_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cunum
