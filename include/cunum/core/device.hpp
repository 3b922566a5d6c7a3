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
  int compute_capability_minor = 0;                 ///< 0 on the H100
  int multiprocessor_count = 0;                     ///< SMs
  int max_threads_per_multiprocessor = 0;           ///< resident threads an SM can hold
  std::size_t global_memory_bytes = 0;              ///< total device memory
  std::size_t l2_cache_bytes = 0;                   ///< L2 cache size
  std::size_t shared_memory_per_block_optin_bytes = 0;  ///< largest dynamic shared memory a block may opt into
  bool pageable_memory_access = false;              ///< the device reads pageable host memory (HMM/ATS), so
                                                    ///< Backend::cuda accepts plain host pointers
};

/// Number of usable CUDA devices, read once per process (the CUDA runtime fixes them
/// when it starts). Thread-safe.
/// @return the count; 0 (never an exception) when there is no driver or device
int device_count() noexcept;

/// Whether a CUDA device can be used. Thread-safe.
/// @return device_count() > 0
bool cuda_available() noexcept;

/// The CUDA device current on the calling thread (cudaGetDevice). A plan made for
/// Backend::cuda (Reducer, say) is bound to this device.
/// @return the device ordinal
/// @throws Error ErrorCode::no_device without a device.
int current_device();

/// Properties of a device, read once per device and cached for the life of the
/// process. Thread-safe; synchronises nothing.
/// @param ordinal the device; < 0 (the default) for the current device
/// @return a reference valid for the life of the process
/// @throws Error ErrorCode::no_device without a device; ErrorCode::invalid_argument,
///         naming 'ordinal', for an ordinal >= device_count().
const DeviceProperties& device_properties(int ordinal = -1);

}  // namespace cunum
