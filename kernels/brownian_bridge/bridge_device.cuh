#pragma once
// Internal: the device form of a compiled bridge strategy, the tuning policy and
// the launch arguments shared by the constant-memory (1-3) and shared-memory (4-5)
// kernels.

#include <cstdint>
#include <vector>

#include "brownian_bridge/bridge_layout.hpp"
#include "cunum/brownian_bridge.hpp"
#include "cunum/core/device_buffer.hpp"

namespace cunum::detail {

struct BridgePolicy {
  // Strategies 1-3: one thread per (path, dimension); C, x0, w and the strategy in
  // constant memory; stack in local memory (8-bit slots, 255 marks "no store").
  static constexpr int constant_block_threads = 256;
  static constexpr int max_constant_dimension = 16;
  static constexpr int max_local_stack = 64;
  static constexpr std::uint8_t constant_no_store = 255;
  static constexpr std::size_t constant_bytes = 56 * 1024;
  static constexpr int prefetch_normals = 8;  // P of strategy 3
  // Strategies 4-5: one thread per path, all d dimensions; C in registers (d padded
  // to 1, 2, 4 or 8); stack and a chunk of the strategy in shared memory.
  static constexpr int shared_block_threads = 128;
  static constexpr int min_shared_block_threads = 32;
  static constexpr int shared_chunk_steps = 128;  // a multiple of every prefetch depth
  static constexpr int max_register_dimension = 8;
  static constexpr int increment_block_threads = 256;
};

// Normals prefetched per dimension by strategies 4 and 5-with-prefetch: the
// registers spent (P x D) stay near 8-16.
template <int D>
constexpr int shared_prefetch_depth() {
  return D <= 2 ? 8 : (D <= 4 ? 4 : 2);
}

// One step in global memory (strategies 4-5); a multiple of 4 bytes so that
// blocks stage it word by word.
template <class T>
struct GpuStep {
  T left_weight, right_weight, std_dev;
  std::uint32_t z_index, output_index;
  std::uint16_t left_slot, right_slot, store_slot;  // store_slot == stack size: no store
  std::uint8_t left_reuse, right_reuse;             // BridgeReuse
};

// Byte offsets of the arrays inside the constant-memory image (strategies 1-3).
struct ConstantLayout {
  std::uint32_t factor, start, end, weights, z_index, output_index, left, right, store;
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
};

// Everything one precision needs on the device.
template <class T>
struct TypedDeviceStrategy {
  std::vector<unsigned char> constant_image;  // empty when it does not fit
  ConstantLayout constant_layout{};
  DeviceBuffer<GpuStep<T>> steps;
  DeviceBuffer<T> factor;  // max_register_dimension^2, zero padded (empty if d > 8)
  DeviceBuffer<T> start;
  DeviceBuffer<T> end;
};

class BridgeDeviceStrategy {
 public:
  TypedDeviceStrategy<float> single;
  TypedDeviceStrategy<double> double_precision;
  DeviceBuffer<double> times;
  std::uint32_t stack_size = 0;

  template <class T>
  const TypedDeviceStrategy<T>& typed() const {
    if constexpr (sizeof(T) == sizeof(float)) {
      return single;
    } else {
      return double_precision;
    }
  }
};

// Launchers (kernels/brownian_bridge/*.cu); they check every CUDA call.
template <class T>
void launch_bridge_constant(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args,
                            BridgeStrategy which, StreamHandle stream);
template <class T>
void launch_bridge_shared(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args,
                          BridgeStrategy which, StreamHandle stream);
// Dynamic shared memory the shared-memory kernels need for `threads` per block.
template <class T>
std::size_t bridge_shared_bytes(std::uint32_t stack_size, int dimension, int threads);

}  // namespace cunum::detail
