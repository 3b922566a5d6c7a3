#pragma once
// Internal: the tuning of Monte Carlo pricing, in one place (host-only C++).
//
// Two kinds of number live here. The chunk shape (MonteCarloChunkPolicy), the
// combining fan-in (MonteCarloCombinePolicy) and the quasi-random batch size fix
// which paths are summed together and in which order, and so the results' last bits:
// they follow from the settings only, never from the device or the batch, so that
// every device, rank and backend gives the same bits. Launch shapes (block sizes)
// only lay the chunks over threads and go through the architecture chains
// (src/core/policy_chain.hpp).
//
// Callers' payoff kernels (cunum/device/monte_carlo_payoff.cuh) are launched from the
// caller's translation unit with the installed detail::CustomPayoffPathPolicy; it
// is the sm_90 path launch below (a static_assert in kernels/monte_carlo/monte_carlo.cu
// keeps the two equal).

#include <cstdint>

#include "src/core/policy_chain.hpp"

namespace cunum::detail {

// How an option's paths are cut into chunks. A chunk is one warp's groups. An option
// is cut into about target_chunks chunks (16 warps for each of the H100's 132 SMs),
// each thread taking between min_groups_per_thread (so that the warp's final sum costs
// little per path) and max_groups_per_thread groups (so that huge options make fewer
// partial sums). Independent of the device: it fixes the summation order.
struct MonteCarloChunkPolicy {
  static constexpr int chunk_threads = 32;
  static constexpr int target_chunks = 2048;
  static constexpr int min_groups_per_thread = 16;
  static constexpr int max_groups_per_thread = 64;
};

// Quasi-random pricing walks the bridge's paths a batch at a time: a whole number of
// chunks whose paths fill about batch_bytes.
struct MonteCarloQuasiPolicy {
  static constexpr std::int64_t batch_bytes = std::int64_t{256} << 20;
};

// Chunk sums are folded fan_in at a time (a block of fan_in threads, a fixed block
// tree) until one warp can finish them. The fan-in fixes the summation order, so it is
// not tuned by architecture; the MPI layer folds its units with the same fan-in.
struct MonteCarloCombinePolicy {
  static constexpr int fan_in = 256;
};

// A launch of warps: block_threads threads (block_threads / 32 chunks or options a block).
template <int BlockThreads>
struct MonteCarloWarpsPolicy {
  static constexpr int block_threads = BlockThreads;
};

// The path kernels (pseudo-random, with each asset's Greeks, quasi-random): one warp a chunk.
using MonteCarloPathPolicies = PolicyChain<ArchPolicy<900, MonteCarloWarpsPolicy<128>>>;
// The finishing kernel: one warp an option.
using MonteCarloFinishPolicies = PolicyChain<ArchPolicy<900, MonteCarloWarpsPolicy<128>>>;
// load()'s zero-path references: one thread an option.
using MonteCarloReferencePolicies = PolicyChain<ArchPolicy<900, MonteCarloWarpsPolicy<128>>>;

}  // namespace cunum::detail
