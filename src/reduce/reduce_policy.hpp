#pragma once
// Internal: the tuning of the reductions, in one place: the production single-pass
// kernel's policy by architecture and the OpenMP backend's block. Tests and the
// bench derive their bounds and sweeps from these types; the measurements behind
// the choices are in docs/reduce.md.

#include <cstdint>
#include <type_traits>

#include "src/core/launch_shape.hpp"
#include "src/core/policy_chain.hpp"

namespace cunum::detail {

template <int BlockThreads, int BlocksPerMultiprocessor, int LoadsInFlight>
struct ReducePolicyOf {
  static constexpr int block_threads = BlockThreads;
  static constexpr int blocks_per_multiprocessor = BlocksPerMultiprocessor;
  static constexpr int vector_bytes = 16;
  static constexpr int loads_in_flight = LoadsInFlight;  // 16-byte loads issued before the first use
};

// The production kernel's policies by architecture (docs/reduce.md, "Tuning").
using ReducePolicies = PolicyChain<ArchPolicy<900, ReducePolicyOf<512, 4, 4>>>;

// The policy's numbers at run time, for grid sizing, workspaces and error bounds.
struct ReduceTuning {
  int block_threads;
  int blocks_per_multiprocessor;
  int vector_bytes;
  int loads_in_flight;
};

template <class Policy>
constexpr ReduceTuning tuning_of() {
  return {Policy::block_threads, Policy::blocks_per_multiprocessor, Policy::vector_bytes, Policy::loads_in_flight};
}

// Tuning for compute capability `arch` (x 100).
inline ReduceTuning reduce_tuning(int arch) {
  return ReducePolicies::dispatch(arch, [](auto tag) { return tuning_of<typename decltype(tag)::type>(); });
}

// Blocks the production kernel launches for n elements of `element_bytes`.
// Each thread takes loads_in_flight 16-byte vectors a pass.
inline int reduce_grid_blocks(const ReduceTuning& tuning, std::int64_t n, int element_bytes,
                              int multiprocessor_count) {
  const std::int64_t per_block = static_cast<std::int64_t>(tuning.block_threads) *
                                 (tuning.vector_bytes / element_bytes) * tuning.loads_in_flight;
  return static_cast<int>(resident_blocks(n, per_block, tuning.blocks_per_multiprocessor, multiprocessor_count));
}

// The OpenMP backend: blocks summed in interleaved lanes (reduce_cpu.cpp).
struct CpuReducePolicy {
  static constexpr std::int64_t block = 256;  // leaf of the pairwise tree
  // Independent accumulators per block: enough to fill the vector registers and
  // hide the add latency with SSE2 or AVX2 (16 doubles = 8 xmm or 4 ymm registers).
  static constexpr int lanes = 16;
  // SSE2, the x86-64 baseline, has no 64-bit integer compare: int64 min/max forced
  // into vectors ran at half the speed of scalar lanes, so only they stay scalar.
  template <class T>
  static constexpr bool vectorise_compares = !std::is_same_v<T, std::int64_t>;
  static constexpr std::int64_t parallel_threshold = std::int64_t{1} << 15;  // below: one thread
};

// The longest chain of additions any element of a sum passes through on the OpenMP
// backend (the D of the error bound in cunum/reduce.hpp): block / lanes in its
// lane, log2(lanes) merging the lanes, ceil(log2(n / block + 1)) merging blocks,
// then one per thread.
constexpr std::int64_t cpu_sum_depth(std::int64_t n, int threads) {
  std::int64_t depth = CpuReducePolicy::block / CpuReducePolicy::lanes + threads;
  for (int width = CpuReducePolicy::lanes; width > 1; width /= 2) ++depth;
  for (std::int64_t covered = CpuReducePolicy::block; covered < n + CpuReducePolicy::block; covered *= 2) ++depth;
  return depth;
}

}  // namespace cunum::detail
