#pragma once
// Shared by the Monte Carlo suites: a grid of options, the closed forms they are
// checked against, and the statistical acceptance rule.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cunum/black_scholes.hpp"
#include "cunum/monte_carlo.hpp"

namespace cunum::testing {

// The precisions every typed suite runs.
using RealTypes = ::testing::Types<float, double>;

// In, at and out of the money, short and long, with and without carry.
template <class T>
std::vector<MonteCarloOption<T>> option_grid() {
  std::vector<MonteCarloOption<T>> grid;
  const double strikes[] = {80, 100, 125};
  const double expiries[] = {0.25, 1.0, 3.0};
  const double vols[] = {0.15, 0.4};
  for (double k : strikes) {
    for (double t : expiries) {
      for (double v : vols) {
        MonteCarloOption<T> o;
        o.spot = T(100);
        o.strike = T(k);
        o.expiry = T(t);
        o.rate = T(0.03);
        o.dividend = T(k == 100 ? 0.0 : 0.02);
        o.volatility = T(v);
        grid.push_back(o);
      }
    }
  }
  return grid;
}

// Black-Scholes call and put (the black_scholes module, CPU backend, double).
inline BlackScholesHostResults<double> black_scholes_of(const std::vector<MonteCarloOption<double>>& options,
                                                        BlackScholesOutputs outputs) {
  std::vector<double> s, k, t, r, q, v;
  for (const auto& o : options) {
    s.push_back(o.spot);
    k.push_back(o.strike);
    t.push_back(o.expiry);
    r.push_back(o.rate);
    q.push_back(o.dividend);
    v.push_back(o.volatility);
  }
  BlackScholesMarket<double> market;
  market.rates.rates = r.data();
  market.rates.dividends = q.data();
  market.volatilities = v.data();
  return BlackScholesPricer<double>(outputs, Backend::cpu).price(s, k, t, market);
}

// The estimate lies within `sigmas` standard errors of the truth (plus `slack`, for
// truths that are themselves approximations).
inline void expect_within_errors(double estimate, double error, double truth, const char* what, int index,
                                 double sigmas = 4.0, double slack = 0.0) {
  EXPECT_LE(std::abs(estimate - truth), sigmas * error + slack)
      << what << " option " << index << ": estimate " << estimate << " +- " << error << ", truth " << truth;
  EXPECT_GT(error, 0.0) << what << " option " << index;
}

// The payoffs MonteCarloPricer::price() prices on MonteCarloOption batches (not the
// multi-asset ones, not custom).
inline bool one_asset_library_payoff(MonteCarloPayoff payoff) {
  return payoff != MonteCarloPayoff::basket && payoff != MonteCarloPayoff::best_of &&
         payoff != MonteCarloPayoff::worst_of && payoff != MonteCarloPayoff::custom;
}

// Whether two estimates are the same bits, field by field (a whole-struct memcmp would
// also compare the padding of MonteCarloEstimate<float>, which nothing writes).
template <class T>
bool bit_identical(const MonteCarloEstimate<T>& a, const MonteCarloEstimate<T>& b) {
  const T fields_a[] = {a.price, a.standard_error, a.confidence_low, a.confidence_high, a.delta,
                        a.delta_standard_error, a.vega, a.vega_standard_error, a.control_coefficient};
  const T fields_b[] = {b.price, b.standard_error, b.confidence_low, b.confidence_high, b.delta,
                        b.delta_standard_error, b.vega, b.vega_standard_error, b.control_coefficient};
  return std::memcmp(fields_a, fields_b, sizeof(fields_a)) == 0 && a.paths == b.paths;
}

template <class T>
bool bit_identical(const MonteCarloAssetGreeks<T>& a, const MonteCarloAssetGreeks<T>& b) {
  const T fields_a[] = {a.delta, a.delta_standard_error, a.vega, a.vega_standard_error};
  const T fields_b[] = {b.delta, b.delta_standard_error, b.vega, b.vega_standard_error};
  return std::memcmp(fields_a, fields_b, sizeof(fields_a)) == 0;
}

}  // namespace cunum::testing
