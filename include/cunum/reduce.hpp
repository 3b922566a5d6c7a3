#pragma once
/// @file
/// Parallel reduction: sum, sum of squares, min and max of float, double, int32 and
/// int64 (cunum::Reducer, cunum::reduce). Accuracy, determinism and NaN handling
/// below; docs/reduce.md has the design and the measurements.
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
#include "cunum/core/placement.hpp"
#include "cunum/core/enum.hpp"
#include "cunum/core/error.hpp"
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
/// - Streams: the workspace is set up (allocated from the placement's device_memory
///   and zeroed) on the placement's stream without waiting, and freed on that stream
///   by the destructor. Calls may come on any stream: the first ones wait, on the
///   device, for the setup. The workspace is shared by all calls, so calls on
///   different streams must not overlap (one Reducer per stream for concurrent work).
/// - Lifetime: the Reducer must outlive the work it enqueued: destroy it only once
///   that work has completed, or once the placement's stream, where the destructor
///   frees the workspace, is ordered after it.
/// - Threads: not thread-safe; one caller at a time.
/// - Determinism: bit-identical results run to run for a given device (or, on the
///   CPU backend, a given OpenMP thread count); see the top of this header.
///
/// CUDA launches are programmatic dependents (sm_90+): a reduction issued right
/// after other kernels, or replayed in a CUDA graph, starts launching during the
/// previous kernel's tail and waits for it before reading.
///
/// CUDA graphs (docs/reduce.md): reduce() may be captured into a CUDA graph; the
/// constructor and the cunum::reduce convenience refuse a stream being captured.
template <class T>
class Reducer {
 public:
  /// Makes the plan; with the CUDA backend, enqueues its setup on placement.stream
  /// and returns without waiting.
  /// @param placement where it runs (cunum/core/placement.hpp): the backend, one
  ///                  device at most, the stream the workspace is set up and freed
  ///                  on, and the resource it comes from
  /// @throws Error ErrorCode::invalid_argument naming 'placement.backend' or
  ///         'placement.devices'; ErrorCode::no_device for CUDA without a device
  ///         ("no CUDA device"); ErrorCode::not_supported (CUDA) when placement.stream
  ///         is being captured into a CUDA graph, before anything is allocated: the
  ///         workspace would belong to the graph; ErrorCode::out_of_memory;
  ///         ErrorCode::cuda_failure.
  explicit Reducer(const Placement& placement = {});
  /// Frees the workspace on the constructor's stream; does not wait.
  ~Reducer();
  /// Takes another Reducer's plan; reduce() and backend() on the moved-from Reducer
  /// throw ErrorCode::invalid_argument ("moved-from").
  Reducer(Reducer&&) noexcept;
  /// Frees the plan held (as the destructor does), then takes another Reducer's.
  /// @return *this
  Reducer& operator=(Reducer&&) noexcept;

  /// @return the resolved backend: Backend::cpu or Backend::cuda
  /// @throws Error ErrorCode::invalid_argument for a moved-from Reducer
  Backend backend() const;
  /// @return the resolved placement (see Placement)
  /// @throws Error ErrorCode::invalid_argument for a moved-from Reducer
  const Placement& placement() const;

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
  ///               reaches the reduction); untouched when the call throws; must not
  ///               overlap `data`
  /// @param stream CUDA: the stream to enqueue on
  /// @throws Error ErrorCode::invalid_argument, naming the argument ('op', 'n',
  ///         'data', 'result'), for a value out of its domain, memory the backend
  ///         cannot reach or a `result` inside `data`, and naming 'this' for a
  ///         moved-from Reducer or a call with another device current;
  ///         ErrorCode::cuda_failure when the launch fails.
  ///
  /// CUDA graphs: captures. Each replay reduces data[0, n) as it is then and writes
  /// *result; the Reducer must outlive the graph's launches.
  void reduce(ReduceOp op, const T* data, std::int64_t n, reduce_result_t<T>* result,
              StreamHandle stream = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Synchronous convenience: makes a Reducer with `placement`, reduces on its stream,
/// and returns the result when it is ready (CUDA: waits for placement.stream). CUDA
/// graphs: refuses a placement.stream being captured (ErrorCode::not_supported).
/// @param op        the reduction
/// @param data      n elements in memory the resolved backend can reach, as for Reducer::reduce
/// @param n         element count, >= 0 (>= 1 for min and max)
/// @param placement where it runs; CUDA: placement.stream is the stream the work runs on
/// @return the reduction of data[0, n)
/// @throws Error as Reducer's constructor and Reducer::reduce (ErrorCode::not_supported
///         on a capturing placement.stream before anything runs)
template <class T>
reduce_result_t<T> reduce(ReduceOp op, const T* data, std::int64_t n, const Placement& placement = {});

/// Synchronous convenience on host data: the CUDA backend copies it to the device
/// first (on placement.stream, into memory from placement.device_memory) and waits
/// for the result.
/// @param op        the reduction
/// @param data      the elements (at least one for min and max)
/// @param placement where it runs
/// @return the reduction of `data`
/// @throws Error as Reducer's constructor and Reducer::reduce
template <class T>
reduce_result_t<T> reduce(ReduceOp op, const std::vector<T>& data, const Placement& placement = {});

}  // namespace cunum
