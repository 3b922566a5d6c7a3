// Callers' own payoffs (cunum/device/monte_carlo_payoff.cuh): the library's payoffs
// written again as functors price as the library does (same paths: agreement to
// rounding), on the CPU backend here and on the GPU in the gpu suite, with the
// Philox and MRG32k3a sources, antithetic and control variates; the entry points
// refuse each other's payoffs by name.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "custom_payoffs.cuh"
#include "monte_carlo_cases.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::ErrorCode;
using cunum::MonteCarloEstimate;
using cunum::MonteCarloOption;
using cunum::MonteCarloPayoff;
using cunum::MonteCarloPricer;
using cunum::MonteCarloSettings;

template <class T>
std::vector<MonteCarloOption<T>> book() {
  auto options = cunum::testing::option_grid<T>();
  for (auto& o : options) o.barrier = T(140);
  return options;
}

// The custom functor's estimates and the library payoff's, same settings otherwise.
// `one_path_payoff` bounds what one path may add to the price's sum where the two may
// decide a path's fate differently by rounding (0 where nothing is decided).
template <class T, class Payoff>
void expect_same_as_library(Backend backend, MonteCarloPayoff library, const Payoff& payoff, MonteCarloSettings s,
                            const std::vector<MonteCarloOption<T>>& options, const char* what,
                            double one_path_payoff = 0) {
  s.payoff = MonteCarloPayoff::custom;
  const MonteCarloPricer<T> custom(s, backend);
  const auto batch = custom.load(options);
  std::vector<MonteCarloEstimate<T>> estimates(options.size());
  if (backend == Backend::cpu) {
    cunum::price_with_payoff(custom, batch, payoff, estimates.data());
  } else {
    cunum::DeviceBuffer<MonteCarloEstimate<T>> results(options.size());
    results.fill_bytes_async(0xFF);
    cunum::price_with_payoff(custom, batch, payoff, results.data());
    estimates = results.to_host();
  }
  s.payoff = library;
  const auto expected = MonteCarloPricer<T>(s, backend).price(options);
  for (std::size_t i = 0; i < options.size(); ++i) {
    const double tolerance = (sizeof(T) == 4 ? 1e-4 : 1e-9) * std::abs(double(expected[i].price)) +
                             2e-3 * double(expected[i].standard_error) + 1e-12 + one_path_payoff / double(s.paths);
    EXPECT_NEAR(estimates[i].price, expected[i].price, tolerance) << what << " option " << i;
    EXPECT_NEAR(estimates[i].standard_error, expected[i].standard_error,
                1e-2 * double(expected[i].standard_error) + 1e-12)
        << what << " option " << i;
    EXPECT_TRUE(std::isnan(double(estimates[i].delta))) << what;
    EXPECT_EQ(estimates[i].paths, s.paths);
  }
}

template <class T>
class MonteCarloCustom : public ::testing::Test {};
TYPED_TEST_SUITE(MonteCarloCustom, cunum::testing::RealTypes);

TYPED_TEST(MonteCarloCustom, FunctorsPriceAsTheLibraryOnTheCpu) {
  using T = TypeParam;
  const auto options = book<T>();
  std::vector<T> barriers;
  double surviving_payoff = 0;  // the most a call that survives its barrier pays: B - K
  for (const auto& o : options) {
    barriers.push_back(o.barrier);
    surviving_payoff = std::max(surviving_payoff, double(o.barrier) - double(o.strike));
  }
  for (auto source : {cunum::MonteCarloSource::philox4x32_10, cunum::MonteCarloSource::mrg32k3a}) {
    MonteCarloSettings s;
    s.paths = 2 * 3001;
    s.time_steps = 9;
    s.seed = cunum::testing::fresh_seed();
    s.source = source;
    s.antithetic = true;
    s.control_variate = true;
    // A one-step European is the library's walk on one date: compare with time_steps 1.
    MonteCarloSettings one_date = s;
    one_date.time_steps = 1;
    expect_same_as_library<T>(Backend::cpu, MonteCarloPayoff::european, cunum::testing::VanillaPayoff<T>{}, one_date,
                              options, "european");
    // The library's Asian control is the geometric Asian; a custom payoff's is the terminal asset.
    s.control_variate = false;
    expect_same_as_library<T>(Backend::cpu, MonteCarloPayoff::asian_arithmetic, cunum::testing::AsianPayoff<T>{}, s,
                              options, "asian");
    s.control_variate = true;  // the terminal asset for both
    // The library knocks a path out on log2(S/S0) against log2(B/S0), the functor on S
    // against B: in float, a date within an ulp of the barrier (about one run in 300)
    // is knocked out by one and not the other, a swing of at most B - K over the paths.
    // Double's ulp makes that 2^29 times rarer.
    const double one_knock_out = sizeof(T) == 4 ? surviving_payoff : 0.0;
    expect_same_as_library<T>(Backend::cpu, MonteCarloPayoff::up_and_out,
                              cunum::testing::UpAndOutPayoff<T>{barriers.data()}, s, options, "up-and-out",
                              one_knock_out);
  }
}

TEST(MonteCarloCustomValidation, EachEntryPointRefusesTheOthersPayoffs) {
  MonteCarloSettings s;
  s.paths = 64;
  const MonteCarloPricer<double> european(s, Backend::cpu);
  const auto batch = european.load(book<double>());
  std::vector<MonteCarloEstimate<double>> results(batch.size());
  EXPECT_CUNUM_ERROR(cunum::price_with_payoff(european, batch, cunum::testing::VanillaPayoff<double>{}, results.data()),
                     ErrorCode::invalid_argument, "pricer");
  s.payoff = MonteCarloPayoff::custom;
  const MonteCarloPricer<double> custom(s, Backend::cpu);
  const auto custom_batch = custom.load(book<double>());
  EXPECT_CUNUM_ERROR(custom.price(custom_batch, results.data()), ErrorCode::invalid_argument, "settings.payoff");
  EXPECT_CUNUM_ERROR(cunum::price_with_payoff(custom, batch, cunum::testing::VanillaPayoff<double>{}, results.data()),
                     ErrorCode::invalid_argument, "batch");
  EXPECT_CUNUM_ERROR(cunum::price_with_payoff(custom, custom_batch, cunum::testing::VanillaPayoff<double>{},
                                                static_cast<MonteCarloEstimate<double>*>(nullptr)),
                     ErrorCode::invalid_argument, "results");
}

}  // namespace
