#pragma once
// Internal: the Himeno kernels' tuning, as types: the sweep kernel's policy set (one
// policy per number of sweeps per pass) and the fill kernel's policy, each in a
// PolicyChain by architecture (src/core/policy_chain.hpp), and the launch shape the
// launchers derive from a sweep policy and a box. Host-only.

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "src/core/policy_chain.hpp"

namespace cunum::detail {

template <int SweepsPerPass, int TileJ, int TileK, int BlockThreads, int MinBlocksPerMultiprocessor, int Batch = 2,
          int Lag = 1>
struct HimenoSweepPolicy {
  static_assert(Lag == 1 || Lag == 2, "a level lags the one below by one plane or two");
  static constexpr int sweeps = SweepsPerPass;
  // Points a thread takes at once in a level: their coefficient loads are all issued
  // before the first update, so that more loads are in flight.
  static constexpr int batch = Batch;
  // Planes a level lags the level below it along i. 1: level t reads the plane level
  // t - 1 wrote in the same step, so the block synchronises after every level (S + 1
  // barriers a step). 2: every level reads only planes written in earlier steps, so a
  // step has one barrier and its levels' loads overlap, for a fourth plane per ring
  // and S more steps of pipeline a block (the wavefront skewed by two).
  static constexpr int lag = Lag;
  static constexpr int tile_j = TileJ;
  static constexpr int tile_k = TileK;
  static constexpr int block_threads = BlockThreads;
  static constexpr int min_blocks = MinBlocksPerMultiprocessor;
  // Level 0's footprint: the tile and `sweeps` points on each side.
  static constexpr int region_j = TileJ + 2 * SweepsPerPass;
  static constexpr int region_k = TileK + 2 * SweepsPerPass;
  static constexpr int region_points = region_j * region_k;
  static constexpr int ring_planes = 2 + Lag;

  template <class T>
  static constexpr std::size_t shared_bytes() {
    return sizeof(T) * std::size_t{SweepsPerPass} * ring_planes * region_points;
  }
};

constexpr int kHimenoMaxSweepsPerPass = 4;

// A policy set, the entry of a chain: one policy per number of sweeps per pass, and
// `with(sweeps, f)`, which calls f(Policy{}) with the policy of `sweeps`
// (1..kHimenoMaxSweepsPerPass). The CUDA backend is a template on the chain, so that
// the bench's tuning sweep can run it with other sets.
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

// The library's sweep policies by architecture: for sm_90, the fastest of the bench's
// tuning sweep on the H100 at L (docs/himeno.md): in float, narrow tiles with three
// resident blocks and three points in flight a thread beat wide tiles, whose recomputed
// borders are cheaper but whose registers allow fewer blocks; in double, whose
// registers are twice as many, wide tiles with three points in flight.
template <class T>
struct HimenoPolicies;

template <>
struct HimenoPolicies<float>
    : PolicyChain<ArchPolicy<900, HimenoPolicySet<HimenoSweepPolicy<1, 16, 64, 256, 3, 2>,
                                                  HimenoSweepPolicy<2, 8, 64, 256, 3, 3>,
                                                  HimenoSweepPolicy<3, 8, 64, 256, 3, 2>,
                                                  HimenoSweepPolicy<4, 16, 64, 256, 2, 2>>>> {};

template <>
struct HimenoPolicies<double>
    : PolicyChain<ArchPolicy<900, HimenoPolicySet<HimenoSweepPolicy<1, 8, 64, 256, 4, 1>,
                                                  HimenoSweepPolicy<2, 16, 64, 256, 2, 3>,
                                                  HimenoSweepPolicy<3, 16, 64, 256, 2, 2>,
                                                  HimenoSweepPolicy<4, 16, 64, 256, 2, 2>>>> {};

// A chain of one policy, whatever the architecture and the sweeps asked for: the CUDA
// backend as the bench's tuning sweep and the policy tests run it.
template <class Policy>
using HimenoSinglePolicy = PolicyChain<ArchPolicy<0, HimenoPolicySet<Policy, Policy, Policy, Policy>>>;

// The benchmark's fields computed on the device: a grid-stride kernel.
template <int BlockThreads, int BlocksPerMultiprocessor>
struct HimenoFillPolicy {
  static constexpr int block_threads = BlockThreads;
  static constexpr int blocks_per_multiprocessor = BlocksPerMultiprocessor;
};

using HimenoFillPolicies = PolicyChain<ArchPolicy<900, HimenoFillPolicy<256, 16>>>;

// The sweeps per pass that ran fastest on the H100 at sizes M to XL (docs/himeno.md).
template <class T>
struct HimenoBestSweeps : std::integral_constant<int, 2> {};

struct HimenoLaunchShape {
  int tiles_j = 0;
  int tiles_k = 0;
  std::int64_t chunk_planes = 0;
  std::int64_t blocks = 0;
};

// The tiles of a sweep policy over the interior (j, k) of ny x nz planes.
template <class Policy>
std::int64_t himeno_tiles(std::int64_t ny, std::int64_t nz) {
  return ((ny - 2 + Policy::tile_j - 1) / Policy::tile_j) * ((nz - 2 + Policy::tile_k - 1) / Policy::tile_k);
}

// Tiles over the interior (j, k), and the planes [begin, end) cut into chunks of C
// planes, one block per tile and chunk. A block's time grows as C + lag x sweeps (the
// planes it recomputes or loads past its chunk, and its pipeline's depth), and the
// launch takes as many such times as it has waves of `resident` blocks; C is the one
// that minimises the product, so that neither a part-filled last wave nor the
// recomputed borders cost much.
template <class Policy>
HimenoLaunchShape himeno_launch_shape(std::int64_t ny, std::int64_t nz, std::int64_t begin, std::int64_t end,
                                      std::int64_t resident) {
  HimenoLaunchShape shape;
  shape.tiles_j = static_cast<int>((ny - 2 + Policy::tile_j - 1) / Policy::tile_j);
  shape.tiles_k = static_cast<int>((nz - 2 + Policy::tile_k - 1) / Policy::tile_k);
  const std::int64_t tiles = std::int64_t{shape.tiles_j} * shape.tiles_k;
  const std::int64_t planes = end - begin;
  double best_cost = 0.0;
  for (std::int64_t chunk = 1; chunk <= planes; ++chunk) {
    const std::int64_t blocks = tiles * ((planes + chunk - 1) / chunk);
    const std::int64_t waves = (blocks + resident - 1) / resident;
    const double cost = static_cast<double>(waves) * static_cast<double>(chunk + Policy::lag * Policy::sweeps);
    if (shape.blocks == 0 || cost < best_cost) {
      best_cost = cost;
      shape.chunk_planes = chunk;
      shape.blocks = blocks;
    }
  }
  return shape;
}

// The most blocks a sweep of a box of `planes` ny x nz planes launches with any sweeps
// per pass of the chain's set for `arch` (one per tile and plane at most): the partial
// sums a gosa slot needs.
template <class Policies>
std::int64_t himeno_most_blocks(int arch, std::int64_t planes, std::int64_t ny, std::int64_t nz) {
  return Policies::dispatch(arch, [&](auto tag) {
    using Set = typename decltype(tag)::type;
    std::int64_t most = 0;
    for (int sweeps = 1; sweeps <= kHimenoMaxSweepsPerPass; ++sweeps) {
      Set::with(sweeps, [&](auto policy) {
        const std::int64_t blocks = himeno_tiles<decltype(policy)>(ny, nz) * (planes - 2);
        most = most > blocks ? most : blocks;
      });
    }
    return most;
  });
}

}  // namespace cunum::detail
