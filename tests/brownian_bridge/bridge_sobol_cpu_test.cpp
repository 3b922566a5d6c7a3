// The fused quasi-random bridge on the CPU backend: it must be the two-step route
// (cuRAND's host generator of the same sequence, dimensions and offset, then the
// bridge) exactly, also across its internal blocks of paths; its paths must have
// the Brownian covariance to quasi-Monte Carlo accuracy; bad input is rejected
// before anything is written.

#include <curand.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "bridge_reference.hpp"
#include "cunum/brownian_bridge.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::BridgeLayout;
using cunum::BrownianBridge;
using cunum::CovarianceForm;
using cunum::ErrorCode;
using cunum::SobolBridgeOptions;
using cunum::SobolSequence;

// All paths' normals in one call of cuRAND's host generator: dimension-major, which
// is the path-fastest Z layout.
template <class T>
std::vector<T> host_sobol_normals(SobolSequence sequence, std::int64_t dimensions, std::int64_t paths,
                                  std::uint64_t offset) {
  curandGenerator_t generator = nullptr;
  EXPECT_EQ(curandCreateGeneratorHost(&generator, cunum::testing::curand_sobol_type(sequence)), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(curandSetQuasiRandomGeneratorDimensions(generator, static_cast<unsigned>(dimensions)),
            CURAND_STATUS_SUCCESS);
  EXPECT_EQ(curandSetGeneratorOffset(generator, offset), CURAND_STATUS_SUCCESS);
  std::vector<T> z(static_cast<std::size_t>(paths * dimensions));
  if constexpr (std::is_same_v<T, float>) {
    EXPECT_EQ(curandGenerateNormal(generator, z.data(), z.size(), 0.0f, 1.0f), CURAND_STATUS_SUCCESS);
  } else {
    EXPECT_EQ(curandGenerateNormalDouble(generator, z.data(), z.size(), 0.0, 1.0), CURAND_STATUS_SUCCESS);
  }
  curandDestroyGenerator(generator);
  return z;
}

template <class T>
void expect_two_step_route(const cunum::testing::BridgeSetup& s, std::int64_t paths, SobolSequence sequence,
                           std::uint64_t offset, BridgeLayout output_layout, bool increments) {
  const BrownianBridge bridge(s.t0, s.T, s.order, s.d, s.factor, CovarianceForm::factor, s.start, s.end,
                              Backend::cpu);
  const auto z = host_sobol_normals<T>(sequence, bridge.z_records() * s.d, paths, offset);
  cunum::BridgeGenerateOptions two_step;
  two_step.output_layout = output_layout;
  const auto want = increments ? bridge.generate_increments(paths, z, two_step)
                               : bridge.generate_paths(paths, z, two_step);
  auto got = cunum::testing::poisoned<T>(want.size());
  SobolBridgeOptions options;
  options.sequence = sequence;
  options.offset = offset;
  options.output_layout = output_layout;
  if (increments) {
    bridge.generate_sobol_increments(paths, got.data(), options);
  } else {
    bridge.generate_sobol_paths(paths, got.data(), options);
  }
  // The same normals through the same code: identical, block boundaries included.
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i], want[i]) << cunum::to_string(sequence) << " element " << i << " of " << want.size()
                               << " N=" << s.order.size() << " d=" << s.d << " paths=" << paths
                               << " offset=" << offset << " increments=" << increments;
  }
}

cunum::testing::BridgeSetup setup(std::size_t n, int d, bool fixed, std::uint64_t seed) {
  cunum::testing::BridgeSetup s;
  s.t0 = 0.25;
  s.T = 1.75;
  s.order = cunum::make_bridge_order(cunum::testing::random_grid(n, s.t0, s.T, seed), cunum::BridgeOrder::bisection);
  s.d = d;
  s.factor = cunum::testing::random_factor(d, seed ^ 3);
  s.start = std::vector<double>(static_cast<std::size_t>(d), 0.5);
  if (fixed) s.end = std::vector<double>(static_cast<std::size_t>(d), -0.25);
  return s;
}

TEST(BridgeSobolCpu, IsTheTwoStepRouteForEverySequence) {
  const std::uint64_t seed = cunum::testing::fresh_seed();
  for (SobolSequence sequence : cunum::SobolSequenceValues::all) {
    expect_two_step_route<float>(setup(63, 1, false, seed), 1037, sequence, 0, BridgeLayout::path_fastest, false);
    expect_two_step_route<double>(setup(12, 3, true, seed + 1), 517, sequence, 41, BridgeLayout::path_contiguous,
                                  true);
    expect_two_step_route<double>(setup(5, 2, false, seed + 2), 1, sequence, 7, BridgeLayout::path_fastest, true);
  }
}

// 8192 Sobol dimensions: the CPU route works in blocks of 2048 paths here, so 3000
// paths from offset 37 cross a block boundary.
TEST(BridgeSobolCpu, BlocksOfPathsJoinSeamlessly) {
  expect_two_step_route<float>(setup(8191, 1, false, cunum::testing::fresh_seed()), 3000,
                               SobolSequence::scrambled_sobol32, 37, BridgeLayout::path_fastest, false);
}

// Quasi-random paths reproduce E X_t = x0 and Cov(X_s, X_t) = min(s, t) - t0 with
// errors near 1 / paths rather than 1 / sqrt(paths).
TEST(BridgeSobolCpu, PathsHaveTheBrownianCovariance) {
  const cunum::testing::BridgeSetup s{0.0, 1.0, {0.5, 0.25, 0.75}, 1, {1.0}, {0.0}, {}};
  const BrownianBridge bridge(s.t0, s.T, s.order, 1, s.factor, CovarianceForm::factor, s.start, s.end, Backend::cpu);
  const std::int64_t paths = std::int64_t{1} << 16;
  std::vector<double> x(static_cast<std::size_t>(paths * bridge.output_records()));
  SobolBridgeOptions options;
  options.sequence = SobolSequence::sobol64;
  options.offset = 1;  // skip the origin point, whose normals are all about -8.3
  bridge.generate_sobol_paths(paths, x.data(), options);
  const double times[] = {0.25, 0.5, 0.75, 1.0};
  for (int a = 0; a < 4; ++a) {
    double mean = 0;
    for (std::int64_t p = 0; p < paths; ++p) mean += x[a * paths + p];
    EXPECT_NEAR(mean / paths, 0.0, 2e-3) << "t = " << times[a];
    for (int b = a; b < 4; ++b) {
      double covariance = 0;
      for (std::int64_t p = 0; p < paths; ++p) covariance += x[a * paths + p] * x[b * paths + p];
      EXPECT_NEAR(covariance / paths, std::min(times[a], times[b]), 2e-3) << "t = " << times[a] << ", " << times[b];
    }
  }
}

TEST(BridgeSobolCpu, RejectsBadInputAndWritesNothing) {
  const BrownianBridge bridge(0, 1, {0.5, 0.25}, 1, {1.0}, CovarianceForm::factor, {0.0}, {}, Backend::cpu);
  auto out = cunum::testing::poisoned<float>(3 * 10);
  const auto before = out;
  SobolBridgeOptions options;
  EXPECT_CUNUM_ERROR(bridge.generate_sobol_paths<float>(-1, out.data(), options), ErrorCode::invalid_argument, "paths");
  EXPECT_CUNUM_ERROR(bridge.generate_sobol_paths<float>(10, nullptr, options), ErrorCode::invalid_argument, "output");
  options.offset = (std::uint64_t{1} << 32) - 5;
  EXPECT_CUNUM_ERROR(bridge.generate_sobol_paths(10, out.data(), options), ErrorCode::invalid_argument,
                     "options.offset");
  options.sequence = SobolSequence::sobol64;
  options.offset = ~std::uint64_t{0} - 3;
  EXPECT_CUNUM_ERROR(bridge.generate_sobol_increments(10, out.data(), options), ErrorCode::invalid_argument,
                     "options.offset");
  options.offset = 0;
  options.sequence = static_cast<SobolSequence>(9);
  EXPECT_CUNUM_ERROR(bridge.generate_sobol_paths(10, out.data(), options), ErrorCode::invalid_argument,
                     "options.sequence");
  options.sequence = SobolSequence::sobol32;
  options.output_layout = static_cast<BridgeLayout>(5);
  EXPECT_CUNUM_ERROR(bridge.generate_sobol_paths(10, out.data(), options), ErrorCode::invalid_argument,
                     "options.output_layout");
  EXPECT_EQ(std::memcmp(out.data(), before.data(), out.size() * sizeof(float)), 0);

  // More dimensions than cuRAND's direction vectors cover.
  std::vector<double> grid = cunum::testing::random_grid(20000, 0.0, 1.0, 5);
  const BrownianBridge wide(0, 1, grid, 1, {1.0}, CovarianceForm::factor, {0.0}, {}, Backend::cpu);
  std::vector<float> one_path(20001);
  EXPECT_CUNUM_ERROR(wide.generate_sobol_paths(1, one_path.data(), SobolBridgeOptions{}), ErrorCode::not_supported,
                     "20000");
  // Zero paths with a null pointer is a no-op.
  bridge.generate_sobol_paths<double>(0, nullptr);
}

}  // namespace
