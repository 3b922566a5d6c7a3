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
};

}  // namespace cunum::detail
