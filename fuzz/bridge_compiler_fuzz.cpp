// Fuzzes the Brownian bridge's strategy compiler through its public door: a time grid
// and a construction order (raw, a permutation, or make_bridge_order's), a covariance,
// a start and an optional fixed end, given to BrownianBridge on the CPU backend (now
// and then with another Placement, whose rules are checked too).
//
// Invariants, beyond "no crash":
// - the constructor refuses exactly what its header's rules refuse (an independent
//   check of them here, the Placement's included), with an Error naming the argument;
//   it accepts every problem the rules allow whose covariance is known to be positive
//   definite, on the backend its placement resolves to;
// - an accepted problem's compiled strategy is the caller's order in disguise: every
//   interior point once, each with the neighbours and Z record the caller's order
//   gives it, every slot read holding the value the step needs, never overwritten
//   while still needed; its stack is no larger than the caller's order needs and, up
//   to 9 points, the least of every equivalent order (all of them, enumerated);
// - the paths and increments it generates equal the naive bridge that follows the
//   caller's order over a full array (tests/brownian_bridge/bridge_reference.hpp);
// - make_bridge_order returns a permutation of the times, in the order it documents.

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cunum/brownian_bridge.hpp"
#include "cunum/core/device.hpp"
#include "fuzz/fuzz_support.hpp"
#include "src/brownian_bridge/bridge_compiler.hpp"
#include "tests/brownian_bridge/bridge_reference.hpp"

namespace {

using cunum::fuzz::check;
using cunum::fuzz::combine;
using cunum::fuzz::Expect;
using cunum::fuzz::raw_double;

constexpr const char* kConstruct = "cunum::BrownianBridge";
constexpr const char* kMakeOrder = "cunum::make_bridge_order";
constexpr std::size_t kMaxPoints = 64;       // interior points of a fuzzed grid
constexpr std::size_t kBruteForcePoints = 9;  // up to this many, the stack's minimality is checked by brute force
constexpr int kMaxDimension = 3;

bool all_finite(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

// A strictly increasing grid: from t0, gaps of mantissa x 2^exponent (tiny to large),
// or raw doubles.
std::vector<double> fuzz_times(FuzzedDataProvider& in, double t0, std::size_t n, bool raw) {
  std::vector<double> times(n);
  double t = t0;
  for (double& time : times) {
    if (raw) {
      time = raw_double(in);
    } else {
      const double gap = std::ldexp(in.ConsumeIntegralInRange<int>(1, 1000), in.ConsumeIntegralInRange<int>(-40, 4));
      time = t += gap;
    }
  }
  return times;
}

// The caller's order as time indices 1..N (times sorted ascending).
std::vector<std::uint32_t> order_indices(const std::vector<double>& order) {
  std::vector<double> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::uint32_t> indices(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    indices[k] = static_cast<std::uint32_t>(std::lower_bound(sorted.begin(), sorted.end(), order[k]) - sorted.begin() + 1);
  }
  return indices;
}

// ---------------------------------------------------------------------------
// make_bridge_order

// Checks an accepted make_bridge_order: a permutation of `times` in the documented order.
void check_order(const std::vector<double>& times, cunum::BridgeOrder kind, const std::vector<double>& important,
                 const std::vector<double>& order) {
  std::vector<double> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  check(sorted == times, "make_bridge_order: the result is not a permutation of the times");
  if (kind == cunum::BridgeOrder::ascending) {
    check(order == times, "make_bridge_order: ascending is not the times in order");
    return;
  }
  std::size_t first_bisected = 0;
  if (kind == cunum::BridgeOrder::important_first) {
    check(std::equal(important.begin(), important.end(), order.begin()),
          "make_bridge_order: important_first does not start with the important times");
    first_bisected = important.size();
  }
  // Every later point splits the gap of built indices it falls in at floor((l + r) / 2),
  // and gaps are split level by level: no gap is split before every gap of the level
  // above it (so the depth of the gaps split never decreases).
  const auto indices = order_indices(order);
  const std::int64_t end = static_cast<std::int64_t>(times.size()) + 1;
  std::set<std::int64_t> built{0, end};
  for (std::size_t k = 0; k < first_bisected; ++k) built.insert(indices[k]);
  for (std::size_t k = first_bisected; k < indices.size(); ++k) {
    const std::int64_t v = indices[k];
    const auto right = built.upper_bound(v);
    const std::int64_t l = *std::prev(right), r = *right;
    check((l + r) / 2 == v, "make_bridge_order: point " + std::to_string(v) + " does not bisect its gap (" +
                                std::to_string(l) + ", " + std::to_string(r) + ")");
    built.insert(v);
  }
}

// Returns a construction order for the bridge, from make_bridge_order when it accepts.
std::optional<std::vector<double>> fuzz_make_order(FuzzedDataProvider& in, const std::vector<double>& times) {
  const auto kind = cunum::fuzz::fuzz_enum<cunum::BridgeOrder>(in, 3);
  std::vector<double> important;
  Expect expect = Expect::accept;
  const std::size_t important_count = in.ConsumeIntegralInRange<std::size_t>(0, 4);
  for (std::size_t i = 0; i < important_count; ++i) {
    if (!times.empty() && in.ConsumeIntegralInRange<int>(0, 7) != 0) {
      important.push_back(times[in.ConsumeIntegralInRange<std::size_t>(0, times.size() - 1)]);
    } else {
      important.push_back(raw_double(in));
    }
  }
  if (!is_valid(kind) || times.empty() || !all_finite(times)) expect = Expect::refuse;
  for (std::size_t i = 1; i < times.size(); ++i) {
    if (!(times[i - 1] < times[i])) expect = Expect::refuse;
  }
  if (expect != Expect::refuse && kind == cunum::BridgeOrder::important_first) {
    // Membership by ==, as the rule reads (a NaN is in no list; ordered searches would find it).
    for (std::size_t i = 0; i < important.size(); ++i) {
      const auto equal = [&](double t) { return t == important[i]; };
      if (std::none_of(times.begin(), times.end(), equal) ||
          std::any_of(important.begin(), important.begin() + static_cast<std::ptrdiff_t>(i), equal)) {
        expect = Expect::refuse;
      }
    }
  }
  cunum::fuzz::context() = "make_bridge_order: times " + cunum::fuzz::list(times) + ", order " +
                           std::to_string(static_cast<int>(kind)) + ", important_times " + cunum::fuzz::list(important);
  try {
    std::vector<double> order = cunum::make_bridge_order(times, kind, important);
    check(expect != Expect::refuse, "make_bridge_order accepted what its rules refuse");
    check_order(times, kind, important, order);
    return order;
  } catch (const cunum::Error& error) {
    check(expect != Expect::accept, std::string("make_bridge_order refused what its rules allow: ") + error.what());
    cunum::fuzz::check_refusal(error, kMakeOrder, {"times", "order", "important_times"});
    check(error.code() == cunum::ErrorCode::invalid_argument, std::string("unexpected code: ") + error.what());
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// BrownianBridge

struct Problem {
  double t0 = 0;
  double T = 1;
  std::vector<double> order;
  int dimension = 1;
  std::vector<double> covariance;
  cunum::CovarianceForm form = cunum::CovarianceForm::factor;
  std::vector<double> start;
  std::optional<std::vector<double>> end;
  cunum::Placement placement{cunum::Backend::cpu};
};

// What the header's rules say of `p`'s arguments but its placement: refuse when one is
// broken; accept when none is and the covariance is known to be positive definite;
// else either.
Expect expected(const Problem& p, bool covariance_built) {
  const auto d = static_cast<std::size_t>(std::max(p.dimension, 0));
  if (!std::isfinite(p.t0) || !std::isfinite(p.T) || !(p.t0 < p.T)) return Expect::refuse;
  if (p.order.empty() || !all_finite(p.order)) return Expect::refuse;
  for (double t : p.order) {
    if (!(p.t0 < t && t < p.T)) return Expect::refuse;
  }
  std::vector<double> sorted = p.order;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return Expect::refuse;
  // Increments divide by every gap: each needs a finite reciprocal, and T - t0 must be finite.
  if (!std::isfinite(p.T - p.t0)) return Expect::refuse;
  sorted.insert(sorted.begin(), p.t0);
  sorted.push_back(p.T);
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    if (!std::isfinite(1.0 / (sorted[i] - sorted[i - 1]))) return Expect::refuse;
  }
  if (p.dimension < 1 || p.covariance.size() != d * d || !all_finite(p.covariance)) return Expect::refuse;
  if (!is_valid(p.form)) return Expect::refuse;
  if (p.start.size() != d || !all_finite(p.start)) return Expect::refuse;
  if (p.end && (p.end->size() != d || !all_finite(*p.end))) return Expect::refuse;
  if (p.form == cunum::CovarianceForm::factor) {
    for (std::size_t i = 0; i < d; ++i) {
      if (!(p.covariance[i * d + i] > 0)) return Expect::refuse;
      for (std::size_t j = i + 1; j < d; ++j) {
        if (p.covariance[i * d + j] != 0) return Expect::refuse;
      }
    }
    return Expect::accept;
  }
  return covariance_built ? Expect::accept : Expect::either;
}

// n, or one less or one more (never below 0): a list of the wrong size.
std::size_t near(FuzzedDataProvider& in, std::size_t n) {
  const std::size_t shifted = n + in.ConsumeIntegralInRange<std::size_t>(0, 2);
  return shifted > 0 ? shifted - 1 : 0;
}

std::vector<double> fuzz_vector(FuzzedDataProvider& in, std::size_t n, bool raw) {
  std::vector<double> values(n);
  for (double& v : values) v = raw ? raw_double(in) : in.ConsumeIntegralInRange<int>(-1000, 1000) * 0.01;
  return values;
}

// Checks that the compiled strategy is the caller's order run on a minimal stack.
void check_strategy(const cunum::BrownianBridge& bridge, const Problem& p) {
  const auto caller = order_indices(p.order);
  const std::size_t n = caller.size();
  const auto end = static_cast<std::uint32_t>(n + 1);
  const auto steps = bridge.construction_steps();
  const std::uint32_t stack = bridge.stack_size();
  check(bridge.interior_points() == static_cast<std::int64_t>(n) && steps.size() == n,
        "the strategy has " + std::to_string(steps.size()) + " steps for " + std::to_string(n) + " points");
  check(bridge.times().size() == n + 2 && bridge.times().front() == p.t0 && bridge.times().back() == p.T,
        "times() is not t0, the grid, T");

  // The caller's order: each point's neighbours and Z record.
  const auto caller_neighbours = cunum::detail::bridge_neighbours(caller);
  std::vector<cunum::detail::Neighbours> neighbours_of(n + 2);
  std::vector<std::int64_t> z_record_of(n + 2, -1);
  const std::int64_t z_shift = p.end ? 1 : 0;
  for (std::size_t k = 0; k < n; ++k) {
    neighbours_of[caller[k]] = caller_neighbours[k];
    z_record_of[caller[k]] = static_cast<std::int64_t>(k) + 1 - z_shift;
  }

  // The last step (by position in the strategy) that reads each point.
  std::vector<std::int64_t> last_read(n + 2, -1);
  std::vector<std::int64_t> position(n + 2, -1);
  for (std::size_t k = 0; k < n; ++k) {
    const auto& step = steps[k];
    check(step.time_index >= 1 && step.time_index <= static_cast<std::int64_t>(n) && position[step.time_index] < 0,
          "step " + std::to_string(k) + " builds point " + std::to_string(step.time_index) +
              ", out of range or built twice");
    position[step.time_index] = static_cast<std::int64_t>(k);
    last_read[step.left_time_index] = static_cast<std::int64_t>(k);
    last_read[step.right_time_index] = static_cast<std::int64_t>(k);
  }

  // Run the strategy on a stack of point indices.
  std::vector<std::int64_t> slot(stack, -1);
  check(stack >= 2, "the stack has fewer than 2 slots");
  slot[cunum::BrownianBridge::start_slot] = 0;
  slot[cunum::BrownianBridge::end_slot] = end;
  std::set<std::uint32_t> built{0, end};
  for (std::size_t k = 0; k < n; ++k) {
    const auto& step = steps[k];
    const auto v = static_cast<std::uint32_t>(step.time_index);
    const auto right = built.upper_bound(v);
    const std::uint32_t l = *std::prev(right), r = *right;
    const std::string where = "step " + std::to_string(k) + " (point " + std::to_string(v) + ")";
    check(step.left_time_index == l && step.right_time_index == r,
          where + " is not built between its nearest built neighbours");
    check(neighbours_of[v].left == l && neighbours_of[v].right == r,
          where + " has other neighbours than in the caller's order");
    check(step.z_record == z_record_of[v], where + " reads Z record " + std::to_string(step.z_record) +
                                               ", the caller's order reads " + std::to_string(z_record_of[v]));
    check(step.left_slot < stack && step.right_slot < stack && slot[step.left_slot] == l &&
              slot[step.right_slot] == r,
          where + " reads a slot that does not hold its neighbour");
    if (step.store_slot) {
      check(*step.store_slot < stack, where + " stores past the stack");
      const std::int64_t overwritten = slot[*step.store_slot];
      check(overwritten < 0 || last_read[overwritten] <= static_cast<std::int64_t>(k),
            where + " overwrites point " + std::to_string(overwritten) + ", which a later step reads");
      slot[*step.store_slot] = v;
    } else {
      check(last_read[v] < 0, where + " is stored nowhere, and a later step reads it");
    }
    const double tl = bridge.times()[l], tr = bridge.times()[r], tv = bridge.times()[v];
    if (std::isfinite(tr - tl)) {
      check(step.left_weight >= 0 && step.right_weight >= 0 && step.left_weight <= 1 && step.right_weight <= 1 &&
                std::abs(step.left_weight + step.right_weight - 1) <= 1e-12 && step.std_dev >= 0,
            where + " has weights outside [0, 1] that do not sum to 1, or a negative deviation");
      check(tl < tv && tv < tr, where + ": the times are not in order");
    }
    built.insert(v);
  }

  // The stack: no larger than the caller's order needs, and the least of all equivalent orders.
  check(stack <= cunum::detail::bridge_stack_size(caller),
        "the strategy's stack (" + std::to_string(stack) + ") exceeds the caller's order's (" +
            std::to_string(cunum::detail::bridge_stack_size(caller)) + ")");
  if (n <= kBruteForcePoints) {
    // Every equivalent order: each point after its parent, the later-built of its two
    // neighbours in the caller's order (the one whose step created its interval).
    std::vector<std::int64_t> built_at(n + 2, -1);
    for (std::size_t k = 0; k < n; ++k) built_at[caller[k]] = static_cast<std::int64_t>(k);
    std::vector<std::vector<std::uint32_t>> children(n + 2);
    std::vector<std::uint32_t> ready;
    for (std::uint32_t v = 1; v <= n; ++v) {
      const auto [left, right] = neighbours_of[v];
      const std::uint32_t parent = built_at[left] > built_at[right] ? left : right;
      (built_at[parent] < 0 ? ready : children[parent]).push_back(v);
    }
    std::uint32_t least = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> order;
    const auto extend = [&](const auto& self, const std::vector<std::uint32_t>& available) -> void {
      if (order.size() == n) {
        const auto candidate = cunum::detail::bridge_neighbours(order);
        for (std::size_t k = 0; k < n; ++k) {
          check(neighbours_of[order[k]].left == candidate[k].left && neighbours_of[order[k]].right == candidate[k].right,
                "a parent-before-child order gives a point other neighbours than the caller's");
        }
        least = std::min(least, cunum::detail::bridge_stack_size(order));
        return;
      }
      for (std::size_t i = 0; i < available.size(); ++i) {
        std::vector<std::uint32_t> next = available;
        next.erase(next.begin() + static_cast<std::ptrdiff_t>(i));
        next.insert(next.end(), children[available[i]].begin(), children[available[i]].end());
        order.push_back(available[i]);
        self(self, next);
        order.pop_back();
      }
    };
    extend(extend, ready);
    check(stack == least, "the strategy's stack (" + std::to_string(stack) + ") is not the least (" +
                              std::to_string(least) + ") of the equivalent orders");
  }
}

// Checks generated paths and increments against the naive bridge, in double.
void check_paths(const cunum::BrownianBridge& bridge, const Problem& p, std::uint64_t seed, std::int64_t paths,
                 cunum::BridgeLayout z_layout, cunum::BridgeLayout output_layout) {
  cunum::testing::BridgeSetup setup;
  setup.t0 = p.t0;
  setup.T = p.T;
  setup.order = p.order;
  setup.d = p.dimension;
  setup.factor = bridge.factor();
  setup.start = p.start;
  setup.end = p.end;
  const int d = p.dimension;
  const std::int64_t z_records = bridge.z_records(), records = bridge.output_records();
  const auto z = cunum::testing::normals<double>(static_cast<std::size_t>(paths * z_records * d), seed);
  cunum::BridgeGenerateOptions options;
  options.z_layout = z_layout;
  options.output_layout = output_layout;
  const std::vector<double> generated = bridge.generate_paths(paths, z, options);
  const std::vector<double> increments = bridge.generate_increments(paths, z, options);
  check(static_cast<std::int64_t>(generated.size()) == paths * records * d &&
            generated.size() == increments.size(),
        "generate_paths or generate_increments returned the wrong number of values");
  for (std::int64_t path = 0; path < paths; ++path) {
    const auto expected_path = cunum::testing::naive_path(setup, [&](std::int64_t record, int j) {
      return z[cunum::testing::layout_index(z_layout, paths, z_records, d, path, record, j)];
    });
    const auto expected_increments = cunum::testing::naive_increments(setup, expected_path);
    for (const auto& [expected, actual, name] :
         {std::tuple{&expected_path, &generated, "path"}, std::tuple{&expected_increments, &increments, "increment"}}) {
      double scale = 1;
      for (double v : *expected) scale = std::max(scale, std::abs(v));
      if (!std::isfinite(scale) || scale > 1e100) continue;  // extreme grids: nothing to compare to
      for (std::int64_t record = 0; record < records; ++record) {
        for (int j = 0; j < d; ++j) {
          const double want = (*expected)[record * d + j];
          const double got = (*actual)[cunum::testing::layout_index(output_layout, paths, records, d, path, record, j)];
          check(std::abs(got - want) <= 1e-9 * scale,
                std::string(name) + " " + std::to_string(record) + "." + std::to_string(j) + " of path " +
                    std::to_string(path) + " is " + std::to_string(got) + ", the naive bridge gives " +
                    std::to_string(want));
        }
      }
    }
  }
}

void fuzz_bridge(FuzzedDataProvider& in) {
  const auto flags = in.ConsumeIntegral<std::uint16_t>();
  const auto flag = [&](int bit) { return (flags >> bit) & 1; };
  Problem p;
  p.t0 = flag(0) ? raw_double(in) : in.ConsumeIntegralInRange<int>(-1000, 1000) * 0.125;
  const std::size_t n = in.ConsumeIntegralInRange<std::size_t>(flag(1) ? 0 : 1, kMaxPoints);
  const std::vector<double> grid = fuzz_times(in, p.t0, n, flag(2));
  const double after = grid.empty() ? p.t0 : grid.back();
  p.T = flag(3) ? raw_double(in) : after + std::ldexp(in.ConsumeIntegralInRange<int>(1, 1000), in.ConsumeIntegralInRange<int>(-40, 4));
  if (flag(4)) {
    // A permutation of the grid (Fisher-Yates on fuzzed draws), or raw times.
    p.order = grid;
    for (std::size_t i = p.order.size(); i > 1; --i) {
      std::swap(p.order[i - 1], p.order[in.ConsumeIntegralInRange<std::size_t>(0, i - 1)]);
    }
    if (flag(5) && !p.order.empty()) p.order[in.ConsumeIntegralInRange<std::size_t>(0, p.order.size() - 1)] = raw_double(in);
  } else {
    const auto order = fuzz_make_order(in, grid);
    if (!order) return;
    p.order = *order;
  }
  p.dimension = flag(6) ? in.ConsumeIntegralInRange<int>(-1, kMaxDimension + 1) : in.ConsumeIntegralInRange<int>(1, kMaxDimension);
  const auto d = static_cast<std::size_t>(std::clamp(p.dimension, 0, kMaxDimension + 1));
  p.form = flag(7) ? cunum::fuzz::fuzz_enum<cunum::CovarianceForm>(in, 2)
                   : in.ConsumeBool() ? cunum::CovarianceForm::factor : cunum::CovarianceForm::covariance;
  // A lower-triangular factor with a positive diagonal, given as C or as Sigma = C C^T
  // (exactly symmetric: both triangles sum the same products in the same order); or raw.
  const bool raw_covariance = flag(8);
  if (raw_covariance) {
    p.covariance = fuzz_vector(in, near(in, d * d), true);
  } else {
    std::vector<double> c(d * d, 0.0);
    for (std::size_t i = 0; i < d; ++i) {
      for (std::size_t j = 0; j < i; ++j) c[i * d + j] = in.ConsumeIntegralInRange<int>(-100, 100) * 0.01;
      c[i * d + i] = in.ConsumeIntegralInRange<int>(50, 300) * 0.01;
    }
    p.covariance = c;
    if (p.form == cunum::CovarianceForm::covariance) {
      for (std::size_t i = 0; i < d; ++i) {
        for (std::size_t j = 0; j < d; ++j) {
          double sum = 0;
          for (std::size_t k = 0; k <= std::min(i, j); ++k) sum += c[i * d + k] * c[j * d + k];
          p.covariance[i * d + j] = sum;
        }
      }
    }
  }
  p.start = fuzz_vector(in, flag(9) ? near(in, d) : d, flag(10));
  if (flag(11)) p.end = fuzz_vector(in, flag(12) ? near(in, d) : d, flag(10));
  if (flag(13)) {
    p.placement.backend = cunum::fuzz::fuzz_enum<cunum::Backend>(in, 3);
    p.placement.devices = cunum::fuzz::fuzz_devices(in, 2);
  }
  cunum::fuzz::context() = "t0 " + cunum::fuzz::list(std::vector<double>{p.t0}) + ", T " +
                           cunum::fuzz::list(std::vector<double>{p.T}) + ", order " + cunum::fuzz::list(p.order) +
                           ", dimension " + std::to_string(p.dimension) + ", covariance " +
                           cunum::fuzz::list(p.covariance) + " (form " + std::to_string(static_cast<int>(p.form)) +
                           "), start " + cunum::fuzz::list(p.start) + ", end " +
                           (p.end ? cunum::fuzz::list(*p.end) : std::string("none")) + ", placement.backend " +
                           std::to_string(static_cast<int>(p.placement.backend)) + ", placement.devices " +
                           cunum::fuzz::list(p.placement.devices);
  // The arguments are checked before the placement: when both are wrong, either is named.
  const auto placement_refusal = cunum::fuzz::placement_refusal(p.placement, 1);
  const Expect expect = combine(expected(p, !raw_covariance), placement_refusal ? Expect::refuse : Expect::accept);

  try {
    const cunum::BrownianBridge bridge(p.t0, p.T, p.order, p.dimension, p.covariance, p.form, p.start, p.end,
                                       p.placement);
    check(expect != Expect::refuse, "BrownianBridge accepted what its rules refuse");
    check(bridge.backend() == cunum::fuzz::resolved_backend(p.placement) &&
              bridge.placement().backend == bridge.backend(),
          "the bridge runs on another backend than its placement resolves to");
    check_strategy(bridge, p);
    if (bridge.backend() == cunum::Backend::cpu) {
      const auto z_layout = static_cast<cunum::BridgeLayout>(flag(14));
      const auto output_layout = static_cast<cunum::BridgeLayout>(flag(15));
      check_paths(bridge, p, in.ConsumeIntegral<std::uint64_t>(), in.ConsumeIntegralInRange<std::int64_t>(1, 3),
                  z_layout, output_layout);
    }
  } catch (const cunum::Error& error) {
    check(expect != Expect::accept, std::string("BrownianBridge refused what its rules allow: ") + error.what());
    cunum::fuzz::check_refusal(error, kConstruct,
                               {"t0", "T", "construction_order", "dimension", "covariance", "form", "start",
                                "fixed_end", "placement.backend", "placement.devices"});
    check(error.code() == cunum::ErrorCode::invalid_argument ||
              (placement_refusal == cunum::ErrorCode::no_device && error.code() == cunum::ErrorCode::no_device),
          std::string("unexpected code: ") + error.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  omp_set_num_threads(1);  // the fuzzer shares its machine: no thread team spinning at each step
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  fuzz_bridge(in);
  return 0;
}
