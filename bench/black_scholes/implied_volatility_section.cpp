// On the GPU: implied volatilities of a book of calls at 2^24 and 10^5 options, float
// and double, checked against the CPU backend.

#include <string>
#include <vector>

#include "black_scholes_bench.hpp"

namespace cunum::bench::black_scholes {

namespace {

// The best public GPU figure the issue found, for the note of the double row.
constexpr const char* kPublishedFigure =
    "best public GPU figure: about 1.8 G/s (Triton Let's Be Rational, H100 NVL, 1e5 options)";

template <class T>
void bench_implied_volatility(Context& context, StreamHandle stream, std::int64_t n) {
  const ImpliedVolBook<T> book = implied_vol_book<T>(n);
  const Book<T>& options = book.options;
  const auto rotated = [&](const std::vector<T>& host) {
    return RotatingDeviceInput<T>(host.data(), host.size(), context.environment, context.options, stream);
  };
  RotatingDeviceInput<T> prices = rotated(book.call_price), spot = rotated(options.spot),
                         strike = rotated(options.strike), expiry = rotated(options.expiry);
  DeviceBuffer<T> volatility(static_cast<std::size_t>(n), stream);
  DeviceBuffer<std::int64_t> rejected(1, stream);
  const BlackScholesPricer<T> pricer(BlackScholesOutputs{}, Backend::cuda);
  const auto run = [&] {
    pricer.implied_volatility(n, prices.next(), spot.next(), strike.next(), expiry.next(), book.rates(),
                              OptionType::call, volatility.data(), rejected.data(), stream);
  };
  run();
  const BlackScholesPricer<T> cpu(BlackScholesOutputs{}, Backend::cpu);
  const ImpliedVolatilities<T> reference =
      cpu.implied_volatility(book.call_price, options.spot, options.strike, options.expiry, book.rates(),
                             OptionType::call);
  const std::string what = std::string("implied volatility ") + precision_name<T>() + " n=" + std::to_string(n);
  // Double: both backends solve in double from the same inputs. Float solves in float on
  // each with its own elementary functions, a few ulps apart, which the inversion's
  // conditioning amplifies (up to about 1e-5 relative on this book): the prices' float
  // tolerance.
  check_close(context.failures, what, volatility.to_host(), reference.volatility,
              std::is_same_v<T, float> ? device_tolerance<float>() : 1e-11);
  std::int64_t device_rejected = 0;
  rejected.copy_to_host(&device_rejected, 1);
  if (device_rejected != reference.rejected) {
    context.failures.fail(what + ": " + std::to_string(device_rejected) + " rejected, the CPU backend " +
                          std::to_string(reference.rejected));
  }

  BenchRow row = bench_row(kModule, "implied volatility, calls within 3 sd of the forward",
                           precision_name<T>(), n);
  row.median_ms = median_device_ms(context.options, stream, run);
  row.bytes_moved = static_cast<double>(n) * sizeof(T) * 5;  // price, S, K, T in; sigma out
  row.note = options_per_second(n, row.median_ms, "implied vols");
  if (std::is_same_v<T, double>) row.note += std::string("; ") + kPublishedFigure;
  context.report.add(row);
}

}  // namespace

void implied_volatility_section(Context& context) {
  const Stream stream;
  const std::int64_t n = context.options.quick ? pow2(20) : pow2(24);
  bench_implied_volatility<float>(context, stream, n);
  bench_implied_volatility<double>(context, stream, n);
  // Issue 31's second size: 10^5 options, the size of the published GPU figure.
  bench_implied_volatility<float>(context, stream, 100000);
  bench_implied_volatility<double>(context, stream, 100000);
}

}  // namespace cunum::bench::black_scholes
