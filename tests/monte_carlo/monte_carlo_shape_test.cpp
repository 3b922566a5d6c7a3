// How a Monte Carlo call is laid out (src/monte_carlo/monte_carlo_policy.hpp), on the
// CPU: the groups a thread of a chunk takes stay in the policy's bounds at awkward
// counts, a chunk is never empty, one large option reaches every multiprocessor of a
// 132-SM device, the path launch never asks for more blocks than a grid holds, and
// the folding levels a call allocates beside its chunk sums are what finish() writes,
// a one-launch call has one arrival counter for each unit it folds and each option,
// and only calls of at most 2^20 paths in all fold in their path launch.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cunum/monte_carlo.hpp"
#include "src/monte_carlo/monte_carlo_policy.hpp"

namespace {

using cunum::Backend;
using cunum::MonteCarloPricer;
using cunum::MonteCarloSettings;
using cunum::detail::MonteCarloChunkPolicy;
using cunum::detail::MonteCarloCombinePolicy;
using cunum::detail::monte_carlo_fold_arrivals;
using cunum::detail::monte_carlo_fold_values;
using cunum::detail::monte_carlo_folds_in_path_launch;
using cunum::detail::MonteCarloFoldPolicy;
using cunum::detail::monte_carlo_groups_per_thread;
using cunum::detail::monte_carlo_path_launch_fits;
using cunum::detail::monte_carlo_warp_blocks;
using PathPolicy = cunum::detail::MonteCarloPathPolicies::newest;

constexpr std::int64_t kLanes = MonteCarloChunkPolicy::chunk_threads;
// The multiprocessors of the H100 and H200 this library is tuned on.
constexpr std::int64_t kMultiprocessors = 132;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Group counts around every boundary of the rule: one group, part of a warp, the
// least chunk, the target, the most groups a thread, and the largest options (2^40
// float paths are 2^38 groups).
std::vector<std::int64_t> awkward_group_counts() {
  std::vector<std::int64_t> counts{1, 2, 3, 31, 32, 33, 63, 64, 65};
  for (int log2 = 9; log2 <= 38; ++log2) {
    const std::int64_t power = std::int64_t{1} << log2;
    counts.insert(counts.end(), {power - 1, power, power + 1, 3 * power / 2});
  }
  return counts;
}

TEST(MonteCarloShape, GroupsPerThreadStayInTheirBoundsAndNoChunkIsEmpty) {
  const std::int64_t most = MonteCarloChunkPolicy::max_groups_per_thread;
  for (const std::int64_t least : {std::int64_t{MonteCarloChunkPolicy::min_groups_per_thread}, most}) {
    std::int64_t previous = 0;
    for (const std::int64_t groups : awkward_group_counts()) {
      const std::int64_t per_thread = monte_carlo_groups_per_thread(groups, least);
      const std::int64_t per_chunk = kLanes * per_thread, chunks = ceil_div(groups, per_chunk);
      SCOPED_TRACE(::testing::Message() << groups << " groups, at least " << least << " a thread");
      EXPECT_GE(per_thread, 1);
      EXPECT_LE(per_thread, most);
      // At least `least` a thread unless the option has fewer groups than one such chunk.
      EXPECT_EQ(per_thread >= least, groups > kLanes * (least - 1));
      EXPECT_LT((chunks - 1) * per_chunk, groups) << "the last chunk is empty";
      // No more than the target unless each thread already takes the most.
      if (per_thread < most) {
        EXPECT_LE(chunks, MonteCarloChunkPolicy::target_chunks);
      }
      EXPECT_GE(per_thread, previous) << "a larger option takes fewer groups a thread";
      previous = per_thread;
    }
  }
}

// One European call over 2^26 paths, as the Python bench prices it: float (4 paths a
// group) and double (2). Every multiprocessor of a 132-SM device gets blocks of it.
TEST(MonteCarloShape, OneOptionOfTwoToThe26PathsReachesEveryMultiprocessor) {
  MonteCarloSettings s;
  s.paths = std::int64_t{1} << 26;
  const std::int64_t paths_per_chunk[] = {MonteCarloPricer<float>(s, Backend::cpu).chunk_paths(),
                                          MonteCarloPricer<double>(s, Backend::cpu).chunk_paths()};
  const std::int64_t paths_per_group[] = {4, 2};
  for (int precision = 0; precision < 2; ++precision) {
    SCOPED_TRACE(precision == 0 ? "float" : "double");
    const std::int64_t groups = s.paths / paths_per_group[precision];
    const std::int64_t per_thread = monte_carlo_groups_per_thread(groups, MonteCarloChunkPolicy::min_groups_per_thread);
    EXPECT_EQ(paths_per_chunk[precision], kLanes * per_thread * paths_per_group[precision]) << "chunk_paths()";
    const std::int64_t blocks = monte_carlo_warp_blocks<PathPolicy>(ceil_div(groups, kLanes * per_thread));
    EXPECT_GE(blocks, kMultiprocessors);
  }
}

TEST(MonteCarloShape, PathLaunchesStayWithinTheGridLimit) {
  constexpr std::int64_t max_blocks = 0x7FFFFFFF;
  constexpr std::int64_t warps = PathPolicy::warps;
  EXPECT_EQ(monte_carlo_warp_blocks<PathPolicy>(0), 0);
  EXPECT_EQ(monte_carlo_warp_blocks<PathPolicy>(1), 1);
  EXPECT_EQ(monte_carlo_warp_blocks<PathPolicy>(warps), 1);
  EXPECT_EQ(monte_carlo_warp_blocks<PathPolicy>(warps + 1), 2);
  // One option: up to max_blocks full blocks of chunks.
  EXPECT_TRUE(monte_carlo_path_launch_fits(1, max_blocks * warps));
  EXPECT_FALSE(monte_carlo_path_launch_fits(1, max_blocks * warps + 1));
  // 2^40 float paths make 2^27 chunks an option: 63 options fit, 64 do not (load()'s refusal).
  const std::int64_t chunks = std::int64_t{1} << 27;
  EXPECT_TRUE(monte_carlo_path_launch_fits(63, chunks));
  EXPECT_FALSE(monte_carlo_path_launch_fits(64, chunks));
  EXPECT_LE(monte_carlo_warp_blocks<PathPolicy>(63 * chunks), max_blocks);
  // As many options as stream ids allow, one chunk each; and an empty batch.
  EXPECT_TRUE(monte_carlo_path_launch_fits(std::int64_t{1} << 32, 1));
  EXPECT_TRUE(monte_carlo_path_launch_fits(0, std::int64_t{1} << 62));
  // Wherever it fits, the launch's blocks are within the limit.
  for (const std::int64_t options : {std::int64_t{1}, std::int64_t{3}, std::int64_t{8191}, std::int64_t{1} << 20}) {
    for (const std::int64_t groups : awkward_group_counts()) {
      const std::int64_t per_chunk =
          kLanes * monte_carlo_groups_per_thread(groups, MonteCarloChunkPolicy::min_groups_per_thread);
      const std::int64_t option_chunks = ceil_div(groups, per_chunk);
      if (monte_carlo_path_launch_fits(options, option_chunks)) {
        EXPECT_LE(monte_carlo_warp_blocks<PathPolicy>(options * option_chunks), max_blocks) << options << " x " << groups;
      }
    }
  }
}

// The levels finish() writes after the chunk sums, summed by hand.
TEST(MonteCarloShape, FoldingLevelsTakeWhatFinishWrites) {
  constexpr std::int64_t fan_in = MonteCarloCombinePolicy::fan_in;
  for (const int sums : {2, 9}) {
    for (const std::int64_t options : {std::int64_t{1}, std::int64_t{7}}) {
      EXPECT_EQ(monte_carlo_fold_values(options, 1, sums), 0);
      EXPECT_EQ(monte_carlo_fold_values(options, fan_in, sums), 0) << "one warp finishes fan_in sums";
      EXPECT_EQ(monte_carlo_fold_values(options, fan_in + 1, sums), options * 2 * sums);
      EXPECT_EQ(monte_carlo_fold_values(options, 8192, sums), options * 32 * sums);
      EXPECT_EQ(monte_carlo_fold_values(options, fan_in * fan_in + 1, sums), options * (fan_in + 1 + 2) * sums);
      // 2^27 chunks: levels of 2^19, 2^11 and 8 sums an option.
      EXPECT_EQ(monte_carlo_fold_values(options, std::int64_t{1} << 27, sums),
                options * ((std::int64_t{1} << 19) + (std::int64_t{1} << 11) + 8) * sums);
    }
  }
}

// The counters a one-launch call's fold counts arrivals on (fold_after_chunk): one
// for each unit of fan_in values on every level, whose values are the next level's,
// and one for each option's last level, counted by hand; and each level's units are
// as many as its values that monte_carlo_fold_values allocates.
TEST(MonteCarloShape, FoldArrivalsCountEveryUnitAndEveryOption) {
  constexpr std::int64_t fan_in = MonteCarloCombinePolicy::fan_in;
  for (const std::int64_t options : {std::int64_t{1}, std::int64_t{7}}) {
    EXPECT_EQ(monte_carlo_fold_arrivals(options, 1), options);
    EXPECT_EQ(monte_carlo_fold_arrivals(options, fan_in), options) << "one warp finishes fan_in sums";
    EXPECT_EQ(monte_carlo_fold_arrivals(options, fan_in + 1), options * (2 + 1));
    EXPECT_EQ(monte_carlo_fold_arrivals(options, 8192), options * (32 + 1));
    EXPECT_EQ(monte_carlo_fold_arrivals(options, fan_in * fan_in), options * (fan_in + 1));
    EXPECT_EQ(monte_carlo_fold_arrivals(options, fan_in * fan_in + 1), options * (fan_in + 1 + 2 + 1));
    EXPECT_EQ(monte_carlo_fold_arrivals(options, std::int64_t{1} << 27),
              options * ((std::int64_t{1} << 19) + (std::int64_t{1} << 11) + 8 + 1));
    for (const std::int64_t count : {std::int64_t{300}, std::int64_t{70000}, std::int64_t{1} << 27}) {
      EXPECT_EQ(monte_carlo_fold_arrivals(options, count) - options, monte_carlo_fold_values(options, count, 1))
          << count << " chunks: a counter for each folded value";
    }
  }
}

// A one-device call folds in its path launch while its options' paths together are
// at most MonteCarloFoldPolicy::max_paths (2^20): on both sides of the bound, for one
// option, several, and counts whose product would overflow.
TEST(MonteCarloShape, OnlyCallsOfAtMost2To20PathsFoldInTheirPathLaunch) {
  constexpr std::int64_t most = MonteCarloFoldPolicy::max_paths;
  static_assert(most == std::int64_t{1} << 20, "the bound the H100's measurements set (monte_carlo_policy.hpp)");
  EXPECT_TRUE(monte_carlo_folds_in_path_launch(1, 2));
  EXPECT_TRUE(monte_carlo_folds_in_path_launch(1, 1024));
  EXPECT_TRUE(monte_carlo_folds_in_path_launch(1, most));
  EXPECT_FALSE(monte_carlo_folds_in_path_launch(1, most + 2));
  EXPECT_TRUE(monte_carlo_folds_in_path_launch(2, most / 2));
  EXPECT_FALSE(monte_carlo_folds_in_path_launch(2, most / 2 + 2));
  EXPECT_TRUE(monte_carlo_folds_in_path_launch(1024, 1024));
  EXPECT_FALSE(monte_carlo_folds_in_path_launch(1025, 1024));
  EXPECT_TRUE(monte_carlo_folds_in_path_launch(3, 349524)) << "1,048,572 paths";
  EXPECT_FALSE(monte_carlo_folds_in_path_launch(3, 349526)) << "1,048,578 paths";
  EXPECT_TRUE(monte_carlo_folds_in_path_launch(most / 2, 2));
  EXPECT_FALSE(monte_carlo_folds_in_path_launch(most, 2));
  EXPECT_FALSE(monte_carlo_folds_in_path_launch(1, std::int64_t{1} << 40));
  EXPECT_FALSE(monte_carlo_folds_in_path_launch(std::int64_t{1} << 40, std::int64_t{1} << 40));
  for (std::int64_t options = 1; options <= 64; ++options) {
    for (const std::int64_t paths : {most / options - 1, most / options, most / options + 1}) {
      EXPECT_EQ(monte_carlo_folds_in_path_launch(options, paths), options * paths <= most)
          << options << " options of " << paths << " paths";
    }
  }
}

}  // namespace
