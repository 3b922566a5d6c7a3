#pragma once
// Internal: the Himeno sweep kernel, a template on its tuning policy.
//
// A block owns a tile of TileJ x TileK points of a (j, k) plane and a chunk of i-planes,
// and marches along i (the slowest axis) keeping the pressure planes it needs in
// shared memory: for `Sweeps` sweeps per pass, a ring of 2 + Lag planes per sweep
// level. At step f it loads plane f + 1 of the current pressure (level 0), then
// computes level t (the pressure after t sweeps) at plane f + 1 - Lag t from level
// t - 1's planes around it: with Lag 1 the plane above was written earlier in the same
// step (a barrier after each level), with Lag 2 in the step before (one barrier a
// step). Level t covers the tile widened by Sweeps - t points on each side of j
// and k (what the levels above it read), and its planes reach Sweeps - t past the chunk
// on each side, so neighbouring blocks recompute those overlaps instead of exchanging
// them. The last level is written to the next pressure and its ss^2 summed into gosa.
// So one pass reads the twelve coefficient arrays and the pressure once from memory
// and does `Sweeps` sweeps; every point still gets the same 34-flop update in the same
// order (himeno_stencil.hpp), so the pressure is bit-identical for every Sweeps.

#include <cstdint>
#include <type_traits>

#include "kernels/common/grid_sum.cuh"
#include "kernels/himeno/himeno_launch.hpp"
#include "src/himeno/himeno_policy.hpp"
#include "src/himeno/himeno_stencil.hpp"

namespace cunum::detail {

// Level t - 1's three planes around plane x, read at a point of the shared region.
template <class T, int RegionK>
struct SharedNeighbourhood {
  const T* below;
  const T* centre;
  const T* above;
  int offset;  // jj * RegionK + kk
  __device__ __forceinline__ T operator()(int di, int dj, int dk) const {
    const T* plane = di < 0 ? below : (di > 0 ? above : centre);
    return plane[offset + dj * RegionK + dk];
  }
};

// The twelve coefficients of point x: one 16-byte load a group (the grouped layout of
// kernels/himeno/himeno_launch.hpp), coalesced across a warp's consecutive points.
template <class T>
__device__ __forceinline__ HimenoCoefficients<T> load_coefficients(const HimenoSweepArgs<T>& args,
                                                                   std::int64_t x) {
  using Group = std::conditional_t<std::is_same_v<T, float>, float4, double2>;
  static_assert(sizeof(Group) == kHimenoGroupWidth<T> * sizeof(T), "a group is one 16-byte vector");
  const Group* groups = reinterpret_cast<const Group*>(args.coefficients) + x;
  T q[kHimenoCoefficientArrays];
#pragma unroll
  for (int g = 0; g < kHimenoCoefficientGroups<T>; ++g) {
    const Group group = __ldg(groups + g * args.stride);
    const T* lanes = reinterpret_cast<const T*>(&group);
#pragma unroll
    for (int lane = 0; lane < kHimenoGroupWidth<T>; ++lane) q[g * kHimenoGroupWidth<T> + lane] = lanes[lane];
  }
  return {q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8], q[9], q[10], q[11]};
}

template <class Policy, class T>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks)
    himeno_sweep_kernel(const HimenoSweepArgs<T> args) {
  constexpr int S = Policy::sweeps;
  constexpr int RJ = Policy::region_j;
  constexpr int RK = Policy::region_k;
  constexpr int kRing = Policy::ring_planes;
  // The shared-memory budget of a policy: its rings must fit what a block may opt in to
  // on sm_90 (227 KB), or no launch could run it.
  static_assert(Policy::template shared_bytes<T>() <= 227 * 1024, "the policy's rings exceed a block's shared memory");
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* const ring = reinterpret_cast<T*>(shared_bytes);  // [S][kRing][RJ][RK]
  const auto slot = [&](int level, std::int64_t plane) {
    return ring + (level * kRing + static_cast<int>(plane % kRing)) * Policy::region_points;
  };

  const int tile_k = static_cast<int>(blockIdx.x % args.tiles_k);
  const int tile_j = static_cast<int>(blockIdx.x / args.tiles_k % args.tiles_j);
  const std::int64_t chunk = blockIdx.x / (static_cast<unsigned>(args.tiles_k) * args.tiles_j);
  const std::int64_t i0 = args.begin + chunk * args.chunk_planes;
  const std::int64_t i1 = min(args.end, i0 + args.chunk_planes);
  // Within a plane, 32-bit offsets: the front end refuses planes of 2^31 points or more.
  const int ny = static_cast<int>(args.ny);
  const int nz = static_cast<int>(args.nz);
  const int j_origin = 1 + tile_j * Policy::tile_j - S;  // the j of region row 0
  const int k_origin = 1 + tile_k * Policy::tile_k - S;
  const std::int64_t plane_points = args.ny * args.nz;

  constexpr int kLag = Policy::lag;
  double gosa = 0.0;
  for (std::int64_t f = i0 - S - 1; f <= i1 + kLag * S - 2; ++f) {
    // Level 0: plane f + 1 of the current pressure, over the whole region.
    const std::int64_t loaded = f + 1;
    if (loaded >= max(std::int64_t{0}, i0 - S) && loaded < min(args.planes, i1 + S)) {
      T* destination = slot(0, loaded);
      const T* source = args.pressure + loaded * plane_points;
#pragma unroll 4
      for (int e = threadIdx.x; e < Policy::region_points; e += Policy::block_threads) {
        const int j = j_origin + e / RK;
        const int k = k_origin + e % RK;
        if (j >= 0 && j < ny && k >= 0 && k < nz) destination[e] = __ldg(source + j * nz + k);
      }
    }
    if (kLag == 1) __syncthreads();
#pragma unroll
    for (int t = 1; t <= S; ++t) {
      const std::int64_t x = f + 1 - kLag * t;  // the plane level t reaches at this step
      const std::int64_t reach = S - t;  // planes past the chunk this level covers
      if (x >= max(std::int64_t{0}, i0 - reach) && x < min(args.planes, i1 + reach)) {
        const T* below = slot(t - 1, x + kRing - 1);
        const T* centre = slot(t - 1, x);
        const T* above = slot(t - 1, x + 1);
        T* const level = t < S ? slot(t, x) : nullptr;
        const bool interior_plane = x >= 1 && x <= args.planes - 2;
        const std::int64_t plane_offset = x * plane_points;
        const int width = RK - 2 * t;  // level t: the tile widened by S - t, i.e. region shrunk by t
        const int points = (RJ - 2 * t) * width;
        // Points in batches: every coefficient load of a batch is issued before the
        // first update, so that more loads are in flight per thread.
        for (int first = threadIdx.x; first < points; first += Policy::batch * Policy::block_threads) {
          constexpr int kBatch = Policy::batch;
          int offset[kBatch];
          int in_plane[kBatch];
          bool inside[kBatch];
          bool interior[kBatch];
          HimenoCoefficients<T> q[kBatch];
#pragma unroll
          for (int b = 0; b < kBatch; ++b) {
            const int e = first + b * Policy::block_threads;
            const int jj = t + e / width;
            const int kk = t + e % width;
            const int j = j_origin + jj;
            const int k = k_origin + kk;
            offset[b] = jj * RK + kk;
            in_plane[b] = j * nz + k;
            inside[b] = e < points && j >= 0 && j < ny && k >= 0 && k < nz;
            interior[b] = inside[b] && interior_plane && j >= 1 && j <= ny - 2 && k >= 1 && k <= nz - 2;
            q[b] = interior[b] ? load_coefficients(args, plane_offset + in_plane[b]) : HimenoCoefficients<T>{};
          }
#pragma unroll
          for (int b = 0; b < kBatch; ++b) {
            if (!inside[b]) continue;
            T value = centre[offset[b]];  // boundary points keep their pressure
            if (interior[b]) {
              const T ss = himeno_update(q[b], SharedNeighbourhood<T, RK>{below, centre, above, offset[b]});
              value += args.omega * ss;
              if (t == S) {
                gosa += static_cast<double>(ss) * static_cast<double>(ss);
                args.next[plane_offset + in_plane[b]] = value;
              }
            }
            if (t < S) level[offset[b]] = value;
          }
        }
      }
      if (kLag == 1) __syncthreads();
    }
    if (kLag == 2) __syncthreads();
  }
  grid_sum<Policy::block_threads>(gosa, args.partials, args.ticket, args.gosa);
}

}  // namespace cunum::detail
