// On the CPU, all threads: the OpenMP backend pricing the reference work's 1,000,000 options
// beside QuantLib's blackFormula, and inverting implied volatilities beside QuantLib's
// blackFormulaImpliedStdDev, when QuantLib is built in.

#include <omp.h>

#include <cmath>
#include <string>
#include <vector>

#ifdef CUNUM_BENCH_HAVE_QUANTLIB
#include <ql/pricingengines/blackformula.hpp>
#endif

#include "black_scholes_bench.hpp"
#include "published_figures.hpp"

namespace cunum::bench::black_scholes {

namespace {

std::string threads_note() { return std::to_string(omp_get_max_threads()) + " OpenMP threads"; }

template <class T>
void bench_cpu_prices(Context& context, std::int64_t n) {
  static const PublishedFigures figures{
      {"cpu: call+put, scalar r and sigma (reference case)", "float64", 1000000, "published CPU: 454.7 ms"}};
  const Book<T> book = reference_book<T>(n);
  const BlackScholesPricer<T> pricer({BlackScholesOutput::call, BlackScholesOutput::put}, Backend::cpu);
  BlackScholesMarket<T> market;
  market.rates.rate = book.scalar_rate;
  market.volatility = book.scalar_volatility;
  std::vector<T> call(static_cast<std::size_t>(n)), put(static_cast<std::size_t>(n));
  BlackScholesResults<T> results;
  results.call = call.data();
  results.put = put.data();
  const BenchOptions options = cpu_options(context.options);
  BenchRow row = bench_row(kModule, "cpu: call+put, scalar r and sigma (reference case)", precision_name<T>(), n);
  row.bytes_moved = static_cast<double>(n) * sizeof(T) * 5;
  const auto ours = [&] {
    pricer.price(n, book.spot.data(), book.strike.data(), book.expiry.data(), market, results);
  };
  row.median_ms = median_host_ms(options, ours);
  row.note = options_per_second(n, row.median_ms) + ", " + threads_note();
#ifdef CUNUM_BENCH_HAVE_QUANTLIB
  std::vector<double> ql_call(call.size()), ql_put(put.size());
  const auto peer = [&] {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const double t = book.expiry[i];
      const double discount = std::exp(-double{book.scalar_rate} * t);
      const double forward = book.spot[i] / discount;
      const double std_dev = book.scalar_volatility * std::sqrt(t);
      ql_call[i] = QuantLib::blackFormula(QuantLib::Option::Call, book.strike[i], forward, std_dev, discount);
      ql_put[i] = QuantLib::blackFormula(QuantLib::Option::Put, book.strike[i], forward, std_dev, discount);
    }
  };
  row.peer = "QuantLib blackFormula, call and put (all threads)";
  row.peer_median_ms = median_host_ms(options, peer);
  std::vector<T> ql_call_t(ql_call.begin(), ql_call.end());
  check_close(context.failures, "cpu prices vs QuantLib blackFormula", call, ql_call_t,
              std::is_same_v<T, float> ? 1e-4 : 1e-10);
#endif
  figures.annotate(row);
  context.report.add(row);
}

void bench_cpu_implied_volatility(Context& context, std::int64_t n) {
  const ImpliedVolBook<double> book = implied_vol_book<double>(n);
  const Book<double>& o = book.options;
  const BlackScholesPricer<double> pricer(BlackScholesOutputs{}, Backend::cpu);
  std::vector<double> volatility(static_cast<std::size_t>(n));
  const auto rates = book.rates();
  const BenchOptions options = cpu_options(context.options);
  BenchRow row = bench_row(kModule, "cpu: implied volatility, calls", "float64", n);
  row.bytes_moved = static_cast<double>(n) * sizeof(double) * 5;
  row.median_ms = median_host_ms(options, [&] {
    pricer.implied_volatility(n, book.call_price.data(), o.spot.data(), o.strike.data(), o.expiry.data(), rates,
                              OptionType::call, volatility.data());
  });
  check_close(context.failures, "cpu implied volatility round trip", volatility, o.volatility, 1e-8);
  row.note = options_per_second(n, row.median_ms, "implied vols") + ", " + threads_note();
#ifdef CUNUM_BENCH_HAVE_QUANTLIB
  std::vector<double> ql_volatility(volatility.size());
  row.peer = "QuantLib blackFormulaImpliedStdDev, accuracy 1e-12 (all threads)";
  row.peer_median_ms = median_host_ms(options, [&] {
#pragma omp parallel for schedule(dynamic, 1024)
    for (std::int64_t i = 0; i < n; ++i) {
      const double t = o.expiry[i];
      const double discount = std::exp(-rates.rate * t);
      const double forward = o.spot[i] * std::exp((rates.rate - rates.dividend) * t);
      const double guess = 0.2 * std::sqrt(t);
      try {
        ql_volatility[i] = QuantLib::blackFormulaImpliedStdDev(QuantLib::Option::Call, o.strike[i], forward,
                                                                book.call_price[i], discount, 0.0, guess, 1e-12,
                                                                100) /
                           std::sqrt(t);
      } catch (const std::exception&) {  // no exception may leave an OpenMP region
        ql_volatility[i] = std::nan("");
      }
    }
  });
  check_close(context.failures, "QuantLib implied volatility round trip", ql_volatility, o.volatility, 1e-5);
#endif
  context.report.add(row);
}

}  // namespace

void cpu_section(Context& context) {
  bench_cpu_prices<double>(context, 1000000);
  bench_cpu_prices<float>(context, 1000000);
  bench_cpu_implied_volatility(context, context.options.quick ? pow2(14) : pow2(20));
}

}  // namespace cunum::bench::black_scholes
