#pragma once
// Internal, device code: the per-thread pieces of strategies 4-5 and the fused
// Sobol kernel. A thread builds V paths (V > 1: consecutive paths moved as one
// 16-byte vector), all D dimensions (d padded to D), with C in registers, the
// stack in shared memory (slot-major, so a warp's accesses hit distinct banks) and,
// for strategy 5, the previous step's X_l, X_r and X_theta in registers.

#include <cuda_runtime.h>

#include "src/brownian_bridge/bridge_device.hpp"

namespace cunum::detail {

template <class T, int V>
struct alignas(sizeof(T) * V) Lanes {
  T value[V];
};

// The built-in vector type that moves V values of T in one access.
template <class T, int V>
struct VectorOf;
template <>
struct VectorOf<float, 4> {
  using type = float4;
};
template <>
struct VectorOf<float, 2> {
  using type = float2;
};
template <>
struct VectorOf<double, 2> {
  using type = double2;
};

template <class T, int V>
__device__ __forceinline__ Lanes<T, V> load_streaming(const T* address) {
  Lanes<T, V> lanes;
  if constexpr (V == 1) {
    lanes.value[0] = __ldcs(address);  // read once: evict first
  } else {
    const auto vector = __ldcs(reinterpret_cast<const typename VectorOf<T, V>::type*>(address));
    static_assert(sizeof(vector) == sizeof(lanes), "vector and lanes differ");
    memcpy(&lanes, &vector, sizeof(lanes));
  }
  return lanes;
}

template <class T, int V>
__device__ __forceinline__ void store_streaming(T* address, const Lanes<T, V>& lanes) {
  if constexpr (V == 1) {
    __stcs(address, lanes.value[0]);
  } else {
    typename VectorOf<T, V>::type vector;
    memcpy(&vector, &lanes, sizeof(lanes));
    __stcs(reinterpret_cast<typename VectorOf<T, V>::type*>(address), vector);
  }
}

// The V paths of one thread, in an array of `layout`: consecutive paths first ..
// first + V - 1 moved as one 16-byte vector (LaneStride 1; the launcher checks that
// the array is path-fastest with aligned rows), or paths first + 32 v, each a scalar
// access coalesced across the warp (LaneStride 32), of which those in `lanes` (bit v)
// exist. Element j of record r of lane v sits at (r d + j) row_scale + path_term +
// v lane_step (see bridge_element), so an access costs one multiply-add per record.
template <int V, int LaneStride = 1>
struct PathGroup {
  std::int64_t row_scale;  // path-fastest: paths; path-contiguous: 1
  std::int64_t path_term;  // lane 0's term
  std::int64_t lane_step;  // from one lane to the next
  int dimension;
  unsigned lanes = (1u << V) - 1;

  // Vectors of consecutive paths exist only in path-fastest arrays: the layout is
  // then known at compile time, and the terms fold into values the thread holds.
  static constexpr bool known_path_fastest = LaneStride == 1 && V > 1;

  __device__ PathGroup(BridgeLayout layout, std::int64_t paths, std::int64_t records, int d, std::int64_t first)
      : PathGroup(known_path_fastest || layout == BridgeLayout::path_fastest, paths, records, d, first) {}

 private:
  __device__ PathGroup(bool path_fastest, std::int64_t paths, std::int64_t records, int d, std::int64_t first)
      : row_scale(path_fastest ? paths : 1),
        path_term(path_fastest ? first : first * records * d),
        lane_step(path_fastest ? LaneStride : LaneStride * records * d),
        dimension(d) {}

 public:

  __device__ std::int64_t element(std::int64_t record, int j, int v = 0) const {
    return (record * dimension + j) * row_scale + path_term + v * lane_step;
  }
};

template <class T, int D, int V, int S>
__device__ __forceinline__ void read_record(const T* z, const PathGroup<V, S>& group, std::uint32_t record,
                                            T (&values)[D][V]) {
  static_assert(S == 1, "Z is read by consecutive groups only");
#pragma unroll
  for (int j = 0; j < D; ++j) {
    Lanes<T, V> lanes{};
    if (j < group.dimension) lanes = load_streaming<T, V>(z + group.element(record, j));
#pragma unroll
    for (int v = 0; v < V; ++v) values[j][v] = lanes.value[v];
  }
}

template <class T, int D, int V, int S>
__device__ __forceinline__ void write_record(T* output, const PathGroup<V, S>& group, std::int64_t record,
                                             const T (&values)[D][V]) {
#pragma unroll
  for (int j = 0; j < D; ++j) {
    if (j >= group.dimension) continue;
    if constexpr (S == 1) {
      Lanes<T, V> lanes;
#pragma unroll
      for (int v = 0; v < V; ++v) lanes.value[v] = values[j][v];
      store_streaming<T, V>(output + group.element(record, j), lanes);
    } else {
#pragma unroll
      for (int v = 0; v < V; ++v) {
        if (group.lanes >> v & 1u) __stcs(output + group.element(record, j, v), values[j][v]);
      }
    }
  }
}

// Shared-memory staging of the strategy: indices of steps [begin, begin + chunk + 2)
// (two extra, since threads read indices two steps ahead) and weights of
// [begin, begin + chunk).
constexpr int kStagedIndices = BridgeLimits::shared_chunk_steps + 2;

template <class T>
struct StagedSteps {
  static constexpr std::uint32_t none = 0xFFFFFFFFu;
  StepIndices* indices;
  StepWeights<T>* weights;
  std::uint32_t begin = none;

  static constexpr std::size_t bytes() {
    return sizeof(StepIndices) * kStagedIndices +
           (sizeof(StepWeights<T>) * BridgeLimits::shared_chunk_steps + 15) / 16 * 16;
  }
  __device__ explicit StagedSteps(unsigned char* shared)
      : indices(reinterpret_cast<StepIndices*>(shared)),
        weights(reinterpret_cast<StepWeights<T>*>(shared + sizeof(StepIndices) * kStagedIndices)) {}

  // Stages the chunk that starts at step k unless it is staged already. Every thread
  // of the block calls it with the same k (it holds two barriers).
  __device__ void stage(const DeviceSteps<T>& steps, std::uint32_t k, std::uint32_t total) {
    if (begin == k) return;
    const std::uint32_t index_count = min(total - k, static_cast<std::uint32_t>(kStagedIndices));
    const std::uint32_t weight_count =
        min(total - k, static_cast<std::uint32_t>(BridgeLimits::shared_chunk_steps));
    constexpr std::uint32_t words_per_weight = sizeof(StepWeights<T>) / sizeof(std::uint32_t);
    const auto* weight_words = reinterpret_cast<const std::uint32_t*>(steps.weights + k);
    auto* staged_weight_words = reinterpret_cast<std::uint32_t*>(weights);
    __syncthreads();  // readers of the previous chunk are done
    for (std::uint32_t i = threadIdx.x; i < index_count; i += blockDim.x) indices[i] = steps.indices[k + i];
    for (std::uint32_t w = threadIdx.x; w < weight_count * words_per_weight; w += blockDim.x) {
      staged_weight_words[w] = weight_words[w];
    }
    __syncthreads();
    begin = k;
  }
  __device__ const StepIndices& index(std::uint32_t k) const { return indices[k - begin]; }
  __device__ const StepWeights<T>& weight(std::uint32_t k) const { return weights[k - begin]; }
};

template <class T, int D, int V, bool Reuse>
class PathBuilder {
 public:
  using Values = T[D][V];

  // `stack` is the block's stack area; the thread's slots are interleaved with the
  // other threads' so that consecutive threads touch consecutive words.
  __device__ PathBuilder(const DeviceSteps<T>& steps, int dimension, unsigned char* stack)
      : stack_(reinterpret_cast<Lanes<T, V>*>(stack)), d_(dimension), threads_(blockDim.x),
        tid_(threadIdx.x), no_store_(steps.stack_size) {
#pragma unroll
    for (int i = 0; i < D; ++i) {
#pragma unroll
      for (int j = 0; j < D; ++j) c_[i][j] = steps.factor[i * BridgeLimits::max_register_dimension + j];
      x0_[i] = i < d_ ? steps.start[i] : T(0);
      w_[i] = i < d_ ? steps.end[i] : T(0);
    }
  }

  // Stack bytes per thread.
  static constexpr std::size_t slot_bytes() { return sizeof(Lanes<T, V>); }

  // X_t0 and X_T into their slots; X_T is written out unless increments are made.
  // `z0` is Z_0 (ignored for a fixed end).
  template <class Group>
  __device__ void begin(const BridgeArgs<T>& a, const Group& out, const Values& z0) {
    Values end;
    if (a.fixed_end) {
#pragma unroll
      for (int j = 0; j < D; ++j) {
#pragma unroll
        for (int v = 0; v < V; ++v) end[j][v] = w_[j];
      }
    } else {
      Values cz;
      correlate(z0, cz);
#pragma unroll
      for (int j = 0; j < D; ++j) {
#pragma unroll
        for (int v = 0; v < V; ++v) end[j][v] = x0_[j] + a.end_std_dev * cz[j][v];
      }
    }
    if (!a.increments) write_record<T, D, V>(a.output, out, a.steps, end);
    Values start;
#pragma unroll
    for (int j = 0; j < D; ++j) {
#pragma unroll
      for (int v = 0; v < V; ++v) start[j][v] = x0_[j];
    }
    store(BrownianBridge::start_slot, start);
    store(BrownianBridge::end_slot, end);
  }

  // One step: X_theta from its neighbours and Z, written out (or the increments it
  // completes), and kept on the stack if a later step needs it.
  template <class Group>
  __device__ void build(const BridgeArgs<T>& a, const Group& out, const StepIndices& s, const StepWeights<T>& w,
                        const Values& z) {
    Values cz, left, right, x;
    correlate(z, cz);
    neighbour(static_cast<BridgeReuse>(s.reuse & 3), s.left_slot, left);
    neighbour(static_cast<BridgeReuse>(s.reuse >> 2), s.right_slot, right);
#pragma unroll
    for (int j = 0; j < D; ++j) {
#pragma unroll
      for (int v = 0; v < V; ++v) x[j][v] = w.left * left[j][v] + w.right * right[j][v] + w.std_dev * cz[j][v];
    }
    if (a.increments) {
      Values increment;
      if (s.increments & kLeftIncrement) {
        difference(x, left, w.inverse_left_gap, increment);
        write_record<T, D, V>(a.output, out, s.output_index - 1, increment);
      }
      if (s.increments & kRightIncrement) {
        difference(right, x, w.inverse_right_gap, increment);
        write_record<T, D, V>(a.output, out, s.output_index, increment);
      }
    } else {
      write_record<T, D, V>(a.output, out, s.output_index - 1, x);
    }
    if (s.store_slot != no_store_) store(s.store_slot, x);
    if constexpr (Reuse) {
      copy(left, previous_left_);
      copy(right, previous_right_);
      copy(x, previous_point_);
    }
  }

 private:
  __device__ Lanes<T, V>& slot(std::uint32_t s, int j) {
    return stack_[(static_cast<std::size_t>(s) * d_ + j) * threads_ + tid_];
  }
  __device__ void store(std::uint32_t s, const Values& values) {
#pragma unroll
    for (int j = 0; j < D; ++j) {
      if (j < d_) {
        Lanes<T, V> lanes;
#pragma unroll
        for (int v = 0; v < V; ++v) lanes.value[v] = values[j][v];
        slot(s, j) = lanes;
      }
    }
  }
  __device__ void neighbour(BridgeReuse source, std::uint32_t s, Values& values) {
    if (Reuse && source != BridgeReuse::stack) {
      // Element-wise selects: choosing an array by reference would move all three to local memory.
#pragma unroll
      for (int j = 0; j < D; ++j) {
#pragma unroll
        for (int v = 0; v < V; ++v) {
          values[j][v] = source == BridgeReuse::previous_left
                             ? previous_left_[j][v]
                             : (source == BridgeReuse::previous_right ? previous_right_[j][v] : previous_point_[j][v]);
        }
      }
      return;
    }
#pragma unroll
    for (int j = 0; j < D; ++j) {
      Lanes<T, V> lanes{};
      if (j < d_) lanes = slot(s, j);
#pragma unroll
      for (int v = 0; v < V; ++v) values[j][v] = lanes.value[v];
    }
  }
  __device__ void correlate(const Values& z, Values& cz) const {
#pragma unroll
    for (int i = 0; i < D; ++i) {
#pragma unroll
      for (int v = 0; v < V; ++v) {
        T sum = T(0);
#pragma unroll
        for (int j = 0; j <= i; ++j) sum += c_[i][j] * z[j][v];
        cz[i][v] = sum;
      }
    }
  }
  __device__ static void difference(const Values& later, const Values& earlier, T inverse_gap,
                                    Values& result) {
#pragma unroll
    for (int j = 0; j < D; ++j) {
#pragma unroll
      for (int v = 0; v < V; ++v) result[j][v] = (later[j][v] - earlier[j][v]) * inverse_gap;
    }
  }
  __device__ static void copy(const Values& from, Values& to) {
#pragma unroll
    for (int j = 0; j < D; ++j) {
#pragma unroll
      for (int v = 0; v < V; ++v) to[j][v] = from[j][v];
    }
  }

  Lanes<T, V>* stack_;
  int d_;
  int threads_;
  int tid_;
  std::uint32_t no_store_;  // the stack size: store_slot's "no store" mark
  T c_[D][D];
  T x0_[D];
  T w_[D];
  Values previous_left_{}, previous_right_{}, previous_point_{};
};

}  // namespace cunum::detail
