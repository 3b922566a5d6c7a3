#include "src/core/validate.hpp"

#include <cuda_runtime.h>

#include "cunum/core/device.hpp"

namespace cunum::detail {

void require_accessible(const void* pointer, Backend backend, const char* routine, const char* argument) {
  if (device_count() == 0) return;  // no driver or device: all memory is host memory
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    cudaGetLastError();
    attributes.type = cudaMemoryTypeUnregistered;
  }
  if (backend == Backend::cpu) {
    if (attributes.type == cudaMemoryTypeDevice) {
      throw_invalid_argument(routine, argument,
                             "is memory of CUDA device " + std::to_string(attributes.device) +
                                 "; the cpu backend needs host or managed memory");
    }
    return;
  }
  switch (attributes.type) {
    case cudaMemoryTypeDevice:
    case cudaMemoryTypeManaged: return;
    case cudaMemoryTypeHost:
      require(attributes.devicePointer != nullptr, routine, argument,
              "is page-locked host memory that is not mapped into the device's address space; the cuda "
              "backend needs device, managed or mapped page-locked memory");
      return;
    case cudaMemoryTypeUnregistered:
      require(device_properties().pageable_memory_access, routine, argument,
              "is pageable host memory, which this CUDA device cannot access; pass device, managed or "
              "page-locked memory, or use Backend::cpu");
      return;
  }
}

}  // namespace cunum::detail
