#pragma once
// Internal: the production reduction kernel, and the launch of one policy, as
// templates on a tuning policy (reduce.cu launches the library's policy, the
// bench's tuning sweep others). One launch, single pass: each thread streams its
// share of the input with 16-byte loads, several in flight; blocks reduce by warp
// shuffles and write one partial each; the last block to finish (atomic ticket)
// reduces the partials in index order and writes the result (grid_reduce,
// kernels/common/grid_sum.cuh). No floating atomics, so the result depends only on
// n and the grid, which depends only on the device.
// Launched as a programmatic dependent (kernels/common/launch.cuh), so that a
// reduction issued right after other work starts launching during that work's tail.

#include <cstdint>
#include <cstring>

#include "cunum/device/detail/block_reduce.cuh"
#include "kernels/common/grid_sum.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/reduce/reduce_launch.hpp"
#include "src/reduce/reduce_ops.hpp"
#include "src/reduce/reduce_policy.hpp"

namespace cunum::detail {

// A 16-byte vector of T and a loader that accumulates its lanes in order.
template <class T>
struct alignas(16) ReduceVector {
  static constexpr int lanes = 16 / static_cast<int>(sizeof(T));
  T lane[lanes];
};

template <class T>
__device__ __forceinline__ ReduceVector<T> load_reduce_vector(const ReduceVector<T>* address) {
  ReduceVector<T> v;
  // Read once: the non-coherent path with evict-first keeps L2 for others.
  const int4 raw = __ldcs(reinterpret_cast<const int4*>(address));
  static_assert(sizeof(ReduceVector<T>) == sizeof(int4), "vector must be 16 bytes");
  memcpy(&v, &raw, sizeof(raw));
  return v;
}

template <class Operation, class T, class Accumulator>
__device__ __forceinline__ Accumulator accumulate(Accumulator acc, const ReduceVector<T>& v) {
#pragma unroll
  for (int l = 0; l < ReduceVector<T>::lanes; ++l) acc = Operation::combine(acc, Operation::transform(v.lane[l]));
  return acc;
}

template <class Policy, class T, class Operation>
__global__ void __launch_bounds__(Policy::block_threads, Policy::blocks_per_multiprocessor)
    reduce_single_pass(const T* __restrict__ data, std::int64_t n,
                       typename Operation::Accumulator* __restrict__ partials,
                       unsigned int* __restrict__ blocks_done,
                       typename Operation::Result* __restrict__ result) {
  using Accumulator = typename Operation::Accumulator;
  using Vec = ReduceVector<T>;
  constexpr int lanes = Vec::lanes;
  constexpr int unroll = Policy::loads_in_flight;

  wait_for_prerequisite_grids();  // before the first access: the previous launch may still be finishing
  allow_dependent_grids();

  const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * blockDim.x;

  // Split the input into an unaligned head, a 16-byte aligned body and a tail.
  // Data not aligned to its own element size is read by scalars throughout.
  const auto address = reinterpret_cast<std::uintptr_t>(data);
  std::int64_t head = n;
  if (address % sizeof(T) == 0) {
    const std::int64_t to_alignment =
        static_cast<std::int64_t>((Policy::vector_bytes - address % Policy::vector_bytes) %
                                  Policy::vector_bytes) / static_cast<std::int64_t>(sizeof(T));
    head = to_alignment < n ? to_alignment : n;
  }
  const std::int64_t body_vectors = (n - head) / lanes;
  const std::int64_t tail_begin = head + body_vectors * lanes;

  Accumulator acc = Operation::identity();
  for (std::int64_t i = thread; i < head; i += threads) {
    acc = Operation::combine(acc, Operation::transform(data[i]));
  }
  const Vec* body = reinterpret_cast<const Vec*>(data + head);
  std::int64_t v = thread;
  for (; v + (unroll - 1) * threads < body_vectors; v += unroll * threads) {
    Vec loaded[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) loaded[u] = load_reduce_vector(body + v + u * threads);
#pragma unroll
    for (int u = 0; u < unroll; ++u) acc = accumulate<Operation>(acc, loaded[u]);
  }
  for (; v < body_vectors; v += threads) acc = accumulate<Operation>(acc, load_reduce_vector(body + v));
  for (std::int64_t i = tail_begin + thread; i < n; i += threads) {
    acc = Operation::combine(acc, Operation::transform(data[i]));
  }

  grid_reduce<Policy::block_threads, Operation>(acc, partials, blocks_done, [result](Accumulator total) {
    *result = Operation::finish(total);
  });
}

// The launch of one policy. `scratch.partials` holds at least
// scratch.multiprocessor_count x Policy::blocks_per_multiprocessor 8-byte slots.
template <class Policy, class T, ReduceOp Op>
void launch_single_pass(const T* data, std::int64_t n, reduce_result_t<T>* result, const ReduceScratch& scratch,
                        StreamHandle stream) {
  using Operation = ReduceOperation<T, Op>;
  static_assert(sizeof(typename Operation::Accumulator) == 8, "partials hold 8-byte accumulators");
  const int blocks = reduce_grid_blocks(tuning_of<Policy>(), n, sizeof(T), scratch.multiprocessor_count);
  LaunchConfig config{dim3(blocks), dim3(Policy::block_threads), 0, stream};
  config.programmatic = true;
  launch_kernel(reduce_single_pass<Policy, T, Operation>, "reduce_single_pass", config, data, n,
                static_cast<typename Operation::Accumulator*>(scratch.partials), scratch.blocks_done, result);
}

}  // namespace cunum::detail
