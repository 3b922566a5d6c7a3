// cunum-bench-host-calls: the host time of one small call of each plan class, the
// cost of its routine scope, validation and dispatch (and, on the CUDA backend, of
// enqueueing its launch), on the public API only, so that the same source builds
// against an earlier tree for a before/after table.
//
// Usage: cunum-bench-host-calls [--calls N] (--help, --version: programs/command_line.hpp)
// Each row: the median over 7 rounds of the host time of N calls in a row (no wait
// inside a round; the CUDA backend's work is waited for between rounds), per call.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cunum/black_scholes.hpp"
#include "cunum/core.hpp"
#include "cunum/poisson_fft.hpp"
#include "cunum/random.hpp"
#include "cunum/reduce.hpp"
#include "programs/command_line.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Median over rounds of the host nanoseconds per call of `calls` calls of `call`;
// `wait` runs between rounds, outside the timing.
double host_ns_per_call(int calls, const std::function<void()>& call, const std::function<void()>& wait) {
  constexpr int kRounds = 7;
  for (int i = 0; i < calls; ++i) call();  // warm-up
  wait();
  std::vector<double> per_call;
  for (int round = 0; round < kRounds; ++round) {
    const auto start = Clock::now();
    for (int i = 0; i < calls; ++i) call();
    const auto stop = Clock::now();
    wait();
    per_call.push_back(std::chrono::duration<double, std::nano>(stop - start).count() / calls);
  }
  std::nth_element(per_call.begin(), per_call.begin() + kRounds / 2, per_call.end());
  return per_call[kRounds / 2];
}

// Memory of `count` floats the backend can use: device memory for CUDA, host memory
// for the CPU.
class Scratch {
 public:
  Scratch(cunum::Backend backend, std::size_t count, cunum::StreamHandle stream)
      : host_(backend == cunum::Backend::cpu ? count : 0),
        device_(backend == cunum::Backend::cuda ? count : 0, stream) {
    if (backend == cunum::Backend::cuda) {
      device_.fill_bytes_async(0x3F);  // 0x3F3F3F3F: about 0.75 in every element
    } else {
      std::fill(host_.begin(), host_.end(), 0.75f);
    }
  }
  float* data() { return host_.empty() ? device_.data() : host_.data(); }

 private:
  std::vector<float> host_;
  cunum::DeviceBuffer<float> device_;
};

void run(cunum::Backend backend, int calls) {
  const bool cuda = backend == cunum::Backend::cuda;
  std::optional<cunum::Stream> owned;
  if (cuda) owned.emplace();
  const cunum::StreamHandle stream = owned ? owned->get() : nullptr;
  const auto wait = [&] {
    if (cuda) cunum::synchronize(stream);
  };
  const char* name = cuda ? "cuda" : "cpu";
  Scratch scratch(backend, 64, stream);
  float* x = scratch.data();

  cunum::Reducer<float> reducer({backend, stream});
  std::printf("| reduce sum, n = 16 | %s | %.0f |\n", name,
              host_ns_per_call(calls, [&] { reducer.reduce(cunum::ReduceOp::sum, x, 16, x + 32, stream); }, wait));

  const cunum::BlackScholesPricer<float> pricer(cunum::BlackScholesOutputs{cunum::BlackScholesOutput::call}, backend);
  cunum::BlackScholesMarket<float> market;
  market.volatility = 0.2f;
  cunum::BlackScholesResults<float> results;
  results.call = x + 48;
  std::printf("| black_scholes price, n = 4 | %s | %.0f |\n", name,
              host_ns_per_call(calls, [&] { pricer.price(4, x, x + 4, x + 8, market, results, stream); }, wait));

  cunum::RandomGenerator generator(cunum::RandomGeneratorKind::philox4x32_10, 7, backend);
  std::printf("| random uniform, n = 16 | %s | %.0f |\n", name,
              host_ns_per_call(calls, [&] { generator.uniform(16, x, stream); }, wait));

  cunum::PoissonGrid grid;
  grid.shape = {4, 4};
  grid.lengths = {1.0, 1.0};
  grid.boundaries = {cunum::PoissonBoundary::periodic, cunum::PoissonBoundary::periodic};
  cunum::PoissonSolver<float> solver(grid, {}, {backend, stream});
  std::printf("| poisson_fft solve, 4 x 4 | %s | %.0f |\n", name,
              host_ns_per_call(calls, [&] { solver.solve(x, x + 16, stream); }, wait));
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 20000;
  cunum::programs::CommandLine command_line(
      "cunum-bench-host-calls",
      "The host time of one small call of each plan class (reduce, black_scholes, random, poisson_fft): the median "
      "over 7 rounds of N calls in a row, per call, on the CPU backend and, where there is a GPU, the CUDA backend.");
  cunum::programs::add_integer(command_line.app(), "--calls", calls, 1, 100000000, "Calls a round");
  const int status = command_line.parse(argc, argv);
  if (status >= 0) return status;
  std::printf("| small call | backend | host ns a call (median of 7 rounds of %d) |\n|---|---|---:|\n", calls);
  try {
    run(cunum::Backend::cpu, calls);
    if (cunum::cuda_available()) run(cunum::Backend::cuda, calls);
  } catch (const cunum::Error& error) {
    std::fprintf(stderr, "cunum-bench-host-calls: %s\n", error.what());
    return 1;
  }
  return 0;
}
