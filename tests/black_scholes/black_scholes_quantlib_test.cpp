// BlackScholesPricer (CPU backend) against QuantLib: blackFormula prices,
// AnalyticEuropeanEngine Greeks and blackFormulaImpliedStdDev on the test grid.

#include <gtest/gtest.h>

#include <ql/exercise.hpp>
#include <ql/instruments/vanillaoption.hpp>
#include <ql/pricingengines/blackformula.hpp>
#include <ql/pricingengines/vanilla/analyticeuropeanengine.hpp>
#include <ql/processes/blackscholesprocess.hpp>
#include <ql/quotes/simplequote.hpp>
#include <ql/settings.hpp>
#include <ql/termstructures/volatility/equityfx/blackconstantvol.hpp>
#include <ql/termstructures/yield/flatforward.hpp>
#include <ql/time/calendars/nullcalendar.hpp>
#include <ql/time/daycounters/actual365fixed.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "black_scholes_grid.hpp"
#include "cunum/black_scholes.hpp"
#include "test_support.hpp"

namespace {

namespace ql = QuantLib;
using cunum::Backend;
using cunum::BlackScholesMarket;
using cunum::BlackScholesOutputs;
using cunum::BlackScholesPricer;
using cunum::OptionType;

// The grid with expiries rounded to whole days (QuantLib's dates), per-option markets.
struct Batch {
  std::vector<cunum::testing::BlackScholesCase> cases;
  std::vector<double> s, k, t, r, q, v;
};
Batch batch() {
  Batch b;
  for (auto c : cunum::testing::black_scholes_grid()) {
    c.expiry = std::round(c.expiry * 365) / 365;
    c.strike = c.spot * std::exp((c.rate - c.dividend) * c.expiry - c.log_moneyness);
    b.cases.push_back(c);
    b.s.push_back(c.spot);
    b.k.push_back(c.strike);
    b.t.push_back(c.expiry);
    b.r.push_back(c.rate);
    b.q.push_back(c.dividend);
    b.v.push_back(c.volatility);
  }
  return b;
}
BlackScholesMarket<double> market_of(const Batch& b) {
  BlackScholesMarket<double> m;
  m.rates.rates = b.r.data();
  m.rates.dividends = b.q.data();
  m.volatilities = b.v.data();
  return m;
}

// |a - b| / max(|b|, floor): relative, or absolute below the floor.
double error(double a, double b, double floor) { return std::fabs(a - b) / std::max(std::fabs(b), floor); }

// An arbiter in long double (64-bit significand) for where QuantLib and cunum
// disagree: QuantLib's normal CDF is accurate in absolute, not relative, terms deep
// in the tails, so far out-of-the-money prices and Greeks differ there.
struct Reference {
  long double call, put, delta_call, delta_put, gamma, vega, theta_call, theta_put, rho_call, rho_put;
};
Reference reference(const cunum::testing::BlackScholesCase& c) {
  using L = long double;
  const L s = c.spot, k = c.strike, t = c.expiry, r = c.rate, q = c.dividend, v = c.volatility;
  const L sd = v * std::sqrt(t);
  const L d1 = (std::log(s / k) + (r - q) * t) / sd + sd / 2, d2 = d1 - sd;
  const auto n = [](L x) { return std::erfc(-x / std::sqrt(L(2))) / 2; };
  const L pdf = std::exp(-d1 * d1 / 2) / std::sqrt(2 * L(3.14159265358979323846264338327950288L));
  const L carry = std::exp(-q * t), discount = std::exp(-r * t);
  const L decay = -s * carry * pdf * v / (2 * std::sqrt(t));
  return {s * carry * n(d1) - k * discount * n(d2),
          k * discount * n(-d2) - s * carry * n(-d1),
          carry * n(d1),
          -carry * n(-d1),
          carry * pdf / (s * sd),
          s * carry * pdf * std::sqrt(t),
          decay - r * k * discount * n(d2) + q * s * carry * n(d1),
          decay + r * k * discount * n(-d2) - q * s * carry * n(-d1),
          k * t * discount * n(d2),
          -k * t * discount * n(-d2)};
}

// Agreement with QuantLib within `tolerance`, or, where QuantLib is the farther of
// the two from the long double arbiter, agreement with the arbiter (counted).
struct Agreement {
  double worst_vs_quantlib = 0, worst_vs_reference = 0;
  std::size_t arbitrated = 0;
  bool check(double ours, double theirs, long double exact, double floor, double tolerance) {
    const double e_ql = error(ours, theirs, floor);
    const double e_ref = error(ours, static_cast<double>(exact), floor);
    worst_vs_reference = std::max(worst_vs_reference, e_ref);
    if (e_ql <= tolerance) {
      worst_vs_quantlib = std::max(worst_vs_quantlib, e_ql);
      return true;
    }
    ++arbitrated;
    const double ql_ref = error(theirs, static_cast<double>(exact), floor);
    return e_ref <= tolerance && ql_ref > e_ref;
  }
};

TEST(BlackScholesQuantLib, PricesMatchBlackFormula) {
  const Batch b = batch();
  const BlackScholesPricer<double> pricer(BlackScholesOutputs::all(), Backend::cpu);
  const auto out = pricer.price(b.s, b.k, b.t, market_of(b));
  Agreement agreement;
  for (std::size_t i = 0; i < b.cases.size(); ++i) {
    const auto& c = b.cases[i];
    const Reference exact = reference(c);
    const double forward = c.spot * std::exp((c.rate - c.dividend) * c.expiry);
    const double discount = std::exp(-c.rate * c.expiry);
    const double sd = c.volatility * std::sqrt(c.expiry);
    const double call = ql::blackFormula(ql::Option::Call, c.strike, forward, sd, discount);
    const double put = ql::blackFormula(ql::Option::Put, c.strike, forward, sd, discount);
    // Relative 1e-12 above a price of 1, absolute 1e-12 below it (spot 100).
    const bool ok = agreement.check(out.call[i], call, exact.call, 1.0, 1e-12) &
                    agreement.check(out.put[i], put, exact.put, 1.0, 1e-12);
    EXPECT_TRUE(ok) << "ln(F/K) " << c.log_moneyness << " T " << c.expiry << " sigma " << c.volatility
                        << ": call " << out.call[i] << " vs " << call << ", put " << out.put[i] << " vs " << put;
  }
  std::printf("[ cunum    ] prices vs QuantLib blackFormula over %zu options: worst error %.3g where they agree to "
              "1e-12; %zu prices where QuantLib is farther from the long double arbiter; worst error vs the arbiter "
              "%.3g\n",
              b.cases.size(), agreement.worst_vs_quantlib, agreement.arbitrated, agreement.worst_vs_reference);
}

TEST(BlackScholesQuantLib, GreeksMatchAnalyticEuropeanEngine) {
  const Batch b = batch();
  const BlackScholesPricer<double> pricer(BlackScholesOutputs::all(), Backend::cpu);
  const auto out = pricer.price(b.s, b.k, b.t, market_of(b));
  const ql::Date today(15, ql::January, 2025);
  ql::Settings::instance().evaluationDate() = today;
  const ql::DayCounter dc = ql::Actual365Fixed();
  const auto spot = QuantLib::ext::make_shared<ql::SimpleQuote>(100.0);
  const auto rate = QuantLib::ext::make_shared<ql::SimpleQuote>(0.0);
  const auto dividend = QuantLib::ext::make_shared<ql::SimpleQuote>(0.0);
  const auto vol = QuantLib::ext::make_shared<ql::SimpleQuote>(0.2);
  const ql::Handle<ql::YieldTermStructure> r_ts(QuantLib::ext::make_shared<ql::FlatForward>(today, ql::Handle<ql::Quote>(rate), dc));
  const ql::Handle<ql::YieldTermStructure> q_ts(
      QuantLib::ext::make_shared<ql::FlatForward>(today, ql::Handle<ql::Quote>(dividend), dc));
  const ql::Handle<ql::BlackVolTermStructure> v_ts(
      QuantLib::ext::make_shared<ql::BlackConstantVol>(today, ql::NullCalendar(), ql::Handle<ql::Quote>(vol), dc));
  const auto process =
      QuantLib::ext::make_shared<ql::BlackScholesMertonProcess>(ql::Handle<ql::Quote>(spot), q_ts, r_ts, v_ts);
  const auto engine = QuantLib::ext::make_shared<ql::AnalyticEuropeanEngine>(process);
  Agreement agreement;
  for (std::size_t i = 0; i < b.cases.size(); ++i) {
    const auto& c = b.cases[i];
    const Reference exact = reference(c);
    rate->setValue(c.rate);
    dividend->setValue(c.dividend);
    vol->setValue(c.volatility);
    const ql::Date expiry = today + static_cast<ql::Integer>(std::lround(c.expiry * 365));
    const auto exercise = QuantLib::ext::make_shared<ql::EuropeanExercise>(expiry);
    for (bool is_call : {true, false}) {
      ql::VanillaOption option(
          QuantLib::ext::make_shared<ql::PlainVanillaPayoff>(is_call ? ql::Option::Call : ql::Option::Put, c.strike), exercise);
      option.setPricingEngine(engine);
      // Relative 1e-10, or absolute 1e-12 x the Greek's natural scale (1 for delta,
      // 1/S gamma, S sqrt(T) vega, S theta, S T rho) where it is smaller than 1e-2 x that
      // scale: a Greek that is a difference of large terms, or 0 to within rounding.
      const double sqrt_t = std::sqrt(c.expiry);
      const struct {
        const char* name;
        double ours, theirs;
        long double exact;
        double floor;
      } checks[] = {
          {"delta", is_call ? out.delta_call[i] : out.delta_put[i], option.delta(),
           is_call ? exact.delta_call : exact.delta_put, 1e-2},
          {"gamma", out.gamma[i], option.gamma(), exact.gamma, 1e-2 / c.spot},
          {"vega", out.vega[i], option.vega(), exact.vega, 1e-2 * c.spot * sqrt_t},
          {"theta", is_call ? out.theta_call[i] : out.theta_put[i], option.theta(),
           is_call ? exact.theta_call : exact.theta_put, 1e-2 * c.spot},
          {"rho", is_call ? out.rho_call[i] : out.rho_put[i], option.rho(), is_call ? exact.rho_call : exact.rho_put,
           1e-2 * c.spot * c.expiry},
      };
      for (const auto& check : checks) {
        EXPECT_TRUE(agreement.check(check.ours, check.theirs, check.exact, check.floor, 1e-10)) << check.name << (is_call ? " call" : " put") << " ln(F/K) " << c.log_moneyness
                            << " T " << c.expiry << " sigma " << c.volatility << " r " << c.rate << " q "
                            << c.dividend << ": " << check.ours << " vs " << check.theirs;
      }
    }
  }
  std::printf("[ cunum    ] Greeks vs QuantLib AnalyticEuropeanEngine: worst error %.3g where they agree to 1e-10; "
              "%zu Greeks where QuantLib is farther from the long double arbiter; worst error vs the arbiter %.3g\n",
              agreement.worst_vs_quantlib, agreement.arbitrated, agreement.worst_vs_reference);
}

// Both invert the same double price; where the price carries information (relative
// vega >= 1e-2) they must agree with each other and with the sigma that made it.
TEST(BlackScholesQuantLib, ImpliedVolatilityMatchesBlackFormulaImpliedStdDev) {
  const Batch b = batch();
  const BlackScholesPricer<double> pricer(BlackScholesOutputs::all(), Backend::cpu);
  const auto out = pricer.price(b.s, b.k, b.t, market_of(b));
  std::vector<double> prices, s, k, t, r, q, expected, ql_sigma;
  for (std::size_t i = 0; i < b.cases.size(); ++i) {
    const auto& c = b.cases[i];
    const double p = c.log_moneyness >= 0 ? out.put[i] : out.call[i];  // out of the money side
    if (!(p > 1e3 * std::numeric_limits<double>::min()) || out.vega[i] * c.volatility / p < 1e-2) continue;
    const double forward = c.spot * std::exp((c.rate - c.dividend) * c.expiry);
    const double discount = std::exp(-c.rate * c.expiry);
    const ql::Option::Type type = c.log_moneyness >= 0 ? ql::Option::Put : ql::Option::Call;
    double their = NAN;
    try {
      their = ql::blackFormulaImpliedStdDev(type, c.strike, forward, p, discount, 0.0, ql::Null<ql::Real>(), 1e-14,
                                            1000) /
              std::sqrt(c.expiry);
    } catch (const std::exception&) {
    }
    prices.push_back(p);
    s.push_back(c.spot);
    k.push_back(c.strike);
    t.push_back(c.expiry);
    r.push_back(c.rate);
    q.push_back(c.dividend);
    expected.push_back(c.volatility);
    ql_sigma.push_back(their);
  }
  // Calls and puts in two batches (the type is per batch).
  double worst_ours = 0, worst_ql = 0;
  std::size_t ql_failures = 0;
  for (OptionType type : {OptionType::call, OptionType::put}) {
    std::vector<double> tp, ts, tk, tt, tr, tq, te, tql;
    for (std::size_t i = 0; i < prices.size(); ++i) {
      const bool otm_put = std::log(s[i] * std::exp((r[i] - q[i]) * t[i]) / k[i]) >= -1e-12;
      if ((type == OptionType::put) != otm_put) continue;
      tp.push_back(prices[i]);
      ts.push_back(s[i]);
      tk.push_back(k[i]);
      tt.push_back(t[i]);
      tr.push_back(r[i]);
      tq.push_back(q[i]);
      te.push_back(expected[i]);
      tql.push_back(ql_sigma[i]);
    }
    cunum::BlackScholesRates<double> rates;
    rates.rates = tr.data();
    rates.dividends = tq.data();
    const auto ours = pricer.implied_volatility(tp, ts, tk, tt, rates, type);
    EXPECT_EQ(ours.rejected, 0);
    for (std::size_t i = 0; i < tp.size(); ++i) {
      const double e = std::fabs(ours.volatility[i] - te[i]) / te[i];
      worst_ours = std::max(worst_ours, e);
      EXPECT_LE(e, 1e-13) << to_string(type) << " S " << ts[i] << " K " << tk[i] << " T " << tt[i] << " r " << tr[i]
                          << " q " << tq[i] << " price " << tp[i] << ": " << ours.volatility[i] << " vs " << te[i];
      // QuantLib's solver stops on an absolute price accuracy, so for the tiniest
      // prices it returns sigma = 0 or a rough value: counted apart.
      const double e_ql = std::fabs(tql[i] - te[i]) / te[i];
      if (!(e_ql <= 1e-6)) {
        ++ql_failures;
      } else {
        worst_ql = std::max(worst_ql, e_ql);
      }
    }
  }
  std::printf("[ cunum    ] implied vol over %zu out-of-the-money options (relative vega >= 1e-2): ours worst "
              "relative error %.3g; QuantLib blackFormulaImpliedStdDev worst %.3g where within 1e-6 (%zu it missed by "
              "more or could not invert)\n",
              prices.size(), worst_ours, worst_ql, ql_failures);
}

}  // namespace
