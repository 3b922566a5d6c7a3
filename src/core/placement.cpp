#include "src/core/placement.hpp"

#include <string>

#include "cunum/core/device.hpp"
#include "cunum/core/error.hpp"
#include "src/core/check.hpp"
#include "src/core/graph_capture.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"

namespace cunum::detail {

Placement resolve_placement(const Placement& requested, DeviceCount count, const char* routine) {
  require_enum(requested.backend, routine, "placement.backend", "Backend");
  Placement resolved = requested;
  const bool wants_cuda = requested.backend == Backend::cuda ||
                          (requested.backend == Backend::automatic && !requested.devices.empty());
  if (requested.backend == Backend::cpu || (!wants_cuda && !cuda_available())) {
    require(requested.devices.empty(), routine, "placement.devices",
            "lists devices, but the CPU backend runs on the host: leave it empty");
    resolved.backend = Backend::cpu;
    resolved.stream = nullptr;
    resolved.device_memory = nullptr;
    resolved.pinned_memory = nullptr;
    return resolved;
  }
  const int devices_here = device_count();
  if (devices_here == 0) {
    throw Error(ErrorCode::no_device, std::string(routine) +
                                          (requested.backend == Backend::cuda
                                               ? ": backend 'cuda' was requested but there is no CUDA device"
                                               : ": 'placement.devices' lists devices but there is no CUDA device"));
  }
  resolved.backend = Backend::cuda;
  if (count == DeviceCount::one) {
    require(requested.devices.size() <= 1, routine, "placement.devices", [&] {
      return "lists " + std::to_string(requested.devices.size()) + " devices, but this plan runs on one";
    });
  }
  for (const int ordinal : requested.devices) {
    require(ordinal >= 0 && ordinal < devices_here, routine, "placement.devices", [&] {
      return "lists device " + std::to_string(ordinal) + ", not a device here (devices 0 to " +
             std::to_string(devices_here - 1) + ")";
    });
  }
  {
    const RoutineScope naming(routine);
    refuse_capture(resolved.stream, "a plan is made outside captures: its setup on placement.stream, and the memory "
                                    "it keeps, would belong to the graph");
  }
  if (resolved.devices.empty()) resolved.devices.push_back(current_device());
  if (resolved.device_memory == nullptr) resolved.device_memory = current_device_resource();
  if (resolved.pinned_memory == nullptr) resolved.pinned_memory = pinned_memory_resource();
  return resolved;
}

PlacementDeviceScope::PlacementDeviceScope(const Placement& resolved) {
  if (resolved.backend != Backend::cuda) return;
  CUNUM_CHECK(cudaGetDevice(&caller_device_));
  if (resolved.devices.front() != caller_device_) CUNUM_CHECK(cudaSetDevice(resolved.devices.front()));
}

PlacementDeviceScope::~PlacementDeviceScope() {
  if (caller_device_ >= 0) cudaSetDevice(caller_device_);
}

}  // namespace cunum::detail
