// CUDA Monte Carlo kernels. The path kernel (cunum/device/detail/monte_carlo_chunks.cuh,
// shared with callers' payoff functors) is fused: each warp owns one chunk of one
// option, draws, walks and sums in registers, and stores the chunk's sums; a launch
// covers any range of chunks (all of them, or one device's share). Combining kernels then fold an option's chunks in fixed
// groups of CombinePolicy::fan_in, and the finishing kernel (one warp per option)
// forms the estimates. Every order is fixed by the chunk shape, which the settings
// alone decide: results are bit-identical run to run and whatever the batch size.

#include <cuda_runtime.h>

#include <type_traits>

#include "cunum/core/device_buffer.hpp"
#include "cunum/device/detail/block_reduce.cuh"
#include "cunum/device/detail/monte_carlo_chunks.cuh"
#include "kernels/common/launch.cuh"
#include "src/core/check.hpp"
#include "src/core/instantiate.hpp"
#include "src/monte_carlo/monte_carlo_backends.hpp"
#include "cunum/device/detail/monte_carlo_policy.hpp"

namespace cunum::detail {

namespace {

// Quasi-random: warp w sums local chunk w mod batch_chunks of option w / batch_chunks
// from the batch's bridge paths into its place in the whole `partials`.
template <class T, MonteCarloPayoff P, bool kFull>
__global__ void __launch_bounds__(PathPolicy::block_threads)
    monte_carlo_quasi_kernel(MonteCarloArgs<T> a, const T* __restrict__ w, std::int64_t batch_paths,
                             std::int64_t first_chunk, std::int64_t batch_chunks, T step_scale,
                             double* __restrict__ partials) {
  constexpr int kSums = kFull ? kSumCount : kPlainSumCount;  // one-asset payoffs only
  constexpr int kWarps = PathPolicy::block_threads / kWarpThreads;
  const int lane = threadIdx.x % kWarpThreads;
  const std::int64_t warp = std::int64_t{blockIdx.x} * kWarps + threadIdx.x / kWarpThreads;
  if (warp >= a.options * batch_chunks) return;
  const std::int64_t option = warp / batch_chunks, chunk = warp - option * batch_chunks;
  const OptionSetup<T> setup = *option_setup_of(a, option);
  ChunkSums<std::conditional_t<kFull, double, T>, kSums> sums{};
  const std::int64_t begin = chunk * a.chunks.groups_per_chunk;
  const std::int64_t end =
      begin + a.chunks.groups_per_chunk < batch_paths ? begin + a.chunks.groups_per_chunk : batch_paths;
  for (std::int64_t path = begin + lane; path < end; path += kWarpThreads) {
    simulate_quasi_path<T, P, kFull>(setup, a.shape, w + path, batch_paths, step_scale, sums);
  }
#pragma unroll
  for (int s = 0; s < kSums; ++s) {
    const double total = warp_reduce<DoubleSum>(static_cast<double>(sums.s[s]));  // valid in lane 0
    if (lane == 0) partials[(option * a.chunks.chunks + first_chunk + chunk) * kSums + s] = total;
  }
}

// A thread's sums with each asset's Greeks: the full set in registers, the per-asset
// ones in shared memory, one column a thread (sum i of thread t at i x block_threads +
// t: no bank conflicts, no sharing). Indexed by asset at run time, in local memory
// they spilled to L2 (928 bytes a thread).
template <class A>
struct SharedAssetSums {
  using value_type = A;
  static constexpr int capacity = kMaxSumCount;
  A s[kSumCount];
  A* column;  // this thread's first per-asset sum
  __device__ A& asset_sum(int j, int which) {
    return column[(j * kAssetSumCount + which) * PathPolicy::block_threads];
  }
};

// monte_carlo_paths_kernel for a multi-asset payoff with each asset's Greeks: the same
// chunks and sums (kSumCount + kAssetSumCount x assets a chunk), the per-asset sums in
// dynamic shared memory (SharedAssetSums).
template <class T, bool kMrg, MonteCarloPayoff P>
__global__ void __launch_bounds__(PathPolicy::block_threads)
    monte_carlo_asset_greeks_kernel(MonteCarloArgs<T> a, std::int64_t first, std::int64_t count,
                                    double* __restrict__ partials) {
  extern __shared__ double asset_columns[];
  constexpr int kWarps = PathPolicy::block_threads / kWarpThreads;
  constexpr int kWarpThreadsLog2 = 5;
  const int lane = threadIdx.x % kWarpThreads;
  const std::int64_t warp = std::int64_t{blockIdx.x} * kWarps + threadIdx.x / kWarpThreads;
  if (warp >= count) return;
  const int kept = sum_count(a), asset_sums = kept - kSumCount;
  SharedAssetSums<double> sums{};
  sums.column = asset_columns + threadIdx.x;
  for (int i = 0; i < asset_sums; ++i) sums.column[i * PathPolicy::block_threads] = 0;
  sum_chunk<T, true, kMrg>(a, LibraryPayoff<P, true>{}, first + warp, lane, kWarpThreadsLog2, sums);
#pragma unroll
  for (int s = 0; s < kSumCount; ++s) {
    const double total = warp_reduce<DoubleSum>(sums.s[s]);  // valid in lane 0
    if (lane == 0) partials[warp * kept + s] = total;
  }
  for (int i = 0; i < asset_sums; ++i) {
    const double total = warp_reduce<DoubleSum>(sums.column[i * PathPolicy::block_threads]);
    if (lane == 0) partials[warp * kept + kSumCount + i] = total;
  }
}

// Folds units of CombinePolicy::fan_in chunk sums: unit u (0 <= u < gridDim.x) is unit
// first_unit + u, chunks [j fan_in, (j + 1) fan_in) of option i, with
// i = (first_unit + u) / out_count and j its remainder; for every sum, a fixed block tree
// writes out[u * sums + s]. `in` holds the option-major chunk sums from flat chunk
// base_chunk on (a whole level: first_unit = base_chunk = 0; one rank's share: its own).
__global__ void __launch_bounds__(CombinePolicy::fan_in)
    combine_chunks_kernel(std::int64_t count, std::int64_t out_count, std::int64_t first_unit,
                          std::int64_t base_chunk, int sums, const double* __restrict__ in, double* __restrict__ out) {
  const std::int64_t unit = first_unit + blockIdx.x;
  const std::int64_t option = unit / out_count;
  const std::int64_t block = unit - option * out_count;
  const std::int64_t index = block * CombinePolicy::fan_in + threadIdx.x;
  for (int s = 0; s < sums; ++s) {
    const double value = index < count ? in[(option * count + index - base_chunk) * sums + s] : 0.0;
    const double total = block_reduce<CombinePolicy::fan_in, DoubleSum>(value);
    if (threadIdx.x == 0) out[std::int64_t{blockIdx.x} * sums + s] = total;
    __syncthreads();  // block_reduce's shared scratch is reused by the next sum
  }
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

template <class T, bool kFull, class Payoff>
void launch_paths(const MonteCarloArgs<T>& a, std::int64_t first, std::int64_t count, double* partials,
                  StreamHandle stream) {
  const char* name = "monte_carlo_paths_kernel";
  constexpr int kWarps = PathPolicy::block_threads / kWarpThreads;
  const LaunchConfig config{grid_1d((count + kWarps - 1) / kWarps, name), dim3(PathPolicy::block_threads), 0, stream};
  const bool mrg = a.mrg_tables != nullptr;
  launch_kernel(mrg ? monte_carlo_paths_kernel<T, kFull, true, Payoff> : monte_carlo_paths_kernel<T, kFull, false, Payoff>,
                name, config, a, Payoff{}, first, count, partials);
}

// monte_carlo_asset_greeks_kernel, with the shared memory its per-asset sums take.
template <class T, MonteCarloPayoff P>
void launch_asset_greeks(const MonteCarloArgs<T>& a, std::int64_t first, std::int64_t count, double* partials,
                         StreamHandle stream) {
  const char* name = "monte_carlo_asset_greeks_kernel";
  constexpr int kWarps = PathPolicy::block_threads / kWarpThreads;
  const std::size_t shared = sizeof(double) * PathPolicy::block_threads * kAssetSumCount * a.shape.assets;
  const auto kernel = a.mrg_tables != nullptr ? monte_carlo_asset_greeks_kernel<T, true, P>
                                              : monte_carlo_asset_greeks_kernel<T, false, P>;
  constexpr std::size_t kDefaultSharedLimit = 48 * 1024;  // more needs the kernel's opt-in (above 11 assets)
  if (shared > kDefaultSharedLimit) {
    CUNUM_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  }
  const LaunchConfig config{grid_1d((count + kWarps - 1) / kWarps, name), dim3(PathPolicy::block_threads), shared,
                            stream};
  launch_kernel(kernel, name, config, a, first, count, partials);
}

// The path kernel for the library's payoff P: plain, full, or full with each asset's Greeks.
template <class T, MonteCarloPayoff P>
void launch_library_paths(const MonteCarloArgs<T>& a, std::int64_t first, std::int64_t count, double* partials,
                          StreamHandle stream) {
  if constexpr (is_multi_asset(P)) {
    if (a.shape.asset_greeks) return launch_asset_greeks<T, P>(a, first, count, partials, stream);
  }
  a.full ? launch_paths<T, true, LibraryPayoff<P>>(a, first, count, partials, stream)
         : launch_paths<T, false, LibraryPayoff<P>>(a, first, count, partials, stream);
}

template <class T, MonteCarloPayoff P>
void launch_quasi(const MonteCarloArgs<T>& a, const T* w, std::int64_t batch_paths, std::int64_t first_chunk,
                  std::int64_t batch_chunks, double* partials, StreamHandle stream) {
  const char* name = "monte_carlo_quasi_kernel";
  constexpr int kWarps = PathPolicy::block_threads / kWarpThreads;
  const LaunchConfig config{grid_1d((a.options * batch_chunks + kWarps - 1) / kWarps, name),
                            dim3(PathPolicy::block_threads), 0, stream};
  const T step_scale = static_cast<T>(sqrt(static_cast<double>(a.shape.dates)));
  if (a.full) {
    launch_kernel(monte_carlo_quasi_kernel<T, P, true>, name, config, a, w, batch_paths, first_chunk, batch_chunks,
                  step_scale, partials);
  } else {
    launch_kernel(monte_carlo_quasi_kernel<T, P, false>, name, config, a, w, batch_paths, first_chunk, batch_chunks,
                  step_scale, partials);
  }
}

}  // namespace

template <class T>
void monte_carlo_quasi_partials_cuda(const MonteCarloArgs<T>& args, const T* w, std::int64_t batch_paths,
                                     std::int64_t first_chunk, std::int64_t batch_chunks, double* partials,
                                     StreamHandle stream) {
  switch (args.payoff) {
#define CUNUM_MC_QUASI_CUDA_CASE(name, text)                                                                     \
  case MonteCarloPayoff::name:                                                                                   \
    launch_quasi<T, MonteCarloPayoff::name>(args, w, batch_paths, first_chunk, batch_chunks, partials, stream);   \
    break;
    CUNUM_MONTE_CARLO_PAYOFFS(CUNUM_MC_QUASI_CUDA_CASE)
#undef CUNUM_MC_QUASI_CUDA_CASE
  }
}

template <class T>
void monte_carlo_partials_cuda(const MonteCarloArgs<T>& args, std::int64_t first, std::int64_t count,
                               double* partials, StreamHandle stream) {
  if (count == 0) return;
  switch (args.payoff) {
#define CUNUM_MC_CUDA_CASE(name, text)                                                 \
  case MonteCarloPayoff::name:                                                         \
    launch_library_paths<T, MonteCarloPayoff::name>(args, first, count, partials, stream); \
    break;
    CUNUM_MONTE_CARLO_PAYOFFS(CUNUM_MC_CUDA_CASE)
#undef CUNUM_MC_CUDA_CASE
  }
}

void monte_carlo_fold_units_cuda(std::int64_t count, std::int64_t first_unit, std::int64_t units, int sums,
                                 const double* chunk_sums, double* out, StreamHandle stream) {
  if (units == 0) return;
  const std::int64_t out_count = (count + CombinePolicy::fan_in - 1) / CombinePolicy::fan_in;
  const std::int64_t base_chunk = first_unit / out_count * count + first_unit % out_count * CombinePolicy::fan_in;
  const char* name = "combine_chunks_kernel";
  const LaunchConfig config{grid_1d(units, name), dim3(CombinePolicy::fan_in), 0, stream};
  launch_kernel(combine_chunks_kernel, name, config, count, out_count, first_unit, base_chunk, sums, chunk_sums, out);
}

template <class T>
void monte_carlo_finish_cuda(const MonteCarloArgs<T>& args, const double* partials, std::int64_t count,
                             StreamHandle stream) {
  const int sums = sum_count(args);
  const double* level = partials;
  DeviceBuffer<double> folded;
  while (count > CombinePolicy::fan_in) {
    const std::int64_t out_count = (count + CombinePolicy::fan_in - 1) / CombinePolicy::fan_in;
    DeviceBuffer<double> next(static_cast<std::size_t>(args.options * out_count * sums), stream);
    monte_carlo_fold_units_cuda(count, 0, args.options * out_count, sums, level, next.data(), stream);
    folded = std::move(next);
    level = folded.data();
    count = out_count;
  }
  constexpr int kWarps = FinishPolicy::block_threads / kWarpThreads;
  const char* name = "finish_estimates_kernel";
  const LaunchConfig config{grid_1d((args.options + kWarps - 1) / kWarps, name), dim3(FinishPolicy::block_threads), 0,
                            stream};
  launch_kernel(finish_estimates_kernel<T>, name, config, args, count, level);
}

#define CUNUM_INSTANTIATE_MONTE_CARLO_CUDA(T)                                                              \
  template void monte_carlo_partials_cuda(const MonteCarloArgs<T>&, std::int64_t, std::int64_t, double*,   \
                                          StreamHandle);                                                   \
  template void monte_carlo_finish_cuda(const MonteCarloArgs<T>&, const double*, std::int64_t, StreamHandle);  \
  template void monte_carlo_quasi_partials_cuda(const MonteCarloArgs<T>&, const T*, std::int64_t, std::int64_t, \
                                                std::int64_t, double*, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MONTE_CARLO_CUDA, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
