#pragma once
// Internal: a plan's Placement, resolved once at construction. Every plan
// constructor calls resolve_placement() before it allocates anything, so that the
// backend, the devices and the memory resources are chosen by one rule everywhere.

#include "cunum/core/placement.hpp"

namespace cunum::detail {

// How many devices a plan can spread its work over.
enum class DeviceCount { one, several };

// Resolves `requested` for the routine in progress (RoutineScope): backend cpu or
// cuda; for CUDA, devices = {current device} when empty, device_memory =
// current_device_resource() and pinned_memory = pinned_memory_resource() when null.
// For the CPU backend, stream and resources are cleared.
// @throws Error ErrorCode::invalid_argument naming 'placement.backend' (not a listed
//         Backend) or 'placement.devices' (given for the CPU backend, an ordinal that
//         is not a device here, or more than one for a plan of DeviceCount::one);
//         ErrorCode::no_device for CUDA (asked for, or implied by devices) without a device;
//         ErrorCode::not_supported for CUDA when `stream` is being captured into a CUDA
//         graph (the plan's setup would belong to the graph).
Placement resolve_placement(const Placement& requested, DeviceCount count, const char* routine);

// While a CUDA plan is made: its placement's first device is current, and the
// caller's current device is restored afterwards. Does nothing for the CPU backend.
class PlacementDeviceScope {
 public:
  explicit PlacementDeviceScope(const Placement& resolved);
  ~PlacementDeviceScope();
  PlacementDeviceScope(const PlacementDeviceScope&) = delete;
  PlacementDeviceScope& operator=(const PlacementDeviceScope&) = delete;

 private:
  int caller_device_ = -1;
};

}  // namespace cunum::detail
