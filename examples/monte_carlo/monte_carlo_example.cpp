// Monte Carlo on the GPU when there is one (else the CPU): a European call checked
// against Black-Scholes, an arithmetic Asian with and without its control variate
// and on Sobol bridge paths, a down-and-out barrier with its likelihood-ratio Greeks,
// and a basket call on three correlated assets with each asset's delta and vega.
// Prints price, standard error, 95% interval and the time of each call.

#include <chrono>
#include <cstdio>
#include <vector>

#include "cunum/black_scholes.hpp"
#include "cunum/monte_carlo.hpp"

namespace {

using namespace cunum;

void show(const char* what, const MonteCarloSettings& settings, const std::vector<MonteCarloOption<double>>& options) {
  const MonteCarloPricer<double> pricer(settings);
  pricer.price(options);  // first call: the device warms up
  const auto start = std::chrono::steady_clock::now();
  const std::vector<MonteCarloEstimate<double>> estimates = pricer.price(options);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const MonteCarloEstimate<double>& e = estimates.front();
  std::printf("%-44s %9.5f  %8.5f  [%8.5f, %8.5f]  %8.3f ms", what, e.price, e.standard_error, e.confidence_low,
              e.confidence_high, ms);
  if (settings.greeks) std::printf("  delta %.4f, vega %.4f", e.delta, e.vega);
  std::printf("\n");
}

// A basket call on three correlated assets, with each asset's pathwise delta and vega.
void show_basket(std::int64_t paths) {
  MonteCarloSettings settings;
  settings.payoff = MonteCarloPayoff::basket;
  settings.assets = 3;
  settings.correlation = {1.0, 0.5, 0.2, 0.5, 1.0, 0.3, 0.2, 0.3, 1.0};
  settings.paths = paths;
  settings.seed = 42;
  settings.control_variate = settings.greeks = true;
  MonteCarloBasketOption<double> basket;
  basket.assets = {{100.0, 0.01, 0.20, 0.5}, {50.0, 0.00, 0.30, 1.0}, {200.0, 0.02, 0.25, 0.25}};
  basket.strike = 150.0;
  basket.expiry = 1.0;
  basket.rate = 0.03;
  std::vector<MonteCarloAssetGreeks<double>> greeks;
  const MonteCarloEstimate<double> e = MonteCarloPricer<double>(settings).price({basket}, greeks).front();
  std::printf("%-44s %9.5f  %8.5f  [%8.5f, %8.5f]\n", "Basket call on 3 assets, K = 150", e.price, e.standard_error,
              e.confidence_low, e.confidence_high);
  for (std::size_t j = 0; j < greeks.size(); ++j) {
    std::printf("  asset %zu: delta %.4f +- %.4f, vega %.4f +- %.4f\n", j, greeks[j].delta,
                greeks[j].delta_standard_error, greeks[j].vega, greeks[j].vega_standard_error);
  }
}

}  // namespace

int main() {
  // One option: S = K = 100, one year, r = 3%, no dividend, sigma = 25%.
  const std::vector<MonteCarloOption<double>> option{{100.0, 100.0, 1.0, 0.03, 0.0, 0.25, 80.0}};
  const Backend backend = resolve_backend(Backend::automatic);  // what the pricers' default placement resolves to
  MonteCarloSettings settings;
  settings.paths = backend == Backend::cuda ? std::int64_t{1} << 22 : std::int64_t{1} << 18;
  settings.seed = 42;
  std::printf("backend: %s, %lld paths\n\n", to_string(backend), static_cast<long long>(settings.paths));
  std::printf("%-44s %9s  %8s  %22s  %11s\n", "option", "price", "s.e.", "95% interval", "time");

  BlackScholesMarket<double> market;
  market.rates.rate = 0.03;
  market.volatility = 0.25;
  const double exact = BlackScholesPricer<double>({BlackScholesOutput::call}).price({100.0}, {100.0}, {1.0}, market).call[0];
  settings.greeks = true;
  show("European call (Black-Scholes: see below)", settings, option);
  std::printf("%-44s %9.5f\n", "  Black-Scholes", exact);

  settings.greeks = false;
  settings.payoff = MonteCarloPayoff::asian_arithmetic;
  settings.time_steps = 64;
  show("Asian arithmetic call, 64 dates", settings, option);
  settings.antithetic = settings.control_variate = true;
  show("  + antithetic and geometric control", settings, option);
  settings.antithetic = false;
  settings.source = MonteCarloSource::sobol_bridge;
  show("  Sobol bridge + geometric control", settings, option);

  settings.source = MonteCarloSource::philox4x32_10;
  settings.control_variate = false;
  settings.payoff = MonteCarloPayoff::down_and_out;
  settings.greeks = true;  // the barrier's payoff jumps: likelihood-ratio Greeks, noisier than pathwise ones
  show("Down-and-out call, B = 80, 64 dates", settings, option);
  show_basket(settings.paths);
  return 0;
}
