#include "black_scholes_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <type_traits>

#include "src/core/instantiate.hpp"

namespace cunum::bench::black_scholes {

template <class T>
Book<T> reference_book(std::int64_t n) {
  std::mt19937_64 engine(20081118);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Book<T> book;
  book.scalar_rate = T(0.02);
  book.scalar_volatility = T(0.30);
  const auto size = static_cast<std::size_t>(n);
  for (auto* array : {&book.spot, &book.strike, &book.expiry, &book.rate, &book.dividend, &book.volatility}) {
    array->resize(size);
  }
  for (std::size_t i = 0; i < size; ++i) {
    book.spot[i] = static_cast<T>(5 + 25 * u(engine));
    book.strike[i] = static_cast<T>(1 + 99 * u(engine));
    book.expiry[i] = static_cast<T>(0.25 + 9.75 * u(engine));
    book.rate[i] = static_cast<T>(0.05 * u(engine));
    book.dividend[i] = static_cast<T>(0.03 * u(engine));
    book.volatility[i] = static_cast<T>(0.10 + 0.40 * u(engine));
  }
  return book;
}

template <class T>
ImpliedVolBook<T> implied_vol_book(std::int64_t n) {
  std::mt19937_64 engine(19730501);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  ImpliedVolBook<T> book;
  const auto size = static_cast<std::size_t>(n);
  Book<T>& options = book.options;
  for (auto* array : {&options.spot, &options.strike, &options.expiry, &options.volatility}) array->resize(size);
  for (std::size_t i = 0; i < size; ++i) {
    const double spot = 50 + 100 * u(engine);
    const double expiry = 1.0 / 52 + (5 - 1.0 / 52) * u(engine);
    const double volatility = 0.05 + 0.95 * u(engine);
    const double forward = spot * std::exp((ImpliedVolBook<T>::kRate - ImpliedVolBook<T>::kDividend) * expiry);
    options.spot[i] = static_cast<T>(spot);
    options.expiry[i] = static_cast<T>(expiry);
    options.volatility[i] = static_cast<T>(volatility);
    options.strike[i] = static_cast<T>(forward * std::exp((-3 + 6 * u(engine)) * volatility * std::sqrt(expiry)));
  }
  const BlackScholesPricer<T> pricer({BlackScholesOutput::call}, Backend::cpu);
  BlackScholesMarket<T> market;
  market.rates = book.rates();
  market.volatilities = options.volatility.data();
  book.call_price = pricer.price(options.spot, options.strike, options.expiry, market).call;
  return book;
}

template <class T>
void check_close(FailureLog& failures, const std::string& what, const std::vector<T>& values,
                 const std::vector<T>& reference, double tolerance) {
  if (values.size() != reference.size()) {
    failures.fail(what + ": " + std::to_string(values.size()) + " values, expected " +
                  std::to_string(reference.size()));
    return;
  }
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double value = values[i], expected = reference[i];
    const bool same = std::isnan(expected)
                          ? std::isnan(value)
                          : std::fabs(value - expected) <= tolerance * std::max(1.0, std::fabs(expected));
    if (!same && wrong++ == 0) first = i;
  }
  if (wrong == 0) return;
  char detail[256];
  std::snprintf(detail, sizeof detail, ": %zu of %zu values off (first at %zu: %.17g, expected %.17g, tolerance %.3g)",
                wrong, values.size(), first, static_cast<double>(values[first]),
                static_cast<double>(reference[first]), tolerance);
  failures.fail(what + detail);
}

template <class T>
double device_tolerance() {
  return std::is_same_v<T, float> ? 1e-4 : 1e-12;
}

std::string options_per_second(std::int64_t n, double ms, const char* unit) {
  const double per_second = static_cast<double>(n) / (ms * 1e-3);
  char text[96];
  if (per_second >= 1e9) {
    std::snprintf(text, sizeof text, "%.2f G %s/s", per_second * 1e-9, unit);
  } else {
    std::snprintf(text, sizeof text, "%.1f M %s/s", per_second * 1e-6, unit);
  }
  return text;
}

BenchOptions cpu_options(const BenchOptions& options) {
  constexpr int kCpuRunsDivisor = 5;
  constexpr int kMinCpuRuns = 3;
  BenchOptions cpu = options;
  cpu.warmup_runs = 1;
  cpu.timed_runs = std::max(kMinCpuRuns, options.timed_runs / kCpuRunsDivisor);
  return cpu;
}

#define CUNUM_INSTANTIATE_BENCH_BOOKS(T)                                                             \
  template Book<T> reference_book<T>(std::int64_t);                                                  \
  template ImpliedVolBook<T> implied_vol_book<T>(std::int64_t);                                      \
  template void check_close<T>(FailureLog&, const std::string&, const std::vector<T>&,              \
                               const std::vector<T>&, double);                                       \
  template double device_tolerance<T>();
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_BENCH_BOOKS, CUNUM_REAL_TYPES)

}  // namespace cunum::bench::black_scholes
