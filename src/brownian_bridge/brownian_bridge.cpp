// Brownian bridge front end: validation at the API boundary, the order helper,
// the covariance factor and dispatch to the CPU or CUDA backend.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "src/brownian_bridge/bridge_backends.hpp"
#include "src/brownian_bridge/bridge_compiler.hpp"
#include "src/random/sobol_tables.hpp"
#include "src/core/enum_functions.hpp"
#include "src/core/validate.hpp"
#include "cunum/core/device_buffer.hpp"
#include "cunum/core/error.hpp"

namespace cunum {

CUNUM_DEFINE_ENUM_FUNCTIONS(BridgeOrder, CUNUM_BRIDGE_ORDERS)
CUNUM_DEFINE_ENUM_FUNCTIONS(CovarianceForm, CUNUM_COVARIANCE_FORMS)
CUNUM_DEFINE_ENUM_FUNCTIONS(BridgeLayout, CUNUM_BRIDGE_LAYOUTS)
CUNUM_DEFINE_ENUM_FUNCTIONS(BridgeStrategy, CUNUM_BRIDGE_STRATEGIES)

namespace {

constexpr const char* kOrderRoutine = "cunum::make_bridge_order";
constexpr const char* kInitRoutine = "cunum::BrownianBridge";
constexpr const char* kGenerateRoutine = "cunum::BrownianBridge::generate";
constexpr const char* kSobolRoutine = "cunum::BrownianBridge::generate_sobol";

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

// Cholesky of a symmetric positive definite row-major matrix; throws if it is not.
std::vector<double> cholesky(const std::vector<double>& sigma, int d) {
  for (int i = 0; i < d; ++i) {
    for (int j = 0; j < i; ++j) {
      const double a = sigma[i * d + j], b = sigma[j * d + i];
      detail::require(std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b)),
                      kInitRoutine, "covariance", "is not symmetric (Sigma form)");
    }
  }
  std::vector<double> c(static_cast<std::size_t>(d) * d, 0.0);
  for (int j = 0; j < d; ++j) {
    double pivot = sigma[j * d + j];
    for (int k = 0; k < j; ++k) pivot -= c[j * d + k] * c[j * d + k];
    detail::require(pivot > 0, kInitRoutine, "covariance",
                    "is not positive definite (Sigma form)");
    c[j * d + j] = std::sqrt(pivot);
    for (int i = j + 1; i < d; ++i) {
      double sum = sigma[i * d + j];
      for (int k = 0; k < j; ++k) sum -= c[i * d + k] * c[j * d + k];
      c[i * d + j] = sum / c[j * d + j];
    }
  }
  return c;
}

// paths >= 0 and paths x per_path elements of `element_bytes` fit in 2^63 bytes.
void validate_paths(const char* routine, std::int64_t paths, std::int64_t per_path,
                    std::size_t element_bytes) {
  detail::require_non_negative(paths, routine, "paths");
  detail::require(paths <= std::numeric_limits<std::int64_t>::max() /
                               static_cast<std::int64_t>(element_bytes) / per_path,
                  routine, "paths", "makes the arrays larger than 2^63 bytes");
}

bool valid_layout(BridgeLayout layout) {
  return layout == BridgeLayout::path_fastest || layout == BridgeLayout::path_contiguous;
}

// cuRAND's direction-vector tables hold this many dimensions.
constexpr std::int64_t kMaxSobolDimensions = 20000;

void validate_factor(const std::vector<double>& c, int d) {
  for (int i = 0; i < d; ++i) {
    detail::require(c[i * d + i] > 0, kInitRoutine, "covariance",
                    "factor C needs a positive diagonal");
    for (int j = i + 1; j < d; ++j) {
      detail::require(c[i * d + j] == 0, kInitRoutine, "covariance",
                      "factor C must be lower triangular");
    }
  }
}

}  // namespace

std::vector<double> make_bridge_order(const std::vector<double>& times, BridgeOrder order,
                                      const std::vector<double>& important_times) {
  detail::require(!times.empty(), kOrderRoutine, "times", "is empty");
  detail::require(all_finite(times), kOrderRoutine, "times", "contains NaN or Inf");
  for (std::size_t i = 1; i < times.size(); ++i) {
    detail::require(times[i - 1] < times[i], kOrderRoutine, "times", "is not strictly increasing");
  }
  const auto n = static_cast<std::int64_t>(times.size());
  std::vector<double> result;
  result.reserve(times.size());
  switch (order) {
    case BridgeOrder::ascending:
      return times;
    case BridgeOrder::bisection:
      append_bisection({{0, n + 1}}, times, result);
      return result;
    case BridgeOrder::important_first: {
      std::vector<std::int64_t> known{0, n + 1};
      for (double t : important_times) {
        const auto it = std::lower_bound(times.begin(), times.end(), t);
        detail::require(it != times.end() && *it == t, kOrderRoutine, "important_times",
                        "names a time that is not in times");
        const std::int64_t index = (it - times.begin()) + 1;
        detail::require(std::find(known.begin(), known.end(), index) == known.end(),
                        kOrderRoutine, "important_times", "contains a duplicate");
        known.push_back(index);
        result.push_back(t);
      }
      std::sort(known.begin(), known.end());
      std::vector<std::pair<std::int64_t, std::int64_t>> gaps;
      for (std::size_t i = 1; i < known.size(); ++i) gaps.push_back({known[i - 1], known[i]});
      append_bisection(std::move(gaps), times, result);
      return result;
    }
  }
  detail::require(false, kOrderRoutine, "order", "is not a BridgeOrder");
  return result;
}

struct BrownianBridge::DeviceStrategy {
  explicit DeviceStrategy(detail::BridgeDeviceStrategy* uploaded) : strategy(uploaded) {}
  ~DeviceStrategy() { detail::bridge_release_strategy(strategy); }
  DeviceStrategy(const DeviceStrategy&) = delete;
  DeviceStrategy& operator=(const DeviceStrategy&) = delete;
  detail::BridgeDeviceStrategy* strategy;
};

BrownianBridge::BrownianBridge(double t0, double T, std::vector<double> construction_order,
                               int dimension, const std::vector<double>& covariance,
                               CovarianceForm form, std::vector<double> start,
                               std::optional<std::vector<double>> fixed_end, Backend backend)
    : backend_(Backend::cpu), dimension_(dimension), start_(std::move(start)),
      fixed_end_(std::move(fixed_end)) {
  detail::require(std::isfinite(t0), kInitRoutine, "t0", "is not finite");
  detail::require(std::isfinite(T), kInitRoutine, "T", "is not finite");
  detail::require(t0 < T, kInitRoutine, "T", "must be greater than t0");
  const auto n = static_cast<std::int64_t>(construction_order.size());
  detail::require(n >= 1, kInitRoutine, "construction_order", "needs at least one interior time");
  detail::require(n <= kMaxInteriorPoints, kInitRoutine, "construction_order",
                  "has more than 2^31 - 2 times");
  detail::require(all_finite(construction_order), kInitRoutine, "construction_order",
                  "contains NaN or Inf");
  for (double t : construction_order) {
    detail::require(t0 < t && t < T, kInitRoutine, "construction_order",
                    "has a time outside the open interval (t0, T): " + std::to_string(t));
  }
  std::vector<double> sorted = construction_order;
  std::sort(sorted.begin(), sorted.end());
  detail::require(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), kInitRoutine,
                  "construction_order", "contains a duplicate time");
  detail::require(dimension >= 1, kInitRoutine, "dimension", "must be >= 1");
  const auto d = static_cast<std::size_t>(dimension);
  detail::require(covariance.size() == d * d, kInitRoutine, "covariance",
                  "must hold dimension^2 values");
  detail::require(all_finite(covariance), kInitRoutine, "covariance", "contains NaN or Inf");
  detail::require(start_.size() == d, kInitRoutine, "start", "must hold dimension values");
  detail::require(all_finite(start_), kInitRoutine, "start", "contains NaN or Inf");
  if (fixed_end_) {
    detail::require(fixed_end_->size() == d, kInitRoutine, "fixed_end",
                    "must hold dimension values");
    detail::require(all_finite(*fixed_end_), kInitRoutine, "fixed_end", "contains NaN or Inf");
  }
  if (form == CovarianceForm::factor) {
    validate_factor(covariance, dimension);
    factor_ = covariance;
  } else {
    detail::require(form == CovarianceForm::covariance, kInitRoutine, "form",
                    "is not a CovarianceForm");
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
  auto compiled = detail::compile_bridge(times_, order, fixed_end_.has_value());
  steps_ = std::move(compiled.steps);
  stack_size_ = compiled.stack_size;

  backend_ = resolve_backend(backend);
  if (backend_ == Backend::cuda) {
    device_ = std::make_unique<DeviceStrategy>(detail::bridge_upload_strategy(*this));
  }
}

namespace detail {
const BridgeDeviceStrategy* device_strategy(const BrownianBridge& bridge) noexcept {
  return bridge.device_ ? bridge.device_->strategy : nullptr;
}
}  // namespace detail

BrownianBridge::~BrownianBridge() = default;
BrownianBridge::BrownianBridge(BrownianBridge&&) noexcept = default;
BrownianBridge& BrownianBridge::operator=(BrownianBridge&&) noexcept = default;

template <class T>
void BrownianBridge::generate(bool increments, std::int64_t paths, const T* z, T* output,
                              const BridgeGenerateOptions& options) const {
  validate_paths(kGenerateRoutine, paths, output_records() * dimension_, sizeof(T));
  const std::int64_t per_path = output_records() * dimension_;
  detail::require_pointer(z, paths * z_records() * dimension_, kGenerateRoutine, "z");
  detail::require_pointer(output, paths * per_path, kGenerateRoutine, "output");
  detail::require(valid_layout(options.z_layout), kGenerateRoutine, "options.z_layout",
                  "is not a BridgeLayout");
  detail::require(valid_layout(options.output_layout), kGenerateRoutine,
                  "options.output_layout", "is not a BridgeLayout");
  if (backend_ == Backend::cpu) {
    if (paths == 0) return;
    detail::bridge_generate_cpu<T>(*this, increments, paths, {z, options.z_layout, paths, 0},
                                   {output, options.output_layout, paths, 0});
    return;
  }
  detail::bridge_generate_cuda(*this, *device_->strategy, increments, paths, z, output, options);
}

template <class T>
void BrownianBridge::generate_sobol(bool increments, std::int64_t paths, T* output,
                                    const SobolBridgeOptions& options) const {
  validate_paths(kSobolRoutine, paths, output_records() * dimension_, sizeof(T));
  detail::require_pointer(output, paths * output_records() * dimension_, kSobolRoutine, "output");
  detail::require(valid_layout(options.output_layout), kSobolRoutine, "options.output_layout",
                  "is not a BridgeLayout");
  const SobolSequence sequence = options.sequence;
  detail::require(sequence == SobolSequence::sobol32 || sequence == SobolSequence::scrambled_sobol32 ||
                      sequence == SobolSequence::sobol64 || sequence == SobolSequence::scrambled_sobol64,
                  kSobolRoutine, "options.sequence", "is not a SobolSequence");
  const auto unsigned_paths = static_cast<std::uint64_t>(paths);
  if (!detail::is_64_bit(sequence)) {
    detail::require(options.offset <= (std::uint64_t{1} << 32) &&
                        unsigned_paths <= (std::uint64_t{1} << 32) - options.offset,
                    kSobolRoutine, "options.offset",
                    "+ paths exceeds the 2^32 points of a 32-bit Sobol sequence");
  } else {
    detail::require(unsigned_paths <= std::numeric_limits<std::uint64_t>::max() - options.offset,
                    kSobolRoutine, "options.offset", "+ paths exceeds the 2^64 points of the sequence");
  }
  const std::int64_t dimensions = z_records() * dimension_;
  if (dimensions > kMaxSobolDimensions) {
    throw Error(ErrorCode::not_supported,
                std::string(kSobolRoutine) + ": the bridge needs " + std::to_string(dimensions) +
                    " Sobol dimensions (z_records() * dimension()); cuRAND's direction vectors "
                    "cover 20000");
  }
  if (backend_ == Backend::cpu) {
    if (options.offset >= (std::uint64_t{1} << 32)) {
      throw Error(ErrorCode::not_supported,
                  std::string(kSobolRoutine) + ": options.offset >= 2^32 on the CPU backend: cuRAND's host "
                  "generator keeps only the low 32 bits of an offset (the CUDA backend has no such limit)");
    }
    if (paths == 0) return;
    detail::bridge_generate_sobol_cpu(*this, increments, paths, output, options);
    return;
  }
  detail::bridge_generate_sobol_cuda(*this, *device_->strategy, increments, paths, output, options);
}

template <class T>
void BrownianBridge::generate_sobol_paths(std::int64_t paths, T* output,
                                          const SobolBridgeOptions& options) const {
  generate_sobol(false, paths, output, options);
}

template <class T>
void BrownianBridge::generate_sobol_increments(std::int64_t paths, T* output,
                                               const SobolBridgeOptions& options) const {
  generate_sobol(true, paths, output, options);
}

template <class T>
void BrownianBridge::generate_paths(std::int64_t paths, const T* z, T* output,
                                    const BridgeGenerateOptions& options) const {
  generate(false, paths, z, output, options);
}

template <class T>
void BrownianBridge::generate_increments(std::int64_t paths, const T* z, T* output,
                                         const BridgeGenerateOptions& options) const {
  generate(true, paths, z, output, options);
}

template <class T>
std::vector<T> BrownianBridge::generate_host(bool increments, std::int64_t paths,
                                             const std::vector<T>& z,
                                             const BridgeGenerateOptions& options) const {
  validate_paths(kGenerateRoutine, paths, output_records() * dimension_, sizeof(T));
  detail::require(static_cast<std::int64_t>(z.size()) == paths * z_records() * dimension_,
                  kGenerateRoutine, "z", "must hold paths * z_records() * dimension() values");
  const auto out_size = static_cast<std::size_t>(paths * output_records() * dimension_);
  if (backend_ == Backend::cpu) {
    std::vector<T> output(out_size);
    generate(increments, paths, z.data(), output.data(), options);
    return output;
  }
  const auto device_z = DeviceBuffer<T>::from_host(z, options.stream);
  DeviceBuffer<T> device_output(out_size, options.stream);
  generate(increments, paths, device_z.data(), device_output.data(), options);
  return device_output.to_host();
}

template <class T>
std::vector<T> BrownianBridge::generate_paths(std::int64_t paths, const std::vector<T>& z,
                                              const BridgeGenerateOptions& options) const {
  return generate_host(false, paths, z, options);
}

template <class T>
std::vector<T> BrownianBridge::generate_increments(std::int64_t paths, const std::vector<T>& z,
                                                   const BridgeGenerateOptions& options) const {
  return generate_host(true, paths, z, options);
}

#define CUNUM_INSTANTIATE_BRIDGE(T)                                                          \
  template void BrownianBridge::generate_paths(std::int64_t, const T*, T*,                   \
                                               const BridgeGenerateOptions&) const;          \
  template void BrownianBridge::generate_increments(std::int64_t, const T*, T*,              \
                                                    const BridgeGenerateOptions&) const;     \
  template std::vector<T> BrownianBridge::generate_paths(std::int64_t, const std::vector<T>&, \
                                                         const BridgeGenerateOptions&) const; \
  template std::vector<T> BrownianBridge::generate_increments(                               \
      std::int64_t, const std::vector<T>&, const BridgeGenerateOptions&) const;              \
  template void BrownianBridge::generate_sobol_paths(std::int64_t, T*,                       \
                                                     const SobolBridgeOptions&) const;       \
  template void BrownianBridge::generate_sobol_increments(std::int64_t, T*,                  \
                                                          const SobolBridgeOptions&) const;

CUNUM_INSTANTIATE_BRIDGE(float)
CUNUM_INSTANTIATE_BRIDGE(double)

}  // namespace cunum
