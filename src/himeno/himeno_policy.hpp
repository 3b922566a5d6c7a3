#pragma once
// Internal: the Himeno sweep kernel's tuning, as types (one policy per number of sweeps
// per pass), and the launch shape the backend derives from a policy and a box.

#include <cstddef>
#include <cstdint>
#include <tuple>
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

constexpr int kHimenoMaxSweepsPerPass = 4;

// A policy set: one policy per number of sweeps per pass, and `with(sweeps, f)`, which
// calls f(Policy{}) with the policy of `sweeps` (1..kHimenoMaxSweepsPerPass), so that
// the bench's tuning sweep can run the backend with other sets.
template <class One, class Two, class Three, class Four>
struct HimenoPolicySet {
  template <int Sweeps>
  using policy = std::tuple_element_t<Sweeps - 1, std::tuple<One, Two, Three, Four>>;

  template <class F>
  static decltype(auto) with(int sweeps, F&& f) {
    switch (sweeps) {
      case 1: return f(One{});
      case 2: return f(Two{});
      case 3: return f(Three{});
      default: return f(Four{});
    }
  }
};

// The library's policies, the fastest of the bench's tuning sweep on the H100 at L
// (docs/himeno.md): in float, narrow tiles with three resident blocks and three points
// in flight a thread beat wide tiles, whose recomputed borders are cheaper but whose
// registers allow fewer blocks; in double, whose registers are twice as many, wide
// tiles with three points in flight.
template <class T>
struct HimenoPolicies;

template <>
struct HimenoPolicies<float>
    : HimenoPolicySet<HimenoSweepPolicy<1, 16, 64, 256, 3, 2>, HimenoSweepPolicy<2, 8, 64, 256, 3, 3>,
                      HimenoSweepPolicy<3, 8, 64, 256, 3, 2>, HimenoSweepPolicy<4, 16, 64, 256, 2, 2>> {};

template <>
struct HimenoPolicies<double>
    : HimenoPolicySet<HimenoSweepPolicy<1, 8, 64, 256, 4, 1>, HimenoSweepPolicy<2, 16, 64, 256, 2, 3>,
                      HimenoSweepPolicy<3, 16, 64, 256, 2, 2>, HimenoSweepPolicy<4, 16, 64, 256, 2, 2>> {};

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
