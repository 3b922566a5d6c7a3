// CUDA side of the Brownian bridge, host code: uploads a compiled strategy
// (constant-memory image for strategies 1-3, step indices and weights for 4-5 and
// the fused Sobol kernel) into memory from the bridge's placement.device_memory on
// the device's setup stream, waiting for those copies only, chooses the strategy
// and calls its launcher (kernels/brownian_bridge/).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "cunum/core/device.hpp"
#include "kernels/brownian_bridge/brownian_bridge_launch.hpp"
#include "src/brownian_bridge/brownian_bridge_backends.hpp"
#include "src/brownian_bridge/bridge_device.hpp"
#include "src/brownian_bridge/bridge_internals.hpp"
#include "src/brownian_bridge/bridge_routines.hpp"
#include "src/brownian_bridge/constant_image_order.hpp"
#include "cunum/core/device_buffer.hpp"
#include "src/core/check.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/graph_capture.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/routine.hpp"
#include "src/core/setup_stream.hpp"
#include "src/core/validate.hpp"
#include "src/random/random_internal.hpp"

namespace cunum::detail {
namespace {

namespace routines = bridge_routines;

constexpr std::int64_t kMaxConstantIndex = 0xFFFF;  // 16-bit Z and output indices
constexpr std::uint32_t kMaxSharedSlots = 0xFFFF;   // 16-bit stack slots

template <class T>
void append(std::vector<unsigned char>& image, std::uint32_t& offset, const T* values,
            std::size_t count) {
  // Every array starts 8-byte aligned.
  image.resize((image.size() + 7) / 8 * 8);
  offset = static_cast<std::uint32_t>(image.size());
  image.resize(image.size() + sizeof(T) * count);
  std::memcpy(image.data() + offset, values, sizeof(T) * count);
}

std::uint8_t increment_flags(const BridgeStep& s) {
  return static_cast<std::uint8_t>((s.left_increment ? kLeftIncrement : 0) |
                                   (s.right_increment ? kRightIncrement : 0));
}

bool constant_strategy_possible(const BrownianBridge& bridge) {
  return bridge.dimension() <= BridgeLimits::max_constant_dimension &&
         bridge.stack_size() <= static_cast<std::uint32_t>(BridgeLimits::max_local_stack) &&
         bridge.output_records() <= kMaxConstantIndex;
}

template <class T>
void build_constant_image(const BrownianBridge& bridge, TypedDeviceStrategy<T>& typed) {
  if (!constant_strategy_possible(bridge)) return;
  const int d = bridge.dimension();
  constexpr int m = BridgeLimits::max_constant_dimension;
  std::vector<T> factor(m * m, T(0));
  for (int i = 0; i < d; ++i) {
    for (int j = 0; j < d; ++j) factor[i * m + j] = static_cast<T>(bridge.factor()[i * d + j]);
  }
  const std::vector<T> start(bridge.start().begin(), bridge.start().end());
  std::vector<T> end(static_cast<std::size_t>(d), T(0));
  if (bridge.fixed_end()) end.assign(bridge.end_value()->begin(), bridge.end_value()->end());
  std::vector<T> weights;
  std::vector<std::uint16_t> z_index, output_index;
  std::vector<std::uint8_t> left, right, store, increments;
  for (const BridgeStep& s : BridgeInternals::compiled(bridge).steps) {
    weights.insert(weights.end(), {static_cast<T>(s.left_weight), static_cast<T>(s.right_weight),
                                   static_cast<T>(s.std_dev), static_cast<T>(s.inverse_left_gap),
                                   static_cast<T>(s.inverse_right_gap)});
    z_index.push_back(static_cast<std::uint16_t>(s.z_index));
    output_index.push_back(static_cast<std::uint16_t>(s.output_index));
    left.push_back(static_cast<std::uint8_t>(s.left_slot));
    right.push_back(static_cast<std::uint8_t>(s.right_slot));
    store.push_back(s.store_slot == BridgeStep::no_store ? BridgeLimits::constant_no_store
                                                         : static_cast<std::uint8_t>(s.store_slot));
    increments.push_back(increment_flags(s));
  }
  std::vector<unsigned char> image;
  ConstantLayout& layout = typed.constant_layout;
  append(image, layout.factor, factor.data(), factor.size());
  append(image, layout.start, start.data(), start.size());
  append(image, layout.end, end.data(), end.size());
  append(image, layout.weights, weights.data(), weights.size());
  append(image, layout.z_index, z_index.data(), z_index.size());
  append(image, layout.output_index, output_index.data(), output_index.size());
  append(image, layout.left, left.data(), left.size());
  append(image, layout.right, right.data(), right.size());
  append(image, layout.store, store.data(), store.size());
  append(image, layout.increments, increments.data(), increments.size());
  layout.bytes = static_cast<std::uint32_t>(image.size());
  if (image.size() <= BridgeLimits::constant_bytes) {
    typed.constant_image = std::move(image);
    typed.constant_image_id = new_constant_image_id();
  }
}

// The strategy uploaded for a CUDA bridge.
const BridgeDeviceStrategy& cuda_strategy(const BrownianBridge& bridge) {
  const BridgeDeviceStrategy* strategy = BridgeInternals::device_strategy(bridge);
  require(strategy != nullptr, routines::current(), "bridge", "does not use the CUDA backend");
  return *strategy;
}

template <class T>
void upload_typed(const BrownianBridge& bridge, SetupUpload& upload, TypedDeviceStrategy<T>& typed) {
  build_constant_image(bridge, typed);
  const int d = bridge.dimension();
  std::vector<StepWeights<T>> weights;
  const std::vector<BridgeStep>& steps = BridgeInternals::compiled(bridge).steps;
  weights.reserve(steps.size());
  for (const BridgeStep& s : steps) {
    weights.push_back({static_cast<T>(s.left_weight), static_cast<T>(s.right_weight),
                       static_cast<T>(s.std_dev), static_cast<T>(s.inverse_left_gap),
                       static_cast<T>(s.inverse_right_gap)});
  }
  typed.weights = upload.copy(std::move(weights));
  if (d <= BridgeLimits::max_register_dimension) {
    constexpr int m = BridgeLimits::max_register_dimension;
    std::vector<T> factor(m * m, T(0));
    for (int i = 0; i < d; ++i) {
      for (int j = 0; j < d; ++j) factor[i * m + j] = static_cast<T>(bridge.factor()[i * d + j]);
    }
    typed.factor = upload.copy(std::move(factor));
  }
  typed.start = upload.copy(std::vector<T>(bridge.start().begin(), bridge.start().end()));
  std::vector<T> end(static_cast<std::size_t>(d), T(0));
  if (bridge.fixed_end()) end.assign(bridge.end_value()->begin(), bridge.end_value()->end());
  typed.end = upload.copy(std::move(end));
}

std::vector<StepIndices> step_indices(const BrownianBridge& bridge) {
  std::vector<StepIndices> indices;
  const std::vector<BridgeStep>& steps = BridgeInternals::compiled(bridge).steps;
  indices.reserve(steps.size());
  for (const BridgeStep& s : steps) {
    StepIndices g{};
    g.z_index = s.z_index;
    g.output_index = s.output_index;
    g.left_slot = static_cast<std::uint16_t>(s.left_slot);
    g.right_slot = static_cast<std::uint16_t>(s.right_slot);
    // The stack size marks "no store" (every real slot is below it).
    g.store_slot = static_cast<std::uint16_t>(s.store_slot == BridgeStep::no_store ? bridge.stack_size()
                                                                                  : s.store_slot);
    g.reuse = static_cast<std::uint8_t>(static_cast<int>(s.left_reuse) | static_cast<int>(s.right_reuse) << 2);
    g.increments = increment_flags(s);
    indices.push_back(g);
  }
  return indices;
}

bool is_constant_family(BridgeStrategy s) {
  return s == BridgeStrategy::constant_memory || s == BridgeStrategy::vectorized ||
         s == BridgeStrategy::prefetch;
}

std::string register_family_limits(const BrownianBridge& bridge, std::size_t shared_bytes_needed) {
  if (bridge.dimension() > BridgeLimits::max_register_dimension) {
    return "dimension > " + std::to_string(BridgeLimits::max_register_dimension) + " (C held in registers)";
  }
  if (bridge.stack_size() >= kMaxSharedSlots) return "stack size >= 65535 (16-bit slots)";
  const std::size_t available = device_properties().shared_memory_per_block_optin_bytes;
  if (shared_bytes_needed > available) {
    return "needs " + std::to_string(shared_bytes_needed) + " bytes of shared memory per block > " +
           std::to_string(available);
  }
  return {};
}

// Why `which` cannot serve, or an empty string when it can.
std::string unsupported_reason(const BrownianBridge& bridge, BridgeStrategy which, bool double_precision) {
  if (is_constant_family(which)) {
    if (bridge.dimension() > BridgeLimits::max_constant_dimension) {
      return "dimension > " + std::to_string(BridgeLimits::max_constant_dimension);
    }
    if (bridge.stack_size() > static_cast<std::uint32_t>(BridgeLimits::max_local_stack)) {
      return "stack size " + std::to_string(bridge.stack_size()) + " > local stack limit " +
             std::to_string(BridgeLimits::max_local_stack);
    }
    if (bridge.output_records() > kMaxConstantIndex) return "N + 1 > 65535 (16-bit indices)";
    const BridgeDeviceStrategy& strategy = cuda_strategy(bridge);
    const std::size_t bytes = double_precision ? strategy.typed<double>().constant_layout.bytes
                                               : strategy.typed<float>().constant_layout.bytes;
    if (bytes > BridgeLimits::constant_bytes) {
      return "strategy needs " + std::to_string(bytes) + " bytes of constant memory > " +
             std::to_string(BridgeLimits::constant_bytes);
    }
    return {};
  }
  const int threads = BridgeLimits::min_shared_block_threads;
  return register_family_limits(
      bridge, double_precision ? bridge_shared_bytes<double>(bridge.stack_size(), bridge.dimension(), threads, 1)
                               : bridge_shared_bytes<float>(bridge.stack_size(), bridge.dimension(), threads, 1));
}

}  // namespace

template <class T>
BridgeArgs<T> bridge_args(const BrownianBridge& bridge, bool increments, std::int64_t paths, const T* z, T* output,
                          BridgeLayout z_layout, BridgeLayout output_layout) {
  BridgeArgs<T> args{};
  args.z = z;
  args.output = output;
  args.paths = paths;
  args.z_records = bridge.z_records();
  args.output_records = bridge.output_records();
  args.steps = static_cast<std::uint32_t>(bridge.interior_points());
  args.dimension = bridge.dimension();
  args.z_layout = z_layout;
  args.output_layout = output_layout;
  args.end_std_dev = static_cast<T>(std::sqrt(bridge.times().back() - bridge.times().front()));
  args.fixed_end = bridge.fixed_end();
  args.increments = increments;
  return args;
}

namespace {

// Lane table (x_k of lane l's part of the index), direction vectors and
// scrambling constants, back to back (see DeviceSobolTables).
template <class Word>
std::vector<unsigned char> sobol_table_bytes(SobolSequence sequence, std::int64_t dimensions) {
  constexpr int bits = sizeof(Word) * 8;
  constexpr int lanes = 32;
  const SobolTables<Word> tables = sobol_tables<Word>(sequence, dimensions);
  std::vector<Word> words(static_cast<std::size_t>(dimensions) * (lanes + bits + 1));
  for (std::int64_t k = 0; k < dimensions; ++k) {
    for (unsigned lane = 0; lane < lanes; ++lane) {
      const unsigned gray = lane ^ (lane >> 1);
      Word x = 0;
      for (int b = 0; b < 5; ++b) {
        if (gray >> b & 1u) x ^= tables.direction_vectors[k * bits + b];
      }
      words[k * lanes + lane] = x;
    }
  }
  std::copy(tables.direction_vectors.begin(), tables.direction_vectors.end(), words.begin() + dimensions * lanes);
  std::copy(tables.scramble.begin(), tables.scramble.end(), words.begin() + dimensions * (lanes + bits));
  std::vector<unsigned char> bytes(words.size() * sizeof(Word));
  std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

}  // namespace

const DeviceSobolTables& BridgeDeviceStrategy::sobol_tables(const BrownianBridge& bridge,
                                                            SobolSequence sequence) const {
  std::lock_guard<std::mutex> lock(sobol_mutex_);
  auto& entry = sobol_[static_cast<int>(sequence)];
  if (!entry) {
    const std::int64_t dimensions = bridge.z_records() * bridge.dimension();
    auto tables = std::make_unique<DeviceSobolTables>();
    SetupUpload upload(memory);
    tables->bytes = upload.copy(is_64_bit(sequence) ? sobol_table_bytes<std::uint64_t>(sequence, dimensions)
                                                    : sobol_table_bytes<std::uint32_t>(sequence, dimensions));
    upload.wait();
    entry = std::move(tables);
  }
  return *entry;
}

bool BridgeDeviceStrategy::has_sobol_tables(SobolSequence sequence) const {
  std::lock_guard<std::mutex> lock(sobol_mutex_);
  return sobol_[static_cast<int>(sequence)] != nullptr;
}

std::unique_ptr<BridgeDeviceStrategy> bridge_upload_strategy(const BrownianBridge& bridge,
                                                            DeviceMemoryResource* memory) {
  auto strategy = std::make_unique<BridgeDeviceStrategy>();
  strategy->stack_size = bridge.stack_size();
  strategy->memory = memory;
  SetupUpload upload(memory);
  upload_typed(bridge, upload, strategy->single);
  upload_typed(bridge, upload, strategy->double_precision);
  if (bridge.stack_size() < kMaxSharedSlots) strategy->indices = upload.copy(step_indices(bridge));
  upload.wait();
  return strategy;
}

BridgeStrategy bridge_select_strategy(const BrownianBridge& bridge, BridgeStrategy requested,
                                      bool double_precision) {
  if (requested == BridgeStrategy::automatic) {
    for (BridgeStrategy candidate : {BridgeStrategy::shared_memory, BridgeStrategy::prefetch}) {
      if (unsupported_reason(bridge, candidate, double_precision).empty()) return candidate;
    }
    routines::throw_not_supported("no GPU strategy serves this bridge: " +
                                  unsupported_reason(bridge, BridgeStrategy::shared_memory, double_precision) + "; " +
                                  unsupported_reason(bridge, BridgeStrategy::prefetch, double_precision));
  }
  const std::string reason = unsupported_reason(bridge, requested, double_precision);
  if (!reason.empty()) {
    routines::throw_not_supported(std::string("strategy ") + to_string(requested) + " cannot serve: " + reason);
  }
  return requested;
}

template <class T>
void bridge_generate_cuda(const BrownianBridge& bridge, const BridgeDeviceStrategy& strategy, bool increments,
                          std::int64_t paths, const T* z, T* output, const BridgeGenerateOptions& options,
                          BridgeKernelReport* describe) {
  const BridgeStrategy which = bridge_select_strategy(bridge, options.strategy, sizeof(T) == sizeof(double));
  if (paths == 0) return;
  const BridgeArgs<T> args =
      bridge_args(bridge, increments, paths, z, output, options.z_layout, options.output_layout);
  if (is_constant_family(which)) {
    if (describe != nullptr) return launch_bridge_constant(strategy, args, which, options.stream, describe);
    // The symbol is shared by every bridge of the device: the turn orders this copy
    // and kernel after the device's previous constant-strategy kernel, on any stream
    // (src/brownian_bridge/constant_image_order.hpp). The image lives as long as the
    // bridge, so the driver may stage the pageable copy whenever it likes.
    const TypedDeviceStrategy<T>& typed = strategy.typed<T>();
    ConstantImageTurn turn(options.stream, typed.constant_image_id);
    if (turn.copy_needed()) {
      copy_bridge_constant_image(typed.constant_image.data(), typed.constant_image.size(), options.stream);
      turn.copied();
    }
    launch_bridge_constant(strategy, args, which, options.stream, describe);
    turn.finish();
  } else {
    launch_bridge_shared(strategy, args, which, options.stream, describe);
  }
}

template <class T>
void bridge_generate_sobol_cuda(const BrownianBridge& bridge, const BridgeDeviceStrategy& strategy,
                                bool increments, std::int64_t paths, T* output,
                                const SobolBridgeOptions& options, BridgeKernelReport* describe) {
  const std::string reason =
      register_family_limits(bridge, sobol_minimum_shared_bytes<T>(bridge, is_64_bit(options.sequence)));
  if (!reason.empty()) {
    routines::throw_not_supported("the fused kernel cannot serve: " + reason +
                                  " (the Sobol tables grow with z_records() * dimension())");
  }
  if (paths == 0) return;
  if (!strategy.has_sobol_tables(options.sequence)) {
    refuse_capture(options.stream,
                   "the first call with a Sobol sequence uploads its tables and waits for them; make one call with "
                   "options.sequence before capturing");
  }
  const BridgeArgs<T> args = bridge_args<T>(bridge, increments, paths, nullptr, output, BridgeLayout::path_fastest,
                                          options.output_layout);
  launch_bridge_sobol(strategy, args, options.sequence, options.offset,
                      strategy.sobol_tables(bridge, options.sequence), options.stream, describe);
}

template <class T>
BridgeKernelReport describe_bridge_kernel(const BrownianBridge& bridge, bool increments, std::int64_t paths,
                                          const T* z, T* output, const BridgeGenerateOptions& options) {
  const RoutineScope scope(routines::describe_kernel);
  BridgeKernelReport info;
  bridge_generate_cuda(bridge, cuda_strategy(bridge), increments, paths, z, output, options, &info);
  return info;
}

template <class T>
BridgeKernelReport describe_sobol_bridge_kernel(const BrownianBridge& bridge, bool increments, std::int64_t paths,
                                                T* output, const SobolBridgeOptions& options) {
  const RoutineScope scope(routines::describe_sobol_kernel);
  BridgeKernelReport info;
  bridge_generate_sobol_cuda(bridge, cuda_strategy(bridge), increments, paths, output, options, &info);
  return info;
}

#define CUNUM_INSTANTIATE_BRIDGE_CUDA(T)                                                                    \
  template BridgeArgs<T> bridge_args(const BrownianBridge&, bool, std::int64_t, const T*, T*, BridgeLayout,     \
                                     BridgeLayout);                                                         \
  template void bridge_generate_cuda(const BrownianBridge&, const BridgeDeviceStrategy&, bool, std::int64_t, \
                                     const T*, T*, const BridgeGenerateOptions&, BridgeKernelReport*);        \
  template void bridge_generate_sobol_cuda(const BrownianBridge&, const BridgeDeviceStrategy&, bool,         \
                                           std::int64_t, T*, const SobolBridgeOptions&, BridgeKernelReport*); \
  template BridgeKernelReport describe_bridge_kernel(const BrownianBridge&, bool, std::int64_t, const T*, T*,  \
                                                   const BridgeGenerateOptions&);                           \
  template BridgeKernelReport describe_sobol_bridge_kernel(const BrownianBridge&, bool, std::int64_t, T*,      \
                                                         const SobolBridgeOptions&);

CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_BRIDGE_CUDA, CUNUM_REAL_TYPES)

namespace {

// The CUDA backend: the device the bridge was made on and its strategy uploaded
// there, from the placement's device memory, which the host conveniences' copies
// come from too.
class BridgeCuda final : public BridgeBackend {
 public:
  BridgeCuda(const BrownianBridge& bridge, const Placement& placement)
      : device_(DeviceBinding::current()),
        memory_(placement.device_memory),
        strategy_(bridge_upload_strategy(bridge, memory_)) {}

  void require_current(const char* routine) const override { device_.require_current(routine); }

  void generate(const BrownianBridge& bridge, bool increments, std::int64_t paths, const float* z, float* output,
                const BridgeGenerateOptions& options) override {
    bridge_generate_cuda(bridge, *strategy_, increments, paths, z, output, options);
  }
  void generate(const BrownianBridge& bridge, bool increments, std::int64_t paths, const double* z, double* output,
                const BridgeGenerateOptions& options) override {
    bridge_generate_cuda(bridge, *strategy_, increments, paths, z, output, options);
  }
  void generate_sobol(const BrownianBridge& bridge, bool increments, std::int64_t paths, float* output,
                      const SobolBridgeOptions& options) override {
    bridge_generate_sobol_cuda(bridge, *strategy_, increments, paths, output, options);
  }
  void generate_sobol(const BrownianBridge& bridge, bool increments, std::int64_t paths, double* output,
                      const SobolBridgeOptions& options) override {
    bridge_generate_sobol_cuda(bridge, *strategy_, increments, paths, output, options);
  }

  std::vector<float> generate_host(const std::vector<float>& z, std::size_t output_size, StreamHandle stream,
                                   const std::function<void(const float*, float*)>& generate) override {
    return through_device(memory_, z, output_size, stream, generate);
  }
  std::vector<double> generate_host(const std::vector<double>& z, std::size_t output_size, StreamHandle stream,
                                    const std::function<void(const double*, double*)>& generate) override {
    return through_device(memory_, z, output_size, stream, generate);
  }

  const BridgeDeviceStrategy* device_strategy() const noexcept override { return strategy_.get(); }

 private:
  template <class T>
  static std::vector<T> through_device(DeviceMemoryResource* memory, const std::vector<T>& z,
                                       std::size_t output_size, StreamHandle stream,
                                       const std::function<void(const T*, T*)>& generate) {
    const auto device_z = DeviceBuffer<T>::from_host(z, stream, memory);
    DeviceBuffer<T> device_output(output_size, stream, memory);
    generate(device_z.data(), device_output.data());
    return device_output.to_host();
  }

  DeviceBinding device_;
  DeviceMemoryResource* memory_;
  std::unique_ptr<BridgeDeviceStrategy> strategy_;
};

}  // namespace

std::unique_ptr<BridgeBackend> make_brownian_bridge_cuda(const BrownianBridge& bridge, const Placement& placement) {
  return std::make_unique<BridgeCuda>(bridge, placement);
}

}  // namespace cunum::detail
