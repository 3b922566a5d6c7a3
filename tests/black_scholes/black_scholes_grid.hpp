#pragma once
// The test grid of the Black-Scholes suites, and the API names they use: moneyness ln(F/K) in [-5, 5], T in
// [1/365, 30], sigma in [0.01, 3], r and q in [-0.02, 0.10], spot 100.

#include <cmath>
#include <limits>
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

// Options whose magnitudes leave the normal numbers of T, each beside a base option of
// normal magnitudes whose prices, times price_scale, are theirs exactly (a power of two
// scales spot and strike, and the prices with them; t / 2^(2k) with sigma 2^k keeps
// sigma sqrt(T) when r = q = 0; a total volatility too small or too large to matter
// gives the limits of the base). min_exponent: T's smallest normal number is 2^(m - 1).
template <class T>
struct BlackScholesExtremeCase {
  const char* name;
  T spot, strike, expiry, rate, dividend, volatility;
  T base_spot, base_strike, base_expiry, base_volatility, price_scale;
};

template <class T>
std::vector<BlackScholesExtremeCase<T>> black_scholes_extreme_cases() {
  const int m = std::numeric_limits<T>::min_exponent - 1;  // 2^m: the smallest normal number
  const int top = std::numeric_limits<T>::max_exponent;    // 2^top: beyond the largest
  const auto two = [](int e) { return std::ldexp(T(1), e); };
  std::vector<BlackScholesExtremeCase<T>> cases = {
      {"subnormal spot and strike", 100 * two(m - 7), 110 * two(m - 7), 1, T(0.03), T(0.01), T(0.2), 100, 110, 1,
       T(0.2), two(m - 7)},
      {"spot and strike beyond the reciprocal of the smallest normal", 100 * two(top - 8), 110 * two(top - 8), 1,
       T(0.03), T(0.01), T(0.2), 100, 110, 1, T(0.2), two(top - 8)},
      {"subnormal strike, normal spot", two(20 + m - 10), 100 * two(m - 10), 1, T(0.03), T(0.01), T(0.4), two(20), 100,
       1, T(0.4), two(m - 10)},
      {"subnormal expiry", 100, 110, two(m - 4), 0, 0, T(0.2) * two(-(m - 4) / 2), 100, 110, 1, T(0.2), 1},
      {"subnormal total volatility, call out of the money", 100, 110, two(m + 60), 0, 0, two(m / 2 - 35), 100, 110,
       two(m + 60), 0, 1},
      {"subnormal total volatility, call in the money", 110, 100, two(m + 60), 0, 0, two(m / 2 - 35), 110, 100,
       two(m + 60), 0, 1},
      {"total volatility beyond the reciprocal of the smallest normal", 100, 110, two(60), 0, 0,
       two(top - 31), 100, 110, 1, two(20), 1},
  };
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
