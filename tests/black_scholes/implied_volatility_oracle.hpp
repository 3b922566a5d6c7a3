#pragma once
// The high-precision truth of oracle/implied_volatility_oracle.csv (written by
// oracle/generate_implied_volatility_oracle.py with mpmath) and the checks both backends'
// suites run against it: over the whole domain of the inversion (ln(F/K) from -30 to
// 30, calls and puts, in and out of the money; sigma sqrt(T) from 1e-6 to 30), each
// implied volatility within kImpliedOracleUlps u (1 + kappa) of the volatility whose
// exact price is the row's price (u the unit roundoff of T, kappa the condition number
// of sigma in the price, S, K, T, r and q), and in double within 1e-13 wherever the
// inversion is well conditioned (kappa <= 100).

#include <gtest/gtest.h>

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

#ifndef CUNUM_IMPLIED_VOLATILITY_ORACLE_CSV
#error "CUNUM_IMPLIED_VOLATILITY_ORACLE_CSV must name oracle/implied_volatility_oracle.csv (tests/black_scholes/CMakeLists.txt)"
#endif

namespace cunum::testing {

// One row: inputs and price exact in its precision; the true volatility (NaN where the
// price lies outside the exact no-arbitrage bounds) and its condition number kappa.
struct ImpliedOracleRow {
  int bits;
  OptionType type;
  double spot, strike, expiry, rate, dividend, price, volatility, kappa;
};

inline std::vector<ImpliedOracleRow> read_implied_volatility_oracle() {
  std::ifstream file(CUNUM_IMPLIED_VOLATILITY_ORACLE_CSV);
  EXPECT_TRUE(file.good()) << "cannot read " << CUNUM_IMPLIED_VOLATILITY_ORACLE_CSV;
  std::string line;
  std::getline(file, line);
  EXPECT_EQ(line, "precision,type,spot,strike,expiry,rate,dividend,price,volatility,kappa");
  std::vector<ImpliedOracleRow> rows;
  while (std::getline(file, line)) {
    std::istringstream cells(line);
    std::string bits, type, cell;
    std::getline(cells, bits, ',');
    std::getline(cells, type, ',');
    std::vector<double> numbers;
    while (std::getline(cells, cell, ',')) numbers.push_back(std::strtod(cell.c_str(), nullptr));  // nan, inf too
    EXPECT_EQ(numbers.size(), 8u) << line;
    EXPECT_TRUE(type == "call" || type == "put") << line;
    if (numbers.size() != 8u) continue;
    rows.push_back({std::atoi(bits.c_str()), type == "call" ? OptionType::call : OptionType::put, numbers[0],
                    numbers[1], numbers[2], numbers[3], numbers[4], numbers[5], numbers[6], numbers[7]});
  }
  return rows;
}

// The rows of T's precision and one option type, as the arrays of one call.
template <class T>
struct ImpliedOracleBatch {
  std::vector<const ImpliedOracleRow*> rows;
  std::vector<T> price, spot, strike, expiry, rate, dividend;
  BlackScholesRates<T> rates() const {
    BlackScholesRates<T> r;
    r.rates = rate.data();
    r.dividends = dividend.data();
    return r;
  }
};

template <class T>
ImpliedOracleBatch<T> implied_oracle_batch(const std::vector<ImpliedOracleRow>& rows, OptionType type) {
  ImpliedOracleBatch<T> b;
  const int bits = std::is_same_v<T, float> ? 32 : 64;
  for (const ImpliedOracleRow& row : rows) {
    if (row.bits != bits || row.type != type) continue;
    b.rows.push_back(&row);
    b.price.push_back(static_cast<T>(row.price));
    b.spot.push_back(static_cast<T>(row.spot));
    b.strike.push_back(static_cast<T>(row.strike));
    b.expiry.push_back(static_cast<T>(row.expiry));
    b.rate.push_back(static_cast<T>(row.rate));
    b.dividend.push_back(static_cast<T>(row.dividend));
  }
  return b;
}

// Every informative row (kappa u <= 1e-3: the price carries sigma to three digits or
// better) within kImpliedOracleUlps u (1 + kappa); in double, every well-conditioned
// one (kappa <= kWellConditionedKappa) within kImpliedOracleTolerance.
constexpr double kImpliedOracleUlps = 128;
constexpr double kWellConditionedKappa = 100;
constexpr double kImpliedOracleTolerance = 1e-13;

template <class T>
void expect_implied_volatility_matches_oracle(Backend backend, const char* name) {
  const std::vector<ImpliedOracleRow> rows = read_implied_volatility_oracle();
  ASSERT_FALSE(rows.empty());
  const double u = std::numeric_limits<T>::epsilon() / 2;
  const char* precision = std::is_same_v<T, float> ? "float" : "double";
  const BlackScholesPricer<T> pricer(BlackScholesOutputs{}, backend);
  std::size_t checked = 0, well_conditioned = 0;
  double worst_model = 0, worst_well = 0;
  std::string worst_model_where, worst_well_where;
  for (OptionType type : {OptionType::call, OptionType::put}) {
    const ImpliedOracleBatch<T> b = implied_oracle_batch<T>(rows, type);
    ASSERT_FALSE(b.rows.empty());
    const auto implied = pricer.implied_volatility(b.price, b.spot, b.strike, b.expiry, b.rates(), type);
    for (std::size_t i = 0; i < b.rows.size(); ++i) {
      const ImpliedOracleRow& row = *b.rows[i];
      const double got = static_cast<double>(implied.volatility[i]);
      std::ostringstream where;
      where << name << " " << precision << " " << to_string(type) << " S " << row.spot << " K " << row.strike << " T "
            << row.expiry << " r " << row.rate << " q " << row.dividend << " price " << row.price << " sigma "
            << row.volatility << " kappa " << row.kappa << ": implied " << got;
      // No truth (outside the exact bounds), or a price that carries sigma to less than
      // three digits: any answer within the bounds' rounding is as good as another.
      if (std::isnan(row.volatility) || !(row.kappa * u <= 1e-3)) continue;
      ++checked;
      const double error = std::fabs(got - row.volatility) / row.volatility;
      const double model = error / (u * (1 + row.kappa));
      EXPECT_LE(model, kImpliedOracleUlps) << where.str();
      if (!(model <= worst_model)) {
        worst_model = model;
        worst_model_where = where.str();
      }
      if (std::is_same_v<T, double> && row.kappa <= kWellConditionedKappa) {
        ++well_conditioned;
        EXPECT_LE(error, kImpliedOracleTolerance) << where.str();
        if (!(error <= worst_well)) {
          worst_well = error;
          worst_well_where = where.str();
        }
      }
    }
  }
  EXPECT_GT(checked, 100u);
  std::printf("[ cunum    ] %s %s implied volatility vs mpmath over %zu informative options: worst error %.3g u (1 + "
              "kappa) (%s)\n",
              name, precision, checked, worst_model, worst_model_where.c_str());
  if (std::is_same_v<T, double>) {
    std::printf("[ cunum    ] %s double: %zu well-conditioned (kappa <= %g), worst relative error %.3g (%s)\n", name,
                well_conditioned, kWellConditionedKappa, worst_well, worst_well_where.c_str());
  }
}

}  // namespace cunum::testing
