// Divergence reduction in a kernel of your own (compiled by nvcc): the Collatz
// stopping time of every n in [1, N], a loop whose trip count differs from one n to
// the next, run with one n per thread and through the warp queue of
// cunum/device/divergence.cuh; then a two-path kernel run plain and with warp-level
// compaction. Prints each time and checks that the results agree: on an H100 the queue
// loses on steps this light and the compaction wins (docs/divergence.md).

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "cunum/core.hpp"
#include "cunum/device/divergence.cuh"

namespace {

// The loop task: n -> 3n + 1 (odd) or n / 2 (even) until n = 1; stores the steps.
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

// The branch task: items whose Collatz stopping time is odd take path 0 (a slow
// polynomial), the others path 1 (another); about half take each, in no pattern.
struct TwoPolynomials {
  static constexpr int kPaths = 2;
  const std::uint32_t* steps;
  float* out;

  __device__ int path(std::int64_t item) const { return (steps[item] & 1u) != 0 ? 0 : 1; }
  template <int Path>
  __device__ void run(std::int64_t item) const {
    float x = 1.0f / static_cast<float>(item + 1), y = 0.0f;
    for (int k = 0; k < 2000; ++k) y = Path == 0 ? y * x + 0.5f : y * x - 0.25f;
    out[item] = y;
  }
};

template <class Launch>
float time_ms(cudaStream_t stream, Launch&& launch) {
  cunum::EventTimer timer;
  launch();  // warm-up
  timer.start(stream);
  launch();
  timer.stop(stream);
  return timer.elapsed_ms();
}

}  // namespace

int main() {
  if (cunum::device_count() == 0) {
    std::printf("no CUDA device: the divergence templates are device code, nothing to run here\n");
    return 0;
  }
  using cunum::device::BranchScheme;
  using cunum::device::WorkAssignment;
  const std::int64_t n = std::int64_t{1} << 24;
  const cunum::Stream stream;
  cunum::DeviceBuffer<std::uint32_t> steps(n, stream), steps_queued(n, stream);
  cunum::DeviceBuffer<float> plain(n, stream), compacted(n, stream);

  const float static_ms = time_ms(stream, [&] {
    cunum::device::launch_for_each(WorkAssignment::static_per_thread, CollatzSteps{steps.data()}, n, stream);
  });
  const float queue_ms = time_ms(stream, [&] {
    cunum::device::launch_for_each(WorkAssignment::warp_queue, CollatzSteps{steps_queued.data()}, n, stream);
  });
  std::printf("Collatz stopping times of 1..2^24: one n per thread %.3f ms, warp queue %.3f ms, same: %s\n",
              static_ms, queue_ms, steps.to_host() == steps_queued.to_host() ? "yes" : "NO");
  // A Collatz step is a few instructions: the queue's vote and reconvergence each step
  // can cost more than the idle lanes it fills. Queues pay when a step is heavy.
  std::printf("  (a queue pays when a step outweighs its bookkeeping; docs/divergence.md)\n");

  using Policy = cunum::device::DivergencePolicy<128, 16>;  // 16 items a thread for the compaction
  const float plain_ms = time_ms(stream, [&] {
    cunum::device::launch_branches<Policy>(BranchScheme::plain, TwoPolynomials{steps.data(), plain.data()}, n, stream);
  });
  const float compacted_ms = time_ms(stream, [&] {
    cunum::device::launch_branches<Policy>(BranchScheme::warp_compaction,
                                           TwoPolynomials{steps.data(), compacted.data()}, n, stream);
  });
  std::printf("two polynomial paths: plain %.3f ms, warp compaction %.3f ms, same: %s\n", plain_ms, compacted_ms,
              plain.to_host() == compacted.to_host() ? "yes" : "NO");
  return 0;
}
