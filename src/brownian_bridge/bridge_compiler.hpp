#pragma once
// Internal: the execution-strategy compiler. Points are named by time index:
// 0 = t0, 1..N interior, N + 1 = T. An "order" lists the interior time indices in
// construction order.

#include <cstdint>
#include <vector>

#include "cunum/brownian_bridge.hpp"

namespace cunum::detail {

// Where step k of a neighbour comes from in strategy 5 (reuse of the previous step).
enum class BridgeReuse : std::uint8_t { stack, previous_left, previous_right, previous_point };

// One step of the compiled execution strategy: build the point at time index
// `output_index` (1..N) from stack slots `left_slot`, `right_slot` and Z record
// `z_index`, then store it in `store_slot` (or nowhere: no_store). The public
// BrownianBridge::construction_steps() shows the same steps without the fields
// only the backends use.
// Increments are written in the same pass: increment i pairs t_{i-1} and t_i, and
// the later-built of the two is interior and has the other as its nearest
// neighbour, so exactly one step writes it (left_increment: record theta - 1, from
// X_l; right_increment: record theta, from X_r).
struct BridgeStep {
  static constexpr std::uint32_t no_store = 0xFFFFFFFFu;
  std::uint32_t left_slot = 0;
  std::uint32_t right_slot = 0;
  std::uint32_t store_slot = no_store;
  std::uint32_t z_index = 0;       // Z record within a path
  std::uint32_t output_index = 0;  // time index i (output record i - 1)
  std::uint32_t left_time_index = 0;   // l, r as time indices (0 = t0, N + 1 = T)
  std::uint32_t right_time_index = 0;
  double left_weight = 0;   // (r - theta) / (r - l)
  double right_weight = 0;  // (theta - l) / (r - l)
  double std_dev = 0;       // sqrt((r - theta)(theta - l) / (r - l))
  double inverse_left_gap = 0;   // 1 / (theta - l)
  double inverse_right_gap = 0;  // 1 / (r - theta)
  bool left_increment = false;   // l == theta - 1: this step writes increment theta
  bool right_increment = false;  // r == theta + 1: this step writes increment theta + 1
  BridgeReuse left_reuse = BridgeReuse::stack;  // strategy 5: where X_l comes from
  BridgeReuse right_reuse = BridgeReuse::stack;
};

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
