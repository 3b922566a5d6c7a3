#pragma once
// Part of cunum's device API for callers' own Monte Carlo payoffs (not a stable
// interface of its own): the path kernel, one template for the library's payoffs
// (instantiated in libcunum, kernels/monte_carlo/monte_carlo.cu) and callers' functors
// (instantiated in their code by cunum/device/monte_carlo_payoff.cuh). It stays
// installed because a caller's translation unit compiles it for its functor.

#include <cstdint>

#include "cunum/device/detail/block_reduce.cuh"
#include "cunum/device/detail/monte_carlo_args.hpp"

namespace cunum::detail {

// The launch shape of callers' payoff kernels (cunum/device/monte_carlo_payoff.cuh):
// a warp a chunk, 4 warps a block. It is compiled into the caller's code, so it is
// fixed here; it equals the library's own sm_90 path launch
// (src/monte_carlo/monte_carlo_policy.hpp, checked in kernels/monte_carlo/monte_carlo.cu).
// The block size only lays chunks over blocks: results do not depend on it.
struct CustomPayoffPathPolicy {
  static constexpr int block_threads = 128;
};

// The sums a warp's chunk keeps with `Sums` (with each asset's Greeks, a count that
// depends on the number of assets).
template <class Sums, class T>
__device__ __forceinline__ int kept_sum_count(const MonteCarloArgs<T>& a) {
  return Sums::capacity == kMaxSumCount ? sum_count(a) : Sums::capacity;
}

// The calling warp sums flat chunk `chunk_id` with `payoff` (LibraryPayoff<P> or a
// caller's functor): every lane draws its groups' normals in registers, walks the
// paths and sums the statistics; the warp adds its lanes' sums in double, and lane 0
// stores the chunk's kept_sum_count sums at `out`. Every lane of the warp calls it.
template <class T, bool kFull, bool kMrg, class Payoff>
__device__ __forceinline__ void sum_warp_chunk(const MonteCarloArgs<T>& a, const Payoff& payoff,
                                               std::int64_t chunk_id, double* __restrict__ out) {
  using Sums = ThreadSums<T, kFull, Payoff>;
  constexpr int kWarpThreadsLog2 = 5;
  static_assert(1 << kWarpThreadsLog2 == kWarpThreads, "lanes stride the chunk's groups by the warp size");
  const int lane = threadIdx.x % kWarpThreads;
  Sums sums{};
  sum_chunk<T, kFull, kMrg>(a, payoff, chunk_id, lane, kWarpThreadsLog2, sums);
  const int kept = kept_sum_count<Sums>(a);
#pragma unroll
  for (int s = 0; s < Sums::capacity; ++s) {
    if (s == kept) break;
    const double total = warp_reduce<DoubleSum>(static_cast<double>(sums.s[s]));  // valid in lane 0
    if (lane == 0) out[s] = total;
  }
}

// Warp w of the launch sums chunk first + w of the flattened (option, chunk) index
// (sum_warp_chunk) into place w of `partials`, the chunk-major slice that starts at
// chunk `first`. Policy: the launch shape (Policy::block_threads threads, a warp a
// chunk). Callers' payoffs run it; the library's own payoffs run
// kernels/monte_carlo/library_paths_kernel.cuh, which also folds the sums.
template <class Policy, class T, bool kFull, bool kMrg, class Payoff>
__global__ void __launch_bounds__(Policy::block_threads)
    monte_carlo_paths_kernel(MonteCarloArgs<T> a, Payoff payoff, std::int64_t first, std::int64_t count,
                             double* __restrict__ partials) {
  constexpr int kWarps = Policy::block_threads / kWarpThreads;
  const std::int64_t warp = std::int64_t{blockIdx.x} * kWarps + threadIdx.x / kWarpThreads;
  if (warp >= count) return;  // the whole warp leaves
  const int kept = kept_sum_count<ThreadSums<T, kFull, Payoff>>(a);
  sum_warp_chunk<T, kFull, kMrg>(a, payoff, first + warp, partials + warp * kept);
}

}  // namespace cunum::detail
