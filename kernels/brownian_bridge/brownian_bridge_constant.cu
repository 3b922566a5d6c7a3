// GPU strategies 1-3 (sections 3-5 of du Toit's paper, the reference work): the
// strategy in constant memory (8-bit stack slots, 16-bit Z and output indices), the
// stack in local memory. A block holds `groups` paths (or groups x V paths for
// strategy 2); thread (g, j) builds dimension j of its paths, and C Z is formed
// cooperatively through shared memory with two barriers per step. Strategy 2 moves V
// paths per thread with vector loads and stores; strategy 3 keeps P normals in flight
// in registers. Increments are written by the steps that complete them, in the same
// pass. Every bridge of a device copies its image into the one symbol
// (copy_bridge_constant_image); the CUDA backend orders those copies and the kernels
// across streams (ConstantImageTurn, src/brownian_bridge/brownian_bridge_cuda.cpp).

#include <cstring>

#include "kernels/brownian_bridge/brownian_bridge_launch.hpp"
#include "kernels/common/launch.cuh"
#include "src/brownian_bridge/bridge_device.hpp"
#include "src/core/instantiate.hpp"

namespace cunum::detail {
namespace {

// The constant-family kernel is one kernel, not a template on its policy (that would
// rename its symbol): it is built for the chain's newest policy, which, with the one
// sm_90 entry, is the policy of every device.
using ConstantPolicy = BridgeConstantPolicies::newest;

__constant__ alignas(16) unsigned char c_bridge[BridgeLimits::constant_bytes];

template <class T>
__device__ __forceinline__ const T* constant_array(std::uint32_t offset) {
  return reinterpret_cast<const T*>(c_bridge + offset);
}

// V consecutive paths' values of one element, as one vector access when allowed.
template <class T, int V>
struct alignas(sizeof(T) * V) Lanes {
  T value[V];
};

template <class T, int V>
__device__ __forceinline__ void load_lanes(const BridgeArgs<T>& a, bool vector_io,
                                           std::int64_t first_path, std::int64_t record, int j,
                                           T (&out)[V]) {
  if (vector_io) {
    const std::int64_t e =
        bridge_element(BridgeLayout::path_fastest, a.paths, a.z_records, a.dimension, first_path, record, j);
    const Lanes<T, V> lanes = *reinterpret_cast<const Lanes<T, V>*>(a.z + e);
#pragma unroll
    for (int v = 0; v < V; ++v) out[v] = lanes.value[v];
    return;
  }
#pragma unroll
  for (int v = 0; v < V; ++v) {
    const std::int64_t p = first_path + v;
    out[v] = p < a.paths
                 ? a.z[bridge_element(a.z_layout, a.paths, a.z_records, a.dimension, p, record, j)]
                 : T(0);
  }
}

template <class T, int V>
__device__ __forceinline__ void store_lanes(const BridgeArgs<T>& a, bool vector_io,
                                            std::int64_t first_path, std::int64_t record, int j,
                                            const T (&x)[V]) {
  if (vector_io) {
    const std::int64_t e = bridge_element(BridgeLayout::path_fastest, a.paths, a.output_records,
                                          a.dimension, first_path, record, j);
    Lanes<T, V> lanes;
#pragma unroll
    for (int v = 0; v < V; ++v) lanes.value[v] = x[v];
    *reinterpret_cast<Lanes<T, V>*>(a.output + e) = lanes;
    return;
  }
#pragma unroll
  for (int v = 0; v < V; ++v) {
    const std::int64_t p = first_path + v;
    if (p < a.paths) {
      a.output[bridge_element(a.output_layout, a.paths, a.output_records, a.dimension, p, record, j)] = x[v];
    }
  }
}

// (C z)_j for this thread's dimension j and each of its V paths. For d > 1 the
// block exchanges z through shared memory: a barrier before writing (the previous
// step's readers are done) and one after.
template <class T, int V>
__device__ __forceinline__ void correlate(const ConstantLayout& layout, int d, int groups, int group,
                                          int j, T* shared_z, const T (&z)[V], T (&cz)[V]) {
  const T* factor = constant_array<T>(layout.factor);
  if (d == 1) {
#pragma unroll
    for (int v = 0; v < V; ++v) cz[v] = factor[0] * z[v];
    return;
  }
  __syncthreads();
#pragma unroll
  for (int v = 0; v < V; ++v) shared_z[(j * groups + group) * V + v] = z[v];
  __syncthreads();
#pragma unroll
  for (int v = 0; v < V; ++v) cz[v] = T(0);
  for (int i = 0; i <= j; ++i) {
    const T c = factor[j * BridgeLimits::max_constant_dimension + i];
#pragma unroll
    for (int v = 0; v < V; ++v) cz[v] += c * shared_z[(i * groups + group) * V + v];
  }
}

// V: paths per thread (strategy 2: 2 or 4); P: normals prefetched (strategy 3), 0 = none.
template <class T, int V, int P>
__global__ void __launch_bounds__(ConstantPolicy::block_threads)
    bridge_constant_kernel(BridgeArgs<T> a, ConstantLayout layout, bool vector_io) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* shared_z = reinterpret_cast<T*>(shared_bytes);
  const int d = a.dimension;
  const int groups = static_cast<int>(blockDim.x) / d;
  const int group = static_cast<int>(threadIdx.x) % groups;
  const int j = static_cast<int>(threadIdx.x) / groups;
  // Threads past the last group idle through the barriers.
  const bool in_group = j < d;
  const int jj = in_group ? j : 0;
  const std::int64_t first_path = (static_cast<std::int64_t>(blockIdx.x) * groups + group) * V;
  const bool active = in_group && first_path < a.paths;

  const T* weights = constant_array<T>(layout.weights);
  const std::uint8_t* increment_flags = constant_array<std::uint8_t>(layout.increments);
  const std::uint16_t* z_index = constant_array<std::uint16_t>(layout.z_index);
  const std::uint16_t* output_index = constant_array<std::uint16_t>(layout.output_index);
  const std::uint8_t* left = constant_array<std::uint8_t>(layout.left);
  const std::uint8_t* right = constant_array<std::uint8_t>(layout.right);
  const std::uint8_t* store = constant_array<std::uint8_t>(layout.store);

  T stack[BridgeLimits::max_local_stack][V];
  T z[V] = {}, cz[V] = {};  // idle threads feed zeros to the shared exchange
  const T x0 = constant_array<T>(layout.start)[jj];
  if (a.fixed_end) {
    const T w = constant_array<T>(layout.end)[jj];
#pragma unroll
    for (int v = 0; v < V; ++v) stack[BrownianBridge::end_slot][v] = w;
  } else {
    if (active) load_lanes<T, V>(a, vector_io, first_path, 0, jj, z);
    correlate<T, V>(layout, d, groups, group, jj, shared_z, z, cz);
#pragma unroll
    for (int v = 0; v < V; ++v) stack[BrownianBridge::end_slot][v] = x0 + a.end_std_dev * cz[v];
  }
#pragma unroll
  for (int v = 0; v < V; ++v) stack[BrownianBridge::start_slot][v] = x0;
  if (active && !a.increments) {
    store_lanes<T, V>(a, vector_io, first_path, a.steps, jj, stack[BrownianBridge::end_slot]);
  }

  auto build = [&](std::uint32_t k, const T (&zk)[V]) {
    correlate<T, V>(layout, d, groups, group, jj, shared_z, zk, cz);
    const T* w = weights + kConstantWeightsPerStep * k;
    const int l = left[k], r = right[k], s = store[k];
    T x[V];
#pragma unroll
    for (int v = 0; v < V; ++v) x[v] = w[0] * stack[l][v] + w[1] * stack[r][v] + w[2] * cz[v];
    if (active && a.increments) {
      const std::uint8_t flags = increment_flags[k];
      T increment[V];
      if (flags & kLeftIncrement) {
#pragma unroll
        for (int v = 0; v < V; ++v) increment[v] = (x[v] - stack[l][v]) * w[3];
        store_lanes<T, V>(a, vector_io, first_path, output_index[k] - 1, jj, increment);
      }
      if (flags & kRightIncrement) {
#pragma unroll
        for (int v = 0; v < V; ++v) increment[v] = (stack[r][v] - x[v]) * w[4];
        store_lanes<T, V>(a, vector_io, first_path, output_index[k], jj, increment);
      }
    } else if (active) {
      store_lanes<T, V>(a, vector_io, first_path, output_index[k] - 1, jj, x);
    }
    if (s != BridgeLimits::constant_no_store) {
#pragma unroll
      for (int v = 0; v < V; ++v) stack[s][v] = x[v];
    }
  };

  if constexpr (P == 0) {
    for (std::uint32_t k = 0; k < a.steps; ++k) {
      if (active) load_lanes<T, V>(a, vector_io, first_path, z_index[k], jj, z);
      build(k, z);
    }
  } else {
    static_assert(V == 1, "prefetch runs one path per thread");
    // Ring of P normals; the loop is unrolled by P so the ring stays in registers.
    T ring[P];
#pragma unroll
    for (int u = 0; u < P; ++u) {
      ring[u] = T(0);
      if (active && static_cast<std::uint32_t>(u) < a.steps) {
        ring[u] = a.z[bridge_element(a.z_layout, a.paths, a.z_records, d, first_path, z_index[u], jj)];
      }
    }
    for (std::uint32_t k0 = 0; k0 < a.steps; k0 += P) {
#pragma unroll
      for (int u = 0; u < P; ++u) {
        const std::uint32_t k = k0 + u;
        if (k < a.steps) {
          const T zk[1] = {ring[u]};
          if (active && k + P < a.steps) {
            ring[u] = a.z[bridge_element(a.z_layout, a.paths, a.z_records, d, first_path,
                                         z_index[k + P], jj)];
          }
          build(k, zk);
        }
      }
    }
  }
}

template <class T, int V, int P>
void launch(const BridgeArgs<T>& args, const ConstantLayout& layout, bool vector_io,
            StreamHandle stream, BridgeKernelReport* describe) {
  constexpr const char* name = "bridge_constant_kernel";
  const int d = args.dimension;
  const int groups = ConstantPolicy::block_threads / d;
  const std::int64_t paths_per_block = static_cast<std::int64_t>(groups) * V;
  const std::size_t shared = d > 1 ? sizeof(T) * groups * d * V : 0;
  const LaunchConfig config{grid_1d((args.paths + paths_per_block - 1) / paths_per_block, name),
                            dim3(static_cast<unsigned>(groups * d)), shared, stream, false,
                            report_for(describe, V)};
  launch_kernel(bridge_constant_kernel<T, V, P>, name, config, args, layout, vector_io);
}

// Vector accesses need path-fastest layouts, whole vectors per row and aligned bases.
template <class T, int V>
bool vector_io_allowed(const BridgeArgs<T>& a) {
  const auto aligned = [](const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % (sizeof(T) * V) == 0;
  };
  return a.z_layout == BridgeLayout::path_fastest && a.output_layout == BridgeLayout::path_fastest &&
         a.paths % V == 0 && aligned(a.z) && aligned(a.output);
}

}  // namespace

template <class T>
void launch_bridge_constant(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args,
                            BridgeStrategy which, StreamHandle stream, BridgeKernelReport* describe) {
  const TypedDeviceStrategy<T>& typed = strategy.typed<T>();
  switch (which) {
    case BridgeStrategy::vectorized: {
      constexpr int V = vector_paths<T>(1);
      return launch<T, V, 0>(args, typed.constant_layout, vector_io_allowed<T, V>(args), stream, describe);
    }
    case BridgeStrategy::prefetch:
      return launch<T, 1, ConstantPolicy::prefetch_normals>(args, typed.constant_layout, false, stream, describe);
    default:
      return launch<T, 1, 0>(args, typed.constant_layout, false, stream, describe);
  }
}

void copy_bridge_constant_image(const unsigned char* image, std::size_t bytes, StreamHandle stream) {
  CUNUM_CHECK(cudaMemcpyToSymbolAsync(c_bridge, image, bytes, 0, cudaMemcpyHostToDevice, stream));
}

#define CUNUM_INSTANTIATE_BRIDGE_CONSTANT(T)                                                                \
  template void launch_bridge_constant(const BridgeDeviceStrategy&, const BridgeArgs<T>&, BridgeStrategy, \
                                       StreamHandle, BridgeKernelReport*);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_BRIDGE_CONSTANT, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
