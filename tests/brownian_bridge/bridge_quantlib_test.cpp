// The CPU backend against QuantLib::BrownianBridge (1-d, t0 = 0, x0 = 0): the same
// construction order (QuantLib's bridgeIndex) and the same normals must give the
// same weights, paths and increments to 1e-12. QuantLib's transform returns
// (X_i - X_{i-1}) / sqrt(t_i - t_{i-1}); cunum's increments divide by t_i - t_{i-1}.

#include <gtest/gtest.h>
#include <ql/methods/montecarlo/brownianbridge.hpp>

#include <cmath>

#include "bridge_reference.hpp"
#include "cunum/brownian_bridge.hpp"
#include "test_support.hpp"

namespace {

void compare_with_quantlib(const std::vector<double>& ql_times, std::uint64_t seed) {
  const QuantLib::BrownianBridge ql(ql_times);
  const std::size_t size = ql.size();  // N + 1 points, the last is T
  std::vector<double> order;
  for (std::size_t i = 1; i < size; ++i) order.push_back(ql_times[ql.bridgeIndex()[i]]);
  ASSERT_EQ(ql.bridgeIndex()[0], size - 1);
  const cunum::BrownianBridge bridge(0.0, ql_times.back(), order, 1, {1.0},
                                     cunum::CovarianceForm::factor, {0.0}, {}, cunum::Backend::cpu);

  // Weights and standard deviations, step by step (QuantLib step i is caller step i).
  for (const cunum::BridgeConstructionStep& step : bridge.construction_steps()) {
    const auto i = static_cast<std::size_t>(step.z_record);
    EXPECT_NEAR(step.left_weight, ql.leftWeight()[i], 1e-12);
    EXPECT_NEAR(step.right_weight, ql.rightWeight()[i], 1e-12);
    EXPECT_NEAR(step.std_dev, ql.stdDeviation()[i], 1e-12);
  }

  const std::int64_t paths = 5;
  const auto z = cunum::testing::normals<double>(paths * size, seed);
  cunum::BridgeGenerateOptions options;
  options.z_layout = cunum::BridgeLayout::path_contiguous;
  options.output_layout = cunum::BridgeLayout::path_contiguous;
  const auto x = bridge.generate_paths(paths, z, options);
  const auto inc = bridge.generate_increments(paths, z, options);
  for (std::int64_t p = 0; p < paths; ++p) {
    std::vector<double> ql_out(size);
    ql.transform(z.begin() + p * size, z.begin() + (p + 1) * size, ql_out.begin());
    double level = 0, previous_time = 0;
    for (std::size_t i = 0; i < size; ++i) {
      const double dt = ql_times[i] - previous_time;
      level += ql_out[i] * std::sqrt(dt);
      EXPECT_NEAR(x[p * size + i], level, 1e-12 * std::max(1.0, std::fabs(level))) << "point " << i;
      EXPECT_NEAR(inc[p * size + i] * std::sqrt(dt), ql_out[i], 1e-12 * std::max(1.0, std::fabs(ql_out[i])))
          << "increment " << i;
      previous_time = ql_times[i];
    }
  }
}

TEST(BridgeQuantLib, UnitGrids) {
  for (std::size_t n : {1, 2, 3, 7, 12, 64, 65, 1000}) {
    std::vector<double> times(n + 1);
    for (std::size_t i = 0; i <= n; ++i) times[i] = 0.5 * static_cast<double>(i + 1);
    compare_with_quantlib(times, cunum::testing::fresh_seed() ^ n);
  }
}

TEST(BridgeQuantLib, IrregularGrids) {
  for (std::size_t n : {1, 5, 31, 257}) {
    auto times = cunum::testing::random_grid(n + 1, 0.0, 3.0, cunum::testing::fresh_seed() + n);
    times.back() = std::max(times.back(), 2.9);  // last QuantLib time is T
    std::sort(times.begin(), times.end());
    compare_with_quantlib(times, cunum::testing::fresh_seed() ^ (n * 7));
  }
}

}  // namespace
