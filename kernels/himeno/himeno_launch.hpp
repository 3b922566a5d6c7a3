#pragma once
// Internal: the Himeno launchers that the CUDA backend (src/himeno/himeno_cuda.hpp)
// calls, in plain C++. Each picks the policy for the device's architecture from its
// chain (src/himeno/himeno_policy.hpp), derives the grid from it and the box, and
// launches; the backend owns the memory and the sequence. The sweep's launchers are
// templates on the chain: kernels/himeno/himeno.cu instantiates the library's
// (HimenoPolicies<T>), the bench's tuning sweep others (kernels/himeno/himeno_launch.cuh).

#include <cstdint>

#include "cunum/core/stream.hpp"
#include "src/himeno/himeno_backends.hpp"
#include "src/himeno/himeno_stencil.hpp"

namespace cunum::detail {

// The CUDA backend's fields: the twelve coefficient arrays, then the two pressure
// arrays, each `stride` values apart.
constexpr int kHimenoPressureArrays = 2;

template <class T>
struct HimenoSweepArgs {
  const T* coefficients[kHimenoCoefficientArrays];
  const T* pressure;  // current
  T* next;
  T omega;
  std::int64_t planes, ny, nz;  // the box
  std::int64_t begin, end;      // the planes updated, 1 <= begin < end <= planes - 1
  std::int64_t chunk_planes;    // planes per block along i (set by the launcher)
  int tiles_j, tiles_k;         // (set by the launcher)
  double* partials;             // one per block
  unsigned int* ticket;
  double* gosa;                 // the slot written
};

// The benchmark's fields of `box` into `fields` (14 arrays `stride` apart), on the device.
template <class T>
void launch_himeno_fill(int arch, int multiprocessor_count, const HimenoBox& box, std::int64_t stride, T* fields,
                        StreamHandle stream);

// Blocks of the sweep kernel, with the policy of `sweeps` sweeps per pass, resident on
// the device at once (its occupancy times `multiprocessor_count`, at least one a
// multiprocessor). Launches nothing.
template <class Policies, class T>
std::int64_t himeno_sweep_resident_blocks(int arch, int sweeps, int multiprocessor_count);

// One pass of `sweeps` sweeps over args.begin..args.end (args' shape fields are set
// here), `resident` as himeno_sweep_resident_blocks gave for `sweeps`.
template <class Policies, class T>
void launch_himeno_sweep(int arch, int sweeps, HimenoSweepArgs<T> args, std::int64_t resident, StreamHandle stream);

}  // namespace cunum::detail
