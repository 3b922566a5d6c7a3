#pragma once
/// @file
/// Callers' own payoffs for cunum's Monte Carlo pricer, as device functors. Compile
/// with nvcc (this header holds a kernel template that your translation unit
/// instantiates); link cunum::cunum. The paths, random streams, chunked deterministic
/// sums, control variate and estimates are the library's (docs/monte_carlo.md): only
/// the payoff is yours.
///
/// A payoff is a copyable type (captured by value into the kernel) with:
///
///     struct MyPayoff {
///       struct State { ... };   // what one path remembers; trivially copyable
///       __host__ __device__ State start(const cunum::MonteCarloPathView<float>& path) const;
///       // S at date `date` (0-based: t_{date+1} = (date + 1) T / m), in order:
///       __host__ __device__ void observe(State& state, float s, int date,
///                                        const cunum::MonteCarloPathView<float>& path) const;
///       // The undiscounted payoff of the path:
///       __host__ __device__ float value(const State& state,
///                                       const cunum::MonteCarloPathView<float>& path) const;
///     };
///
/// `__host__ __device__` lets the same functor serve the CPU backend. Per-option data
/// beyond S0 and K (a barrier per option, say) lives in the functor, indexed by
/// path.option (device memory for the CUDA backend, host memory for the CPU one).
///
/// Usage: a MonteCarloPricer<T> with settings.payoff = MonteCarloPayoff::custom (and
/// time_steps, paths, seed, source philox4x32_10 or mrg32k3a, antithetic variates,
/// a control variate on the terminal asset), a batch from its load(), then
/// price_with_payoff(pricer, batch, payoff, results, stream). examples/monte_carlo has one.

#include <cuda_runtime.h>

#include <string>
#include <type_traits>
#include <vector>

#include "cunum/core/device_buffer.hpp"
#include "cunum/core/error.hpp"
#include "cunum/device/detail/monte_carlo_chunks.cuh"
#include "cunum/monte_carlo.hpp"

namespace cunum {

namespace detail {

// A caller's functor's chunk sums on the CPU backend (host memory, synchronous).
template <class T, class Payoff>
void custom_partials_cpu(const MonteCarloArgs<T>& a, const void* erased, std::int64_t count, double* partials) {
  const Payoff& payoff = *static_cast<const Payoff*>(erased);
  const bool mrg = a.mrg_tables != nullptr;
  if (a.full) {
    mrg ? sum_chunks_cpu<T, true, true>(a, payoff, 0, count, partials)
        : sum_chunks_cpu<T, true, false>(a, payoff, 0, count, partials);
  } else {
    mrg ? sum_chunks_cpu<T, false, true>(a, payoff, 0, count, partials)
        : sum_chunks_cpu<T, false, false>(a, payoff, 0, count, partials);
  }
}

template <class T, bool kFull, bool kMrg, class Payoff>
void launch_custom_paths(const MonteCarloArgs<T>& a, const Payoff& payoff, std::int64_t count, double* partials,
                         StreamHandle stream) {
  constexpr int kThreads = CustomPayoffPathPolicy::block_threads;
  const std::int64_t blocks = (count + kThreads / kWarpThreads - 1) / (kThreads / kWarpThreads);
  if (blocks > 0x7FFFFFFF) {
    throw Error(ErrorCode::not_supported, "cunum::price_with_payoff: the batch needs more than 2^31 - 1 blocks");
  }
  monte_carlo_paths_kernel<CustomPayoffPathPolicy, T, kFull, kMrg, Payoff>
      <<<static_cast<unsigned>(blocks), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(a, payoff, 0, count,
                                                                                          partials);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) {
    throw Error(ErrorCode::cuda_failure,
                std::string("cunum::price_with_payoff: monte_carlo_paths_kernel: ") + cudaGetErrorString(status));
  }
}

// A caller's functor's chunk sums on the CUDA backend (device memory, on `stream`).
template <class T, class Payoff>
void custom_partials_cuda(const MonteCarloArgs<T>& a, const void* erased, std::int64_t count, double* partials,
                          StreamHandle stream) {
  const Payoff& payoff = *static_cast<const Payoff*>(erased);
  const bool mrg = a.mrg_tables != nullptr;
  if (a.full) {
    mrg ? launch_custom_paths<T, true, true>(a, payoff, count, partials, stream)
        : launch_custom_paths<T, true, false>(a, payoff, count, partials, stream);
  } else {
    mrg ? launch_custom_paths<T, false, true>(a, payoff, count, partials, stream)
        : launch_custom_paths<T, false, false>(a, payoff, count, partials, stream);
  }
}

}  // namespace detail

/// Prices `batch` with the caller's `payoff` (see the file comment): as
/// MonteCarloPricer::price(), asynchronous on `stream` for the CUDA backend,
/// synchronous on the CPU. Greeks are not formed (NaN); the control variate, when
/// asked, is the terminal asset.
/// @throws Error ErrorCode::invalid_argument naming 'pricer' (its payoff is not
///         MonteCarloPayoff::custom, its source is sobol_bridge, or it has several
///         devices), 'batch' or 'results' as price() does; ErrorCode::cuda_failure
/// CUDA graphs: captures, as MonteCarloPricer::price() on one device.
template <class T, class Payoff>
void price_with_payoff(const MonteCarloPricer<T>& pricer, const MonteCarloBatch<T>& batch, const Payoff& payoff,
                       MonteCarloEstimate<T>* results, StreamHandle stream = nullptr) {
  const detail::CustomPayoffSums<T> sums{&payoff, &detail::custom_partials_cpu<T, Payoff>,
                                         &detail::custom_partials_cuda<T, Payoff>};
  detail::price_custom_payoff(pricer, batch, sums, results, stream);
}

}  // namespace cunum
