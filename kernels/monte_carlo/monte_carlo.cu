// The thin launchers of the Monte Carlo kernels (kernels/monte_carlo/monte_carlo_launch.hpp).
// The path kernel (on the chunk code of cunum/device/detail/monte_carlo_chunks.cuh,
// shared with callers' payoff functors) is fused: each warp owns one chunk of one
// option, draws, walks and sums in registers, and stores the chunk's sums; a launch
// covers any range of chunks (all of them, or one device's or rank's share). The
// chunk sums are then folded in fixed units of MonteCarloCombinePolicy::fan_in and
// each option's estimate formed by one warp (kernels/monte_carlo/combine_kernel.cuh):
// in the same launch for a one-device call of the library's payoffs, by the folding
// and finishing kernels otherwise. Every order is fixed by the chunk shape, which the
// settings alone decide: results are bit-identical run to run, whatever the batch
// size, and either way. The sequence of launches, the memory and the streams are the
// CUDA backend's (src/monte_carlo/monte_carlo_cuda.cpp).

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

// The library's path kernel over chunks [first, first + count), folding into `fold`
// (the kernel with the fold) when it has arrival counters; a programmatic dependent
// either way.
template <class Policy, class T, bool kFull, class Payoff>
void launch_paths(const MonteCarloArgs<T>& a, std::int64_t first, std::int64_t count, double* partials,
                  const MonteCarloFoldSpace& fold, StreamHandle stream) {
  const char* name = "monte_carlo_paths_kernel";
  LaunchConfig config{grid_1d(monte_carlo_warp_blocks<Policy>(count), name), dim3(Policy::block_threads), 0,
                      stream};
  config.programmatic = true;
  const bool mrg = a.mrg_tables != nullptr, folds = fold.arrivals != nullptr;
  const auto kernel = mrg ? (folds ? monte_carlo_library_paths_kernel<Policy, T, kFull, true, true, Payoff>
                                   : monte_carlo_library_paths_kernel<Policy, T, kFull, true, false, Payoff>)
                          : (folds ? monte_carlo_library_paths_kernel<Policy, T, kFull, false, true, Payoff>
                                   : monte_carlo_library_paths_kernel<Policy, T, kFull, false, false, Payoff>);
  launch_kernel(kernel, name, config, a, first, count, partials, fold);
}

// monte_carlo_asset_greeks_kernel, with the shared memory its per-asset sums take
// (launch_kernel raises the kernel's limit above the default).
template <class Policy, class T, MonteCarloPayoff P>
void launch_asset_greeks(const MonteCarloArgs<T>& a, std::int64_t first, std::int64_t count, double* partials,
                         const MonteCarloFoldSpace& fold, StreamHandle stream) {
  const char* name = "monte_carlo_asset_greeks_kernel";
  const std::size_t shared = sizeof(double) * Policy::block_threads * kAssetSumCount * a.shape.assets;
  const bool mrg = a.mrg_tables != nullptr, folds = fold.arrivals != nullptr;
  const auto kernel = mrg ? (folds ? monte_carlo_asset_greeks_kernel<Policy, T, true, true, P>
                                   : monte_carlo_asset_greeks_kernel<Policy, T, true, false, P>)
                          : (folds ? monte_carlo_asset_greeks_kernel<Policy, T, false, true, P>
                                   : monte_carlo_asset_greeks_kernel<Policy, T, false, false, P>);
  LaunchConfig config{grid_1d(monte_carlo_warp_blocks<Policy>(count), name), dim3(Policy::block_threads), shared,
                      stream};
  config.programmatic = true;
  launch_kernel(kernel, name, config, a, first, count, partials, fold);
}

// The path kernel for the library's payoff P: plain, full, or full with each asset's Greeks.
template <class T, MonteCarloPayoff P>
void launch_library_paths(const MonteCarloArgs<T>& a, int arch, std::int64_t first, std::int64_t count,
                          double* partials, const MonteCarloFoldSpace& fold, StreamHandle stream) {
  MonteCarloPathPolicies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    if constexpr (is_multi_asset(P)) {
      if (a.shape.asset_greeks) return launch_asset_greeks<Policy, T, P>(a, first, count, partials, fold, stream);
    }
    a.full ? launch_paths<Policy, T, true, LibraryPayoff<P>>(a, first, count, partials, fold, stream)
           : launch_paths<Policy, T, false, LibraryPayoff<P>>(a, first, count, partials, fold, stream);
  });
}

// Every payoff's path launch (custom payoffs' are the caller's: nothing here).
template <class T>
void launch_payoff_paths(const MonteCarloArgs<T>& args, int arch, std::int64_t first, std::int64_t count,
                         double* partials, const MonteCarloFoldSpace& fold, StreamHandle stream) {
  switch (args.payoff) {
#define CUNUM_MC_CUDA_CASE(name, text)                                                                 \
  case MonteCarloPayoff::name:                                                                         \
    launch_library_paths<T, MonteCarloPayoff::name>(args, arch, first, count, partials, fold, stream); \
    break;
    CUNUM_MONTE_CARLO_PAYOFFS(CUNUM_MC_CUDA_CASE)
#undef CUNUM_MC_CUDA_CASE
  }
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
void launch_monte_carlo_fused(const MonteCarloArgs<T>& args, int arch, const MonteCarloFoldSpace& space,
                              StreamHandle stream) {
  launch_payoff_paths(args, arch, 0, args.options * args.chunks.chunks, space.sums, space, stream);
}

template <class T>
void launch_monte_carlo_paths(const MonteCarloArgs<T>& args, int arch, std::int64_t first, std::int64_t count,
                              double* partials, StreamHandle stream) {
  if (count == 0) return;
  launch_payoff_paths(args, arch, first, count, partials, MonteCarloFoldSpace{}, stream);
}

void launch_monte_carlo_fold(int arch, std::int64_t count, std::int64_t first_unit, std::int64_t units, int sums,
                             const double* chunk_sums, double* out, StreamHandle stream) {
  if (units == 0) return;
  constexpr std::int64_t fan_in = MonteCarloCombinePolicy::fan_in;
  const std::int64_t out_count = (count + fan_in - 1) / fan_in;
  const std::int64_t base_chunk = first_unit / out_count * count + first_unit % out_count * fan_in;
  MonteCarloFoldPolicies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "combine_chunks_kernel";
    const LaunchConfig config{grid_1d(monte_carlo_warp_blocks<Policy>(units), name), dim3(Policy::block_threads), 0,
                              stream};
    launch_kernel(combine_chunks_kernel<Policy>, name, config, count, out_count, first_unit, base_chunk, units, sums,
                  chunk_sums, out);
  });
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
  template void launch_monte_carlo_fused(const MonteCarloArgs<T>&, int, const MonteCarloFoldSpace&, StreamHandle); \
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
