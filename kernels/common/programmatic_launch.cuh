#pragma once
// Internal: programmatic dependent launch (sm_90+). A kernel launched this way may be
// scheduled while the previous kernel in its stream is still finishing; it must call
// wait_for_prerequisite_grids() before it touches memory, which returns once those
// grids have completed and their writes are visible. Back-to-back launches (a loop of
// small reductions, a CUDA graph) then overlap one kernel's launch with the other's tail.
// On older devices the launch attribute is ignored and the device calls compile to nothing.

#include <cuda_runtime.h>

#include "src/core/cuda_check.hpp"

namespace cunum::detail {

__device__ __forceinline__ void wait_for_prerequisite_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets a dependent grid start launching once every block of this grid has called it or
// exited. Safe at any point: the dependent still waits for this grid's completion.
__device__ __forceinline__ void allow_dependent_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Launches kernel<<<grid, block, 0, stream>>>(args...) with programmatic stream
// serialization allowed, and checks the launch.
template <class... KernelArgs, class... Args>
void launch_programmatic(void (*kernel)(KernelArgs...), dim3 grid, dim3 block, cudaStream_t stream,
                         const char* kernel_name, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  check_cuda(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...), kernel_name, __FILE__, __LINE__);
}

}  // namespace cunum::detail
