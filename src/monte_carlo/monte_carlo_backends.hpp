#pragma once
// Internal: the one backend interface of MonteCarloPricer. A pricer makes its backend
// object once, at construction (make_monte_carlo_cpu, make_monte_carlo_cuda); the
// object keeps what that backend holds between calls (the device binding, each
// stream's workspace of one-device calls, the streams of a multi-device pricer, the
// quasi-random pricer's bridge) and runs the chunk sums
// and the estimates of each call. monte_carlo.cpp validates and forwards; the MPI
// layer reaches the same object through MonteCarloAccess. Also here: what load()
// forms (a batch's resident constants) and the library's own view of pricers and
// batches.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "cunum/brownian_bridge.hpp"
#include "cunum/core/device_buffer.hpp"
#include "cunum/core/placement.hpp"
#include "cunum/device/detail/monte_carlo_args.hpp"
#include "cunum/monte_carlo.hpp"
#include "src/brownian_bridge/bridge_internals.hpp"
#include "src/monte_carlo/monte_carlo_policy.hpp"

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
  std::vector<detail::OptionSetup<T>> host;                    // CPU backend
  // CUDA, several devices: the pricer's streams the copies past the first are freed
  // on, kept as long as the batch (declared before the copies, so destroyed after them).
  std::shared_ptr<const void> streams;
  std::vector<DeviceBuffer<detail::OptionSetup<T>>> resident;  // CUDA: one copy per device of the pricer
  std::vector<T> host_factor;                                  // multi-asset: the Cholesky factor (CPU)
  std::vector<DeviceBuffer<T>> resident_factor;                // CUDA: one copy per device
  std::vector<device::MrgMatrix> host_mrg;                     // MRG32k3a: the substream tables (CPU)
  std::vector<DeviceBuffer<device::MrgMatrix>> resident_mrg;   // CUDA: one copy per device
  // The constants as device `entry` of the pricer's list (0 on the CPU) reads them.
  const detail::OptionSetup<T>* setups(std::size_t entry = 0) const {
    return backend == Backend::cpu ? host.data() : resident[entry].data();
  }
  const device::MrgMatrix* mrg_tables(std::size_t entry = 0) const {
    if (host_mrg.empty() && resident_mrg.empty()) return nullptr;
    return backend == Backend::cpu ? host_mrg.data() : resident_mrg[entry].data();
  }
  const T* factor(std::size_t entry = 0) const {
    if (host_factor.empty() && resident_factor.empty()) return nullptr;
    return backend == Backend::cpu ? host_factor.data() : resident_factor[entry].data();
  }
};

namespace detail {

template <class T>
using MonteCarloBatchData = typename MonteCarloBatch<T>::Data;

// The backend of one MonteCarloPricer<T>. Arguments arrive validated; memory is the
// backend's (host for cpu, device for cuda) unless named host.
template <class T>
class MonteCarloBackend {
 public:
  virtual ~MonteCarloBackend() = default;

  // The home device (CUDA) or -1 (CPU).
  virtual int device() const = 0;
  // CUDA: throws Error(invalid_argument) naming 'this' unless the home device is
  // current. CPU: nothing to check.
  virtual void require_current(const char* routine) const = 0;

  // load(): forms the references of the options' samples (set_zero_path_references
  // with `shape`, the pricer's group shape with each asset's Greeks; CUDA: on the home
  // device, one thread an option, as a path walk costs the host some 10 ns a date),
  // and makes the batch's host constants resident where the backend reads them (CUDA,
  // a batch of at least one option: the same copy on each device of the pricer, from
  // the placement's resource, on its stream for the home device, waiting; the host
  // copies are dropped).
  virtual void make_resident(MonteCarloBatchData<T>& data, const GroupShape& shape, const char* routine) const = 0;

  // price(): a pseudo-random batch's estimates into args.results (and args.asset_greeks).
  virtual void price(const MonteCarloArgs<T>& args, const MonteCarloBatchData<T>& batch,
                     StreamHandle stream) const = 0;
  // price() with sobol_bridge: the bridge's `paths` paths a batch at a time, then the estimates.
  virtual void price_quasi(const MonteCarloArgs<T>& args, std::int64_t paths, StreamHandle stream) const = 0;
  // cunum::price_with_payoff: the caller's chunk sums, then the estimates.
  virtual void price_custom(const MonteCarloArgs<T>& args, const CustomPayoffSums<T>& sums,
                            StreamHandle stream) const = 0;

  // MonteCarloDistributed. The ranks exchange units of `fan_in` consecutive chunk sums
  // of an option, fan_in = exchange_fan_in(chunks per option) (1: the chunks' own sums).
  virtual int exchange_fan_in(std::int64_t chunks) const = 0;
  // A rank's units [first_unit, first_unit + units), which are the flat chunks
  // [chunk_begin, chunk_begin + chunk_count), into host memory (units x sums values);
  // CUDA: on the placement's stream, waiting.
  virtual void exchange_sums(const MonteCarloArgs<T>& args, std::int64_t chunk_begin, std::int64_t chunk_count,
                             std::int64_t first_unit, std::int64_t units, int fan_in, double* host_out) const = 0;
  // Every rank's units (host memory, `per_option` an option, in order) combined into
  // args.results as one pricer would; waits (CUDA: for the placement's stream).
  virtual void finish_exchanged(const MonteCarloArgs<T>& args, const std::vector<double>& host_sums,
                                std::int64_t per_option) const = 0;
};

// `settings`: validated; `dates`: the steps the payoff walks.
template <class T>
std::unique_ptr<MonteCarloBackend<T>> make_monte_carlo_cpu(const MonteCarloSettings& settings, int dates);
// `placement`: resolved, CUDA, made with its first device current (the home device,
// which the backend binds); every device allocation comes from its device_memory.
template <class T>
std::unique_ptr<MonteCarloBackend<T>> make_monte_carlo_cuda(const MonteCarloSettings& settings, int dates,
                                                            const Placement& placement);

// The unit bridge of a quasi-random pricer: standard Brownian motion on [0, 1] at
// k / dates, k = 1..dates (at 1/2 and 1 for one date), bisection order, placed as
// the pricer is (its device memory from the pricer's resource).
inline BrownianBridge monte_carlo_unit_bridge(int dates, const Placement& placement) {
  std::vector<double> grid;
  for (int k = 1; k < dates; ++k) grid.push_back(double(k) / dates);
  if (grid.empty()) grid.push_back(0.5);
  return BrownianBridge(0.0, 1.0, make_bridge_order(grid, BridgeOrder::bisection), 1, {1.0},
                        CovarianceForm::factor, {0.0}, {}, placement);
}

// The paths of one quasi-random batch: a whole number of chunks whose bridge records
// fill about MonteCarloQuasiPolicy::batch_bytes, at most the option's paths.
template <class T>
std::int64_t quasi_batch_paths(const MonteCarloArgs<T>& args, const BrownianBridge& bridge, std::int64_t paths) {
  const std::int64_t chunk_paths = args.chunks.groups_per_chunk;
  const std::int64_t records = bridge.output_records();
  const std::int64_t wanted = MonteCarloQuasiPolicy::batch_bytes / (records * std::int64_t{sizeof(T)}) / chunk_paths;
  return std::min(chunk_paths * std::max<std::int64_t>(wanted, 1), paths);
}

// Walks the `paths` bridge paths `batch` at a time into `w` (batch x records values,
// the backend's memory) and calls sum_batch(w, count, first_chunk, batch_chunks) on
// each: its paths are chunks [first_chunk, first_chunk + batch_chunks) of every option.
template <class T, class SumBatch>
void walk_quasi_batches(const MonteCarloArgs<T>& args, const BrownianBridge& bridge, std::int64_t paths,
                        std::int64_t batch, T* w, StreamHandle stream, const SumBatch& sum_batch) {
  const std::int64_t chunk_paths = args.chunks.groups_per_chunk;
  for (std::int64_t first = 0; first < paths; first += batch) {
    const std::int64_t count = std::min(batch, paths - first);
    SobolBridgeOptions options;
    options.offset = static_cast<std::uint64_t>(first);
    options.stream = stream;
    // The pricer checked the dates and paths at construction and `w` is its own.
    BridgeInternals::generate_checked_sobol_paths(bridge, count, w, options);
    sum_batch(w, count, first / chunk_paths, (count + chunk_paths - 1) / chunk_paths);
  }
}

// The library's own view of a pricer and a batch (defined in monte_carlo.cpp): the
// checks and arguments of a call and the pricer's backend, so that the MPI layer and
// callers' payoffs sum chunks and finish the estimates exactly as price() does.
struct MonteCarloAccess {
  // The pricer's state; throws naming 'this' for a moved-from pricer.
  template <class T>
  static const typename MonteCarloPricer<T>::Impl& impl(const MonteCarloPricer<T>& pricer, const char* routine);
  template <class T>
  static const MonteCarloBackend<T>& backend(const MonteCarloPricer<T>& pricer, const char* routine);
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
  template <class T>
  static MonteCarloBatch<T> make_batch(std::shared_ptr<const MonteCarloBatchData<T>> data) {
    return MonteCarloBatch<T>(std::move(data));
  }
};

}  // namespace detail
}  // namespace cunum
