#pragma once
// Internal: what each backend provides; brownian_bridge.cpp validates and dispatches.

#include <cstdint>
#include <memory>

#include "cunum/brownian_bridge.hpp"
#include "src/brownian_bridge/bridge_internals.hpp"
#include "src/brownian_bridge/bridge_layout.hpp"
#include "src/core/kernel_report.hpp"

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

// What a GPU generate call launches, for the bench and the docs: the launcher's
// report and the paths each thread builds.
struct BridgeKernelReport : KernelReport {
  int paths_per_thread = 0;
};

// The report launch_kernel fills for a kernel building `paths_per_thread` paths per
// thread: `describe` with its paths noted, or nullptr (launch) when it is null.
inline KernelReport* report_for(BridgeKernelReport* describe, int paths_per_thread) {
  if (describe != nullptr) describe->paths_per_thread = paths_per_thread;
  return describe;
}

// CUDA: the strategy uploaded once per bridge, to the current device (the bridge's
// compiled strategy must be in place: BridgeInternals::compiled).
std::unique_ptr<BridgeDeviceStrategy> bridge_upload_strategy(const BrownianBridge& bridge);

// Resolves `automatic`; throws not_supported naming the limit a strategy cannot meet.
BridgeStrategy bridge_select_strategy(const BrownianBridge& bridge, BridgeStrategy requested,
                                      bool double_precision);

// With `describe` set, nothing is launched: the kernel the call would run is
// described instead.
template <class T>
void bridge_generate_cuda(const BrownianBridge& bridge, const BridgeDeviceStrategy& strategy,
                          bool increments, std::int64_t paths, const T* z, T* output,
                          const BridgeGenerateOptions& options, BridgeKernelReport* describe = nullptr);

template <class T>
void bridge_generate_sobol_cuda(const BrownianBridge& bridge, const BridgeDeviceStrategy& strategy,
                                bool increments, std::int64_t paths, T* output,
                                const SobolBridgeOptions& options, BridgeKernelReport* describe = nullptr);

// The kernel a GPU generate call with these arguments runs (the bridge must use
// the CUDA backend).
template <class T>
BridgeKernelReport describe_bridge_kernel(const BrownianBridge& bridge, bool increments, std::int64_t paths,
                                          const T* z, T* output, const BridgeGenerateOptions& options);
template <class T>
BridgeKernelReport describe_sobol_bridge_kernel(const BrownianBridge& bridge, bool increments,
                                                std::int64_t paths, T* output,
                                                const SobolBridgeOptions& options);

}  // namespace cunum::detail
