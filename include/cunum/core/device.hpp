#pragma once
/// @file
/// Device discovery and properties, without exposing CUDA headers.

#include <cstddef>
#include <string>

namespace cunum {

/// What cunum reads off a CUDA device (cudaGetDeviceProperties and attributes).
struct DeviceProperties {
  int ordinal = 0;                                  ///< the CUDA device ordinal
  std::string name;                                 ///< e.g. "NVIDIA H100 80GB HBM3"
  int compute_capability_major = 0;                 ///< 9 on Hopper
  int compute_capability_minor = 0;
  int multiprocessor_count = 0;                     ///< SMs
  int max_threads_per_multiprocessor = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t l2_cache_bytes = 0;
  std::size_t shared_memory_per_block_optin_bytes = 0;  ///< largest dynamic shared memory a block may opt into
  bool pageable_memory_access = false;              ///< the device reads pageable host memory (HMM/ATS)
};

/// Number of usable CUDA devices; 0 (never an exception) when there is no driver or device.
int device_count() noexcept;
/// Whether device_count() > 0.
bool cuda_available() noexcept;

/// The CUDA device current on this thread (cudaGetDevice).
/// @throws Error ErrorCode::no_device without a device.
int current_device();

/// Properties of `ordinal`, or of the current device when ordinal < 0. Read once
/// per device and cached; thread-safe.
/// @throws Error ErrorCode::no_device without a device; ErrorCode::invalid_argument
///         for an ordinal >= device_count().
const DeviceProperties& device_properties(int ordinal = -1);

}  // namespace cunum
