// The OpenMP Monte Carlo backend: the chunks of every option in parallel, each
// summed in double by one thread, then each option's chunks added in chunk order
// (results do not depend on the thread count).

#include <vector>

#include "src/core/instantiate.hpp"
#include "src/monte_carlo/monte_carlo_backends.hpp"

namespace cunum::detail {

namespace {

template <class T, MonteCarloPayoff P, bool kFull>
void price_chunks(const MonteCarloArgs<T>& a, std::vector<double>& partials) {
  const int sums = sum_count(kFull);
  const std::int64_t groups = a.chunks.groups;
  const std::int64_t work = a.options * a.chunks.chunks;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t item = 0; item < work; ++item) {
    const std::int64_t option = item / a.chunks.chunks, chunk = item % a.chunks.chunks;
    const OptionSetup<T>& setup = a.setups[option];
    ChunkSums<double> chunk_sums{};
    const std::int64_t first = chunk * a.chunks.groups_per_chunk;
    const std::int64_t last = first + a.chunks.groups_per_chunk < groups ? first + a.chunks.groups_per_chunk : groups;
    for (std::int64_t group = first; group < last; ++group) {
      simulate_group<T, P, kFull>(setup, a.shape, static_cast<std::uint64_t>(group), chunk_sums);
    }
    for (int s = 0; s < sums; ++s) partials[static_cast<std::size_t>(item * sums + s)] = chunk_sums.s[s];
  }
}

template <class T, MonteCarloPayoff P>
void price_payoff(const MonteCarloArgs<T>& a) {
  const int sums = sum_count(a.full);
  std::vector<double> partials(static_cast<std::size_t>(a.options * a.chunks.chunks * sums));
  if (a.full) {
    price_chunks<T, P, true>(a, partials);
  } else {
    price_chunks<T, P, false>(a, partials);
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t option = 0; option < a.options; ++option) {
    double total[kSumCount] = {};
    for (std::int64_t chunk = 0; chunk < a.chunks.chunks; ++chunk) {
      const double* chunk_sums = &partials[static_cast<std::size_t>((option * a.chunks.chunks + chunk) * sums)];
      for (int s = 0; s < sums; ++s) total[s] += chunk_sums[s];
    }
    a.results[option] = estimate_from_sums<T>(total, a.full, a.shape.control, a.greeks, a.chunks.samples,
                                              a.shape.paths, a.setups[option].discount);
  }
}

}  // namespace

template <class T>
void monte_carlo_price_cpu(const MonteCarloArgs<T>& args) {
  switch (args.payoff) {
#define CUNUM_MC_CPU_CASE(name, text) \
  case MonteCarloPayoff::name:        \
    price_payoff<T, MonteCarloPayoff::name>(args); \
    break;
    CUNUM_MONTE_CARLO_PAYOFFS(CUNUM_MC_CPU_CASE)
#undef CUNUM_MC_CPU_CASE
  }
}

#define CUNUM_INSTANTIATE_MONTE_CARLO_CPU(T) template void monte_carlo_price_cpu(const MonteCarloArgs<T>&);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MONTE_CARLO_CPU, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
