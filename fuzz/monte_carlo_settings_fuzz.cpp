// Fuzzes Monte Carlo's settings and options validation: MonteCarloSettings and a
// Placement given to MonteCarloPricer<float> or <double>, a batch of options
// (one-asset or basket) given to load(), and, when small, a price() on the CPU backend.
//
// Invariants, beyond "no crash":
// - the constructor and load() refuse what their headers' rules refuse (an
//   independent check of them here) and accept what they allow, with an Error naming
//   the routine and the argument ('settings.<field>', 'placement.<field>',
//   'options[i].<field>', 'first_stream');
// - an accepted pricer reports the settings it was given, and runs on the backend its
//   placement resolves to;
//   a loaded batch has the options' count and first stream;
// - a small price() gives, per option, the paths asked for, finite estimates, a
//   non-negative standard error inside its confidence interval, a non-negative price
//   without a control variate (every payoff is), a digital's at most its discount
//   factor; prices are bit-identical when priced again, and when each option is priced
//   alone with its own stream id (the header's reproducibility promise).

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cunum/core/device.hpp"
#include "cunum/monte_carlo.hpp"
#include "fuzz/fuzz_support.hpp"

namespace {

using cunum::MonteCarloPayoff;
using cunum::MonteCarloSource;
using cunum::fuzz::check;
using cunum::fuzz::combine;
using cunum::fuzz::Expect;
using cunum::fuzz::raw_double;

constexpr const char* kPricer = "cunum::MonteCarloPricer";
constexpr const char* kLoad = "cunum::MonteCarloPricer::load";
constexpr int kMaxAssets = 16;               // the header's 1..16
constexpr std::int64_t kPricedPaths = 512;   // price() only up to this many paths
constexpr int kPricedSteps = 16;             // and dates
constexpr int kWalkedSteps = 1 << 16;        // load() walks one path of each option: accepted loads up to this many dates
constexpr std::int64_t kSobolDimensions = 20000;

bool multi_asset(MonteCarloPayoff payoff) {
  return payoff == MonteCarloPayoff::basket || payoff == MonteCarloPayoff::best_of ||
         payoff == MonteCarloPayoff::worst_of;
}

bool one_step(MonteCarloPayoff payoff) {
  return payoff == MonteCarloPayoff::european || payoff == MonteCarloPayoff::digital || multi_asset(payoff);
}

bool barrier(MonteCarloPayoff payoff) {
  return payoff == MonteCarloPayoff::up_and_out || payoff == MonteCarloPayoff::down_and_out;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// A lower bound on the least eigenvalue of an n x n symmetric matrix, from its
// Cholesky factor L in long double: 1 / ||L^-1||_F^2 (||A^-1||_2 <= ||L^-1||_F^2); 0
// or below when a pivot is not positive. Pivots alone do not bound it: a matrix with
// every squared pivot above 3e-3 had the least eigenvalue 4e-17.
long double least_eigenvalue_bound(const std::vector<double>& matrix, std::size_t n) {
  std::vector<long double> factor(n * n, 0.0L);
  for (std::size_t j = 0; j < n; ++j) {
    long double pivot = matrix[j * n + j];
    for (std::size_t k = 0; k < j; ++k) pivot -= factor[j * n + k] * factor[j * n + k];
    if (!(pivot > 0)) return pivot;
    factor[j * n + j] = std::sqrt(pivot);
    for (std::size_t i = j + 1; i < n; ++i) {
      long double sum = matrix[i * n + j];
      for (std::size_t k = 0; k < j; ++k) sum -= factor[i * n + k] * factor[j * n + k];
      factor[i * n + j] = sum / factor[j * n + j];
    }
  }
  // L^-1 column by column (forward substitution), and the sum of its squares.
  long double squares = 0;
  for (std::size_t c = 0; c < n; ++c) {
    std::vector<long double> x(n, 0.0L);
    for (std::size_t i = c; i < n; ++i) {
      long double sum = i == c ? 1.0L : 0.0L;
      for (std::size_t k = c; k < i; ++k) sum -= factor[i * n + k] * x[k];
      x[i] = sum / factor[i * n + i];
      squares += x[i] * x[i];
    }
  }
  return 1 / squares;
}

// What the constructor's documented rules say of `s`, and of `placement` where they
// read it (sobol_bridge runs on one device); the placement's own rules are checked after.
Expect expected_settings(const cunum::MonteCarloSettings& s, const cunum::Placement& placement,
                         bool correlation_built) {
  if (!is_valid(s.payoff) || !is_valid(s.type) || !is_valid(s.source)) return Expect::refuse;
  if (s.paths < 2 || s.paths > (std::int64_t{1} << 62)) return Expect::refuse;
  if (s.antithetic && (s.paths % 2 != 0 || s.paths < 4)) return Expect::refuse;
  if (s.control_variate && (s.antithetic ? s.paths / 2 : s.paths) < 3) return Expect::refuse;
  if (s.time_steps < 1) return Expect::refuse;
  Expect expect = Expect::accept;
  if (multi_asset(s.payoff)) {
    if (s.assets < 1 || s.assets > kMaxAssets || s.source == MonteCarloSource::sobol_bridge) return Expect::refuse;
    const auto n = static_cast<std::size_t>(s.assets);
    if (!s.correlation.empty()) {
      if (s.correlation.size() != n * n) return Expect::refuse;
      for (std::size_t i = 0; i < n; ++i) {
        if (s.correlation[i * n + i] != 1.0) return Expect::refuse;
        for (std::size_t j = 0; j < i; ++j) {
          const double a = s.correlation[i * n + j], b = s.correlation[j * n + i];
          if (!std::isfinite(a) || !(std::abs(a) <= 1) || !(std::abs(a - b) <= 1e-12)) return Expect::refuse;
        }
      }
      if (!correlation_built) expect = Expect::either;  // positive definite or not: not known here
    }
  } else if (s.assets != 1 || !s.correlation.empty()) {
    return Expect::refuse;
  }
  if (s.source == MonteCarloSource::mrg32k3a && s.paths > (std::int64_t{1} << 32)) {
    expect = combine(expect, Expect::either);  // the group count depends on the paths a Philox block feeds
  }
  if (s.source == MonteCarloSource::sobol_bridge) {
    if (s.antithetic || placement.devices.size() > 1 || s.paths > (std::int64_t{1} << 32)) return Expect::refuse;
    if (!one_step(s.payoff) && s.time_steps > kSobolDimensions) return Expect::refuse;  // not_supported
  }
  return expect;
}

template <class T>
T fuzz_value(FuzzedDataProvider& in, bool raw, int low, int high, double scale) {
  return raw ? cunum::fuzz::raw_value<T>(in) : static_cast<T>(in.ConsumeIntegralInRange<int>(low, high) * scale);
}

// One-asset options: moderate values from the rules' domain, or raw ones.
template <class T>
std::vector<cunum::MonteCarloOption<T>> fuzz_options(FuzzedDataProvider& in, MonteCarloPayoff payoff, bool raw,
                                                     std::size_t count) {
  std::vector<cunum::MonteCarloOption<T>> options(count);
  for (auto& o : options) {
    o.spot = fuzz_value<T>(in, raw && in.ConsumeBool(), 1, 400, 0.5);
    o.strike = fuzz_value<T>(in, raw && in.ConsumeBool(), 1, 400, 0.5);
    o.expiry = fuzz_value<T>(in, raw && in.ConsumeBool(), 1, 100, 0.05);
    o.rate = fuzz_value<T>(in, raw && in.ConsumeBool(), -10, 20, 0.01);
    o.dividend = fuzz_value<T>(in, raw && in.ConsumeBool(), -10, 20, 0.01);
    o.volatility = fuzz_value<T>(in, raw && in.ConsumeBool(), 1, 200, 0.005);
    const bool up = payoff == MonteCarloPayoff::up_and_out;
    o.barrier = raw && in.ConsumeBool() ? cunum::fuzz::raw_value<T>(in)
                                        : static_cast<T>(o.spot * (up ? 1 + in.ConsumeIntegralInRange<int>(1, 100) * 0.01
                                                                      : 1 - in.ConsumeIntegralInRange<int>(1, 99) * 0.01));
  }
  return options;
}

template <class T>
Expect expected_options(const std::vector<cunum::MonteCarloOption<T>>& options, MonteCarloPayoff payoff) {
  for (const auto& o : options) {
    const double values[] = {double(o.spot), double(o.strike), double(o.expiry), double(o.rate), double(o.dividend),
                             double(o.volatility)};
    for (double v : values) {
      if (!std::isfinite(v)) return Expect::refuse;
    }
    if (!(o.spot > 0) || !(o.expiry > 0) || !(o.volatility > 0)) return Expect::refuse;
    if (payoff != MonteCarloPayoff::lookback && payoff != MonteCarloPayoff::custom && !(o.strike > 0)) {
      return Expect::refuse;
    }
    if (barrier(payoff) && !std::isfinite(double(o.barrier))) return Expect::refuse;
    if (payoff == MonteCarloPayoff::up_and_out && !(o.barrier > o.spot)) return Expect::refuse;
    if (payoff == MonteCarloPayoff::down_and_out && !(o.barrier < o.spot && o.barrier > 0)) return Expect::refuse;
  }
  return Expect::accept;
}

template <class T>
std::vector<cunum::MonteCarloBasketOption<T>> fuzz_baskets(FuzzedDataProvider& in, int assets, bool raw,
                                                           std::size_t count) {
  std::vector<cunum::MonteCarloBasketOption<T>> options(count);
  for (auto& o : options) {
    const int n = raw && in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(0, kMaxAssets) : assets;
    o.assets.resize(static_cast<std::size_t>(std::max(n, 0)));
    for (auto& a : o.assets) {
      a.spot = fuzz_value<T>(in, raw && in.ConsumeBool(), 1, 400, 0.5);
      a.dividend = fuzz_value<T>(in, raw && in.ConsumeBool(), -10, 20, 0.01);
      a.volatility = fuzz_value<T>(in, raw && in.ConsumeBool(), 1, 200, 0.005);
      a.weight = fuzz_value<T>(in, raw && in.ConsumeBool(), -100, 100, 0.01);
    }
    o.strike = fuzz_value<T>(in, raw && in.ConsumeBool(), 1, 400, 0.5);
    o.expiry = fuzz_value<T>(in, raw && in.ConsumeBool(), 1, 100, 0.05);
    o.rate = fuzz_value<T>(in, raw && in.ConsumeBool(), -10, 20, 0.01);
  }
  return options;
}

template <class T>
Expect expected_baskets(const std::vector<cunum::MonteCarloBasketOption<T>>& options, int assets) {
  const auto positive = [](T v) { return std::isfinite(double(v)) && v > 0; };
  for (const auto& o : options) {
    if (o.assets.size() != static_cast<std::size_t>(assets)) return Expect::refuse;
    if (!positive(o.strike) || !positive(o.expiry) || !std::isfinite(double(o.rate))) return Expect::refuse;
    for (const auto& a : o.assets) {
      if (!positive(a.spot) || !positive(a.volatility) || !std::isfinite(double(a.dividend)) ||
          !std::isfinite(double(a.weight))) {
        return Expect::refuse;
      }
    }
  }
  return Expect::accept;
}

// Checks a priced batch: each estimate on its own, then against pricing it again and
// each option alone.
template <class T, class Option>
void check_prices(const cunum::MonteCarloPricer<T>& pricer, const std::vector<Option>& options,
                  std::uint64_t first_stream, const std::vector<double>& discounts) {
  const cunum::MonteCarloSettings& s = pricer.settings();
  const auto estimates = pricer.price(options, first_stream);
  check(estimates.size() == options.size(), "price() returned another number of estimates");
  for (std::size_t i = 0; i < estimates.size(); ++i) {
    const auto& e = estimates[i];
    const std::string which = "option " + std::to_string(i) + " (" + to_string(s.payoff) + "): ";
    check(e.paths == s.paths, which + "priced " + std::to_string(e.paths) + " paths, not settings.paths");
    check(std::isfinite(e.price) && std::isfinite(e.standard_error) && e.standard_error >= 0,
          which + "price " + std::to_string(e.price) + ", standard error " + std::to_string(e.standard_error));
    const T slack = 64 * std::numeric_limits<T>::epsilon() * (std::abs(e.price) + e.standard_error + 1);
    check(e.confidence_low <= e.price + slack && e.price <= e.confidence_high + slack,
          which + "the price is outside its confidence interval");
    if (!s.control_variate) {
      check(e.price >= 0, which + "a negative price " + std::to_string(e.price) + " without a control variate");
      if (s.payoff == MonteCarloPayoff::digital) {
        check(e.price <= discounts[i] * (1 + 1e-5), which + "a digital worth more than its discount factor");
      }
    }
    if (s.greeks && s.payoff != MonteCarloPayoff::custom) {
      check(std::isfinite(e.delta) && std::isfinite(e.vega) && e.delta_standard_error >= 0 &&
                e.vega_standard_error >= 0,
            which + "non-finite Greeks or negative standard errors");
    }
  }
  const auto again = pricer.price(options, first_stream);
  for (std::size_t i = 0; i < options.size(); ++i) {
    check(same_bits(estimates[i].price, again[i].price) &&
              same_bits(estimates[i].standard_error, again[i].standard_error),
          "option " + std::to_string(i) + ": priced twice, two different prices");
    const auto alone = pricer.price(std::vector<Option>{options[i]}, first_stream + i);
    check(same_bits(estimates[i].price, alone[0].price) && same_bits(estimates[i].standard_error, alone[0].standard_error),
          "option " + std::to_string(i) + ": priced alone with its stream id, another price (" +
              std::to_string(alone[0].price) + " against " + std::to_string(estimates[i].price) + ")");
  }
}

template <class T>
void fuzz_pricer(FuzzedDataProvider& in) {
  const auto flags = in.ConsumeIntegral<std::uint16_t>();
  const auto flag = [&](int bit) { return (flags >> bit) & 1; };
  cunum::MonteCarloSettings s;
  s.payoff = flag(0) ? cunum::fuzz::fuzz_enum<MonteCarloPayoff>(in, 11)
                     : static_cast<MonteCarloPayoff>(in.ConsumeIntegralInRange<int>(0, 9));
  s.type = flag(1) ? cunum::fuzz::fuzz_enum<cunum::OptionType>(in, 2)
                   : static_cast<cunum::OptionType>(in.ConsumeIntegralInRange<int>(0, 1));
  s.paths = flag(2) ? in.ConsumeIntegral<std::int64_t>() : in.ConsumeIntegralInRange<std::int64_t>(2, kPricedPaths);
  s.time_steps = flag(3) ? in.ConsumeIntegral<int>() : in.ConsumeIntegralInRange<int>(1, kPricedSteps);
  s.seed = in.ConsumeIntegral<std::uint64_t>();
  s.source = flag(4) ? cunum::fuzz::fuzz_enum<MonteCarloSource>(in, 3)
                     : static_cast<MonteCarloSource>(in.ConsumeIntegralInRange<int>(0, 2));
  s.antithetic = flag(5);
  s.control_variate = flag(6);
  s.greeks = flag(7);
  s.assets = flag(8) ? in.ConsumeIntegralInRange<int>(-1, kMaxAssets + 1)
                     : multi_asset(s.payoff) ? in.ConsumeIntegralInRange<int>(1, 4) : 1;
  bool correlation_built = true;
  if (flag(9)) {
    const auto n = static_cast<std::size_t>(std::clamp(s.assets, 0, kMaxAssets));
    if (flag(10)) {
      correlation_built = false;
      s.correlation.resize(n * n + static_cast<std::size_t>(in.ConsumeIntegralInRange<int>(0, 1)));
      for (double& c : s.correlation) c = in.ConsumeBool() ? raw_double(in) : in.ConsumeIntegralInRange<int>(-4, 4) * 0.25;
    } else {
      // A positive definite correlation: rows of a lower-triangular factor, normalised.
      // Such a Gram matrix can still be singular to rounding (rows of -1s ending in 0.2
      // shrink the least eigenvalue about 36-fold a row: 7e-21 at 15 assets), and the
      // pricer's Cholesky rightly refuses it; accepted is expected only with a margin,
      // the least eigenvalue above 1e-6 (every pivot is then above 1e-6 too, and the
      // pricer refuses a pivot below 1e-12 of its diagonal entry).
      std::vector<double> factor(n * n, 0.0);
      for (std::size_t i = 0; i < n; ++i) {
        double norm = 0;
        for (std::size_t j = 0; j <= i; ++j) {
          factor[i * n + j] = j == i ? in.ConsumeIntegralInRange<int>(20, 100) * 0.01
                                     : in.ConsumeIntegralInRange<int>(-100, 100) * 0.01;
          norm += factor[i * n + j] * factor[i * n + j];
        }
        for (std::size_t j = 0; j <= i; ++j) factor[i * n + j] /= std::sqrt(norm);
      }
      s.correlation.assign(n * n, 0.0);
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
          double sum = 0;
          for (std::size_t k = 0; k <= std::min(i, j); ++k) sum += factor[i * n + k] * factor[j * n + k];
          s.correlation[i * n + j] = i == j ? 1.0 : sum;
        }
      }
      correlation_built = least_eigenvalue_bound(s.correlation, n) > 1e-6L;
    }
  }
  cunum::Placement placement(flag(11) ? cunum::fuzz::fuzz_enum<cunum::Backend>(in, 3) : cunum::Backend::cpu);
  if (flag(12)) placement.devices = cunum::fuzz::fuzz_devices(in, 3);
  // The settings are checked before the placement: when both are wrong, either is named.
  const auto placement_refusal = cunum::fuzz::placement_refusal(placement, std::numeric_limits<std::size_t>::max());
  const Expect expect =
      combine(expected_settings(s, placement, correlation_built), placement_refusal ? Expect::refuse : Expect::accept);
  cunum::fuzz::context() = std::string(sizeof(T) == 4 ? "float" : "double") + ", payoff " +
                           std::to_string(static_cast<int>(s.payoff)) + ", type " +
                           std::to_string(static_cast<int>(s.type)) + ", paths " + std::to_string(s.paths) +
                           ", time_steps " + std::to_string(s.time_steps) + ", source " +
                           std::to_string(static_cast<int>(s.source)) + ", antithetic " + std::to_string(s.antithetic) +
                           ", control_variate " + std::to_string(s.control_variate) + ", greeks " +
                           std::to_string(s.greeks) + ", assets " + std::to_string(s.assets) + ", correlation " +
                           cunum::fuzz::list(s.correlation) + ", placement.backend " +
                           std::to_string(static_cast<int>(placement.backend)) + ", placement.devices " +
                           cunum::fuzz::list(placement.devices);

  try {
    const cunum::MonteCarloPricer<T> pricer(s, placement);
    check(expect != Expect::refuse, "MonteCarloPricer accepted settings its rules refuse");
    const cunum::MonteCarloSettings& kept = pricer.settings();
    check(kept.payoff == s.payoff && kept.type == s.type && kept.paths == s.paths && kept.time_steps == s.time_steps &&
              kept.seed == s.seed && kept.source == s.source && kept.antithetic == s.antithetic &&
              kept.control_variate == s.control_variate && kept.greeks == s.greeks && kept.assets == s.assets &&
              kept.correlation == s.correlation,
          "settings() differs from the settings given");
    const cunum::Backend backend = cunum::fuzz::resolved_backend(placement);
    check(pricer.backend() == backend && pricer.placement().backend == backend,
          "the pricer runs on another backend than its placement resolves to");
    check(backend == cunum::Backend::cpu ? pricer.placement().devices.empty()
                                         : placement.devices.empty() ? pricer.placement().devices.size() == 1
                                                                     : pricer.placement().devices == placement.devices,
          "placement().devices is not the devices given (one, the current, when none is given; none for the CPU)");
    check(pricer.chunk_paths() >= 1, "chunk_paths() < 1");

    const std::size_t count = in.ConsumeIntegralInRange<std::size_t>(0, 3);
    const bool raw = flag(13);
    const std::uint64_t first_stream = flag(14) ? (std::uint64_t{1} << 32) - in.ConsumeIntegralInRange<std::uint64_t>(0, 4)
                                                : in.ConsumeIntegralInRange<std::uint64_t>(0, 1000);
    const bool streams_fit = first_stream < (std::uint64_t{1} << 32) && count <= (std::uint64_t{1} << 32) - first_stream;
    const bool priced = !raw && s.paths <= kPricedPaths && s.time_steps <= kPricedSteps &&
                        s.payoff != MonteCarloPayoff::custom && backend == cunum::Backend::cpu;
    const bool as_baskets = flag(15) ? !multi_asset(s.payoff) : multi_asset(s.payoff);
    const auto load = [&](const auto& options, Expect expect_load) {
      if (!streams_fit || as_baskets != multi_asset(s.payoff)) expect_load = Expect::refuse;
      // Past 2^32 paths an option, a batch's chunks may exceed the launch's grid: not_supported.
      if (s.paths > (std::int64_t{1} << 32)) expect_load = combine(expect_load, Expect::either);
      // load() forms each option's reference from one path of settings.time_steps dates:
      // with 2^31 - 1 dates that takes minutes, as it should. Only refusals are tried there.
      if (!one_step(s.payoff) && s.time_steps > kWalkedSteps && expect_load != Expect::refuse) return false;
      try {
        const cunum::MonteCarloBatch<T> batch = pricer.load(options, first_stream);
        check(expect_load != Expect::refuse, "load() accepted options its rules refuse");
        check(batch.size() == static_cast<std::int64_t>(options.size()) && batch.first_stream() == first_stream,
              "the batch's size or first stream differs from what was loaded");
        return true;
      } catch (const cunum::Error& error) {
        check(expect_load != Expect::accept, std::string("load() refused options its rules allow: ") + error.what());
        cunum::fuzz::check_refusal(error, kLoad, {"options[", "first_stream", "settings.payoff"});
        check(error.code() == cunum::ErrorCode::invalid_argument || error.code() == cunum::ErrorCode::not_supported,
              std::string("unexpected code: ") + error.what());
        return false;
      }
    };
    if (as_baskets) {
      const auto options = fuzz_baskets<T>(in, s.assets, raw, count);
      if (load(options, expected_baskets(options, s.assets)) && priced) {
        std::vector<double> discounts;
        for (const auto& o : options) discounts.push_back(std::exp(-double(o.rate) * double(o.expiry)));
        check_prices(pricer, options, first_stream, discounts);
      }
    } else {
      const auto options = fuzz_options<T>(in, s.payoff, raw, count);
      if (load(options, expected_options(options, s.payoff)) && priced) {
        std::vector<double> discounts;
        for (const auto& o : options) discounts.push_back(std::exp(-double(o.rate) * double(o.expiry)));
        check_prices(pricer, options, first_stream, discounts);
      }
    }
  } catch (const cunum::Error& error) {
    check(expect != Expect::accept, std::string("MonteCarloPricer refused settings its rules allow: ") + error.what());
    cunum::fuzz::check_refusal(error, kPricer,
                               {"settings.payoff", "settings.type", "settings.paths", "settings.time_steps",
                                "settings.source", "settings.antithetic", "settings.assets", "settings.correlation",
                                "placement.backend", "placement.devices"});
    check(error.code() == cunum::ErrorCode::invalid_argument || error.code() == cunum::ErrorCode::not_supported ||
              (placement_refusal == cunum::ErrorCode::no_device && error.code() == cunum::ErrorCode::no_device),
          std::string("unexpected code: ") + error.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  omp_set_num_threads(1);  // the fuzzer shares its machine
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  if (in.ConsumeBool()) {
    fuzz_pricer<double>(in);
  } else {
    fuzz_pricer<float>(in);
  }
  return 0;
}
