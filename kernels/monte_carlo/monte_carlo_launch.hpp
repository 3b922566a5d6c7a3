#pragma once
// Internal: the thin launchers of the Monte Carlo kernels (kernels/monte_carlo/monte_carlo.cu),
// which the CUDA backend (src/monte_carlo/monte_carlo_cuda.cpp) calls. Each launches
// one kernel, asynchronously on `stream`, into device memory it is given; `arch`
// (compute capability x 100, DeviceBinding::arch) picks the launch shape from the
// chains of src/monte_carlo/monte_carlo_policy.hpp. Plain C++.

#include <cstdint>

#include "cunum/core/stream.hpp"
#include "cunum/device/detail/monte_carlo_args.hpp"

namespace cunum::detail {

// Where a one-device call's path launch folds its chunk sums (launch_monte_carlo_fused):
// `sums` holds the chunk sums and then their folding levels (the launch chain's
// layout: options x chunks x sum_count values, then monte_carlo_fold_values);
// `arrivals` holds monte_carlo_fold_arrivals counters, all 0 before the launch and
// left 0 by it (untouched, and so of any value, when each option is one chunk).
struct MonteCarloFoldSpace {
  double* sums = nullptr;
  unsigned int* arrivals = nullptr;
};

// The whole call of the library's payoff in one launch (one warp a chunk): every
// chunk's sums, the last warp of each unit folding it, the last of each option
// writing its estimates to args.results, bit for bit as launch_monte_carlo_paths,
// the folds and launch_monte_carlo_finish would. Launched as a programmatic
// dependent (kernels/common/launch.cuh). Calls on one `space` must be ordered.
template <class T>
void launch_monte_carlo_fused(const MonteCarloArgs<T>& args, int arch, const MonteCarloFoldSpace& space,
                              StreamHandle stream);

// The path kernel of the library's payoff (one warp a chunk) alone: chunks
// [first, first + count) of the flattened (option, chunk) index, each chunk's sums in
// its place in `partials`, which holds that slice only (count x sum_count values).
template <class T>
void launch_monte_carlo_paths(const MonteCarloArgs<T>& args, int arch, std::int64_t first, std::int64_t count,
                              double* partials, StreamHandle stream);

// Quasi-random (sobol_bridge): a batch of `batch_paths` bridge paths `w` (records
// path-fastest: W of record r, path p at w[r * batch_paths + p]) that are the paths of
// chunks [first_chunk, first_chunk + batch_chunks) of every option; each chunk's sums
// go to their place in the whole chunk-major `partials`.
template <class T>
void launch_monte_carlo_quasi(const MonteCarloArgs<T>& args, int arch, const T* w, std::int64_t batch_paths,
                              std::int64_t first_chunk, std::int64_t batch_chunks, double* partials,
                              StreamHandle stream);

// One folding step over some units of a level: each unit is fan_in
// (MonteCarloCombinePolicy) consecutive sums of one option (of `count` an option),
// units [first_unit, first_unit + units) of the option-major list, read from
// `chunk_sums`, which starts at the first unit's first chunk; `out` gets units x sums
// values. A whole level is first_unit 0, so a rank that folds its own units gets the
// bits of one GPU's fold.
void launch_monte_carlo_fold(int arch, std::int64_t count, std::int64_t first_unit, std::int64_t units, int sums,
                             const double* chunk_sums, double* out, StreamHandle stream);

// load()'s references (set_zero_path_references) of `options` options of payoff
// `payoff` whose constants (shape.assets an option) are `setups`; `factor`: the
// multi-asset correlation's, or null. One thread an option; nothing for custom payoffs.
template <class T>
void launch_monte_carlo_references(MonteCarloPayoff payoff, int arch, const GroupShape& shape, OptionSetup<T>* setups,
                                   std::int64_t options, const T* factor, StreamHandle stream);

// The finishing kernel (one warp an option): each option's `count` sums (at most
// fan_in) added in a fixed order, and the estimates written to args.results.
template <class T>
void launch_monte_carlo_finish(const MonteCarloArgs<T>& args, int arch, const double* sums, std::int64_t count,
                               StreamHandle stream);

}  // namespace cunum::detail
