#pragma once
// Internal: the kernels of cunum::RandomGenerator's CUDA fills, each templated on its
// policy (src/random/random_policy.hpp): one thread per Philox block or MRG32k3a
// lane, and per strided run of a Sobol dimension's groups of points, calling the same per-unit
// functions as the CPU backend (src/random/random_fill.hpp).

#include <cuda_runtime.h>

#include <cstdint>

#include "src/random/random_fill.hpp"

namespace cunum::detail {

// Consecutive threads take consecutive Philox blocks: a warp's whole blocks are 512
// contiguous bytes, one 16-byte store a thread when `out` is aligned. The fill is made
// on the host (its round keys and shape are this kernel's parameter); the whole blocks
// run in a loop of their own, the edge blocks (one at each end at most, or all where
// units straddle blocks) in two loops that most threads skip.
template <class Policy, class T, bool Normal>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks(sizeof(T) == sizeof(float) && !Normal))
    random_fill_kernel(const PhiloxFill<T, Normal> fill) {
  const std::uint64_t thread = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  // The grid is the GPU's resident blocks at most (the launcher's), far below 2^32 threads.
  const std::uint32_t stride = gridDim.x * blockDim.x;
  for (std::uint64_t block = fill.whole_begin() + thread; block < fill.whole_end(); block += stride) {
    fill.fill_whole_block(block);
  }
  for (std::uint64_t block = thread; block < fill.whole_begin(); block += stride) fill.fill_units(block);
  for (std::uint64_t block = fill.whole_end() + thread; block < fill.blocks(); block += stride) fill.fill_units(block);
}

// One thread per lane: consecutive threads write consecutive units (coalesced).
template <class Policy, bool Normal, class T>
__global__ void __launch_bounds__(Policy::block_threads) mrg_fill_kernel(MrgFillArgs<T> args) {
  const std::int64_t thread = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (thread < args.lanes()) fill_mrg_lane<Normal>(args, thread, mrg_lane_start(args, thread));
}

// Blocks (x) of one dimension (y), the dimension's table in shared memory, each
// thread its share of the dimension's whole groups of points (fill_sobol_lane: a
// warp's groups consecutive), the first thread also the fill's edge groups.
template <class Policy, bool Normal, class T, class Word>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks(Normal && sizeof(T) == sizeof(double)))
    sobol_fill_kernel(SobolFillArgs<T, Word> args, std::int64_t groups_per_lane) {
  constexpr int table_words = sizeof(Word) * 8 + 1;
  __shared__ Word directions[table_words];
  const std::int64_t dimension = blockIdx.y;
  for (int k = threadIdx.x; k < table_words; k += blockDim.x) directions[k] = args.tables[dimension * table_words + k];
  __syncthreads();
  const std::int64_t thread = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  fill_sobol_lane<Normal>(args, directions, dimension, thread, groups_per_lane);
  if (thread == 0) fill_sobol_edges<Normal>(args, directions, dimension);
}

}  // namespace cunum::detail
