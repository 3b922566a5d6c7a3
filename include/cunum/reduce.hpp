#pragma once
/// @file
/// Parallel reduction: sum, sum of squares, min and max of float, double, int32 and
/// int64 (cunum::Reducer, cunum::reduce), and the classic tutorial kernels
/// (cunum::ClassicReducer). Accuracy, determinism and NaN handling below;
/// docs/reduce.md has the design and the measurements.
//
// Accuracy (floating sums and sums of squares): float inputs are accumulated in
// double and rounded to float once; double inputs in double. With u = 2^-53 and D
// the longest chain of additions any element passes through,
//     |computed - exact| <= D * u * sum |x_i|   (+ one rounding to float for float),
// CUDA: each of the P launched threads adds ceil(n / P) elements in order, then
//   shuffle trees: D <= ceil(n / P) + 48. P, the threads launched, is the grid of
//   the device architecture's tuning policy (src/reduce/reduce_policy.hpp; its
//   numbers and their measurements are in docs/reduce.md) and depends only on n,
//   the element size and the device.
// CPU: blocks of 256 split over 16 interleaved lanes, each lane adding its 16
//   elements in order, lanes and then blocks merged pairwise, then threads in order:
//   D <= 16 + 4 + ceil(log2(n / 256 + 1)) + threads.
// Determinism: partial results are combined in a fixed order (no floating atomics),
// so a given device (or CPU thread count) returns bit-identical results run to run.
// min/max follow fmin/fmax: NaN elements are ignored unless every element is NaN.
// int32 reductions return int64; int64 sums wrap modulo 2^64.

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "cunum/core/backend.hpp"
#include "cunum/core/enum.hpp"
#include "cunum/core/stream.hpp"

namespace cunum {

/// What a reduction computes (cunum::ReduceOp):
/// - `sum`: sum of the elements (n == 0 gives 0).
/// - `sum_of_squares`: sum of the elements' squares (n == 0 gives 0).
/// - `min`, `max`: smallest, largest element, as fmin/fmax (NaN elements are ignored
///   unless every element is NaN); n must be >= 1.
///
/// to_string() gives the enumerator's name; is_valid() is false for any other value.
#define CUNUM_REDUCE_OPS(X)        \
  X(sum, "sum")                    \
  X(sum_of_squares, "sum_of_squares") \
  X(min, "min")                    \
  X(max, "max")
CUNUM_ENUM(ReduceOp, CUNUM_REDUCE_OPS)

/// Result type of reducing T: T itself, except that int32 widens to int64 so that
/// sums cannot overflow at any size that fits in memory.
template <class T>
using reduce_result_t = std::conditional_t<std::is_same_v<T, std::int32_t>, std::int64_t, T>;

/// A reduction plan for T (one of CUNUM_REDUCE_TYPES). For the CUDA backend it
/// holds the device workspace (block partials and a ticket counter) and what the
/// launch needs of the device, so that repeated reductions cost one kernel launch
/// each and query nothing; for the CPU backend it holds nothing.
///
/// - Device: a CUDA plan is bound to the device current at construction; a call made
///   while another device is current throws ErrorCode::invalid_argument.
/// - Streams: the workspace is set up (allocated from current_device_resource() and
///   zeroed) on the constructor's stream without waiting, and freed on that stream by
///   the destructor. Calls may come on any stream: the first ones wait, on the
///   device, for the setup. The workspace is shared by all calls, so calls on
///   different streams must not overlap (one Reducer per stream for concurrent work).
/// - Lifetime: the Reducer must outlive the work it enqueued: destroy it only once
///   that work has completed, or once the constructor's stream, where the destructor
///   frees the workspace, is ordered after it.
/// - Threads: not thread-safe; one caller at a time.
/// - Determinism: bit-identical results run to run for a given device (or, on the
///   CPU backend, a given OpenMP thread count); see the top of this header.
///
/// CUDA launches are programmatic dependents (sm_90+): a reduction issued right
/// after other kernels, or replayed in a CUDA graph, starts launching during the
/// previous kernel's tail and waits for it before reading. Calls may be captured
/// into a CUDA graph.
template <class T>
class Reducer {
 public:
  /// Makes the plan; with the CUDA backend, enqueues its setup on `stream` and
  /// returns without waiting.
  /// @param backend `automatic` (CUDA when a device is present), `cpu` or `cuda`
  /// @param stream  CUDA: the stream the workspace is set up and freed on; ignored
  ///                by the CPU backend
  /// @throws Error ErrorCode::invalid_argument for a backend off the list;
  ///         ErrorCode::no_device for `cuda` without a device ("no CUDA device");
  ///         ErrorCode::out_of_memory; ErrorCode::cuda_failure.
  explicit Reducer(Backend backend = Backend::automatic, StreamHandle stream = nullptr);
  /// Frees the workspace on the constructor's stream; does not wait.
  ~Reducer();
  /// Takes another Reducer's plan; reduce() on the moved-from CUDA Reducer throws
  /// ErrorCode::invalid_argument ("moved-from").
  Reducer(Reducer&&) noexcept;
  /// Frees the plan held (as the destructor does), then takes another Reducer's.
  /// @return *this
  Reducer& operator=(Reducer&&) noexcept;

  /// @return the resolved backend: Backend::cpu or Backend::cuda
  Backend backend() const noexcept { return backend_; }

  /// Reduces data[0, n) into *result.
  /// - CUDA backend: enqueued on `stream`, returns at once; `data` and `result` in
  ///   memory the device can reach (device, managed, or mapped page-locked memory;
  ///   pageable host memory only where DeviceProperties::pageable_memory_access).
  /// - CPU backend: returns when done, `stream` ignored; `data` and `result` in host
  ///   or managed memory, never device memory.
  /// @param op     the reduction
  /// @param data   n elements; may be null when n == 0
  /// @param n      element count, >= 0 (>= 1 for min and max)
  /// @param result one value of reduce_result_t<T>, written (CUDA: when the stream
  ///               reaches the reduction); untouched when the call throws
  /// @param stream CUDA: the stream to enqueue on
  /// @throws Error ErrorCode::invalid_argument, naming the argument ('op', 'n',
  ///         'data', 'result'), for a value out of its domain or memory the backend
  ///         cannot reach, and naming 'this' for a moved-from Reducer or a call with
  ///         another device current; ErrorCode::cuda_failure when the launch fails.
  void reduce(ReduceOp op, const T* data, std::int64_t n, reduce_result_t<T>* result,
              StreamHandle stream = nullptr);

 private:
  struct DeviceWorkspace;
  Backend backend_;
  std::unique_ptr<DeviceWorkspace> workspace_;
};

/// Synchronous convenience: makes a Reducer (on `stream`), reduces, and returns the
/// result when it is ready (CUDA: waits for `stream`).
/// @param op      the reduction
/// @param data    n elements in memory the resolved backend can reach, as for Reducer::reduce
/// @param n       element count, >= 0 (>= 1 for min and max)
/// @param backend `automatic`, `cpu` or `cuda`
/// @param stream  CUDA: the stream the work runs on
/// @return the reduction of data[0, n)
/// @throws Error as Reducer's constructor and Reducer::reduce
template <class T>
reduce_result_t<T> reduce(ReduceOp op, const T* data, std::int64_t n,
                          Backend backend = Backend::automatic, StreamHandle stream = nullptr);

/// Synchronous convenience on host data: the CUDA backend copies it to the device
/// first (on the default stream) and waits for the result.
/// @param op      the reduction
/// @param data    the elements (at least one for min and max)
/// @param backend `automatic`, `cpu` or `cuda`
/// @return the reduction of `data`
/// @throws Error as Reducer's constructor and Reducer::reduce
template <class T>
reduce_result_t<T> reduce(ReduceOp op, const std::vector<T>& data,
                          Backend backend = Backend::automatic);

/// The seven kernels of the classic CUDA reduction tutorial (Harris, 2007), kept as
/// selectable teaching variants and benchmarked beside the production Reducer
/// (cunum::ClassicReduceKernel). Listed in the tutorial's order, from 0; to_string()
/// gives the tutorial's number and name ("1 interleaved, divergent"), and is_valid()
/// is false for any other value. Sum only, CUDA only, n <= 2^31 (they index with
/// 32 bits). The unrolled warp steps use __syncwarp(), since the tutorial's implicit
/// warp synchrony is unsafe since Volta.
/// - `interleaved_divergent`: 1, interleaved addressing with a divergent branch.
/// - `interleaved_strided`: 2, interleaved addressing, strided index (bank conflicts).
/// - `sequential_addressing`: 3, sequential addressing.
/// - `first_add_during_load`: 4, the first add during the load from global memory.
/// - `unroll_last_warp`: 5, the last warp unrolled.
/// - `complete_unroll`: 6, the block size a template parameter, every step unrolled.
/// - `multiple_elements_per_thread`: 7, a capped grid, each thread summing many elements.
#define CUNUM_CLASSIC_REDUCE_KERNELS(X)                                                  \
  X(interleaved_divergent, "1 interleaved, divergent")                                   \
  X(interleaved_strided, "2 interleaved, bank conflicts")                                \
  X(sequential_addressing, "3 sequential addressing")                                    \
  X(first_add_during_load, "4 first add during load")                                    \
  X(unroll_last_warp, "5 unroll last warp")                                              \
  X(complete_unroll, "6 completely unrolled")                                            \
  X(multiple_elements_per_thread, "7 multiple elements per thread")
CUNUM_ENUM(ClassicReduceKernel, CUNUM_CLASSIC_REDUCE_KERNELS)

/// A plan for the classic kernels: ping-pong buffers of partial sums, grown on
/// demand. Sums are accumulated in T itself (no widening: int32 sums can overflow,
/// float sums lose accuracy that Reducer keeps). Bound to the device current at
/// construction, like Reducer; its buffers are allocated from
/// current_device_resource() on the stream of the call that grows them, and freed
/// on that stream. Calls on different streams must not overlap; the plan must
/// outlive the work it enqueued; not thread-safe: one caller at a time.
template <class T>
class ClassicReducer {
 public:
  /// Binds the plan to the current device; allocates nothing yet.
  /// @throws Error ErrorCode::no_device without a device ("no CUDA device").
  ClassicReducer();
  /// Frees the buffers on the streams they were allocated on; does not wait.
  ~ClassicReducer();
  /// Takes another plan; sum() on the moved-from plan throws
  /// ErrorCode::invalid_argument ("moved-from").
  ClassicReducer(ClassicReducer&&) noexcept;
  /// Frees the plan held (as the destructor does), then takes another.
  /// @return *this
  ClassicReducer& operator=(ClassicReducer&&) noexcept;

  /// Sums data[0, n) into *result with one of the classic kernels, a pass per
  /// reduction by the block size until one value is left; enqueued on `stream`,
  /// returns at once (a call that grows the buffers allocates on `stream` first).
  /// @param kernel which of the seven
  /// @param data   n elements in memory the device can reach (as for Reducer::reduce);
  ///               may be null when n == 0
  /// @param n      0 <= n <= max_elements; n == 0 writes 0
  /// @param result one T in memory the device can reach
  /// @param stream the stream to enqueue on
  /// @throws Error ErrorCode::invalid_argument naming 'kernel', 'n', 'data', 'result',
  ///         or 'this' (moved-from, or another device current); ErrorCode::out_of_memory;
  ///         ErrorCode::cuda_failure.
  void sum(ClassicReduceKernel kernel, const T* data, std::int64_t n, T* result,
           StreamHandle stream = nullptr);

  /// The largest n the kernels' 32-bit indexing serves: 2^31.
  static constexpr std::int64_t max_elements = std::int64_t{1} << 31;

 private:
  struct Scratch;
  std::unique_ptr<Scratch> scratch_;
};

}  // namespace cunum
