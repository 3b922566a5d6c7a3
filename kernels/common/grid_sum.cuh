#pragma once
// Internal: a deterministic reduction (a sum, or any operation of block_reduce) over
// a whole grid in the launch that computes it (the reduce module's single-pass
// design): each block publishes its partial with an acquire-release ticket, and the
// last block to arrive combines the partials in block order. No floating-point
// atomics: the result depends only on the grid's shape.

#include <cuda/atomic>

#include "cunum/device/detail/block_reduce.cuh"

namespace cunum::detail {

// The general form, for any `Operation` of block_reduce (identity, combine) on
// `Accumulator` values: every thread of every block calls it with its own value.
// `partials` holds one value per block; `*ticket` is 0 on entry and is left 0 for the
// next launch. Thread 0 of the last block calls `store(total)` with the grid's result.
// Release publishes a block's partial with its ticket; acquire makes the last block
// see every partial: one atomic instead of a fence on each side (docs/reduce.md gives
// the measured saving).
template <int BlockThreads, class Operation, class Accumulator, class Store>
__device__ __forceinline__ void grid_reduce(Accumulator value, Accumulator* __restrict__ partials,
                                            unsigned int* __restrict__ ticket, Store store) {
  const unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
  const unsigned int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  value = block_reduce<BlockThreads, Operation>(value);
  __shared__ bool is_last_block;
  if (threadIdx.x == 0) {
    partials[block] = value;
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> arrivals(*ticket);
    is_last_block = arrivals.fetch_add(1u, cuda::memory_order_acq_rel) == blocks - 1;
  }
  __syncthreads();  // orders the other threads' reads below after thread 0's acquire
  if (!is_last_block) return;
  Accumulator total = Operation::identity();
  for (unsigned int b = threadIdx.x; b < blocks; b += BlockThreads) {
    total = Operation::combine(total, __ldcg(partials + b));  // L2: other blocks wrote these
  }
  total = block_reduce<BlockThreads, Operation>(total);
  if (threadIdx.x == 0) {
    store(total);
    *ticket = 0;
  }
}

// The sum in double: `partials` holds one value per block; thread 0 of the last
// block writes the grid's sum to *result.
template <int BlockThreads>
__device__ __forceinline__ void grid_sum(double value, double* __restrict__ partials,
                                         unsigned int* __restrict__ ticket, double* __restrict__ result) {
  grid_reduce<BlockThreads, DoubleSum>(value, partials, ticket, [result](double total) { *result = total; });
}

}  // namespace cunum::detail
