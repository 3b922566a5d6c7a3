#pragma once
// Internal: the kernel of GPU strategies 4 and 5 (sections 6-7 of du Toit's paper,
// the reference work) and its launcher, as templates: the library instantiates the
// variants its policy names (brownian_bridge_shared.cu), the bench's tuning sweep others.
//
// One thread per path (or per V consecutive paths moved as 16-byte vectors)
// computes all d dimensions with C in registers, so the step loop has no barriers.
// The strategy lives in global memory and is staged into shared memory a chunk at
// a time; each thread reads step indices two steps ahead. The stack lives in shared
// memory. Strategy 5 keeps {X_l, X_r, X_theta} of the previous step in registers
// and reads the stack only for neighbours that are not among them. P > 1 keeps P
// normal records in flight per thread.

#include "kernels/brownian_bridge/bridge_path_builder.cuh"
#include "kernels/common/launch.cuh"
#include "cunum/core/device.hpp"

namespace cunum::detail {

// D: dimension padded up (1, 2, 3, 4 or 8); V: paths per thread; Reuse: strategy
// 5; P: normal records in flight (1 = none); BlockThreads and MinBlocks: the
// launch bounds (MinBlocks > 1 caps the registers).
template <class T, int D, int V, bool Reuse, int P, int BlockThreads, int MinBlocks>
__global__ void __launch_bounds__(BlockThreads, MinBlocks)
    bridge_shared_kernel(BridgeArgs<T> a, DeviceSteps<T> steps) {
  using Values = T[D][V];
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  StagedSteps<T> staged(shared_bytes);
  PathBuilder<T, D, V, Reuse> builder(steps, a.dimension, shared_bytes + StagedSteps<T>::bytes());
  const std::int64_t first = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * V;
  const bool active = first < a.paths;
  const PathGroup<V> in(a.z_layout, a.paths, a.z_records, a.dimension, first);
  const PathGroup<V> out(a.output_layout, a.paths, a.output_records, a.dimension, first);

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
    if (k0 % BridgeLimits::shared_chunk_steps == 0) {
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

template <class T>
std::size_t bridge_shared_bytes(std::uint32_t stack_size, int dimension, int threads, int paths_per_thread) {
  return StagedSteps<T>::bytes() +
         sizeof(T) * static_cast<std::size_t>(stack_size) * dimension * threads * paths_per_thread;
}

// 16-byte vectors of V consecutive paths need path-fastest arrays whose rows all
// start 16-byte aligned.
template <class T, int V>
bool bridge_vector_io_allowed(const BridgeArgs<T>& a) {
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % (sizeof(T) * V) == 0; };
  return a.z_layout == BridgeLayout::path_fastest && a.output_layout == BridgeLayout::path_fastest &&
         a.paths % V == 0 && aligned(a.z) && aligned(a.output);
}

// Launches (or describes) one variant; blocks shrink from BlockThreads while the
// stack does not fit in shared memory.
template <class T, int D, int V, bool Reuse, int P, int BlockThreads, int MinBlocks>
void launch_bridge_shared_variant(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args,
                                  StreamHandle stream, BridgeKernelReport* describe) {
  const auto& properties = device_properties();
  int threads = BlockThreads;
  while (threads > BridgeLimits::min_shared_block_threads &&
         bridge_shared_bytes<T>(strategy.stack_size, args.dimension, threads, V) >
             properties.shared_memory_per_block_optin_bytes) {
    threads /= 2;
  }
  constexpr const char* name = "bridge_shared_kernel";
  const std::int64_t paths_per_block = static_cast<std::int64_t>(threads) * V;
  const LaunchConfig config{grid_1d((args.paths + paths_per_block - 1) / paths_per_block, name),
                            dim3(static_cast<unsigned>(threads)),
                            bridge_shared_bytes<T>(strategy.stack_size, args.dimension, threads, V), stream, false,
                            report_for(describe, V)};
  launch_kernel(bridge_shared_kernel<T, D, V, Reuse, P, BlockThreads, MinBlocks>, name, config, args,
                strategy.device_steps<T>());
}

}  // namespace cunum::detail
