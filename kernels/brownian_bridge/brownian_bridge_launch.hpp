#pragma once
// Internal, plain C++: the launchers of the bridge's kernels (defined in
// kernels/brownian_bridge/brownian_bridge_{constant,shared,sobol}.cu), called by the
// CUDA backend's host orchestration (src/brownian_bridge/brownian_bridge_cuda.cpp).

#include <cstddef>
#include <cstdint>

#include "cunum/brownian_bridge.hpp"
#include "src/brownian_bridge/bridge_device.hpp"

namespace cunum::detail {

// Launchers (kernels/brownian_bridge/*.cu), through kernels/common/launch.cuh's
// launch_kernel. With `describe` set they launch nothing and describe the kernel
// they would launch.
template <class T>
void launch_bridge_constant(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args,
                            BridgeStrategy which, StreamHandle stream, BridgeKernelReport* describe);
// Copies a constant-family image into the constant-memory symbol of
// kernels/brownian_bridge/brownian_bridge_constant.cu, enqueued on `stream` (the caller orders
// it with ConstantImageTurn).
void copy_bridge_constant_image(const unsigned char* image, std::size_t bytes, StreamHandle stream);
template <class T>
void launch_bridge_shared(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args,
                          BridgeStrategy which, StreamHandle stream, BridgeKernelReport* describe);
template <class T>
void launch_bridge_sobol(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args,
                         SobolSequence sequence, std::uint64_t offset, const DeviceSobolTables& tables,
                         StreamHandle stream, BridgeKernelReport* describe);

// Dynamic shared memory the shared-memory kernels need for `threads` per block.
template <class T>
std::size_t bridge_shared_bytes(std::uint32_t stack_size, int dimension, int threads,
                                int paths_per_thread);
// Dynamic shared memory of the fused Sobol kernel's smallest variant (one path per
// thread) for `bridge`: beyond the device's limit, no variant serves.
template <class T>
std::size_t sobol_minimum_shared_bytes(const BrownianBridge& bridge, bool wide_words);

}  // namespace cunum::detail
