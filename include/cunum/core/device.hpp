#pragma once
// Device discovery and properties, without exposing CUDA headers.

#include <cstddef>
#include <string>

namespace cunum {

struct DeviceProperties {
  int ordinal = 0;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessor_count = 0;
  int max_threads_per_multiprocessor = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t l2_cache_bytes = 0;
  std::size_t shared_memory_per_block_optin_bytes = 0;
};

// Number of usable CUDA devices; 0 (never an exception) when there is no driver or device.
int device_count() noexcept;
bool cuda_available() noexcept;

// Properties of `ordinal`, or of the current device when ordinal < 0. Cached per device.
const DeviceProperties& device_properties(int ordinal = -1);

}  // namespace cunum
