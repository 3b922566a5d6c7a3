#pragma once
// Internal: the execution-strategy compiler. Points are named by time index:
// 0 = t0, 1..N interior, N + 1 = T. An "order" lists the interior time indices in
// construction order.

#include <cstdint>
#include <vector>

#include "cunum/brownian_bridge.hpp"

namespace cunum::detail {

struct Neighbours {
  std::uint32_t left = 0;
  std::uint32_t right = 0;
};

// Nearest already-built neighbours of each step of `order` (N = order.size()).
std::vector<Neighbours> bridge_neighbours(const std::vector<std::uint32_t>& order);

// Peak number of live values (x0 and X_T included) when `order` is run with a
// stack whose slot is freed after its value's last use: the stack size it needs.
std::uint32_t bridge_stack_size(const std::vector<std::uint32_t>& order);

struct CompiledBridge {
  std::vector<BridgeStep> steps;
  std::uint32_t stack_size = 0;
};

// From the caller's order (validated: a permutation of 1..N) build an equivalent
// order (same neighbours, same Z per point) with minimal stack. `times` holds
// t0, t_1..t_N, T. Z record of caller step k (1-based) is k, or k - 1 for a fixed end.
CompiledBridge compile_bridge(const std::vector<double>& times,
                              const std::vector<std::uint32_t>& order, bool fixed_end);

}  // namespace cunum::detail
