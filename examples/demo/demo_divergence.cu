// The demo's divergence row: cunum/device/divergence.cuh is device code for callers'
// kernels, so this file is a CUDA source, as a caller's would be.

#include <cstdint>
#include <vector>

#include "cunum/core.hpp"
#include "cunum/device/divergence.cuh"
#include "demo.hpp"

namespace cunum::demo {

namespace {

// n -> 3n + 1 (odd) or n / 2 (even) until n = 1, for n = item + 1: a loop whose trip
// count differs from one item to the next. Stores the steps.
struct CollatzSteps {
  std::uint32_t* steps;

  struct State {
    std::uint64_t n = 1;
    std::uint32_t count = 0;
  };
  __device__ State start(std::int64_t item) const { return {static_cast<std::uint64_t>(item) + 1, 0}; }
  __device__ bool proceed(const State& state) const { return state.n != 1; }
  __device__ void step(State& state) const {
    state.n = (state.n & 1) != 0 ? 3 * state.n + 1 : state.n / 2;
    ++state.count;
  }
  __device__ void finish(std::int64_t item, const State& state) const { steps[item] = state.count; }
};

std::uint32_t host_collatz_steps(std::uint64_t n) {
  std::uint32_t count = 0;
  for (; n != 1; ++count) n = (n & 1) != 0 ? 3 * n + 1 : n / 2;
  return count;
}

}  // namespace

DemoRow demo_divergence(Backend backend) {
  const std::int64_t n = std::int64_t{1} << 22;
  DemoRow row{"divergence", "Collatz steps of 1..2^22, warp queue (one item a thread beside it)", {}, {}, "", false};
  if (backend != Backend::cuda) {
    row.check = "not run: device code for callers' kernels, needs a GPU";
    return row;
  }
  const Stream stream;
  DeviceBuffer<std::uint32_t> queued(static_cast<std::size_t>(n), stream);
  DeviceBuffer<std::uint32_t> plain(static_cast<std::size_t>(n), stream);
  row.milliseconds = median_ms(20, [&] {
    device::launch_for_each(device::WorkAssignment::warp_queue, CollatzSteps{queued.data()}, n, stream);
    stream.synchronize();
  });
  device::launch_for_each(device::WorkAssignment::static_per_thread, CollatzSteps{plain.data()}, n, stream);
  const std::vector<std::uint32_t> steps = queued.to_host();
  bool agrees = steps == plain.to_host();
  for (std::int64_t item = 0; agrees && item < n; ++item) {
    agrees = steps[static_cast<std::size_t>(item)] == host_collatz_steps(static_cast<std::uint64_t>(item) + 1);
  }
  row.gigabytes_per_second = static_cast<double>(n) * sizeof(std::uint32_t) / (*row.milliseconds * 1e6);
  row.check = agrees ? "yes: equals the host's count" : "NO: differs from the host's count";
  row.failed = !agrees;
  return row;
}

}  // namespace cunum::demo
