// cunum-bench-monte-carlo: MonteCarloPricer on the GPU. European calls fused
// (Philox drawn in the kernel) beside the peer lines of monte_carlo_peers.hpp and
// cuRAND's host normal fill; variance reduction and Greeks; the reference work's
// options x paths curves; the fixed cost of one call, timed with and without its host
// launch and in a CUDA graph; the arithmetic Asian's time to a target standard error;
// the CPU backend. GB/s counts the normals the kernel never stores (paths x sizeof(T)), so
// "% of copy" compares pricing with merely writing the normals at the copy rate.
// Every timed case is checked outside the timing: prices against Black-Scholes
// (within 5 standard errors).

#include <cmath>
#include <string>
#include <vector>

#include "bench/common/bench_harness.hpp"
#include "bench/monte_carlo/monte_carlo_peers.hpp"
#include "cunum/black_scholes.hpp"
#include "cunum/core/device_buffer.hpp"
#include "cunum/monte_carlo.hpp"

namespace {

using namespace cunum::bench;
using cunum::Backend;
using cunum::DeviceBuffer;
using cunum::MonteCarloEstimate;
using cunum::MonteCarloOption;
using cunum::MonteCarloPayoff;
using cunum::MonteCarloPricer;
using cunum::MonteCarloSettings;
using cunum::MonteCarloSource;

constexpr const char* kModule = "monte_carlo";
constexpr std::uint64_t kSeed = 20261124;

struct Context {
  const BenchOptions& options;
  const BenchEnvironment& environment;
  BenchReport& report;
  FailureLog& failures;
};

// Options spread over strikes 80..120 and expiries 0.5..2 (the reference work's spread).
template <class T>
std::vector<MonteCarloOption<T>> option_batch(std::int64_t count) {
  std::vector<MonteCarloOption<T>> options(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const double u = count > 1 ? double(i % 97) / 96.0 : 0.5, v = count > 1 ? double(i % 13) / 12.0 : 0.5;
    options[static_cast<std::size_t>(i)] = {T(100), T(80 + 40 * u), T(0.5 + 1.5 * v), T(0.03), T(0), T(0.25), T(0)};
  }
  return options;
}

template <class T>
std::vector<double> black_scholes_calls(const std::vector<MonteCarloOption<T>>& options) {
  std::vector<double> s, k, t;
  for (const auto& o : options) {
    s.push_back(o.spot);
    k.push_back(o.strike);
    t.push_back(o.expiry);
  }
  cunum::BlackScholesMarket<double> market;
  market.rates.rate = double(options[0].rate);
  market.volatility = double(options[0].volatility);
  return cunum::BlackScholesPricer<double>({cunum::BlackScholesOutput::call}, Backend::cpu).price(s, k, t, market).call;
}

template <class E>
void check_against_black_scholes(const Context& context, const std::vector<E>& estimates, const std::vector<double>& truth,
                                 const std::string& name) {
  for (std::size_t i = 0; i < estimates.size(); ++i) {
    const double price = double(estimates[i].price), error = double(estimates[i].standard_error);
    if (!(std::abs(price - truth[i]) <= 5 * error + 1e-6 * truth[i])) {
      context.failures.fail(name + ": option " + std::to_string(i) + " prices " + std::to_string(price) + " +- " +
                            std::to_string(error) + ", Black-Scholes " + std::to_string(truth[i]));
      return;
    }
  }
}

// The peers' view of a float batch (no dividends: the peers price r, sigma only).
std::vector<PeerOption> peer_options_of(const std::vector<MonteCarloOption<float>>& options) {
  std::vector<PeerOption> out;
  for (const auto& o : options) out.push_back({o.spot, o.strike, o.expiry, o.rate, o.volatility});
  return out;
}

std::string gpaths(double paths, double ms) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3g Gpaths/s", paths / (ms * 1e6));
  return text;
}

template <class T>
MonteCarloSettings european_settings(std::int64_t paths) {
  MonteCarloSettings s;
  s.paths = paths;
  s.seed = kSeed;
  return s;
}

// Ours (plain), against the sample design (float) run interleaved; then the variants.
template <class T>
void european_case(const Context& context, std::int64_t option_count, std::int64_t paths, bool variants) {
  const auto options = option_batch<T>(option_count);
  const auto truth = black_scholes_calls(options);
  const double total = double(option_count) * double(paths);
  const MonteCarloPricer<T> pricer(european_settings<T>(paths), Backend::cuda);
  const auto batch = pricer.load(options);
  DeviceBuffer<MonteCarloEstimate<T>> results(static_cast<std::size_t>(option_count));
  const cunum::StreamHandle stream = results.stream();
  BenchRow row = bench_row(kModule, "european call, philox4x32_10 fused", precision_name<T>(), option_count * paths);
  row.bytes_moved = total * sizeof(T);
  if constexpr (sizeof(T) == 4) {
    SampleDesignPeer peer(option_count, paths, context.environment.multiprocessor_count, stream);
    peer.load(peer_options_of(options));
    const PairedMedians medians =
        compare_device_ms(context.options, stream, [&] { pricer.price(batch, results.data(), stream); },
                          [&] { peer.price(); });
    check_against_black_scholes(context, peer.results(), truth, "sample-design peer");
    row.median_ms = medians.ours_ms;
    row.peer = "sample design (XORWOW curand_normal, block per option)";
    row.peer_median_ms = medians.peer_ms;
    row.note = gpaths(total, medians.ours_ms) + "; peer " + gpaths(total, medians.peer_ms);
  } else {
    row.median_ms = median_device_ms(context.options, stream, [&] { pricer.price(batch, results.data(), stream); });
    row.note = gpaths(total, row.median_ms);
  }
  check_against_black_scholes(context, results.to_host(), truth, row.case_name);
  row.note += ", " + std::to_string(option_count) + " options x " + std::to_string(paths) + " paths";
  context.report.add(row);

  // The multi-device plan on this one GPU (two shares, their copies home and the
  // events), interleaved with the one-device plan: its overhead.
  {
    cunum::Placement two_shares(Backend::cuda);
    two_shares.devices = {cunum::current_device(), cunum::current_device()};
    const MonteCarloPricer<T> shared(european_settings<T>(paths), two_shares);
    const auto shared_batch = shared.load(options);
    DeviceBuffer<MonteCarloEstimate<T>> shared_results(static_cast<std::size_t>(option_count), stream);
    const PairedMedians medians = compare_device_ms(
        context.options, stream, [&] { shared.price(shared_batch, shared_results.data(), stream); },
        [&] { pricer.price(batch, results.data(), stream); });
    BenchRow m = bench_row(kModule, "european call, multi-device plan (2 shares on this GPU)", precision_name<T>(),
                           option_count * paths);
    m.median_ms = medians.ours_ms;
    m.bytes_moved = total * sizeof(T);
    m.peer = "the one-device plan";
    m.peer_median_ms = medians.peer_ms;
    m.note = gpaths(total, medians.ours_ms) + "; overhead " +
             std::to_string(100.0 * (medians.ours_ms / medians.peer_ms - 1.0)) + "%";
    check_against_black_scholes(context, shared_results.to_host(), truth, m.case_name);
    context.report.add(m);
  }

  CurandNormals normals(option_count * paths, sizeof(T) == 8, stream);
  BenchRow fill = bench_row(kModule, "cuRAND host normals alone (PHILOX4_32_10)", precision_name<T>(),
                            option_count * paths);
  fill.median_ms = median_device_ms(context.options, stream, [&] { normals.generate(); });
  fill.bytes_moved = total * sizeof(T);
  fill.note = gpaths(total, fill.median_ms) + " (normals written, nothing priced)";
  context.report.add(fill);
  if (!variants) return;

  for (int variant = 1; variant < 5; ++variant) {
    MonteCarloSettings s = european_settings<T>(paths);
    s.antithetic = variant == 1;
    s.control_variate = variant == 2;
    s.greeks = variant == 3;
    if (variant == 4) s.source = MonteCarloSource::mrg32k3a;
    const MonteCarloPricer<T> varied(s, Backend::cuda);
    const auto varied_batch = varied.load(options);
    const char* names[] = {"", "antithetic", "control variate", "delta + vega", "mrg32k3a in the kernel"};
    BenchRow v = bench_row(kModule, std::string("european call, ") + names[variant], precision_name<T>(),
                           option_count * paths);
    v.median_ms = median_device_ms(context.options, stream, [&] { varied.price(varied_batch, results.data(), stream); });
    v.bytes_moved = total * sizeof(T);
    v.note = gpaths(total, v.median_ms);
    check_against_black_scholes(context, results.to_host(), truth, v.case_name);
    context.report.add(v);
  }
  if constexpr (sizeof(T) == 4) {
    ReferenceRoute route(option_count, paths, stream);
    route.load(peer_options_of(options));
    BenchRow r = bench_row(kModule, "reference route: cuRAND MT19937 normals + pricing kernel", precision_name<T>(),
                           option_count * paths);
    r.median_ms = median_device_ms(context.options, stream, [&] { route.price(); });
    const double generate_ms = median_device_ms(context.options, stream, [&] { route.generate(); });
    r.bytes_moved = total * sizeof(T);
    r.note = gpaths(total, r.median_ms) + " (of which MT19937 normals " + std::to_string(generate_ms) + " ms)";
    check_against_black_scholes(context, route.results(), truth, r.case_name);
    context.report.add(r);
  }
}

// The reference work's curves: options x paths/option, Gpaths/s per shape, after
// their floor: an empty kernel timed the same way (host launch included).
void shapes_section(const Context& context) {
  {
    const cunum::Stream stream;
    BenchRow floor = bench_row(kModule, "an empty kernel (one warp), the floor of every shape", "-", 0);
    floor.median_ms = median_device_ms(context.options, stream.get(), [&] { launch_empty_kernel(stream.get()); });
    floor.note = "2^20 paths at this time would be " + gpaths(double(std::int64_t{1} << 20), floor.median_ms);
    context.report.add(floor);
  }
  const std::int64_t option_counts[] = {1, 64, 256, 4096, 65536};
  const std::int64_t max_total = context.options.quick ? (std::int64_t{1} << 24) : (std::int64_t{1} << 32);
  for (std::int64_t options : option_counts) {
    for (std::int64_t paths = 1024; paths <= (std::int64_t{1} << 24); paths *= 4) {
      if (options * paths > max_total) continue;
      const auto batch_options = option_batch<float>(options);
      const MonteCarloPricer<float> pricer(european_settings<float>(paths), Backend::cuda);
      const auto batch = pricer.load(batch_options);
      DeviceBuffer<MonteCarloEstimate<float>> results(static_cast<std::size_t>(options));
      BenchRow row = bench_row(kModule, "shape " + std::to_string(options) + " options x " + std::to_string(paths) +
                                            " paths", "float32", options * paths);
      row.median_ms = median_device_ms(context.options, results.stream(),
                                       [&] { pricer.price(batch, results.data(), results.stream()); });
      row.bytes_moved = double(options) * double(paths) * 4;
      row.note = gpaths(double(options) * double(paths), row.median_ms) + ", " +
                 std::to_string(double(options) / row.median_ms * 1e3) + " options/s";
      check_against_black_scholes(context, results.to_host(), black_scholes_calls(batch_options), row.case_name);
      context.report.add(row);
    }
  }
}

// What one call costs beside its paths (issue 31: at most 5 us a call): one European
// call at 1,024, 2^20 and 2^26 paths (2^22 with --quick), timed three ways in turn:
// host launch included (a program's view, and the Python bench's), the GPU's time
// alone (the stream held while the call is enqueued), and one call's share of a CUDA
// graph of kGraphCalls back-to-back calls. The first less the second is the host's
// enqueue (validation, the stream's workspace, the launch; the launches past 2^20
// paths); the second less the third is what the GPU spends starting the call's
// kernels. A captured call runs the launch chain on chunk sums the graph allocates
// and frees (no zeroing: the chain has no arrival counters). Beside each row, timed
// the same way and interleaved: an empty kernel, the least any call that launches one
// can cost (the batch-shape curve's floor).
template <class T>
void fixed_cost_rows(const Context& context) {
  constexpr int kGraphCalls = 16;
  const cunum::Stream stream;
  const auto options = option_batch<T>(1);
  const std::int64_t largest = context.options.quick ? std::int64_t{1} << 22 : std::int64_t{1} << 26;
  for (const std::int64_t paths : {std::int64_t{1024}, std::int64_t{1} << 20, largest}) {
    const MonteCarloPricer<T> pricer(european_settings<T>(paths), Backend::cuda);
    const auto batch = pricer.load(options);
    DeviceBuffer<MonteCarloEstimate<T>> results(1, stream.get());
    for (const DeviceTiming timing : {DeviceTiming::host_call, DeviceTiming::gpu_only, DeviceTiming::graph_replay}) {
      BenchRow row = bench_row(kModule, std::string("one european call, ") + to_string(timing), precision_name<T>(),
                               paths);
      const PairedMedians medians = compare_device_ms(
          context.options, stream.get(), [&] { pricer.price(batch, results.data(), stream.get()); },
          [&] { launch_empty_kernel(stream.get()); }, timing, kGraphCalls);
      row.median_ms = medians.ours_ms;
      row.peer = "an empty kernel (one warp), timed the same way";
      row.peer_median_ms = medians.peer_ms;
      row.bytes_moved = double(paths) * sizeof(T);
      row.note = gpaths(double(paths), row.median_ms) + ", " + std::to_string(paths) + " paths";
      if (timing == DeviceTiming::graph_replay) row.note += ", " + std::to_string(kGraphCalls) + " calls a graph";
      check_against_black_scholes(context, results.to_host(), black_scholes_calls(options), row.case_name);
      context.report.add(row);
    }
  }
}

// The arithmetic Asian on 64 dates: the desk's number is the time to a standard
// error of 1e-3 of the price, from the error measured at `paths` (s.e. ~ 1/sqrt n).
void asian_section(const Context& context) {
  const std::vector<MonteCarloOption<float>> option{{100.0f, 100.0f, 1.0f, 0.03f, 0.0f, 0.25f, 0.0f}};
  const std::int64_t paths = context.options.quick ? (std::int64_t{1} << 18) : (std::int64_t{1} << 24);
  // The reference for the quasi-random rows' error: Philox, antithetic, control variate, 4x the paths.
  MonteCarloSettings reference_settings;
  reference_settings.payoff = MonteCarloPayoff::asian_arithmetic;
  reference_settings.time_steps = 64;
  reference_settings.paths = 4 * paths;
  reference_settings.seed = kSeed + 1;
  reference_settings.antithetic = reference_settings.control_variate = true;
  const MonteCarloEstimate<float> reference =
      MonteCarloPricer<float>(reference_settings, Backend::cuda).price(option)[0];
  for (int variant = 0; variant < 2; ++variant) {
    MonteCarloSettings s;
    s.payoff = MonteCarloPayoff::asian_arithmetic;
    s.time_steps = 64;
    s.paths = paths;
    s.seed = kSeed;
    s.antithetic = s.control_variate = variant == 1;
    const MonteCarloPricer<float> pricer(s, Backend::cuda);
    const auto batch = pricer.load(option);
    DeviceBuffer<MonteCarloEstimate<float>> result(1);
    BenchRow row = bench_row(kModule, std::string("asian arithmetic, 64 dates, ") +
                                          (variant == 0 ? "plain" : "antithetic + control variate"),
                             "float32", paths);
    row.median_ms = median_device_ms(context.options, result.stream(),
                                     [&] { pricer.price(batch, result.data(), result.stream()); });
    row.bytes_moved = double(paths) * 64 * 4;  // the 64 normals a path needs
    const MonteCarloEstimate<float> e = result.to_host()[0];
    const double target = 1e-3 * double(e.price);
    const double needed = double(paths) * std::pow(double(e.standard_error) / target, 2.0);
    // The desk's number: one call with the paths that s.e. needs (a power of 2, at least 2^10).
    std::int64_t enough = 1024;
    while (double(enough) < needed) enough *= 2;
    s.paths = enough;
    const MonteCarloPricer<float> enough_pricer(s, Backend::cuda);
    const auto enough_batch = enough_pricer.load(option);
    const double ms_to_target = median_device_ms(context.options, result.stream(), [&] {
      enough_pricer.price(enough_batch, result.data(), result.stream());
    });
    char note[256];
    std::snprintf(note, sizeof note, "%s; price %.5f +- %.5f; s.e. 1e-3 of price needs %.3g paths: %lld paths take %.3f ms",
                  gpaths(double(paths), row.median_ms).c_str(), double(e.price), double(e.standard_error), needed,
                  static_cast<long long>(enough), ms_to_target);
    row.note = note;
    context.report.add(row);
  }
  // Sobol bridge: the first n (powers of 4) whose error against the reference is
  // below 1e-3 of the price, and the time of that call.
  for (bool control : {false, true}) {
    for (std::int64_t n = 1 << 10; n <= paths; n *= 4) {
      MonteCarloSettings s;
      s.payoff = MonteCarloPayoff::asian_arithmetic;
      s.time_steps = 64;
      s.paths = n;
      s.control_variate = control;
      s.source = MonteCarloSource::sobol_bridge;
      const MonteCarloPricer<float> pricer(s, Backend::cuda);
      const auto batch = pricer.load(option);
      DeviceBuffer<MonteCarloEstimate<float>> result(1);
      BenchRow row = bench_row(kModule, std::string("asian arithmetic, 64 dates, sobol_bridge") +
                                            (control ? " + control variate" : ""),
                               "float32", n);
      row.median_ms = median_device_ms(context.options, result.stream(),
                                       [&] { pricer.price(batch, result.data(), result.stream()); });
      row.bytes_moved = double(n) * 64 * 4;
      const MonteCarloEstimate<float> e = result.to_host()[0];
      const double error = std::abs(double(e.price) - double(reference.price));
      char note[256];
      std::snprintf(note, sizeof note, "%s; price %.5f, error vs reference %.2e (reference s.e. %.1e)%s",
                    gpaths(double(n), row.median_ms).c_str(), double(e.price), error,
                    double(reference.standard_error),
                    error < 1e-3 * double(reference.price) ? ": below 1e-3 of the price" : "");
      row.note = note;
      context.report.add(row);
    }
  }
}

// Baskets, best-of and worst-of on 5 correlated assets (pairwise 0.3), 1024 options x
// 2^18 paths: 5 normals a path, correlated by the Cholesky factor.
void basket_section(const Context& context) {
  const std::int64_t count = context.options.quick ? 16 : 1024, paths = std::int64_t{1} << 18;
  std::vector<cunum::MonteCarloBasketOption<float>> options;
  for (std::int64_t i = 0; i < count; ++i) {
    cunum::MonteCarloBasketOption<float> o;
    for (int j = 0; j < 5; ++j) o.assets.push_back({100.0f, 0.01f * j, 0.2f + 0.03f * j, 0.2f});
    o.strike = 80.0f + 40.0f * float(i % 97) / 96.0f;
    o.expiry = 1.0f;
    o.rate = 0.03f;
    options.push_back(o);
  }
  for (MonteCarloPayoff payoff : {MonteCarloPayoff::basket, MonteCarloPayoff::best_of, MonteCarloPayoff::worst_of}) {
    MonteCarloSettings s = european_settings<float>(paths);
    s.payoff = payoff;
    s.assets = 5;
    s.correlation.assign(25, 0.3);
    for (int j = 0; j < 5; ++j) s.correlation[static_cast<std::size_t>(j * 6)] = 1.0;
    const MonteCarloPricer<float> pricer(s, Backend::cuda);
    const auto batch = pricer.load(options);
    DeviceBuffer<MonteCarloEstimate<float>> results(static_cast<std::size_t>(count));
    BenchRow row = bench_row(kModule, std::string(cunum::to_string(payoff)) + " call, 5 assets", "float32",
                             count * paths);
    row.median_ms = median_device_ms(context.options, results.stream(),
                                     [&] { pricer.price(batch, results.data(), results.stream()); });
    row.bytes_moved = double(count) * double(paths) * 5 * 4;  // the 5 normals a path needs
    row.note = gpaths(double(count) * double(paths), row.median_ms) + " (" +
               std::to_string(double(count) * double(paths) * 5 / (row.median_ms * 1e6)) + " G normals/s)";
    context.report.add(row);
  }
  // What the Greeks cost: the basket with its control variate, then with each asset's delta and vega.
  MonteCarloSettings s = european_settings<float>(paths);
  s.payoff = MonteCarloPayoff::basket;
  s.assets = 5;
  s.correlation.assign(25, 0.3);
  for (int j = 0; j < 5; ++j) s.correlation[static_cast<std::size_t>(j * 6)] = 1.0;
  s.control_variate = true;
  for (bool greeks : {false, true}) {
    s.greeks = greeks;
    const MonteCarloPricer<float> pricer(s, Backend::cuda);
    const auto batch = pricer.load(options);
    DeviceBuffer<MonteCarloEstimate<float>> results(static_cast<std::size_t>(count));
    DeviceBuffer<cunum::MonteCarloAssetGreeks<float>> asset_greeks(static_cast<std::size_t>(count * 5));
    BenchRow row = bench_row(kModule, greeks ? "basket call, 5 assets, control + each asset's Greeks"
                                             : "basket call, 5 assets, control variate",
                             "float32", count * paths);
    row.median_ms = median_device_ms(context.options, results.stream(), [&] {
      pricer.price(batch, results.data(), greeks ? asset_greeks.data() : nullptr, results.stream());
    });
    row.bytes_moved = double(count) * double(paths) * 5 * 4;
    row.note = gpaths(double(count) * double(paths), row.median_ms);
    context.report.add(row);
  }
}

template <class T>
void cpu_case(const Context& context) {
  const std::int64_t count = 8, paths = context.options.quick ? (std::int64_t{1} << 16) : (std::int64_t{1} << 20);
  const auto options = option_batch<T>(count);
  const MonteCarloPricer<T> pricer(european_settings<T>(paths), Backend::cpu);
  const auto batch = pricer.load(options);
  std::vector<MonteCarloEstimate<T>> results(static_cast<std::size_t>(count));
  BenchRow row = bench_row(kModule, "cpu: european call", precision_name<T>(), count * paths);
  row.median_ms = median_host_ms(context.options, [&] { pricer.price(batch, results.data()); });
  row.bytes_moved = double(count) * double(paths) * sizeof(T);
  row.note = gpaths(double(count * paths), row.median_ms);
  check_against_black_scholes(context, results, black_scholes_calls(options), row.case_name);
  context.report.add(row);
}

}  // namespace

int main(int argc, char** argv) {
  FailureLog failures;
  return bench_main(
      argc, argv, "cunum-bench-monte-carlo",
      "Monte Carlo pricing: Gpaths/s, vs the sample design, cuRAND normals and the reference two-kernel route; "
      "sections: European call, Batch shapes, Fixed cost, Multi-asset, Arithmetic Asian, CPU backend",
      failures, [&](const BenchOptions& options) {
        const BenchEnvironment environment = measure_environment(options);
        if (environment.backend == Backend::cuda) {
          const char* title = "European call, fused generation";
          if (section_selected(options, title)) {
            BenchReport report(environment, options, title);
            const Context context{options, environment, report, failures};
            const std::int64_t big = options.quick ? (std::int64_t{1} << 22) : (std::int64_t{1} << 31);
            european_case<float>(context, options.quick ? 64 : 8192, big / (options.quick ? 64 : 8192), true);
            european_case<float>(context, 1, big, false);
            european_case<double>(context, options.quick ? 64 : 8192, big / (options.quick ? 64 : 8192), true);
            european_case<double>(context, 1, big, false);
          }
          const char* shapes = "Batch shapes (the reference work's options x paths curves)";
          if (section_selected(options, shapes)) {
            BenchReport report(environment, options, shapes);
            shapes_section({options, environment, report, failures});
          }
          const char* fixed = "Fixed cost of a call (one option: host launch, GPU alone, CUDA graph)";
          if (section_selected(options, fixed)) {
            BenchReport report(environment, options, fixed);
            const Context context{options, environment, report, failures};
            fixed_cost_rows<float>(context);
            fixed_cost_rows<double>(context);
          }
          const char* baskets = "Multi-asset: 5 correlated assets";
          if (section_selected(options, baskets)) {
            BenchReport report(environment, options, baskets);
            basket_section({options, environment, report, failures});
          }
          const char* asian = "Arithmetic Asian, 64 dates";
          if (section_selected(options, asian)) {
            BenchReport report(environment, options, asian);
            asian_section({options, environment, report, failures});
          }
        }
        const char* cpu_title = "CPU backend (all threads)";
        if (!section_selected(options, cpu_title)) return;
        BenchReport report(environment, options, cpu_title);
        const Context context{options, environment, report, failures};
        cpu_case<float>(context);
        cpu_case<double>(context);
      });
}
