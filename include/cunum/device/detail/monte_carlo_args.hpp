#pragma once
// Part of cunum's device API for callers' own Monte Carlo payoffs
// (cunum/device/monte_carlo_payoff.cuh); not a stable interface of its own. The
// arguments of a pricing call, the chunk walker both backends run (a chunk's groups,
// their normals, a payoff on each), and the one library entry point a caller's payoff
// goes through (price_custom_payoff, defined in libcunum). The library's own payoffs
// plug into the same walker from src/monte_carlo/monte_carlo_path.hpp.

#include <cstdint>
#include <type_traits>

#include "cunum/core/stream.hpp"
#include "cunum/device/detail/monte_carlo_path.hpp"
#include "cunum/monte_carlo.hpp"

namespace cunum {
namespace detail {

// How the paths of one option are cut into chunks: a chunk is `groups_per_chunk`
// consecutive groups (one warp's share on the GPU), summed alone; the chunks of an
// option are then combined in a fixed order. Depends on the settings only.
struct ChunkShape {
  std::int64_t groups;  // per option: paths / G, rounded up
  std::int64_t groups_per_chunk;
  std::int64_t chunks;  // per option
  std::int64_t samples; // independent samples per option
};

// The arguments of one price() call, shared by both backends.
template <class T>
struct MonteCarloArgs {
  MonteCarloPayoff payoff;
  bool full;    // control variate or Greeks: every sum, else kPlainSumCount
  bool greeks;  // Greeks asked for and defined for the payoff
  GroupShape shape;
  ChunkShape chunks;
  std::int64_t options;
  const OptionSetup<T>* setups;   // one per option, or shape.assets per multi-asset option
  const T* factor;                // multi-asset: the correlation's Cholesky factor; else null
  const device::MrgMatrix* mrg_tables;  // MRG32k3a source: the substream skip tables; null for Philox
  MonteCarloEstimate<T>* results;
  MonteCarloAssetGreeks<T>* asset_greeks;  // multi-asset: each asset's Greeks (options x assets), or null
};

// The sums a chunk keeps: the plain two, the full set (control variate or Greeks),
// and each asset's four more when a multi-asset option's asset Greeks are asked for.
template <class T>
CUNUM_HOST_DEVICE inline int sum_count(const MonteCarloArgs<T>& a) {
  if (!a.full) return kPlainSumCount;
  return a.shape.asset_greeks ? kSumCount + kAssetSumCount * a.shape.assets : kSumCount;
}

// The constants of option i (its first asset's, for a multi-asset option).
template <class T>
CUNUM_HOST_DEVICE inline const OptionSetup<T>* option_setup_of(const MonteCarloArgs<T>& a, std::int64_t option) {
  return a.setups + option * a.shape.assets;
}

// Visits the groups [first, end) of option `option` that are 2^stride_log2 apart with
// each group's normals, visit(group, draws), from the pricer's source: Philox (kMrg
// false: random access by counter), or MRG32k3a (the first group's substream reached
// by skip-ahead from the option's stream state, each next one by skipping
// 2^stride_log2 substreams with one table).
template <class T, bool kMrg, class Visit>
CUNUM_HOST_DEVICE inline void walk_groups(const MonteCarloArgs<T>& a, std::int64_t option, std::int64_t first,
                                          std::int64_t end, int stride_log2, Visit&& visit) {
  const OptionSetup<T>* o = option_setup_of(a, option);
  if constexpr (!kMrg) {
    for (std::int64_t group = first; group < end; group += std::int64_t{1} << stride_log2) {
      PhiloxDraws<T> draws{a.shape.key0, a.shape.key1, o->stream, static_cast<std::uint64_t>(group)};
      visit(static_cast<std::uint64_t>(group), draws);
    }
  } else {
    if (first >= end) return;
    device::Mrg32k3aState base = o->mrg_stream;
    device::mrg32k3a_skip_substreams(base, static_cast<std::uint64_t>(first), a.mrg_tables);
    for (std::int64_t group = first; group < end; group += std::int64_t{1} << stride_log2) {
      MrgDraws<T> draws{base};
      visit(static_cast<std::uint64_t>(group), draws);
      device::mrg_apply(a.mrg_tables[stride_log2], base.x1, device::kMrgModulus1);
      device::mrg_apply(a.mrg_tables[device::kMrgSubstreamTables + stride_log2], base.x2, device::kMrgModulus2);
    }
  }
}

// One group with a caller's functor (the library's payoffs overload this for
// LibraryPayoff, in src/monte_carlo/monte_carlo_path.hpp; the call below finds that
// overload by argument-dependent lookup where the library instantiates it).
template <class T, bool kFull, class Payoff, class Draws, class Sums>
CUNUM_HOST_DEVICE inline void sum_payoff_group(const MonteCarloArgs<T>& a, const OptionSetup<T>& setup,
                                               std::int64_t option, const Payoff& payoff, std::uint64_t group,
                                               Draws& draws, Sums& sums) {
  simulate_custom_group<T, kFull>(setup, a.shape, option, payoff, group, draws, sums);
}

// walk_groups' visitor (a function object, not a lambda, so that the host and device
// passes of any translation unit accept it).
template <class T, bool kFull, class Payoff, class Sums>
struct GroupSummer {
  const MonteCarloArgs<T>& a;
  const OptionSetup<T>& setup;
  std::int64_t option;
  const Payoff& payoff;
  Sums& sums;
  template <class Draws>
  CUNUM_HOST_DEVICE void operator()(std::uint64_t group, Draws& draws) const {
    sum_payoff_group<T, kFull>(a, setup, option, payoff, group, draws, sums);
  }
};

// The sums a chunk of `Payoff` keeps at most: the plain two or the full set (the
// library's multi-asset payoffs specialise it for every asset's Greeks).
template <class Payoff, bool kFull>
constexpr int kSumCapacity = kFull ? kSumCount : kPlainSumCount;

// A thread's sums: in T for a plain chunk; in double with a control variate or
// Greeks, since the control's variance is a difference of nearly equal sums.
template <class T, bool kFull, class Payoff>
using ThreadSums = ChunkSums<std::conditional_t<kFull, double, T>, kSumCapacity<Payoff, kFull>>;

// Adds to `sums` the groups of flat chunk `chunk_id` that lane `lane` of 2^lanes_log2
// takes (its groups lane, lane + 2^lanes_log2, ...): the one chunk code of the GPU
// kernel (a warp a chunk) and the CPU loop (one lane).
template <class T, bool kFull, bool kMrg, class Payoff, class Sums>
CUNUM_HOST_DEVICE inline void sum_chunk(const MonteCarloArgs<T>& a, const Payoff& payoff, std::int64_t chunk_id,
                                        int lane, int lanes_log2, Sums& sums) {
  // A 32-bit division where the numbers allow (always but for grids of 2^30 warps):
  // the 64-bit one is a called routine that every warp would pay.
  const std::int64_t option = chunk_id <= 0xFFFFFFFF && a.chunks.chunks <= 0xFFFFFFFF
                                  ? static_cast<std::uint32_t>(chunk_id) / static_cast<std::uint32_t>(a.chunks.chunks)
                                  : chunk_id / a.chunks.chunks;
  const std::int64_t chunk = chunk_id - option * a.chunks.chunks;
  const OptionSetup<T> setup = *option_setup_of(a, option);  // in registers on the GPU
  const std::int64_t begin = chunk * a.chunks.groups_per_chunk;
  const std::int64_t end =
      begin + a.chunks.groups_per_chunk < a.chunks.groups ? begin + a.chunks.groups_per_chunk : a.chunks.groups;
  walk_groups<T, kMrg>(a, option, begin + lane, end, lanes_log2,
                       GroupSummer<T, kFull, Payoff, Sums>{a, setup, option, payoff, sums});
}

// Runs a chunk's work as it is (the library's own CPU loop passes a runner that
// picks code compiled for the host's FMA instructions).
struct RunDirectly {
  template <class Work>
  void operator()(const Work& work) const {
    work();
  }
};

// The CPU backend's chunks [first, first + count), each summed in double by one
// thread into its place in `partials` (the slice from chunk `first`). OpenMP where the
// translation unit is built with it.
template <class T, bool kFull, bool kMrg, class Payoff, class Run = RunDirectly>
void sum_chunks_cpu(const MonteCarloArgs<T>& a, const Payoff& payoff, std::int64_t first, std::int64_t count,
                    double* partials, const Run& run = Run{}) {
  const int sums_kept = sum_count(a);
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (std::int64_t item = 0; item < count; ++item) {
    ChunkSums<double, kSumCapacity<Payoff, kFull>> sums{};
    run([&] { sum_chunk<T, kFull, kMrg>(a, payoff, first + item, 0, 0, sums); });
    for (int s = 0; s < sums_kept; ++s) partials[item * sums_kept + s] = sums.s[s];
  }
}

// A caller's payoff, type-erased for the library: its chunk sums on either backend,
// compiled in the caller's translation unit (cunum/device/monte_carlo_payoff.cuh).
// Both write the chunk-major sums of chunks [0, count) (count x sum_count values):
// `cpu` into host memory, synchronously; `cuda` into device memory, on `stream`.
template <class T>
struct CustomPayoffSums {
  const void* payoff;
  void (*cpu)(const MonteCarloArgs<T>& args, const void* payoff, std::int64_t count, double* partials);
  void (*cuda)(const MonteCarloArgs<T>& args, const void* payoff, std::int64_t count, double* partials,
               StreamHandle stream);
};

// Defined in libcunum: cunum::price_with_payoff's checks (naming 'pricer', 'batch',
// 'results'), then the chunk sums from `sums` and the estimates, as
// MonteCarloPricer::price() forms them.
template <class T>
void price_custom_payoff(const MonteCarloPricer<T>& pricer, const MonteCarloBatch<T>& batch,
                         const CustomPayoffSums<T>& sums, MonteCarloEstimate<T>* results, StreamHandle stream);

}  // namespace detail
}  // namespace cunum
