#pragma once
// Internal: the fused quasi-random bridge kernel and its launcher, as templates
// (the library instantiates its policy's variants in brownian_bridge_sobol.cu, the bench's
// tuning sweep others). Each thread draws its paths' normals from a Sobol sequence
// and bridges them at once (strategy 5 with the stack in shared memory), so Z never
// touches device memory.
//
// cuRAND's Sobol point n has, in dimension k,
//     x_k(n) = c_k ^ XOR of v_k[b] over the set bits b of gray(n) = n ^ (n >> 1),
// c_k its scrambling constant (0 unscrambled), v_k its direction vectors. The 32
// lanes of a warp take n = 32 q + lane, so gray(n) splits into the lane's five low
// bits, gray(lane), and a part h(q) = gray(q) << 5 | (q & 1) << 4 that is the same
// for the whole warp:
//     x_k(n) = L_k(lane) ^ U_k(q),    L_k(lane) = XOR of v_k[b] over bits b < 5 of gray(lane),
//                                     U_k(q)    = c_k ^ XOR of v_k[b] over the bits b of h(q).
// L is a table in shared memory; U is one word per dimension per q of the warp,
// also in shared memory, moved to the warp's next q by XOR with the vectors of the
// few bits in which h changes. A thread builds V paths, n = 32 (q0 + v) + lane
// (stores stay coalesced across the warp): one L load serves V normals, and the
// step's indices and weights serve V paths. The inverse normal is cuRAND's own
// (curand_normal_static.h), so the numbers are cuRAND's.

#include <curand_globals.h>
#include <curand_normal_static.h>

#include "kernels/brownian_bridge/bridge_path_builder.cuh"
#include "kernels/common/launch.cuh"
#include "cunum/core/device.hpp"

namespace cunum::detail {

constexpr int kWarpLanes = 32;

constexpr std::size_t round_up_16(std::size_t bytes) { return (bytes + 15) / 16 * 16; }

template <class T, class Word>
__device__ __forceinline__ T sobol_inverse_normal(Word x) {
  if constexpr (sizeof(T) == sizeof(float)) {
    return _curand_normal_icdf(x);
  } else {
    return _curand_normal_icdf_double(x);
  }
}

__device__ __forceinline__ int lowest_bit(unsigned int x) { return __ffs(static_cast<int>(x)) - 1; }
__device__ __forceinline__ int lowest_bit(unsigned long long x) { return __ffsll(static_cast<long long>(x)) - 1; }

// Dynamic shared memory of the fused kernel.
template <class T>
std::size_t bridge_sobol_shared_bytes(std::uint32_t stack_size, int dimension, std::int64_t sobol_dimensions,
                                      std::size_t word_bytes, int threads, int paths_per_thread) {
  return StagedSteps<T>::bytes() + round_up_16(word_bytes * kWarpLanes * sobol_dimensions) +
         round_up_16(word_bytes * (threads / kWarpLanes) * paths_per_thread * sobol_dimensions) +
         sizeof(T) * static_cast<std::size_t>(stack_size) * dimension * threads * paths_per_thread;
}

// D: dimension padded up; V: paths per thread; Word: unsigned int (32-bit
// sequences) or unsigned long long (64-bit); BlockThreads, MinBlocks: launch bounds.
template <class T, int D, int V, class Word, int BlockThreads, int MinBlocks>
__global__ void __launch_bounds__(BlockThreads, MinBlocks)
    bridge_sobol_kernel(BridgeArgs<T> a, DeviceSteps<T> steps, const Word* __restrict__ tables,
                        std::int64_t dimensions, std::uint64_t offset, std::int64_t tiles) {
  constexpr int bits = sizeof(Word) * 8;
  using Values = T[D][V];
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const int sobol_dimensions = static_cast<int>(dimensions);  // <= 20000: shared indices stay 32-bit
  const int warps = static_cast<int>(blockDim.x) / kWarpLanes;
  const int warp = static_cast<int>(threadIdx.x) / kWarpLanes;
  const int lane = static_cast<int>(threadIdx.x) % kWarpLanes;
  StagedSteps<T> staged(shared_bytes);
  unsigned char* cursor = shared_bytes + StagedSteps<T>::bytes();
  Word* lane_table = reinterpret_cast<Word*>(cursor);  // dimensions x 32
  cursor += round_up_16(sizeof(Word) * kWarpLanes * dimensions);
  Word* warp_words = reinterpret_cast<Word*>(cursor) + warp * V * sobol_dimensions;  // U, V rows
  cursor += round_up_16(sizeof(Word) * warps * V * dimensions);
  PathBuilder<T, D, V, true> builder(steps, a.dimension, cursor);

  const Word* direction_vectors = tables + dimensions * kWarpLanes;
  const Word* scramble = direction_vectors + dimensions * bits;
  for (int i = threadIdx.x; i < sobol_dimensions * kWarpLanes; i += blockDim.x) lane_table[i] = tables[i];
  for (int v = 0; v < V; ++v) {
    for (int k = lane; k < sobol_dimensions; k += kWarpLanes) warp_words[v * sobol_dimensions + k] = scramble[k];
  }
  __syncthreads();

  const std::uint64_t first_q = offset / kWarpLanes;
  Word h_previous[V] = {};
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const std::uint64_t q0 = first_q + (static_cast<std::uint64_t>(tile) * warps + warp) * V;
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const std::uint64_t q = q0 + v;
      const Word h = static_cast<Word>((q ^ (q >> 1)) << 5 | (q & 1) << 4);
      const Word changed = h ^ h_previous[v];
      Word* words = warp_words + v * sobol_dimensions;
      for (int k = lane; k < sobol_dimensions; k += kWarpLanes) {
        Word word = words[k];
        for (Word b = changed; b != 0; b &= b - 1) word ^= __ldg(direction_vectors + k * bits + lowest_bit(b));
        words[k] = word;
      }
      h_previous[v] = h;
    }
    __syncwarp();

    const std::uint64_t n0 = q0 * kWarpLanes + lane;
    PathGroup<V, kWarpLanes> out(a.output_layout, a.paths, a.output_records, a.dimension,
                                 static_cast<std::int64_t>(n0 - offset));
    out.lanes = 0;
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const std::uint64_t n = n0 + static_cast<std::uint64_t>(v) * kWarpLanes;
      if (n >= offset && n - offset < static_cast<std::uint64_t>(a.paths)) out.lanes |= 1u << v;
    }
    const bool active = out.lanes != 0;
    auto normals = [&](std::uint32_t record, Values& z) {
#pragma unroll
      for (int j = 0; j < D; ++j) {
        const int k = static_cast<int>(record) * a.dimension + j;
        const Word lane_part = j < a.dimension ? lane_table[k * kWarpLanes + lane] : Word(0);
#pragma unroll
        for (int v = 0; v < V; ++v) {
          z[j][v] = j < a.dimension ? sobol_inverse_normal<T>(lane_part ^ warp_words[v * sobol_dimensions + k]) : T(0);
        }
      }
    };
    if (active) {
      Values z0 = {};
      if (!a.fixed_end) normals(0, z0);
      builder.begin(a, out, z0);
    }
    StepIndices current{}, next{};
    for (std::uint32_t k = 0; k < a.steps; ++k) {
      if (k % BridgeLimits::shared_chunk_steps == 0) {
        staged.stage(steps, k, a.steps);  // uniform across the block; a no-op when staged
        current = staged.index(k);
        if (k + 1 < a.steps) next = staged.index(k + 1);
      }
      if (active) {
        StepIndices ahead{};
        if (k + 2 < a.steps) ahead = staged.index(k + 2);
        Values z;
        normals(current.z_index, z);
        builder.build(a, out, current, staged.weight(k), z);
        current = next;
        next = ahead;
      }
    }
    __syncwarp();  // every lane has read U before the warp moves it on
  }
}

// Launches (or describes) one variant on a persistent grid: the per-block tables
// are built once and the per-warp words move a few bits per tile.
template <class T, int D, int V, class Word, int BlockThreads, int MinBlocks>
void launch_bridge_sobol_variant(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args,
                                 std::uint64_t offset, const DeviceSobolTables& tables, StreamHandle stream,
                                 BridgeKernelReport* describe) {
  const std::int64_t dimensions = args.z_records * args.dimension;
  const std::size_t shared =
      bridge_sobol_shared_bytes<T>(strategy.stack_size, args.dimension, dimensions, sizeof(Word), BlockThreads, V);
  // Tiles of BlockThreads x V consecutive sequence indices, from offset rounded down to 32.
  const std::int64_t span = static_cast<std::int64_t>(offset % kWarpLanes) + args.paths;
  const std::int64_t tiles = (span + BlockThreads * V - 1) / (BlockThreads * V);
  constexpr const char* name = "bridge_sobol_kernel";
  auto kernel = bridge_sobol_kernel<T, D, V, Word, BlockThreads, MinBlocks>;
  const DeviceSteps<T> steps = strategy.device_steps<T>();
  const auto* words = reinterpret_cast<const Word*>(tables.bytes.data());
  // Resident blocks per SM, from a describe-only call: it raises the kernel's shared
  // memory limit before the occupancy query, as the launch below will.
  KernelReport residency;
  launch_kernel(kernel, name, {dim3(1), dim3(BlockThreads), shared, stream, false, &residency}, args, steps, words,
                dimensions, offset, tiles);
  const int resident = residency.blocks_per_multiprocessor;
  const std::int64_t capacity =
      static_cast<std::int64_t>(resident > 0 ? resident : 1) * device_properties().multiprocessor_count;
  const LaunchConfig config{grid_1d(tiles < capacity ? tiles : capacity, name), dim3(BlockThreads), shared, stream,
                            false, report_for(describe, V)};
  launch_kernel(kernel, name, config, args, steps, words, dimensions, offset, tiles);
}

}  // namespace cunum::detail
