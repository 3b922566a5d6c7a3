// MonteCarloDistributed: each rank sums its share of the chunks with the backends of
// MonteCarloPricer, MPI_Allgatherv assembles the chunk-major sums in chunk order on
// every rank, and each rank finishes the estimates as a single pricer would.

#include "cunum/monte_carlo_mpi.hpp"

#include <climits>
#include <string>
#include <vector>

#include "cunum/core/device_buffer.hpp"
#include "cunum/core/error.hpp"
#include "src/core/check_mpi.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"
#include "src/monte_carlo/monte_carlo_access.hpp"

namespace cunum {

namespace {

constexpr const char* kDistributedRoutine = "cunum::MonteCarloDistributed";
constexpr const char* kDistributedPriceRoutine = "cunum::MonteCarloDistributed::price";

}  // namespace

template <class T>
MonteCarloDistributed<T>::MonteCarloDistributed(MPI_Comm comm, const MonteCarloSettings& settings)
    : comm_(comm), pricer_([&] {
        const detail::RoutineScope scope(kDistributedRoutine);
        detail::require(settings.devices.empty(), kDistributedRoutine, "settings.devices",
                        "must be empty: each rank prices on its current device");
        detail::require(settings.source == MonteCarloSource::philox4x32_10, kDistributedRoutine, "settings.source",
                        "must be philox4x32_10 (quasi-random paths are not split over ranks)");
        return MonteCarloPricer<T>(settings);
      }()) {}

template <class T>
std::vector<MonteCarloEstimate<T>> MonteCarloDistributed<T>::price(const std::vector<MonteCarloOption<T>>& options,
                                                                   std::uint64_t first_stream) const {
  const detail::RoutineScope scope(kDistributedPriceRoutine);
  const MonteCarloBatch<T> batch = pricer_.load(options, first_stream);
  std::vector<MonteCarloEstimate<T>> estimates(options.size());
  if (options.empty()) return estimates;
  int rank = 0, ranks = 1;
  detail::check_mpi(MPI_Comm_rank(comm_, &rank), "MPI_Comm_rank");
  detail::check_mpi(MPI_Comm_size(comm_, &ranks), "MPI_Comm_size");
  const bool cuda = pricer_.settings().backend == Backend::cuda;
  DeviceBuffer<MonteCarloEstimate<T>> device_estimates;
  if (cuda) device_estimates = DeviceBuffer<MonteCarloEstimate<T>>(options.size());
  const detail::MonteCarloArgs<T> args =
      detail::MonteCarloAccess::args(pricer_, batch, cuda ? device_estimates.data() : estimates.data());
  const int sums = detail::sum_count(args.full);
  const std::int64_t chunks = args.options * args.chunks.chunks;
  std::vector<int> counts(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const std::int64_t first = chunks * r / ranks, last = chunks * (r + 1) / ranks;
    if (chunks * sums > INT_MAX) {
      throw Error(ErrorCode::not_supported, std::string(kDistributedPriceRoutine) + ": " +
                                                std::to_string(chunks * sums) +
                                                " chunk sums exceed MPI's int counts; price fewer options a call");
    }
    counts[static_cast<std::size_t>(r)] = static_cast<int>((last - first) * sums);
    offsets[static_cast<std::size_t>(r)] = static_cast<int>(first * sums);
  }
  const std::int64_t first = chunks * rank / ranks, count = chunks * (rank + 1) / ranks - first;
  std::vector<double> mine(static_cast<std::size_t>(count * sums)), all(static_cast<std::size_t>(chunks * sums));
  if (cuda) {
    DeviceBuffer<double> partials(mine.size());
    detail::monte_carlo_partials_cuda(args, first, count, partials.data(), partials.stream());
    partials.copy_to_host(mine.data(), mine.size());
  } else {
    detail::monte_carlo_partials_cpu(args, first, count, mine.data());
  }
  detail::check_mpi(MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), counts.data(),
                           offsets.data(), MPI_DOUBLE, comm_),
            "MPI_Allgatherv");
  if (!cuda) {
    detail::monte_carlo_finish_cpu(args, all.data());
    return estimates;
  }
  const auto partials = DeviceBuffer<double>::from_host(all);
  detail::monte_carlo_finish_cuda(args, partials.data(), partials.stream());
  device_estimates.copy_to_host(estimates.data(), estimates.size());
  return estimates;
}

#define CUNUM_INSTANTIATE_MONTE_CARLO_MPI(T) template class MonteCarloDistributed<T>;
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MONTE_CARLO_MPI, CUNUM_REAL_TYPES)

}  // namespace cunum
