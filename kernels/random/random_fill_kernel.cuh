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

// Blocks (x) of one dimension (y), the dimension's table in shared memory. Each warp
// takes the next 32 x groups_per_lane of the dimension's whole groups of points
// (src/random/random_fill.hpp), lane l the groups l, l + 32, ... of them, so that a
// warp stores 32 consecutive groups (512 bytes) at a time; the first thread also writes
// the fill's edge groups. A lane's groups are 32 apart, not the grid's width: dimension
// 0's leading bits are its index's trailing bits reversed, so a lane whose points were
// 2^k apart for a large k would meet the inverse CDF's tail at every point or at none,
// and its warp would run far longer than the others.
template <class Policy, bool Normal, class T, class Word>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks(Normal && sizeof(T) == sizeof(double)))
    sobol_fill_kernel(SobolFillArgs<T, Word> args, std::int64_t groups_per_lane) {
  constexpr int table_words = sizeof(Word) * 8 + 1;
  constexpr int warp_lanes_log2 = 5;
  constexpr int warp_lanes = 1 << warp_lanes_log2;
  __shared__ Word directions[table_words];
  const std::int64_t dimension = blockIdx.y;
  for (int k = threadIdx.x; k < table_words; k += blockDim.x) directions[k] = args.tables[dimension * table_words + k];
  __syncthreads();
  const std::int64_t warp = (std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x) >> warp_lanes_log2;
  const std::int64_t lane = threadIdx.x % warp_lanes;
  const std::int64_t chunk_begin = warp * warp_lanes * groups_per_lane;
  const std::int64_t groups = args.whole_groups();
  const std::int64_t chunk_end = chunk_begin + warp_lanes * groups_per_lane < groups
                                     ? chunk_begin + warp_lanes * groups_per_lane
                                     : groups;
  if (chunk_begin + lane < chunk_end) {
    SobolGroupRun<Normal, T, Word>(args, directions, dimension,
                                   args.whole_first_group() + static_cast<std::uint64_t>(chunk_begin + lane),
                                   args.whole_first_group() + static_cast<std::uint64_t>(chunk_end), warp_lanes_log2)
        .fill();
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) fill_sobol_edges<Normal>(args, directions, dimension);
}

}  // namespace cunum::detail
