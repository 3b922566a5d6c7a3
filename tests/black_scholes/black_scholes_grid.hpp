#pragma once
// The test grid of the Black-Scholes suites, and the API names they use: moneyness ln(F/K) in [-5, 5], T in
// [1/365, 30], sigma in [0.01, 3], r and q in [-0.02, 0.10], spot 100.

#include <cmath>
#include <vector>

#include "cunum/black_scholes.hpp"

namespace cunum::testing {

struct BlackScholesCase {
  double spot, strike, expiry, rate, dividend, volatility, log_moneyness;
};

inline std::vector<BlackScholesCase> black_scholes_grid() {
  std::vector<BlackScholesCase> cases;
  const double expiries[] = {1.0 / 365, 0.1, 1.0, 5.0, 30.0};
  const double volatilities[] = {0.01, 0.1, 0.4, 1.0, 3.0};
  const double rates[] = {-0.02, 0.04, 0.10};
  for (int m = -10; m <= 10; ++m) {
    const double x = 0.5 * m;
    for (double t : expiries) {
      for (double v : volatilities) {
        for (double r : rates) {
          for (double q : rates) {
            const double spot = 100.0;
            const double forward = spot * std::exp((r - q) * t);
            cases.push_back({spot, forward * std::exp(-x), t, r, q, v, x});
          }
        }
      }
    }
  }
  return cases;
}

// The API names the suites use: `using namespace cunum::testing::black_scholes_names;`.
namespace black_scholes_names {
using cunum::Backend;
using cunum::BlackScholesHostResults;
using cunum::BlackScholesMarket;
using cunum::BlackScholesOutput;
using cunum::BlackScholesOutputs;
using cunum::BlackScholesPricer;
using cunum::BlackScholesRates;
using cunum::BlackScholesResults;
using cunum::OptionType;
}  // namespace black_scholes_names

}  // namespace cunum::testing
