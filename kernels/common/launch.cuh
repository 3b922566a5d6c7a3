#pragma once
// Internal: the one way cunum launches a kernel. launch_kernel() takes the launch
// configuration, optionally launches as a programmatic dependent (sm_90+), raises
// the dynamic shared-memory limit when a block needs more than the default, checks
// the launch naming the kernel, or, when asked, describes the launch (registers,
// local memory, occupancy) instead of running it, through the same selection code
// the real launch takes.
//
// Programmatic dependent launch: a kernel so launched may be scheduled while the
// previous kernel in its stream is still finishing; it must call
// wait_for_prerequisite_grids() before it touches memory, which returns once those
// grids have completed and their writes are visible. Back-to-back launches (a loop
// of small calls, a CUDA graph) then overlap one kernel's launch with the other's
// tail. On older devices the attribute is ignored and the device calls are no-ops.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "cunum/core/error.hpp"
#include "src/core/check.hpp"
#include "src/core/kernel_report.hpp"
#include "src/core/launch_shape.hpp"
#include "src/core/routine.hpp"

namespace cunum::detail {

__device__ __forceinline__ void wait_for_prerequisite_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets a dependent grid start launching once every block of this grid has called it
// or exited. Safe at any point: the dependent still waits for this grid's completion.
__device__ __forceinline__ void allow_dependent_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

struct LaunchConfig {
  dim3 grid;
  dim3 block;
  std::size_t shared_bytes = 0;  // dynamic shared memory per block
  cudaStream_t stream = nullptr;
  bool programmatic = false;     // launch as a programmatic dependent (see above)
  KernelReport* describe = nullptr;  // set: fill the report and launch nothing
};

// Blocks of `kernel` (block_threads threads, no dynamic shared memory) that stay
// resident on one multiprocessor together, at most `most`, at least 1: the occupancy
// API's answer, where the kernel's registers allow fewer than a policy asks. Callers keep
// it in a function-local static: one query per kernel.
template <class... Params>
int resident_blocks_per_multiprocessor(void (*kernel)(Params...), int block_threads, int most) {
  int blocks = 0;
  CUNUM_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block_threads, 0));
  return std::max(1, std::min(blocks, most));
}

// A one-dimensional grid of `blocks` blocks.
// @throws Error(not_supported) beyond 2^31 - 1 blocks, naming the kernel.
inline dim3 grid_1d(std::int64_t blocks, const char* kernel_name) {
  if (blocks > kMaxGridBlocks) {
    const char* routine = RoutineScope::current();
    throw Error(ErrorCode::not_supported, std::string(routine != nullptr ? routine : "cunum") + ": " +
                                              kernel_name + " would need " + std::to_string(blocks) +
                                              " blocks, more than 2^31 - 1");
  }
  return dim3(static_cast<unsigned>(blocks));
}

template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), const char* kernel_name, const LaunchConfig& config,
                   Args&&... args) {
  constexpr std::size_t default_shared_limit = 48 * 1024;
  if (config.shared_bytes > default_shared_limit) {
    CUNUM_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(config.shared_bytes)));
  }
  const int threads = static_cast<int>(config.block.x * config.block.y * config.block.z);
  if (config.describe != nullptr) {
    cudaFuncAttributes attributes{};
    CUNUM_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    int blocks_per_multiprocessor = 0;
    CUNUM_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_multiprocessor, kernel, threads,
                                                              config.shared_bytes));
    *config.describe = {kernel_name,
                        attributes.numRegs,
                        static_cast<int>(attributes.localSizeBytes),
                        threads,
                        config.shared_bytes,
                        blocks_per_multiprocessor,
                        static_cast<std::int64_t>(config.grid.x) * config.grid.y * config.grid.z};
    return;
  }
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t launch{};
  launch.gridDim = config.grid;
  launch.blockDim = config.block;
  launch.dynamicSmemBytes = config.shared_bytes;
  launch.stream = config.stream;
  launch.attrs = config.programmatic ? &attribute : nullptr;
  launch.numAttrs = config.programmatic ? 1 : 0;
  // cudaLaunchKernelEx returns the launch's own error: what cudaGetLastError() after
  // a <<<>>> launch would read.
  check_status(cudaLaunchKernelEx(&launch, kernel, std::forward<Args>(args)...), kernel_name, __FILE__, __LINE__);
}

}  // namespace cunum::detail
