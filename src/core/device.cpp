#include "cunum/core/device.hpp"

#include <map>
#include <mutex>

#include "cunum/core/backend.hpp"
#include "src/core/check.hpp"
#include "src/core/enum_functions.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"

namespace cunum {

CUNUM_DEFINE_ENUM_FUNCTIONS(Backend, CUNUM_BACKENDS)

// Read once: the CUDA runtime fixes the process's devices when it starts, and the
// API boundary asks on every call (pointer checks).
int device_count() noexcept {
  static const int count = [] {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return devices;
  }();
  return count;
}

bool cuda_available() noexcept { return device_count() > 0; }

int current_device() {
  if (!cuda_available()) throw Error(ErrorCode::no_device, "cunum::current_device: no CUDA device");
  int ordinal = 0;
  CUNUM_CHECK(cudaGetDevice(&ordinal));
  return ordinal;
}

const DeviceProperties& device_properties(int ordinal) {
  constexpr const char* routine = "cunum::device_properties";
  const int count = device_count();
  if (count == 0) throw Error(ErrorCode::no_device, std::string(routine) + ": no CUDA device");
  if (ordinal < 0) ordinal = current_device();
  detail::require(ordinal < count, routine, "ordinal",
                  [&] { return "is not a device (" + std::to_string(count) + " present)"; });
  static std::mutex mutex;
  static std::map<int, DeviceProperties> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = cache.find(ordinal);
  if (found != cache.end()) return found->second;

  cudaDeviceProp prop{};
  CUNUM_CHECK(cudaGetDeviceProperties(&prop, ordinal));
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
  props.pageable_memory_access = prop.pageableMemoryAccess != 0;
  return cache.emplace(ordinal, props).first->second;
}

Backend resolve_backend(Backend requested) {
  detail::require_enum(requested, "cunum::resolve_backend", "backend", "Backend");
  if (requested == Backend::cpu) return Backend::cpu;
  if (cuda_available()) return Backend::cuda;
  if (requested == Backend::cuda) {
    // Named after the routine that asked for the device (Reducer, say), as every message is.
    const char* routine = detail::RoutineScope::current();
    throw Error(ErrorCode::no_device, std::string(routine != nullptr ? routine : "cunum::resolve_backend") +
                                          ": backend 'cuda' was requested but there is no CUDA device");
  }
  return Backend::cpu;
}

}  // namespace cunum
