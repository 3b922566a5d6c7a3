#pragma once
// Internal, host-visible: the device form of a compiled bridge strategy and the
// launch arguments shared by the host code that uploads and
// selects (brownian_bridge_cuda.cpp) and the constant-memory (1-3), shared-memory (4-5) and
// fused Sobol kernels (kernels/brownian_bridge/), whose launchers are declared in
// kernels/brownian_bridge/brownian_bridge_launch.hpp.

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "src/brownian_bridge/brownian_bridge_backends.hpp"
#include "src/brownian_bridge/bridge_layout.hpp"
#include "src/brownian_bridge/brownian_bridge_policy.hpp"
#include "cunum/brownian_bridge.hpp"
#include "cunum/core/device_buffer.hpp"

namespace cunum::detail {

// Paths per thread of the fused Sobol kernel under `Policy` (BridgeSobolPolicies): V
// values per dimension in registers.
template <class Policy>
constexpr int sobol_paths_per_thread(int d) { return d <= 4 ? Policy::paths_per_thread : 1; }

// Normals prefetched per dimension by strategies 4 and 5-with-prefetch when each
// thread takes one path: the registers spent (P x D) stay near 8-16.
template <int D>
constexpr int shared_prefetch_depth() {
  return D <= 2 ? 8 : (D <= 4 ? 4 : 2);
}

// The kernels' dimension template for d: exact up to 4, else padded to 8.
constexpr int padded_dimension(int d) { return d <= 4 ? d : BridgeLimits::max_register_dimension; }

// Paths per thread when Z and output move as vectors of consecutive paths: a
// 16-byte vector for d = 1, two paths for d = 2 or 3 (measured against one path in
// docs/brownian_bridge.md), none beyond (the registers of V x D values).
template <class T>
constexpr int vector_paths(int d) {
  return d == 1 ? BridgeLimits::vector_bytes / static_cast<int>(sizeof(T)) : (d <= 3 ? 2 : 1);
}

// The integer part of one step (strategies 4-5, fused Sobol): 16 bytes, staged
// into shared memory and read two steps ahead into registers.
struct StepIndices {
  std::uint32_t z_index, output_index;
  std::uint16_t left_slot, right_slot, store_slot;  // store_slot == stack size: no store
  std::uint8_t reuse;       // BridgeReuse of the left neighbour | that of the right << 2
  std::uint8_t increments;  // kLeftIncrement | kRightIncrement
};
static_assert(sizeof(StepIndices) == 16, "step indices move as one 16-byte vector");
constexpr std::uint8_t kLeftIncrement = 1;
constexpr std::uint8_t kRightIncrement = 2;

// The floating part of one step, in the precision of the run.
template <class T>
struct StepWeights {
  T left, right, std_dev, inverse_left_gap, inverse_right_gap;
};

// Weights of one step in the constant-memory image: left weight, right weight,
// standard deviation, 1 / (theta - l), 1 / (r - theta).
constexpr int kConstantWeightsPerStep = 5;

// Byte offsets of the arrays inside the constant-memory image (strategies 1-3).
struct ConstantLayout {
  std::uint32_t factor, start, end, weights, z_index, output_index, left, right, store, increments;
  std::uint32_t bytes;
};

template <class T>
struct BridgeArgs {
  const T* z;
  T* output;
  std::int64_t paths;
  std::int64_t z_records;
  std::int64_t output_records;
  std::uint32_t steps;  // N
  int dimension;
  BridgeLayout z_layout;
  BridgeLayout output_layout;
  T end_std_dev;  // sqrt(T - t0)
  bool fixed_end;
  bool increments;  // write scaled increments instead of points
};

// The device copy of a strategy in one precision, as strategies 4-5 read it.
template <class T>
struct DeviceSteps {
  const StepIndices* indices;
  const StepWeights<T>* weights;
  const T* factor;  // max_register_dimension^2, zero padded
  const T* start;
  const T* end;     // w (zeros for a free bridge)
  std::uint32_t stack_size;
};

// Everything one precision needs on the device. The buffers come from the bridge's
// placement.device_memory, live on the device's setup stream
// (src/core/setup_stream.hpp) and are freed there.
template <class T>
struct TypedDeviceStrategy {
  std::vector<unsigned char> constant_image;  // empty when it does not fit
  std::uint64_t constant_image_id = 0;        // names the image in the symbol (constant_image_order.hpp)
  ConstantLayout constant_layout{};
  DeviceBuffer<StepWeights<T>> weights;
  DeviceBuffer<T> factor;  // empty if d > max_register_dimension
  DeviceBuffer<T> start;
  DeviceBuffer<T> end;
};

// Tables of one Sobol sequence for this bridge's dimensions, `Word`-bit: the lane
// table (dimension-major, 32 lanes each), direction vectors (dimension-major) and
// scrambling constants, back to back in one buffer.
struct DeviceSobolTables {
  DeviceBuffer<unsigned char> bytes;
};

class BridgeDeviceStrategy {
 public:
  TypedDeviceStrategy<float> single;
  TypedDeviceStrategy<double> double_precision;
  DeviceBuffer<StepIndices> indices;  // empty if the stack exceeds 16-bit slots
  std::uint32_t stack_size = 0;
  // The bridge's placement.device_memory, which every buffer and the Sobol tables come from.
  DeviceMemoryResource* memory = nullptr;

  template <class T>
  const TypedDeviceStrategy<T>& typed() const {
    if constexpr (sizeof(T) == sizeof(float)) {
      return single;
    } else {
      return double_precision;
    }
  }
  template <class T>
  DeviceSteps<T> device_steps() const {
    const TypedDeviceStrategy<T>& t = typed<T>();
    return {indices.data(), t.weights.data(), t.factor.data(), t.start.data(), t.end.data(), stack_size};
  }

  // Sobol tables, uploaded on first use of each sequence (into `memory`, on the
  // setup stream; the call waits for that upload, not for the caller's stream).
  const DeviceSobolTables& sobol_tables(const BrownianBridge& bridge, SobolSequence sequence) const;
  // Whether the tables of `sequence` are uploaded (a call then waits for nothing).
  bool has_sobol_tables(SobolSequence sequence) const;

 private:
  mutable std::mutex sobol_mutex_;
  mutable std::unique_ptr<DeviceSobolTables> sobol_[4];
};

// The launch arguments of a generate call.
template <class T>
BridgeArgs<T> bridge_args(const BrownianBridge& bridge, bool increments, std::int64_t paths, const T* z, T* output,
                          BridgeLayout z_layout, BridgeLayout output_layout);

}  // namespace cunum::detail
