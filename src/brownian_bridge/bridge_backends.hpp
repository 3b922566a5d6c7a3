#pragma once
// Internal: what each backend provides; brownian_bridge.cpp validates and dispatches.

#include <cstdint>

#include "brownian_bridge/bridge_layout.hpp"
#include "cunum/brownian_bridge.hpp"

namespace cunum::detail {

// OpenMP over paths; host pointers; synchronous.
template <class T>
void bridge_generate_cpu(const BrownianBridge& bridge, bool increments, std::int64_t paths,
                         const T* z, T* output, BridgeLayout z_layout, BridgeLayout output_layout);

// CUDA: the strategy uploaded once per bridge (owned by the caller, released with
// bridge_release_strategy), and the launcher.
class BridgeDeviceStrategy;
BridgeDeviceStrategy* bridge_upload_strategy(const BrownianBridge& bridge);
void bridge_release_strategy(BridgeDeviceStrategy* strategy) noexcept;

// Resolves `automatic`; throws not_supported naming the limit a strategy cannot meet.
BridgeStrategy bridge_select_strategy(const BrownianBridge& bridge, BridgeStrategy requested,
                                      bool double_precision);

template <class T>
void bridge_generate_cuda(const BrownianBridge& bridge, const BridgeDeviceStrategy& strategy,
                          bool increments, std::int64_t paths, const T* z, T* output,
                          const BridgeGenerateOptions& options);

}  // namespace cunum::detail
