#pragma once
// Payoff functors for the custom-payoff suites: the library's own payoffs written
// again as a caller would, and one that reads per-option data of its own.

#include "cunum/device/monte_carlo_payoff.cuh"

namespace cunum::testing {

// max(S_T - K, 0) (put: max(K - S_T, 0)).
template <class T>
struct VanillaPayoff {
  struct State {
    T last;
  };
  __host__ __device__ State start(const MonteCarloPathView<T>& path) const { return {path.spot}; }
  __host__ __device__ void observe(State& state, T s, int, const MonteCarloPathView<T>&) const { state.last = s; }
  __host__ __device__ T value(const State& state, const MonteCarloPathView<T>& path) const {
    const T gain = path.is_call ? state.last - path.strike : path.strike - state.last;
    return gain > T(0) ? gain : T(0);
  }
};

// The arithmetic Asian on the m dates.
template <class T>
struct AsianPayoff {
  struct State {
    T sum;
  };
  __host__ __device__ State start(const MonteCarloPathView<T>&) const { return {T(0)}; }
  __host__ __device__ void observe(State& state, T s, int, const MonteCarloPathView<T>&) const { state.sum += s; }
  __host__ __device__ T value(const State& state, const MonteCarloPathView<T>& path) const {
    const T average = state.sum / T(path.dates), gain = path.is_call ? average - path.strike : path.strike - average;
    return gain > T(0) ? gain : T(0);
  }
};

// An up-and-out call whose barrier is per option, read from the functor's own array
// (device memory for the CUDA backend, host memory for the CPU one).
template <class T>
struct UpAndOutPayoff {
  const T* barriers;
  struct State {
    T last;
    bool alive;
  };
  __host__ __device__ State start(const MonteCarloPathView<T>& path) const { return {path.spot, true}; }
  __host__ __device__ void observe(State& state, T s, int, const MonteCarloPathView<T>& path) const {
    state.last = s;
    state.alive = state.alive && s < barriers[path.option];
  }
  __host__ __device__ T value(const State& state, const MonteCarloPathView<T>& path) const {
    const T gain = state.last - path.strike;
    return state.alive && gain > T(0) ? gain : T(0);
  }
};

}  // namespace cunum::testing
