// cunum-demo: runs each of the nine modules once on the GPU, or on the OpenMP CPU
// backend where no GPU exists, and prints a table. On the GPU each answer is checked
// against the CPU backend (divergence's against the host's count); without a GPU there
// is nothing independent to check those against, and the table says so rather than
// compare the CPU backend with itself. access_model is host code: its row holds the
// model to a simulation on either. divergence is device code only: without a GPU its
// row says it did not run. Exit status 1 if a check failed.
//
//   cunum-demo [--backend automatic|cpu|cuda] [--help] [--version]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cunum/access_model.hpp"
#include "cunum/black_scholes.hpp"
#include "cunum/brownian_bridge.hpp"
#include "cunum/core.hpp"
#include "cunum/himeno.hpp"
#include "cunum/monte_carlo.hpp"
#include "cunum/poisson_fft.hpp"
#include "cunum/random.hpp"
#include "cunum/reduce.hpp"
#include "demo.hpp"
#include "programs/command_line.hpp"

namespace cunum::demo {

double median_ms(int runs, const std::function<void()>& work) {
  work();  // warm-up
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    work();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
  return times[static_cast<std::size_t>(runs / 2)];
}

namespace {

// The row of a run that moved `bytes` in `ms`, its answer held to the CPU backend's on
// the GPU; on the CPU backend there is nothing independent to hold it to.
DemoRow row_of(const char* module, const char* problem, Backend backend, double ms, double bytes, bool agrees) {
  const bool checked = backend == Backend::cuda;
  return {module, problem, ms, bytes / (ms * 1e6), checked ? (agrees ? "yes" : "NO") : "n/a (CPU only)",
          checked && !agrees};
}

DemoRow demo_reduce(cunum::Backend backend) {
  const std::int64_t n = std::int64_t{1} << 26;
  std::vector<float> host(static_cast<std::size_t>(n));
  std::mt19937 engine(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& x : host) x = uniform(engine);

  cunum::Reducer<float> reducer(backend);
  float sum = 0.0f;
  double ms = 0.0;
  if (backend == cunum::Backend::cuda) {
    cunum::Stream stream;
    const auto data = cunum::DeviceBuffer<float>::from_host(host, stream);
    cunum::DeviceBuffer<float> result(1, stream);
    ms = median_ms(20, [&] {
      reducer.reduce(cunum::ReduceOp::sum, data.data(), n, result.data(), stream);
      stream.synchronize();
    });
    result.copy_to_host(&sum, 1);
  } else {
    ms = median_ms(5, [&] { reducer.reduce(cunum::ReduceOp::sum, host.data(), n, &sum); });
  }
  bool agrees = true;  // on the CPU backend, nothing independent to check
  if (backend == cunum::Backend::cuda) {
    const float cpu = cunum::reduce(cunum::ReduceOp::sum, host, cunum::Backend::cpu);
    agrees = std::fabs(sum - cpu) <= 1e-6f * std::max(1.0f, std::fabs(cpu));
  }
  return row_of("reduce", "sum of 2^26 floats", backend, ms, n * sizeof(float), agrees);
}

DemoRow demo_brownian_bridge(cunum::Backend backend) {
  const std::int64_t paths = std::int64_t{1} << 18;
  std::vector<double> grid;
  for (int i = 1; i < 64; ++i) grid.push_back(i / 64.0);
  const auto order = cunum::make_bridge_order(grid, cunum::BridgeOrder::bisection);
  auto make = [&](cunum::Backend b) {
    return cunum::BrownianBridge(0.0, 1.0, order, 1, {1.0}, cunum::CovarianceForm::factor, {0.0}, {}, b);
  };
  const cunum::BrownianBridge bridge = make(backend);
  std::vector<float> z(static_cast<std::size_t>(paths * bridge.z_records()));
  std::mt19937 engine(11);
  std::normal_distribution<float> normal;
  for (float& x : z) x = normal(engine);

  std::vector<float> x;
  double ms = 0.0;
  if (backend == cunum::Backend::cuda) {
    cunum::Stream stream;
    const auto device_z = cunum::DeviceBuffer<float>::from_host(z, stream);
    cunum::DeviceBuffer<float> device_x(static_cast<std::size_t>(paths * bridge.output_records()), stream);
    cunum::BridgeGenerateOptions options;
    options.stream = stream;
    ms = median_ms(20, [&] {
      bridge.generate_paths(paths, device_z.data(), device_x.data(), options);
      stream.synchronize();
    });
    x = device_x.to_host();
  } else {
    ms = median_ms(5, [&] { x = bridge.generate_paths(paths, z); });
  }
  bool agrees = true;  // on the CPU backend, nothing independent to check
  if (backend == cunum::Backend::cuda) {
    const std::vector<float> cpu = make(cunum::Backend::cpu).generate_paths(paths, z);
    agrees = x.size() == cpu.size();
    for (std::size_t i = 0; agrees && i < x.size(); ++i) {
      agrees = std::fabs(x[i] - cpu[i]) <= 1e-5f * std::max(1.0f, std::fabs(cpu[i]));
    }
  }
  const double bytes = static_cast<double>(z.size() + x.size()) * sizeof(float);
  return row_of("brownian_bridge", "2^18 float paths x 64 steps, bisection", backend, ms, bytes, agrees);
}

DemoRow demo_black_scholes(cunum::Backend backend) {
  const std::size_t n = std::size_t{1} << 22;
  std::vector<float> spot(n), strike(n), expiry(n);
  std::mt19937 engine(13);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (std::size_t i = 0; i < n; ++i) {
    spot[i] = 5 + 25 * uniform(engine);
    strike[i] = 1 + 99 * uniform(engine);
    expiry[i] = 0.25f + 9.75f * uniform(engine);
  }
  const cunum::BlackScholesOutputs outputs{cunum::BlackScholesOutput::call, cunum::BlackScholesOutput::put};
  cunum::BlackScholesMarket<float> market;
  market.rates.rate = 0.02f;
  market.volatility = 0.30f;
  const cunum::BlackScholesPricer<float> pricer(outputs, backend);
  std::vector<float> call;
  double ms = 0.0;
  if (backend == cunum::Backend::cuda) {
    cunum::Stream stream;
    const auto device_spot = cunum::DeviceBuffer<float>::from_host(spot, stream);
    const auto device_strike = cunum::DeviceBuffer<float>::from_host(strike, stream);
    const auto device_expiry = cunum::DeviceBuffer<float>::from_host(expiry, stream);
    cunum::DeviceBuffer<float> device_call(n, stream), device_put(n, stream);
    cunum::BlackScholesResults<float> results;
    results.call = device_call.data();
    results.put = device_put.data();
    ms = median_ms(20, [&] {
      pricer.price(static_cast<std::int64_t>(n), device_spot.data(), device_strike.data(), device_expiry.data(),
                   market, results, stream);
      stream.synchronize();
    });
    call = device_call.to_host();
  } else {
    ms = median_ms(5, [&] { call = pricer.price(spot, strike, expiry, market).call; });
  }
  bool agrees = true;  // on the CPU backend, nothing independent to check
  if (backend == cunum::Backend::cuda) {
    const std::vector<float> cpu =
        cunum::BlackScholesPricer<float>(outputs, cunum::Backend::cpu).price(spot, strike, expiry, market).call;
    agrees = true;
    for (std::size_t i = 0; agrees && i < n; ++i) {
      agrees = std::fabs(call[i] - cpu[i]) <= 1e-4f * std::max(1.0f, std::fabs(cpu[i]));
    }
  }
  const double bytes = static_cast<double>(n) * 5 * sizeof(float);  // S, K, T in; call, put out
  return row_of("black_scholes", "2^22 float calls and puts (the SDK sample's book)", backend, ms, bytes, agrees);
}

// 64 float European calls x 2^20 paths each (CPU backend: 2^16), Philox drawn in the
// kernel; the GB/s column counts the normals the kernel never stores. Same seed, same
// paths on both backends, so the GPU's prices must match the CPU's to rounding.
DemoRow demo_monte_carlo(cunum::Backend backend) {
  std::vector<cunum::MonteCarloOption<float>> options;
  for (int i = 0; i < 64; ++i) options.push_back({100.0f, 80.0f + 0.625f * i, 1.0f, 0.03f, 0.0f, 0.25f, 0.0f});
  cunum::MonteCarloSettings settings;
  settings.paths = backend == cunum::Backend::cuda ? std::int64_t{1} << 20 : std::int64_t{1} << 16;
  settings.seed = 20261124;
  const cunum::MonteCarloPricer<float> pricer(settings, backend);
  const auto batch = pricer.load(options);
  std::vector<cunum::MonteCarloEstimate<float>> estimates(options.size());
  double ms = 0.0;
  if (backend == cunum::Backend::cuda) {
    cunum::Stream stream;
    cunum::DeviceBuffer<cunum::MonteCarloEstimate<float>> device_estimates(options.size(), stream);
    ms = median_ms(20, [&] {
      pricer.price(batch, device_estimates.data(), stream);
      stream.synchronize();
    });
    estimates = device_estimates.to_host();
  } else {
    ms = median_ms(5, [&] { pricer.price(batch, estimates.data()); });
  }
  bool agrees = true;  // on the CPU backend, nothing independent to check
  if (backend == cunum::Backend::cuda) {
    const auto cpu = cunum::MonteCarloPricer<float>(settings, cunum::Backend::cpu).price(options);
    agrees = true;
    for (std::size_t i = 0; agrees && i < cpu.size(); ++i) {
      agrees = std::fabs(estimates[i].price - cpu[i].price) <= 1e-3f * cpu[i].standard_error + 1e-5f * cpu[i].price;
    }
  }
  const double bytes = double(options.size()) * double(settings.paths) * sizeof(float);
  return row_of("monte_carlo", "64 float European calls x 2^20 paths (CPU: 2^16), Philox in the kernel", backend, ms,
                bytes, agrees);
}

// A periodic 1024 x 1024 Poisson problem in float: the reference work's spectral solve.
DemoRow demo_poisson_fft(cunum::Backend backend) {
  const std::int64_t n = 1024;
  const cunum::PoissonGrid grid{{n, n}, {1.0, 1.0}, {cunum::PoissonBoundary::periodic, cunum::PoissonBoundary::periodic}};
  std::vector<float> f(static_cast<std::size_t>(n * n));
  std::mt19937 engine(13);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& v : f) v = uniform(engine);
  cunum::PoissonSolver<float> solver(grid, {}, backend);
  std::vector<float> u;
  double ms = 0.0;
  if (backend == cunum::Backend::cuda) {
    cunum::Stream stream;
    const auto device_f = cunum::DeviceBuffer<float>::from_host(f, stream);
    cunum::DeviceBuffer<float> device_u(f.size(), stream);
    ms = median_ms(20, [&] {
      solver.solve(device_f.data(), device_u.data(), stream);
      stream.synchronize();
    });
    u = device_u.to_host();
  } else {
    ms = median_ms(5, [&] { u = solver.solve(f); });
  }
  bool agrees = true;  // on the CPU backend, nothing independent to check
  if (backend == cunum::Backend::cuda) {
    const std::vector<float> cpu = cunum::PoissonSolver<float>(grid, {}, cunum::Backend::cpu).solve(f);
    float scale = 0;
    for (float v : cpu) scale = std::max(scale, std::fabs(v));
    agrees = true;
    for (std::size_t i = 0; agrees && i < u.size(); ++i) agrees = std::fabs(u[i] - cpu[i]) <= 1e-4f * scale;
  }
  const double bytes = 2.0 * static_cast<double>(f.size()) * sizeof(float);
  return row_of("poisson_fft", "periodic 1024^2 float, spectral", backend, ms, bytes, agrees);
}

// The Himeno benchmark's size S, 10 sweeps in float; the GPU's pressure must equal the
// CPU backend's bit for bit.
DemoRow demo_himeno(cunum::Backend backend) {
  const cunum::HimenoGrid grid = cunum::himeno_grid(cunum::HimenoSize::s);
  constexpr int sweeps = 10;
  cunum::HimenoProblem<float> problem(grid, {}, backend);
  const double ms = median_ms(5, [&] { problem.iterate(sweeps); });
  bool agrees = true;  // on the CPU backend, nothing independent to check
  if (backend == cunum::Backend::cuda) {
    cunum::HimenoProblem<float> gpu(grid, {}, backend);
    cunum::HimenoProblem<float> cpu(grid, {}, cunum::Backend::cpu);
    gpu.iterate(sweeps);
    cpu.iterate(sweeps);
    agrees = gpu.pressure() == cpu.pressure();
  }
  const double bytes = 14.0 * sizeof(float) * static_cast<double>(grid.interior_points()) * sweeps;
  return row_of("himeno", "size S, 10 Jacobi sweeps, float", backend, ms, bytes, agrees);
}

// 2^24 uniform floats from Philox4x32-10; the GPU's must equal the CPU backend's bit
// for bit (the same stream on both).
DemoRow demo_random(cunum::Backend backend) {
  const std::int64_t n = std::int64_t{1} << 24;
  cunum::RandomGenerator generator(cunum::RandomGeneratorKind::philox4x32_10, 20261126, backend);
  std::vector<float> uniforms;
  double ms = 0.0;
  if (backend == cunum::Backend::cuda) {
    cunum::Stream stream;
    cunum::DeviceBuffer<float> device_uniforms(static_cast<std::size_t>(n), stream);
    ms = median_ms(20, [&] {
      generator.uniform(n, device_uniforms.data(), stream);
      stream.synchronize();
    });
    uniforms = device_uniforms.to_host();
  } else {
    ms = median_ms(5, [&] { uniforms = generator.uniform<float>(n); });
  }
  bool agrees = true;  // on the CPU backend, nothing independent to check
  if (backend == cunum::Backend::cuda) {
    // The last call's numbers: the stream offset after the warm-up and 19 timed calls.
    cunum::RandomGenerator cpu(cunum::RandomGeneratorKind::philox4x32_10, 20261126, cunum::Backend::cpu);
    cpu.set_offset(static_cast<std::uint64_t>(20 * n));
    agrees = cpu.uniform<float>(n) == uniforms;
  }
  return row_of("random", "2^24 uniform floats, Philox4x32-10", backend, ms, static_cast<double>(n) * sizeof(float),
                agrees);
}

// The access model's expected sectors of one warp request (32 lanes gathering at random
// from a table of 2^12 sectors) against 10^5 simulated requests, on the host: within 4
// standard errors of the simulation's mean.
DemoRow demo_access_model() {
  constexpr int kLanes = 32;
  constexpr double kSectors = 4096;
  constexpr int kRequests = 100000;
  cunum::SegmentCountMoments model;
  const double ms = median_ms(5, [&] { model = cunum::segment_count_moments(kLanes, kSectors); });
  std::mt19937_64 engine(17);
  std::uniform_int_distribution<int> sector(0, static_cast<int>(kSectors) - 1);
  double sum = 0.0;
  std::vector<int> touched(kLanes);
  for (int request = 0; request < kRequests; ++request) {
    for (int& s : touched) s = sector(engine);
    std::sort(touched.begin(), touched.end());
    sum += static_cast<double>(std::unique(touched.begin(), touched.end()) - touched.begin());
  }
  const double simulated = sum / kRequests;
  const double standard_error = std::sqrt(model.variance / kRequests);
  const bool agrees = std::fabs(simulated - model.mean) <= 4 * standard_error;
  char check[128];
  std::snprintf(check, sizeof check, "%s: %.4f sectors a request, simulated %.4f", agrees ? "yes" : "NO", model.mean,
                simulated);
  return {"access_model", "sectors of a 32-lane random gather from 2^12 sectors (host code)", ms, {}, check, !agrees};
}

}  // namespace

}  // namespace cunum::demo

int main(int argc, char** argv) {
  using namespace cunum::demo;
  cunum::Backend requested = cunum::Backend::automatic;
  cunum::programs::CommandLine command_line(
      "cunum-demo",
      "Runs each of cunum's nine modules once, on the GPU or on the OpenMP CPU backend, and prints a table: the "
      "median time, the bandwidth, and what each answer was checked against (on the GPU, the CPU backend).");
  cunum::programs::add_choice(command_line.app(), "--backend", requested,
                              cunum::programs::named_values(cunum::BackendValues::all),
                              "cuda, cpu (OpenMP), or automatic: CUDA when a GPU is visible, else the CPU")
      ->type_name("BACKEND");
  const int status = command_line.parse(argc, argv);
  if (status >= 0) return status;
  try {
    const cunum::Backend backend = cunum::resolve_backend(requested);
    if (backend == cunum::Backend::cuda) {
      const auto& device = cunum::device_properties();
      std::printf("cunum demo on %s (%d SMs), CUDA backend\n\n", device.name.c_str(), device.multiprocessor_count);
    } else {
      std::printf("cunum demo: %s, running the OpenMP CPU backend\n"
                  "(the CPU backend is the only one run, so no answer is checked against it)\n\n",
                  cunum::device_count() == 0 ? "no CUDA device found" : "--backend cpu");
    }
    const std::vector<DemoRow> rows = {demo_reduce(backend),      demo_brownian_bridge(backend),
                                       demo_black_scholes(backend), demo_monte_carlo(backend),
                                       demo_poisson_fft(backend),   demo_random(backend),
                                       demo_himeno(backend),        demo_access_model(),
                                       demo_divergence(backend)};
    std::printf("| module | problem | median ms | GB/s | checked |\n|---|---|---|---|---|\n");
    bool failed = false;
    for (const DemoRow& row : rows) {
      char ms[32] = "-";
      char gbps[32] = "-";
      if (row.milliseconds) std::snprintf(ms, sizeof ms, "%.4g", *row.milliseconds);
      if (row.gigabytes_per_second) std::snprintf(gbps, sizeof gbps, "%.1f", *row.gigabytes_per_second);
      std::printf("| %s | %s | %s | %s | %s |\n", row.module.c_str(), row.problem.c_str(), ms, gbps,
                  row.check.c_str());
      failed = failed || row.failed;
    }
    return failed ? 1 : 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "cunum-demo: %s\n", error.what());
    return 1;
  }
}
