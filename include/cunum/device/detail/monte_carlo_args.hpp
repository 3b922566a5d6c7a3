#pragma once
// Part of cunum's device API for callers' own Monte Carlo payoffs
// (cunum/device/monte_carlo_payoff.cuh); not a stable interface of its own. The
// arguments of a pricing call, the chunk walkers both backends run, and the library's
// entry points (defined in libcunum): sums of any chunk range, and the estimates from them.

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

// Writes the estimate of option `option` (and each of its assets' Greeks when they
// are asked for) from its summed statistics: both backends' last step.
template <class T>
CUNUM_HOST_DEVICE inline void write_estimates(const MonteCarloArgs<T>& a, std::int64_t option, const double* totals) {
  const double discount = option_setup_of(a, option)->discount;
  a.results[option] = estimate_from_sums<T>(totals, a.full, a.shape.control, a.greeks, a.chunks.samples,
                                            a.shape.paths, discount);
  if (a.asset_greeks != nullptr) {
    asset_greeks_from_sums(totals, a.shape.assets, a.chunks.samples, discount, a.asset_greeks + option * a.shape.assets);
  }
}

// Sums group `group` of option `option` with its normals `draws`: the one-asset walk
// on a copy of its constants (`setup`, in registers on the GPU), or the multi-asset one.
template <class T, MonteCarloPayoff P, bool kFull, class Draws, class Sums>
CUNUM_HOST_DEVICE inline void sum_group(const MonteCarloArgs<T>& a, const OptionSetup<T>& setup, std::int64_t option,
                                        std::uint64_t group, Draws& draws, Sums& sums) {
  if constexpr (is_multi_asset(P)) {
    simulate_basket_group<T, P, kFull>(option_setup_of(a, option), a.shape, a.factor, draws, sums);
  } else {
    simulate_group<T, P, kFull>(setup, a.shape, group, draws, sums);
  }
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

// The library's payoff P, as the payoff argument of the chunk code (a caller's
// functor takes its place for MonteCarloPayoff::custom); kAssetGreeks: a multi-asset
// payoff whose chunks also sum each asset's Greeks.
template <MonteCarloPayoff P, bool kAssetGreeks = false>
struct LibraryPayoff {};

// One group with the library's payoff P, or with a caller's functor.
template <class T, bool kFull, MonteCarloPayoff P, bool kAssetGreeks, class Draws, class Sums>
CUNUM_HOST_DEVICE inline void sum_payoff_group(const MonteCarloArgs<T>& a, const OptionSetup<T>& setup,
                                               std::int64_t option, LibraryPayoff<P, kAssetGreeks>, std::uint64_t group,
                                               Draws& draws, Sums& sums) {
  sum_group<T, P, kFull>(a, setup, option, group, draws, sums);
}
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

// The sums a chunk of `Payoff` keeps at most: the plain two, the full set, or the
// full set and every asset's Greeks.
template <class Payoff, bool kFull>
constexpr int kSumCapacity = kFull ? kSumCount : kPlainSumCount;
template <MonteCarloPayoff P, bool kFull>
constexpr int kSumCapacity<LibraryPayoff<P, true>, kFull> = kFull ? kMaxSumCount : kPlainSumCount;

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

// Runs `work` (a chunk of the CPU backend) compiled for the host's FMA instructions
// where it has them. The double path code writes its multiply-adds as fma()
// (double_normal_math.hpp), which x86-64's baseline makes a library call: 2.6 times
// libm's functions for a pair of normals and two exp2s, against 0.9 times with the
// instruction. fma() is exact either way, so the results are the same bits where the
// translation unit does not contract other products and sums (the library's CPU loop
// is built with -ffp-contract=off). Host compilers only: an nvcc translation unit
// (a caller's payoff) runs the portable code.
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && !defined(__CUDACC__)
template <class Work>
__attribute__((target("fma"), flatten)) inline void run_with_fma(const Work& work) {
  work();
}

template <class Work>
inline void run_on_host(const Work& work) {
  static const bool has_fma = (__builtin_cpu_init(), __builtin_cpu_supports("fma"));
  has_fma ? run_with_fma(work) : work();
}
#else
template <class Work>
inline void run_on_host(const Work& work) {
  work();
}
#endif

// The CPU backend's chunks [first, first + count), each summed in double by one
// thread into its place in `partials` (the slice from chunk `first`). OpenMP where the
// translation unit is built with it.
template <class T, bool kFull, bool kMrg, class Payoff>
void sum_chunks_cpu(const MonteCarloArgs<T>& a, const Payoff& payoff, std::int64_t first, std::int64_t count,
                    double* partials) {
  const int sums_kept = sum_count(a);
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (std::int64_t item = 0; item < count; ++item) {
    ChunkSums<double, kSumCapacity<Payoff, kFull>> sums{};
    run_on_host([&] { sum_chunk<T, kFull, kMrg>(a, payoff, first + item, 0, 0, sums); });
    for (int s = 0; s < sums_kept; ++s) partials[item * sums_kept + s] = sums.s[s];
  }
}

// Chunk sums are stored chunk-major: chunk c of option i keeps sum s at
// partials[(i * chunks + c) * sum_count + s], so that any range of the flattened
// chunk index (i * chunks + c) is one contiguous slice, whichever device or rank
// computed it.
template <class T>
std::int64_t partial_count(const MonteCarloArgs<T>& args) {
  return args.options * args.chunks.chunks * sum_count(args);
}

// The chunks [first, first + count) of the flattened index, each summed alone into
// its place in `partials`, which holds that slice only (count x sum_count values).
// OpenMP: host pointers, synchronous.
template <class T>
void monte_carlo_partials_cpu(const MonteCarloArgs<T>& args, std::int64_t first, std::int64_t count,
                              double* partials);
// Every option's chunks added in chunk order, and the estimates written.
template <class T>
void monte_carlo_finish_cpu(const MonteCarloArgs<T>& args, const double* partials);

// Quasi-random (sobol_bridge): a batch of `batch_paths` bridge paths `w` (records
// path-fastest: W of record r, path p at w[r * batch_paths + p]) that are the paths of
// chunks [first_chunk, first_chunk + batch_chunks) of every option; each chunk's sums
// go to their place in the whole chunk-major `partials`.
template <class T>
void monte_carlo_quasi_partials_cpu(const MonteCarloArgs<T>& args, const T* w, std::int64_t batch_paths,
                                    std::int64_t first_chunk, std::int64_t batch_chunks, double* partials);
template <class T>
void monte_carlo_quasi_partials_cuda(const MonteCarloArgs<T>& args, const T* w, std::int64_t batch_paths,
                                     std::int64_t first_chunk, std::int64_t batch_chunks, double* partials,
                                     StreamHandle stream);

// CUDA: device pointers, asynchronous on `stream`. The path kernel: one warp a chunk.
template <class T>
void monte_carlo_partials_cuda(const MonteCarloArgs<T>& args, std::int64_t first, std::int64_t count,
                               double* partials, StreamHandle stream);
// Combining kernels fold each option's `count` sums (its chunks, or a level already
// folded) fan_in at a time in a fixed tree until one warp can finish them; a finishing
// kernel (one warp an option) writes the estimates.
template <class T>
void monte_carlo_finish_cuda(const MonteCarloArgs<T>& args, const double* partials, std::int64_t count,
                             StreamHandle stream);
// One folding step over some units of a level: each unit is fan_in consecutive sums of
// one option (of `count` an option), units [first_unit, first_unit + units) of the
// option-major list, read from `chunk_sums`, which starts at the first unit's first
// chunk; out gets units x sums values. The whole level (first_unit 0) is the first
// step of monte_carlo_finish_cuda, so a rank that folds its own units gets its bits.
void monte_carlo_fold_units_cuda(std::int64_t count, std::int64_t first_unit, std::int64_t units, int sums,
                                 const double* chunk_sums, double* out, StreamHandle stream);

// The library's own view of a pricer and a batch (defined in libcunum): the arguments
// of a call, so that other layers (the MPI one, callers' payoff kernels) can sum any
// range of chunks and finish the estimates exactly as MonteCarloPricer::price() does.
struct MonteCarloAccess {
  // Throws what price() throws for this batch and results (naming 'batch', 'results').
  template <class T>
  static void check(const MonteCarloPricer<T>& pricer, const MonteCarloBatch<T>& batch,
                    const MonteCarloEstimate<T>* results, const char* routine);
  // The arguments of pricing `batch` with `pricer` into `results` (and each asset's
  // Greeks into `asset_greeks`, if not null); the batch's constants as its home
  // device, or the CPU, reads them. Validates nothing.
  template <class T>
  static MonteCarloArgs<T> args(const MonteCarloPricer<T>& pricer, const MonteCarloBatch<T>& batch,
                                MonteCarloEstimate<T>* results, MonteCarloAssetGreeks<T>* asset_greeks = nullptr);
};

}  // namespace detail
}  // namespace cunum
