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

}  // namespace
