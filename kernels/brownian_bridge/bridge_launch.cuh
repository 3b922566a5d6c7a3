#pragma once
// Internal: launches a bridge kernel, or describes it (registers, local memory,
// occupancy) without launching, through the same selection code.

#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "src/brownian_bridge/bridge_backends.hpp"
#include "src/core/check.hpp"
#include "cunum/core/error.hpp"

namespace cunum::detail {

// Raises a kernel's dynamic shared-memory limit when it needs more than the default 48 KiB.
template <class... Params>
void allow_dynamic_shared(void (*kernel)(Params...), std::size_t shared_bytes) {
  constexpr std::size_t default_limit = 48 * 1024;
  if (shared_bytes > default_limit) {
    CUNUM_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(shared_bytes)));
  }
}

template <class... Params, class... Args>
void launch_or_describe(void (*kernel)(Params...), std::int64_t blocks, int threads, std::size_t shared_bytes,
                        int paths_per_thread, StreamHandle stream, BridgeKernelInfo* describe,
                        const char* name, Args&&... args) {
  if (blocks > 0x7FFFFFFF) {
    throw Error(ErrorCode::not_supported,
                std::string("cunum::BrownianBridge::generate: ") + name + " needs more than 2^31 - 1 blocks");
  }
  allow_dynamic_shared(kernel, shared_bytes);
  if (describe != nullptr) {
    cudaFuncAttributes attributes{};
    CUNUM_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    int blocks_per_multiprocessor = 0;
    CUNUM_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_multiprocessor, kernel,
                                                                   threads, shared_bytes));
    *describe = {name,
                 attributes.numRegs,
                 static_cast<int>(attributes.localSizeBytes),
                 threads,
                 shared_bytes,
                 blocks_per_multiprocessor,
                 paths_per_thread,
                 blocks};
    return;
  }
  kernel<<<static_cast<unsigned>(blocks), threads, shared_bytes, stream>>>(std::forward<Args>(args)...);
  CUNUM_CHECK_LAUNCH(name);
}

}  // namespace cunum::detail
