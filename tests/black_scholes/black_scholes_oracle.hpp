#pragma once
// The high-precision truth of oracle/black_scholes_oracle.csv (written by
// oracle/generate_oracle.py with mpmath) and the accuracy checks both backends' suites
// run against it: every output within 32 u (1 + kappa) |f| + lambda, u the unit
// roundoff of T, kappa the output's condition number in the CSV, lambda the smallest
// normal number of T (the allowance of gradual underflow); and the implied volatility
// round trip (double) within 1e-13 relative where it is well conditioned.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "cunum/black_scholes.hpp"

#ifndef CUNUM_BLACK_SCHOLES_ORACLE_CSV
#error "CUNUM_BLACK_SCHOLES_ORACLE_CSV must name oracle/black_scholes_oracle.csv (tests/black_scholes/CMakeLists.txt)"
#endif

namespace cunum::testing {

constexpr int kOracleInputs = 6;  // S, K, T, r, q, sigma
constexpr int kOracleOutputs = static_cast<int>(sizeof(BlackScholesOutputValues::all) / sizeof(BlackScholesOutput));

// One option of the CSV: its inputs (float32 values, exact in both precisions), and per
// output (in BlackScholesOutput order) the true value and its condition number. A true
// value below the double range reads as 0.
struct OracleRow {
  double input[kOracleInputs];
  double value[kOracleOutputs];
  double kappa[kOracleOutputs];
};

inline std::vector<OracleRow> read_black_scholes_oracle() {
  std::ifstream file(CUNUM_BLACK_SCHOLES_ORACLE_CSV);
  EXPECT_TRUE(file.good()) << "cannot read " << CUNUM_BLACK_SCHOLES_ORACLE_CSV;
  std::string line;
  std::getline(file, line);
  // The header names the outputs in the library's order: a reordered CSV is refused.
  std::string expected = "spot,strike,expiry,rate,dividend,volatility";
  for (BlackScholesOutput output : BlackScholesOutputValues::all) {
    expected += std::string(",") + to_string(output) + ",kappa_" + to_string(output);
  }
  EXPECT_EQ(line, expected);
  std::vector<OracleRow> rows;
  while (std::getline(file, line)) {
    std::istringstream cells(line);
    std::string cell;
    std::vector<double> numbers;
    // strtod, not stod: a value below the double range is 0, not an exception.
    while (std::getline(cells, cell, ',')) numbers.push_back(std::strtod(cell.c_str(), nullptr));
    EXPECT_EQ(numbers.size(), static_cast<std::size_t>(kOracleInputs + 2 * kOracleOutputs)) << line;
    if (numbers.size() != static_cast<std::size_t>(kOracleInputs + 2 * kOracleOutputs)) continue;
    OracleRow row{};
    for (int i = 0; i < kOracleInputs; ++i) row.input[i] = numbers[i];
    for (int j = 0; j < kOracleOutputs; ++j) {
      row.value[j] = numbers[kOracleInputs + 2 * j];
      row.kappa[j] = numbers[kOracleInputs + 2 * j + 1];
    }
    rows.push_back(row);
  }
  return rows;
}

// The inputs of every row in T, per-option market arrays.
template <class T>
struct OracleBatch {
  std::vector<T> spot, strike, expiry, rate, dividend, volatility;
  BlackScholesMarket<T> market() const {
    BlackScholesMarket<T> m;
    m.rates.rates = rate.data();
    m.rates.dividends = dividend.data();
    m.volatilities = volatility.data();
    return m;
  }
};

template <class T>
OracleBatch<T> oracle_batch(const std::vector<OracleRow>& rows) {
  OracleBatch<T> b;
  std::vector<T>* columns[kOracleInputs] = {&b.spot, &b.strike, &b.expiry, &b.rate, &b.dividend, &b.volatility};
  for (const OracleRow& row : rows) {
    for (int i = 0; i < kOracleInputs; ++i) columns[i]->push_back(static_cast<T>(row.input[i]));
  }
  return b;
}

// The bound the tests hold every output to: relative, in units of u (1 + kappa).
constexpr double kOracleBoundUlps = 32;

// Holds the outputs in `checked` of `out` (the rows priced by one backend in T) to the
// oracle: each within kOracleBoundUlps u (1 + kappa) |f| + lambda. Prints per output the
// worst error / (u (1 + kappa) |f|) over the values far from underflow (|f| >= lambda / u,
// where lambda is at most u |f|), with the option where it occurs.
template <class T>
void expect_matches_oracle(const std::vector<OracleRow>& rows, const BlackScholesHostResults<T>& out,
                           BlackScholesOutputs checked, const char* backend) {
  const double u = std::numeric_limits<T>::epsilon() / 2;
  const double lambda = std::numeric_limits<T>::min();
  const char* precision = std::is_same_v<T, float> ? "float" : "double";
  double overall = 0;
  for (BlackScholesOutput output : BlackScholesOutputValues::all) {
    if (!checked.contains(output)) continue;
    const int j = static_cast<int>(output);
    const std::vector<T>& computed = out[output];
    ASSERT_EQ(computed.size(), rows.size());
    double worst = 0;
    std::size_t worst_row = 0, failures = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const OracleRow& row = rows[i];
      const double f = row.value[j], c = static_cast<double>(computed[i]);
      const double scale = u * (1 + row.kappa[j]) * std::fabs(f);
      const double error = std::fabs(c - f);
      const bool ok = error <= kOracleBoundUlps * scale + lambda;  // false for NaN
      if (!ok && ++failures <= 5) {
        ADD_FAILURE() << backend << " " << precision << " " << to_string(output) << " S " << row.input[0] << " K "
                      << row.input[1] << " T " << row.input[2] << " r " << row.input[3] << " q " << row.input[4]
                      << " sigma " << row.input[5] << ": " << c << " vs " << f << " (kappa " << row.kappa[j]
                      << "): " << error / scale << " u (1 + kappa)";
      }
      if (std::fabs(f) >= lambda / u && !(error / scale <= worst)) {
        worst = error / scale;
        worst_row = i;
      }
    }
    EXPECT_EQ(failures, 0u) << backend << " " << precision << " " << to_string(output) << ": " << failures
                            << " of " << rows.size() << " outside " << kOracleBoundUlps << " u (1 + kappa)";
    const OracleRow& w = rows[worst_row];
    std::printf("[ cunum    ] %s %-6s %-10s worst error %6.2f u (1 + kappa) (S %g K %.6g T %.4g r %g q %g sigma %g, "
                "kappa %.3g)\n",
                backend, precision, to_string(output), worst, w.input[0], w.input[1], w.input[2], w.input[3],
                w.input[4], w.input[5], w.kappa[j]);
    overall = std::max(overall, worst);
  }
  std::printf("[ cunum    ] %s %s over %zu options: worst error %.2f u (1 + kappa), bound %g\n", backend, precision,
              rows.size(), overall, kOracleBoundUlps);
}

// Prices every option of the oracle on `backend` in T, through the kernel of every
// output and through the one of prices alone, and holds both to the oracle.
template <class T>
void expect_pricer_matches_oracle(Backend backend, const char* name) {
  const std::vector<OracleRow> rows = read_black_scholes_oracle();
  ASSERT_FALSE(rows.empty());
  const OracleBatch<T> batch = oracle_batch<T>(rows);
  const BlackScholesPricer<T> pricer(BlackScholesOutputs::all(), backend);
  expect_matches_oracle(rows, pricer.price(batch.spot, batch.strike, batch.expiry, batch.market()),
                        BlackScholesOutputs::all(), name);
  const BlackScholesOutputs prices = {BlackScholesOutput::call, BlackScholesOutput::put, BlackScholesOutput::discount};
  const BlackScholesPricer<T> prices_only(prices, backend);
  expect_matches_oracle(rows, prices_only.price(batch.spot, batch.strike, batch.expiry, batch.market()), prices,
                        (std::string(name) + " prices-only").c_str());
}

// Relative vega nu = sigma dp/dsigma / p = d ln p / d ln sigma: a relative error e in
// the price moves the implied volatility by e / nu, so a price rounded to the nearest
// double alone moves it by up to u / nu. The inversion is well conditioned where nu >=
// kWellConditionedRelativeVega (that rounding then moves sigma by at most 1.1e-14), and
// there the round trip must be within kRoundTripTolerance. Everywhere the price carries
// sigma at all (nu >= kInformativeRelativeVega) it must be within
// kRoundTripModelUlps u (1 + 1/nu): a few roundings of the price, and of sigma itself.
constexpr double kWellConditionedRelativeVega = 1e-2;
constexpr double kRoundTripTolerance = 1e-13;
constexpr double kInformativeRelativeVega = 1e-8;
constexpr double kRoundTripModelUlps = 128;

// sigma -> price -> sigma in double on `backend`, calls and puts, over the oracle's
// options whose true price is a normal double (nu from the oracle's vega and price).
inline void expect_implied_volatility_round_trip(Backend backend, const char* name) {
  const std::vector<OracleRow> rows = read_black_scholes_oracle();
  ASSERT_FALSE(rows.empty());
  const OracleBatch<double> batch = oracle_batch<double>(rows);
  const BlackScholesPricer<double> pricer(BlackScholesOutputs{}, backend);
  const BlackScholesPricer<double> prices_only({BlackScholesOutput::call, BlackScholesOutput::put}, backend);
  const auto prices = prices_only.price(batch.spot, batch.strike, batch.expiry, batch.market());
  BlackScholesRates<double> rates;
  rates.rates = batch.rate.data();
  rates.dividends = batch.dividend.data();
  const double u = std::numeric_limits<double>::epsilon() / 2;
  const int vega = static_cast<int>(BlackScholesOutput::vega);
  const auto where = [&](const OracleRow& row, double nu) {
    std::ostringstream text;
    text << "S " << row.input[0] << " K " << row.input[1] << " T " << row.input[2] << " r " << row.input[3] << " q "
         << row.input[4] << " sigma " << row.input[5] << ", relative vega " << nu;
    return text.str();
  };
  std::size_t well_conditioned = 0;
  for (OptionType type : {OptionType::call, OptionType::put}) {
    const std::vector<double>& price = type == OptionType::call ? prices.call : prices.put;
    const int price_index =
        static_cast<int>(type == OptionType::call ? BlackScholesOutput::call : BlackScholesOutput::put);
    const auto implied = pricer.implied_volatility(price, batch.spot, batch.strike, batch.expiry, rates, type);
    double worst = 0, worst_model = 0;
    std::string worst_where, worst_model_where;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const OracleRow& row = rows[i];
      const double p = row.value[price_index], sigma = row.input[5];
      const double nu = sigma * row.value[vega] / p;
      if (!(p >= std::numeric_limits<double>::min()) || !(nu >= kInformativeRelativeVega)) continue;
      const double error = std::fabs(implied.volatility[i] - sigma) / sigma;
      const double model = error / (u * (1 + 1 / nu));
      EXPECT_LE(model, kRoundTripModelUlps) << name << " " << to_string(type) << " " << where(row, nu)
                                            << ": implied " << implied.volatility[i];
      if (!(model <= worst_model)) {
        worst_model = model;
        worst_model_where = where(row, nu);
      }
      if (!(nu >= kWellConditionedRelativeVega)) continue;
      ++well_conditioned;
      EXPECT_LE(error, kRoundTripTolerance) << name << " " << to_string(type) << " " << where(row, nu)
                                            << ": implied " << implied.volatility[i];
      if (!(error <= worst)) {
        worst = error;
        worst_where = where(row, nu);
      }
    }
    std::printf("[ cunum    ] %s double %s implied volatility round trip: worst relative error %.3g where relative "
                "vega >= %g (%s); worst error / (u (1 + 1/nu)) %.3g where >= %g (%s)\n",
                name, to_string(type), worst, kWellConditionedRelativeVega, worst_where.c_str(), worst_model,
                kInformativeRelativeVega, worst_model_where.c_str());
  }
  std::printf("[ cunum    ] %s: %zu well-conditioned prices of %zu\n", name, well_conditioned, 2 * rows.size());
}

}  // namespace cunum::testing
