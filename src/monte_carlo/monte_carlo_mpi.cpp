// MonteCarloDistributed: each rank sums its share of the chunks with the backends of
// MonteCarloPricer (GPU ranks also fold them once, in whole units, as one GPU would),
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
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"
#include "cunum/device/detail/monte_carlo_args.hpp"
#include "cunum/device/detail/monte_carlo_policy.hpp"

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
  const int sums = detail::sum_count(args);
  const std::int64_t chunks = args.chunks.chunks;  // per option
  // What the ranks exchange: CPU ranks, every chunk's sums (the CPU combines them in
  // chunk order); CUDA ranks with more than fan_in chunks an option, the first folding
  // level, each rank folding whole units of its own chunks as one GPU would (fan_in
  // times fewer values); else the chunks' sums.
  const bool fold = cuda && chunks > detail::CombinePolicy::fan_in;
  const std::int64_t per_option = fold ? (chunks + detail::CombinePolicy::fan_in - 1) / detail::CombinePolicy::fan_in
                                       : chunks;
  const std::int64_t units = args.options * per_option;
  if (units * sums > INT_MAX) {
    throw Error(ErrorCode::not_supported, std::string(kDistributedPriceRoutine) + ": " + std::to_string(units * sums) +
                                              " sums to exchange exceed MPI's int counts; price fewer options a call");
  }
  // The flat chunk where unit u starts.
  const auto first_chunk = [&](std::int64_t unit) {
    if (!fold) return unit;
    return unit / per_option * chunks + std::min(unit % per_option * detail::CombinePolicy::fan_in, chunks);
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
  if (cuda) {
    DeviceBuffer<double> partials(static_cast<std::size_t>(chunk_count * sums));
    detail::monte_carlo_partials_cuda(args, chunk_begin, chunk_count, partials.data(), partials.stream());
    if (fold) {
      DeviceBuffer<double> folded(mine.size(), partials.stream());
      detail::monte_carlo_fold_units_cuda(chunks, first_unit, my_units, sums, partials.data(), folded.data(),
                                          partials.stream());
      folded.copy_to_host(mine.data(), mine.size());
    } else {
      partials.copy_to_host(mine.data(), mine.size());
    }
  } else {
    detail::monte_carlo_partials_cpu(args, chunk_begin, chunk_count, mine.data());
  }
  detail::check_mpi(MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), counts.data(),
                                   offsets.data(), MPI_DOUBLE, comm_),
                    "MPI_Allgatherv");
  if (!cuda) {
    detail::monte_carlo_finish_cpu(args, all.data());
    return estimates;
  }
  const auto partials = DeviceBuffer<double>::from_host(all);
  detail::monte_carlo_finish_cuda(args, partials.data(), per_option, partials.stream());
  device_estimates.copy_to_host(estimates.data(), estimates.size());
  return estimates;
}

#define CUNUM_INSTANTIATE_MONTE_CARLO_MPI(T) template class MonteCarloDistributed<T>;
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MONTE_CARLO_MPI, CUNUM_REAL_TYPES)

}  // namespace cunum
