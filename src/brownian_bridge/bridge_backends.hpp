#pragma once
// Internal: what each backend provides; brownian_bridge.cpp validates and dispatches.

#include <cstdint>

#include "src/brownian_bridge/bridge_layout.hpp"
#include "cunum/brownian_bridge.hpp"

namespace cunum::detail {

// Paths [first, first + count) of an array holding `paths` paths in `layout`.
template <class T>
struct HostPaths {
  T* data;
  BridgeLayout layout;
  std::int64_t paths;
  std::int64_t first;
};

// OpenMP over paths; host pointers; synchronous. Path p < count reads Z path
// z.first + p and writes output path output.first + p.
template <class T>
void bridge_generate_cpu(const BrownianBridge& bridge, bool increments, std::int64_t count,
                         HostPaths<const T> z, HostPaths<T> output);

// Sobol normals from cuRAND's host generator, a block of paths at a time, bridged
// by bridge_generate_cpu.
template <class T>
void bridge_generate_sobol_cpu(const BrownianBridge& bridge, bool increments, std::int64_t paths,
                               T* output, const SobolBridgeOptions& options);

// What a GPU generate call launches: for the bench and the docs.
struct BridgeKernelInfo {
  const char* kernel = "";
  int registers = 0;            // per thread
  int local_bytes = 0;          // stack frame per thread (0: no local memory)
  int threads_per_block = 0;
  std::size_t shared_bytes = 0;  // dynamic shared memory per block
  int blocks_per_multiprocessor = 0;  // resident, from the occupancy API
  int paths_per_thread = 0;
  std::int64_t blocks = 0;       // grid size
};

// CUDA: the strategy uploaded once per bridge (owned by the caller, released with
// bridge_release_strategy), and the launchers.
class BridgeDeviceStrategy;
BridgeDeviceStrategy* bridge_upload_strategy(const BrownianBridge& bridge);
void bridge_release_strategy(BridgeDeviceStrategy* strategy) noexcept;

// Resolves `automatic`; throws not_supported naming the limit a strategy cannot meet.
BridgeStrategy bridge_select_strategy(const BrownianBridge& bridge, BridgeStrategy requested,
                                      bool double_precision);

// With `describe` set, nothing is launched: the kernel the call would run is
// described instead.
template <class T>
void bridge_generate_cuda(const BrownianBridge& bridge, const BridgeDeviceStrategy& strategy,
                          bool increments, std::int64_t paths, const T* z, T* output,
                          const BridgeGenerateOptions& options, BridgeKernelInfo* describe = nullptr);

template <class T>
void bridge_generate_sobol_cuda(const BrownianBridge& bridge, const BridgeDeviceStrategy& strategy,
                                bool increments, std::int64_t paths, T* output,
                                const SobolBridgeOptions& options, BridgeKernelInfo* describe = nullptr);

// The kernel a GPU generate call with these arguments runs (the bridge must use
// the CUDA backend).
template <class T>
BridgeKernelInfo describe_bridge_kernel(const BrownianBridge& bridge, bool increments, std::int64_t paths,
                                        const T* z, T* output, const BridgeGenerateOptions& options);
template <class T>
BridgeKernelInfo describe_sobol_bridge_kernel(const BrownianBridge& bridge, bool increments,
                                              std::int64_t paths, T* output,
                                              const SobolBridgeOptions& options);

}  // namespace cunum::detail
