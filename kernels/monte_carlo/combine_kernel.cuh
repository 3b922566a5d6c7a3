#pragma once
// Combining the chunk sums, in one fixed order whichever code runs it: an option's
// sums are folded fan_in (MonteCarloCombinePolicy) at a time, each unit by the tree of
// a block_reduce over fan_in threads, level after level until fan_in or fewer are
// left, which one warp adds lane-strided and across the warp to form the estimate.
// One warp does each unit and each finish (fold_unit_in_warp, finish_option_in_warp):
// in the folding and finishing kernels of the launch chain (several devices, MPI
// ranks, callers' and quasi-random payoffs), and in a one-device call's path launch,
// where the last warp to store a unit's values folds it (fold_after_chunk), so that
// a call is one launch. Both give the same bits.

#include <cuda/atomic>

#include <cstdint>

#include "cunum/device/detail/block_reduce.cuh"
#include "cunum/device/detail/monte_carlo_args.hpp"
#include "kernels/monte_carlo/monte_carlo_launch.hpp"
#include "src/monte_carlo/monte_carlo_path.hpp"
#include "src/monte_carlo/monte_carlo_policy.hpp"

namespace cunum::detail {

// warp_reduce (cunum/device/detail/block_reduce.cuh) of each of N values of every
// lane, side by side: the same tree for each (results valid in lane 0), with N
// independent shuffles in flight at each step rather than one chain after another.
template <int N>
__device__ __forceinline__ void warp_reduce_each(double (&values)[N]) {
#pragma unroll
  for (int offset = kWarpThreads / 2; offset > 0; offset /= 2) {
#pragma unroll
    for (int i = 0; i < N; ++i) {
      values[i] = DoubleSum::combine(values[i], __shfl_down_sync(0xffffffffu, values[i], offset));
    }
  }
}

// The calling warp folds one unit: `valid` (1..fan_in) consecutive values of each of
// `sums` sums, value t's sum s at first[t * sums + s], into out[s], by the tree of
// block_reduce<fan_in, DoubleSum> over a block whose thread t holds value t (0 past
// `valid`): each 32 threads' warp_reduce, then one warp_reduce of those results.
// Every lane calls it; lane 0 writes. The block's warps' trees run kSideBySide at a
// time (warp_reduce_each), their loads in flight together, so that one warp is not a
// chain of 8 load and shuffle latencies a sum; 4, not all 8: the float European
// kernel that folds keeps its 56 registers (8 at a time: 64). Loads bypass L1: other
// warps wrote the values.
__device__ __forceinline__ void fold_unit_in_warp(const double* __restrict__ first, std::int64_t valid, int sums,
                                                  double* __restrict__ out) {
  constexpr int kFanIn = MonteCarloCombinePolicy::fan_in;
  constexpr int kBlockWarps = kFanIn / kWarpThreads;
  static_assert(kFanIn % kWarpThreads == 0 && kBlockWarps <= kWarpThreads, "a unit is whole warps, at most 32");
  const int lane = threadIdx.x % kWarpThreads;
  constexpr int kSideBySide = 4;
  static_assert(kBlockWarps % kSideBySide == 0, "whole groups of trees");
  for (int s = 0; s < sums; ++s) {
    double warp_result = 0.0;  // lane w: the result of the block's warp w
#pragma unroll
    for (int first_w = 0; first_w < kBlockWarps; first_w += kSideBySide) {
      double values[kSideBySide];
#pragma unroll
      for (int i = 0; i < kSideBySide; ++i) {
        const std::int64_t t = std::int64_t{first_w + i} * kWarpThreads + lane;
        values[i] = t < valid ? __ldcg(first + t * sums + s) : 0.0;
      }
      warp_reduce_each(values);  // lane 0: the results of the block's warps first_w, first_w + 1, ...
#pragma unroll
      for (int i = 0; i < kSideBySide; ++i) {
        const double total = __shfl_sync(0xffffffffu, values[i], 0);
        if (lane == first_w + i) warp_result = total;
      }
    }
    const double total = warp_reduce<DoubleSum>(lane < kBlockWarps ? warp_result : 0.0);
    if (lane == 0) out[s] = total;
  }
}

// The calling warp finishes option `option` from its `count` (at most fan_in) values
// of each sum at `sums_in` (option-major, value index's sum s at
// sums_in[(option * count + index) * sums + s]): added lane-strided, then across the
// warp; lane 0 writes the estimate. Every lane calls it.
template <class T>
__device__ __forceinline__ void finish_option_in_warp(const MonteCarloArgs<T>& a, std::int64_t option,
                                                      std::int64_t count, const double* __restrict__ sums_in) {
  const int lane = threadIdx.x % kWarpThreads;
  const int sums = sum_count(a);
  double totals[kMaxSumCount] = {};
  for (int s = 0; s < sums; ++s) {
    double value = 0;
    for (std::int64_t index = lane; index < count; index += kWarpThreads) {
      value += __ldcg(sums_in + (option * count + index) * sums + s);
    }
    totals[s] = warp_reduce<DoubleSum>(value);
  }
  if (lane == 0) write_estimates(a, option, totals);
}

// After the calling warp has stored flat chunk `chunk_id`'s sums in place in
// space.sums: counts it in at its unit of the next level, and if it is the unit's
// last, folds the unit and goes up a level the same way, until the option's top
// level, whose last warp writes the estimate (an option of one chunk: the warp that
// summed it, at once, with no counter). Each counter goes back to 0 when its
// last arrival has been counted. The arrival publishes what lane 0 stored (release)
// and makes the others' values visible to the last warp (acquire); __syncwarp
// passes that to the other lanes. Which warp folds a unit varies, the order it adds
// in does not. Every lane calls it. Not inlined: compiled apart, its registers (those
// of the finishing kernel) do not raise the path loop's, which set its occupancy.
// Its arguments by value: a reference to the kernel's parameters made every warp of
// the path kernel copy them to local memory on entry (sm_90 SASS: 17 stores a warp),
// and 66 of the 100 folding path kernels took more registers (up to 159 against 128).
template <class T>
__device__ __noinline__ void fold_after_chunk(const MonteCarloArgs<T> a, const MonteCarloFoldSpace space,
                                              std::int64_t chunk_id) {
  constexpr std::int64_t kFanIn = MonteCarloCombinePolicy::fan_in;
  const int lane = threadIdx.x % kWarpThreads;
  const int sums = sum_count(a);
  const std::int64_t option = chunk_id / a.chunks.chunks;
  if (a.chunks.chunks == 1) {
    // The option's only chunk: no other warp to wait for, so no counter (lane 0 reads
    // back what it stored itself).
    finish_option_in_warp(a, option, 1, space.sums);
    return;
  }
  std::int64_t count = a.chunks.chunks;  // the option's values at this level
  std::int64_t index = chunk_id - option * a.chunks.chunks;  // the value this warp stored
  double* level = space.sums;
  unsigned int* arrivals = space.arrivals;  // the next level's units' counters, then the options'
  for (;;) {
    const bool top = count <= kFanIn;
    const std::int64_t out_count = (count + kFanIn - 1) / kFanIn;
    const std::int64_t unit = index / kFanIn;
    const std::int64_t expected = top ? count : (count - unit * kFanIn < kFanIn ? count - unit * kFanIn : kFanIn);
    unsigned int* const counter = arrivals + (top ? option : option * out_count + unit);
    bool last = false;
    if (lane == 0) {
      cuda::atomic_ref<unsigned int, cuda::thread_scope_device> arrived(*counter);
      last = arrived.fetch_add(1u, cuda::memory_order_acq_rel) == static_cast<unsigned int>(expected - 1);
      if (last) arrived.store(0u, cuda::memory_order_relaxed);  // every arrival is in: ready for the next launch
    }
    __syncwarp();
    if (!__shfl_sync(0xffffffffu, last, 0)) return;
    if (top) {
      finish_option_in_warp(a, option, count, level);
      return;
    }
    double* const next = level + a.options * count * sums;
    fold_unit_in_warp(level + (option * count + unit * kFanIn) * sums, expected, sums,
                      next + (option * out_count + unit) * sums);
    arrivals += a.options * out_count;
    level = next;
    index = unit;
    count = out_count;
  }
}

// The launch chain's folding step: warp u (0 <= u < units) folds unit first_unit + u,
// chunks [j fan_in, (j + 1) fan_in) of option i, i = (first_unit + u) / out_count and
// j its remainder, into out[u * sums + s]. `in` holds the option-major chunk sums
// from flat chunk base_chunk on (a whole level: first_unit = base_chunk = 0; one
// rank's share: its own). Policy: the launch shape (MonteCarloFoldPolicies).
template <class Policy>
__global__ void __launch_bounds__(Policy::block_threads)
    combine_chunks_kernel(std::int64_t count, std::int64_t out_count, std::int64_t first_unit,
                          std::int64_t base_chunk, std::int64_t units, int sums, const double* __restrict__ in,
                          double* __restrict__ out) {
  constexpr std::int64_t kFanIn = MonteCarloCombinePolicy::fan_in;
  const std::int64_t warp = std::int64_t{blockIdx.x} * Policy::warps + threadIdx.x / kWarpThreads;
  if (warp >= units) return;
  const std::int64_t unit = first_unit + warp;
  const std::int64_t option = unit / out_count;
  const std::int64_t block = unit - option * out_count;
  const std::int64_t valid = count - block * kFanIn < kFanIn ? count - block * kFanIn : kFanIn;
  fold_unit_in_warp(in + (option * count + block * kFanIn - base_chunk) * sums, valid, sums, out + warp * sums);
}

// The launch chain's finishing step: one warp an option, from its `count` (at most
// fan_in) sums.
template <class Policy, class T>
__global__ void __launch_bounds__(Policy::block_threads)
    finish_estimates_kernel(MonteCarloArgs<T> a, std::int64_t count, const double* __restrict__ sums_in) {
  const std::int64_t option = std::int64_t{blockIdx.x} * Policy::warps + threadIdx.x / kWarpThreads;
  if (option >= a.options) return;
  finish_option_in_warp(a, option, count, sums_in);
}

}  // namespace cunum::detail
