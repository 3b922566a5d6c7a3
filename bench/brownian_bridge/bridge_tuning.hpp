#pragma once
// Tuning sweep: variants of the strategy-4/5 kernel and of the fused Sobol kernel
// (paths per thread, normals in flight, block size, register cap, dimension
// padding), instantiated from the library's kernel templates so that the bench
// times exactly the code the library would run with another policy.

#include <functional>
#include <string>
#include <vector>

#include "src/brownian_bridge/bridge_device.hpp"

namespace cunum::bench {

template <class T>
struct SharedKernelVariant {
  std::string name;
  std::function<void(const detail::BridgeDeviceStrategy&, const detail::BridgeArgs<T>&, StreamHandle,
                     detail::BridgeKernelReport*)>
      launch;
};

template <class T>
struct SobolKernelVariant {
  std::string name;
  std::function<void(const detail::BridgeDeviceStrategy&, const detail::BridgeArgs<T>&, std::uint64_t offset,
                     const detail::DeviceSobolTables&, StreamHandle, detail::BridgeKernelReport*)>
      launch;
};

// Strategy 4/5 variants for d = 1 (path-fastest arrays, paths a multiple of 4) or d = 3.
template <class T>
std::vector<SharedKernelVariant<T>> shared_kernel_variants(int dimension);

// Fused Sobol variants for d = 1 and 32-bit sequences.
template <class T>
std::vector<SobolKernelVariant<T>> sobol_kernel_variants();

}  // namespace cunum::bench
