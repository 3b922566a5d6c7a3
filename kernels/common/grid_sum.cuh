#pragma once
// Internal: a deterministic sum over a whole grid in the launch that computes it (the
// reduce module's single-pass design): each block publishes its partial with an
// acquire-release ticket, and the last block to arrive adds the partials in block
// order. No floating-point atomics: the result depends only on the grid's shape.

#include <cuda/atomic>

#include "cunum/device/detail/block_reduce.cuh"

namespace cunum::detail {

// Every thread of every block calls it with its own value. `partials` holds
// gridDim.x values; `*ticket` is 0 on entry and is left 0 for the next launch.
template <int BlockThreads>
__device__ __forceinline__ void grid_sum(double value, double* __restrict__ partials,
                                         unsigned int* __restrict__ ticket, double* __restrict__ result) {
  const unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
  const unsigned int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  value = block_reduce<BlockThreads, DoubleSum>(value);
  __shared__ bool is_last_block;
  if (threadIdx.x == 0) {
    partials[block] = value;
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> arrivals(*ticket);
    is_last_block = arrivals.fetch_add(1u, cuda::memory_order_acq_rel) == blocks - 1;
  }
  __syncthreads();
  if (!is_last_block) return;
  double total = 0.0;
  for (unsigned int b = threadIdx.x; b < blocks; b += BlockThreads) total += __ldcg(partials + b);
  total = block_reduce<BlockThreads, DoubleSum>(total);
  if (threadIdx.x == 0) {
    *result = total;
    *ticket = 0;
  }
}

}  // namespace cunum::detail
