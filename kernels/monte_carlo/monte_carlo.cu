// CUDA Monte Carlo kernels. The path kernel is fused: each warp owns one chunk of
// one option, every thread draws its groups' normals from Philox in registers,
// walks the paths and sums the statistics; the warp adds its threads' sums in double
// and stores the chunk's. Combining kernels then fold an option's chunks in fixed
// groups of CombinePolicy::fan_in, and the finishing kernel (one warp per option)
// forms the estimates. Every order is fixed by the chunk shape, which the settings
// alone decide: results are bit-identical run to run and whatever the batch size.

#include <cuda_runtime.h>

#include <type_traits>

#include "cunum/core/device_buffer.hpp"
#include "kernels/common/block_reduce.cuh"
#include "kernels/common/launch.cuh"
#include "src/core/instantiate.hpp"
#include "src/monte_carlo/monte_carlo_backends.hpp"
#include "src/monte_carlo/monte_carlo_policy.hpp"

namespace cunum::detail {

namespace {

// Chunk c of option i keeps sum s at partials[(i * sums + s) * chunks + c], so that
// the combining kernels read an option's chunks of one sum contiguously.
template <class T, MonteCarloPayoff P, bool kFull>
__global__ void __launch_bounds__(PathPolicy::block_threads)
    monte_carlo_paths_kernel(MonteCarloArgs<T> a, double* __restrict__ partials) {
  constexpr int kSums = kFull ? kSumCount : kPlainSumCount;
  constexpr int kWarps = PathPolicy::block_threads / kWarpThreads;
  const int lane = threadIdx.x % kWarpThreads;
  const std::int64_t chunk_id = std::int64_t{blockIdx.x} * kWarps + threadIdx.x / kWarpThreads;
  if (chunk_id >= a.options * a.chunks.chunks) return;  // the whole warp leaves
  // A 32-bit division where the numbers allow (always but for grids of 2^30 warps):
  // the 64-bit one is a called routine that every warp would pay.
  const std::int64_t option = chunk_id <= 0xFFFFFFFF && a.chunks.chunks <= 0xFFFFFFFF
                                  ? static_cast<std::uint32_t>(chunk_id) / static_cast<std::uint32_t>(a.chunks.chunks)
                                  : chunk_id / a.chunks.chunks;
  const std::int64_t chunk = chunk_id - option * a.chunks.chunks;
  const OptionSetup<T> setup = a.setups[option];
  // A thread's plain sums stay in T; with a control variate or Greeks they are
  // double, since the control's variance is a difference of nearly equal sums.
  ChunkSums<std::conditional_t<kFull, double, T>> sums{};
  const std::int64_t first = chunk * a.chunks.groups_per_chunk + lane;
  const std::int64_t end = first - lane + a.chunks.groups_per_chunk < a.chunks.groups
                               ? first - lane + a.chunks.groups_per_chunk
                               : a.chunks.groups;
  for (std::int64_t group = first; group < end; group += kWarpThreads) {
    simulate_group<T, P, kFull>(setup, a.shape, static_cast<std::uint64_t>(group), sums);
  }
#pragma unroll
  for (int s = 0; s < kSums; ++s) {
    const double total = warp_reduce<DoubleSum>(static_cast<double>(sums.s[s]));
    if (lane == 0) partials[(option * kSums + s) * a.chunks.chunks + chunk] = total;
  }
}

// Row r (one sum of one option) of `in` has `count` values; block b of row r writes
// out[r * out_count + b], the sum of in[r * count + b * fan_in ...] in a fixed tree.
__global__ void __launch_bounds__(CombinePolicy::fan_in)
    combine_chunks_kernel(std::int64_t count, std::int64_t out_count, const double* __restrict__ in,
                          double* __restrict__ out) {
  const std::int64_t row = blockIdx.x / out_count;
  const std::int64_t block = blockIdx.x - row * out_count;
  const std::int64_t index = block * CombinePolicy::fan_in + threadIdx.x;
  const double value = index < count ? in[row * count + index] : 0.0;
  const double total = block_reduce<CombinePolicy::fan_in, DoubleSum>(value);
  if (threadIdx.x == 0) out[row * out_count + block] = total;
}

// One warp per option: each sum's `count` values (at most fan_in) added lane-strided,
// then across the warp; lane 0 writes the estimate.
template <class T>
__global__ void __launch_bounds__(FinishPolicy::block_threads)
    finish_estimates_kernel(MonteCarloArgs<T> a, std::int64_t count, const double* __restrict__ sums_in) {
  constexpr int kWarps = FinishPolicy::block_threads / kWarpThreads;
  const int lane = threadIdx.x % kWarpThreads;
  const std::int64_t option = std::int64_t{blockIdx.x} * kWarps + threadIdx.x / kWarpThreads;
  if (option >= a.options) return;
  const int sums = sum_count(a.full);
  double totals[kSumCount] = {};
  for (int s = 0; s < sums; ++s) {
    double value = 0;
    for (std::int64_t index = lane; index < count; index += kWarpThreads) {
      value += sums_in[(option * sums + s) * count + index];
    }
    totals[s] = warp_reduce<DoubleSum>(value);
  }
  if (lane == 0) {
    a.results[option] = estimate_from_sums<T>(totals, a.full, a.shape.control, a.greeks, a.chunks.samples,
                                              a.shape.paths, a.setups[option].discount);
  }
}

template <class T, MonteCarloPayoff P>
void launch_paths(const MonteCarloArgs<T>& a, double* partials, StreamHandle stream) {
  const char* name = "monte_carlo_paths_kernel";
  constexpr int kWarps = PathPolicy::block_threads / kWarpThreads;
  const std::int64_t warps = a.options * a.chunks.chunks;
  const LaunchConfig config{grid_1d((warps + kWarps - 1) / kWarps, name), dim3(PathPolicy::block_threads), 0,
                            stream};
  if (a.full) {
    launch_kernel(monte_carlo_paths_kernel<T, P, true>, name, config, a, partials);
  } else {
    launch_kernel(monte_carlo_paths_kernel<T, P, false>, name, config, a, partials);
  }
}

}  // namespace

template <class T>
void monte_carlo_price_cuda(const MonteCarloArgs<T>& args, StreamHandle stream) {
  const std::int64_t rows = args.options * sum_count(args.full);
  std::int64_t count = args.chunks.chunks;
  DeviceBuffer<double> level(static_cast<std::size_t>(rows * count), stream);
  switch (args.payoff) {
#define CUNUM_MC_CUDA_CASE(name, text)                                   \
  case MonteCarloPayoff::name:                                           \
    launch_paths<T, MonteCarloPayoff::name>(args, level.data(), stream); \
    break;
    CUNUM_MONTE_CARLO_PAYOFFS(CUNUM_MC_CUDA_CASE)
#undef CUNUM_MC_CUDA_CASE
  }
  while (count > CombinePolicy::fan_in) {
    const std::int64_t out_count = (count + CombinePolicy::fan_in - 1) / CombinePolicy::fan_in;
    DeviceBuffer<double> next(static_cast<std::size_t>(rows * out_count), stream);
    const char* name = "combine_chunks_kernel";
    const LaunchConfig config{grid_1d(rows * out_count, name), dim3(CombinePolicy::fan_in), 0, stream};
    launch_kernel(combine_chunks_kernel, name, config, count, out_count, level.data(), next.data());
    level = std::move(next);
    count = out_count;
  }
  constexpr int kWarps = FinishPolicy::block_threads / kWarpThreads;
  const char* name = "finish_estimates_kernel";
  const LaunchConfig config{grid_1d((args.options + kWarps - 1) / kWarps, name), dim3(FinishPolicy::block_threads), 0,
                            stream};
  launch_kernel(finish_estimates_kernel<T>, name, config, args, count, level.data());
}

#define CUNUM_INSTANTIATE_MONTE_CARLO_CUDA(T) \
  template void monte_carlo_price_cuda(const MonteCarloArgs<T>&, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MONTE_CARLO_CUDA, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
