// Arithmetic-average Asian call under Black-Scholes, priced with Brownian paths
// from a bisection bridge driven two ways: scrambled Sobol points through the fused
// quasi-random bridge (the normals never touch memory on the GPU), and Philox
// pseudo-random normals from cuRAND through generate_paths. Runs on the GPU when one
// is present, else on the CPU backend (cuRAND's host generators).
//
// The bisection order gives the lowest, best distributed Sobol dimensions to X_T and
// the coarse midpoints, which carry most of the payoff's variance: that is what makes
// the quasi-random estimate converge faster. Standard errors come from 32 batches;
// for Sobol points the batches are not independent, so theirs is only an indication.

#include <curand.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "cunum/brownian_bridge.hpp"
#include "cunum/core.hpp"

namespace {

struct Market {
  double spot = 100, strike = 100, rate = 0.05, volatility = 0.2, maturity = 1.0;
  int dates = 64;  // averaging dates T/64, 2T/64, ..., T
};

void check(curandStatus_t status, const char* what) {
  if (status != CURAND_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + " failed with cuRAND status " + std::to_string(status));
  }
}

// Brownian paths W at the averaging dates, path-fastest, on the host.
std::vector<double> sobol_paths(const cunum::BrownianBridge& bridge, std::int64_t paths) {
  const auto count = static_cast<std::size_t>(paths * bridge.output_records());
  std::vector<double> w(count);
  cunum::SobolBridgeOptions options;
  options.sequence = cunum::SobolSequence::scrambled_sobol64;
  if (bridge.backend() == cunum::Backend::cuda) {
    cunum::DeviceBuffer<double> device_w(count);
    bridge.generate_sobol_paths(paths, device_w.data(), options);
    device_w.copy_to_host(w.data(), count);
  } else {
    bridge.generate_sobol_paths(paths, w.data(), options);
  }
  return w;
}

std::vector<double> pseudo_random_paths(const cunum::BrownianBridge& bridge, std::int64_t paths) {
  const bool device = bridge.backend() == cunum::Backend::cuda;
  curandGenerator_t generator;
  check(device ? curandCreateGenerator(&generator, CURAND_RNG_PSEUDO_PHILOX4_32_10)
               : curandCreateGeneratorHost(&generator, CURAND_RNG_PSEUDO_PHILOX4_32_10),
        "curandCreateGenerator");
  check(curandSetPseudoRandomGeneratorSeed(generator, 20260101ull), "curandSetPseudoRandomGeneratorSeed");
  const auto normals = static_cast<std::size_t>(paths * bridge.z_records());  // even: 64 per path
  std::vector<double> w;
  if (device) {
    cunum::DeviceBuffer<double> z(normals);
    cunum::DeviceBuffer<double> device_w(static_cast<std::size_t>(paths * bridge.output_records()));
    check(curandGenerateNormalDouble(generator, z.data(), normals, 0.0, 1.0), "curandGenerateNormalDouble");
    bridge.generate_paths(paths, z.data(), device_w.data());
    w = device_w.to_host();
  } else {
    std::vector<double> z(normals);
    check(curandGenerateNormalDouble(generator, z.data(), normals, 0.0, 1.0), "curandGenerateNormalDouble");
    w = bridge.generate_paths(paths, z);
  }
  check(curandDestroyGenerator(generator), "curandDestroyGenerator");
  return w;
}

// Discounted payoff of each path.
std::vector<double> payoffs(const Market& m, const std::vector<double>& w, std::int64_t paths) {
  std::vector<double> result(static_cast<std::size_t>(paths));
  const double dt = m.maturity / m.dates;
  const double drift = m.rate - 0.5 * m.volatility * m.volatility;
  for (std::int64_t p = 0; p < paths; ++p) {
    double sum = 0;
    for (int i = 0; i < m.dates; ++i) {
      sum += m.spot * std::exp(drift * (i + 1) * dt + m.volatility * w[static_cast<std::size_t>(i) * paths + p]);
    }
    result[p] = std::exp(-m.rate * m.maturity) * std::max(sum / m.dates - m.strike, 0.0);
  }
  return result;
}

struct Estimate {
  double price, standard_error;
};

Estimate summarize(const std::vector<double>& values, int batches) {
  const std::size_t per_batch = values.size() / batches;
  double sum = 0, sum_squares = 0;
  for (int b = 0; b < batches; ++b) {
    double mean = 0;
    for (std::size_t i = 0; i < per_batch; ++i) mean += values[b * per_batch + i];
    mean /= per_batch;
    sum += mean;
    sum_squares += mean * mean;
  }
  const double mean = sum / batches;
  const double variance = (sum_squares / batches - mean * mean) * batches / (batches - 1);
  return {mean, std::sqrt(variance / batches)};
}

}  // namespace

int main() {
  try {
    const Market market;
    const cunum::Backend backend = cunum::cuda_available() ? cunum::Backend::cuda : cunum::Backend::cpu;
    std::vector<double> grid;
    for (int i = 1; i < market.dates; ++i) grid.push_back(market.maturity * i / market.dates);
    const cunum::BrownianBridge bridge(0.0, market.maturity,
                                       cunum::make_bridge_order(grid, cunum::BridgeOrder::bisection), 1, {1.0},
                                       cunum::CovarianceForm::factor, {0.0}, {}, backend);
    std::printf("Asian call (S = K = 100, r = 5%%, sigma = 20%%, T = 1, %d dates), backend %s, bridge stack %u\n",
                market.dates, cunum::to_string(backend), bridge.stack_size());
    std::printf("%10s  %-28s  %-28s\n", "paths", "Sobol + fused bridge", "Philox + bridge");
    for (int log2_paths = 12; log2_paths <= 18; log2_paths += 2) {
      const std::int64_t paths = std::int64_t{1} << log2_paths;
      const Estimate quasi = summarize(payoffs(market, sobol_paths(bridge, paths), paths), 32);
      const Estimate pseudo = summarize(payoffs(market, pseudo_random_paths(bridge, paths), paths), 32);
      std::printf("%10lld  %.6f (s.e. %.6f)  %.6f (s.e. %.6f)\n", static_cast<long long>(paths), quasi.price,
                  quasi.standard_error, pseudo.price, pseudo.standard_error);
    }
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
