// CUDA side of the Brownian bridge: uploads a compiled strategy (constant-memory
// image for strategies 1-3, global step records for 4-5), chooses the strategy,
// launches it, and turns sample paths into scaled increments in place.

#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "brownian_bridge/bridge_backends.hpp"
#include "brownian_bridge/bridge_device.cuh"
#include "core/cuda_check.hpp"
#include "cunum/core/device.hpp"

namespace cunum::detail {
namespace {

constexpr const char* kGenerateRoutine = "cunum::BrownianBridge::generate";
constexpr std::int64_t kMaxConstantIndex = 0xFFFF;  // 16-bit Z and output indices

template <class T>
void append(std::vector<unsigned char>& image, std::uint32_t& offset, const T* values,
            std::size_t count) {
  // Every array starts 8-byte aligned.
  image.resize((image.size() + 7) / 8 * 8);
  offset = static_cast<std::uint32_t>(image.size());
  image.resize(image.size() + sizeof(T) * count);
  std::memcpy(image.data() + offset, values, sizeof(T) * count);
}

bool constant_strategy_possible(const BrownianBridge& bridge) {
  return bridge.dimension() <= BridgePolicy::max_constant_dimension &&
         bridge.stack_size() <= static_cast<std::uint32_t>(BridgePolicy::max_local_stack) &&
         bridge.output_records() <= kMaxConstantIndex;
}

template <class T>
void build_constant_image(const BrownianBridge& bridge, TypedDeviceStrategy<T>& typed) {
  if (!constant_strategy_possible(bridge)) return;
  const auto& steps = bridge.steps();
  const int d = bridge.dimension();
  constexpr int m = BridgePolicy::max_constant_dimension;
  std::vector<T> factor(m * m, T(0));
  for (int i = 0; i < d; ++i) {
    for (int j = 0; j < d; ++j) factor[i * m + j] = static_cast<T>(bridge.factor()[i * d + j]);
  }
  const std::vector<T> start(bridge.start().begin(), bridge.start().end());
  std::vector<T> end(static_cast<std::size_t>(d), T(0));
  if (bridge.fixed_end()) end.assign(bridge.end_value()->begin(), bridge.end_value()->end());
  std::vector<T> weights;
  std::vector<std::uint16_t> z_index, output_index;
  std::vector<std::uint8_t> left, right, store;
  for (const BridgeStep& s : steps) {
    weights.insert(weights.end(), {static_cast<T>(s.left_weight), static_cast<T>(s.right_weight),
                                   static_cast<T>(s.std_dev)});
    z_index.push_back(static_cast<std::uint16_t>(s.z_index));
    output_index.push_back(static_cast<std::uint16_t>(s.output_index));
    left.push_back(static_cast<std::uint8_t>(s.left_slot));
    right.push_back(static_cast<std::uint8_t>(s.right_slot));
    store.push_back(s.store_slot == BridgeStep::no_store ? BridgePolicy::constant_no_store
                                                         : static_cast<std::uint8_t>(s.store_slot));
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
  layout.bytes = static_cast<std::uint32_t>(image.size());
  if (image.size() <= BridgePolicy::constant_bytes) typed.constant_image = std::move(image);
}

// Size of the constant-memory image of `bridge` in precision T (0 if it cannot have one).
template <class T>
std::size_t bridge_constant_image_bytes(const BrownianBridge& bridge) {
  TypedDeviceStrategy<T> probe;
  build_constant_image(bridge, probe);
  return probe.constant_layout.bytes;
}

template <class T>
void upload_typed(const BrownianBridge& bridge, TypedDeviceStrategy<T>& typed) {
  build_constant_image(bridge, typed);
  const int d = bridge.dimension();
  if (bridge.stack_size() < 0xFFFF) {
    std::vector<GpuStep<T>> steps;
    steps.reserve(bridge.steps().size());
    for (const BridgeStep& s : bridge.steps()) {
      GpuStep<T> g{};
      g.left_weight = static_cast<T>(s.left_weight);
      g.right_weight = static_cast<T>(s.right_weight);
      g.std_dev = static_cast<T>(s.std_dev);
      g.z_index = s.z_index;
      g.output_index = s.output_index;
      g.left_slot = static_cast<std::uint16_t>(s.left_slot);
      g.right_slot = static_cast<std::uint16_t>(s.right_slot);
      // The stack size marks "no store" (every real slot is below it).
      g.store_slot = static_cast<std::uint16_t>(s.store_slot == BridgeStep::no_store ? bridge.stack_size()
                                                                                    : s.store_slot);
      g.left_reuse = static_cast<std::uint8_t>(s.left_reuse);
      g.right_reuse = static_cast<std::uint8_t>(s.right_reuse);
      steps.push_back(g);
    }
    typed.steps = DeviceBuffer<GpuStep<T>>(steps);
  }
  if (d <= BridgePolicy::max_register_dimension) {
    constexpr int m = BridgePolicy::max_register_dimension;
    std::vector<T> factor(m * m, T(0));
    for (int i = 0; i < d; ++i) {
      for (int j = 0; j < d; ++j) factor[i * m + j] = static_cast<T>(bridge.factor()[i * d + j]);
    }
    typed.factor = DeviceBuffer<T>(factor);
  }
  typed.start = DeviceBuffer<T>(std::vector<T>(bridge.start().begin(), bridge.start().end()));
  std::vector<T> end(static_cast<std::size_t>(d), T(0));
  if (bridge.fixed_end()) end.assign(bridge.end_value()->begin(), bridge.end_value()->end());
  typed.end = DeviceBuffer<T>(end);
}

bool is_constant_family(BridgeStrategy s) {
  return s == BridgeStrategy::constant_memory || s == BridgeStrategy::vectorized ||
         s == BridgeStrategy::prefetch;
}

// Why `which` cannot serve, or an empty string when it can.
std::string unsupported_reason(const BrownianBridge& bridge, BridgeStrategy which,
                               bool double_precision) {
  if (is_constant_family(which)) {
    if (bridge.dimension() > BridgePolicy::max_constant_dimension) {
      return "dimension > " + std::to_string(BridgePolicy::max_constant_dimension);
    }
    if (bridge.stack_size() > static_cast<std::uint32_t>(BridgePolicy::max_local_stack)) {
      return "stack size " + std::to_string(bridge.stack_size()) + " > local stack limit " +
             std::to_string(BridgePolicy::max_local_stack);
    }
    if (bridge.output_records() > kMaxConstantIndex) return "N + 1 > 65535 (16-bit indices)";
    const std::size_t bytes = double_precision
                                  ? bridge_constant_image_bytes<double>(bridge)
                                  : bridge_constant_image_bytes<float>(bridge);
    if (bytes > BridgePolicy::constant_bytes) {
      return "strategy needs " + std::to_string(bytes) + " bytes of constant memory > " +
             std::to_string(BridgePolicy::constant_bytes);
    }
    return {};
  }
  if (bridge.dimension() > BridgePolicy::max_register_dimension) {
    return "dimension > " + std::to_string(BridgePolicy::max_register_dimension) +
           " (C held in registers)";
  }
  if (bridge.stack_size() >= 0xFFFF) return "stack size >= 65535 (16-bit slots)";
  const std::size_t bytes =
      double_precision
          ? bridge_shared_bytes<double>(bridge.stack_size(), bridge.dimension(),
                                        BridgePolicy::min_shared_block_threads)
          : bridge_shared_bytes<float>(bridge.stack_size(), bridge.dimension(),
                                       BridgePolicy::min_shared_block_threads);
  const std::size_t available = device_properties().shared_memory_per_block_optin_bytes;
  if (bytes > available) {
    return "stack needs " + std::to_string(bytes) + " bytes of shared memory per block > " +
           std::to_string(available);
  }
  return {};
}

template <class T>
__global__ void __launch_bounds__(BridgePolicy::increment_block_threads)
    bridge_increments_kernel(T* output, std::int64_t paths, std::int64_t records, int dimension,
                             BridgeLayout layout, const double* __restrict__ times,
                             const T* __restrict__ start) {
  const std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= paths * dimension) return;
  // Consecutive threads take consecutive paths of one dimension (coalesced path-fastest).
  const std::int64_t p = e % paths;
  const int j = static_cast<int>(e / paths);
  // Backwards, so each difference reads a point not yet overwritten.
  T later = output[bridge_element(layout, paths, records, dimension, p, records - 1, j)];
  for (std::int64_t i = records; i >= 1; --i) {
    const T earlier =
        i > 1 ? output[bridge_element(layout, paths, records, dimension, p, i - 2, j)] : start[j];
    const T dt = static_cast<T>(times[i] - times[i - 1]);
    output[bridge_element(layout, paths, records, dimension, p, i - 1, j)] = (later - earlier) / dt;
    later = earlier;
  }
}

}  // namespace

BridgeDeviceStrategy* bridge_upload_strategy(const BrownianBridge& bridge) {
  auto strategy = std::make_unique<BridgeDeviceStrategy>();
  strategy->stack_size = bridge.stack_size();
  upload_typed(bridge, strategy->single);
  upload_typed(bridge, strategy->double_precision);
  strategy->times = DeviceBuffer<double>(bridge.times());
  return strategy.release();
}

void bridge_release_strategy(BridgeDeviceStrategy* strategy) noexcept { delete strategy; }

BridgeStrategy bridge_select_strategy(const BrownianBridge& bridge, BridgeStrategy requested,
                                      bool double_precision) {
  if (requested == BridgeStrategy::automatic) {
    for (BridgeStrategy candidate :
         {BridgeStrategy::shared_memory_reuse_prefetch, BridgeStrategy::prefetch}) {
      if (unsupported_reason(bridge, candidate, double_precision).empty()) return candidate;
    }
    throw Error(ErrorCode::not_supported,
                std::string(kGenerateRoutine) + ": no GPU strategy serves this bridge: " +
                    unsupported_reason(bridge, BridgeStrategy::shared_memory_reuse_prefetch,
                                       double_precision) +
                    "; " + unsupported_reason(bridge, BridgeStrategy::prefetch, double_precision));
  }
  const std::string reason = unsupported_reason(bridge, requested, double_precision);
  if (!reason.empty()) {
    throw Error(ErrorCode::not_supported, std::string(kGenerateRoutine) + ": strategy " +
                                              to_string(requested) + " cannot serve: " + reason);
  }
  return requested;
}

template <class T>
void bridge_generate_cuda(const BrownianBridge& bridge, const BridgeDeviceStrategy& strategy,
                          bool increments, std::int64_t paths, const T* z, T* output,
                          const BridgeGenerateOptions& options) {
  const BridgeStrategy which =
      bridge_select_strategy(bridge, options.strategy, sizeof(T) == sizeof(double));
  if (paths == 0) return;
  BridgeArgs<T> args{};
  args.z = z;
  args.output = output;
  args.paths = paths;
  args.z_records = bridge.z_records();
  args.output_records = bridge.output_records();
  args.steps = static_cast<std::uint32_t>(bridge.interior_points());
  args.dimension = bridge.dimension();
  args.z_layout = options.z_layout;
  args.output_layout = options.output_layout;
  args.end_std_dev = static_cast<T>(std::sqrt(bridge.times().back() - bridge.times().front()));
  args.fixed_end = bridge.fixed_end();
  if (is_constant_family(which)) {
    launch_bridge_constant(strategy, args, which, options.stream);
  } else {
    launch_bridge_shared(strategy, args, which, options.stream);
  }
  if (!increments) return;
  const std::int64_t series = paths * bridge.dimension();
  const std::int64_t blocks =
      (series + BridgePolicy::increment_block_threads - 1) / BridgePolicy::increment_block_threads;
  bridge_increments_kernel<T><<<static_cast<unsigned>(blocks), BridgePolicy::increment_block_threads,
                                0, options.stream>>>(output, paths, bridge.output_records(),
                                                     bridge.dimension(), options.output_layout,
                                                     strategy.times.data(),
                                                     strategy.typed<T>().start.data());
  CUNUM_CHECK_LAUNCH("bridge_increments_kernel");
}

template void bridge_generate_cuda(const BrownianBridge&, const BridgeDeviceStrategy&, bool,
                                   std::int64_t, const float*, float*, const BridgeGenerateOptions&);
template void bridge_generate_cuda(const BrownianBridge&, const BridgeDeviceStrategy&, bool,
                                   std::int64_t, const double*, double*,
                                   const BridgeGenerateOptions&);

}  // namespace cunum::detail
