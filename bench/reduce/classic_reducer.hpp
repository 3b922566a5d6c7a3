#pragma once
// The seven kernels of the classic CUDA reduction tutorial (M. Harris, "Optimizing
// Parallel Reduction in CUDA", NVIDIA, 2007), kept as teaching code beside the
// production cunum::Reducer: the bench times them (the published table), and
// cunum-test-reduce-classic checks them. Not part of the library or its API.

#include <cstdint>
#include <memory>

#include "cunum/core/enum.hpp"
#include "cunum/core/stream.hpp"

namespace cunum::bench {

/// The tutorial's seven kernels, in its order, from 0; to_string() gives the
/// tutorial's number and name ("1 interleaved, divergent"), and is_valid() is false
/// for any other value. Sum only, CUDA only, n <= 2^31 (they index with 32 bits).
/// The unrolled warp steps use __syncwarp(), since the tutorial's implicit warp
/// synchrony is unsafe since Volta.
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

/// A plan for the classic kernels, for T of CUNUM_REDUCE_TYPES: ping-pong buffers of
/// partial sums, grown on demand. Sums are accumulated in T itself (no widening: int32
/// sums can overflow, float sums lose accuracy that cunum::Reducer keeps). Bound to
/// the device current at construction; its buffers are allocated from
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
  void sum(ClassicReduceKernel kernel, const T* data, std::int64_t n, T* result, StreamHandle stream = nullptr);

  /// The largest n the kernels' 32-bit indexing serves: 2^31.
  static constexpr std::int64_t max_elements = std::int64_t{1} << 31;

 private:
  struct Scratch;
  std::unique_ptr<Scratch> scratch_;
};

// One block size for all seven; kernel 7 caps its grid at a few blocks per SM and loops.
struct ClassicReducePolicy {
  static constexpr unsigned int block_threads = 256;
  static constexpr int kernel7_blocks_per_multiprocessor = 8;
};

// Blocks of one pass over n values.
inline unsigned int classic_pass_blocks(ClassicReduceKernel kernel, unsigned int n, int multiprocessor_count) {
  constexpr unsigned int block = ClassicReducePolicy::block_threads;
  const bool first_add = kernel != ClassicReduceKernel::interleaved_divergent &&
                         kernel != ClassicReduceKernel::interleaved_strided &&
                         kernel != ClassicReduceKernel::sequential_addressing;
  const unsigned int per_block = first_add ? 2 * block : block;
  const unsigned int blocks = (n + per_block - 1) / per_block;
  if (kernel != ClassicReduceKernel::multiple_elements_per_thread) return blocks;
  const auto cap = static_cast<unsigned int>(multiprocessor_count * ClassicReducePolicy::kernel7_blocks_per_multiprocessor);
  return blocks < cap ? blocks : cap;
}

// One pass (classic_kernels.cu): device pointers; returns the number of partial
// sums written to `out`.
template <class T>
unsigned int launch_classic_pass(ClassicReduceKernel kernel, const T* in, T* out, unsigned int n,
                                 int multiprocessor_count, StreamHandle stream);

}  // namespace cunum::bench
