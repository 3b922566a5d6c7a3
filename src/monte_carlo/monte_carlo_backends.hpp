#pragma once
// Internal: what load() forms and what each Monte Carlo backend provides;
// monte_carlo.cpp validates and dispatches. Arguments are validated already.

#include <cstdint>
#include <vector>

#include "cunum/core/device_buffer.hpp"
#include "cunum/monte_carlo.hpp"
#include "src/monte_carlo/monte_carlo_path.hpp"

namespace cunum {

// A loaded batch: the per-option constants, on the host (CPU backend) or the device.
template <class T>
struct MonteCarloBatch<T>::Data {
  std::int64_t size = 0;
  std::uint64_t first_stream = 0;
  Backend backend = Backend::cpu;
  int device = -1;
  MonteCarloPayoff payoff = MonteCarloPayoff::european;  // validated for it (barrier side)
  int dates = 1;                                         // its constants assume this grid
  std::vector<detail::OptionSetup<T>> host;       // CPU backend
  DeviceBuffer<detail::OptionSetup<T>> resident;  // CUDA backend
  const detail::OptionSetup<T>* setups() const { return backend == Backend::cpu ? host.data() : resident.data(); }
};

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
  const OptionSetup<T>* setups;
  MonteCarloEstimate<T>* results;
};

// The number of sums a chunk keeps.
CUNUM_HOST_DEVICE inline int sum_count(bool full) { return full ? kSumCount : kPlainSumCount; }

// OpenMP: host pointers, synchronous.
template <class T>
void monte_carlo_price_cpu(const MonteCarloArgs<T>& args);

// CUDA: device pointers, asynchronous on `stream`: the path kernel writes each
// chunk's sums, combining kernels fold them in fixed groups, and a finishing kernel
// forms the estimates.
template <class T>
void monte_carlo_price_cuda(const MonteCarloArgs<T>& args, StreamHandle stream);

}  // namespace detail
}  // namespace cunum
