#pragma once
// The kernels that combine the chunk sums: folding fan_in at a time in a fixed block
// tree (Policy: MonteCarloCombinePolicy, whose fan-in is the block), and finishing
// each option's estimate (one warp an option; Policy: the launch shape).

#include <cstdint>

#include "cunum/device/detail/block_reduce.cuh"
#include "cunum/device/detail/monte_carlo_args.hpp"
#include "src/monte_carlo/monte_carlo_path.hpp"

namespace cunum::detail {

// Folds units of Policy::fan_in chunk sums (MonteCarloCombinePolicy): unit u (0 <= u < gridDim.x) is unit
// first_unit + u, chunks [j fan_in, (j + 1) fan_in) of option i, with
// i = (first_unit + u) / out_count and j its remainder; for every sum, a fixed block tree
// writes out[u * sums + s]. `in` holds the option-major chunk sums from flat chunk
// base_chunk on (a whole level: first_unit = base_chunk = 0; one rank's share: its own).
template <class Policy>
__global__ void __launch_bounds__(Policy::fan_in)
    combine_chunks_kernel(std::int64_t count, std::int64_t out_count, std::int64_t first_unit,
                          std::int64_t base_chunk, int sums, const double* __restrict__ in, double* __restrict__ out) {
  const std::int64_t unit = first_unit + blockIdx.x;
  const std::int64_t option = unit / out_count;
  const std::int64_t block = unit - option * out_count;
  const std::int64_t index = block * Policy::fan_in + threadIdx.x;
  for (int s = 0; s < sums; ++s) {
    const double value = index < count ? in[(option * count + index - base_chunk) * sums + s] : 0.0;
    const double total = block_reduce<Policy::fan_in, DoubleSum>(value);
    if (threadIdx.x == 0) out[std::int64_t{blockIdx.x} * sums + s] = total;
    __syncthreads();  // block_reduce's shared scratch is reused by the next sum
  }
}

// One warp per option: each sum's `count` values (at most fan_in) added lane-strided,
// then across the warp; lane 0 writes the estimate.
template <class Policy, class T>
__global__ void __launch_bounds__(Policy::block_threads)
    finish_estimates_kernel(MonteCarloArgs<T> a, std::int64_t count, const double* __restrict__ sums_in) {
  constexpr int kWarps = Policy::block_threads / kWarpThreads;
  const int lane = threadIdx.x % kWarpThreads;
  const std::int64_t option = std::int64_t{blockIdx.x} * kWarps + threadIdx.x / kWarpThreads;
  if (option >= a.options) return;
  const int sums = sum_count(a);
  double totals[kMaxSumCount] = {};
  for (int s = 0; s < sums; ++s) {
    double value = 0;
    for (std::int64_t index = lane; index < count; index += kWarpThreads) {
      value += sums_in[(option * count + index) * sums + s];
    }
    totals[s] = warp_reduce<DoubleSum>(value);
  }
  if (lane == 0) write_estimates(a, option, totals);
}

}  // namespace cunum::detail
