#pragma once
// Internal: the tuning of cunum::RandomGenerator's CUDA fills, in one place: a
// policy chain per kernel family (kernels/random/random_fill_kernel.cuh), chosen by
// the device's architecture in the launchers (kernels/random/random.cu). Host-only.

#include <cstdint>

#include "src/core/policy_chain.hpp"

namespace cunum::detail {

// What every fill kernel's launch takes: 2^BlockThreadsLog2 threads a block, and the
// grid-stride fills' cap of BlocksPerMultiprocessor resident blocks on each SM.
template <int BlockThreadsLog2, int BlocksPerMultiprocessor>
struct RandomFillPolicyOf {
  static constexpr int block_threads_log2 = BlockThreadsLog2;
  static constexpr int block_threads = 1 << block_threads_log2;
  static constexpr int blocks_per_multiprocessor = BlocksPerMultiprocessor;
};

// Philox: uniform floats fit in 32 registers without spilling, so a full SM's
// blocks_per_multiprocessor blocks; 0 (no minimum) leaves the other shapes to ptxas,
// which spills there.
template <class Fill>
struct PhiloxPolicyOf : Fill {
  static constexpr int min_blocks(bool uniform_float) { return uniform_float ? Fill::blocks_per_multiprocessor : 0; }
};

// Sobol: a lane's random access to its first point costs up to 32 or 64 steps, so
// the grid is no wider than leaves it MinGroupsPerLane groups of points (16 bytes of
// values each) to step over. The fills fit in 32 registers without spilling, so a full
// SM's blocks_per_multiprocessor blocks, but for the double normals (their inverse CDF
// in double, and its tail), which ptxas spills there (92 bytes at 32 registers with the
// double quantile of 2026-11-27; 37-48 without the cap): 0 leaves them to it.
template <class Fill, std::int64_t MinGroupsPerLane>
struct SobolPolicyOf : Fill {
  static constexpr std::int64_t min_groups_per_lane = MinGroupsPerLane;
  static constexpr int min_blocks(bool double_normal) { return double_normal ? 0 : Fill::blocks_per_multiprocessor; }
};

// The fills' policies by architecture.
using PhiloxPolicies = PolicyChain<ArchPolicy<900, PhiloxPolicyOf<RandomFillPolicyOf<8, 8>>>>;
using MrgPolicies = PolicyChain<ArchPolicy<900, RandomFillPolicyOf<8, 8>>>;
using SobolPolicies = PolicyChain<ArchPolicy<900, SobolPolicyOf<RandomFillPolicyOf<8, 8>, 8>>>;

}  // namespace cunum::detail
