// Callers' own payoffs on the GPU: the functors of custom_payoffs.cuh against the
// library's payoffs on the device (same paths), and against the custom CPU backend.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "custom_payoffs.cuh"
#include "monte_carlo_cases.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::MonteCarloEstimate;
using cunum::MonteCarloOption;
using cunum::MonteCarloPayoff;
using cunum::MonteCarloPricer;
using cunum::MonteCarloSettings;

template <class T>
class MonteCarloCustomGpu : public ::testing::Test {};
TYPED_TEST_SUITE(MonteCarloCustomGpu, cunum::testing::RealTypes);

template <class T, class Payoff>
std::vector<MonteCarloEstimate<T>> price_custom(MonteCarloSettings s, Backend backend, const Payoff& payoff,
                                                const std::vector<MonteCarloOption<T>>& options) {
  s.payoff = MonteCarloPayoff::custom;
  const MonteCarloPricer<T> pricer(s, backend);
  const auto batch = pricer.load(options);
  if (backend == Backend::cpu) {
    std::vector<MonteCarloEstimate<T>> out(options.size());
    cunum::price_with_payoff(pricer, batch, payoff, out.data());
    return out;
  }
  cunum::DeviceBuffer<MonteCarloEstimate<T>> results(options.size());
  results.fill_bytes_async(0xFF);
  cunum::price_with_payoff(pricer, batch, payoff, results.data());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  return results.to_host();
}

TYPED_TEST(MonteCarloCustomGpu, FunctorsOnTheDeviceMatchTheLibraryAndTheCpu) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  auto options = cunum::testing::option_grid<T>();
  for (auto source : {cunum::MonteCarloSource::philox4x32_10, cunum::MonteCarloSource::mrg32k3a}) {
    for (std::int64_t paths : {std::int64_t{5}, std::int64_t{4093}, std::int64_t{1} << 20}) {
      MonteCarloSettings s;
      s.paths = paths;
      s.time_steps = 12;
      s.seed = cunum::testing::fresh_seed();
      s.source = source;
      s.antithetic = paths % 2 == 0;
      const auto gpu = price_custom<T>(s, Backend::cuda, cunum::testing::AsianPayoff<T>{}, options);
      const auto cpu = price_custom<T>(s, Backend::cpu, cunum::testing::AsianPayoff<T>{}, options);
      s.payoff = MonteCarloPayoff::asian_arithmetic;
      const auto library = MonteCarloPricer<T>(s, Backend::cuda).price(options);
      for (std::size_t i = 0; i < options.size(); ++i) {
        const double tolerance = (sizeof(T) == 4 ? 1e-4 : 1e-9) * std::abs(double(cpu[i].price)) +
                                 2e-3 * double(cpu[i].standard_error) + 1e-12;
        EXPECT_FALSE(std::isnan(double(gpu[i].price))) << "estimate " << i << " not written";
        EXPECT_NEAR(gpu[i].price, cpu[i].price, tolerance) << paths << " paths, option " << i;
        EXPECT_NEAR(gpu[i].price, library[i].price, tolerance) << paths << " paths, option " << i;
      }
    }
  }
}

// The graph-capture contract of price_with_payoff(): captured, and each replay writes
// what the direct call writes, bit for bit.
TYPED_TEST(MonteCarloCustomGpu, PriceWithPayoffReplaysFromACapturedGraph) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  MonteCarloSettings s;
  s.paths = std::int64_t{1} << 20;
  s.time_steps = 12;
  s.seed = cunum::testing::fresh_seed();
  s.payoff = MonteCarloPayoff::custom;
  const MonteCarloPricer<T> pricer(s, Backend::cuda);
  const auto options = cunum::testing::option_grid<T>();
  const auto batch = pricer.load(options);
  cunum::Stream stream;
  cunum::DeviceBuffer<MonteCarloEstimate<T>> results(options.size(), stream);
  const auto price = [&] {
    cunum::price_with_payoff(pricer, batch, cunum::testing::AsianPayoff<T>{}, results.data(), stream);
  };
  results.fill_bytes_async(0xFF);
  price();
  const auto direct = results.to_host();
  for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
    SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
    cunum::testing::CapturedGraph graph(stream, mode, price);
    ASSERT_TRUE(graph.ok());
    for (int replay = 0; replay < 2; ++replay) {
      results.fill_bytes_async(0xFF);
      graph.launch();
      const auto got = results.to_host();
      for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_TRUE(cunum::testing::bit_identical(got[i], direct[i])) << "replay " << replay << ", option " << i;
      }
    }
  }
}

}  // namespace
