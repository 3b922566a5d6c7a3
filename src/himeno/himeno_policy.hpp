#pragma once
// Internal: the Himeno sweep kernel's tuning, as types (one policy per number of sweeps
// per pass), and the launch shape the backend derives from a policy and a box.

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cunum::detail {

template <int SweepsPerPass, int TileJ, int TileK, int BlockThreads, int MinBlocksPerMultiprocessor, int Batch = 2>
struct HimenoSweepPolicy {
  static constexpr int sweeps = SweepsPerPass;
  // Points a thread takes at once in a level: their coefficient loads are all issued
  // before the first update, so that more loads are in flight.
  static constexpr int batch = Batch;
  static constexpr int tile_j = TileJ;
  static constexpr int tile_k = TileK;
  static constexpr int block_threads = BlockThreads;
  static constexpr int min_blocks = MinBlocksPerMultiprocessor;
  // Level 0's footprint: the tile and `sweeps` points on each side.
  static constexpr int region_j = TileJ + 2 * SweepsPerPass;
  static constexpr int region_k = TileK + 2 * SweepsPerPass;
  static constexpr int region_points = region_j * region_k;
  static constexpr int ring_planes = 3;

  template <class T>
  static constexpr std::size_t shared_bytes() {
    return sizeof(T) * std::size_t{SweepsPerPass} * ring_planes * region_points;
  }
};

// One sweep per pass: 8 x 64 tiles (two 128-byte rows of k per warp's loads). More
// sweeps: 16 x 64 tiles, so that the recomputed borders stay a small share.
using HimenoOneSweep = HimenoSweepPolicy<1, 8, 64, 256, 4>;
using HimenoTwoSweeps = HimenoSweepPolicy<2, 16, 64, 256, 3>;
using HimenoThreeSweeps = HimenoSweepPolicy<3, 16, 64, 256, 3>;
using HimenoFourSweeps = HimenoSweepPolicy<4, 16, 64, 256, 2>;
constexpr int kHimenoMaxSweepsPerPass = 4;

// The library's policies, one per number of sweeps per pass. A policy set is a type
// with `with(sweeps, f)`, which calls f(Policy{}) with the policy of `sweeps`
// (1..kHimenoMaxSweepsPerPass), so that the bench can run the backend with others.
struct HimenoPolicies {
  template <class F>
  static decltype(auto) with(int sweeps, F&& f) {
    switch (sweeps) {
      case 1: return f(HimenoOneSweep{});
      case 2: return f(HimenoTwoSweeps{});
      case 3: return f(HimenoThreeSweeps{});
      default: return f(HimenoFourSweeps{});
    }
  }
};

// The sweeps per pass that ran fastest on the H100 at sizes M to XL (docs/himeno.md).
template <class T>
struct HimenoBestSweeps : std::integral_constant<int, 2> {};

struct HimenoLaunchShape {
  int tiles_j = 0;
  int tiles_k = 0;
  std::int64_t chunk_planes = 0;
  std::int64_t blocks = 0;
};

}  // namespace cunum::detail
