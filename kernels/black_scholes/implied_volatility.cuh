#pragma once
// Implied-volatility kernels, templated on their policy: how options are dealt to the
// threads. The library's .cu instantiates the policy it ships; the bench times the
// other on the same code (bench/black_scholes).
//
// Options converge in 2 to 8 evaluations of the price, so with one option per thread
// a warp runs as long as its slowest lane. The warp queue (cunum/device/divergence.cuh)
// runs the solver one evaluation at a time and gives a lane whose option has converged
// the next option of its warp's range. On the H100 that lost (0.88x): the lanes that
// take a new option reduce it to its normalised problem (exp, log, sqrt, sinh) while
// the others wait, which costs about what the iteration counts' spread saves, and most
// of the divergence is inside the price's erfc, which no assignment removes.

#include <cuda_runtime.h>

#include <cstdint>

#include "cunum/device/divergence.cuh"
#include "kernels/common/launch.cuh"
#include "src/black_scholes/black_scholes_backends.hpp"
#include "src/black_scholes/black_scholes_element.hpp"
#include "src/core/check.hpp"

namespace cunum::detail {

// Enough blocks of `block_threads` threads taking `items_per_block` options a pass to
// fill the device, never more than the options need.
inline dim3 black_scholes_grid(std::int64_t n, std::int64_t items_per_block, int blocks_per_multiprocessor,
                               int multiprocessor_count, const char* name) {
  const std::int64_t needed = (n + items_per_block - 1) / items_per_block;
  const std::int64_t resident = std::int64_t{multiprocessor_count} * blocks_per_multiprocessor;
  return grid_1d(needed < resident ? needed : resident, name);
}

// static_per_thread: one option per thread, grid-stride. warp_queue: each warp owns a
// contiguous range of options and deals them to its lanes as they finish.
template <device::WorkAssignment Assignment>
struct ImpliedVolPolicy {
  static_assert(Assignment == device::WorkAssignment::static_per_thread ||
                    Assignment == device::WorkAssignment::warp_queue,
                "implied volatility runs one option per thread or a warp queue");
  static constexpr int block_threads = 256;
  static constexpr int blocks_per_multiprocessor = 8;
  static constexpr device::WorkAssignment assignment = Assignment;
};

// The solver as a loop task of the warp queue; `rejected` counts this thread's
// rejected prices.
template <class T>
struct ImpliedVolTask {
  ImpliedVolArgs<T> args;
  unsigned rejected = 0;

  struct State {
    bs::ImpliedTotalVolSolver solver;
    double sqrt_t = 1.0;
    double answer = 0.0;
    bool solved = true;
  };
  __device__ State start(std::int64_t i) {
    const bs::ImpliedVolProblem problem = implied_volatility_problem(args, i);
    rejected += problem.rejected ? 1u : 0u;
    State state;
    state.sqrt_t = problem.sqrt_t;
    state.answer = problem.answer;
    state.solved = problem.solved;
    if (!problem.solved) state.solver = bs::ImpliedTotalVolSolver(problem.price, problem.beta);
    return state;
  }
  __device__ bool proceed(const State& state) const { return !state.solved && state.solver.proceed(); }
  __device__ void step(State& state) const { state.solver.step(); }
  __device__ void finish(std::int64_t i, const State& state) const {
    const double sigma = state.solved ? state.answer : state.solver.result() / state.sqrt_t;
    args.volatility[i] = static_cast<T>(sigma);
  }
};

// Counts rejected prices with one atomic per warp (integer: deterministic).
template <class Policy, class T>
__global__ void __launch_bounds__(Policy::block_threads) implied_volatility_kernel(ImpliedVolArgs<T> args) {
  constexpr unsigned kAll = 0xFFFFFFFFu;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const std::int64_t n = args.options.n;
  unsigned rejected = 0;
  if constexpr (Policy::assignment == device::WorkAssignment::static_per_thread) {
    const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
    const std::int64_t first = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    // Every lane of a warp runs the same number of passes, so the ballot is warp-wide.
    const std::int64_t warp_first = first - lane;
    for (std::int64_t base = warp_first; base < n; base += stride) {
      const std::int64_t i = base + lane;
      rejected += __popc(__ballot_sync(kAll, i < n && implied_volatility_element(args, i)));
    }
  } else {
    const std::int64_t warps = std::int64_t{gridDim.x} * (Policy::block_threads / 32);
    const std::int64_t warp = (std::int64_t{blockIdx.x} * Policy::block_threads + threadIdx.x) / 32;
    const std::int64_t per_warp = (n + warps - 1) / warps;
    const std::int64_t first = warp * per_warp;
    const std::int64_t count = n - first < per_warp ? n - first : per_warp;
    ImpliedVolTask<T> task{args};
    if (count > 0) device::warp_queue_for_each(task, first, count);
    rejected = __reduce_add_sync(kAll, task.rejected);
  }
  if (args.rejected != nullptr && lane == 0 && rejected != 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(args.rejected), static_cast<unsigned long long>(rejected));
  }
}

template <class Policy, class T>
void launch_implied_volatility(const ImpliedVolArgs<T>& args, int multiprocessor_count, StreamHandle stream) {
  if (args.rejected != nullptr) CUNUM_CHECK(cudaMemsetAsync(args.rejected, 0, sizeof(std::int64_t), stream));
  if (args.options.n == 0) return;
  const char* name = "implied_volatility_kernel";
  const LaunchConfig config{black_scholes_grid(args.options.n, Policy::block_threads, Policy::blocks_per_multiprocessor,
                                               multiprocessor_count, name),
                            dim3(Policy::block_threads), 0, stream};
  launch_kernel(implied_volatility_kernel<Policy, T>, name, config, args);
}

}  // namespace cunum::detail
