// GPU strategies 4 and 5 (seed sections 6-7): one thread per path (or per V
// consecutive paths moved as 16-byte vectors) computes all d dimensions with C in
// registers, so the step loop has no barriers. The strategy lives in global memory
// and is staged into shared memory a chunk at a time; each thread reads step indices
// two steps ahead. The stack lives in shared memory. Strategy 5 keeps {X_l, X_r,
// X_theta} of the previous step in registers and reads the stack only for
// neighbours that are not among them. Strategy 4 and 5-with-prefetch keep P normals
// in flight per thread.

#include "brownian_bridge/bridge_launch.cuh"
#include "brownian_bridge/bridge_path_builder.cuh"
#include "cunum/core/device.hpp"

namespace cunum::detail {
namespace {

// D: dimension padded to 1, 2, 4 or 8; V: paths per thread; Reuse: strategy 5;
// P: normals in flight (1 = none).
template <class T, int D, int V, bool Reuse, int P>
__global__ void __launch_bounds__(BridgePolicy::shared_block_threads)
    bridge_shared_kernel(BridgeArgs<T> a, DeviceSteps<T> steps) {
  using Values = T[D][V];
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  StagedSteps<T> staged(shared_bytes);
  PathBuilder<T, D, V, Reuse> builder(steps, a.dimension, shared_bytes + StagedSteps<T>::bytes());
  const std::int64_t first = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * V;
  const bool active = first < a.paths;
  const PathGroup in{a.z_layout, a.paths, a.z_records, a.dimension, first};
  const PathGroup out{a.output_layout, a.paths, a.output_records, a.dimension, first};

  if (active) {
    Values z0{};
    if (!a.fixed_end) read_record<T, D, V>(a.z, in, 0, z0);
    builder.begin(a, out, z0);
  }
  // Ring of P normal records: the record of step k + P is requested at step k.
  Values ring[P];
  if constexpr (P > 1) {
#pragma unroll
    for (int u = 0; u < P; ++u) {
      if (active && static_cast<std::uint32_t>(u) < a.steps) {
        read_record<T, D, V>(a.z, in, __ldg(&steps.indices[u].z_index), ring[u]);
      }
    }
  }

  StepIndices current{}, next{};
  for (std::uint32_t k0 = 0; k0 < a.steps; k0 += P) {
    if (k0 % BridgePolicy::shared_chunk_steps == 0) {
      staged.stage(steps, k0, a.steps);  // uniform across the block
      current = staged.index(k0);
      if (k0 + 1 < a.steps) next = staged.index(k0 + 1);
    }
#pragma unroll
    for (int u = 0; u < P; ++u) {
      const std::uint32_t k = k0 + u;
      if (k < a.steps && active) {
        StepIndices ahead{};
        if (k + 2 < a.steps) ahead = staged.index(k + 2);
        Values z;
        if constexpr (P > 1) {
#pragma unroll
          for (int j = 0; j < D; ++j) {
#pragma unroll
            for (int v = 0; v < V; ++v) z[j][v] = ring[u][j][v];
          }
          if (k + P < a.steps) read_record<T, D, V>(a.z, in, __ldg(&steps.indices[k + P].z_index), ring[u]);
        } else {
          read_record<T, D, V>(a.z, in, current.z_index, z);
        }
        builder.build(a, out, current, staged.weight(k), z);
        current = next;
        next = ahead;
      }
    }
  }
}

template <class T, int D, int V, bool Reuse, int P>
void launch(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args, StreamHandle stream,
            BridgeKernelInfo* describe) {
  const auto& properties = device_properties();
  int threads = BridgePolicy::shared_block_threads;
  while (threads > BridgePolicy::min_shared_block_threads &&
         bridge_shared_bytes<T>(strategy.stack_size, args.dimension, threads, V) >
             properties.shared_memory_per_block_optin_bytes) {
    threads /= 2;
  }
  const std::int64_t paths_per_block = static_cast<std::int64_t>(threads) * V;
  launch_or_describe(bridge_shared_kernel<T, D, V, Reuse, P>, (args.paths + paths_per_block - 1) / paths_per_block,
                     threads, bridge_shared_bytes<T>(strategy.stack_size, args.dimension, threads, V), V,
                     stream, describe, "bridge_shared_kernel", args, strategy.device_steps<T>());
}

// 16-byte vectors of consecutive paths need path-fastest arrays whose rows all
// start 16-byte aligned.
template <class T>
bool vector_io_allowed(const BridgeArgs<T>& a) {
  constexpr int V = vector_paths<T>();
  const auto aligned = [](const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % BridgePolicy::vector_bytes == 0;
  };
  return a.z_layout == BridgeLayout::path_fastest && a.output_layout == BridgeLayout::path_fastest &&
         a.paths % V == 0 && aligned(a.z) && aligned(a.output);
}

template <class T, int D>
void launch_for_dimension(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args,
                          BridgeStrategy which, StreamHandle stream, BridgeKernelInfo* describe) {
  constexpr int P = shared_prefetch_depth<D>();
  if constexpr (D == 1) {
    // One dimension: V paths per thread in 16-byte vectors where the arrays allow.
    constexpr int V = vector_paths<T>();
    constexpr int PV = BridgePolicy::vector_prefetch_depth;
    const bool vector = vector_io_allowed(args) &&
                        bridge_shared_bytes<T>(strategy.stack_size, args.dimension,
                                               BridgePolicy::min_shared_block_threads, V) <=
                            device_properties().shared_memory_per_block_optin_bytes;
    if (vector) {
      switch (which) {
        case BridgeStrategy::shared_memory_reuse: return launch<T, D, V, true, 1>(strategy, args, stream, describe);
        case BridgeStrategy::shared_memory_reuse_prefetch:
          return launch<T, D, V, true, PV>(strategy, args, stream, describe);
        default: return launch<T, D, V, false, PV>(strategy, args, stream, describe);
      }
    }
  }
  switch (which) {
    case BridgeStrategy::shared_memory_reuse: return launch<T, D, 1, true, 1>(strategy, args, stream, describe);
    case BridgeStrategy::shared_memory_reuse_prefetch:
      return launch<T, D, 1, true, P>(strategy, args, stream, describe);
    default: return launch<T, D, 1, false, P>(strategy, args, stream, describe);
  }
}

}  // namespace

template <class T>
std::size_t bridge_shared_bytes(std::uint32_t stack_size, int dimension, int threads, int paths_per_thread) {
  return StagedSteps<T>::bytes() +
         sizeof(T) * static_cast<std::size_t>(stack_size) * dimension * threads * paths_per_thread;
}

template <class T>
void launch_bridge_shared(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args,
                          BridgeStrategy which, StreamHandle stream, BridgeKernelInfo* describe) {
  if (args.dimension <= 1) return launch_for_dimension<T, 1>(strategy, args, which, stream, describe);
  if (args.dimension <= 2) return launch_for_dimension<T, 2>(strategy, args, which, stream, describe);
  if (args.dimension <= 4) return launch_for_dimension<T, 4>(strategy, args, which, stream, describe);
  launch_for_dimension<T, BridgePolicy::max_register_dimension>(strategy, args, which, stream, describe);
}

template std::size_t bridge_shared_bytes<float>(std::uint32_t, int, int, int);
template std::size_t bridge_shared_bytes<double>(std::uint32_t, int, int, int);
template void launch_bridge_shared(const BridgeDeviceStrategy&, const BridgeArgs<float>&, BridgeStrategy,
                                   StreamHandle, BridgeKernelInfo*);
template void launch_bridge_shared(const BridgeDeviceStrategy&, const BridgeArgs<double>&, BridgeStrategy,
                                   StreamHandle, BridgeKernelInfo*);

}  // namespace cunum::detail
