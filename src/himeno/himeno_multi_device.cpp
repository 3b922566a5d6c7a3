// HimenoProblem on several devices of this process (placement.devices): slabs of
// i-planes, two DeviceQueues each (the edge planes and the interior), swept by the one
// sweep sequence (himeno_sequence.hpp) with ghost planes as deep as a pass has sweeps,
// refreshed by device-to-device copies once the neighbours' edge planes are swept,
// while the interiors sweep (PeerCopyHalo).

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "cunum/core/device_buffer.hpp"
#include "cunum/himeno.hpp"
#include "src/core/check.hpp"
#include "src/core/device_queue.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/routine.hpp"
#include "src/himeno/himeno_backends.hpp"
#include "src/himeno/himeno_sequence.hpp"
#include "src/himeno/himeno_setup.hpp"

namespace cunum::detail {
namespace {

// The events of a slab's edge queue: after its edge planes' sweep; after its ghost
// copies; once it has waited for its neighbours' copies and its interior; and, on the
// first slab's (the home device's), the caller's stream, which every queue waits for.
enum QueueEvent { kSwept, kExchanged, kPassDone, kCallerWork, kQueueEvents };

// One slab on its device. Its memory is freed on its edge queue's stream, with its
// device current (the caller's restored afterwards), also when construction fails
// half-way; every pass ends with the interior queue's work joined to the edge queue.
template <class T>
struct DeviceSlab {
  HimenoSlab cut;
  std::unique_ptr<DeviceQueue> queue;     // the edge planes' (setup, copies); before the sweeper,
  std::unique_ptr<DeviceQueue> interior;  // so both are destroyed after it
  std::unique_ptr<HimenoBackend<T>> sweeper;

  DeviceSlab(const HimenoSlab& slab, int device)
      : cut(slab),
        queue(std::make_unique<DeviceQueue>(device, kQueueEvents)),
        interior(std::make_unique<DeviceQueue>(device, 1)) {}
  DeviceSlab(DeviceSlab&&) noexcept = default;
  DeviceSlab& operator=(DeviceSlab&&) = delete;
  DeviceSlab(const DeviceSlab&) = delete;
  DeviceSlab& operator=(const DeviceSlab&) = delete;
  ~DeviceSlab() {
    if (sweeper == nullptr) return;
    int caller = 0;
    const bool known = cudaGetDevice(&caller) == cudaSuccess;
    cudaSetDevice(queue->device());
    sweeper.reset();
    if (known) cudaSetDevice(caller);
  }
};

// The slabs' halos, `depth` planes deep, refreshed by device-to-device copies: each
// slab copies its neighbours' edge planes into its ghost planes, on its edge queue once
// the neighbours' edge planes are swept (their interiors may still be sweeping); the
// next pass, which reads what both of its queues wrote and writes the arrays the
// neighbours just read, waits for its interior and for their copies.
template <class T>
class PeerCopyHalo {
 public:
  PeerCopyHalo(const std::vector<DeviceSlab<T>>& slabs, const HimenoGrid& grid, int depth)
      : slabs_(slabs), grid_(grid), depth_(depth) {}

  void enter(std::size_t s) { CUNUM_CHECK(cudaSetDevice(slabs_[s].queue->device())); }
  void swept(std::size_t s) {
    CUNUM_CHECK(cudaEventRecord(slabs_[s].queue->event(kSwept), slabs_[s].queue->stream()));
  }

  void exchange() {
    const std::size_t count = slabs_.size();
    const std::size_t halo_bytes = static_cast<std::size_t>(depth_ * grid_.ny * grid_.nz) * sizeof(T);
    for (std::size_t s = 0; s < count; ++s) {
      const DeviceQueue& queue = *slabs_[s].queue;
      CUNUM_CHECK(cudaSetDevice(queue.device()));
      const auto copy_from = [&](std::size_t neighbour, std::int64_t their_plane, std::int64_t my_plane) {
        const DeviceQueue& theirs = *slabs_[neighbour].queue;
        CUNUM_CHECK(cudaStreamWaitEvent(queue.stream(), theirs.event(kSwept), 0));
        CUNUM_CHECK(cudaMemcpyPeerAsync(slabs_[s].sweeper->pressure_plane(true, my_plane), queue.device(),
                                        slabs_[neighbour].sweeper->pressure_plane(true, their_plane),
                                        theirs.device(), halo_bytes, queue.stream()));
      };
      const HimenoSlab& mine = slabs_[s].cut;
      if (s > 0) copy_from(s - 1, slabs_[s - 1].cut.end() - depth_, mine.begin() - depth_);
      if (s + 1 < count) copy_from(s + 1, slabs_[s + 1].cut.begin(), mine.end());
      CUNUM_CHECK(cudaEventRecord(queue.event(kExchanged), queue.stream()));
    }
    for (std::size_t s = 0; s < count; ++s) {
      const DeviceQueue& queue = *slabs_[s].queue;
      const DeviceQueue& interior = *slabs_[s].interior;
      CUNUM_CHECK(cudaSetDevice(queue.device()));
      if (s > 0) CUNUM_CHECK(cudaStreamWaitEvent(queue.stream(), slabs_[s - 1].queue->event(kExchanged), 0));
      if (s + 1 < count) CUNUM_CHECK(cudaStreamWaitEvent(queue.stream(), slabs_[s + 1].queue->event(kExchanged), 0));
      CUNUM_CHECK(cudaEventRecord(interior.event(0), interior.stream()));
      CUNUM_CHECK(cudaStreamWaitEvent(queue.stream(), interior.event(0), 0));
      CUNUM_CHECK(cudaEventRecord(queue.event(kPassDone), queue.stream()));
      CUNUM_CHECK(cudaStreamWaitEvent(interior.stream(), queue.event(kPassDone), 0));
    }
  }

  double total(double gosa) const noexcept { return gosa; }

 private:
  const std::vector<DeviceSlab<T>>& slabs_;
  const HimenoGrid& grid_;
  std::int64_t depth_;
};

template <class T>
class MultiDeviceGrid final : public HimenoGridBackend<T> {
 public:
  // Made with the first device current; leaves it current.
  MultiDeviceGrid(const HimenoGrid& grid, const HimenoFields<T>* fields, const HimenoOptions& options,
                    const Placement& placement)
      : grid_(grid) {
    const CurrentDeviceGuard home_device;
    const std::vector<int>& devices = placement.devices;
    const int count = static_cast<int>(devices.size());
    sweeps_per_pass_ = himeno_slab_sweeps_per_pass<T>(options, grid, count, Backend::cuda, RoutineScope::current());
    std::vector<HimenoSlab> cuts;
    for (int s = 0; s < count; ++s) cuts.push_back(himeno_slab(grid, s, count, sweeps_per_pass_));
    require_memory_per_device(cuts, devices);
    for (int s = 1; s < count; ++s) {
      enable_peer_access(devices[static_cast<std::size_t>(s)], devices[static_cast<std::size_t>(s) - 1]);
      enable_peer_access(devices[static_cast<std::size_t>(s) - 1], devices[static_cast<std::size_t>(s)]);
    }
    slabs_.reserve(cuts.size());
    for (int s = 0; s < count; ++s) slabs_.emplace_back(cuts[static_cast<std::size_t>(s)], devices[static_cast<std::size_t>(s)]);
    after_callers_work(placement.stream);
    for (DeviceSlab<T>& slab : slabs_) {
      CUNUM_CHECK(cudaSetDevice(slab.queue->device()));
      slab.sweeper = make_himeno_backend<T>(placement, slab.cut.box,
                                            {fields, slab.cut.box.first_plane * grid.ny * grid.nz}, options.omega,
                                            slab.queue->stream());
    }
  }

  double iterate(std::int64_t sweeps, StreamHandle stream) override {
    const CurrentDeviceGuard caller_device;
    after_callers_work(stream);
    std::vector<HimenoSlabWork<T>> work;
    for (DeviceSlab<T>& slab : slabs_) {
      work.push_back(
          {slab.sweeper.get(), slab.cut.begin(), slab.cut.end(), slab.queue->stream(), slab.interior->stream()});
    }
    PeerCopyHalo<T> halo(slabs_, grid_, sweeps_per_pass_);
    return himeno_iterate(work.data(), work.size(), sweeps_per_pass_, sweeps, halo);
  }

  // Each slab's updated planes, and the grid's boundary plane on the ends.
  void copy_pressure(T* host, StreamHandle stream) override {
    const CurrentDeviceGuard caller_device;
    after_callers_work(stream);
    const std::int64_t plane_points = grid_.ny * grid_.nz;
    for (std::size_t s = 0; s < slabs_.size(); ++s) {
      const HimenoSlab& cut = slabs_[s].cut;
      const HimenoBox& box = cut.box;
      const std::int64_t from = s == 0 ? 0 : cut.begin();
      const std::int64_t to = s + 1 == slabs_.size() ? box.planes : cut.end();
      CUNUM_CHECK(cudaSetDevice(slabs_[s].queue->device()));
      memory::copy_device_to_host(host + (box.first_plane + from) * plane_points,
                                  slabs_[s].sweeper->pressure_plane(false, from),
                                  static_cast<std::size_t>((to - from) * plane_points) * sizeof(T),
                                  slabs_[s].queue->stream());
    }
  }

  int sweeps_per_pass() const noexcept override { return sweeps_per_pass_; }

 private:
  // Each device holds the fields of its slabs (several where it is listed more than once).
  static void require_memory_per_device(const std::vector<HimenoSlab>& cuts, const std::vector<int>& devices) {
    std::vector<bool> checked(devices.size(), false);
    for (std::size_t s = 0; s < devices.size(); ++s) {
      if (checked[s]) continue;
      std::vector<HimenoBox> boxes;
      for (std::size_t other = s; other < devices.size(); ++other) {
        if (devices[other] != devices[s]) continue;
        boxes.push_back(cuts[other].box);
        checked[other] = true;
      }
      CUNUM_CHECK(cudaSetDevice(devices[s]));
      require_himeno_field_memory(boxes.data(), boxes.size(), sizeof(T), Backend::cuda, RoutineScope::current());
    }
  }

  // Every slab's queue waits for the work enqueued on `stream`, a stream of the first
  // device (the home device), so far. Leaves the home device current.
  void after_callers_work(StreamHandle stream) {
    const DeviceQueue& home = *slabs_.front().queue;
    CUNUM_CHECK(cudaSetDevice(home.device()));
    CUNUM_CHECK(cudaEventRecord(home.event(kCallerWork), stream));
    for (const DeviceSlab<T>& slab : slabs_) {
      CUNUM_CHECK(cudaStreamWaitEvent(slab.queue->stream(), home.event(kCallerWork), 0));
      CUNUM_CHECK(cudaStreamWaitEvent(slab.interior->stream(), home.event(kCallerWork), 0));
    }
  }

  HimenoGrid grid_;
  int sweeps_per_pass_ = 1;  // also the halos' depth
  std::vector<DeviceSlab<T>> slabs_;
};

}  // namespace

template <class T>
std::unique_ptr<HimenoGridBackend<T>> make_himeno_multi_device(const HimenoGrid& grid, const HimenoFields<T>* fields,
                                                               const HimenoOptions& options,
                                                               const Placement& placement) {
  return std::make_unique<MultiDeviceGrid<T>>(grid, fields, options, placement);
}

#define CUNUM_INSTANTIATE_MAKE_HIMENO_MULTI_DEVICE(T)                                                   \
  template std::unique_ptr<HimenoGridBackend<T>> make_himeno_multi_device(const HimenoGrid&,            \
                                                                          const HimenoFields<T>*,       \
                                                                          const HimenoOptions&, const Placement&);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MAKE_HIMENO_MULTI_DEVICE, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
