// CPU backend of BlackScholesPricer: parity, Greeks against finite differences,
// the implied-volatility round trip and its mpmath truth, the invalid-element policy, argument errors,
// awkward sizes with poisoned outputs, and that only requested outputs are written.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "black_scholes_grid.hpp"
#include "black_scholes_oracle.hpp"
#include "implied_volatility_oracle.hpp"
#include "cunum/black_scholes.hpp"
#include "test_support.hpp"

namespace {

using namespace cunum::testing::black_scholes_names;
using cunum::ErrorCode;

// Every output of one option, through the public API on the CPU backend.
struct One {
  double call, put, delta_call, delta_put, gamma, vega, theta_call, theta_put, rho_call, rho_put, forward, discount;
};
One price_one(double s, double k, double t, double r, double q, double v) {
  const BlackScholesPricer<double> pricer(BlackScholesOutputs::all(), Backend::cpu);
  One o{};
  BlackScholesResults<double> res{&o.call,     &o.put,       &o.delta_call, &o.delta_put, &o.gamma,   &o.vega,
                                  &o.theta_call, &o.theta_put, &o.rho_call,  &o.rho_put,   &o.forward, &o.discount};
  // Per-option arrays: a NaN there is an element policy case, not an argument error.
  BlackScholesMarket<double> market;
  market.rates.rates = &r;
  market.rates.dividends = &q;
  market.volatilities = &v;
  pricer.price(1, &s, &k, &t, market, res);
  return o;
}
double call_price(double s, double k, double t, double r, double q, double v) {
  return price_one(s, k, t, r, q, v).call;
}
double put_price(double s, double k, double t, double r, double q, double v) {
  return price_one(s, k, t, r, q, v).put;
}

TEST(BlackScholesCpu, PutCallParity) {
  double worst = 0;
  for (const auto& c : cunum::testing::black_scholes_grid()) {
    const One o = price_one(c.spot, c.strike, c.expiry, c.rate, c.dividend, c.volatility);
    const double parity = c.spot * std::exp(-c.dividend * c.expiry) - c.strike * std::exp(-c.rate * c.expiry);
    // The price's rounding is relative to its terms S e^{-qT} and K e^{-rT}.
    const double scale = c.spot * std::exp(-c.dividend * c.expiry) + c.strike * std::exp(-c.rate * c.expiry);
    const double error = std::fabs((o.call - o.put) - parity) / scale;
    worst = std::max(worst, error);
    EXPECT_LE(error, 1e-15) << "S " << c.spot << " K " << c.strike << " T " << c.expiry << " sigma " << c.volatility
                            << " r " << c.rate << " q " << c.dividend << ": " << o.call << " " << o.put;
    EXPECT_NEAR(o.forward, c.spot * std::exp((c.rate - c.dividend) * c.expiry), 1e-14 * o.forward);
    EXPECT_DOUBLE_EQ(o.discount, std::exp(-c.rate * c.expiry));
  }
  std::printf("[ cunum    ] put-call parity: worst relative residual %.3g\n", worst);
}

// Central differences of the price in S, sigma, T, r; moderate grid (no T of one day,
// where the fourth derivatives make the difference step itself the error).
TEST(BlackScholesCpu, GreeksMatchFiniteDifferences) {
  double worst = 0;
  for (const auto& c : cunum::testing::black_scholes_grid()) {
    if (c.expiry < 0.1 || std::fabs(c.log_moneyness) > 2 || c.volatility < 0.1) continue;
    const double s = c.spot, k = c.strike, t = c.expiry, r = c.rate, q = c.dividend, v = c.volatility;
    const One o = price_one(s, k, t, r, q, v);
    const auto check = [&](double analytic, double numeric, double scale, const char* name) {
      const double error = std::fabs(analytic - numeric) / scale;
      worst = std::max(worst, error);
      EXPECT_LE(error, 2e-6) << name << " S " << s << " K " << k << " T " << t << " r " << r << " q " << q
                             << " sigma " << v << ": " << analytic << " vs " << numeric;
    };
    const double hs = 1e-4 * s * v * std::sqrt(t), hv = 1e-4 * v, ht = 1e-4 * t, hr = 1e-5;
    const double scale_s = s, scale_price = s;
    check(o.delta_call, (call_price(s + hs, k, t, r, q, v) - call_price(s - hs, k, t, r, q, v)) / (2 * hs), 1,
          "delta_call");
    check(o.delta_put, (put_price(s + hs, k, t, r, q, v) - put_price(s - hs, k, t, r, q, v)) / (2 * hs), 1,
          "delta_put");
    check(o.gamma * scale_s,
          (price_one(s + hs, k, t, r, q, v).delta_call - price_one(s - hs, k, t, r, q, v).delta_call) / (2 * hs) *
              scale_s,
          1, "gamma");
    check(o.vega, (call_price(s, k, t, r, q, v + hv) - call_price(s, k, t, r, q, v - hv)) / (2 * hv),
          scale_price * std::sqrt(t), "vega");
    check(o.theta_call, -(call_price(s, k, t + ht, r, q, v) - call_price(s, k, t - ht, r, q, v)) / (2 * ht),
          scale_price, "theta_call");
    check(o.theta_put, -(put_price(s, k, t + ht, r, q, v) - put_price(s, k, t - ht, r, q, v)) / (2 * ht),
          scale_price, "theta_put");
    check(o.rho_call, (call_price(s, k, t, r + hr, q, v) - call_price(s, k, t, r - hr, q, v)) / (2 * hr),
          scale_price * t, "rho_call");
    check(o.rho_put, (put_price(s, k, t, r + hr, q, v) - put_price(s, k, t, r - hr, q, v)) / (2 * hr),
          scale_price * t, "rho_put");
  }
  std::printf("[ cunum    ] Greeks vs central differences: worst scaled difference %.3g\n", worst);
}

// sigma -> price -> sigma over the grid, calls and puts (each the out-of-the-money
// side and the in-the-money side). A price rounded by u (relative) moves sigma by
// kappa u with kappa = p / (sigma dp/dsigma), so the error is measured against
// u (1 + kappa). Reports the worst relative error with kappa <= 100 (relative vega
// >= 1e-2) and the worst ratio to that model over every option with a positive normal
// price.
template <class T>
void round_trip(OptionType type, double ratio_tolerance, double error_tolerance) {
  const auto grid = cunum::testing::black_scholes_grid();
  const BlackScholesPricer<T> pricer(BlackScholesOutputs{}, Backend::cpu);
  const BlackScholesPricer<double> exact(BlackScholesOutputs{}, Backend::cpu);
  std::vector<T> prices, spot, strike, expiry, rates, dividends;
  std::vector<const cunum::testing::BlackScholesCase*> kept;
  std::vector<double> kappa;
  for (const auto& c : grid) {
    const One o = price_one(c.spot, c.strike, c.expiry, c.rate, c.dividend, c.volatility);
    const double p = type == OptionType::call ? o.call : o.put;
    // Where the price carries sigma to better than 1e-3 (kappa u < 1e-3): elsewhere it
    // is within rounding of a bound and may be rejected.
    if (!(p > 1e3 * std::numeric_limits<T>::min()) || !(o.vega > 0) ||
        !(p / (c.volatility * o.vega) * std::numeric_limits<T>::epsilon() < 1e-3)) {
      continue;
    }
    prices.push_back(static_cast<T>(p));
    spot.push_back(static_cast<T>(c.spot));
    strike.push_back(static_cast<T>(c.strike));
    expiry.push_back(static_cast<T>(c.expiry));
    rates.push_back(static_cast<T>(c.rate));
    dividends.push_back(static_cast<T>(c.dividend));
    kept.push_back(&c);
    kappa.push_back(p / (c.volatility * o.vega));
  }
  // Per-option rates exercise the array path.
  BlackScholesRates<T> market_rates;
  market_rates.rates = rates.data();
  market_rates.dividends = dividends.data();
  const auto result = pricer.implied_volatility(prices, spot, strike, expiry, market_rates, type);
  EXPECT_EQ(result.rejected, 0);
  const double u = std::numeric_limits<T>::epsilon() / 2;
  double worst = 0, worst_ratio = 0;
  std::size_t worst_index = 0, worst_ratio_index = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    double expected = kept[i]->volatility;
    if constexpr (std::is_same_v<T, float>) {
      // The float inputs define a slightly different option: its sigma is the double
      // inversion of the float price on the float inputs.
      BlackScholesRates<double> r1;
      r1.rate = rates[i];
      r1.dividend = dividends[i];
      const double s = spot[i], k = strike[i], t = expiry[i], pf = prices[i];
      exact.implied_volatility(1, &pf, &s, &k, &t, r1, type, &expected);
    }
    const double error = std::fabs(static_cast<double>(result.volatility[i]) - expected) / expected;
    const double ratio = error / (u * (1 + kappa[i]));
    EXPECT_LE(ratio, ratio_tolerance) << "ln(F/K) " << kept[i]->log_moneyness << " T " << kept[i]->expiry
                                      << " sigma " << kept[i]->volatility << " error " << error;
    if (!(ratio <= worst_ratio)) {
      worst_ratio = ratio;
      worst_ratio_index = i;
    }
    if (kappa[i] <= 100 && !(error <= worst)) {
      worst = error;
      worst_index = i;
    }
  }
  ASSERT_FALSE(kept.empty());
  const auto& w = *kept[worst_index];
  const auto& wr = *kept[worst_ratio_index];
  std::printf("[ cunum    ] %s %s round trip over %zu options: worst relative error %.3g with relative vega >= 1e-2 "
              "(at ln(F/K) %g T %g sigma %g r %g q %g); worst error / (u (1 + kappa)) %.3g (at ln(F/K) %g "
              "T %g sigma %g)\n",
              sizeof(T) == 8 ? "double" : "float", to_string(type), kept.size(), worst, w.log_moneyness, w.expiry,
              w.volatility, w.rate, w.dividend, worst_ratio, wr.log_moneyness, wr.expiry, wr.volatility);
  EXPECT_LE(worst, error_tolerance);
}

TEST(BlackScholesCpu, ImpliedVolatilityRoundTripDouble) {
  round_trip<double>(OptionType::call, 128, 1e-13);
  round_trip<double>(OptionType::put, 128, 1e-13);
}

TEST(BlackScholesCpu, ImpliedVolatilityRoundTripFloat) {
  round_trip<float>(OptionType::call, 128, 1e-5);
  round_trip<float>(OptionType::put, 128, 1e-5);
}

// Every output against the mpmath oracle, and the implied volatility round trip on its
// options (black_scholes_oracle.hpp).
TEST(BlackScholesCpu, EveryOutputMatchesTheOracleDouble) {
  cunum::testing::expect_pricer_matches_oracle<double>(Backend::cpu, "cpu");
}

TEST(BlackScholesCpu, EveryOutputMatchesTheOracleFloat) {
  cunum::testing::expect_pricer_matches_oracle<float>(Backend::cpu, "cpu");
}

TEST(BlackScholesCpu, ImpliedVolatilityRoundTripOnTheOracle) {
  cunum::testing::expect_implied_volatility_round_trip(Backend::cpu, "cpu");
}

// Implied volatilities over the whole domain against mpmath (implied_volatility_oracle.hpp).
TEST(BlackScholesCpu, ImpliedVolatilityMatchesTheOracleDouble) {
  cunum::testing::expect_implied_volatility_matches_oracle<double>(Backend::cpu, "cpu");
}

TEST(BlackScholesCpu, ImpliedVolatilityMatchesTheOracleFloat) {
  cunum::testing::expect_implied_volatility_matches_oracle<float>(Backend::cpu, "cpu");
}

TEST(BlackScholesCpu, ImpliedVolatilityRejectsPricesOutsideTheBounds) {
  const BlackScholesPricer<double> pricer(BlackScholesOutputs{}, Backend::cpu);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double s = 100, k = 90, t = 1, r = 0.05, q = 0.01;
  const double forward = s * std::exp((r - q) * t), discount = std::exp(-r * t);
  const double intrinsic = discount * (forward - k);
  BlackScholesRates<double> rates;
  rates.rate = r;
  rates.dividend = q;
  // below intrinsic, at the upper bound, NaN, infinite, negative: rejected; exactly
  // intrinsic: 0; an invalid option (K < 0): NaN, not counted; a good price: finite.
  const std::vector<double> prices = {0.999 * intrinsic, s * std::exp(-q * t), nan, INFINITY, -1, intrinsic, 5,
                                      call_price(s, k, t, r, q, 0.3)};
  const std::vector<double> strikes = {k, k, k, k, k, k, -1, k};
  const auto result =
      pricer.implied_volatility(prices, std::vector<double>(prices.size(), s), strikes,
                                std::vector<double>(prices.size(), t), rates, OptionType::call);
  EXPECT_EQ(result.rejected, 5);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(std::isnan(result.volatility[i])) << i;
  EXPECT_EQ(result.volatility[5], 0.0);
  EXPECT_TRUE(std::isnan(result.volatility[6]));
  EXPECT_NEAR(result.volatility[7], 0.3, 1e-14);
}

TEST(BlackScholesCpu, InvalidElementPolicy) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto all_nan = [](const One& o) {
    const double* v = &o.call;
    for (int i = 0; i < 12; ++i) {
      if (!std::isnan(v[i])) return false;
    }
    return true;
  };
  EXPECT_TRUE(all_nan(price_one(nan, 100, 1, 0.05, 0, 0.2)));
  EXPECT_TRUE(all_nan(price_one(100, nan, 1, 0.05, 0, 0.2)));
  EXPECT_TRUE(all_nan(price_one(100, 100, nan, 0.05, 0, 0.2)));
  EXPECT_TRUE(all_nan(price_one(100, 100, 1, nan, 0, 0.2)));
  EXPECT_TRUE(all_nan(price_one(100, 100, 1, 0.05, nan, 0.2)));
  EXPECT_TRUE(all_nan(price_one(100, 100, 1, 0.05, 0, nan)));
  EXPECT_TRUE(all_nan(price_one(-1, 100, 1, 0.05, 0, 0.2)));
  EXPECT_TRUE(all_nan(price_one(100, -1, 1, 0.05, 0, 0.2)));
  EXPECT_TRUE(all_nan(price_one(100, 100, -1, 0.05, 0, 0.2)));
  EXPECT_TRUE(all_nan(price_one(100, 100, 1, 0.05, 0, -0.2)));
  EXPECT_TRUE(all_nan(price_one(INFINITY, 100, 1, 0.05, 0, 0.2)));

  // sigma = 0, in the money: discounted intrinsic of the forward, a step delta.
  const double r = 0.05, q = 0.02, t = 2;
  const double forward = 100 * std::exp((r - q) * t), discount = std::exp(-r * t), carry = std::exp(-q * t);
  One o = price_one(100, 90, t, r, q, 0);
  EXPECT_NEAR(o.call, discount * (forward - 90), 1e-12);
  EXPECT_EQ(o.put, 0.0);
  EXPECT_EQ(o.delta_call, carry);
  EXPECT_EQ(o.delta_put, 0.0);
  EXPECT_EQ(o.gamma, 0.0);
  EXPECT_EQ(o.vega, 0.0);
  EXPECT_NEAR(o.theta_call, -r * 90 * discount + q * 100 * carry, 1e-12);
  EXPECT_NEAR(o.rho_call, 90 * t * discount, 1e-12);
  EXPECT_EQ(o.rho_put, 0.0);
  // T = 0, out of the money: 0 and the put's intrinsic value.
  o = price_one(100, 110, 0, r, q, 0.3);
  EXPECT_EQ(o.call, 0.0);
  EXPECT_EQ(o.put, 10.0);
  EXPECT_EQ(o.delta_call, 0.0);
  EXPECT_EQ(o.delta_put, -1.0);
  EXPECT_EQ(o.gamma, 0.0);
  EXPECT_EQ(o.vega, 0.0);
  EXPECT_EQ(o.theta_call, 0.0);
  // T = 0 at the money: half-step delta, infinite gamma and decay.
  o = price_one(100, 100, 0, r, q, 0.3);
  EXPECT_EQ(o.call, 0.0);
  EXPECT_EQ(o.delta_call, 0.5);
  EXPECT_EQ(o.gamma, INFINITY);
  EXPECT_EQ(o.vega, 0.0);
  EXPECT_EQ(o.theta_call, -INFINITY);
  // sigma = 0 at the forward: vega is its limit, gamma infinite, no decay.
  o = price_one(100, 100 * std::exp((r - q) * t), t, r, q, 0);
  EXPECT_NEAR(o.vega, 100 * carry * std::sqrt(t) / std::sqrt(2 * M_PI), 1e-12);
  EXPECT_EQ(o.gamma, INFINITY);
  // S = 0: the call is worthless, the put the discounted strike.
  o = price_one(0, 100, t, r, q, 0.3);
  EXPECT_EQ(o.call, 0.0);
  EXPECT_NEAR(o.put, 100 * discount, 1e-12);
  EXPECT_EQ(o.delta_call, 0.0);
  EXPECT_EQ(o.gamma, 0.0);
  EXPECT_EQ(o.vega, 0.0);
  // K = 0: the call is the share less dividends, the put worthless.
  o = price_one(100, 0, t, r, q, 0.3);
  EXPECT_NEAR(o.call, 100 * carry, 1e-12);
  EXPECT_EQ(o.put, 0.0);
  EXPECT_EQ(o.delta_call, carry);
  EXPECT_EQ(o.gamma, 0.0);
  // A bad element does not disturb its neighbours.
  const BlackScholesPricer<double> pricer({BlackScholesOutput::call}, Backend::cpu);
  BlackScholesMarket<double> market;
  market.volatility = 0.2;
  const auto res = pricer.price({100, -1, 100}, {100, 100, 100}, {1, 1, 1}, market);
  EXPECT_NEAR(res.call[0], call_price(100, 100, 1, 0, 0, 0.2), 0);
  EXPECT_TRUE(std::isnan(res.call[1]));
  EXPECT_EQ(res.call[2], res.call[0]);
}

// Magnitudes beyond the normal numbers (evaluate()'s other path, which divides where
// the common one multiplies by reciprocals): each price is its base option's times the
// case's scale (exact scalings), within 1000 u (the two paths round apart, by a few u
// times the price's condition number), or the smallest normal number where it is
// subnormal: nothing of the limits' or the overflows' making.
template <class T>
void extreme_magnitudes_are_those_of_their_base_options() {
  const auto cases = cunum::testing::black_scholes_extreme_cases<T>();
  const BlackScholesPricer<T> pricer({BlackScholesOutput::call, BlackScholesOutput::put}, Backend::cpu);
  const auto price = [&](T s, T k, T t, T r, T q, T v) {
    BlackScholesMarket<T> market;
    market.rates.rates = &r;
    market.rates.dividends = &q;
    market.volatilities = &v;
    const auto out = pricer.price({s}, {k}, {t}, market);
    return std::make_pair(out.call[0], out.put[0]);
  };
  const double u = std::numeric_limits<T>::epsilon() / 2;
  for (const auto& c : cases) {
    const auto got = price(c.spot, c.strike, c.expiry, c.rate, c.dividend, c.volatility);
    const auto base = price(c.base_spot, c.base_strike, c.base_expiry, c.rate, c.dividend, c.base_volatility);
    for (int side = 0; side < 2; ++side) {
      const double g = side == 0 ? got.first : got.second;
      const double e = static_cast<double>(c.price_scale) * (side == 0 ? base.first : base.second);
      EXPECT_LE(std::fabs(g - e), 1000 * u * std::fabs(e) + std::numeric_limits<T>::min())
          << (sizeof(T) == 4 ? "float " : "double ") << c.name << (side == 0 ? " call " : " put ") << g << " vs " << e;
    }
  }
}

TEST(BlackScholesCpu, ExtremeMagnitudesAreThoseOfTheirBaseOptions) {
  extreme_magnitudes_are_those_of_their_base_options<float>();
  extreme_magnitudes_are_those_of_their_base_options<double>();
}

TEST(BlackScholesCpu, ArgumentErrorsNameTheArgument) {
  const BlackScholesPricer<double> pricer({BlackScholesOutput::call, BlackScholesOutput::gamma}, Backend::cpu);
  std::vector<double> a(4, 1.0), out(4), gamma(4);
  BlackScholesMarket<double> market;
  market.volatility = 0.2;
  BlackScholesResults<double> results;
  results.call = out.data();
  results.gamma = gamma.data();
  EXPECT_CUNUM_ERROR(pricer.price(-1, a.data(), a.data(), a.data(), market, results), ErrorCode::invalid_argument,
                     "'n'");
  EXPECT_CUNUM_ERROR(pricer.price(4, nullptr, a.data(), a.data(), market, results), ErrorCode::invalid_argument,
                     "spot");
  EXPECT_CUNUM_ERROR(pricer.price(4, a.data(), nullptr, a.data(), market, results), ErrorCode::invalid_argument,
                     "strike");
  EXPECT_CUNUM_ERROR(pricer.price(4, a.data(), a.data(), nullptr, market, results), ErrorCode::invalid_argument,
                     "expiry");
  BlackScholesResults<double> missing = results;
  missing.gamma = nullptr;
  EXPECT_CUNUM_ERROR(pricer.price(4, a.data(), a.data(), a.data(), market, missing), ErrorCode::invalid_argument,
                     "results.gamma");
  BlackScholesMarket<double> bad = market;
  bad.volatility = NAN;
  EXPECT_CUNUM_ERROR(pricer.price(4, a.data(), a.data(), a.data(), bad, results), ErrorCode::invalid_argument,
                     "market.volatility");
  bad = market;
  bad.rates.rate = INFINITY;
  EXPECT_CUNUM_ERROR(pricer.price(4, a.data(), a.data(), a.data(), bad, results), ErrorCode::invalid_argument,
                     "market.rates.rate");
  bad = market;
  bad.rates.dividend = NAN;
  EXPECT_CUNUM_ERROR(pricer.price(4, a.data(), a.data(), a.data(), bad, results), ErrorCode::invalid_argument,
                     "market.rates.dividend");
  // A per-option array replaces its scalar, which is then not checked.
  bad = market;
  bad.volatility = NAN;
  bad.volatilities = a.data();
  EXPECT_NO_THROW(pricer.price(4, a.data(), a.data(), a.data(), bad, results));
  EXPECT_CUNUM_ERROR(pricer.price({1.0, 2.0}, {1.0}, {1.0, 1.0}, market), ErrorCode::invalid_argument, "strike");
  EXPECT_CUNUM_ERROR(BlackScholesPricer<double>(BlackScholesOutputs::all(), static_cast<Backend>(99)),
                     ErrorCode::invalid_argument, "'placement.backend'");
  BlackScholesOutputs junk;
  junk.bits = 1u << 20;
  EXPECT_CUNUM_ERROR(BlackScholesPricer<double>(junk, Backend::cpu), ErrorCode::invalid_argument, "outputs");
  BlackScholesRates<double> rates;
  EXPECT_CUNUM_ERROR(pricer.implied_volatility(4, a.data(), a.data(), a.data(), a.data(), rates,
                                               static_cast<OptionType>(7), out.data()),
                     ErrorCode::invalid_argument, "type");
  EXPECT_CUNUM_ERROR(pricer.implied_volatility(4, nullptr, a.data(), a.data(), a.data(), rates, OptionType::call,
                                               out.data()),
                     ErrorCode::invalid_argument, "prices");
  EXPECT_CUNUM_ERROR(pricer.implied_volatility(4, a.data(), a.data(), a.data(), a.data(), rates, OptionType::call,
                                               nullptr),
                     ErrorCode::invalid_argument, "volatility");
  rates.dividend = NAN;
  EXPECT_CUNUM_ERROR(pricer.implied_volatility(4, a.data(), a.data(), a.data(), a.data(), rates, OptionType::call,
                                               out.data()),
                     ErrorCode::invalid_argument, "rates.dividend");
  EXPECT_CUNUM_ERROR(pricer.implied_volatility(-2, a.data(), a.data(), a.data(), a.data(), rates, OptionType::call,
                                               out.data()),
                     ErrorCode::invalid_argument, "'n'");
  // n == 0 accepts null pointers and writes nothing.
  EXPECT_NO_THROW(pricer.price(0, nullptr, nullptr, nullptr, market, BlackScholesResults<double>{}));
}

// Awkward sizes, random per-option markets, outputs poisoned: every requested output
// written with the single-option value, the unrequested ones untouched.
template <class T>
void awkward_sizes_test() {
  const BlackScholesOutputs wanted{BlackScholesOutput::call, BlackScholesOutput::delta_put, BlackScholesOutput::vega,
                                   BlackScholesOutput::theta_call, BlackScholesOutput::discount};
  const BlackScholesPricer<T> pricer(wanted, Backend::cpu);
  const BlackScholesPricer<T> everything(BlackScholesOutputs::all(), Backend::cpu);
  std::mt19937_64 engine(cunum::testing::fresh_seed() ^ sizeof(T));
  std::uniform_real_distribution<double> u(0, 1);
  for (std::int64_t n : {0, 1, 2, 3, 7, 31, 257, 1021, 65537}) {
    std::vector<T> s(n), k(n), t(n), r(n), q(n), v(n);
    for (std::int64_t i = 0; i < n; ++i) {
      s[i] = static_cast<T>(50 + 100 * u(engine));
      k[i] = static_cast<T>(50 + 100 * u(engine));
      t[i] = static_cast<T>(0.01 + 5 * u(engine));
      r[i] = static_cast<T>(-0.02 + 0.12 * u(engine));
      q[i] = static_cast<T>(-0.02 + 0.12 * u(engine));
      v[i] = static_cast<T>(0.05 + u(engine));
    }
    BlackScholesMarket<T> market;
    market.rates.rates = r.data();
    market.rates.dividends = q.data();
    market.volatilities = v.data();
    const T poison = static_cast<T>(-12345.0);
    BlackScholesHostResults<T> out;
    BlackScholesResults<T> results;
    for (BlackScholesOutput output : cunum::BlackScholesOutputValues::all) {
      out[output].assign(static_cast<std::size_t>(n + 1), poison);
      results[output] = out[output].data();
    }
    pricer.price(n, s.data(), k.data(), t.data(), market, results);
    const auto reference = everything.price(s, k, t, market);
    for (BlackScholesOutput output : cunum::BlackScholesOutputValues::all) {
      for (std::int64_t i = 0; i < n; ++i) {
        if (wanted.contains(output)) {
          ASSERT_EQ(out[output][i], reference[output][i]) << to_string(output) << " n " << n << " i " << i;
        } else {
          ASSERT_EQ(out[output][i], poison) << "unrequested " << to_string(output);
        }
      }
      ASSERT_EQ(out[output][n], poison) << "past the end";
    }
  }
}

TEST(BlackScholesCpu, AMovedFromPricerIsANamedError) {
  BlackScholesPricer<double> source({BlackScholesOutput::call}, Backend::cpu);
  BlackScholesPricer<double> target(std::move(source));
  std::vector<double> spot{100.0}, strike{100.0}, expiry{1.0}, price{-1.0}, volatility{-1.0};
  BlackScholesMarket<double> market;
  market.volatility = 0.2;
  BlackScholesResults<double> results;
  results.call = price.data();
  EXPECT_CUNUM_ERROR(source.price(1, spot.data(), strike.data(), expiry.data(), market, results),
                     ErrorCode::invalid_argument, "'this' is a moved-from BlackScholesPricer");
  EXPECT_CUNUM_ERROR(source.price(spot, strike, expiry, market), ErrorCode::invalid_argument, "moved-from");
  EXPECT_CUNUM_ERROR(source.implied_volatility(1, price.data(), spot.data(), strike.data(), expiry.data(),
                                               market.rates, OptionType::call, volatility.data()),
                     ErrorCode::invalid_argument, "moved-from");
  EXPECT_CUNUM_ERROR(static_cast<void>(source.backend()), ErrorCode::invalid_argument, "moved-from");
  EXPECT_CUNUM_ERROR(static_cast<void>(source.placement()), ErrorCode::invalid_argument, "moved-from");
  EXPECT_CUNUM_ERROR(static_cast<void>(source.outputs()), ErrorCode::invalid_argument, "moved-from");
  EXPECT_EQ(price[0], -1.0) << "a rejected call must not write its output";
  EXPECT_EQ(volatility[0], -1.0);

  target.price(1, spot.data(), strike.data(), expiry.data(), market, results);
  EXPECT_GT(price[0], 0.0);
  EXPECT_EQ(target.backend(), Backend::cpu);
  EXPECT_TRUE(target.outputs().contains(BlackScholesOutput::call));

  BlackScholesPricer<double> assigned({BlackScholesOutput::put}, Backend::cpu);
  assigned = std::move(target);
  EXPECT_CUNUM_ERROR(target.price(spot, strike, expiry, market), ErrorCode::invalid_argument, "moved-from");
  EXPECT_TRUE(assigned.outputs().contains(BlackScholesOutput::call));
  EXPECT_EQ(assigned.price(spot, strike, expiry, market).call[0], price[0]);
}

// The plan-object contract (cunum/core/placement.hpp) on the CPU backend.
TEST(BlackScholesCpu, TheCpuPlacementTakesNoDevices) {
  const BlackScholesPricer<double> pricer({BlackScholesOutput::call}, Backend::cpu);
  EXPECT_EQ(pricer.placement().backend, Backend::cpu);
  EXPECT_TRUE(pricer.placement().devices.empty());
  cunum::Placement on_device(Backend::cpu);
  on_device.devices = {0};
  EXPECT_CUNUM_ERROR(BlackScholesPricer<double>({BlackScholesOutput::call}, on_device), ErrorCode::invalid_argument,
                     "cunum::BlackScholesPricer: argument 'placement.devices'");
}

TEST(BlackScholesCpu, AwkwardSizesWriteRequestedOutputsOnly) {
  awkward_sizes_test<float>();
  awkward_sizes_test<double>();
}

}  // namespace

// The inversion's own steps (Let's Be Rational: a rational guess per region, then a fixed
// number of Householder steps), over out-of-the-money x in [-100, 0] and total
// volatility s in [1e-5, 100] (prices from e^{x/2} down to 1e-300, every region of the
// guess): beta = b(x, s), inverted, against s. A price's relative rounding moves s by
// u / nu, nu = d ln b / d ln s = s b' / b, so the error is measured in u (1 + 1/nu):
// double's solve (float's solve and one step in double where a float holds beta, else
// two double steps from the double guess) within 256 of it everywhere (measured 112),
// float's one step (solved in float
// from x and beta rounded to floats, as implied_volatility() does) within 64 u_float
// (1 + 1/nu) wherever |x| <= 20 (measured 50: b formed in float loses a few dozen ulps
// out of the money near s ~ 0.07; beyond, where the price of an option e^20 out of the
// money is near its upper bound, within 512: measured 254 at x = -89).
// Reports the guess's own worst relative error where nu >= 1e-2.
#include "src/black_scholes/black_scholes_math.hpp"

namespace {

TEST(BlackScholesCpu, ImpliedTotalVolatilityIsAccurateAfterItsFixedSteps) {
  namespace bs = cunum::detail::bs;
  const double u = std::numeric_limits<double>::epsilon() / 2;
  const double u_float = std::numeric_limits<float>::epsilon() / 2;
  double worst_guess = 0, worst_double = 0, worst_float = 0;
  std::size_t inverted = 0;
  for (int i = 0; i <= 160; ++i) {
    const double x = i == 0 ? 0.0 : -1e-6 * std::pow(1e8, (i - 1) / 159.0);
    const bs::NormalisedOtmCall price(x);
    for (int j = 0; j <= 240; ++j) {
      const double s = 1e-5 * std::pow(1e7, j / 240.0);
      const bs::NormalisedBlackValues v = price.at(s);
      const double beta = v.price;
      if (!(beta > 1e-300) || !(beta < price.upper())) continue;
      ++inverted;
      const double nu = s * v.vega / beta;
      const auto error = [&](double solved) { return std::fabs(solved - s) / s; };
      const double in_double =
          error(bs::implied_total_vol_in<double>(x, price.upper(), beta)) / (u * (1 + 1 / nu));
      ASSERT_LE(in_double, 256) << "x " << x << " s " << s << " nu " << nu;
      worst_double = std::max(worst_double, in_double);
      const double in_float =
          error(bs::implied_total_vol_in<float>(x, price.upper(), beta)) / (u_float * (1 + 1 / nu));
      ASSERT_LE(in_float, x >= -20 ? 64 : 512) << "x " << x << " s " << s << " nu " << nu;
      if (x >= -20) worst_float = std::max(worst_float, in_float);
      if (nu >= 1e-2) worst_guess = std::max(worst_guess, error(bs::implied_total_vol(price, beta, 0)));
    }
  }
  std::printf("[ cunum    ] implied total vol over %zu (x, s): double worst %.3g u (1 + 1/nu); float (%d step) worst "
              "%.3g u_float (1 + 1/nu) for |x| <= 20; the guess alone worst %.3g relative where nu >= 1e-2\n",
              inverted, worst_double, bs::kHouseholderSteps<float>, worst_float, worst_guess);
}

}  // namespace

// price() and implied_volatility() are element-wise: option i's inputs are read before
// its outputs are written, by the same thread, so an output may be an input array
// itself (in place, the same numbers as out of place). Any other overlap, with an input
// or between outputs, is refused naming the output, before anything is written.
TEST(BlackScholesCpu, AnOutputMayBeAnInputButOverlapsNothingElse) {
  const BlackScholesPricer<double> pricer({BlackScholesOutput::call, BlackScholesOutput::put}, Backend::cpu);
  const std::vector<double> spot{90, 100, 110, 120}, strike{100, 100, 100, 100}, expiry{0.5, 1, 1.5, 2};
  BlackScholesMarket<double> market;
  market.rates.rate = 0.03;
  market.volatility = 0.25;
  const BlackScholesHostResults<double> expected = pricer.price(spot, strike, expiry, market);
  // In place: the call over the spots, the put over the expiries.
  std::vector<double> s = spot, k = strike, t = expiry;
  BlackScholesResults<double> in_place;
  in_place.call = s.data();
  in_place.put = t.data();
  pricer.price(4, s.data(), k.data(), t.data(), market, in_place);
  EXPECT_EQ(s, expected.call);
  EXPECT_EQ(t, expected.put);

  // Arrays shifted by one value over the inputs, or onto each other.
  std::vector<double> buffer(16, 0.0);
  std::copy(spot.begin(), spot.end(), buffer.begin());
  const std::vector<double> before = buffer;
  std::vector<double> put(4);
  BlackScholesResults<double> shifted;
  shifted.call = buffer.data() + 1;
  shifted.put = put.data();
  EXPECT_CUNUM_ERROR(pricer.price(4, buffer.data(), strike.data(), expiry.data(), market, shifted),
                     ErrorCode::invalid_argument, "argument 'results.call' overlaps 'spot'");
  BlackScholesMarket<double> per_option = market;
  per_option.volatilities = buffer.data() + 8;
  shifted.call = buffer.data() + 6;
  EXPECT_CUNUM_ERROR(pricer.price(4, spot.data(), strike.data(), expiry.data(), per_option, shifted),
                     ErrorCode::invalid_argument, "argument 'results.call' overlaps 'market.volatilities'");
  BlackScholesResults<double> shared;
  shared.call = buffer.data() + 4;
  shared.put = buffer.data() + 4;
  EXPECT_CUNUM_ERROR(pricer.price(4, spot.data(), strike.data(), expiry.data(), market, shared),
                     ErrorCode::invalid_argument, "argument 'results.put' overlaps 'results.call'");
  EXPECT_EQ(buffer, before);
  EXPECT_EQ(put, std::vector<double>(4, 0.0));

  // Implied volatility in place over the prices; the count apart from every array.
  std::vector<double> volatility = expected.call;
  std::int64_t rejected = -1;
  pricer.implied_volatility(4, volatility.data(), spot.data(), strike.data(), expiry.data(), market.rates,
                            cunum::OptionType::call, volatility.data(), &rejected);
  EXPECT_EQ(rejected, 0);
  for (double sigma : volatility) EXPECT_NEAR(sigma, 0.25, 1e-12);
  const std::vector<double> prices = expected.call;
  std::vector<double> room(8, -1.0);
  EXPECT_CUNUM_ERROR(pricer.implied_volatility(4, prices.data(), spot.data(), strike.data(), expiry.data(),
                                               market.rates, cunum::OptionType::call, room.data() + 1,
                                               reinterpret_cast<std::int64_t*>(room.data() + 4)),
                     ErrorCode::invalid_argument, "argument 'rejected' overlaps 'volatility'");
  EXPECT_CUNUM_ERROR(pricer.implied_volatility(4, room.data(), spot.data(), strike.data(), expiry.data(),
                                               market.rates, cunum::OptionType::call, room.data() + 2),
                     ErrorCode::invalid_argument, "argument 'volatility' overlaps 'prices'");
  EXPECT_EQ(room, std::vector<double>(8, -1.0));
}

// Backend::cuda without a device is no_device naming the constructor, never a CPU fallback.
TEST(BlackScholesCpu, CudaWithoutADeviceIsNoDevice) {
  if (cunum::device_count() > 0) GTEST_SKIP() << "a CUDA device is present: the refusal cannot be shown here";
  EXPECT_CUNUM_ERROR(BlackScholesPricer<float>({BlackScholesOutput::call}, Backend::cuda), ErrorCode::no_device,
                     "cunum::BlackScholesPricer");
}

// The Mills ratios of the prices (bs::mills_ratios), compiled for the host from the
// same __host__ __device__ code as the kernels.
namespace {

namespace bs = cunum::detail::bs;

// m(a) in long double (x86's 64-bit significand: exact at double's scale here, a <= 60).
long double mills_long(long double a) {
  return std::sqrt(std::acos(-1.0L) / 2) * std::erfc(a / std::sqrt(2.0L)) * std::exp(a * a / 2);
}

// The minimax Mills ratios against m(a) in long double, over a in [0, 60] on a grid of
// 2^20 steps and from there on far into the tail (against the asymptotic series in long
// double, whose truncation is below 1e-25 from a = 60), in units of u of each type.
// Fits: 0.37 u (float), 0.15 u (double); the rounding of the transformed argument, the
// division and Horner's rule add the rest (printed; with the host's separate multiply
// and add, more than the device's fused multiply-adds).
template <class T>
void minimax_mills_ratio_is_within_few_ulps(double bound) {
  const long double u = std::numeric_limits<T>::epsilon() / 2;
  long double worst = 0;
  double worst_a = 0;
  const auto check = [&](T a, long double truth) {
    const T minimax = bs::mills_ratios(a, T(1)).first;
    const long double error = std::fabs(static_cast<long double>(minimax) - truth) / (truth * u);
    if (!(error <= worst)) {
      worst = error;
      worst_a = static_cast<double>(a);
    }
  };
  constexpr int kSteps = 1 << 20;
  for (int i = 0; i <= kSteps; ++i) {
    const T a = T(60) * static_cast<T>(i) / kSteps;
    check(a, mills_long(a));
  }
  for (T a = T(60); a < T(1e30); a *= T(1.37)) {
    const long double z = 1.0L / (static_cast<long double>(a) * a);
    long double series = 1, term = 1;
    for (int n = 1; n <= 12; ++n) series += (term *= -(2 * n - 1) * z);
    check(a, series / a);
  }
  std::printf("[ cunum    ] minimax Mills ratio (%s): worst relative error %.3g u at a = %g\n",
              std::is_same_v<T, float> ? "float" : "double", static_cast<double>(worst), worst_a);
  EXPECT_LE(worst, bound);
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  EXPECT_EQ(bs::mills_ratios(inf, inf).first, T(0));
  EXPECT_TRUE(std::isnan(bs::mills_ratios(nan, nan).first));
  // A pair with one member beyond the core (double: the asymptotic series) and one within.
  const bs::MillsRatios<T> pair = bs::mills_ratios(T(0.5), T(70));
  EXPECT_NEAR(static_cast<double>(pair.first), static_cast<double>(mills_long(0.5L)),
              static_cast<double>(bound * u * mills_long(0.5L)));
  EXPECT_NEAR(static_cast<double>(pair.second), static_cast<double>(mills_long(70)),
              static_cast<double>(bound * u * mills_long(70)));
}

TEST(BlackScholesCpu, MinimaxMillsRatioIsWithinFewUlps) {
  minimax_mills_ratio_is_within_few_ulps<float>(6.0);
  minimax_mills_ratio_is_within_few_ulps<double>(8.0);
}

}  // namespace
