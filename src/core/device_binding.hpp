#pragma once
// Internal: a plan's device. A plan made for the CUDA backend reads what it needs of
// the device current at construction (its SM count, say) and keeps its device
// memory there, so a call made while another device is current would launch with
// the wrong grid on memory of the wrong device: require_current() refuses that
// call, naming both devices, instead.

#include <string>

#include "cunum/core/device.hpp"
#include "src/core/check.hpp"
#include "src/core/validate.hpp"

namespace cunum::detail {

// Compute capability x 100 (900 for sm_90), as tuning policy chains count it.
inline int architecture(const DeviceProperties& properties) {
  return properties.compute_capability_major * 100 + properties.compute_capability_minor * 10;
}

struct DeviceBinding {
  int device = -1;
  int multiprocessor_count = 0;
  int arch = 0;  // architecture() of the device

  // The current device's binding. @throws Error(no_device) without a device.
  static DeviceBinding current() {
    const int ordinal = current_device();
    const DeviceProperties& properties = device_properties(ordinal);
    return {ordinal, properties.multiprocessor_count, architecture(properties)};
  }

  void require_current(const char* routine) const {
    int ordinal = 0;
    CUNUM_CHECK(cudaGetDevice(&ordinal));
    if (ordinal != device) {
      throw_invalid_argument(routine, "this", "was made for CUDA device " + std::to_string(device) +
                                                  " but device " + std::to_string(ordinal) +
                                                  " is current; make the call with its device current");
    }
  }
};

}  // namespace cunum::detail
