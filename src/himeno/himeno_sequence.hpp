#pragma once
// Internal: the one sweep sequence of every Himeno plan, on slabs of i-planes: the
// one-box problem (one slab, the whole grid), HimenoProblem on several devices (slabs
// on devices of this process) and HimenoDistributed (one slab a rank). It is parameterised by how
// the slabs' ghost planes are refreshed, the Halo:
//
//   void enter(std::size_t slab)  before work of slab `slab` is enqueued (makes its
//                                 device current where slabs have several)
//   void swept(std::size_t slab)  after that slab's sweep is enqueued
//   void exchange()               after every slab's pass: refreshes each slab's ghost
//                                 planes of the next pressure (sweeps_per_pass deep)
//                                 from its neighbours' edge planes, and orders the next
//                                 pass after them
//   double total(double gosa)     the whole grid's gosa from the slabs' sum
//
// NoHalo is the one-box problem's; the others live with their plans.
//
// Across slabs a pass of S sweeps is temporal blocking that avoids communication: each
// box holds S ghost planes on a side that faces a neighbour, and sweep t of the pass
// updates the slab's planes and the ghost planes within S - t of them (what sweep t + 1
// reads), so that after S sweeps the slab's own planes are right and one exchange of S
// planes a side refreshes the ghosts. The ghost planes' updates are done twice (here
// and on the neighbour, which owns them); only the slab's own planes are written to
// the next pressure and counted in gosa.

#include <cstddef>
#include <cstdint>

#include "cunum/core/stream.hpp"
#include "src/himeno/himeno_backends.hpp"

namespace cunum::detail {

// One slab's part in the sequence: its backend, its updated planes [begin, end) as
// local planes of its box (below and above them its ghost planes, or the grid's
// boundary plane), and the streams its sweeps are enqueued on.
template <class T>
struct HimenoSlabWork {
  HimenoBackend<T>* backend = nullptr;
  std::int64_t begin = 1;
  std::int64_t end = 1;
  StreamHandle stream = nullptr;           // the slab's sweeps, or its edge planes' when split
  StreamHandle interior_stream = nullptr;  // set: each pass is split (himeno_sweep_slab)
  int gosa_slots = 1;                      // the gosa slots its last pass wrote
};

// Enqueues one pass of `sweeps` sweeps of the slab's updated planes; each sweep but the
// last also updates the ghost planes within the sweeps left of them (the redundant halo
// sweeps), so that the halos, `depth` planes deep, are exchanged once a pass. Whole: on
// `stream`, gosa slot 0. Split (interior_stream set, which only a slab among several
// does, and only when it has planes between its two edges): the `depth` planes at each
// edge, which the neighbours read, first on `stream` (slots 0 and 1), then the planes
// between (slot 2) on the interior stream, so that the exchange sends the edges while
// the interior sweeps.
template <class T>
void himeno_sweep_slab(HimenoSlabWork<T>& slab, int sweeps, int depth) {
  if (slab.interior_stream == nullptr || slab.end - slab.begin <= 2 * std::int64_t{depth}) {
    slab.backend->sweep(sweeps, slab.begin, slab.end, 0, slab.stream);
    slab.gosa_slots = 1;
    return;
  }
  slab.backend->sweep(sweeps, slab.begin, slab.begin + depth, 0, slab.stream);
  slab.backend->sweep(sweeps, slab.end - depth, slab.end, 1, slab.stream);
  // The interior is enqueued before the exchange, which may block the host (staged).
  slab.backend->sweep(sweeps, slab.begin + depth, slab.end - depth, 2, slab.interior_stream);
  slab.gosa_slots = 3;
}

// Runs `sweeps` sweeps of `count` slabs in passes of `sweeps_per_pass` (the last pass
// takes what is left), with halos `sweeps_per_pass` planes deep: each pass sweeps every
// slab, exchanges the halos, and swaps every slab's pressure arrays. Returns, once done,
// halo.total() of the slabs' gosa added in slab order.
template <class T, class Halo>
double himeno_iterate(HimenoSlabWork<T>* slabs, std::size_t count, int sweeps_per_pass, std::int64_t sweeps,
                      Halo& halo) {
  for (std::int64_t done = 0; done < sweeps;) {
    const std::int64_t left = sweeps - done;
    const int pass = static_cast<int>(left < sweeps_per_pass ? left : sweeps_per_pass);
    for (std::size_t s = 0; s < count; ++s) {
      halo.enter(s);
      himeno_sweep_slab(slabs[s], pass, sweeps_per_pass);
      halo.swept(s);
    }
    halo.exchange();
    for (std::size_t s = 0; s < count; ++s) slabs[s].backend->swap();
    done += pass;
  }
  double gosa = 0.0;
  for (std::size_t s = 0; s < count; ++s) {
    halo.enter(s);
    gosa += slabs[s].backend->gosa(slabs[s].gosa_slots, slabs[s].stream);
  }
  return halo.total(gosa);
}

// One slab, the whole grid: its boundary planes never change, nothing to exchange.
struct NoHalo {
  void enter(std::size_t) noexcept {}
  void swept(std::size_t) noexcept {}
  void exchange() noexcept {}
  double total(double gosa) const noexcept { return gosa; }
};

}  // namespace cunum::detail
