#pragma once
// The bench's side-by-side designs on the benchmark's fields, our own code: the plain
// two-kernel CUDA port (one thread per point reading every neighbour from global memory,
// gosa by block sums and a double atomic, then a kernel copying wrk2 back to p: 64 B a
// point in float), and Ogawa and Aoki's design (16 x 16 x 8 tiles with the pressure and
// its halo staged in shared memory, one partial gosa per tile), with swapped pressure
// arrays instead of a copy so that only the tiling differs from ours.

#include <cstdint>
#include <memory>
#include <vector>

#include "cunum/core/stream.hpp"
#include "cunum/himeno.hpp"

namespace cunum::bench {

enum class HimenoPeerDesign { two_kernel_port, reference_tiles };

template <class T>
class HimenoPeer {
 public:
  HimenoPeer(HimenoPeerDesign design, const HimenoGrid& grid, StreamHandle stream);
  ~HimenoPeer();
  HimenoPeer(const HimenoPeer&) = delete;
  HimenoPeer& operator=(const HimenoPeer&) = delete;
  // Enqueues `sweeps` sweeps, then waits for gosa; returns it.
  double iterate(int sweeps, StreamHandle stream);
  std::vector<T> pressure(StreamHandle stream) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace cunum::bench
