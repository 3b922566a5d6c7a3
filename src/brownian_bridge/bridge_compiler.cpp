// The execution-strategy compiler.
//
// The caller's order defines a binary tree of intervals: the first point built
// inside (l, r) splits it, its children are the first points built inside (l, theta)
// and (theta, r). Any parent-before-child order of this tree gives every point the
// same neighbours, hence (carrying each point's Z index along) identical numbers.
// Values created inside a subtree are used only inside it, so depth-first orders
// keep the live set small; what remains is, at every node, which subtree goes
// first. An endpoint of v's interval dies once v's subtree on its side is finished,
// unless the endpoint still has users outside v's subtree (its other subtree not yet
// built). With dl, dr saying whether l, r die so, the extra stack a subtree needs
// above the live values at its entry is (Sethi-Ullman style dynamic programming):
//   leaf:               0
//   left child a only:  1 - dr + f(a, dl, true)
//   right child b only: 1 - dl + f(b, true, dr)
//   a then b:           max(1 + f(a, dl, false), 1 - dl + f(b, true, dr))
//   b then a:           max(1 + f(b, false, dr), 1 - dr + f(a, dl, true))
// and the stack is 2 (x0, X_T) + f(root, true, true). The stack-minimality test
// checks this against brute force over all equivalent orders.

#include "src/brownian_bridge/bridge_compiler.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

namespace cunum::detail {
namespace {

constexpr std::int64_t kNotBuilt = -2;
constexpr std::int64_t kStartBuilt = -1;  // x0 exists before X_T (step 0)

// Last step (1-based) whose neighbour each time index is; 0 when none.
std::vector<std::uint32_t> last_use(const std::vector<Neighbours>& neighbours, std::size_t points) {
  std::vector<std::uint32_t> last(points, 0);
  for (std::uint32_t k = 0; k < neighbours.size(); ++k) {
    last[neighbours[k].left] = k + 1;
    last[neighbours[k].right] = k + 1;
  }
  return last;
}

// Runs `order` on a stack, lowest free slot first; calls visit(step, left_slot,
// right_slot, store_slot) for each step. Returns the number of slots used.
template <class Visit>
std::uint32_t allocate_slots(const std::vector<std::uint32_t>& order,
                             const std::vector<Neighbours>& neighbours, Visit&& visit) {
  const std::size_t points = order.size() + 2;
  const auto last = last_use(neighbours, points);
  std::vector<std::uint32_t> slot_of(points, BridgeStep::no_store);
  std::set<std::uint32_t> free_slots;
  std::uint32_t slots = 2;
  slot_of[0] = BrownianBridge::start_slot;
  slot_of[points - 1] = BrownianBridge::end_slot;
  for (std::uint32_t k = 0; k < order.size(); ++k) {
    const Neighbours nb = neighbours[k];
    const std::uint32_t left_slot = slot_of[nb.left];
    const std::uint32_t right_slot = slot_of[nb.right];
    // Reading precedes writing within a step, so a dying neighbour's slot is reusable now.
    if (last[nb.left] == k + 1) free_slots.insert(left_slot);
    if (last[nb.right] == k + 1) free_slots.insert(right_slot);
    std::uint32_t store = BridgeStep::no_store;
    if (last[order[k]] > k + 1) {
      if (free_slots.empty()) {
        store = slots++;
      } else {
        store = *free_slots.begin();
        free_slots.erase(free_slots.begin());
      }
      slot_of[order[k]] = store;
    }
    visit(k, left_slot, right_slot, store);
  }
  return slots;
}

}  // namespace

std::vector<Neighbours> bridge_neighbours(const std::vector<std::uint32_t>& order) {
  const std::uint32_t end = static_cast<std::uint32_t>(order.size()) + 1;
  std::set<std::uint32_t> built{0, end};
  std::vector<Neighbours> result(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto right = built.upper_bound(order[k]);
    result[k] = {*std::prev(right), *right};
    built.insert(order[k]);
  }
  return result;
}

std::uint32_t bridge_stack_size(const std::vector<std::uint32_t>& order) {
  return allocate_slots(order, bridge_neighbours(order), [](auto...) {});
}

CompiledBridge compile_bridge(const std::vector<double>& times,
                              const std::vector<std::uint32_t>& order, bool fixed_end) {
  const std::size_t n = order.size();
  const std::size_t points = n + 2;
  const auto neighbours = bridge_neighbours(order);

  // Tree: a point is the left child of its right neighbour when that neighbour was
  // built later than the left one (it created the interval), else the right child.
  std::vector<std::int64_t> built_at(points, kNotBuilt);
  built_at[0] = kStartBuilt;
  built_at[points - 1] = 0;
  std::vector<std::uint32_t> caller_step(points, 0);
  for (std::uint32_t k = 0; k < n; ++k) {
    built_at[order[k]] = k + 1;
    caller_step[order[k]] = k + 1;
  }
  std::vector<std::uint32_t> left_child(points, 0), right_child(points, 0);  // 0: none
  std::uint32_t root = 0;
  for (std::uint32_t k = 0; k < n; ++k) {
    const Neighbours nb = neighbours[k];
    if (nb.left == 0 && nb.right == points - 1) {
      root = order[k];
    } else if (built_at[nb.right] > built_at[nb.left]) {
      left_child[nb.right] = order[k];
    } else {
      right_child[nb.left] = order[k];
    }
  }

  // f(v, dl, dr) for the four endpoint states (index dl * 2 + dr), and whether the
  // right subtree goes first. Children are built after parents in the caller's
  // order, so a reverse sweep sees every child before its parent.
  std::vector<std::array<std::int64_t, 4>> need(points, {0, 0, 0, 0});
  std::vector<std::array<bool, 4>> right_first(points, {false, false, false, false});
  auto f = [&](std::uint32_t v, bool dl, bool dr) { return need[v][dl * 2 + dr]; };
  for (std::size_t k = n; k-- > 0;) {
    const std::uint32_t v = order[k];
    const std::uint32_t a = left_child[v], b = right_child[v];
    for (int state = 0; state < 4; ++state) {
      const bool dl = state & 2, dr = state & 1;
      if (a != 0 && b != 0) {
        const std::int64_t left_then_right = std::max(1 + f(a, dl, false), 1 - dl + f(b, true, dr));
        const std::int64_t right_then_left = std::max(1 + f(b, false, dr), 1 - dr + f(a, dl, true));
        right_first[v][state] = right_then_left < left_then_right;
        need[v][state] = std::min(left_then_right, right_then_left);
      } else if (a != 0) {
        need[v][state] = 1 - dr + f(a, dl, true);
      } else if (b != 0) {
        need[v][state] = 1 - dl + f(b, true, dr);
      }
    }
  }

  // Depth-first in the chosen order, carrying each node's endpoint state.
  struct Pending {
    std::uint32_t node;
    bool dl, dr;
  };
  std::vector<std::uint32_t> compiled;
  compiled.reserve(n);
  std::vector<Pending> pending{{root, true, true}};
  while (!pending.empty()) {
    const Pending top = pending.back();
    pending.pop_back();
    const std::uint32_t v = top.node;
    compiled.push_back(v);
    const std::uint32_t a = left_child[v], b = right_child[v];
    if (a != 0 && b != 0) {
      if (right_first[v][top.dl * 2 + top.dr]) {
        pending.push_back({a, top.dl, true});
        pending.push_back({b, false, top.dr});
      } else {
        pending.push_back({b, true, top.dr});
        pending.push_back({a, top.dl, false});
      }
    } else if (a != 0) {
      pending.push_back({a, top.dl, true});
    } else if (b != 0) {
      pending.push_back({b, true, top.dr});
    }
  }

  CompiledBridge result;
  result.steps.resize(n);
  const auto compiled_neighbours = bridge_neighbours(compiled);
  result.stack_size = allocate_slots(
      compiled, compiled_neighbours,
      [&](std::uint32_t k, std::uint32_t left_slot, std::uint32_t right_slot, std::uint32_t store) {
        const std::uint32_t v = compiled[k];
        const Neighbours nb = compiled_neighbours[k];
        const double l = times[nb.left], r = times[nb.right], theta = times[v];
        BridgeStep& step = result.steps[k];
        step.left_slot = left_slot;
        step.right_slot = right_slot;
        step.store_slot = store;
        step.z_index = caller_step[v] - (fixed_end ? 1u : 0u);
        step.output_index = v;
        step.left_time_index = nb.left;
        step.right_time_index = nb.right;
        step.left_weight = (r - theta) / (r - l);
        step.right_weight = (theta - l) / (r - l);
        step.std_dev = std::sqrt((r - theta) * (theta - l) / (r - l));
        step.inverse_left_gap = 1.0 / (theta - l);
        step.inverse_right_gap = 1.0 / (r - theta);
        step.left_increment = nb.left + 1 == v;
        step.right_increment = nb.right == v + 1;
        if (k > 0) {
          const BridgeStep& previous = result.steps[k - 1];
          auto reuse = [&](std::uint32_t point) {
            if (point == previous.left_time_index) return BridgeReuse::previous_left;
            if (point == previous.right_time_index) return BridgeReuse::previous_right;
            if (point == previous.output_index) return BridgeReuse::previous_point;
            return BridgeReuse::stack;
          };
          step.left_reuse = reuse(nb.left);
          step.right_reuse = reuse(nb.right);
        }
      });
  return result;
}

}  // namespace cunum::detail
