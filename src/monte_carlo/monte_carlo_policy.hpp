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
// Why the lower bound: a chunk costs a thread 192 instructions beside its groups' 138
// each (float European kernel, sm_90 SASS: the option and its constants, the Philox
// key schedule, the warp's sum in double with 20 shuffles), 8.7% of the work at 16
// groups and 35% at 4. Every batch of options of that size pays it, so smaller chunks
// for an option alone on the device would slow every large batch of such options.
struct MonteCarloChunkPolicy {
  static constexpr int chunk_threads = 32;
  static constexpr int target_chunks = 2048;
  static constexpr int min_groups_per_thread = 16;
  static constexpr int max_groups_per_thread = 64;
};

// The groups each thread of a chunk takes in an option of `groups` groups (>= 1):
// enough chunks that one option fills the device, but at least `least` a thread
// (min_groups_per_thread; MRG32k3a passes max_groups_per_thread, to amortise each
// lane's skip-ahead to its first substream), at most max_groups_per_thread, and never
// more than the option has. A chunk is chunk_threads times this many groups.
constexpr std::int64_t monte_carlo_groups_per_thread(std::int64_t groups, std::int64_t least) {
  using Policy = MonteCarloChunkPolicy;
  const std::int64_t wanted = (groups + std::int64_t{Policy::chunk_threads} * Policy::target_chunks - 1) /
                              (std::int64_t{Policy::chunk_threads} * Policy::target_chunks);
  const std::int64_t bounded = wanted < least ? least
                               : wanted > Policy::max_groups_per_thread ? Policy::max_groups_per_thread
                                                                        : wanted;
  const std::int64_t at_most = (groups + Policy::chunk_threads - 1) / Policy::chunk_threads;
  return bounded < at_most ? bounded : at_most;
}

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

// The values the folding levels of `options` options of `count` sums each take,
// `sums` values a sum (what a call allocates beside its chunk sums): every level of
// fan_in-fold fewer sums, until one warp can finish them (at most fan_in an option).
constexpr std::int64_t monte_carlo_fold_values(std::int64_t options, std::int64_t count, int sums) {
  std::int64_t values = 0;
  while (count > MonteCarloCombinePolicy::fan_in) {
    count = (count + MonteCarloCombinePolicy::fan_in - 1) / MonteCarloCombinePolicy::fan_in;
    values += options * count * sums;
  }
  return values;
}

// The arrival counters of the fold a one-device call makes in its path launch
// (kernels/monte_carlo/combine_kernel.cuh, fold_after_chunk) for `options` options of
// `count` chunk sums each: one a unit of every folding level (each level's units are
// the next level's values), and one an option for its last fan_in or fewer values.
constexpr std::int64_t monte_carlo_fold_arrivals(std::int64_t options, std::int64_t count) {
  std::int64_t arrivals = options;
  while (count > MonteCarloCombinePolicy::fan_in) {
    count = (count + MonteCarloCombinePolicy::fan_in - 1) / MonteCarloCombinePolicy::fan_in;
    arrivals += options * count;
  }
  return arrivals;
}

// Which one-device calls fold their chunk sums in their path launch (one launch)
// rather than in folding and finishing kernels after it (the same bits either way):
// those of at most max_paths paths in all. Measured on an H100 (2026-11-26, the
// bound then 2^24): at 2^20 float paths the one launch took the GPU time of the
// launch chain (15.4 against 15.3 us) and less host time (20.3 against 21.8 us), at
// 2^22 and 2^24 it lost 8% and 12% of the rate (157 against 171 Gpaths/s, 321
// against 365): the fold's code raises the path kernel's registers (float European:
// 56 against 47, 9 resident blocks an SM against 10), and the last warp of a unit
// folds it alone while the rest of the device waits. Below 2^20 paths a call is its
// fixed cost, which one launch cuts; above, its rate, which the chain keeps.
struct MonteCarloFoldPolicy {
  static constexpr std::int64_t max_paths = std::int64_t{1} << 20;
};

// Whether a one-device call of `options` options (>= 1) of `paths` paths each folds in
// its path launch (MonteCarloFoldPolicy), counted without overflow.
constexpr bool monte_carlo_folds_in_path_launch(std::int64_t options, std::int64_t paths) {
  return paths <= MonteCarloFoldPolicy::max_paths / options;
}

// A launch of warps: block_threads threads (block_threads / 32 chunks or options a block).
template <int BlockThreads>
struct MonteCarloWarpsPolicy {
  static constexpr int block_threads = BlockThreads;
  static constexpr int warps = BlockThreads / 32;
};

// The blocks of a launch of `count` warps (chunks, or options) under Policy.
template <class Policy>
constexpr std::int64_t monte_carlo_warp_blocks(std::int64_t count) {
  return (count + Policy::warps - 1) / Policy::warps;
}

// The path kernels (pseudo-random, with each asset's Greeks, quasi-random): one warp a chunk.
using MonteCarloPathPolicies = PolicyChain<ArchPolicy<900, MonteCarloWarpsPolicy<128>>>;

// Whether one path launch covers `options` options of `chunks` chunks each (>= 1):
// at most 2^31 - 1 blocks of the newest policy's warps, counted without overflow.
// load() refuses a batch past it, on either backend.
constexpr bool monte_carlo_path_launch_fits(std::int64_t options, std::int64_t chunks) {
  constexpr std::int64_t max_blocks = 0x7FFFFFFF;
  return options == 0 || chunks <= max_blocks * MonteCarloPathPolicies::newest::warps / options;
}

// The folding kernel of the launch chain (several devices, MPI ranks, callers' and
// quasi-random payoffs): one warp a unit of fan_in sums.
using MonteCarloFoldPolicies = PolicyChain<ArchPolicy<900, MonteCarloWarpsPolicy<128>>>;
// The finishing kernel: one warp an option.
using MonteCarloFinishPolicies = PolicyChain<ArchPolicy<900, MonteCarloWarpsPolicy<128>>>;
// load()'s zero-path references: one thread an option.
using MonteCarloReferencePolicies = PolicyChain<ArchPolicy<900, MonteCarloWarpsPolicy<128>>>;

}  // namespace cunum::detail
