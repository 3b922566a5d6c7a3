#pragma once
// Internal: the one sweep sequence of every Himeno plan, on slabs of i-planes: the
// one-box problem (one slab, the whole grid), HimenoProblem on several devices (slabs
// on devices of this process) and HimenoDistributed (one slab a rank). It is parameterised by how
// the slabs' ghost planes are refreshed, the Halo:
//
//   void enter(std::size_t slab)  before work of slab `slab` is enqueued (makes its
//                                 device current where slabs have several)
//   void swept(std::size_t slab)  after that slab's sweep is enqueued
//   void exchange()               after every slab's sweep: refreshes each slab's ghost
//                                 planes of the next pressure from its neighbours' edge
//                                 planes, and orders the next pass after them
//   double total(double gosa)     the whole grid's gosa from the slabs' sum
//
// NoHalo is the one-box problem's; the others live with their plans.

#include <cstddef>
#include <cstdint>

#include "cunum/core/stream.hpp"
#include "src/himeno/himeno_backends.hpp"

namespace cunum::detail {

// One slab's part in the sequence: its backend, its box's planes (the two ghost or
// boundary planes included), and the streams its sweeps are enqueued on.
template <class T>
struct HimenoSlabWork {
  HimenoBackend<T>* backend = nullptr;
  std::int64_t planes = 0;
  StreamHandle stream = nullptr;           // the slab's sweeps, or its edge planes' when split
  StreamHandle interior_stream = nullptr;  // set: each sweep is split (himeno_sweep_slab)
  int gosa_slots = 1;                      // the gosa slots its last sweep wrote
};

// Enqueues one pass of `sweeps` sweeps of the slab's updated planes 1..planes-2.
// Whole: on `stream`, gosa slot 0. Split (interior_stream set, which only a slab among
// several does, so one sweep a pass): the first plane (slot 0) and the last (slot 1)
// on `stream`, then the planes between (slot 2) on the interior stream, so that the
// exchange sends the edges while the interior sweeps.
template <class T>
void himeno_sweep_slab(HimenoSlabWork<T>& slab, int sweeps) {
  const std::int64_t last = slab.planes - 2;
  if (slab.interior_stream == nullptr) {
    slab.backend->sweep(sweeps, 1, last + 1, 0, slab.stream);
    slab.gosa_slots = 1;
    return;
  }
  slab.backend->sweep(1, 1, 2, 0, slab.stream);
  slab.gosa_slots = 1;
  if (last > 1) {
    slab.backend->sweep(1, last, last + 1, 1, slab.stream);
    slab.gosa_slots = 2;
  }
  // The interior is enqueued before the exchange, which may block the host (staged).
  if (last > 2) {
    slab.backend->sweep(1, 2, last, 2, slab.interior_stream);
    slab.gosa_slots = 3;
  }
}

// Runs `sweeps` sweeps of `count` slabs in passes of at most `sweeps_per_pass` (above 1
// only where one slab holds the whole grid: a pass keeps its intermediate planes to
// itself): each pass sweeps every slab, exchanges the halos, and swaps every slab's
// pressure arrays. Returns, once done, halo.total() of the slabs' gosa added in slab
// order.
template <class T, class Halo>
double himeno_iterate(HimenoSlabWork<T>* slabs, std::size_t count, int sweeps_per_pass, std::int64_t sweeps,
                      Halo& halo) {
  for (std::int64_t done = 0; done < sweeps;) {
    const std::int64_t left = sweeps - done;
    const int pass = static_cast<int>(left < sweeps_per_pass ? left : sweeps_per_pass);
    for (std::size_t s = 0; s < count; ++s) {
      halo.enter(s);
      himeno_sweep_slab(slabs[s], pass);
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
