// The CUDA Monte Carlo backend, host orchestration: the pricer's device binding and
// placement (every allocation from its resource), the streams and events of a
// multi-device pricer (each device sums a contiguous share of the chunks on its own
// stream, and the sums are copied home before they are combined in the one fixed
// order), the quasi-random pricer's bridge batches, the folding levels of the chunk
// sums, and the MPI layer's share of a batch. Calls the launchers of
// kernels/monte_carlo/monte_carlo_launch.hpp.

#include <cuda_runtime.h>

#include <memory>
#include <mutex>
#include <vector>

#include "cunum/core/device.hpp"
#include "cunum/core/device_buffer.hpp"
#include "kernels/monte_carlo/monte_carlo_launch.hpp"
#include "src/core/check.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/device_queue.hpp"
#include "src/core/graph_capture.hpp"
#include "src/core/instantiate.hpp"
#include "src/monte_carlo/monte_carlo_backends.hpp"
#include "src/monte_carlo/monte_carlo_policy.hpp"

namespace cunum::detail {

namespace {

template <class T>
class MonteCarloCuda final : public MonteCarloBackend<T> {
 public:
  // Binds the current device, the placement's first; with several devices, one
  // queue per entry of the list, with peer access to home where the pair allows it.
  // Leaves the caller's current device as it was.
  MonteCarloCuda(const MonteCarloSettings& settings, int dates, const Placement& placement)
      : placement_(placement), binding_(DeviceBinding::current()) {
    if (settings.source == MonteCarloSource::sobol_bridge) {
      // sobol_bridge runs on one device (the pricer refuses several), as the bridge does.
      bridge_ = std::make_unique<const BrownianBridge>(monte_carlo_unit_bridge(dates, placement));
      // Now rather than at the first price(), which may be captured into a CUDA graph.
      BridgeInternals::upload_sobol_tables(*bridge_, SobolBridgeOptions{}.sequence);
    }
    if (placement.devices.size() < 2) return;
    const CurrentDeviceGuard guard;
    auto queues = std::make_shared<Queues>();
    for (int device : placement.devices) {
      enable_peer_access(device, binding_.device);
      queues->push_back(std::make_unique<DeviceQueue>(device, kEvents));
      arches_.push_back(architecture(device_properties(device)));
    }
    queues_ = std::move(queues);
  }

  int device() const override { return binding_.device; }
  void require_current(const char* routine) const override { binding_.require_current(routine); }

  void make_resident(MonteCarloBatchData<T>& data, const GroupShape& shape, const char* routine) const override {
    if (data.size == 0) return;  // an empty batch binds nothing
    binding_.require_current(routine);
    refuse_capture(placement_.stream, "load() copies the batch to the device on placement.stream and waits");
    const CurrentDeviceGuard guard;
    data.streams = queues_;
    DeviceMemoryResource* const resource = placement_.device_memory;
    for (std::size_t entry = 0; entry < placement_.devices.size(); ++entry) {
      // The home copy on the placement's stream; the others on the pricer's stream of their device.
      const StreamHandle stream = entry == 0 ? placement_.stream : (*queues_)[entry]->stream();
      CUNUM_CHECK(cudaSetDevice(placement_.devices[entry]));
      data.resident.push_back(DeviceBuffer<OptionSetup<T>>::from_host(data.host, stream, resource));
      if (!data.host_factor.empty()) {
        data.resident_factor.push_back(DeviceBuffer<T>::from_host(data.host_factor, stream, resource));
      }
      if (!data.host_mrg.empty()) {
        data.resident_mrg.push_back(DeviceBuffer<device::MrgMatrix>::from_host(data.host_mrg, stream, resource));
      }
      if (entry == 0) {
        // The references, formed once at home: the other devices get its constants,
        // so that every device's sums are of the same shifted samples.
        DeviceBuffer<OptionSetup<T>>& setups = data.resident.front();
        launch_monte_carlo_references(data.payoff, binding_.arch, shape, setups.data(), data.size, data.factor(0),
                                      stream);
        setups.copy_to_host(data.host.data(), data.host.size());
      }
    }
    data.host.clear();
    data.host_factor.clear();
    data.host_mrg.clear();
  }

  void price(const MonteCarloArgs<T>& args, const MonteCarloBatchData<T>& batch, StreamHandle stream) const override {
    if (queues_) {
      // The pricer's queues would join the capture and stay in it until it ends, so
      // a concurrent call's work on them would land in the caller's graph.
      refuse_capture(stream, "a pricer on several devices runs its shares on streams of its own");
    }
    const std::int64_t chunks = args.options * args.chunks.chunks;
    const auto slice = [&](std::int64_t chunk) { return static_cast<std::size_t>(chunk * sum_count(args)); };
    DeviceBuffer<double> partials = sums_buffer(args, args.chunks.chunks, stream);
    if (!queues_) {
      launch_monte_carlo_paths(args, binding_.arch, 0, chunks, partials.data(), stream);
    } else {
      // Entry k sums chunks [chunks k / n, chunks (k + 1) / n) on its own stream, after
      // the caller's stream reaches this call, and copies them into place at home.
      const std::lock_guard<std::mutex> lock(enqueue_);
      const CurrentDeviceGuard guard;
      const Queues& queues = *queues_;
      const auto n = static_cast<std::int64_t>(queues.size());
      CUNUM_CHECK(cudaEventRecord(queues.front()->event(kStart), static_cast<cudaStream_t>(stream)));
      for (std::int64_t k = 0; k < n; ++k) {
        const auto entry = static_cast<std::size_t>(k);
        const DeviceQueue& queue = *queues[entry];
        const std::int64_t first = chunks * k / n, count = chunks * (k + 1) / n - first;
        CUNUM_CHECK(cudaSetDevice(queue.device()));
        CUNUM_CHECK(cudaStreamWaitEvent(queue.stream(), queues.front()->event(kStart), 0));
        MonteCarloArgs<T> share = args;
        share.setups = batch.setups(entry);
        share.factor = batch.factor(entry);
        share.mrg_tables = batch.mrg_tables(entry);
        // Released on its stream, after the copy.
        DeviceBuffer<double> local(slice(count), queue.stream(), placement_.device_memory);
        launch_monte_carlo_paths(share, arches_[entry], first, count, local.data(), queue.stream());
        CUNUM_CHECK(cudaMemcpyPeerAsync(partials.data() + slice(first), binding_.device, local.data(), queue.device(),
                                        local.bytes(), queue.stream()));
        CUNUM_CHECK(cudaEventRecord(queue.event(kDone), queue.stream()));
      }
      CUNUM_CHECK(cudaSetDevice(binding_.device));
      for (const auto& queue : queues) {
        CUNUM_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), queue->event(kDone), 0));
      }
    }
    finish(args, partials.data(), args.chunks.chunks, stream);
  }

  void price_quasi(const MonteCarloArgs<T>& args, std::int64_t paths, StreamHandle stream) const override {
    const std::int64_t batch = quasi_batch_paths(args, *bridge_, paths);
    DeviceBuffer<T> w(static_cast<std::size_t>(batch * bridge_->output_records()), stream, placement_.device_memory);
    DeviceBuffer<double> partials = sums_buffer(args, args.chunks.chunks, stream);
    walk_quasi_batches(args, *bridge_, paths, batch, w.data(), stream,
                       [&](const T* batch_w, std::int64_t count, std::int64_t first_chunk, std::int64_t batch_chunks) {
                         launch_monte_carlo_quasi(args, binding_.arch, batch_w, count, first_chunk, batch_chunks,
                                                  partials.data(), stream);
                       });
    finish(args, partials.data(), args.chunks.chunks, stream);
  }

  void price_custom(const MonteCarloArgs<T>& args, const CustomPayoffSums<T>& sums,
                    StreamHandle stream) const override {
    DeviceBuffer<double> partials = sums_buffer(args, args.chunks.chunks, stream);
    sums.cuda(args, sums.payoff, args.options * args.chunks.chunks, partials.data(), stream);
    finish(args, partials.data(), args.chunks.chunks, stream);
  }

  // With more than fan_in chunks an option, a rank folds whole units of its own chunks
  // as one GPU would (fan_in times fewer values to exchange); else the chunks' sums.
  int exchange_fan_in(std::int64_t chunks) const override {
    return chunks > MonteCarloCombinePolicy::fan_in ? MonteCarloCombinePolicy::fan_in : 1;
  }

  void exchange_sums(const MonteCarloArgs<T>& args, std::int64_t chunk_begin, std::int64_t chunk_count,
                     std::int64_t first_unit, std::int64_t units, int fan_in, double* host_out) const override {
    const int sums = sum_count(args);
    const auto size = static_cast<std::size_t>(units * sums);
    DeviceBuffer<double> partials(static_cast<std::size_t>(chunk_count * sums), placement_.stream,
                                  placement_.device_memory);
    launch_monte_carlo_paths(args, binding_.arch, chunk_begin, chunk_count, partials.data(), placement_.stream);
    if (fan_in > 1) {
      DeviceBuffer<double> folded(size, placement_.stream, placement_.device_memory);
      launch_monte_carlo_fold(args.chunks.chunks, first_unit, units, sums, partials.data(), folded.data(),
                              placement_.stream);
      folded.copy_to_host(host_out, size);
    } else {
      partials.copy_to_host(host_out, size);
    }
  }

  void finish_exchanged(const MonteCarloArgs<T>& args, const std::vector<double>& host_sums,
                        std::int64_t per_option) const override {
    DeviceBuffer<double> partials = sums_buffer(args, per_option, placement_.stream);
    partials.copy_from_host(host_sums.data(), host_sums.size());
    finish(args, partials.data(), per_option, placement_.stream);
  }

 private:
  enum Event { kDone, kStart, kEvents };

  // One allocation a call, on `stream`: each option's `count` sums (chunk-major, what
  // the path kernels write), then the levels finish() folds them into.
  DeviceBuffer<double> sums_buffer(const MonteCarloArgs<T>& args, std::int64_t count, StreamHandle stream) const {
    const int sums = sum_count(args);
    const std::int64_t values = args.options * count * sums + monte_carlo_fold_values(args.options, count, sums);
    return DeviceBuffer<double>(static_cast<std::size_t>(values), stream, placement_.device_memory);
  }

  // Folds each option's `count` sums (the start of a sums_buffer) fan_in at a time,
  // level after level, each level after the one before it in that buffer, until one
  // warp can finish them; then writes the estimates.
  void finish(const MonteCarloArgs<T>& args, double* partials, std::int64_t count, StreamHandle stream) const {
    constexpr int kFanIn = MonteCarloCombinePolicy::fan_in;
    const int sums = sum_count(args);
    const double* level = partials;
    double* next = partials + args.options * count * sums;
    while (count > kFanIn) {
      const std::int64_t out_count = (count + kFanIn - 1) / kFanIn;
      launch_monte_carlo_fold(count, 0, args.options * out_count, sums, level, next, stream);
      level = next;
      next += args.options * out_count * sums;
      count = out_count;
    }
    launch_monte_carlo_finish(args, binding_.arch, level, count, stream);
  }

  using Queues = std::vector<std::unique_ptr<DeviceQueue>>;

  Placement placement_;    // resolved: the devices (home first), the setup stream, the resource
  DeviceBinding binding_;  // the home device
  std::unique_ptr<const BrownianBridge> bridge_;  // sobol_bridge: the unit bridge on the dates
  // Several devices: one queue per entry of the list (its start event, on the home
  // entry, orders the others after the caller's stream; its stream frees the entry's
  // batch copies, so batches share the queues) and each entry's architecture.
  // The mutex keeps the record/wait pairs of concurrent calls from interleaving.
  std::shared_ptr<const Queues> queues_;
  std::vector<int> arches_;
  mutable std::mutex enqueue_;
};

}  // namespace

template <class T>
std::unique_ptr<MonteCarloBackend<T>> make_monte_carlo_cuda(const MonteCarloSettings& settings, int dates,
                                                            const Placement& placement) {
  return std::make_unique<MonteCarloCuda<T>>(settings, dates, placement);
}

#define CUNUM_INSTANTIATE_MONTE_CARLO_CUDA_BACKEND(T) \
  template std::unique_ptr<MonteCarloBackend<T>> make_monte_carlo_cuda(const MonteCarloSettings&, int, \
                                                                      const Placement&);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MONTE_CARLO_CUDA_BACKEND, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
