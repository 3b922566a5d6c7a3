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

template <class T, bool kFull, bool kMrg, class Payoff>
void custom_partials_cuda(const MonteCarloArgs<T>& a, const Payoff& payoff, std::int64_t count, double* partials,
                          StreamHandle stream) {
  constexpr int kThreads = PathPolicy::block_threads;
  const std::int64_t blocks = (count + kThreads / kWarpThreads - 1) / (kThreads / kWarpThreads);
  if (blocks > 0x7FFFFFFF) {
    throw Error(ErrorCode::not_supported, "cunum::price_with_payoff: the batch needs more than 2^31 - 1 blocks");
  }
  monte_carlo_paths_kernel<T, kFull, kMrg, Payoff>
      <<<static_cast<unsigned>(blocks), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(a, payoff, 0, count,
                                                                                          partials);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) {
    throw Error(ErrorCode::cuda_failure,
                std::string("cunum::price_with_payoff: monte_carlo_paths_kernel: ") + cudaGetErrorString(status));
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
template <class T, class Payoff>
void price_with_payoff(const MonteCarloPricer<T>& pricer, const MonteCarloBatch<T>& batch, const Payoff& payoff,
                       MonteCarloEstimate<T>* results, StreamHandle stream = nullptr) {
  constexpr const char* kRoutine = "cunum::price_with_payoff";
  const MonteCarloSettings& settings = pricer.settings();
  const auto refuse = [&](const char* problem) {
    throw Error(ErrorCode::invalid_argument, std::string(kRoutine) + ": argument 'pricer' " + problem);
  };
  if (settings.payoff != MonteCarloPayoff::custom) refuse("must have settings.payoff = custom");
  if (settings.source == MonteCarloSource::sobol_bridge) refuse("must draw philox4x32_10 or mrg32k3a");
  if (settings.devices.size() > 1) refuse("must have one device");
  detail::MonteCarloAccess::check(pricer, batch, results, kRoutine);
  if (batch.size() == 0) return;
  const detail::MonteCarloArgs<T> args = detail::MonteCarloAccess::args(pricer, batch, results);
  const std::int64_t count = args.options * args.chunks.chunks;
  const auto size = static_cast<std::size_t>(count * detail::sum_count(args));
  const bool mrg = args.mrg_tables != nullptr;
  if (settings.backend == Backend::cpu) {
    std::vector<double> partials(size);
    if (args.full) {
      mrg ? detail::sum_chunks_cpu<T, true, true>(args, payoff, 0, count, partials.data())
          : detail::sum_chunks_cpu<T, true, false>(args, payoff, 0, count, partials.data());
    } else {
      mrg ? detail::sum_chunks_cpu<T, false, true>(args, payoff, 0, count, partials.data())
          : detail::sum_chunks_cpu<T, false, false>(args, payoff, 0, count, partials.data());
    }
    detail::monte_carlo_finish_cpu(args, partials.data());
    return;
  }
  DeviceBuffer<double> partials(size, stream);
  if (args.full) {
    mrg ? detail::custom_partials_cuda<T, true, true>(args, payoff, count, partials.data(), stream)
        : detail::custom_partials_cuda<T, true, false>(args, payoff, count, partials.data(), stream);
  } else {
    mrg ? detail::custom_partials_cuda<T, false, true>(args, payoff, count, partials.data(), stream)
        : detail::custom_partials_cuda<T, false, false>(args, payoff, count, partials.data(), stream);
  }
  detail::monte_carlo_finish_cuda(args, partials.data(), args.chunks.chunks, stream);
}

}  // namespace cunum
