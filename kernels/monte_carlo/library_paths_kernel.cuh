#pragma once
// The library's own path kernels, on the installed chunk code
// (cunum/device/detail/monte_carlo_chunks.cuh): the path kernel of its payoffs and
// the multi-asset kernel that also sums each asset's Greeks (one warp a chunk; both
// fold the sums in the same launch when given a fold space), the quasi-random kernel
// on bridge paths, and load()'s zero paths (one thread an option). Policy is the
// launch shape (src/monte_carlo/monte_carlo_policy.hpp).

#include <cstdint>
#include <type_traits>

#include "cunum/device/detail/block_reduce.cuh"
#include "cunum/device/detail/monte_carlo_args.hpp"
#include "cunum/device/detail/monte_carlo_chunks.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/monte_carlo/combine_kernel.cuh"
#include "kernels/monte_carlo/monte_carlo_launch.hpp"
#include "src/monte_carlo/monte_carlo_path.hpp"

namespace cunum::detail {

// Warp w of the launch sums chunk first + w of the flattened (option, chunk) index of
// the library's payoff into place w of `partials` (sum_warp_chunk); kFold: with the
// call's fold space (first = 0, partials = fold.sums, every chunk of the call) it then
// folds (fold_after_chunk), so that the launch writes the estimates. The fold's code
// takes registers (56 against 47 for the float European kernel), so the kernel
// without it stays for large calls (MonteCarloFoldPolicy). Launched as a programmatic
// dependent: it waits for the work before it before touching memory.
template <class Policy, class T, bool kFull, bool kMrg, bool kFold, class Payoff>
__global__ void __launch_bounds__(Policy::block_threads)
    monte_carlo_library_paths_kernel(MonteCarloArgs<T> a, std::int64_t first, std::int64_t count,
                                     double* __restrict__ partials, MonteCarloFoldSpace fold) {
  wait_for_prerequisite_grids();
  allow_dependent_grids();
  constexpr int kWarps = Policy::block_threads / kWarpThreads;
  const std::int64_t warp = std::int64_t{blockIdx.x} * kWarps + threadIdx.x / kWarpThreads;
  if (warp >= count) return;  // the whole warp leaves
  const int kept = kept_sum_count<ThreadSums<T, kFull, Payoff>>(a);
  sum_warp_chunk<T, kFull, kMrg>(a, Payoff{}, first + warp, partials + warp * kept);
  if constexpr (kFold) fold_after_chunk(a, fold, first + warp);
}

// Quasi-random: warp w sums local chunk w mod batch_chunks of option w / batch_chunks
// from the batch's bridge paths into its place in the whole `partials`.
template <class Policy, class T, MonteCarloPayoff P, bool kFull>
__global__ void __launch_bounds__(Policy::block_threads)
    monte_carlo_quasi_kernel(MonteCarloArgs<T> a, const T* __restrict__ w, std::int64_t batch_paths,
                             std::int64_t first_chunk, std::int64_t batch_chunks, T step_scale,
                             double* __restrict__ partials) {
  constexpr int kSums = kFull ? kSumCount : kPlainSumCount;  // one-asset payoffs only
  constexpr int kWarps = Policy::block_threads / kWarpThreads;
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

// load()'s references: thread i of the launch walks option i's zero path
// (set_zero_path_references). Policy: the launch shape.
template <class Policy, class T, MonteCarloPayoff P>
__global__ void __launch_bounds__(Policy::block_threads)
    zero_path_references_kernel(GroupShape shape, OptionSetup<T>* __restrict__ setups, std::int64_t options,
                                const T* __restrict__ factor) {
  const std::int64_t option = std::int64_t{blockIdx.x} * Policy::block_threads + threadIdx.x;
  if (option < options) set_zero_path_references<T, P>(shape, setups + option * shape.assets, factor);
}

// A thread's sums with each asset's Greeks: the full set in registers, the per-asset
// ones in shared memory, one column a thread (sum i of thread t at i x block_threads +
// t: no bank conflicts, no sharing). Indexed by asset at run time, in local memory
// they spilled to L2 (928 bytes a thread).
template <class A, int BlockThreads>
struct SharedAssetSums {
  using value_type = A;
  static constexpr int capacity = kMaxSumCount;
  A s[kSumCount];
  A* column;  // this thread's first per-asset sum
  __device__ A& asset_sum(int j, int which) {
    return column[(j * kAssetSumCount + which) * BlockThreads];
  }
};

// monte_carlo_library_paths_kernel for a multi-asset payoff with each asset's Greeks:
// the same chunks, sums (kSumCount + kAssetSumCount x assets a chunk) and fold, the
// per-asset sums in dynamic shared memory (SharedAssetSums).
template <class Policy, class T, bool kMrg, bool kFold, MonteCarloPayoff P>
__global__ void __launch_bounds__(Policy::block_threads)
    monte_carlo_asset_greeks_kernel(MonteCarloArgs<T> a, std::int64_t first, std::int64_t count,
                                    double* __restrict__ partials, MonteCarloFoldSpace fold) {
  extern __shared__ double asset_columns[];
  wait_for_prerequisite_grids();
  allow_dependent_grids();
  constexpr int kWarps = Policy::block_threads / kWarpThreads;
  constexpr int kWarpThreadsLog2 = 5;
  const int lane = threadIdx.x % kWarpThreads;
  const std::int64_t warp = std::int64_t{blockIdx.x} * kWarps + threadIdx.x / kWarpThreads;
  if (warp >= count) return;
  const int kept = sum_count(a), asset_sums = kept - kSumCount;
  SharedAssetSums<double, Policy::block_threads> sums{};
  sums.column = asset_columns + threadIdx.x;
  for (int i = 0; i < asset_sums; ++i) sums.column[i * Policy::block_threads] = 0;
  sum_chunk<T, true, kMrg>(a, LibraryPayoff<P, true>{}, first + warp, lane, kWarpThreadsLog2, sums);
#pragma unroll
  for (int s = 0; s < kSumCount; ++s) {
    const double total = warp_reduce<DoubleSum>(sums.s[s]);  // valid in lane 0
    if (lane == 0) partials[warp * kept + s] = total;
  }
  for (int i = 0; i < asset_sums; ++i) {
    const double total = warp_reduce<DoubleSum>(sums.column[i * Policy::block_threads]);
    if (lane == 0) partials[warp * kept + kSumCount + i] = total;
  }
  if constexpr (kFold) fold_after_chunk(a, fold, first + warp);
}

}  // namespace cunum::detail
