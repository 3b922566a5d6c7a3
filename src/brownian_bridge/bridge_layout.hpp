#pragma once
// Internal: element addressing of the Z and output layouts, shared by the CPU
// backend and the kernels (see the public header for the layouts).

#include <cstdint>

#include "cunum/device/detail/host_device.hpp"
#include "cunum/brownian_bridge.hpp"

namespace cunum::detail {

// Element j of record r of path p; 64-bit throughout.
CUNUM_HOST_DEVICE inline std::int64_t bridge_element(BridgeLayout layout, std::int64_t paths,
                                                     std::int64_t records, int dimension,
                                                     std::int64_t path, std::int64_t record,
                                                     int j) {
  return layout == BridgeLayout::path_fastest
             ? (record * dimension + j) * paths + path
             : (path * records + record) * dimension + j;
}

}  // namespace cunum::detail
