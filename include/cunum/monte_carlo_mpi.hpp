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
#include <vector>

#include "cunum/monte_carlo.hpp"

namespace cunum {

/// A MonteCarloPricer spread over the ranks of a communicator. Every rank holds the
/// same settings and calls price() with the same options (collective calls).
template <class T>
class MonteCarloDistributed {
 public:
  /// @param comm      the ranks; must outlive the object
  /// @param settings  as MonteCarloPricer's, on every rank (settings.devices must be
  ///                  empty: a rank prices on its current device)
  /// @throws Error as MonteCarloPricer, and naming 'settings.devices' when not empty
  ///         or 'settings.source' for sobol_bridge
  MonteCarloDistributed(MPI_Comm comm, const MonteCarloSettings& settings);

  /// Prices `options` (host memory, the same on every rank); collective over the
  /// communicator. Returns every option's estimate on every rank; blocks.
  /// @throws Error as MonteCarloPricer::load() (every rank throws alike, before any
  ///         communication); ErrorCode::not_supported when a rank's share of chunk
  ///         sums exceeds MPI's int counts
  std::vector<MonteCarloEstimate<T>> price(const std::vector<MonteCarloOption<T>>& options,
                                           std::uint64_t first_stream = 0) const;

  /// @return the rank-local pricer (its settings, chunk shape and backend)
  const MonteCarloPricer<T>& pricer() const noexcept { return pricer_; }

 private:
  MPI_Comm comm_;
  MonteCarloPricer<T> pricer_;
};

}  // namespace cunum
