// Brownian bridge on the CPU backend: order helper, execution-strategy compiler
// (equivalence and stack minimality by brute force, through the internal
// compile_bridge), the public construction_steps() inspector, compiled strategy
// against the naive reference, statistics, and input validation.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <string>

#include "src/brownian_bridge/bridge_compiler.hpp"
#include "bridge_reference.hpp"
#include "cunum/brownian_bridge.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::BridgeLayout;
using cunum::BridgeOrder;
using cunum::BrownianBridge;
using cunum::CovarianceForm;
using cunum::ErrorCode;
using cunum::testing::BridgeSetup;
using cunum::testing::fresh_seed;

std::vector<double> unit_grid(std::size_t n) {
  std::vector<double> t(n);
  for (std::size_t i = 0; i < n; ++i) t[i] = static_cast<double>(i + 1);
  return t;
}

std::vector<std::uint32_t> time_indices(const std::vector<double>& order) {
  std::vector<double> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::uint32_t> result;
  for (double t : order) {
    result.push_back(static_cast<std::uint32_t>(
        std::lower_bound(sorted.begin(), sorted.end(), t) - sorted.begin() + 1));
  }
  return result;
}

BrownianBridge make_bridge(const BridgeSetup& s, CovarianceForm form = CovarianceForm::factor) {
  return BrownianBridge(s.t0, s.T, s.order, s.d, s.factor, form, s.start, s.end, Backend::cpu);
}

// ---------------------------------------------------------------------------
TEST(BridgeOrder, BisectionMatchesPublishedExample) {
  // du Toit's example (3), the reference work: T t6 t3 t9 t1 t4 t7 t11 t2 t5 t8 t10 t12.
  const auto order = cunum::make_bridge_order(unit_grid(12), BridgeOrder::bisection);
  EXPECT_EQ(order, (std::vector<double>{6, 3, 9, 1, 4, 7, 11, 2, 5, 8, 10, 12}));
}

TEST(BridgeOrder, AscendingAndImportantFirst) {
  EXPECT_EQ(cunum::make_bridge_order(unit_grid(5), BridgeOrder::ascending), unit_grid(5));
  const auto order = cunum::make_bridge_order(unit_grid(12), BridgeOrder::important_first, {9, 2});
  ASSERT_EQ(order.size(), 12u);
  EXPECT_EQ(order[0], 9);
  EXPECT_EQ(order[1], 2);
  // Gaps (0,2), (2,9), (9,13) bisected level by level.
  EXPECT_EQ(order, (std::vector<double>{9, 2, 1, 5, 11, 3, 7, 10, 12, 4, 6, 8}));
  std::vector<double> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, unit_grid(12));
}

TEST(BridgeOrder, EveryOrderIsAPermutation) {
  for (std::size_t n : {1, 2, 3, 7, 100, 1023, 1024}) {
    for (auto kind : {BridgeOrder::bisection, BridgeOrder::ascending}) {
      auto order = cunum::make_bridge_order(unit_grid(n), kind);
      std::sort(order.begin(), order.end());
      EXPECT_EQ(order, unit_grid(n)) << n;
    }
  }
}

TEST(BridgeOrder, RejectsBadInput) {
  EXPECT_CUNUM_ERROR(cunum::make_bridge_order({}, BridgeOrder::bisection), ErrorCode::invalid_argument, "times");
  EXPECT_CUNUM_ERROR(cunum::make_bridge_order({1, 1}, BridgeOrder::bisection), ErrorCode::invalid_argument, "times");
  EXPECT_CUNUM_ERROR(cunum::make_bridge_order({2, 1}, BridgeOrder::ascending), ErrorCode::invalid_argument, "times");
  EXPECT_CUNUM_ERROR(cunum::make_bridge_order({1, NAN}, BridgeOrder::ascending), ErrorCode::invalid_argument, "times");
  EXPECT_CUNUM_ERROR(cunum::make_bridge_order({1, 2}, BridgeOrder::important_first, {3}),
                     ErrorCode::invalid_argument, "important_times");
  EXPECT_CUNUM_ERROR(cunum::make_bridge_order({1, 2}, BridgeOrder::important_first, {1, 1}),
                     ErrorCode::invalid_argument, "important_times");
}

// ---------------------------------------------------------------------------
// The compiled order gives every point the caller's neighbours and Z.
void expect_equivalent(const std::vector<std::uint32_t>& order) {
  const std::size_t n = order.size();
  std::vector<double> times(n + 2);
  std::iota(times.begin(), times.end(), 0.0);
  const auto compiled = cunum::detail::compile_bridge(times, order, false);
  const auto caller = cunum::detail::bridge_neighbours(order);
  std::vector<int> seen(n + 2, 0);
  ASSERT_EQ(compiled.steps.size(), n);
  for (const auto& step : compiled.steps) {
    const std::uint32_t v = step.output_index;
    ASSERT_GE(v, 1u);
    ASSERT_LE(v, n);
    ++seen[v];
    const std::size_t k = static_cast<std::size_t>(std::find(order.begin(), order.end(), v) - order.begin());
    EXPECT_EQ(step.z_index, k + 1);
    EXPECT_EQ(step.left_time_index, caller[k].left);
    EXPECT_EQ(step.right_time_index, caller[k].right);
    EXPECT_LT(step.left_slot, compiled.stack_size);
    EXPECT_LT(step.right_slot, compiled.stack_size);
  }
  for (std::size_t v = 1; v <= n; ++v) EXPECT_EQ(seen[v], 1);
  std::vector<std::uint32_t> compiled_order;
  for (const auto& step : compiled.steps) compiled_order.push_back(step.output_index);
  EXPECT_EQ(cunum::detail::bridge_stack_size(compiled_order), compiled.stack_size);
}

TEST(BridgeCompiler, StackIsMinimalOverAllEquivalentOrders) {
  // Every permutation of 1..N, grouped by neighbour signature (the equivalence
  // class); the compiled stack must equal the class minimum.
  for (std::uint32_t n = 1; n <= 8; ++n) {
    std::vector<std::uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 1u);
    std::map<std::vector<std::uint32_t>, std::uint32_t> class_minimum;
    std::vector<std::vector<std::uint32_t>> all;
    auto signature = [](const std::vector<std::uint32_t>& order) {
      const auto nb = cunum::detail::bridge_neighbours(order);
      std::vector<std::uint32_t> key(2 * (order.size() + 2), 0);
      for (std::size_t k = 0; k < order.size(); ++k) {
        key[2 * order[k]] = nb[k].left;
        key[2 * order[k] + 1] = nb[k].right;
      }
      return key;
    };
    do {
      const auto key = signature(perm);
      const std::uint32_t stack = cunum::detail::bridge_stack_size(perm);
      auto [it, inserted] = class_minimum.emplace(key, stack);
      if (!inserted) it->second = std::min(it->second, stack);
      all.push_back(perm);
    } while (std::next_permutation(perm.begin(), perm.end()));
    std::vector<double> times(n + 2);
    std::iota(times.begin(), times.end(), 0.0);
    for (const auto& order : all) {
      const auto compiled = cunum::detail::compile_bridge(times, order, false);
      std::string text;
      for (auto v : order) text += std::to_string(v) + " ";
      ASSERT_EQ(compiled.stack_size, class_minimum.at(signature(order))) << "caller order " << text;
    }
    if (n <= 5) {
      for (const auto& order : all) expect_equivalent(order);
    }
  }
}

TEST(BridgeCompiler, EquivalentForLargeOrders) {
  std::mt19937_64 engine(fresh_seed() ^ 11);
  for (std::size_t n : {8, 63, 64, 65, 1000, 4096}) {
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 1u);
    std::shuffle(order.begin(), order.end(), engine);
    expect_equivalent(order);
    expect_equivalent(time_indices(cunum::make_bridge_order(unit_grid(n), BridgeOrder::bisection)));
  }
}

TEST(BridgeCompiler, StackSizesOfStandardOrders) {
  for (int k = 1; k <= 16; ++k) {
    const std::size_t n = (std::size_t{1} << k) - 1;
    BridgeSetup s{0, static_cast<double>(n + 1), cunum::make_bridge_order(unit_grid(n), BridgeOrder::bisection),
                  1, {1.0}, {0.0}, {}};
    EXPECT_EQ(make_bridge(s).stack_size(), static_cast<std::uint32_t>(k + 1)) << "bisection N=" << n;
    s.order = cunum::make_bridge_order(unit_grid(n), BridgeOrder::ascending);
    EXPECT_EQ(make_bridge(s).stack_size(), 2u) << "ascending N=" << n;
    std::reverse(s.order.begin(), s.order.end());
    EXPECT_EQ(make_bridge(s).stack_size(), 2u) << "descending N=" << n;
  }
}

TEST(BridgeCompiler, ReuseFlagsNameTheRightPoints) {
  const auto order = time_indices(cunum::make_bridge_order(unit_grid(100), BridgeOrder::bisection));
  std::vector<double> times(102);
  std::iota(times.begin(), times.end(), 0.0);
  const auto compiled = cunum::detail::compile_bridge(times, order, false);
  int reused = 0;
  for (std::size_t k = 1; k < compiled.steps.size(); ++k) {
    const auto& prev = compiled.steps[k - 1];
    const auto& step = compiled.steps[k];
    auto point = [&](cunum::detail::BridgeReuse r) {
      switch (r) {
        case cunum::detail::BridgeReuse::previous_left: return prev.left_time_index;
        case cunum::detail::BridgeReuse::previous_right: return prev.right_time_index;
        case cunum::detail::BridgeReuse::previous_point: return prev.output_index;
        default: return 0xFFFFFFFFu;
      }
    };
    if (step.left_reuse != cunum::detail::BridgeReuse::stack) {
      EXPECT_EQ(point(step.left_reuse), step.left_time_index);
      ++reused;
    }
    if (step.right_reuse != cunum::detail::BridgeReuse::stack) {
      EXPECT_EQ(point(step.right_reuse), step.right_time_index);
      ++reused;
    }
  }
  EXPECT_GT(reused, 100);  // depth-first orders reuse most neighbours
}

// ---------------------------------------------------------------------------
// The public inspector: running its steps on a stack of stack_size() slots gives
// generate_paths' numbers, and each step's neighbours are the nearest points built
// before it.
TEST(BridgeInspector, ConstructionStepsReplayTheBridge) {
  std::mt19937_64 engine(fresh_seed() ^ 31);
  const int d = 2;
  for (bool fixed : {false, true}) {
    for (std::size_t n : {1, 7, 64, 200}) {
      BridgeSetup s;
      s.t0 = 0.5;
      s.T = 2.0;
      s.order = cunum::testing::random_grid(n, s.t0, s.T, fresh_seed() + n);
      std::shuffle(s.order.begin(), s.order.end(), engine);
      s.d = d;
      s.factor = cunum::testing::random_factor(d, fresh_seed() ^ n);
      s.start = {0.25, -0.5};
      if (fixed) s.end = std::vector<double>{1.0, 0.0};
      const BrownianBridge bridge = make_bridge(s);
      const auto steps = bridge.construction_steps();
      ASSERT_EQ(steps.size(), n);
      const auto z = cunum::testing::normals<double>(static_cast<std::size_t>(bridge.z_records() * d),
                                                     fresh_seed() ^ (3 * n + fixed));
      cunum::BridgeGenerateOptions options;
      options.z_layout = BridgeLayout::path_contiguous;
      options.output_layout = BridgeLayout::path_contiguous;
      const auto want = bridge.generate_paths(1, z, options);

      auto correlated = [&](std::int64_t record, int j) {
        double sum = 0;
        for (int i = 0; i <= j; ++i) sum += s.factor[j * d + i] * z[record * d + i];
        return sum;
      };
      std::vector<std::vector<double>> stack(bridge.stack_size(), std::vector<double>(d));
      std::vector<double> got(want.size());
      for (int j = 0; j < d; ++j) {
        stack[BrownianBridge::start_slot][j] = s.start[j];
        stack[BrownianBridge::end_slot][j] = fixed ? (*s.end)[j] : s.start[j] + std::sqrt(s.T - s.t0) * correlated(0, j);
        got[n * d + j] = stack[BrownianBridge::end_slot][j];
      }
      std::set<std::int64_t> built{0, static_cast<std::int64_t>(n) + 1};
      for (const cunum::BridgeConstructionStep& step : steps) {
        const auto right = built.upper_bound(step.time_index);
        ASSERT_NE(right, built.end());
        EXPECT_EQ(step.right_time_index, *right);
        EXPECT_EQ(step.left_time_index, *std::prev(right));
        EXPECT_TRUE(built.insert(step.time_index).second) << "time index " << step.time_index << " built twice";
        ASSERT_LT(step.left_slot, bridge.stack_size());
        ASSERT_LT(step.right_slot, bridge.stack_size());
        std::vector<double> x(d);
        for (int j = 0; j < d; ++j) {
          x[j] = step.left_weight * stack[step.left_slot][j] + step.right_weight * stack[step.right_slot][j] +
                 step.std_dev * correlated(step.z_record, j);
          got[(step.time_index - 1) * d + j] = x[j];
        }
        if (step.store_slot) {
          ASSERT_LT(*step.store_slot, bridge.stack_size());
          stack[*step.store_slot] = x;
        }
      }
      EXPECT_EQ(built.size(), n + 2);
      for (std::size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], 1e-13 * std::max(1.0, std::fabs(want[i]))) << "N=" << n << " element " << i;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// The CPU backend against the naive reference.
template <class T>
void expect_matches_naive(const BridgeSetup& s, std::int64_t paths, BridgeLayout z_layout,
                          BridgeLayout out_layout, std::uint64_t seed) {
  const BrownianBridge bridge = make_bridge(s);
  const std::int64_t z_records = bridge.z_records(), records = bridge.output_records();
  const auto z = cunum::testing::normals<T>(static_cast<std::size_t>(paths * z_records * s.d), seed);
  cunum::BridgeGenerateOptions options;
  options.z_layout = z_layout;
  options.output_layout = out_layout;
  for (bool increments : {false, true}) {
    auto out = cunum::testing::poisoned<T>(static_cast<std::size_t>(paths * records * s.d));
    if (increments) {
      bridge.generate_increments(paths, z.data(), out.data(), options);
    } else {
      bridge.generate_paths(paths, z.data(), out.data(), options);
    }
    const double tolerance = std::is_same_v<T, double> ? 1e-13 : 2e-5;
    for (std::int64_t p = 0; p < paths; ++p) {
      auto path = cunum::testing::naive_path(s, [&](std::int64_t r, int j) {
        return static_cast<double>(z[cunum::testing::layout_index(z_layout, paths, z_records, s.d, p, r, j)]);
      });
      if (increments) path = cunum::testing::naive_increments(s, path);
      double scale = 1;
      for (double v : path) scale = std::max(scale, std::fabs(v));
      for (std::int64_t r = 0; r < records; ++r) {
        for (int j = 0; j < s.d; ++j) {
          const double got = out[cunum::testing::layout_index(out_layout, paths, records, s.d, p, r, j)];
          const double want = path[r * s.d + j];
          // float runs the recursion in float: error grows with the depth of the tree.
          ASSERT_NEAR(got, want, tolerance * scale * (std::is_same_v<T, double> ? 1 : 1 + std::sqrt(double(records))))
              << "paths=" << paths << " p=" << p << " record=" << r << " j=" << j
              << " N=" << s.order.size() << " increments=" << increments;
        }
      }
    }
  }
}

enum class OrderKind { bisection, ascending, important, random };

std::vector<double> make_order(const std::vector<double>& grid, OrderKind kind, std::mt19937_64& engine) {
  switch (kind) {
    case OrderKind::bisection: return cunum::make_bridge_order(grid, BridgeOrder::bisection);
    case OrderKind::ascending: return cunum::make_bridge_order(grid, BridgeOrder::ascending);
    case OrderKind::important: {
      std::vector<double> important{grid[grid.size() * 2 / 3], grid[grid.size() / 5]};
      if (important[0] == important[1]) important.pop_back();
      return cunum::make_bridge_order(grid, BridgeOrder::important_first, important);
    }
    case OrderKind::random: {
      auto order = grid;
      std::shuffle(order.begin(), order.end(), engine);
      return order;
    }
  }
  return grid;
}

TEST(BridgeCpu, MatchesNaiveReference) {
  std::mt19937_64 engine(fresh_seed() ^ 21);
  std::uint64_t case_id = 0;
  for (std::size_t n : {1, 2, 3, 5, 12, 63, 64, 65, 255, 1000, 4096}) {
    const std::int64_t paths = n >= 1000 ? 3 : 13;
    for (OrderKind kind : {OrderKind::bisection, OrderKind::ascending, OrderKind::important, OrderKind::random}) {
      for (int d : {1, 3}) {
        for (bool fixed : {false, true}) {
          ++case_id;
          BridgeSetup s;
          s.t0 = 0.25;
          s.T = 2.0;
          s.order = make_order(cunum::testing::random_grid(n, s.t0, s.T, fresh_seed() + case_id), kind, engine);
          s.d = d;
          s.factor = cunum::testing::random_factor(d, fresh_seed() + case_id);
          s.start = std::vector<double>(d, 0.5);
          if (fixed) s.end = std::vector<double>(d, -0.75);
          const auto z_layout = case_id % 2 ? BridgeLayout::path_fastest : BridgeLayout::path_contiguous;
          const auto out_layout = case_id % 3 ? BridgeLayout::path_contiguous : BridgeLayout::path_fastest;
          expect_matches_naive<double>(s, paths, z_layout, out_layout, fresh_seed() ^ case_id);
          if (n <= 1000) expect_matches_naive<float>(s, paths, out_layout, z_layout, fresh_seed() ^ ~case_id);
        }
      }
    }
  }
}

// Enough paths for several blocks and threads in every layout pair; a prime count
// leaves partial blocks and partial vectors.
TEST(BridgeCpu, ManyPathsMatchNaiveReferenceInEveryLayout) {
  const std::int64_t paths = 1031;
  std::uint64_t case_id = 0;
  for (int d : {1, 2, 3}) {
    for (bool fixed : {false, true}) {
      ++case_id;
      BridgeSetup s;
      s.t0 = 0.25;
      s.T = 2.0;
      s.order = cunum::make_bridge_order(cunum::testing::random_grid(63, s.t0, s.T, fresh_seed() + case_id),
                                         BridgeOrder::bisection);
      s.d = d;
      s.factor = cunum::testing::random_factor(d, fresh_seed() + case_id);
      s.start = std::vector<double>(d, 0.5);
      if (fixed) s.end = std::vector<double>(d, -0.75);
      for (const auto z_layout : {BridgeLayout::path_fastest, BridgeLayout::path_contiguous}) {
        for (const auto out_layout : {BridgeLayout::path_fastest, BridgeLayout::path_contiguous}) {
          expect_matches_naive<double>(s, paths, z_layout, out_layout, fresh_seed() ^ case_id);
          expect_matches_naive<float>(s, paths, z_layout, out_layout, fresh_seed() ^ ~case_id);
        }
      }
    }
  }
}

TEST(BridgeCpu, CovarianceFormMatchesFactorForm) {
  const int d = 3;
  BridgeSetup s{0, 1, {0.5, 0.25, 0.75}, d, cunum::testing::random_factor(d, fresh_seed()), {0, 0, 0}, {}};
  std::vector<double> sigma(d * d, 0.0);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j)
      for (int k = 0; k < d; ++k) sigma[i * d + j] += s.factor[i * d + k] * s.factor[j * d + k];
  const BrownianBridge from_factor = make_bridge(s);
  BridgeSetup with_sigma = s;
  with_sigma.factor = sigma;
  const BrownianBridge from_sigma = make_bridge(with_sigma, CovarianceForm::covariance);
  for (int i = 0; i < d * d; ++i) EXPECT_NEAR(from_sigma.factor()[i], s.factor[i], 1e-14);
}

// ---------------------------------------------------------------------------
// Statistics with 10^6 paths: Cov(X_s, X_t) = (min(s,t) - t0) C C' (free) and the
// bridge covariance for a fixed end, within 4 standard errors.
void check_covariance(bool fixed) {
  const int d = 2;
  const std::int64_t paths = 1000000;
  BridgeSetup s{0.5, 2.5, {1.5, 1.0, 2.0}, d, {1.0, 0.0, 0.6, 0.8}, {0.3, -0.2}, {}};
  if (fixed) s.end = std::vector<double>{1.0, -1.0};
  const BrownianBridge bridge = make_bridge(s);
  const std::int64_t records = bridge.output_records();
  const auto z = cunum::testing::normals<double>(static_cast<std::size_t>(paths * bridge.z_records() * d),
                                                 fresh_seed() ^ (fixed ? 77 : 78));
  const auto x = bridge.generate_paths(paths, z);
  const std::vector<double> times{1.0, 1.5, 2.0, 2.5};
  const double sigma[2][2] = {{1.0, 0.6}, {0.6, 1.0}};
  auto mean = [&](double t, int j) {
    if (!fixed) return s.start[j];
    return s.start[j] + (t - s.t0) / (s.T - s.t0) * ((*s.end)[j] - s.start[j]);
  };
  auto covariance = [&](double a, double b, int i, int j) {
    const double lo = std::min(a, b), hi = std::max(a, b);
    const double time_part = fixed ? (lo - s.t0) * (s.T - hi) / (s.T - s.t0) : lo - s.t0;
    return time_part * sigma[i][j];
  };
  for (std::int64_t a = 0; a < records; ++a) {
    for (std::int64_t b = a; b < records; ++b) {
      for (int i = 0; i < d; ++i) {
        for (int j = 0; j < d; ++j) {
          double sum = 0;
          for (std::int64_t p = 0; p < paths; ++p) {
            sum += (x[(a * d + i) * paths + p] - mean(times[a], i)) * (x[(b * d + j) * paths + p] - mean(times[b], j));
          }
          const double estimate = sum / paths;
          const double want = covariance(times[a], times[b], i, j);
          const double se = std::sqrt((covariance(times[a], times[a], i, i) * covariance(times[b], times[b], j, j) +
                                       want * want) / paths);
          if (fixed && b == records - 1) {
            EXPECT_EQ(estimate, 0.0);
          } else {
            EXPECT_NEAR(estimate, want, 4 * se + 1e-15) << "times " << times[a] << "," << times[b] << " dims " << i << j;
          }
        }
      }
    }
  }
  if (fixed) {
    for (std::int64_t p = 0; p < paths; ++p) {
      ASSERT_EQ(x[(3 * d + 0) * paths + p], 1.0);
      ASSERT_EQ(x[(3 * d + 1) * paths + p], -1.0);
    }
  }
}

TEST(BridgeStatistics, FreeBridgeCovariance) { check_covariance(false); }
TEST(BridgeStatistics, FixedEndCovarianceAndEndPoint) { check_covariance(true); }

// ---------------------------------------------------------------------------
TEST(BridgeValidation, RejectsBadInit) {
  const std::vector<double> one{1.0};
  auto make = [](double t0, double T, std::vector<double> order, int d, std::vector<double> cov,
                 CovarianceForm form, std::vector<double> start,
                 std::optional<std::vector<double>> end = {}) {
    return BrownianBridge(t0, T, std::move(order), d, cov, form, std::move(start), std::move(end), Backend::cpu);
  };
  const auto F = CovarianceForm::factor;
  const auto S = CovarianceForm::covariance;
  EXPECT_CUNUM_ERROR(make(1, 1, {0.5}, 1, one, F, {0}), ErrorCode::invalid_argument, "T");
  EXPECT_CUNUM_ERROR(make(NAN, 1, {0.5}, 1, one, F, {0}), ErrorCode::invalid_argument, "t0");
  EXPECT_CUNUM_ERROR(make(0, INFINITY, {0.5}, 1, one, F, {0}), ErrorCode::invalid_argument, "T");
  EXPECT_CUNUM_ERROR(make(0, 1, {}, 1, one, F, {0}), ErrorCode::invalid_argument, "construction_order");
  EXPECT_CUNUM_ERROR(make(0, 1, {0.5, 1.0}, 1, one, F, {0}), ErrorCode::invalid_argument, "construction_order");
  EXPECT_CUNUM_ERROR(make(0, 1, {0.0, 0.5}, 1, one, F, {0}), ErrorCode::invalid_argument, "construction_order");
  EXPECT_CUNUM_ERROR(make(0, 1, {0.5, 0.5}, 1, one, F, {0}), ErrorCode::invalid_argument, "construction_order");
  EXPECT_CUNUM_ERROR(make(0, 1, {0.5, NAN}, 1, one, F, {0}), ErrorCode::invalid_argument, "construction_order");
  EXPECT_CUNUM_ERROR(make(0, 1, {0.5}, 0, {}, F, {}), ErrorCode::invalid_argument, "dimension");
  EXPECT_CUNUM_ERROR(make(0, 1, {0.5}, 2, one, F, {0, 0}), ErrorCode::invalid_argument, "covariance");
  EXPECT_CUNUM_ERROR(make(0, 1, {0.5}, 2, {1, 0, 0, 0}, F, {0, 0}), ErrorCode::invalid_argument, "covariance");
  EXPECT_CUNUM_ERROR(make(0, 1, {0.5}, 2, {1, 0.5, 0, 1}, F, {0, 0}), ErrorCode::invalid_argument, "covariance");
  EXPECT_CUNUM_ERROR(make(0, 1, {0.5}, 2, {1, 2, 2, 1}, S, {0, 0}), ErrorCode::invalid_argument, "covariance");
  EXPECT_CUNUM_ERROR(make(0, 1, {0.5}, 2, {1, 0.5, 0.4, 1}, S, {0, 0}), ErrorCode::invalid_argument, "covariance");
  EXPECT_CUNUM_ERROR(make(0, 1, {0.5}, 1, {NAN}, F, {0}), ErrorCode::invalid_argument, "covariance");
  EXPECT_CUNUM_ERROR(make(0, 1, {0.5}, 1, one, F, {0, 0}), ErrorCode::invalid_argument, "start");
  EXPECT_CUNUM_ERROR(make(0, 1, {0.5}, 1, one, F, {NAN}), ErrorCode::invalid_argument, "start");
  EXPECT_CUNUM_ERROR(make(0, 1, {0.5}, 1, one, F, {0}, std::vector<double>{}), ErrorCode::invalid_argument, "fixed_end");
  EXPECT_CUNUM_ERROR(make(0, 1, {0.5}, 1, one, F, {0}, std::vector<double>{INFINITY}), ErrorCode::invalid_argument,
                     "fixed_end");
}

// Grids whose increments cannot be formed were accepted and generated NaN: the fuzzer
// (cunum-fuzz-bridge-compiler) found t0 = -4.4e-17, times {0, 3.2e-319}, T = 9.1e-13,
// whose increment 1 / 3.2e-319 overflows and gave NaN for a path the naive bridge
// builds. Gaps closer than 2^-1024 and a T - t0 past the largest double are refused.
TEST(BridgeValidation, RejectsGridsWhoseGapsOrSpanOverflow) {
  const auto make = [](double t0, double T, std::vector<double> order) {
    return BrownianBridge(t0, T, std::move(order), 1, {1.0}, CovarianceForm::factor, {0.0}, {}, Backend::cpu);
  };
  const double subnormal = 3.2378098034560251e-319;
  EXPECT_CUNUM_ERROR(make(-4.3700057536895705e-17, 9.0949470177292824e-13, {0, subnormal}),
                     ErrorCode::invalid_argument, "'construction_order' has consecutive times closer than 2^-1024");
  EXPECT_CUNUM_ERROR(make(0, 1, {subnormal, 0.5}), ErrorCode::invalid_argument, "(t_0 and t_1,");
  EXPECT_CUNUM_ERROR(make(0, 1e-300, {1e-300 - std::ldexp(1.0, -1031)}), ErrorCode::invalid_argument,
                     "(t_1 and t_2,");
  EXPECT_CUNUM_ERROR(make(-1e308, 1e308, {0.0}), ErrorCode::invalid_argument, "'T' - t0 overflows double");
  // The smallest gap allowed: increments of a path are finite.
  const double gap = std::ldexp(1.0, -1020);
  const BrownianBridge bridge = make(0, 3 * gap, {gap, 2 * gap});
  for (const double value : bridge.generate_increments(1, std::vector<double>{0.5, -1.0, 2.0})) {
    EXPECT_TRUE(std::isfinite(value)) << value;
  }
}

TEST(BridgeValidation, RejectsBadGenerateAndWritesNothing) {
  BridgeSetup s{0, 1, {0.5, 0.25}, 1, {1.0}, {0.0}, {}};
  const BrownianBridge bridge = make_bridge(s);
  const auto z = cunum::testing::normals<double>(3 * 4, 1);
  auto out = cunum::testing::poisoned<double>(3 * 4);
  const auto before = out;
  EXPECT_CUNUM_ERROR(bridge.generate_paths<double>(-1, z.data(), out.data()), ErrorCode::invalid_argument, "paths");
  EXPECT_CUNUM_ERROR(bridge.generate_paths<double>(4, nullptr, out.data()), ErrorCode::invalid_argument, "z");
  EXPECT_CUNUM_ERROR(bridge.generate_paths<double>(4, z.data(), nullptr), ErrorCode::invalid_argument, "output");
  EXPECT_CUNUM_ERROR(bridge.generate_paths<double>(std::int64_t{1} << 61, z.data(), out.data()),
                     ErrorCode::invalid_argument, "paths");  // the element count overflows
  EXPECT_CUNUM_ERROR(bridge.generate_paths<double>(std::int64_t{1} << 60, z.data(), out.data()),
                     ErrorCode::invalid_argument, "paths");  // the byte count overflows
  cunum::BridgeGenerateOptions bad_layout;
  bad_layout.z_layout = static_cast<BridgeLayout>(7);
  EXPECT_CUNUM_ERROR(bridge.generate_increments<double>(4, z.data(), out.data(), bad_layout),
                     ErrorCode::invalid_argument, "z_layout");
  EXPECT_CUNUM_ERROR(bridge.generate_paths(4, std::vector<double>(5)), ErrorCode::invalid_argument, "z");
  EXPECT_EQ(std::memcmp(out.data(), before.data(), out.size() * sizeof(double)), 0);
  // Zero paths with null pointers is a no-op.
  bridge.generate_paths<double>(0, nullptr, nullptr);
}

// No generate routine works in place (issue: generate_paths(n, buf, buf) was wrong by
// up to 0.42). Any overlap of `output` with `z`, not only equal pointers, is refused
// naming 'output' before anything is written, for paths and increments, in every
// layout, free and fixed-end; arrays that only touch are accepted and give the
// numbers of separate arrays.
template <class T>
void expect_overlap_refused(bool fixed, int d) {
  BridgeSetup s;
  s.t0 = 0.0;
  s.T = 1.0;
  s.order = cunum::make_bridge_order(unit_grid(15), BridgeOrder::bisection);
  for (double& t : s.order) t /= 16;
  s.d = d;
  s.factor = cunum::testing::random_factor(d, fresh_seed());
  s.start = std::vector<double>(d, 0.25);
  if (fixed) s.end = std::vector<double>(d, -0.5);
  const BrownianBridge bridge = make_bridge(s);
  const std::int64_t paths = 37;
  const std::int64_t z_count = paths * bridge.z_records() * d, out_count = paths * bridge.output_records() * d;
  const auto z = cunum::testing::normals<T>(static_cast<std::size_t>(z_count), fresh_seed() ^ 0x5A);
  // One buffer holding both arrays: z at z_at, output at out_at (element offsets).
  std::vector<T> buffer(static_cast<std::size_t>(2 * (z_count + out_count)));
  const auto check = [&](std::int64_t z_at, std::int64_t out_at, const cunum::BridgeGenerateOptions& options,
                         bool increments) {
    std::fill(buffer.begin(), buffer.end(), T(-7));
    std::copy(z.begin(), z.end(), buffer.begin() + z_at);
    const std::vector<T> before = buffer;
    const T* z_ptr = buffer.data() + z_at;
    T* out_ptr = buffer.data() + out_at;
    if (increments) {
      EXPECT_CUNUM_ERROR(bridge.generate_increments(paths, z_ptr, out_ptr, options), ErrorCode::invalid_argument,
                         "'output'");
    } else {
      EXPECT_CUNUM_ERROR(bridge.generate_paths(paths, z_ptr, out_ptr, options), ErrorCode::invalid_argument,
                         "'output'");
    }
    EXPECT_EQ(std::memcmp(buffer.data(), before.data(), buffer.size() * sizeof(T)), 0)
        << "written: z at " << z_at << ", output at " << out_at;
  };
  const std::int64_t base = z_count + out_count;  // room on both sides
  for (const auto z_layout : {BridgeLayout::path_fastest, BridgeLayout::path_contiguous}) {
    for (const auto out_layout : {BridgeLayout::path_fastest, BridgeLayout::path_contiguous}) {
      cunum::BridgeGenerateOptions options;
      options.z_layout = z_layout;
      options.output_layout = out_layout;
      for (bool increments : {false, true}) {
        check(base, base, options, increments);                      // in place: the call
        check(base, base + 1, options, increments);                  // output one element on
        check(base, base - 1, options, increments);                  // output one element before
        check(base, base + z_count - 1, options, increments);        // output over z's last element
        check(base, base - out_count + 1, options, increments);      // output's last over z's first
        check(base - 1, base, options, increments);                  // z straddles output's start
      }
      // Arrays that touch but do not overlap, on either side, are the arrays' own.
      for (bool increments : {false, true}) {
        std::vector<T> want(static_cast<std::size_t>(out_count));
        if (increments) {
          bridge.generate_increments(paths, z.data(), want.data(), options);
        } else {
          bridge.generate_paths(paths, z.data(), want.data(), options);
        }
        for (const auto& [z_at, out_at] : {std::pair<std::int64_t, std::int64_t>{base, base + z_count},
                                          std::pair<std::int64_t, std::int64_t>{base, base - out_count}}) {
          std::copy(z.begin(), z.end(), buffer.begin() + z_at);
          if (increments) {
            bridge.generate_increments(paths, buffer.data() + z_at, buffer.data() + out_at, options);
          } else {
            bridge.generate_paths(paths, buffer.data() + z_at, buffer.data() + out_at, options);
          }
          EXPECT_EQ(std::memcmp(buffer.data() + out_at, want.data(), want.size() * sizeof(T)), 0);
        }
      }
    }
  }
  // Whatever the count, an array that addresses nothing overlaps nothing.
  bridge.generate_paths<T>(0, buffer.data(), buffer.data());
}

TEST(BridgeValidation, OutputOverlappingZIsRefusedBeforeAnythingIsWritten) {
  for (bool fixed : {false, true}) {
    for (int d : {1, 2}) {
      expect_overlap_refused<double>(fixed, d);
      expect_overlap_refused<float>(fixed, d);
    }
  }
}

// Non-finite normals are not checked: each reaches the points built from it, in its
// own path only. A free bridge's record 0 builds X_T, which every interior point
// reads; the last step's record builds one point, which no other step reads.
TEST(BridgeValidation, NonFiniteNormalsReachOnlyThePointsBuiltFromThem) {
  constexpr std::int64_t paths = 5;
  constexpr std::int64_t poisoned_path = 2;
  BridgeSetup s;
  s.t0 = 0.0;
  s.T = 13.0;
  s.order = cunum::make_bridge_order(unit_grid(12), BridgeOrder::bisection);
  s.d = 1;
  s.factor = {0.8};
  s.start = {0.1};
  const BrownianBridge bridge = make_bridge(s);
  const std::int64_t z_records = bridge.z_records(), records = bridge.output_records();
  const auto clean_z = cunum::testing::normals<double>(static_cast<std::size_t>(paths * z_records), fresh_seed());
  const auto clean = bridge.generate_paths(paths, clean_z);
  const std::int64_t last_point = time_indices(s.order).back() - 1;  // the output record the last step builds
  auto at = [](std::int64_t p, std::int64_t r, std::int64_t count) {
    return static_cast<std::size_t>(cunum::testing::layout_index(BridgeLayout::path_fastest, paths, count, 1, p, r, 0));
  };
  for (const double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    for (const std::int64_t record : {std::int64_t{0}, z_records - 1}) {
      SCOPED_TRACE("Z record " + std::to_string(record) + " = " + std::to_string(bad));
      auto z = clean_z;
      z[at(poisoned_path, record, z_records)] = bad;
      const auto out = bridge.generate_paths(paths, z);
      for (std::int64_t p = 0; p < paths; ++p) {
        for (std::int64_t r = 0; r < records; ++r) {
          const double value = out[at(p, r, records)];
          if (p == poisoned_path && (record == 0 || r == last_point)) {
            EXPECT_FALSE(std::isfinite(value)) << "path " << p << ", record " << r;
          } else {
            EXPECT_EQ(value, clean[at(p, r, records)]) << "path " << p << ", record " << r;
          }
        }
      }
    }
  }
}

TEST(BridgeValidation, RejectsValuesOutsideTheirEnums) {
  EXPECT_CUNUM_ERROR(cunum::make_bridge_order({1, 2}, static_cast<BridgeOrder>(3)), ErrorCode::invalid_argument,
                     "is not one of BridgeOrder's values");
  EXPECT_CUNUM_ERROR(BrownianBridge(0, 1, {0.5}, 1, {1.0}, static_cast<CovarianceForm>(2), {0.0}, {}, Backend::cpu),
                     ErrorCode::invalid_argument, "'form' is not one of CovarianceForm's values");
  EXPECT_CUNUM_ERROR(BrownianBridge(0, 1, {0.5}, 1, {1.0}, CovarianceForm::factor, {0.0}, {}, static_cast<Backend>(-1)),
                     ErrorCode::invalid_argument, "'placement.backend' is not one of Backend's values");
  const BrownianBridge bridge = make_bridge(BridgeSetup{0, 1, {0.5, 0.25}, 1, {1.0}, {0.0}, {}});
  const auto z = cunum::testing::normals<float>(3 * 4, 1);
  std::vector<float> out(3 * 4);
  cunum::BridgeGenerateOptions options;
  options.output_layout = static_cast<BridgeLayout>(-1);
  EXPECT_CUNUM_ERROR(bridge.generate_paths(4, z.data(), out.data(), options), ErrorCode::invalid_argument,
                     "'options.output_layout' is not one of BridgeLayout's values");
  options.output_layout = BridgeLayout::path_fastest;
  options.strategy = static_cast<cunum::BridgeStrategy>(7);
  EXPECT_CUNUM_ERROR(bridge.generate_increments(4, z, options), ErrorCode::invalid_argument,
                     "'options.strategy' is not one of BridgeStrategy's values");
  cunum::SobolBridgeOptions sobol;
  sobol.sequence = static_cast<cunum::SobolSequence>(-3);
  EXPECT_CUNUM_ERROR(bridge.generate_sobol_increments(4, out.data(), sobol), ErrorCode::invalid_argument,
                     "'options.sequence' is not one of SobolSequence's values");
}

TEST(BridgeValidation, MovedFromBridgeIsInvalidArgument) {
  const BridgeSetup s{0, 1, {0.5, 0.25}, 1, {1.0}, {0.0}, {}};
  BrownianBridge bridge = make_bridge(s);
  const BrownianBridge moved_to = std::move(bridge);
  EXPECT_EQ(moved_to.construction_steps().size(), 2u);
  const auto z = cunum::testing::normals<double>(3 * 4, 1);
  std::vector<double> out(3 * 4);
  constexpr const char* moved = "is a moved-from BrownianBridge";
  EXPECT_CUNUM_ERROR(bridge.generate_paths(4, z.data(), out.data()), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(bridge.generate_increments(4, z.data(), out.data()), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(bridge.generate_paths(4, z), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(bridge.generate_sobol_paths(4, out.data()), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(bridge.construction_steps(), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(bridge.stack_size(), ErrorCode::invalid_argument, "argument 'this' is a moved-from BrownianBridge");
  EXPECT_CUNUM_ERROR(bridge.placement(), ErrorCode::invalid_argument, moved);
  // Assigned to again, it is a bridge like any other.
  bridge = make_bridge(s);
  EXPECT_EQ(bridge.generate_paths(4, z), moved_to.generate_paths(4, z));
}

// The plan-object contract (cunum/core/placement.hpp) on the CPU backend.
TEST(BridgeValidation, ACpuBridgeIsPlacedOnTheHostAndRefusesDevices) {
  const BrownianBridge bridge = make_bridge(BridgeSetup{0, 1, {0.5, 0.25}, 1, {1.0}, {0.0}, {}});
  EXPECT_EQ(bridge.placement().backend, Backend::cpu);
  EXPECT_TRUE(bridge.placement().devices.empty());
  cunum::Placement cpu_on_a_device(Backend::cpu);
  cpu_on_a_device.devices = {0};
  EXPECT_CUNUM_ERROR(BrownianBridge(0, 1, {0.5}, 1, {1.0}, CovarianceForm::factor, {0.0}, {}, cpu_on_a_device),
                     ErrorCode::invalid_argument, "'placement.devices' lists devices, but the CPU backend");
}

TEST(BridgeValidation, CudaBackendWithoutDeviceIsNoDevice) {
  if (cunum::device_count() > 0) GTEST_SKIP() << "a device is present";
  EXPECT_CUNUM_ERROR(BrownianBridge(0, 1, {0.5}, 1, {1.0}, CovarianceForm::factor, {0.0}, {}, Backend::cuda),
                     ErrorCode::no_device, "");
}

}  // namespace
