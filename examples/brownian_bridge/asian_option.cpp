// Arithmetic-average Asian call under Black-Scholes, priced with Brownian bridge
// paths built from Sobol quasi-random normals (cuRAND) and, for comparison, from
// pseudo-random normals. Runs on the GPU when one is present, else on the CPU
// backend with cuRAND's host generators.
//
// cuRAND's quasi-random generators return, for n points of D dimensions, all n
// values of dimension 0, then of dimension 1, ...: exactly the path-fastest Z
// layout of a 1-d bridge (record k = Sobol dimension k), so the lowest, best
// distributed Sobol dimensions drive X_T and the coarse bisection points.

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

// Standard normals for `paths` x `records`, path-fastest; in device memory when
// `device` is set (returned through `device_z`), else on the host.
std::vector<double> normals(bool quasi, bool device, std::int64_t paths, std::int64_t records,
                            cunum::DeviceBuffer<double>& device_z) {
  curandGenerator_t generator;
  const auto type = quasi ? CURAND_RNG_QUASI_SCRAMBLED_SOBOL64 : CURAND_RNG_PSEUDO_PHILOX4_32_10;
  check(device ? curandCreateGenerator(&generator, type) : curandCreateGeneratorHost(&generator, type),
        "curandCreateGenerator");
  if (quasi) {
    check(curandSetQuasiRandomGeneratorDimensions(generator, static_cast<unsigned>(records)), "dimensions");
  } else {
    check(curandSetPseudoRandomGeneratorSeed(generator, 20260101ull), "seed");
  }
  const auto count = static_cast<std::size_t>(paths * records);
  std::vector<double> host;
  double* target = nullptr;
  if (device) {
    device_z = cunum::DeviceBuffer<double>(count);
    target = device_z.data();
  } else {
    host.resize(count);
    target = host.data();
  }
  check(curandGenerateNormalDouble(generator, target, count, 0.0, 1.0), "curandGenerateNormalDouble");
  check(curandDestroyGenerator(generator), "curandDestroyGenerator");
  return host;
}

struct Estimate {
  double price, standard_error;
};

// Discounted payoff per path from W at the averaging dates (path-fastest).
std::vector<double> payoffs(const Market& m, const std::vector<double>& w, std::int64_t paths) {
  std::vector<double> result(static_cast<std::size_t>(paths));
  const double dt = m.maturity / m.dates;
  for (std::int64_t p = 0; p < paths; ++p) {
    double sum = 0;
    for (int i = 0; i < m.dates; ++i) {
      const double t = (i + 1) * dt;
      sum += m.spot * std::exp((m.rate - 0.5 * m.volatility * m.volatility) * t +
                               m.volatility * w[static_cast<std::size_t>(i) * paths + p]);
    }
    result[p] = std::exp(-m.rate * m.maturity) * std::max(sum / m.dates - m.strike, 0.0);
  }
  return result;
}

// Price and the standard error of the mean of `batches` consecutive batches (for
// Sobol points this is a rough indication, since the batches are not independent).
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
    const bool device = cunum::cuda_available();
    const cunum::Backend backend = device ? cunum::Backend::cuda : cunum::Backend::cpu;
    const std::int64_t paths = std::int64_t{1} << 17;
    const int batches = 32;

    std::vector<double> grid;
    for (int i = 1; i < market.dates; ++i) grid.push_back(market.maturity * i / market.dates);
    const cunum::BrownianBridge bridge(0.0, market.maturity,
                                       cunum::make_bridge_order(grid, cunum::BridgeOrder::bisection), 1,
                                       {1.0}, cunum::CovarianceForm::factor, {0.0}, {}, backend);
    std::printf("Asian call, %d dates, %lld paths, backend %s, bridge stack %u\n", market.dates,
                static_cast<long long>(paths), cunum::to_string(backend), bridge.stack_size());

    for (bool quasi : {true, false}) {
      cunum::DeviceBuffer<double> device_z;
      std::vector<double> z = normals(quasi, device, paths, bridge.z_records(), device_z);
      std::vector<double> w;
      if (device) {
        cunum::DeviceBuffer<double> device_w(static_cast<std::size_t>(paths * bridge.output_records()));
        bridge.generate_paths(paths, device_z.data(), device_w.data());
        w = device_w.to_host();
      } else {
        w = bridge.generate_paths(paths, z);
      }
      const Estimate e = summarize(payoffs(market, w, paths), batches);
      std::printf("  %-14s price %.6f  std error %.6f\n", quasi ? "Sobol+bridge" : "pseudo-random",
                  e.price, e.standard_error);
    }
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
