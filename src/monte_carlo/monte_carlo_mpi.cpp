// MonteCarloDistributed: each rank sums its share of the chunks with the backend object
// of its MonteCarloPricer (GPU ranks also fold them once, in whole units, as one GPU would),
// MPI_Allgatherv assembles the sums in order on every rank, and each rank finishes the
// estimates as a single pricer would.

#include "cunum/monte_carlo_mpi.hpp"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "cunum/core/device_buffer.hpp"
#include "cunum/core/error.hpp"
#include "src/core/check_mpi.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/placement.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"
#include "src/monte_carlo/monte_carlo_backends.hpp"

namespace cunum {

namespace {

constexpr const char* kClassName = "MonteCarloDistributed";
constexpr const char* kDistributedRoutine = "cunum::MonteCarloDistributed";
constexpr const char* kDistributedPriceRoutine = "cunum::MonteCarloDistributed::price";
constexpr const char* kPricerRoutine = "cunum::MonteCarloDistributed::pricer";
constexpr const char* kBackendRoutine = "cunum::MonteCarloDistributed::backend";
constexpr const char* kPlacementRoutine = "cunum::MonteCarloDistributed::placement";

}  // namespace

// The communicator and the rank-local pricer, on the one device of the rank's placement.
template <class T>
struct MonteCarloDistributed<T>::Impl {
  MPI_Comm comm;
  MonteCarloPricer<T> pricer;
};

template <class T>
MonteCarloDistributed<T>::MonteCarloDistributed(MPI_Comm comm, const MonteCarloSettings& settings,
                                                const Placement& placement) {
  const detail::RoutineScope scope(kDistributedRoutine);
  const Placement resolved = detail::resolve_placement(placement, detail::DeviceCount::one, kDistributedRoutine);
  detail::require(settings.source == MonteCarloSource::philox4x32_10, kDistributedRoutine, "settings.source",
                  "must be philox4x32_10 (quasi-random paths are not split over ranks)");
  impl_ = std::make_unique<Impl>(Impl{comm, MonteCarloPricer<T>(settings, resolved)});
}

template <class T>
MonteCarloDistributed<T>::~MonteCarloDistributed() = default;
template <class T>
MonteCarloDistributed<T>::MonteCarloDistributed(MonteCarloDistributed&&) noexcept = default;
template <class T>
MonteCarloDistributed<T>& MonteCarloDistributed<T>::operator=(MonteCarloDistributed&&) noexcept = default;

template <class T>
const MonteCarloPricer<T>& MonteCarloDistributed<T>::pricer() const {
  return detail::require_plan(impl_, kPricerRoutine, kClassName).pricer;
}

template <class T>
Backend MonteCarloDistributed<T>::backend() const {
  return detail::require_plan(impl_, kBackendRoutine, kClassName).pricer.backend();
}

template <class T>
const Placement& MonteCarloDistributed<T>::placement() const {
  return detail::require_plan(impl_, kPlacementRoutine, kClassName).pricer.placement();
}

template <class T>
std::vector<MonteCarloEstimate<T>> MonteCarloDistributed<T>::price(const std::vector<MonteCarloOption<T>>& options,
                                                                   std::uint64_t first_stream) const {
  const detail::RoutineScope scope(kDistributedPriceRoutine);
  const Impl& impl = detail::require_plan(impl_, kDistributedPriceRoutine, kClassName);
  const MonteCarloPricer<T>& pricer = impl.pricer;
  const MonteCarloBatch<T> batch = pricer.load(options, first_stream);
  std::vector<MonteCarloEstimate<T>> estimates(options.size());
  if (options.empty()) return estimates;
  int rank = 0, ranks = 1;
  detail::check_mpi(MPI_Comm_rank(impl.comm, &rank), "MPI_Comm_rank");
  detail::check_mpi(MPI_Comm_size(impl.comm, &ranks), "MPI_Comm_size");
  const Placement& placement = pricer.placement();
  const bool cuda = placement.backend == Backend::cuda;
  DeviceBuffer<MonteCarloEstimate<T>> device_estimates;
  if (cuda) {
    device_estimates = DeviceBuffer<MonteCarloEstimate<T>>(options.size(), placement.stream, placement.device_memory);
  }
  const detail::MonteCarloArgs<T> args =
      detail::MonteCarloAccess::args(pricer, batch, cuda ? device_estimates.data() : estimates.data());
  const detail::MonteCarloBackend<T>& backend = detail::MonteCarloAccess::backend(pricer, kDistributedPriceRoutine);
  const int sums = detail::sum_count(args);
  const std::int64_t chunks = args.chunks.chunks;  // per option
  // What the ranks exchange: units of fan_in consecutive chunk sums of an option, as
  // the backend asks (CPU ranks: every chunk's sums, which the CPU combines in chunk
  // order; CUDA ranks with more than fan_in chunks an option: the first folding level).
  const std::int64_t fan_in = backend.exchange_fan_in(chunks);
  const std::int64_t per_option = (chunks + fan_in - 1) / fan_in;
  const std::int64_t units = args.options * per_option;
  if (units * sums > INT_MAX) {
    throw Error(ErrorCode::not_supported, std::string(kDistributedPriceRoutine) + ": " + std::to_string(units * sums) +
                                              " sums to exchange exceed MPI's int counts; price fewer options a call");
  }
  // The flat chunk where unit u starts.
  const auto first_chunk = [&](std::int64_t unit) {
    return unit / per_option * chunks + std::min(unit % per_option * fan_in, chunks);
  };
  std::vector<int> counts(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const std::int64_t first = units * r / ranks, last = units * (r + 1) / ranks;
    counts[static_cast<std::size_t>(r)] = static_cast<int>((last - first) * sums);
    offsets[static_cast<std::size_t>(r)] = static_cast<int>(first * sums);
  }
  const std::int64_t first_unit = units * rank / ranks, my_units = units * (rank + 1) / ranks - first_unit;
  const std::int64_t chunk_begin = first_chunk(first_unit), chunk_count = first_chunk(first_unit + my_units) - chunk_begin;
  std::vector<double> mine(static_cast<std::size_t>(my_units * sums)), all(static_cast<std::size_t>(units * sums));
  backend.exchange_sums(args, chunk_begin, chunk_count, first_unit, my_units, static_cast<int>(fan_in), mine.data());
  detail::check_mpi(MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), counts.data(),
                                   offsets.data(), MPI_DOUBLE, impl.comm),
                    "MPI_Allgatherv");
  backend.finish_exchanged(args, all, per_option);
  if (cuda) device_estimates.copy_to_host(estimates.data(), estimates.size());
  return estimates;
}

#define CUNUM_INSTANTIATE_MONTE_CARLO_MPI(T) template class MonteCarloDistributed<T>;
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MONTE_CARLO_MPI, CUNUM_REAL_TYPES)

}  // namespace cunum
