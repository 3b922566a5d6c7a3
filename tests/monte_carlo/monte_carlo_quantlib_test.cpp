// Discretely monitored barrier options (CPU backend) against QuantLib's
// AnalyticBarrierEngine with the continuity correction of Broadie, Glasserman and
// Kou (Mathematical Finance 7(4), 1997): a barrier watched on m dates prices like a
// continuous one moved away from the spot by exp(0.5826 sigma sqrt(T / m)). The
// correction's own error is o(1/sqrt(m)); the check allows 4 standard errors plus
// 1% of the price for it.

#include <gtest/gtest.h>

#include <ql/exercise.hpp>
#include <ql/instruments/barrieroption.hpp>
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
      s.backend = cunum::Backend::cpu;
      const auto estimates = cunum::MonteCarloPricer<double>(s).price(options);
      for (std::size_t i = 0; i < options.size(); ++i) {
        const double truth = quantlib_barrier(options[i], payoff, type);
        cunum::testing::expect_within_errors(estimates[i].price, estimates[i].standard_error, truth,
                                             to_string(payoff), int(i), 4.0, 0.01 * truth);
      }
    }
  }
}

}  // namespace
