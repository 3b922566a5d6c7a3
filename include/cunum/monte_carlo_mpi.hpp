#pragma once
/// @file
/// Monte Carlo pricing over the ranks of an MPI communicator (target
/// cunum::monte_carlo_mpi, built where MPI is found): cunum::MonteCarloDistributed.
/// Each rank sums a contiguous share of the batch's chunks (monte_carlo.hpp) on its
/// own backend (one GPU a rank, or the CPU), the chunk sums are gathered to every
/// rank, and every rank combines them in the one fixed order: the estimates are
/// bit-identical to a single MonteCarloPricer's on the same backend, whatever the
/// number of ranks.

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "cunum/core/placement.hpp"
#include "cunum/monte_carlo.hpp"

namespace cunum {

/// A MonteCarloPricer spread over the ranks of a communicator. Every rank holds the
/// same settings and calls price() with the same options (collective calls).
///
/// - Devices: each rank's pricer runs on one device, placement.devices' one entry
///   (empty: the device current at construction), and its calls must be made with
///   that device current.
/// - Memory and streams: as MonteCarloPricer's; each call's chunk sums, the gathered
///   sums and the estimates are device memory from placement.device_memory, used on
///   placement.stream, which price() waits for.
/// - A moved-from object throws ErrorCode::invalid_argument naming 'this' from every
///   member. It moves; it does not copy.
template <class T>
class MonteCarloDistributed {
 public:
  /// @param comm       the ranks; must outlive the object
  /// @param settings   as MonteCarloPricer's, on every rank
  /// @param placement  where this rank's pricer runs (cunum/core/placement.hpp): the
  ///                   backend, one device at most, the stream its copies and each
  ///                   call's work run on, and the resource its device memory comes from
  /// @throws Error as MonteCarloPricer, naming 'placement.devices' for more than one
  ///         device, and 'settings.source' for other sources than philox4x32_10
  MonteCarloDistributed(MPI_Comm comm, const MonteCarloSettings& settings, const Placement& placement = {});
  ~MonteCarloDistributed();
  MonteCarloDistributed(MonteCarloDistributed&& other) noexcept;
  MonteCarloDistributed& operator=(MonteCarloDistributed&& other) noexcept;

  /// Prices `options` (host memory, the same on every rank); collective over the
  /// communicator. Returns every option's estimate on every rank; blocks.
  /// @throws Error as MonteCarloPricer::load() (every rank throws alike, before any
  ///         communication); ErrorCode::not_supported when a rank's share of chunk
  ///         sums exceeds MPI's int counts
  std::vector<MonteCarloEstimate<T>> price(const std::vector<MonteCarloOption<T>>& options,
                                           std::uint64_t first_stream = 0) const;

  /// @return the rank-local pricer (its settings, chunk shape and placement)
  const MonteCarloPricer<T>& pricer() const;
  /// @return the resolved backend: Backend::cpu or Backend::cuda
  Backend backend() const;
  /// @return the resolved placement (see Placement)
  const Placement& placement() const;

 private:
  struct Impl;  // the communicator and the rank-local pricer (src/monte_carlo/monte_carlo_mpi.cpp)
  std::unique_ptr<Impl> impl_;
};

}  // namespace cunum
