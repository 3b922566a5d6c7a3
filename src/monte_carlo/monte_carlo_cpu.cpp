// The OpenMP Monte Carlo backend: chunks in parallel, each summed in double by one
// thread, then each option's chunks added in chunk order (results do not depend on
// the thread count, nor on which process computed which chunks).

#include <algorithm>
#include <cmath>

#include "src/core/instantiate.hpp"
#include "src/monte_carlo/monte_carlo_backends.hpp"

namespace cunum::detail {

namespace {

template <class T, bool kFull, class Payoff>
void sum_chunks_of(const MonteCarloArgs<T>& a, std::int64_t first, std::int64_t count, double* partials) {
  a.mrg_tables != nullptr ? sum_chunks_cpu<T, kFull, true>(a, Payoff{}, first, count, partials)
                          : sum_chunks_cpu<T, kFull, false>(a, Payoff{}, first, count, partials);
}

// The library's payoff P: plain, full, or full with each asset's Greeks.
template <class T, MonteCarloPayoff P>
void sum_payoff_chunks(const MonteCarloArgs<T>& a, std::int64_t first, std::int64_t count, double* partials) {
  if constexpr (is_multi_asset(P)) {
    if (a.shape.asset_greeks) return sum_chunks_of<T, true, LibraryPayoff<P, true>>(a, first, count, partials);
  }
  a.full ? sum_chunks_of<T, true, LibraryPayoff<P>>(a, first, count, partials)
         : sum_chunks_of<T, false, LibraryPayoff<P>>(a, first, count, partials);
}

template <class T, MonteCarloPayoff P, bool kFull>
void sum_quasi_chunks(const MonteCarloArgs<T>& a, const T* w, std::int64_t batch_paths, std::int64_t first_chunk,
                      std::int64_t batch_chunks, double* partials) {
  constexpr int kSums = kFull ? kSumCount : kPlainSumCount;
  const T step_scale = static_cast<T>(std::sqrt(static_cast<double>(a.shape.dates)));
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t item = 0; item < a.options * batch_chunks; ++item) {
    const std::int64_t option = item / batch_chunks, chunk = item % batch_chunks;
    ChunkSums<double, kSums> sums{};
    const std::int64_t begin = chunk * a.chunks.groups_per_chunk;
    const std::int64_t end = std::min(begin + a.chunks.groups_per_chunk, batch_paths);
    run_on_host([&] {
      for (std::int64_t path = begin; path < end; ++path) {
        simulate_quasi_path<T, P, kFull>(*option_setup_of(a, option), a.shape, w + path, batch_paths, step_scale,
                                         sums);
      }
    });
    double* out = partials + (option * a.chunks.chunks + first_chunk + chunk) * kSums;
    for (int s = 0; s < kSums; ++s) out[s] = sums.s[s];
  }
}

}  // namespace

template <class T>
void monte_carlo_quasi_partials_cpu(const MonteCarloArgs<T>& args, const T* w, std::int64_t batch_paths,
                                    std::int64_t first_chunk, std::int64_t batch_chunks, double* partials) {
  switch (args.payoff) {
#define CUNUM_MC_QUASI_CPU_CASE(name, text)                                                                     \
  case MonteCarloPayoff::name:                                                                                  \
    if (args.full) {                                                                                            \
      sum_quasi_chunks<T, MonteCarloPayoff::name, true>(args, w, batch_paths, first_chunk, batch_chunks, partials); \
    } else {                                                                                                    \
      sum_quasi_chunks<T, MonteCarloPayoff::name, false>(args, w, batch_paths, first_chunk, batch_chunks,          \
                                                         partials);                                             \
    }                                                                                                           \
    break;
    CUNUM_MONTE_CARLO_PAYOFFS(CUNUM_MC_QUASI_CPU_CASE)
#undef CUNUM_MC_QUASI_CPU_CASE
  }
}

template <class T>
void monte_carlo_partials_cpu(const MonteCarloArgs<T>& args, std::int64_t first, std::int64_t count,
                              double* partials) {
  switch (args.payoff) {
#define CUNUM_MC_CPU_CASE(name, text)                                                  \
  case MonteCarloPayoff::name:                                                         \
    sum_payoff_chunks<T, MonteCarloPayoff::name>(args, first, count, partials);        \
    break;
    CUNUM_MONTE_CARLO_PAYOFFS(CUNUM_MC_CPU_CASE)
#undef CUNUM_MC_CPU_CASE
  }
}

template <class T>
void monte_carlo_finish_cpu(const MonteCarloArgs<T>& a, const double* partials) {
  const int sums = sum_count(a);
#pragma omp parallel for schedule(static)
  for (std::int64_t option = 0; option < a.options; ++option) {
    double total[kMaxSumCount] = {};
    for (std::int64_t chunk = 0; chunk < a.chunks.chunks; ++chunk) {
      const double* chunk_sums = partials + (option * a.chunks.chunks + chunk) * sums;
      for (int s = 0; s < sums; ++s) total[s] += chunk_sums[s];
    }
    write_estimates(a, option, total);
  }
}

#define CUNUM_INSTANTIATE_MONTE_CARLO_CPU(T)                                                          \
  template void monte_carlo_partials_cpu(const MonteCarloArgs<T>&, std::int64_t, std::int64_t, double*); \
  template void monte_carlo_finish_cpu(const MonteCarloArgs<T>&, const double*);                     \
  template void monte_carlo_quasi_partials_cpu(const MonteCarloArgs<T>&, const T*, std::int64_t, std::int64_t, \
                                               std::int64_t, double*);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MONTE_CARLO_CPU, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
