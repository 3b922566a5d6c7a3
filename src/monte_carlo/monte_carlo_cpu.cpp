// The OpenMP Monte Carlo backend: chunks in parallel, each summed in double by one
// thread, then each option's chunks added in chunk order (results do not depend on
// the thread count, nor on which process computed which chunks).

#include <algorithm>
#include <cmath>
#include <vector>

#include "src/core/host_fma.hpp"
#include "src/core/instantiate.hpp"
#include "src/monte_carlo/monte_carlo_backends.hpp"
#include "src/monte_carlo/monte_carlo_path.hpp"

namespace cunum::detail {

namespace {

// sum_chunks_cpu's runner for the library's own chunks: each compiled for the host's FMA
// instructions where it has them (src/core/host_fma.hpp).
struct RunOnHost {
  template <class Work>
  void operator()(const Work& work) const {
    run_on_host(work);
  }
};

template <class T, bool kFull, class Payoff>
void sum_chunks_of(const MonteCarloArgs<T>& a, std::int64_t first, std::int64_t count, double* partials) {
  a.mrg_tables != nullptr ? sum_chunks_cpu<T, kFull, true>(a, Payoff{}, first, count, partials, RunOnHost{})
                          : sum_chunks_cpu<T, kFull, false>(a, Payoff{}, first, count, partials, RunOnHost{});
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

// load()'s references of the batch's options (set_zero_path_references), on the host.
template <class T>
void set_references_cpu(MonteCarloBatchData<T>& data, const GroupShape& shape) {
  const T* factor = data.factor();
  switch (data.payoff) {
#define CUNUM_MC_REFERENCE_CPU_CASE(name, text)                                                          \
  case MonteCarloPayoff::name:                                                                           \
    for (std::int64_t option = 0; option < data.size; ++option) {                                        \
      set_zero_path_references<T, MonteCarloPayoff::name>(shape, &data.host[option * shape.assets], factor); \
    }                                                                                                    \
    break;
    CUNUM_MONTE_CARLO_PAYOFFS(CUNUM_MC_REFERENCE_CPU_CASE)
#undef CUNUM_MC_REFERENCE_CPU_CASE
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

// The CPU backend of a pricer: host memory, synchronous; `stream` is ignored.
template <class T>
class MonteCarloCpu final : public MonteCarloBackend<T> {
 public:
  MonteCarloCpu(const MonteCarloSettings& settings, int dates) {
    if (settings.source == MonteCarloSource::sobol_bridge) {
      bridge_ = std::make_unique<const BrownianBridge>(monte_carlo_unit_bridge(dates, Backend::cpu));
    }
  }

  int device() const override { return -1; }
  void require_current(const char*) const override {}
  // The host constants serve, with their references.
  void make_resident(MonteCarloBatchData<T>& data, const GroupShape& shape, const char*) const override {
    set_references_cpu<T>(data, shape);
  }

  void price(const MonteCarloArgs<T>& args, const MonteCarloBatchData<T>&, StreamHandle) const override {
    std::vector<double> partials(sum_slots(args));
    monte_carlo_partials_cpu(args, 0, args.options * args.chunks.chunks, partials.data());
    monte_carlo_finish_cpu(args, partials.data());
  }

  void price_quasi(const MonteCarloArgs<T>& args, std::int64_t paths, StreamHandle stream) const override {
    const std::int64_t batch = quasi_batch_paths(args, *bridge_, paths);
    std::vector<T> w(static_cast<std::size_t>(batch * bridge_->output_records()));
    std::vector<double> partials(sum_slots(args));
    walk_quasi_batches(args, *bridge_, paths, batch, w.data(), stream,
                       [&](const T* batch_w, std::int64_t count, std::int64_t first_chunk, std::int64_t batch_chunks) {
                         monte_carlo_quasi_partials_cpu(args, batch_w, count, first_chunk, batch_chunks,
                                                        partials.data());
                       });
    monte_carlo_finish_cpu(args, partials.data());
  }

  void price_custom(const MonteCarloArgs<T>& args, const CustomPayoffSums<T>& sums, StreamHandle) const override {
    std::vector<double> partials(sum_slots(args));
    sums.cpu(args, sums.payoff, args.options * args.chunks.chunks, partials.data());
    monte_carlo_finish_cpu(args, partials.data());
  }

  // CPU ranks exchange every chunk's sums: the CPU combines them in chunk order.
  int exchange_fan_in(std::int64_t) const override { return 1; }

  void exchange_sums(const MonteCarloArgs<T>& args, std::int64_t chunk_begin, std::int64_t chunk_count,
                     std::int64_t, std::int64_t, int, double* host_out) const override {
    monte_carlo_partials_cpu(args, chunk_begin, chunk_count, host_out);
  }

  void finish_exchanged(const MonteCarloArgs<T>& args, const std::vector<double>& host_sums,
                        std::int64_t) const override {
    monte_carlo_finish_cpu(args, host_sums.data());
  }

 private:
  // Every option's chunk sums, chunk-major.
  static std::size_t sum_slots(const MonteCarloArgs<T>& args) {
    return static_cast<std::size_t>(args.options * args.chunks.chunks * sum_count(args));
  }

  std::unique_ptr<const BrownianBridge> bridge_;  // sobol_bridge: the unit bridge on the dates
};

}  // namespace

template <class T>
std::unique_ptr<MonteCarloBackend<T>> make_monte_carlo_cpu(const MonteCarloSettings& settings, int dates) {
  return std::make_unique<MonteCarloCpu<T>>(settings, dates);
}

#define CUNUM_INSTANTIATE_MONTE_CARLO_CPU(T) \
  template std::unique_ptr<MonteCarloBackend<T>> make_monte_carlo_cpu(const MonteCarloSettings&, int);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MONTE_CARLO_CPU, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
