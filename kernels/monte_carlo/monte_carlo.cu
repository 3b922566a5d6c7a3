// The thin launchers of the Monte Carlo kernels (kernels/monte_carlo/monte_carlo_launch.hpp).
// The path kernel (cunum/device/detail/monte_carlo_chunks.cuh, shared with callers'
// payoff functors) is fused: each warp owns one chunk of one option, draws, walks and
// sums in registers, and stores the chunk's sums; a launch covers any range of chunks
// (all of them, or one device's or rank's share). Combining kernels then fold an
// option's chunks in fixed groups of MonteCarloCombinePolicy::fan_in, and the finishing
// kernel (one warp per option) forms the estimates. Every order is fixed by the chunk
// shape, which the settings alone decide: results are bit-identical run to run and
// whatever the batch size. The sequence of launches, the memory and the streams are
// the CUDA backend's (src/monte_carlo/monte_carlo_cuda.cpp).

#include <cuda_runtime.h>

#include <cmath>

#include "cunum/device/detail/monte_carlo_chunks.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/monte_carlo/combine_kernel.cuh"
#include "kernels/monte_carlo/library_paths_kernel.cuh"
#include "kernels/monte_carlo/monte_carlo_launch.hpp"
#include "src/core/instantiate.hpp"
#include "src/monte_carlo/monte_carlo_path.hpp"
#include "src/monte_carlo/monte_carlo_policy.hpp"

namespace cunum::detail {

static_assert(MonteCarloPathPolicies::newest::block_threads == CustomPayoffPathPolicy::block_threads,
              "callers' payoff kernels launch as the library's newest path policy");

namespace {

template <class Policy, class T, bool kFull, class Payoff>
void launch_paths(const MonteCarloArgs<T>& a, std::int64_t first, std::int64_t count, double* partials,
                  StreamHandle stream) {
  const char* name = "monte_carlo_paths_kernel";
  const LaunchConfig config{grid_1d(monte_carlo_warp_blocks<Policy>(count), name), dim3(Policy::block_threads), 0,
                            stream};
  const bool mrg = a.mrg_tables != nullptr;
  launch_kernel(mrg ? monte_carlo_paths_kernel<Policy, T, kFull, true, Payoff>
                    : monte_carlo_paths_kernel<Policy, T, kFull, false, Payoff>,
                name, config, a, Payoff{}, first, count, partials);
}

// monte_carlo_asset_greeks_kernel, with the shared memory its per-asset sums take
// (launch_kernel raises the kernel's limit above the default).
template <class Policy, class T, MonteCarloPayoff P>
void launch_asset_greeks(const MonteCarloArgs<T>& a, std::int64_t first, std::int64_t count, double* partials,
                         StreamHandle stream) {
  const char* name = "monte_carlo_asset_greeks_kernel";
  const std::size_t shared = sizeof(double) * Policy::block_threads * kAssetSumCount * a.shape.assets;
  const auto kernel = a.mrg_tables != nullptr ? monte_carlo_asset_greeks_kernel<Policy, T, true, P>
                                              : monte_carlo_asset_greeks_kernel<Policy, T, false, P>;
  const LaunchConfig config{grid_1d(monte_carlo_warp_blocks<Policy>(count), name), dim3(Policy::block_threads),
                            shared, stream};
  launch_kernel(kernel, name, config, a, first, count, partials);
}

// The path kernel for the library's payoff P: plain, full, or full with each asset's Greeks.
template <class T, MonteCarloPayoff P>
void launch_library_paths(const MonteCarloArgs<T>& a, int arch, std::int64_t first, std::int64_t count,
                          double* partials, StreamHandle stream) {
  MonteCarloPathPolicies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    if constexpr (is_multi_asset(P)) {
      if (a.shape.asset_greeks) return launch_asset_greeks<Policy, T, P>(a, first, count, partials, stream);
    }
    a.full ? launch_paths<Policy, T, true, LibraryPayoff<P>>(a, first, count, partials, stream)
           : launch_paths<Policy, T, false, LibraryPayoff<P>>(a, first, count, partials, stream);
  });
}

template <class T, MonteCarloPayoff P>
void launch_quasi(const MonteCarloArgs<T>& a, int arch, const T* w, std::int64_t batch_paths,
                  std::int64_t first_chunk, std::int64_t batch_chunks, double* partials, StreamHandle stream) {
  MonteCarloPathPolicies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "monte_carlo_quasi_kernel";
    const LaunchConfig config{grid_1d(monte_carlo_warp_blocks<Policy>(a.options * batch_chunks), name),
                              dim3(Policy::block_threads), 0, stream};
    const T step_scale = static_cast<T>(sqrt(static_cast<double>(a.shape.dates)));
    if (a.full) {
      launch_kernel(monte_carlo_quasi_kernel<Policy, T, P, true>, name, config, a, w, batch_paths, first_chunk,
                    batch_chunks, step_scale, partials);
    } else {
      launch_kernel(monte_carlo_quasi_kernel<Policy, T, P, false>, name, config, a, w, batch_paths, first_chunk,
                    batch_chunks, step_scale, partials);
    }
  });
}

template <class T, MonteCarloPayoff P>
void launch_references(int arch, const GroupShape& shape, OptionSetup<T>* setups, std::int64_t options,
                       const T* factor, StreamHandle stream) {
  if constexpr (P != MonteCarloPayoff::custom) {  // a custom payoff's references stay 0
    MonteCarloReferencePolicies::dispatch(arch, [&](auto tag) {
      using Policy = typename decltype(tag)::type;
      const char* name = "zero_path_references_kernel";
      const LaunchConfig config{grid_1d((options + Policy::block_threads - 1) / Policy::block_threads, name),
                                dim3(Policy::block_threads), 0, stream};
      launch_kernel(zero_path_references_kernel<Policy, T, P>, name, config, shape, setups, options, factor);
    });
  }
}

}  // namespace

template <class T>
void launch_monte_carlo_references(MonteCarloPayoff payoff, int arch, const GroupShape& shape, OptionSetup<T>* setups,
                                   std::int64_t options, const T* factor, StreamHandle stream) {
  switch (payoff) {
#define CUNUM_MC_REFERENCE_CUDA_CASE(name, text)                                                  \
  case MonteCarloPayoff::name:                                                                    \
    launch_references<T, MonteCarloPayoff::name>(arch, shape, setups, options, factor, stream); \
    break;
    CUNUM_MONTE_CARLO_PAYOFFS(CUNUM_MC_REFERENCE_CUDA_CASE)
#undef CUNUM_MC_REFERENCE_CUDA_CASE
  }
}

template <class T>
void launch_monte_carlo_quasi(const MonteCarloArgs<T>& args, int arch, const T* w, std::int64_t batch_paths,
                              std::int64_t first_chunk, std::int64_t batch_chunks, double* partials,
                              StreamHandle stream) {
  switch (args.payoff) {
#define CUNUM_MC_QUASI_CUDA_CASE(name, text)                                                                        \
  case MonteCarloPayoff::name:                                                                                      \
    launch_quasi<T, MonteCarloPayoff::name>(args, arch, w, batch_paths, first_chunk, batch_chunks, partials, stream); \
    break;
    CUNUM_MONTE_CARLO_PAYOFFS(CUNUM_MC_QUASI_CUDA_CASE)
#undef CUNUM_MC_QUASI_CUDA_CASE
  }
}

template <class T>
void launch_monte_carlo_paths(const MonteCarloArgs<T>& args, int arch, std::int64_t first, std::int64_t count,
                              double* partials, StreamHandle stream) {
  if (count == 0) return;
  switch (args.payoff) {
#define CUNUM_MC_CUDA_CASE(name, text)                                                           \
  case MonteCarloPayoff::name:                                                                   \
    launch_library_paths<T, MonteCarloPayoff::name>(args, arch, first, count, partials, stream); \
    break;
    CUNUM_MONTE_CARLO_PAYOFFS(CUNUM_MC_CUDA_CASE)
#undef CUNUM_MC_CUDA_CASE
  }
}

void launch_monte_carlo_fold(std::int64_t count, std::int64_t first_unit, std::int64_t units, int sums,
                             const double* chunk_sums, double* out, StreamHandle stream) {
  using Policy = MonteCarloCombinePolicy;
  if (units == 0) return;
  const std::int64_t out_count = (count + Policy::fan_in - 1) / Policy::fan_in;
  const std::int64_t base_chunk = first_unit / out_count * count + first_unit % out_count * Policy::fan_in;
  const char* name = "combine_chunks_kernel";
  const LaunchConfig config{grid_1d(units, name), dim3(Policy::fan_in), 0, stream};
  launch_kernel(combine_chunks_kernel<Policy>, name, config, count, out_count, first_unit, base_chunk, sums,
                chunk_sums, out);
}

template <class T>
void launch_monte_carlo_finish(const MonteCarloArgs<T>& args, int arch, const double* sums, std::int64_t count,
                               StreamHandle stream) {
  MonteCarloFinishPolicies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "finish_estimates_kernel";
    const LaunchConfig config{grid_1d(monte_carlo_warp_blocks<Policy>(args.options), name),
                              dim3(Policy::block_threads), 0, stream};
    launch_kernel(finish_estimates_kernel<Policy, T>, name, config, args, count, sums);
  });
}

#define CUNUM_INSTANTIATE_MONTE_CARLO_CUDA(T)                                                                      \
  template void launch_monte_carlo_paths(const MonteCarloArgs<T>&, int, std::int64_t, std::int64_t, double*,       \
                                         StreamHandle);                                                            \
  template void launch_monte_carlo_quasi(const MonteCarloArgs<T>&, int, const T*, std::int64_t, std::int64_t,       \
                                         std::int64_t, double*, StreamHandle);                                     \
  template void launch_monte_carlo_finish(const MonteCarloArgs<T>&, int, const double*, std::int64_t,              \
                                          StreamHandle);                                                           \
  template void launch_monte_carlo_references(MonteCarloPayoff, int, const GroupShape&, OptionSetup<T>*,           \
                                              std::int64_t, const T*, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MONTE_CARLO_CUDA, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
