// The random-access model against exact small cases (Stirling numbers in long
// double), against Monte Carlo simulations of the same random process (fresh seeds,
// bounds of 5 standard errors), at the extremes of its range, and every argument check.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cunum/access_model.hpp"
#include "test_support.hpp"

namespace {

using cunum::CacheFillChain;
using cunum::ErrorCode;

// F(D, m, n) = m!/(m-n)! S(D, n) / m^D, Stirling numbers by their recurrence.
long double exact_f(int d, int m, int n) {
  std::vector<std::vector<long double>> stirling(static_cast<std::size_t>(d) + 1,
                                                 std::vector<long double>(static_cast<std::size_t>(d) + 1, 0));
  stirling[0][0] = 1;
  for (int i = 1; i <= d; ++i)
    for (int k = 1; k <= i; ++k) stirling[i][k] = k * stirling[i - 1][k] + stirling[i - 1][k - 1];
  if (n > m) return 0;
  long double falling = 1;
  for (int k = 0; k < n; ++k) falling *= static_cast<long double>(m - k);
  return falling * stirling[d][n] / std::pow(static_cast<long double>(m), d);
}

TEST(SegmentCount, SmallCasesAreTheStirlingFormula) {
  for (const int d : {1, 2, 3, 7, 16, 20}) {
    for (const int m : {1, 2, 3, 5, 17, 128}) {
      const std::vector<double> f = cunum::segment_count_distribution(d, m);
      ASSERT_EQ(f.size(), static_cast<std::size_t>(d) + 1);
      for (int n = 0; n <= d; ++n) {
        EXPECT_NEAR(f[n], static_cast<double>(exact_f(d, m, n)), 1e-15) << "D " << d << " m " << m << " n " << n;
      }
    }
  }
  EXPECT_DOUBLE_EQ(cunum::segment_count_distribution(3, 2)[1], 0.25);  // both picks of 3 in one of 2: 2/8
}

TEST(SegmentCount, MomentsMatchTheDistribution) {
  for (const int d : {1, 16, 32, 1024}) {
    for (const double m : {1.0, 2.0, 54.0, 4096.0, 1e6, std::ldexp(1.0, 40)}) {
      const std::vector<double> f = cunum::segment_count_distribution(d, m);
      double total = 0, mean = 0, variance = 0;
      for (std::size_t n = 0; n < f.size(); ++n) {
        total += f[n];
        mean += static_cast<double>(n) * f[n];
      }
      for (std::size_t n = 0; n < f.size(); ++n) variance += (static_cast<double>(n) - mean) * (static_cast<double>(n) - mean) * f[n];
      const auto moments = cunum::segment_count_moments(d, m);
      EXPECT_NEAR(total, 1.0, 1e-12) << "D " << d << " m " << m;
      EXPECT_NEAR(moments.mean, mean, 1e-10 * std::max(1.0, mean)) << "D " << d << " m " << m;
      EXPECT_NEAR(moments.variance, variance, 1e-9 * variance + 1e-15) << "D " << d << " m " << m;
    }
  }
  // m = 2^40, D = 1024: nearly every pick distinct; the collisions are nearly Poisson
  // with mean D(D-1)/(2m), so mean = D - D(D-1)/(2m) and variance = D(D-1)/(2m), to
  // relative O(D/m).
  const double m40 = std::ldexp(1.0, 40);
  const auto far = cunum::segment_count_moments(1024, m40);
  EXPECT_NEAR(1024.0 - far.mean, 1024.0 * 1023.0 / 2.0 / m40, 1e-12);
  EXPECT_NEAR(far.variance, 1024.0 * 1023.0 / 2.0 / m40, 1e-6 * far.variance);
}

TEST(SegmentCount, MatchesASimulationOfTheProcess) {
  std::mt19937_64 engine(cunum::testing::fresh_seed());
  for (const auto& [d, m] : std::vector<std::pair<int, int>>{{32, 54}, {32, 4}, {16, 1000}, {8, 9}}) {
    const std::vector<double> f = cunum::segment_count_distribution(d, m);
    constexpr int trials = 200000;
    std::vector<int> counts(static_cast<std::size_t>(d) + 1, 0);
    std::uniform_int_distribution<int> pick(0, m - 1);
    std::vector<char> touched(static_cast<std::size_t>(m));
    for (int trial = 0; trial < trials; ++trial) {
      std::fill(touched.begin(), touched.end(), 0);
      int distinct = 0;
      for (int t = 0; t < d; ++t) {
        char& seen = touched[static_cast<std::size_t>(pick(engine))];
        distinct += seen == 0;
        seen = 1;
      }
      ++counts[static_cast<std::size_t>(distinct)];
    }
    for (int n = 0; n <= d; ++n) {
      const double p = f[n];
      const double observed = static_cast<double>(counts[n]) / trials;
      const double sigma = std::sqrt(std::max(p * (1 - p), 1.0 / trials) / trials);
      EXPECT_NEAR(observed, p, 5 * sigma) << "D " << d << " m " << m << " n " << n;
    }
  }
}

// Every assignment of D threads to m segments, counted by the segments they touch:
// F(D, m, n) by enumeration, independent of the recurrence and of the Stirling formula.
std::vector<double> enumerated_f(int d, int m) {
  std::vector<long long> counts(static_cast<std::size_t>(d) + 1, 0);
  std::vector<int> pick(static_cast<std::size_t>(d), 0);
  long long total = 0;
  while (true) {
    std::vector<char> touched(static_cast<std::size_t>(m), 0);
    int distinct = 0;
    for (const int segment : pick) {
      distinct += touched[static_cast<std::size_t>(segment)] == 0;
      touched[static_cast<std::size_t>(segment)] = 1;
    }
    ++counts[static_cast<std::size_t>(distinct)];
    ++total;
    int k = 0;  // next assignment, odometer order
    while (k < d && ++pick[static_cast<std::size_t>(k)] == m) pick[static_cast<std::size_t>(k++)] = 0;
    if (k == d) break;
  }
  std::vector<double> f(counts.size());
  for (std::size_t n = 0; n < f.size(); ++n) f[n] = static_cast<double>(counts[n]) / static_cast<double>(total);
  return f;
}

TEST(SegmentCount, EqualsAnEnumerationOfEveryAssignment) {
  for (int d = 1; d <= 6; ++d) {
    for (int m = 1; m <= 6; ++m) {
      const std::vector<double> f = cunum::segment_count_distribution(d, m);
      const std::vector<double> expected = enumerated_f(d, m);
      ASSERT_EQ(f.size(), expected.size());
      for (std::size_t n = 0; n < f.size(); ++n) {
        EXPECT_NEAR(f[n], expected[n], 1e-15) << "D " << d << " m " << m << " n " << n;
      }
    }
  }
}

// Over a grid of arguments, from one thread to 1024 and one segment to 2^53: a
// distribution (entries in [0, 1] summing to 1) on its support, n = 1..min(D, m).
TEST(SegmentCount, IsADistributionOnItsSupportForEveryValidArgument) {
  for (const int d : {1, 2, 3, 4, 5, 7, 16, 31, 32, 33, 100, 1024}) {
    for (const double m : {1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 16.0, 31.0, 32.0, 33.0, 100.0, 1000.0, 1025.0,
                           std::ldexp(1.0, 20), std::ldexp(1.0, 40), std::ldexp(1.0, 53)}) {
      const std::vector<double> f = cunum::segment_count_distribution(d, m);
      ASSERT_EQ(f.size(), static_cast<std::size_t>(d) + 1);
      double total = 0;
      for (int n = 0; n <= d; ++n) {
        EXPECT_GE(f[n], 0.0) << "D " << d << " m " << m << " n " << n;
        EXPECT_LE(f[n], 1.0) << "D " << d << " m " << m << " n " << n;
        if (n == 0 || n > m) {
          EXPECT_EQ(f[n], 0.0) << "outside the support: D " << d << " m " << m << " n " << n;
        }
        total += f[n];
      }
      EXPECT_NEAR(total, 1.0, 1e-12) << "D " << d << " m " << m;
    }
  }
}

// m counts segments: between whole numbers there is no such process (the formula's
// entries turn negative), so such an m is refused by name, never a wrong answer
// (segment_count_distribution(4, 2.5) summed to 0.88 with mass at n = 3).
TEST(SegmentCount, ASegmentCountThatIsNotAWholeNumberIsRefused) {
  EXPECT_CUNUM_ERROR(cunum::segment_count_distribution(4, 2.5), ErrorCode::invalid_argument,
                     "cunum::segment_count_distribution: argument 'segments' must be a whole number >= 1");
  EXPECT_CUNUM_ERROR(cunum::segment_count_distribution(4, 2.5), ErrorCode::invalid_argument, "got 2.5");
  for (const double m : {1.5, 2.5, 3.7, 31.9, 1000.5, 1.0 + std::ldexp(1.0, -30), std::nextafter(2.0, 3.0),
                         std::ldexp(1.0, 51) + 0.5}) {
    for (const int d : {1, 4, 32}) {
      SCOPED_TRACE(::testing::Message() << "D " << d << " m " << m);
      EXPECT_CUNUM_ERROR(cunum::segment_count_distribution(d, m), ErrorCode::invalid_argument, "'segments'");
      EXPECT_CUNUM_ERROR(cunum::segment_count_moments(d, m), ErrorCode::invalid_argument, "'segments'");
      EXPECT_CUNUM_ERROR(CacheFillChain(d, m, 10), ErrorCode::invalid_argument, "'segments'");
      EXPECT_CUNUM_ERROR(cunum::mean_fill_hit_rate(d, m, 10, 5), ErrorCode::invalid_argument, "'segments'");
    }
  }
  // The whole numbers beside them are served, and the chain's W(t) are distributions too.
  for (const double m : {1.0, 2.0, 3.0, 4.0, 31.0, 32.0, 1000.0}) {
    for (const int d : {1, 4, 32}) {
      const CacheFillChain chain(d, m, 10);
      for (int t = 0; t <= 6; ++t) {
        double total = 0;
        for (const double p : chain.distribution(t)) {
          EXPECT_GE(p, 0.0);
          total += p;
        }
        EXPECT_NEAR(total, 1.0, 1e-12) << "D " << d << " m " << m << " t " << t;
      }
    }
  }
}

// The cache-fill process: requests of D uniform picks among m segments into a cache of C
// segments that keeps every segment until full, then C of them; the state is the
// number cached, and a request's hit fraction is its distinct segments found cached.
struct FillSimulation {
  std::vector<double> mean_cached;  // before request t
  std::vector<double> hit_fraction;
};

FillSimulation simulate_fill(int d, int m, int c, int steps, int trials, std::mt19937_64& engine) {
  FillSimulation result{std::vector<double>(static_cast<std::size_t>(steps) + 1, 0.0),
                        std::vector<double>(static_cast<std::size_t>(steps), 0.0)};
  std::uniform_int_distribution<int> pick(0, m - 1);
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<char> cached(static_cast<std::size_t>(m), 0);
    std::vector<int> cached_list;
    for (int t = 0; t < steps; ++t) {
      result.mean_cached[static_cast<std::size_t>(t)] += static_cast<double>(cached_list.size());
      std::vector<int> request;
      for (int k = 0; k < d; ++k) request.push_back(pick(engine));
      std::sort(request.begin(), request.end());
      request.erase(std::unique(request.begin(), request.end()), request.end());
      int hits = 0;
      for (const int s : request) hits += cached[static_cast<std::size_t>(s)];
      result.hit_fraction[static_cast<std::size_t>(t)] += static_cast<double>(hits) / static_cast<double>(request.size());
      for (const int s : request) {
        if (cached[static_cast<std::size_t>(s)]) continue;
        if (static_cast<int>(cached_list.size()) == c) {  // full: a random victim leaves
          std::uniform_int_distribution<std::size_t> victim(0, cached_list.size() - 1);
          const std::size_t v = victim(engine);
          cached[static_cast<std::size_t>(cached_list[v])] = 0;
          cached_list[v] = cached_list.back();
          cached_list.pop_back();
        }
        cached[static_cast<std::size_t>(s)] = 1;
        cached_list.push_back(s);
      }
    }
    result.mean_cached[static_cast<std::size_t>(steps)] += static_cast<double>(cached_list.size());
  }
  for (double& v : result.mean_cached) v /= trials;
  for (double& v : result.hit_fraction) v /= trials;
  return result;
}

TEST(CacheFillChain, MatchesASimulationOfTheFill) {
  std::mt19937_64 engine(cunum::testing::fresh_seed() + 1);
  struct Case {
    int d, m, c, steps;
  };
  for (const Case& k : {Case{32, 16, 16, 6}, Case{32, 54, 54, 12}, Case{16, 100, 40, 20}, Case{32, 256, 1000, 40}}) {
    const CacheFillChain chain(k.d, k.m, k.c);
    EXPECT_EQ(chain.saturation(), std::min(k.m, k.c));
    constexpr int trials = 20000;
    const FillSimulation simulation = simulate_fill(k.d, k.m, k.c, k.steps, trials, engine);
    for (int t = 0; t <= k.steps; ++t) {
      const std::vector<double> w = chain.distribution(t);
      double total = 0;
      for (const double p : w) total += p;
      EXPECT_NEAR(total, 1.0, 1e-12);
      // E[i] against the simulated mean: the state is at most M, its spread at most M/2.
      const double bound = 5.0 * (chain.saturation() / 2.0) / std::sqrt(trials);
      EXPECT_NEAR(chain.expected_cached(t), simulation.mean_cached[static_cast<std::size_t>(t)], bound)
          << "D " << k.d << " m " << k.m << " C " << k.c << " t " << t;
      if (t < k.steps) {
        EXPECT_NEAR(chain.hit_rate(t), simulation.hit_fraction[static_cast<std::size_t>(t)], 5.0 * 0.5 / std::sqrt(trials))
            << "hit rate, D " << k.d << " m " << k.m << " C " << k.c << " t " << t;
      }
    }
    double mean = 0;
    for (int t = 0; t < k.steps; ++t) mean += chain.hit_rate(t);
    EXPECT_NEAR(chain.mean_hit_rate(k.steps), mean / k.steps, 1e-12);
  }
  // The paper's example (M = 16, D = 32): from empty, all 16 cached within a few requests.
  const CacheFillChain example(32, 16, 16);
  EXPECT_DOUBLE_EQ(example.distribution(0)[0], 1.0);
  EXPECT_GT(example.distribution(4)[16], 0.99);
  // Past saturation with C < m the hit rate is C/m.
  EXPECT_NEAR(CacheFillChain(32, 100, 40).hit_rate(1000), 0.4, 1e-12);
}

TEST(CacheFillChain, ClosedFormMeanHitRate) {
  // Exact where the cache holds the whole table; the chain's own mean is the reference.
  for (const auto& [d, m] : std::vector<std::pair<int, int>>{{32, 1}, {32, 16}, {32, 54}, {8, 300}}) {
    const CacheFillChain chain(d, m, m);
    for (const int requests : {1, 2, 5, 40, 1000}) {
      EXPECT_NEAR(cunum::mean_fill_hit_rate(d, m, m, requests), chain.mean_hit_rate(requests), 1e-12)
          << "D " << d << " m " << m << " requests " << requests;
    }
  }
  // A cache smaller than the table: min(E[i_t], C) for E[min(i_t, C)], close to the chain.
  const CacheFillChain small(16, 100, 40);
  for (const int requests : {3, 10, 100, 1000}) {
    EXPECT_NEAR(cunum::mean_fill_hit_rate(16, 100, 40, requests), small.mean_hit_rate(requests), 0.01)
        << "requests " << requests;
  }
  EXPECT_CUNUM_ERROR(cunum::mean_fill_hit_rate(32, 10, 10, 0.5), ErrorCode::invalid_argument, "requests");
}

TEST(GatherEstimate, FollowsTheModel) {
  const cunum::GpuMemoryParameters parameters;
  cunum::GatherQuery query;
  query.table_elements = 8;  // 32 bytes: one sector, always cached after the first touch
  query.gathers = 1 << 20;
  const auto tiny = cunum::estimate_gather(query, parameters);
  EXPECT_DOUBLE_EQ(tiny.sectors_per_request, 1.0);
  EXPECT_GT(tiny.l1_hit_rate, 0.99);
  query.table_elements = 1 << 30;  // 4 GiB: every sector a miss
  const auto huge = cunum::estimate_gather(query, parameters);
  EXPECT_NEAR(huge.sectors_per_request, 32.0, 1e-4);
  EXPECT_LT(huge.l1_hit_rate, 1e-3);
  EXPECT_LT(huge.l2_hit_rate, 0.02);
  const double expected_dram = huge.sectors_per_request * parameters.dram_fetch_bytes * ((1 << 20) / 32) *
                               (1 - huge.l1_hit_rate) * (1 - huge.l2_hit_rate);
  EXPECT_NEAR(huge.dram_bytes, expected_dram, 1e-9 * expected_dram);
  EXPECT_GE(huge.warps_to_hide_latency, 1);
  EXPECT_GE(huge.blocks, parameters.multiprocessors);
  EXPECT_GT(huge.seconds, tiny.seconds);
}

// Without a device, gpu_memory_parameters() does not throw: every field is the
// documented default, and estimate_gather runs on them.
TEST(AccessModel, WithoutADeviceGpuMemoryParametersAreTheDefaults) {
  if (cunum::device_count() > 0) {
    GTEST_SKIP() << "SKIPPED: a CUDA device is present; this test covers machines without one (CI)";
  }
  cunum::GpuMemoryParameters read;
  ASSERT_NO_THROW(read = cunum::gpu_memory_parameters());
  const cunum::GpuMemoryParameters defaults;
  EXPECT_EQ(read.multiprocessors, defaults.multiprocessors);
  EXPECT_EQ(read.clock_hz, defaults.clock_hz);
  EXPECT_EQ(read.sector_bytes, defaults.sector_bytes);
  EXPECT_EQ(read.line_bytes, defaults.line_bytes);
  EXPECT_EQ(read.dram_fetch_bytes, defaults.dram_fetch_bytes);
  EXPECT_EQ(read.l1_bytes, defaults.l1_bytes);
  EXPECT_EQ(read.l1_bytes_per_cycle, defaults.l1_bytes_per_cycle);
  EXPECT_EQ(read.l2_bytes, defaults.l2_bytes);
  EXPECT_EQ(read.dram_bytes_per_second, defaults.dram_bytes_per_second);
  EXPECT_EQ(read.l2_bytes_per_second, defaults.l2_bytes_per_second);
  EXPECT_EQ(read.l1_latency_cycles, defaults.l1_latency_cycles);
  EXPECT_EQ(read.l2_latency_cycles, defaults.l2_latency_cycles);
  EXPECT_EQ(read.dram_latency_cycles, defaults.dram_latency_cycles);
  EXPECT_EQ(read.max_warps_per_multiprocessor, defaults.max_warps_per_multiprocessor);
  cunum::GatherQuery query;
  query.table_elements = 1 << 18;
  query.gathers = 1 << 20;
  EXPECT_GT(cunum::estimate_gather(query, read).seconds, 0.0);
}

TEST(AccessModel, BadArgumentsAreRefusedByName) {
  EXPECT_CUNUM_ERROR(cunum::segment_count_distribution(0, 10), ErrorCode::invalid_argument, "threads");
  EXPECT_CUNUM_ERROR(cunum::segment_count_distribution(1025, 10), ErrorCode::invalid_argument, "threads");
  EXPECT_CUNUM_ERROR(cunum::segment_count_moments(32, 0.5), ErrorCode::invalid_argument, "segments");
  EXPECT_CUNUM_ERROR(cunum::segment_count_moments(32, std::numeric_limits<double>::quiet_NaN()),
                     ErrorCode::invalid_argument, "segments");
  EXPECT_CUNUM_ERROR(CacheFillChain(32, 100, 0), ErrorCode::invalid_argument, "capacity");
  EXPECT_CUNUM_ERROR(CacheFillChain(32, 1e9, 1e9), ErrorCode::invalid_argument, "segments");
  EXPECT_CUNUM_ERROR(CacheFillChain(32, 10, 10).distribution(-1), ErrorCode::invalid_argument,
                     "cunum::CacheFillChain::distribution: argument 'steps'");
  EXPECT_CUNUM_ERROR(CacheFillChain(32, 10, 10).hit_rate(-1), ErrorCode::invalid_argument,
                     "cunum::CacheFillChain::hit_rate: argument 'steps'");
  EXPECT_CUNUM_ERROR(CacheFillChain(32, 10, 10).expected_cached(-1), ErrorCode::invalid_argument,
                     "cunum::CacheFillChain::expected_cached: argument 'steps'");
  EXPECT_CUNUM_ERROR(CacheFillChain(32, 10, 10).mean_hit_rate(0), ErrorCode::invalid_argument, "requests");
  cunum::GatherQuery query;
  query.table_elements = 100;
  query.gathers = 100;
  cunum::GpuMemoryParameters parameters;
  // Each field of the parameters is named, not just 'parameters'.
  using Parameters = cunum::GpuMemoryParameters;
  const std::vector<std::pair<double Parameters::*, const char*>> sizes = {
      {&Parameters::clock_hz, "parameters.clock_hz"},
      {&Parameters::sector_bytes, "parameters.sector_bytes"},
      {&Parameters::line_bytes, "parameters.line_bytes"},
      {&Parameters::dram_fetch_bytes, "parameters.dram_fetch_bytes"},
      {&Parameters::l1_bytes, "parameters.l1_bytes"},
      {&Parameters::l1_bytes_per_cycle, "parameters.l1_bytes_per_cycle"},
      {&Parameters::l2_bytes, "parameters.l2_bytes"},
      {&Parameters::dram_bytes_per_second, "parameters.dram_bytes_per_second"},
      {&Parameters::l1_latency_cycles, "parameters.l1_latency_cycles"},
      {&Parameters::l2_latency_cycles, "parameters.l2_latency_cycles"},
      {&Parameters::dram_latency_cycles, "parameters.dram_latency_cycles"}};
  for (const auto& [field, name] : sizes) {
    for (const double bad : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
      parameters = {};
      parameters.*field = bad;
      EXPECT_CUNUM_ERROR(cunum::estimate_gather(query, parameters), ErrorCode::invalid_argument,
                         std::string("cunum::estimate_gather: argument '") + name + "' must be finite and > 0");
    }
  }
  parameters = {};
  parameters.l2_bytes_per_second = -1;
  EXPECT_CUNUM_ERROR(cunum::estimate_gather(query, parameters), ErrorCode::invalid_argument,
                     "'parameters.l2_bytes_per_second'");
  parameters = {};
  parameters.multiprocessors = 0;
  EXPECT_CUNUM_ERROR(cunum::estimate_gather(query, parameters), ErrorCode::invalid_argument,
                     "'parameters.multiprocessors'");
  parameters = {};
  parameters.max_warps_per_multiprocessor = 0;
  EXPECT_CUNUM_ERROR(cunum::estimate_gather(query, parameters), ErrorCode::invalid_argument,
                     "'parameters.max_warps_per_multiprocessor'");
  parameters = {};
  parameters.l2_bytes_per_second = 0;  // the documented default: accepted
  EXPECT_NO_THROW(cunum::estimate_gather(query, parameters));
  query.element_bytes = 3;
  EXPECT_CUNUM_ERROR(cunum::estimate_gather(query, parameters), ErrorCode::invalid_argument, "query.element_bytes");
  query.element_bytes = 4;
  query.active_threads = 33;
  EXPECT_CUNUM_ERROR(cunum::estimate_gather(query, parameters), ErrorCode::invalid_argument, "query.active_threads");
  query.active_threads = 32;
  query.table_elements = 0;
  EXPECT_CUNUM_ERROR(cunum::estimate_gather(query, parameters), ErrorCode::invalid_argument, "query.table_elements");
}

}  // namespace

// A moved-from chain holds no transition table: every member refuses it by name (it
// read past the empty table before), and assigning a chain to it makes it whole again.
TEST(CacheFillChain, AMovedFromChainIsRefusedByEveryMember) {
  CacheFillChain chain(32, 64, 16);
  const std::vector<double> expected = chain.distribution(3);
  const CacheFillChain moved_to = std::move(chain);
  EXPECT_EQ(moved_to.distribution(3), expected);
  constexpr const char* moved = "argument 'this' is a moved-from CacheFillChain";
  EXPECT_CUNUM_ERROR(chain.distribution(3), ErrorCode::invalid_argument,
                     std::string("cunum::CacheFillChain::distribution: ") + moved);
  EXPECT_CUNUM_ERROR(chain.expected_cached(3), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(chain.hit_rate(3), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(chain.mean_hit_rate(3), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(chain.saturation(), ErrorCode::invalid_argument, moved);
  CacheFillChain assigned(8, 8, 8);
  assigned = std::move(chain);  // moving a moved-from chain moves nothing
  EXPECT_CUNUM_ERROR(assigned.distribution(1), ErrorCode::invalid_argument, moved);
  chain = moved_to;
  EXPECT_EQ(chain.distribution(3), expected);
  EXPECT_EQ(chain.saturation(), 16);
}
