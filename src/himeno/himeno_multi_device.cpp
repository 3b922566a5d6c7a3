// HimenoMultiDevice: slabs of i-planes on several GPUs of this process, swept by the
// one sweep sequence (himeno_sequence.hpp) with ghost planes refreshed by
// device-to-device copies after every sweep (PeerCopyHalo).

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "cunum/core/device.hpp"
#include "cunum/core/error.hpp"
#include "cunum/himeno.hpp"
#include "src/core/check.hpp"
#include "src/core/device_queue.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"
#include "src/himeno/himeno_backends.hpp"
#include "src/himeno/himeno_sequence.hpp"
#include "src/himeno/himeno_setup.hpp"

namespace cunum {
namespace {

constexpr const char* kMultiRoutine = "cunum::HimenoMultiDevice";
constexpr const char* kMultiIterateRoutine = "cunum::HimenoMultiDevice::iterate";
constexpr const char* kClassName = "HimenoMultiDevice";

// The events of a slab's queue.
enum QueueEvent { kSwept, kExchanged, kQueueEvents };  // after its sweep; after its ghost copies

}  // namespace

template <class T>
struct HimenoMultiDevice<T>::Impl {
  HimenoGrid grid;
  std::vector<detail::HimenoSlab> slabs;
  // Queues before sweepers: the sweepers free their memory on the queues' streams.
  std::vector<std::unique_ptr<detail::DeviceQueue>> queues;
  std::vector<std::unique_ptr<detail::HimenoBackend<T>>> sweepers;
  int sweeps_per_pass = 1;

  // Each slab's memory is released with its own device current.
  ~Impl() {
    for (std::size_t s = 0; s < sweepers.size(); ++s) {
      cudaSetDevice(queues[s]->device());
      sweepers[s].reset();
    }
  }
  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  std::size_t count() const noexcept { return slabs.size(); }
};

namespace detail {
namespace {

// The slabs' halos, refreshed by device-to-device copies: after every slab's sweep each
// copies its neighbours' edge planes into its ghost planes, on its own queue once the
// neighbour's sweep is done; the next pass, which writes the arrays the neighbours just
// read, waits for their copies.
template <class T>
class PeerCopyHalo {
 public:
  PeerCopyHalo(const std::vector<HimenoSlab>& slabs, const std::vector<std::unique_ptr<DeviceQueue>>& queues,
               const std::vector<std::unique_ptr<HimenoBackend<T>>>& sweepers, const HimenoGrid& grid)
      : slabs_(slabs), queues_(queues), sweepers_(sweepers), grid_(grid) {}

  void enter(std::size_t s) { CUNUM_CHECK(cudaSetDevice(queues_[s]->device())); }
  void swept(std::size_t s) { CUNUM_CHECK(cudaEventRecord(queues_[s]->event(kSwept), queues_[s]->stream())); }

  void exchange() {
    const std::size_t count = slabs_.size();
    const std::size_t plane_bytes = static_cast<std::size_t>(grid_.ny * grid_.nz) * sizeof(T);
    for (std::size_t s = 0; s < count; ++s) {
      const cudaStream_t stream = queues_[s]->stream();
      CUNUM_CHECK(cudaSetDevice(queues_[s]->device()));
      const auto copy_from = [&](std::size_t neighbour, std::int64_t their_plane, std::int64_t my_plane) {
        CUNUM_CHECK(cudaStreamWaitEvent(stream, queues_[neighbour]->event(kSwept), 0));
        CUNUM_CHECK(cudaMemcpyPeerAsync(sweepers_[s]->pressure_plane(true, my_plane), queues_[s]->device(),
                                        sweepers_[neighbour]->pressure_plane(true, their_plane),
                                        queues_[neighbour]->device(), plane_bytes, stream));
      };
      if (s > 0) copy_from(s - 1, slabs_[s - 1].box.planes - 2, 0);
      if (s + 1 < count) copy_from(s + 1, 1, slabs_[s].box.planes - 1);
      CUNUM_CHECK(cudaEventRecord(queues_[s]->event(kExchanged), stream));
    }
    for (std::size_t s = 0; s < count; ++s) {
      CUNUM_CHECK(cudaSetDevice(queues_[s]->device()));
      if (s > 0) CUNUM_CHECK(cudaStreamWaitEvent(queues_[s]->stream(), queues_[s - 1]->event(kExchanged), 0));
      if (s + 1 < count) CUNUM_CHECK(cudaStreamWaitEvent(queues_[s]->stream(), queues_[s + 1]->event(kExchanged), 0));
    }
  }

  double total(double gosa) const noexcept { return gosa; }

 private:
  const std::vector<HimenoSlab>& slabs_;
  const std::vector<std::unique_ptr<DeviceQueue>>& queues_;
  const std::vector<std::unique_ptr<HimenoBackend<T>>>& sweepers_;
  const HimenoGrid& grid_;
};

}  // namespace
}  // namespace detail

template <class T>
HimenoMultiDevice<T>::HimenoMultiDevice(const HimenoGrid& grid, const std::vector<int>& devices,
                                        const HimenoOptions& options)
    : HimenoMultiDevice(grid, nullptr, devices, options) {}

template <class T>
HimenoMultiDevice<T>::HimenoMultiDevice(const HimenoGrid& grid, const HimenoFields<T>& fields,
                                        const std::vector<int>& devices, const HimenoOptions& options)
    : HimenoMultiDevice(grid, &fields, devices, options) {}

template <class T>
HimenoMultiDevice<T>::HimenoMultiDevice(const HimenoGrid& grid, const HimenoFields<T>* fields,
                                        const std::vector<int>& devices, const HimenoOptions& options) {
  const detail::RoutineScope scope(kMultiRoutine);
  detail::validate_himeno_grid(grid, sizeof(T), kMultiRoutine);
  detail::validate_himeno_options(options, kMultiRoutine);
  detail::require(!devices.empty(), kMultiRoutine, "devices", "must list at least one device");
  for (const int device : devices) {
    detail::require(device >= 0, kMultiRoutine, "devices",
                    [&] { return "lists device " + std::to_string(device) + ", not a device ordinal (>= 0)"; });
  }
  detail::require(static_cast<std::int64_t>(devices.size()) <= grid.nx - 2, kMultiRoutine, "devices",
                  [&] { return "lists " + std::to_string(devices.size()) + " devices, more than the grid's " +
                      std::to_string(grid.nx - 2) + " interior planes (nx - 2)"; });
  if (fields != nullptr) detail::validate_himeno_fields(*fields, grid.points(), kMultiRoutine);
  // Without a GPU no ordinal is a device here: the header's no_device, not an argument error.
  const int available = device_count();
  if (available == 0) {
    throw Error(ErrorCode::no_device, std::string(kMultiRoutine) + ": no CUDA device (HimenoMultiDevice runs on GPUs only)");
  }
  for (const int device : devices) {
    detail::require(device < available, kMultiRoutine, "devices",
                    [&] { return "lists device " + std::to_string(device) + ", not a device here (" + std::to_string(available) +
                        " found)"; });
  }
  resolve_backend(Backend::cuda);  // no_device without a GPU
  int caller_device = 0;
  CUNUM_CHECK(cudaGetDevice(&caller_device));
  auto self = std::make_unique<Impl>();
  self->grid = grid;
  const int slabs = static_cast<int>(devices.size());
  for (int s = 0; s < slabs; ++s) {
    self->slabs.push_back(detail::himeno_slab(grid, s, slabs));
    if (s > 0) {
      detail::enable_peer_access(devices[static_cast<std::size_t>(s)], devices[static_cast<std::size_t>(s) - 1]);
      detail::enable_peer_access(devices[static_cast<std::size_t>(s) - 1], devices[static_cast<std::size_t>(s)]);
    }
  }
  for (int s = 0; s < slabs; ++s) {
    self->queues.push_back(std::make_unique<detail::DeviceQueue>(devices[static_cast<std::size_t>(s)], kQueueEvents));
    const detail::HimenoSlab& slab = self->slabs[static_cast<std::size_t>(s)];
    self->sweepers.push_back(detail::make_himeno_backend<T>(Backend::cuda, slab.box,
                                                            {fields, slab.box.first_plane * grid.ny * grid.nz},
                                                            options.omega, self->queues.back()->stream()));
  }
  if (slabs == 1) self->sweeps_per_pass = detail::himeno_sweeps_per_pass(options, *self->sweepers.front());
  CUNUM_CHECK(cudaSetDevice(caller_device));
  impl_ = std::move(self);
}

template <class T>
HimenoMultiDevice<T>::~HimenoMultiDevice() = default;
template <class T>
HimenoMultiDevice<T>::HimenoMultiDevice(HimenoMultiDevice&&) noexcept = default;
template <class T>
HimenoMultiDevice<T>& HimenoMultiDevice<T>::operator=(HimenoMultiDevice&&) noexcept = default;

template <class T>
double HimenoMultiDevice<T>::iterate(std::int64_t sweeps) {
  const detail::RoutineScope scope(kMultiIterateRoutine);
  Impl& self = detail::require_plan(impl_, kMultiIterateRoutine, kClassName);
  detail::require_at_least(sweeps, 1, kMultiIterateRoutine, "sweeps");
  const detail::CurrentDeviceGuard caller_device;
  std::vector<detail::HimenoSlabWork<T>> work;
  for (std::size_t s = 0; s < self.count(); ++s) {
    work.push_back({self.sweepers[s].get(), self.slabs[s].box.planes, self.queues[s]->stream()});
  }
  detail::PeerCopyHalo<T> halo(self.slabs, self.queues, self.sweepers, self.grid);
  return detail::himeno_iterate(work.data(), work.size(), self.sweeps_per_pass, sweeps, halo);
}

template <class T>
std::vector<T> HimenoMultiDevice<T>::pressure() const {
  constexpr const char* routine = "cunum::HimenoMultiDevice::pressure";
  const detail::RoutineScope scope(routine);
  const Impl& self = detail::require_plan(impl_, routine, kClassName);
  const detail::CurrentDeviceGuard caller_device;
  const std::int64_t plane_points = self.grid.ny * self.grid.nz;
  std::vector<T> whole(static_cast<std::size_t>(self.grid.points()));
  for (std::size_t s = 0; s < self.count(); ++s) {
    const detail::HimenoBox& box = self.slabs[s].box;
    std::vector<T> slab(static_cast<std::size_t>(box.points()));
    CUNUM_CHECK(cudaSetDevice(self.queues[s]->device()));
    self.sweepers[s]->copy_pressure(slab.data(), self.queues[s]->stream());
    // Its updated planes, and the grid's boundary plane on the ends.
    const std::int64_t from = s == 0 ? 0 : 1;
    const std::int64_t to = s + 1 == self.count() ? box.planes : box.planes - 1;
    std::memcpy(whole.data() + (box.first_plane + from) * plane_points, slab.data() + from * plane_points,
                static_cast<std::size_t>((to - from) * plane_points) * sizeof(T));
  }
  return whole;
}

template <class T>
const HimenoGrid& HimenoMultiDevice<T>::grid() const {
  return detail::require_plan(impl_, "cunum::HimenoMultiDevice::grid", kClassName).grid;
}

#define CUNUM_INSTANTIATE_HIMENO_MULTI_DEVICE(T) template class HimenoMultiDevice<T>;
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_HIMENO_MULTI_DEVICE, CUNUM_REAL_TYPES)

}  // namespace cunum
