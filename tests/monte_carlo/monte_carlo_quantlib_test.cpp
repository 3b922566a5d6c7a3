// Best-of and worst-of options on two correlated assets against QuantLib's
// StulzEngine (Stulz's closed form, J. Financial Economics 10, 1982), within 4
// standard errors, each asset's pathwise delta and vega against central differences
// of it; and discretely monitored barrier options (CPU backend) against QuantLib's
// AnalyticBarrierEngine with the continuity correction of Broadie, Glasserman and
// Kou (Mathematical Finance 7(4), 1997): a barrier watched on m dates prices like a
// continuous one moved away from the spot by exp(0.5826 sigma sqrt(T / m)). The
// correction's own error is o(1/sqrt(m)); the check allows 4 standard errors plus
// 1% of the price for it, and for the likelihood-ratio delta and vega against central
// differences of the corrected price, 4 standard errors plus 2% of the Greek.

#include <gtest/gtest.h>

#include <ql/exercise.hpp>
#include <ql/instruments/barrieroption.hpp>
#include <ql/instruments/basketoption.hpp>
#include <ql/pricingengines/basket/stulzengine.hpp>
#include <ql/pricingengines/barrier/analyticbarrierengine.hpp>
#include <ql/processes/blackscholesprocess.hpp>
#include <ql/quotes/simplequote.hpp>
#include <ql/settings.hpp>
#include <ql/termstructures/volatility/equityfx/blackconstantvol.hpp>
#include <ql/termstructures/yield/flatforward.hpp>
#include <ql/time/calendars/nullcalendar.hpp>
#include <ql/time/daycounters/actual365fixed.hpp>

#include <cmath>
#include <vector>

#include "cunum/monte_carlo.hpp"
#include "monte_carlo_cases.hpp"
#include "test_support.hpp"

namespace {

namespace ql = QuantLib;
using cunum::MonteCarloOption;
using cunum::MonteCarloPayoff;
using cunum::OptionType;

constexpr int kDates = 64;
constexpr double kShift = 0.5825971579390106;  // -zeta(1/2) / sqrt(2 pi)

double quantlib_barrier(const MonteCarloOption<double>& o, MonteCarloPayoff payoff, OptionType type) {
  const ql::Date today(24, ql::November, 2026);
  ql::Settings::instance().evaluationDate() = today;
  const ql::DayCounter days = ql::Actual365Fixed();
  const ql::Date maturity = today + static_cast<ql::Integer>(std::lround(o.expiry * 365));
  const auto flat = [&](double rate) {
    return ql::Handle<ql::YieldTermStructure>(ql::ext::make_shared<ql::FlatForward>(today, rate, days));
  };
  const auto process = ql::ext::make_shared<ql::BlackScholesMertonProcess>(
      ql::Handle<ql::Quote>(ql::ext::make_shared<ql::SimpleQuote>(o.spot)), flat(o.dividend), flat(o.rate),
      ql::Handle<ql::BlackVolTermStructure>(
          ql::ext::make_shared<ql::BlackConstantVol>(today, ql::NullCalendar(), o.volatility, days)));
  const bool up = payoff == MonteCarloPayoff::up_and_out;
  const double moved = o.barrier * std::exp((up ? 1 : -1) * kShift * o.volatility * std::sqrt(o.expiry / kDates));
  ql::BarrierOption option(up ? ql::Barrier::UpOut : ql::Barrier::DownOut, moved, 0.0,
                           ql::ext::make_shared<ql::PlainVanillaPayoff>(
                               type == OptionType::call ? ql::Option::Call : ql::Option::Put, o.strike),
                           ql::ext::make_shared<ql::EuropeanExercise>(maturity));
  option.setPricingEngine(ql::ext::make_shared<ql::AnalyticBarrierEngine>(process));
  return option.NPV();
}

ql::ext::shared_ptr<ql::BlackScholesMertonProcess> process_of(const ql::Date& today, double spot, double dividend,
                                                               double rate, double volatility) {
  const ql::DayCounter days = ql::Actual365Fixed();
  const auto flat = [&](double value) {
    return ql::Handle<ql::YieldTermStructure>(ql::ext::make_shared<ql::FlatForward>(today, value, days));
  };
  return ql::ext::make_shared<ql::BlackScholesMertonProcess>(
      ql::Handle<ql::Quote>(ql::ext::make_shared<ql::SimpleQuote>(spot)), flat(dividend), flat(rate),
      ql::Handle<ql::BlackVolTermStructure>(
          ql::ext::make_shared<ql::BlackConstantVol>(today, ql::NullCalendar(), volatility, days)));
}

TEST(MonteCarloQuantLib, BestAndWorstOfTwoMatchStulz) {
  const ql::Date today(24, ql::November, 2026);
  ql::Settings::instance().evaluationDate() = today;
  const double expiry = 365.0 / 365, rate = 0.03;
  for (double correlation : {-0.5, 0.0, 0.7}) {
    for (MonteCarloPayoff payoff : {MonteCarloPayoff::best_of, MonteCarloPayoff::worst_of}) {
      for (OptionType type : {OptionType::call, OptionType::put}) {
        cunum::MonteCarloSettings s;
        s.payoff = payoff;
        s.type = type;
        s.assets = 2;
        s.correlation = {1.0, correlation, correlation, 1.0};
        s.paths = std::int64_t{1} << 16;
        s.seed = 20261124;
        s.control_variate = true;
        s.greeks = true;
        for (double strike : {90.0, 100.0, 115.0}) {
          cunum::MonteCarloBasketOption<double> option;
          option.assets = {{100.0, 0.01, 0.25, 0.0}, {95.0, 0.02, 0.35, 0.0}};
          option.strike = strike;
          option.expiry = expiry;
          option.rate = rate;
          std::vector<cunum::MonteCarloAssetGreeks<double>> greeks;
          const auto estimate = cunum::MonteCarloPricer<double>(s, cunum::Backend::cpu).price({option}, greeks)[0];
          const ql::Option::Type ql_type = type == OptionType::call ? ql::Option::Call : ql::Option::Put;
          // Stulz's price with asset j's spot and volatility moved.
          const auto stulz = [&](int j, double spot_bump, double volatility_bump) {
            ql::ext::shared_ptr<ql::BasketPayoff> basket_payoff;
            const auto vanilla = ql::ext::make_shared<ql::PlainVanillaPayoff>(ql_type, strike);
            if (payoff == MonteCarloPayoff::best_of) {
              basket_payoff = ql::ext::make_shared<ql::MaxBasketPayoff>(vanilla);
            } else {
              basket_payoff = ql::ext::make_shared<ql::MinBasketPayoff>(vanilla);
            }
            ql::BasketOption basket(basket_payoff, ql::ext::make_shared<ql::EuropeanExercise>(today + 365));
            const double bump = j == 0 ? 1.0 : 0.0;
            basket.setPricingEngine(ql::ext::make_shared<ql::StulzEngine>(
                process_of(today, 100.0 + bump * spot_bump, 0.01, rate, 0.25 + bump * volatility_bump),
                process_of(today, 95.0 + (1 - bump) * spot_bump, 0.02, rate, 0.35 + (1 - bump) * volatility_bump),
                correlation));
            return basket.NPV();
          };
          const int case_id = static_cast<int>(strike);
          cunum::testing::expect_within_errors(estimate.price, estimate.standard_error, stulz(0, 0, 0),
                                               to_string(payoff), case_id);
          for (int j = 0; j < 2; ++j) {
            const double delta = (stulz(j, 1e-3, 0) - stulz(j, -1e-3, 0)) / 2e-3;
            const double vega = (stulz(j, 0, 1e-5) - stulz(j, 0, -1e-5)) / 2e-5;
            const auto& g = greeks[static_cast<std::size_t>(j)];
            cunum::testing::expect_within_errors(g.delta, g.delta_standard_error, delta, "delta", case_id);
            cunum::testing::expect_within_errors(g.vega, g.vega_standard_error, vega, "vega", case_id);
          }
        }
      }
    }
  }
}

TEST(MonteCarloQuantLib, DiscreteBarriersMatchTheCorrectedAnalyticEngine) {
  for (MonteCarloPayoff payoff : {MonteCarloPayoff::up_and_out, MonteCarloPayoff::down_and_out}) {
    for (OptionType type : {OptionType::call, OptionType::put}) {
      std::vector<MonteCarloOption<double>> options;
      for (const auto& base : cunum::testing::option_grid<double>()) {
        if (base.expiry > 1.5) continue;
        MonteCarloOption<double> o = base;
        o.expiry = std::round(o.expiry * 365) / 365;  // QuantLib's whole days
        o.barrier = payoff == MonteCarloPayoff::up_and_out ? 140.0 : 70.0;
        options.push_back(o);
      }
      cunum::MonteCarloSettings s;
      s.payoff = payoff;
      s.type = type;
      s.time_steps = kDates;
      s.paths = std::int64_t{1} << 15;
      s.seed = 20261124;
      s.antithetic = true;
      s.greeks = true;
      const auto estimates = cunum::MonteCarloPricer<double>(s, cunum::Backend::cpu).price(options);
      for (std::size_t i = 0; i < options.size(); ++i) {
        const auto corrected = [&](double spot_bump, double volatility_bump) {
          MonteCarloOption<double> moved = options[i];
          moved.spot += spot_bump;
          moved.volatility += volatility_bump;
          return quantlib_barrier(moved, payoff, type);
        };
        const double truth = corrected(0, 0);
        const double h = 1e-3 * options[i].spot, v = 1e-5;
        const double delta = (corrected(h, 0) - corrected(-h, 0)) / (2 * h);
        const double vega = (corrected(0, v) - corrected(0, -v)) / (2 * v);
        const auto& e = estimates[i];
        cunum::testing::expect_within_errors(e.price, e.standard_error, truth, to_string(payoff), int(i), 4.0,
                                             0.01 * truth);
        cunum::testing::expect_within_errors(e.delta, e.delta_standard_error, delta, "barrier delta", int(i), 4.0,
                                             0.02 * std::abs(delta));
        cunum::testing::expect_within_errors(e.vega, e.vega_standard_error, vega, "barrier vega", int(i), 4.0,
                                             0.02 * std::abs(vega));
      }
    }
  }
}

}  // namespace
