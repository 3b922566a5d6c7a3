#include "cunum/core/device.hpp"

#include <map>
#include <mutex>

#include "src/core/cuda_check.hpp"
#include "cunum/core/backend.hpp"

namespace cunum {

int device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

bool cuda_available() noexcept { return device_count() > 0; }

const DeviceProperties& device_properties(int ordinal) {
  if (!cuda_available()) throw Error(ErrorCode::no_device, "device_properties: no CUDA device");
  if (ordinal < 0) CUNUM_CUDA_CHECK(cudaGetDevice(&ordinal));
  static std::mutex mutex;
  static std::map<int, DeviceProperties> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = cache.find(ordinal);
  if (found != cache.end()) return found->second;

  cudaDeviceProp prop{};
  CUNUM_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  DeviceProperties props;
  props.ordinal = ordinal;
  props.name = prop.name;
  props.compute_capability_major = prop.major;
  props.compute_capability_minor = prop.minor;
  props.multiprocessor_count = prop.multiProcessorCount;
  props.max_threads_per_multiprocessor = prop.maxThreadsPerMultiProcessor;
  props.global_memory_bytes = prop.totalGlobalMem;
  props.l2_cache_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  props.shared_memory_per_block_optin_bytes = prop.sharedMemPerBlockOptin;
  return cache.emplace(ordinal, props).first->second;
}

const char* to_string(Backend backend) noexcept {
  switch (backend) {
    case Backend::automatic: return "automatic";
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
  }
  return "unknown";
}

Backend resolve_backend(Backend requested) {
  if (requested == Backend::cpu) return Backend::cpu;
  if (cuda_available()) return Backend::cuda;
  if (requested == Backend::cuda) {
    throw Error(ErrorCode::no_device, "backend 'cuda' was requested but no CUDA device is available");
  }
  return Backend::cpu;
}

}  // namespace cunum
