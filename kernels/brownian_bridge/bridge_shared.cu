// GPU strategies 4 and 5 (seed sections 6-7): one thread per path computes all d
// dimensions with C in registers, so the main loop has no barriers. The strategy
// lives in global memory and is staged into shared memory a chunk at a time (with
// two steps of overlap, since each thread reads step records two steps ahead);
// the stack lives in shared memory, slot-major so that a warp's accesses hit
// distinct banks. Strategy 5 keeps {X_l, X_r, X_theta} of the previous step in
// registers and reads the stack only for neighbours that are not among them.
// Strategy 4 and 5-with-prefetch keep P normals per dimension in flight.

#include "brownian_bridge/bridge_device.cuh"
#include "core/cuda_check.hpp"
#include "cunum/core/device.hpp"

namespace cunum::detail {
namespace {

constexpr int kStagedSteps = BridgePolicy::shared_chunk_steps + 2;

template <class T, int D>
__device__ __forceinline__ void load_normals(const BridgeArgs<T>& a, std::int64_t p,
                                             std::uint32_t record, T (&z)[D]) {
#pragma unroll
  for (int j = 0; j < D; ++j) {
    z[j] = j < a.dimension
               ? a.z[bridge_element(a.z_layout, a.paths, a.z_records, a.dimension, p, record, j)]
               : T(0);
  }
}

template <class T, int D>
__device__ __forceinline__ void store_point(const BridgeArgs<T>& a, std::int64_t p,
                                            std::int64_t record, const T (&x)[D]) {
#pragma unroll
  for (int j = 0; j < D; ++j) {
    if (j < a.dimension) {
      a.output[bridge_element(a.output_layout, a.paths, a.output_records, a.dimension, p, record, j)] = x[j];
    }
  }
}

template <class T, int D>
__device__ __forceinline__ void select_point(BridgeReuse source, const T (&prev_left)[D],
                                             const T (&prev_right)[D], const T (&prev_point)[D],
                                             T (&out)[D]) {
  const T(&chosen)[D] = source == BridgeReuse::previous_left
                            ? prev_left
                            : (source == BridgeReuse::previous_right ? prev_right : prev_point);
#pragma unroll
  for (int j = 0; j < D; ++j) out[j] = chosen[j];
}

// D: dimension padded to 1, 2, 4 or 8; Reuse: strategy 5; P: normals in flight (1 = none).
template <class T, int D, bool Reuse, int P>
__global__ void __launch_bounds__(BridgePolicy::shared_block_threads)
    bridge_shared_kernel(BridgeArgs<T> a, const GpuStep<T>* __restrict__ steps,
                         const T* __restrict__ factor, const T* __restrict__ start,
                         const T* __restrict__ end, std::uint32_t stack_size) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  GpuStep<T>* staged = reinterpret_cast<GpuStep<T>*>(shared_bytes);
  T* stack = reinterpret_cast<T*>(shared_bytes + sizeof(GpuStep<T>) * kStagedSteps);
  const int d = a.dimension;
  const int threads = static_cast<int>(blockDim.x);
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * threads + tid;
  const bool active = p < a.paths;
  // Element j of slot s of this thread's stack.
  auto slot = [&](std::uint32_t s, int j) -> T& { return stack[(s * d + j) * threads + tid]; };

  T c[D][D];
#pragma unroll
  for (int i = 0; i < D; ++i) {
#pragma unroll
    for (int j = 0; j < D; ++j) c[i][j] = factor[i * BridgePolicy::max_register_dimension + j];
  }
  auto correlate = [&](const T (&z)[D], T (&cz)[D]) {
#pragma unroll
    for (int i = 0; i < D; ++i) {
      cz[i] = T(0);
#pragma unroll
      for (int j = 0; j <= i; ++j) cz[i] += c[i][j] * z[j];
    }
  };

  T x0[D], z[D], cz[D];
  T prev_left[D], prev_right[D], prev_point[D];
#pragma unroll
  for (int j = 0; j < D; ++j) {
    x0[j] = j < d ? start[j] : T(0);
    prev_left[j] = prev_right[j] = prev_point[j] = T(0);
  }
  if (active) {
    if (a.fixed_end) {
#pragma unroll
      for (int j = 0; j < D; ++j) prev_point[j] = j < d ? end[j] : T(0);
    } else {
      load_normals<T, D>(a, p, 0, z);
      correlate(z, cz);
#pragma unroll
      for (int j = 0; j < D; ++j) prev_point[j] = x0[j] + a.end_std_dev * cz[j];
    }
    store_point<T, D>(a, p, a.steps, prev_point);
#pragma unroll
    for (int j = 0; j < D; ++j) {
      if (j < d) {
        slot(BrownianBridge::start_slot, j) = x0[j];
        slot(BrownianBridge::end_slot, j) = prev_point[j];
      }
    }
  }

  // Ring of P normal vectors; z indices of steps ahead come straight from global memory.
  T ring[P][D];
  if constexpr (P > 1) {
#pragma unroll
    for (int u = 0; u < P; ++u) {
      if (active && static_cast<std::uint32_t>(u) < a.steps) {
        load_normals<T, D>(a, p, steps[u].z_index, ring[u]);
      }
    }
  }

  GpuStep<T> current{}, next{};
  std::uint32_t chunk_begin = 0;
  for (std::uint32_t k0 = 0; k0 < a.steps; k0 += P) {
    if (k0 % BridgePolicy::shared_chunk_steps == 0) {
      // Stage steps [k0, k0 + chunk + 2) word by word; uniform across the block.
      chunk_begin = k0;
      const std::uint32_t count = min(a.steps - k0, static_cast<std::uint32_t>(kStagedSteps));
      constexpr int words_per_step = sizeof(GpuStep<T>) / sizeof(std::uint32_t);
      const auto* source = reinterpret_cast<const std::uint32_t*>(steps + k0);
      auto* target = reinterpret_cast<std::uint32_t*>(staged);
      __syncthreads();
      for (std::uint32_t w = tid; w < count * words_per_step; w += threads) target[w] = source[w];
      __syncthreads();
      current = staged[0];
      if (count > 1) next = staged[1];
    }
#pragma unroll
    for (int u = 0; u < P; ++u) {
      const std::uint32_t k = k0 + u;
      if (k < a.steps && active) {
        // Step records two ahead: `next` is k + 1, `ahead` is k + 2.
        const std::uint32_t ahead_index = k + 2 - chunk_begin;
        GpuStep<T> ahead{};
        if (ahead_index < static_cast<std::uint32_t>(kStagedSteps) && k + 2 < a.steps) {
          ahead = staged[ahead_index];
        }
        if constexpr (P > 1) {
#pragma unroll
          for (int j = 0; j < D; ++j) z[j] = ring[u][j];
          if (k + P < a.steps) load_normals<T, D>(a, p, steps[k + P].z_index, ring[u]);
        } else {
          load_normals<T, D>(a, p, current.z_index, z);
        }
        correlate(z, cz);
        T xl[D], xr[D];
        const auto left_source = static_cast<BridgeReuse>(current.left_reuse);
        const auto right_source = static_cast<BridgeReuse>(current.right_reuse);
        if (Reuse && left_source != BridgeReuse::stack) {
          select_point<T, D>(left_source, prev_left, prev_right, prev_point, xl);
        } else {
#pragma unroll
          for (int j = 0; j < D; ++j) xl[j] = j < d ? slot(current.left_slot, j) : T(0);
        }
        if (Reuse && right_source != BridgeReuse::stack) {
          select_point<T, D>(right_source, prev_left, prev_right, prev_point, xr);
        } else {
#pragma unroll
          for (int j = 0; j < D; ++j) xr[j] = j < d ? slot(current.right_slot, j) : T(0);
        }
        T x[D];
#pragma unroll
        for (int j = 0; j < D; ++j) {
          x[j] = current.left_weight * xl[j] + current.right_weight * xr[j] + current.std_dev * cz[j];
        }
        store_point<T, D>(a, p, current.output_index - 1, x);
        if (current.store_slot != stack_size) {
#pragma unroll
          for (int j = 0; j < D; ++j) {
            if (j < d) slot(current.store_slot, j) = x[j];
          }
        }
        if constexpr (Reuse) {
#pragma unroll
          for (int j = 0; j < D; ++j) {
            prev_left[j] = xl[j];
            prev_right[j] = xr[j];
            prev_point[j] = x[j];
          }
        }
        current = next;
        next = ahead;
      }
    }
  }
}

template <class T, int D, bool Reuse, int P>
void launch(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args, StreamHandle stream) {
  const TypedDeviceStrategy<T>& typed = strategy.typed<T>();
  const auto& properties = device_properties();
  int threads = BridgePolicy::shared_block_threads;
  while (threads > BridgePolicy::min_shared_block_threads &&
         bridge_shared_bytes<T>(strategy.stack_size, args.dimension, threads) >
             properties.shared_memory_per_block_optin_bytes) {
    threads /= 2;
  }
  const std::size_t shared = bridge_shared_bytes<T>(strategy.stack_size, args.dimension, threads);
  const std::int64_t blocks = (args.paths + threads - 1) / threads;
  if (blocks > 0x7FFFFFFF) {
    throw Error(ErrorCode::not_supported, "cunum::BrownianBridge::generate: paths exceed the grid limit");
  }
  auto kernel = bridge_shared_kernel<T, D, Reuse, P>;
  CUNUM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(shared)));
  kernel<<<static_cast<unsigned>(blocks), threads, shared, stream>>>(
      args, typed.steps.data(), typed.factor.data(), typed.start.data(), typed.end.data(),
      strategy.stack_size);
  CUNUM_CHECK_LAUNCH("bridge_shared_kernel");
}

template <class T, int D>
void launch_for_dimension(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args,
                          BridgeStrategy which, StreamHandle stream) {
  constexpr int P = shared_prefetch_depth<D>();
  switch (which) {
    case BridgeStrategy::shared_memory_reuse:
      launch<T, D, true, 1>(strategy, args, stream);
      return;
    case BridgeStrategy::shared_memory_reuse_prefetch:
      launch<T, D, true, P>(strategy, args, stream);
      return;
    default:
      launch<T, D, false, P>(strategy, args, stream);
      return;
  }
}

}  // namespace

template <class T>
std::size_t bridge_shared_bytes(std::uint32_t stack_size, int dimension, int threads) {
  return sizeof(GpuStep<T>) * kStagedSteps +
         sizeof(T) * static_cast<std::size_t>(stack_size) * dimension * threads;
}

template <class T>
void launch_bridge_shared(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args,
                          BridgeStrategy which, StreamHandle stream) {
  if (args.dimension <= 1) return launch_for_dimension<T, 1>(strategy, args, which, stream);
  if (args.dimension <= 2) return launch_for_dimension<T, 2>(strategy, args, which, stream);
  if (args.dimension <= 4) return launch_for_dimension<T, 4>(strategy, args, which, stream);
  launch_for_dimension<T, BridgePolicy::max_register_dimension>(strategy, args, which, stream);
}

template std::size_t bridge_shared_bytes<float>(std::uint32_t, int, int);
template std::size_t bridge_shared_bytes<double>(std::uint32_t, int, int);
template void launch_bridge_shared(const BridgeDeviceStrategy&, const BridgeArgs<float>&,
                                   BridgeStrategy, StreamHandle);
template void launch_bridge_shared(const BridgeDeviceStrategy&, const BridgeArgs<double>&,
                                   BridgeStrategy, StreamHandle);

}  // namespace cunum::detail
