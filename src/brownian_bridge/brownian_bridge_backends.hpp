#pragma once
// Internal: the one backend interface of cunum::BrownianBridge (BridgeBackend, made
// once at construction: make_brownian_bridge_cpu in brownian_bridge_cpu.cpp,
// make_brownian_bridge_cuda in brownian_bridge_cuda.cpp), and the entry points those backends
// run. brownian_bridge.cpp validates and calls through the interface.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "cunum/brownian_bridge.hpp"
#include "cunum/core/placement.hpp"
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

class BridgeDeviceStrategy;

// One per bridge. Arguments are validated; `paths` may be 0. The CPU backend runs
// synchronously on host memory, the CUDA one asynchronously on the options' stream
// on memory the device can address.
class BridgeBackend {
 public:
  virtual ~BridgeBackend() = default;

  // Refuses (invalid_argument naming `routine`) a call while another device is
  // current than the one a CUDA bridge was made on; the CPU backend has none.
  virtual void require_current(const char* routine) const = 0;

  virtual void generate(const BrownianBridge& bridge, bool increments, std::int64_t paths, const float* z,
                        float* output, const BridgeGenerateOptions& options) = 0;
  virtual void generate(const BrownianBridge& bridge, bool increments, std::int64_t paths, const double* z,
                        double* output, const BridgeGenerateOptions& options) = 0;
  // The options' offset and the bridge's Sobol dimensions are validated; a backend
  // raises not_supported for what only it cannot do.
  virtual void generate_sobol(const BrownianBridge& bridge, bool increments, std::int64_t paths, float* output,
                              const SobolBridgeOptions& options) = 0;
  virtual void generate_sobol(const BrownianBridge& bridge, bool increments, std::int64_t paths, double* output,
                              const SobolBridgeOptions& options) = 0;

  // Host vectors in, a host vector out: `generate` runs on `z` and `output_size`
  // values the backend can address (the CUDA backend copies through device buffers
  // from the placement's device memory, on `stream`; the CPU one works in place).
  virtual std::vector<float> generate_host(
      const std::vector<float>& z, std::size_t output_size, StreamHandle stream,
      const std::function<void(const float* z, float* output)>& generate) = 0;
  virtual std::vector<double> generate_host(
      const std::vector<double>& z, std::size_t output_size, StreamHandle stream,
      const std::function<void(const double* z, double* output)>& generate) = 0;

  // The strategy uploaded by the CUDA backend; nullptr for the CPU one.
  virtual const BridgeDeviceStrategy* device_strategy() const noexcept = 0;
};

std::unique_ptr<BridgeBackend> make_brownian_bridge_cpu();
// Binds the bridge to the current device (the placement's) and uploads its compiled
// strategy there (BridgeInternals::compiled must be in place), into memory from
// placement.device_memory, which the host conveniences' copies come from too.
// @throws Error(no_device) without a device.
std::unique_ptr<BridgeBackend> make_brownian_bridge_cuda(const BrownianBridge& bridge, const Placement& placement);

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

// CUDA: the strategy uploaded once per bridge, to the current device, into memory
// from `memory` (the bridge's compiled strategy must be in place:
// BridgeInternals::compiled).
std::unique_ptr<BridgeDeviceStrategy> bridge_upload_strategy(const BrownianBridge& bridge,
                                                            DeviceMemoryResource* memory);

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
