// The fused quasi-random bridge: each thread draws its path's normals from a Sobol
// sequence and bridges them at once (strategy 5 in registers and shared memory), so
// Z never touches device memory.
//
// cuRAND's Sobol point n has, in dimension k,
//     x_k(n) = c_k ^ XOR of v_k[b] over the set bits b of gray(n) = n ^ (n >> 1),
// c_k its scrambling constant (0 unscrambled), v_k its direction vectors. The 32
// lanes of a warp take n = 32 q + lane, so gray(n) splits into the lane's five low
// bits, gray(lane), and a part h(q) = gray(q) << 5 | (q & 1) << 4 that is the same
// for the whole warp:
//     x_k(n) = L_k(lane) ^ U_k(q),    L_k(lane) = XOR of v_k[b] over bits b < 5 of gray(lane),
//                                     U_k(q)    = c_k ^ XOR of v_k[b] over the bits b of h(q).
// L is a table in shared memory; U is one word per dimension per warp, also in
// shared memory, moved to the warp's next q by XOR with the vectors of the few bits
// in which h changes. A normal costs two shared loads, an XOR and cuRAND's own
// inverse normal (curand_normal_static.h), so the numbers are cuRAND's.

#include <curand_globals.h>
#include <curand_normal_static.h>

#include "brownian_bridge/bridge_launch.cuh"
#include "brownian_bridge/bridge_path_builder.cuh"
#include "cunum/core/device.hpp"

namespace cunum::detail {
namespace {

constexpr int kWarpLanes = 32;

constexpr std::size_t round_up_16(std::size_t bytes) { return (bytes + 15) / 16 * 16; }

template <class T, class Word>
__device__ __forceinline__ T inverse_normal(Word x) {
  if constexpr (sizeof(T) == sizeof(float)) {
    return _curand_normal_icdf(x);
  } else {
    return _curand_normal_icdf_double(x);
  }
}

__device__ __forceinline__ int lowest_bit(unsigned int x) { return __ffs(static_cast<int>(x)) - 1; }
__device__ __forceinline__ int lowest_bit(unsigned long long x) {
  return __ffsll(static_cast<long long>(x)) - 1;
}

// Word: unsigned int (32-bit sequences) or unsigned long long (64-bit).
template <class T, int D, class Word>
__global__ void __launch_bounds__(BridgePolicy::sobol_block_threads)
    bridge_sobol_kernel(BridgeArgs<T> a, DeviceSteps<T> steps, const Word* __restrict__ tables,
                        std::int64_t dimensions, std::uint64_t offset, std::int64_t tiles) {
  constexpr int bits = sizeof(Word) * 8;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const int warps = static_cast<int>(blockDim.x) / kWarpLanes;
  const int warp = static_cast<int>(threadIdx.x) / kWarpLanes;
  const int lane = static_cast<int>(threadIdx.x) % kWarpLanes;
  StagedSteps<T> staged(shared_bytes);
  unsigned char* cursor = shared_bytes + StagedSteps<T>::bytes();
  Word* lane_table = reinterpret_cast<Word*>(cursor);  // dimensions x 32
  cursor += round_up_16(sizeof(Word) * kWarpLanes * dimensions);
  Word* warp_word = reinterpret_cast<Word*>(cursor) + warp * dimensions;  // this warp's U
  cursor += round_up_16(sizeof(Word) * warps * dimensions);
  PathBuilder<T, D, 1, true> builder(steps, a.dimension, cursor);

  const Word* direction_vectors = tables + dimensions * kWarpLanes;
  const Word* scramble = direction_vectors + dimensions * bits;
  for (std::int64_t i = threadIdx.x; i < dimensions * kWarpLanes; i += blockDim.x) lane_table[i] = tables[i];
  for (std::int64_t k = lane; k < dimensions; k += kWarpLanes) warp_word[k] = scramble[k];
  __syncthreads();

  const std::uint64_t first_q = offset / kWarpLanes;
  Word h_previous = 0;
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const std::uint64_t q = first_q + static_cast<std::uint64_t>(tile) * warps + warp;
    const Word h = static_cast<Word>((q ^ (q >> 1)) << 5 | (q & 1) << 4);
    const Word changed = h ^ h_previous;
    for (std::int64_t k = lane; k < dimensions; k += kWarpLanes) {
      Word word = warp_word[k];
      for (Word b = changed; b != 0; b &= b - 1) word ^= __ldg(direction_vectors + k * bits + lowest_bit(b));
      warp_word[k] = word;
    }
    h_previous = h;
    __syncwarp();

    const std::uint64_t n = q * kWarpLanes + lane;
    const bool active = n >= offset && n - offset < static_cast<std::uint64_t>(a.paths);
    const PathGroup out{a.output_layout, a.paths, a.output_records, a.dimension,
                        static_cast<std::int64_t>(n - offset)};
    auto normals = [&](std::uint32_t record, T (&z)[D][1]) {
#pragma unroll
      for (int j = 0; j < D; ++j) {
        const std::int64_t k = static_cast<std::int64_t>(record) * a.dimension + j;
        z[j][0] = j < a.dimension ? inverse_normal<T>(lane_table[k * kWarpLanes + lane] ^ warp_word[k]) : T(0);
      }
    };
    if (active) {
      T z0[D][1] = {};
      if (!a.fixed_end) normals(0, z0);
      builder.begin(a, out, z0);
    }
    StepIndices current{}, next{};
    for (std::uint32_t k = 0; k < a.steps; ++k) {
      if (k % BridgePolicy::shared_chunk_steps == 0) {
        staged.stage(steps, k, a.steps);  // uniform across the block; a no-op when staged
        current = staged.index(k);
        if (k + 1 < a.steps) next = staged.index(k + 1);
      }
      if (active) {
        StepIndices ahead{};
        if (k + 2 < a.steps) ahead = staged.index(k + 2);
        T z[D][1];
        normals(current.z_index, z);
        builder.build(a, out, current, staged.weight(k), z);
        current = next;
        next = ahead;
      }
    }
    __syncwarp();  // every lane has read U before the warp moves it on
  }
}

template <class T, int D, class Word>
void launch(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args, std::uint64_t offset,
            const DeviceSobolTables& tables, StreamHandle stream, BridgeKernelInfo* describe) {
  constexpr int threads = BridgePolicy::sobol_block_threads;
  const std::int64_t dimensions = args.z_records * args.dimension;
  const std::size_t shared =
      bridge_sobol_shared_bytes<T>(strategy.stack_size, args.dimension, dimensions, sizeof(Word) == 8);
  // Tiles of 32 x warps consecutive sequence indices, from offset rounded down to 32.
  const std::int64_t span = static_cast<std::int64_t>(offset % kWarpLanes) + args.paths;
  const std::int64_t tiles = (span + threads - 1) / threads;
  // A persistent grid: the per-block tables are built once and the per-warp words
  // move a few bits per tile.
  auto kernel = bridge_sobol_kernel<T, D, Word>;
  allow_dynamic_shared(kernel, shared);
  int resident = 0;
  CUNUM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, threads, shared));
  const std::int64_t capacity =
      static_cast<std::int64_t>(resident > 0 ? resident : 1) * device_properties().multiprocessor_count;
  launch_or_describe(kernel, tiles < capacity ? tiles : capacity, threads, shared, 1, stream, describe,
                     "bridge_sobol_kernel", args, strategy.device_steps<T>(),
                     reinterpret_cast<const Word*>(tables.bytes.data()), dimensions, offset, tiles);
}

template <class T, class Word>
void launch_for_word(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args, std::uint64_t offset,
                     const DeviceSobolTables& tables, StreamHandle stream, BridgeKernelInfo* describe) {
  if (args.dimension <= 1) return launch<T, 1, Word>(strategy, args, offset, tables, stream, describe);
  if (args.dimension <= 2) return launch<T, 2, Word>(strategy, args, offset, tables, stream, describe);
  if (args.dimension <= 4) return launch<T, 4, Word>(strategy, args, offset, tables, stream, describe);
  launch<T, BridgePolicy::max_register_dimension, Word>(strategy, args, offset, tables, stream, describe);
}

}  // namespace

template <class T>
std::size_t bridge_sobol_shared_bytes(std::uint32_t stack_size, int dimension, std::int64_t sobol_dimensions,
                                      bool wide_words) {
  constexpr int threads = BridgePolicy::sobol_block_threads;
  const std::size_t word = wide_words ? 8 : 4;
  return StagedSteps<T>::bytes() + round_up_16(word * kWarpLanes * sobol_dimensions) +
         round_up_16(word * (threads / kWarpLanes) * sobol_dimensions) +
         sizeof(T) * static_cast<std::size_t>(stack_size) * dimension * threads;
}

template <class T>
void launch_bridge_sobol(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args, SobolSequence sequence,
                         std::uint64_t offset, const DeviceSobolTables& tables, StreamHandle stream,
                         BridgeKernelInfo* describe) {
  if (sequence == SobolSequence::sobol64 || sequence == SobolSequence::scrambled_sobol64) {
    return launch_for_word<T, unsigned long long>(strategy, args, offset, tables, stream, describe);
  }
  launch_for_word<T, unsigned int>(strategy, args, offset, tables, stream, describe);
}

template std::size_t bridge_sobol_shared_bytes<float>(std::uint32_t, int, std::int64_t, bool);
template std::size_t bridge_sobol_shared_bytes<double>(std::uint32_t, int, std::int64_t, bool);
template void launch_bridge_sobol(const BridgeDeviceStrategy&, const BridgeArgs<float>&, SobolSequence,
                                  std::uint64_t, const DeviceSobolTables&, StreamHandle, BridgeKernelInfo*);
template void launch_bridge_sobol(const BridgeDeviceStrategy&, const BridgeArgs<double>&, SobolSequence,
                                  std::uint64_t, const DeviceSobolTables&, StreamHandle, BridgeKernelInfo*);

}  // namespace cunum::detail
