// The CUDA Monte Carlo backend, host orchestration: the pricer's device binding and
// placement (every allocation from its resource), the workspaces a one-device call
// of the library's payoffs folds its chunk sums in within its one launch (one per
// stream, kept), the streams and events of a multi-device pricer (each device sums a
// contiguous share of the chunks on its own stream, and the sums are copied home
// before they are combined in the one fixed order), the quasi-random pricer's bridge
// batches, the folding levels of the chunk sums, and the MPI layer's share of a
// batch. Calls the launchers of kernels/monte_carlo/monte_carlo_launch.hpp.

#include <cuda_runtime.h>

#include <algorithm>
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

// The bytes of a fold space (MonteCarloFoldSpace): the arrival counters first, then
// the sums, each a whole number of 8-byte words.
struct FoldSpaceBytes {
  std::size_t arrivals = 0;
  std::size_t sums = 0;
};

// Those of a call's chunk sums and levels, and of its fold's counters if it folds in
// its path launch (`counted`).
template <class T>
FoldSpaceBytes fold_space_bytes(const MonteCarloArgs<T>& args, bool counted) {
  const int sums = sum_count(args);
  const std::int64_t count = args.chunks.chunks;
  const std::int64_t values = args.options * count * sums + monte_carlo_fold_values(args.options, count, sums);
  const std::int64_t arrivals = counted ? monte_carlo_fold_arrivals(args.options, count) : 0;
  return {static_cast<std::size_t>((arrivals + 1) / 2) * sizeof(double),
          static_cast<std::size_t>(values) * sizeof(double)};
}

// The fold space laid over `bytes` of memory at `memory`.
MonteCarloFoldSpace fold_space_at(void* memory, const FoldSpaceBytes& bytes) {
  return {reinterpret_cast<double*>(static_cast<unsigned char*>(memory) + bytes.arrivals),
          static_cast<unsigned int*>(memory)};
}

// The fold spaces a one-device pricer keeps: one workspace per stream it is called on,
// known by the stream's unique id (a stream destroyed and another made at its address
// get different ones). A workspace is allocated from the placement's resource on its
// stream when that stream's first call needs it, and again (the old one freed on the
// stream, after its earlier calls) only when a call needs more of either part, each
// part as large as any call on the stream has needed; its counters are zeroed there,
// once, and every launch leaves them 0 (calls that fold in kernels of their own do
// not touch them). The counters come first, so that whatever the calls' sizes each
// finds its own at 0. Each call on a stream other than the placement's records the
// workspace's event after its launch, so that the pricer, when it goes, frees every
// workspace on the placement's stream after the last call that used it, whether or
// not that call's stream still exists (a stream's id and handle say nothing then);
// the placement's own stream's workspace needs no event, being freed on that stream.
// At most kMaxStreams workspaces. Not thread-safe: the backend serialises its calls'
// enqueueing.
class FoldWorkspaces {
 public:
  static constexpr std::size_t kMaxStreams = 16;

  explicit FoldWorkspaces(const Placement& placement)
      : resource_(placement.device_memory), release_stream_(placement.stream) {}
  ~FoldWorkspaces() {
    for (Workspace& workspace : workspaces_) {
      if (workspace.last_use != nullptr) {
        cudaStreamWaitEvent(static_cast<cudaStream_t>(release_stream_), workspace.last_use, 0);
        cudaEventDestroy(workspace.last_use);
      }
      release(workspace, release_stream_);
    }
  }
  FoldWorkspaces(const FoldWorkspaces&) = delete;
  FoldWorkspaces& operator=(const FoldWorkspaces&) = delete;

  // The fold space of `stream` (which must not be capturing) with room for `bytes`,
  // and the event to record on the stream once the call's work is enqueued (null on
  // the placement's stream: none to record); an empty space (null) when kMaxStreams
  // other streams have workspaces.
  MonteCarloFoldSpace reserve(StreamHandle stream, const FoldSpaceBytes& bytes, cudaEvent_t* last_use) {
    unsigned long long id = 0;
    CUNUM_CHECK(cudaStreamGetId(static_cast<cudaStream_t>(stream), &id));
    auto found = std::find_if(workspaces_.begin(), workspaces_.end(),
                              [id](const Workspace& workspace) { return workspace.stream_id == id; });
    if (found == workspaces_.end()) {
      if (workspaces_.size() == kMaxStreams) return {};
      Workspace added;
      added.stream_id = id;
      unsigned long long release_id = 0;
      CUNUM_CHECK(cudaStreamGetId(static_cast<cudaStream_t>(release_stream_), &release_id));
      if (id != release_id) CUNUM_CHECK(cudaEventCreateWithFlags(&added.last_use, cudaEventDisableTiming));
      found = workspaces_.insert(workspaces_.end(), added);
    }
    Workspace& workspace = *found;
    *last_use = workspace.last_use;
    if (workspace.bytes.arrivals < bytes.arrivals || workspace.bytes.sums < bytes.sums) {
      const FoldSpaceBytes grown{std::max(workspace.bytes.arrivals, bytes.arrivals),
                                 std::max(workspace.bytes.sums, bytes.sums)};
      release(workspace, stream);
      void* memory = allocate_device_buffer(resource_, grown.arrivals + grown.sums, stream, &workspace.device);
      try {
        memory::fill_bytes_async(memory, 0, grown.arrivals, stream);
      } catch (...) {
        release_device_buffer(resource_, memory, grown.arrivals + grown.sums, stream, workspace.device);
        throw;
      }
      workspace.memory = memory;
      workspace.bytes = grown;
    }
    return fold_space_at(workspace.memory, workspace.bytes);
  }

 private:
  struct Workspace {
    unsigned long long stream_id = 0;
    cudaEvent_t last_use = nullptr;  // recorded after each call's launch on the stream; null on release_stream_
    void* memory = nullptr;
    FoldSpaceBytes bytes;  // of each part; zero while there is no memory
    int device = -1;
  };

  void release(Workspace& workspace, StreamHandle stream) {
    if (workspace.memory == nullptr) return;
    release_device_buffer(resource_, workspace.memory, workspace.bytes.arrivals + workspace.bytes.sums, stream,
                          workspace.device);
    workspace.memory = nullptr;
    workspace.bytes = {};
  }

  DeviceMemoryResource* resource_;
  StreamHandle release_stream_;
  std::vector<Workspace> workspaces_;
};

template <class T>
class MonteCarloCuda final : public MonteCarloBackend<T> {
 public:
  // Binds the current device, the placement's first; with several devices, one
  // queue per entry of the list, with peer access to home where the pair allows it.
  // Leaves the caller's current device as it was.
  MonteCarloCuda(const MonteCarloSettings& settings, int dates, const Placement& placement)
      : placement_(placement), binding_(DeviceBinding::current()), workspaces_(placement) {
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
    if (!queues_) return price_one_device(args, stream);
    // The pricer's queues would join the capture and stay in it until it ends, so
    // a concurrent call's work on them would land in the caller's graph.
    refuse_capture(stream, "a pricer on several devices runs its shares on streams of its own");
    const std::int64_t chunks = args.options * args.chunks.chunks;
    const auto slice = [&](std::int64_t chunk) { return static_cast<std::size_t>(chunk * sum_count(args)); };
    DeviceBuffer<double> partials = sums_buffer(args, args.chunks.chunks, stream);
    {
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
      launch_monte_carlo_fold(binding_.arch, args.chunks.chunks, first_unit, units, sums, partials.data(),
                              folded.data(),
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

  // One device: the call's chunk sums and their levels (and the fold's counters, for
  // a call in one launch: monte_carlo_folds_in_path_launch) in the workspace the
  // pricer keeps for the stream. A call being captured into a CUDA graph (whose
  // replays could meet the stream's direct calls or other graphs on one workspace)
  // or past the workspaces kept takes memory of its own, allocated and freed on the
  // stream, and zeroes nothing there (in a graph, a memset node at every replay): it
  // folds in its path launch only if each option is one chunk, which touches no
  // counter, and runs the launch chain otherwise.
  void price_one_device(const MonteCarloArgs<T>& args, StreamHandle stream) const {
    const bool one_launch = monte_carlo_folds_in_path_launch(args.options, args.shape.paths);
    if (!is_capturing(stream)) {
      const std::lock_guard<std::mutex> lock(enqueue_);
      cudaEvent_t last_use = nullptr;
      const MonteCarloFoldSpace space = workspaces_.reserve(stream, fold_space_bytes(args, one_launch), &last_use);
      if (space.sums != nullptr) {
        one_launch ? launch_monte_carlo_fused(args, binding_.arch, space, stream)
                   : launch_chain(args, space.sums, stream);
        if (last_use != nullptr) CUNUM_CHECK(cudaEventRecord(last_use, static_cast<cudaStream_t>(stream)));
        return;
      }
    }
    const bool counterless = one_launch && args.chunks.chunks == 1;
    const FoldSpaceBytes bytes = fold_space_bytes(args, counterless);
    DeviceBuffer<double> own((bytes.arrivals + bytes.sums) / sizeof(double), stream, placement_.device_memory);
    const MonteCarloFoldSpace space = fold_space_at(own.data(), bytes);
    counterless ? launch_monte_carlo_fused(args, binding_.arch, space, stream) : launch_chain(args, space.sums, stream);
  }

  // The launch chain of a one-device call: the path kernel into `sums` (a
  // sums_buffer's layout), a folding kernel a level and the finishing kernel.
  void launch_chain(const MonteCarloArgs<T>& args, double* sums, StreamHandle stream) const {
    launch_monte_carlo_paths(args, binding_.arch, 0, args.options * args.chunks.chunks, sums, stream);
    finish(args, sums, args.chunks.chunks, stream);
  }

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
      launch_monte_carlo_fold(binding_.arch, count, 0, args.options * out_count, sums, level, next, stream);
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
  // The mutex keeps the record/wait pairs of concurrent calls from interleaving, and
  // a one-device call's workspace from changing between its look-up and its launch.
  std::shared_ptr<const Queues> queues_;
  std::vector<int> arches_;
  mutable std::mutex enqueue_;
  mutable FoldWorkspaces workspaces_;  // one device: each stream's fold space
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
