#pragma once
// Internal: the library's access to what a BrownianBridge keeps private (its
// compiled strategy and its backend object, which for CUDA holds the device and the
// strategy uploaded there), for the backends,
// the tests of the compiler and the benches. The public header names only the
// friend, BridgeInternals; the state itself (BrownianBridge::Impl) is defined in
// brownian_bridge.cpp.

#include "cunum/brownian_bridge.hpp"
#include "src/brownian_bridge/bridge_compiler.hpp"

namespace cunum::detail {

class BridgeBackend;
class BridgeDeviceStrategy;

struct BridgeInternals {
  // Error(invalid_argument) naming `routine` for a moved-from bridge (detail::require_plan).
  static void require_live(const BrownianBridge& bridge, const char* routine);
  // The compiled strategy; the bridge must be live (require_live).
  static const CompiledBridge& compiled(const BrownianBridge& bridge) noexcept;
  // The backend object made at construction; the bridge must be live (require_live).
  static BridgeBackend& backend(const BrownianBridge& bridge) noexcept;
  // The strategy uploaded for the CUDA backend; nullptr for a CPU or moved-from bridge.
  static const BridgeDeviceStrategy* device_strategy(const BrownianBridge& bridge) noexcept;

  // For a plan that owns a live bridge and has checked what generate_sobol_paths checks
  // (the Monte Carlo pricer): CUDA, uploads the Sobol tables of `sequence` now, waiting
  // for the upload, so that later calls (captured ones too) find them; CPU, nothing.
  static void upload_sobol_tables(const BrownianBridge& bridge, SobolSequence sequence);
  // generate_sobol_paths without its checks, so that errors name the owner's routine
  // and a captured call asks the driver nothing about `output` (memory the graph may
  // allocate during the capture).
  template <class T>
  static void generate_checked_sobol_paths(const BrownianBridge& bridge, std::int64_t paths, T* output,
                                           const SobolBridgeOptions& options);
};

}  // namespace cunum::detail
