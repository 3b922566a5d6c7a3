// Brownian bridge front end: validation at the API boundary, the order helper,
// the covariance factor, the compiled strategy and the backend object made once at
// construction (brownian_bridge_backends.hpp), which every generate call goes
// through. Every public routine opens a RoutineScope with its name
// (bridge_routines.hpp).

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "cunum/core/error.hpp"
#include "src/brownian_bridge/brownian_bridge_backends.hpp"
#include "src/brownian_bridge/bridge_compiler.hpp"
#include "src/brownian_bridge/bridge_device.hpp"
#include "src/brownian_bridge/bridge_internals.hpp"
#include "src/brownian_bridge/bridge_routines.hpp"
#include "src/core/cholesky.hpp"
#include "src/core/enum_functions.hpp"
#include "src/core/graph_capture.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/placement.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"
#include "src/random/random_internal.hpp"

namespace cunum {

CUNUM_DEFINE_ENUM_FUNCTIONS(BridgeOrder, CUNUM_BRIDGE_ORDERS)
CUNUM_DEFINE_ENUM_FUNCTIONS(CovarianceForm, CUNUM_COVARIANCE_FORMS)
CUNUM_DEFINE_ENUM_FUNCTIONS(BridgeLayout, CUNUM_BRIDGE_LAYOUTS)
CUNUM_DEFINE_ENUM_FUNCTIONS(BridgeStrategy, CUNUM_BRIDGE_STRATEGIES)

// The resolved placement, the compiled strategy and the backend object made once at
// construction (for the CUDA backend it holds the device the bridge was made on and
// the strategy uploaded there).
struct BrownianBridge::Impl {
  Placement placement;
  detail::CompiledBridge compiled;
  std::unique_ptr<detail::BridgeBackend> backend;
};

namespace detail {

void BridgeInternals::require_live(const BrownianBridge& bridge, const char* routine) {
  require_plan(bridge.impl_, routine, "BrownianBridge");
}

const CompiledBridge& BridgeInternals::compiled(const BrownianBridge& bridge) noexcept {
  return bridge.impl_->compiled;
}

BridgeBackend& BridgeInternals::backend(const BrownianBridge& bridge) noexcept { return *bridge.impl_->backend; }

const BridgeDeviceStrategy* BridgeInternals::device_strategy(const BrownianBridge& bridge) noexcept {
  return bridge.impl_ != nullptr && bridge.impl_->backend != nullptr ? bridge.impl_->backend->device_strategy()
                                                                     : nullptr;
}

void BridgeInternals::upload_sobol_tables(const BrownianBridge& bridge, SobolSequence sequence) {
  if (const BridgeDeviceStrategy* strategy = device_strategy(bridge)) strategy->sobol_tables(bridge, sequence);
}

template <class T>
void BridgeInternals::generate_checked_sobol_paths(const BrownianBridge& bridge, std::int64_t paths, T* output,
                                                   const SobolBridgeOptions& options) {
  backend(bridge).generate_sobol(bridge, false, paths, output, options);
}

#define CUNUM_INSTANTIATE_CHECKED_SOBOL_PATHS(T)                                                      \
  template void BridgeInternals::generate_checked_sobol_paths(const BrownianBridge&, std::int64_t, T*, \
                                                              const SobolBridgeOptions&);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_CHECKED_SOBOL_PATHS, CUNUM_REAL_TYPES)

}  // namespace detail

namespace {

namespace routines = detail::bridge_routines;

// Largest N: step indices are 32-bit and the increment pass indexes N + 1 records.
constexpr std::int64_t kMaxInteriorPoints = (std::int64_t{1} << 31) - 2;

bool all_finite(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

// Bisection of every gap between consecutive known indices, level by level;
// the split of gap (lo, hi) is floor((lo + hi) / 2).
void append_bisection(std::vector<std::pair<std::int64_t, std::int64_t>> gaps,
                      const std::vector<double>& times, std::vector<double>& order) {
  while (!gaps.empty()) {
    std::vector<std::pair<std::int64_t, std::int64_t>> next;
    for (const auto& [lo, hi] : gaps) {
      if (hi - lo < 2) continue;
      const std::int64_t mid = (lo + hi) / 2;
      order.push_back(times[static_cast<std::size_t>(mid - 1)]);
      next.push_back({lo, mid});
      next.push_back({mid, hi});
    }
    gaps = std::move(next);
  }
}

// Cholesky of a symmetric positive definite row-major matrix; throws if it is not
// (positive definite by the rule of src/core/cholesky.hpp).
std::vector<double> cholesky(const std::vector<double>& sigma, int d) {
  for (int i = 0; i < d; ++i) {
    for (int j = 0; j < i; ++j) {
      const double a = sigma[i * d + j], b = sigma[j * d + i];
      detail::require(std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b)),
                      routines::construct, "covariance", "is not symmetric (Sigma form)");
    }
  }
  std::vector<double> c;
  detail::require(detail::cholesky_lower(sigma, static_cast<std::size_t>(d), c) < 0, routines::construct,
                  "covariance", "is not positive definite (Sigma form)");
  return c;
}

void validate_factor(const std::vector<double>& c, int d) {
  for (int i = 0; i < d; ++i) {
    detail::require(c[i * d + i] > 0, routines::construct, "covariance",
                    "factor C needs a positive diagonal");
    for (int j = i + 1; j < d; ++j) {
      detail::require(c[i * d + j] == 0, routines::construct, "covariance",
                      "factor C must be lower triangular");
    }
  }
}


// paths >= 0, and paths x per_path elements of `element_bytes` each: a count and a
// byte size that 64 bits hold.
void require_paths(const char* routine, std::int64_t paths, std::int64_t per_path, std::size_t element_bytes) {
  detail::require_non_negative(paths, routine, "paths");
  detail::require(paths <= std::numeric_limits<std::int64_t>::max() / per_path, routine, "paths",
                  "x output_records() x dimension() overflows a 64-bit count");
  detail::require_element_count(paths * per_path, element_bytes, routine, "paths x output_records() x dimension()");
}

// A CUDA bridge is called on the device it was made on.
void require_device_current(const BrownianBridge& bridge, const char* routine) {
  detail::BridgeInternals::backend(bridge).require_current(routine);
}

// What every generate call checks, in this order, before anything is written.
template <class T>
void validate_generate(const BrownianBridge& bridge, const char* routine, std::int64_t paths, const T* z,
                       const T* output, const BridgeGenerateOptions& options) {
  detail::BridgeInternals::require_live(bridge, routine);
  detail::require_enum(options.z_layout, routine, "options.z_layout", "BridgeLayout");
  detail::require_enum(options.output_layout, routine, "options.output_layout", "BridgeLayout");
  detail::require_enum(options.strategy, routine, "options.strategy", "BridgeStrategy");
  const std::int64_t per_path = bridge.output_records() * bridge.dimension();
  require_paths(routine, paths, per_path, sizeof(T));
  const std::int64_t z_count = paths * bridge.z_records() * bridge.dimension();
  detail::require_memory(z, z_count, bridge.backend(), routine, "z");
  detail::require_memory(output, paths * per_path, bridge.backend(), routine, "output");
  // Neither routine works in place: steps write output records while later steps
  // still read Z records that may lie under them (brownian_bridge.hpp, "Aliasing").
  detail::require_disjoint(output, static_cast<std::size_t>(paths * per_path) * sizeof(T), z,
                           static_cast<std::size_t>(z_count) * sizeof(T), routine, "output", "z");
  require_device_current(bridge, routine);
}

template <class T>
void generate(const BrownianBridge& bridge, const char* routine, bool increments, std::int64_t paths, const T* z,
              T* output, const BridgeGenerateOptions& options) {
  validate_generate(bridge, routine, paths, z, output, options);
  detail::BridgeInternals::backend(bridge).generate(bridge, increments, paths, z, output, options);
}

template <class T>
void generate_sobol(const BrownianBridge& bridge, const char* routine, bool increments, std::int64_t paths,
                    T* output, const SobolBridgeOptions& options) {
  detail::BridgeInternals::require_live(bridge, routine);
  detail::require_enum(options.sequence, routine, "options.sequence", "SobolSequence");
  detail::require_enum(options.output_layout, routine, "options.output_layout", "BridgeLayout");
  const std::int64_t per_path = bridge.output_records() * bridge.dimension();
  require_paths(routine, paths, per_path, sizeof(T));
  detail::require_memory(output, paths * per_path, bridge.backend(), routine, "output");
  const auto unsigned_paths = static_cast<std::uint64_t>(paths);
  if (!detail::is_64_bit(options.sequence)) {
    detail::require(options.offset <= (std::uint64_t{1} << 32) &&
                        unsigned_paths <= (std::uint64_t{1} << 32) - options.offset,
                    routine, "options.offset", [&] { return "+ paths exceeds the 2^32 points of a 32-bit Sobol sequence"; });
  } else {
    detail::require(unsigned_paths <= std::numeric_limits<std::uint64_t>::max() - options.offset, routine,
                    "options.offset", [&] { return "+ paths exceeds the 2^64 points of the sequence"; });
  }
  require_device_current(bridge, routine);
  const std::int64_t dimensions = bridge.z_records() * bridge.dimension();
  if (dimensions > detail::kMaxSobolDimensions) {
    routines::throw_not_supported("the bridge needs " + std::to_string(dimensions) +
                                  " Sobol dimensions (z_records() * dimension()); cuRAND's direction vectors "
                                  "cover 20000");
  }
  detail::BridgeInternals::backend(bridge).generate_sobol(bridge, increments, paths, output, options);
}

template <class T>
std::vector<T> generate_host(const BrownianBridge& bridge, const char* routine, bool increments, std::int64_t paths,
                             const std::vector<T>& z, const BridgeGenerateOptions& options) {
  detail::BridgeInternals::require_live(bridge, routine);
  require_paths(routine, paths, bridge.output_records() * bridge.dimension(), sizeof(T));
  detail::require(static_cast<std::int64_t>(z.size()) == paths * bridge.z_records() * bridge.dimension(), routine,
                  "z", "must hold paths * z_records() * dimension() values");
  const auto out_size = static_cast<std::size_t>(paths * bridge.output_records() * bridge.dimension());
  require_device_current(bridge, routine);
  if (bridge.backend() == Backend::cuda) {
    detail::refuse_capture(options.stream, "it copies through the device and waits for the result");
  }
  return detail::BridgeInternals::backend(bridge).generate_host(
      z, out_size, options.stream, [&](const T* backend_z, T* backend_output) {
        generate(bridge, routine, increments, paths, backend_z, backend_output, options);
      });
}

}  // namespace

std::vector<double> make_bridge_order(const std::vector<double>& times, BridgeOrder order,
                                      const std::vector<double>& important_times) {
  constexpr const char* routine = routines::make_order;
  const detail::RoutineScope scope(routine);
  detail::require_enum(order, routine, "order", "BridgeOrder");
  detail::require(!times.empty(), routine, "times", "is empty");
  detail::require(all_finite(times), routine, "times", "contains NaN or Inf");
  for (std::size_t i = 1; i < times.size(); ++i) {
    detail::require(times[i - 1] < times[i], routine, "times", "is not strictly increasing");
  }
  const auto n = static_cast<std::int64_t>(times.size());
  if (order == BridgeOrder::ascending) return times;
  std::vector<double> result;
  result.reserve(times.size());
  if (order == BridgeOrder::bisection) {
    append_bisection({{0, n + 1}}, times, result);
    return result;
  }
  // important_first
  std::vector<std::int64_t> known{0, n + 1};
  for (double t : important_times) {
    const auto it = std::lower_bound(times.begin(), times.end(), t);
    detail::require(it != times.end() && *it == t, routine, "important_times", "names a time that is not in times");
    const std::int64_t index = (it - times.begin()) + 1;
    detail::require(std::find(known.begin(), known.end(), index) == known.end(), routine, "important_times",
                    "contains a duplicate");
    known.push_back(index);
    result.push_back(t);
  }
  std::sort(known.begin(), known.end());
  std::vector<std::pair<std::int64_t, std::int64_t>> gaps;
  for (std::size_t i = 1; i < known.size(); ++i) gaps.push_back({known[i - 1], known[i]});
  append_bisection(std::move(gaps), times, result);
  return result;
}

BrownianBridge::BrownianBridge(double t0, double T, std::vector<double> construction_order,
                               int dimension, const std::vector<double>& covariance,
                               CovarianceForm form, std::vector<double> start,
                               std::optional<std::vector<double>> fixed_end, const Placement& placement)
    : backend_(Backend::cpu), dimension_(dimension), start_(std::move(start)),
      fixed_end_(std::move(fixed_end)) {
  constexpr const char* routine = routines::construct;
  const detail::RoutineScope scope(routine);
  detail::require_finite(t0, routine, "t0");
  detail::require_finite(T, routine, "T");
  detail::require(t0 < T, routine, "T", "must be greater than t0");
  detail::require(std::isfinite(T - t0), routine, "T", "- t0 overflows double");
  const auto n = static_cast<std::int64_t>(construction_order.size());
  detail::require(n >= 1, routine, "construction_order", "needs at least one interior time");
  detail::require(n <= kMaxInteriorPoints, routine, "construction_order", "has more than 2^31 - 2 times");
  detail::require(all_finite(construction_order), routine, "construction_order", "contains NaN or Inf");
  for (double t : construction_order) {
    detail::require(t0 < t && t < T, routine, "construction_order",
                    [&] { return "has a time outside the open interval (t0, T): " + std::to_string(t); });
  }
  std::vector<double> sorted = construction_order;
  std::sort(sorted.begin(), sorted.end());
  detail::require(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), routine,
                  "construction_order", "contains a duplicate time");
  // Increments divide by the gaps of the grid: each needs a finite reciprocal.
  for (std::size_t i = 0; i <= sorted.size(); ++i) {
    const double left = i == 0 ? t0 : sorted[i - 1], right = i == sorted.size() ? T : sorted[i];
    detail::require(std::isfinite(1.0 / (right - left)), routine, "construction_order", [&] {
      return "has consecutive times closer than 2^-1024 (t_" + std::to_string(i) + " and t_" + std::to_string(i + 1) +
             ", where t_0 = t0 and t_{N+1} = T): an increment's 1 / gap overflows";
    });
  }
  detail::require(dimension >= 1, routine, "dimension", "must be >= 1");
  const auto d = static_cast<std::size_t>(dimension);
  detail::require(covariance.size() == d * d, routine, "covariance", "must hold dimension^2 values");
  detail::require(all_finite(covariance), routine, "covariance", "contains NaN or Inf");
  detail::require_enum(form, routine, "form", "CovarianceForm");
  detail::require(start_.size() == d, routine, "start", "must hold dimension values");
  detail::require(all_finite(start_), routine, "start", "contains NaN or Inf");
  if (fixed_end_) {
    detail::require(fixed_end_->size() == d, routine, "fixed_end", "must hold dimension values");
    detail::require(all_finite(*fixed_end_), routine, "fixed_end", "contains NaN or Inf");
  }
  Placement resolved = detail::resolve_placement(placement, detail::DeviceCount::one, routine);
  if (form == CovarianceForm::factor) {
    validate_factor(covariance, dimension);
    factor_ = covariance;
  } else {
    factor_ = cholesky(covariance, dimension);
  }

  times_.reserve(sorted.size() + 2);
  times_.push_back(t0);
  times_.insert(times_.end(), sorted.begin(), sorted.end());
  times_.push_back(T);
  std::vector<std::uint32_t> order(construction_order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    order[k] = static_cast<std::uint32_t>(
        std::lower_bound(sorted.begin(), sorted.end(), construction_order[k]) - sorted.begin() + 1);
  }
  backend_ = resolved.backend;
  impl_ = std::make_unique<Impl>();
  impl_->placement = std::move(resolved);
  impl_->compiled = detail::compile_bridge(times_, order, fixed_end_.has_value());
  const detail::PlacementDeviceScope on_device(impl_->placement);
  impl_->backend = backend_ == Backend::cuda ? detail::make_brownian_bridge_cuda(*this, impl_->placement)
                                             : detail::make_brownian_bridge_cpu();
}

BrownianBridge::~BrownianBridge() = default;
BrownianBridge::BrownianBridge(BrownianBridge&&) noexcept = default;
BrownianBridge& BrownianBridge::operator=(BrownianBridge&&) noexcept = default;

const Placement& BrownianBridge::placement() const {
  return detail::require_plan(impl_, routines::placement, "BrownianBridge").placement;
}

std::uint32_t BrownianBridge::stack_size() const {
  constexpr const char* routine = routines::stack_size;
  const detail::RoutineScope scope(routine);
  detail::BridgeInternals::require_live(*this, routine);
  return impl_->compiled.stack_size;
}

std::vector<BridgeConstructionStep> BrownianBridge::construction_steps() const {
  constexpr const char* routine = routines::construction_steps;
  const detail::RoutineScope scope(routine);
  detail::BridgeInternals::require_live(*this, routine);
  std::vector<BridgeConstructionStep> steps;
  steps.reserve(impl_->compiled.steps.size());
  for (const detail::BridgeStep& step : impl_->compiled.steps) {
    const std::optional<std::uint32_t> store_slot =
        step.store_slot != detail::BridgeStep::no_store ? std::optional<std::uint32_t>(step.store_slot) : std::nullopt;
    steps.push_back({step.output_index, step.left_time_index, step.right_time_index, step.z_index, step.left_weight,
                     step.right_weight, step.std_dev, step.left_slot, step.right_slot, store_slot});
  }
  return steps;
}

template <class T>
void BrownianBridge::generate_paths(std::int64_t paths, const T* z, T* output,
                                    const BridgeGenerateOptions& options) const {
  const detail::RoutineScope scope(routines::generate_paths);
  generate(*this, routines::generate_paths, false, paths, z, output, options);
}

template <class T>
void BrownianBridge::generate_increments(std::int64_t paths, const T* z, T* output,
                                         const BridgeGenerateOptions& options) const {
  const detail::RoutineScope scope(routines::generate_increments);
  generate(*this, routines::generate_increments, true, paths, z, output, options);
}

template <class T>
void BrownianBridge::generate_sobol_paths(std::int64_t paths, T* output, const SobolBridgeOptions& options) const {
  const detail::RoutineScope scope(routines::generate_sobol_paths);
  generate_sobol(*this, routines::generate_sobol_paths, false, paths, output, options);
}

template <class T>
void BrownianBridge::generate_sobol_increments(std::int64_t paths, T* output,
                                               const SobolBridgeOptions& options) const {
  const detail::RoutineScope scope(routines::generate_sobol_increments);
  generate_sobol(*this, routines::generate_sobol_increments, true, paths, output, options);
}

template <class T>
std::vector<T> BrownianBridge::generate_paths(std::int64_t paths, const std::vector<T>& z,
                                              const BridgeGenerateOptions& options) const {
  const detail::RoutineScope scope(routines::generate_paths);
  return generate_host(*this, routines::generate_paths, false, paths, z, options);
}

template <class T>
std::vector<T> BrownianBridge::generate_increments(std::int64_t paths, const std::vector<T>& z,
                                                   const BridgeGenerateOptions& options) const {
  const detail::RoutineScope scope(routines::generate_increments);
  return generate_host(*this, routines::generate_increments, true, paths, z, options);
}

#define CUNUM_INSTANTIATE_BRIDGE(T)                                                                                \
  template void BrownianBridge::generate_paths(std::int64_t, const T*, T*, const BridgeGenerateOptions&) const;      \
  template void BrownianBridge::generate_increments(std::int64_t, const T*, T*, const BridgeGenerateOptions&)       \
      const;                                                                                                       \
  template std::vector<T> BrownianBridge::generate_paths(std::int64_t, const std::vector<T>&,                      \
                                                         const BridgeGenerateOptions&) const;                      \
  template std::vector<T> BrownianBridge::generate_increments(std::int64_t, const std::vector<T>&,                 \
                                                              const BridgeGenerateOptions&) const;                 \
  template void BrownianBridge::generate_sobol_paths(std::int64_t, T*, const SobolBridgeOptions&) const;           \
  template void BrownianBridge::generate_sobol_increments(std::int64_t, T*, const SobolBridgeOptions&) const;
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_BRIDGE, CUNUM_REAL_TYPES)

}  // namespace cunum
