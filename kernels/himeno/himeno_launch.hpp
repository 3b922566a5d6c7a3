#pragma once
// Internal: the Himeno launchers that the CUDA backend (src/himeno/himeno_cuda.hpp)
// calls, in plain C++. Each picks the policy for the device's architecture from its
// chain (src/himeno/himeno_policy.hpp), derives the grid from it and the box, and
// launches; the backend owns the memory and the sequence. The sweep's launchers are
// templates on the chain: kernels/himeno/himeno.cu instantiates the library's
// (HimenoPolicies<T>), the bench's tuning sweep others (kernels/himeno/himeno_launch.cuh).

#include <cstdint>

#include "cunum/core/stream.hpp"
#include "cunum/device/detail/host_device.hpp"
#include "src/himeno/himeno_backends.hpp"
#include "src/himeno/himeno_stencil.hpp"

namespace cunum::detail {

// The CUDA backend's fields, `stride` points a field: the twelve coefficients of a point
// in groups of 16 bytes (kHimenoGroupWidth<T> consecutive coefficients; group g of
// every point, then group g + 1 of every point), so that a sweep loads a point's
// coefficients in kHimenoCoefficientGroups<T> coalesced 16-byte loads instead of
// twelve; then the two pressure arrays. The coefficients take the room of twelve arrays.
constexpr int kHimenoPressureArrays = 2;
template <class T>
constexpr int kHimenoGroupWidth = static_cast<int>(16 / sizeof(T));
template <class T>
constexpr int kHimenoCoefficientGroups = kHimenoCoefficientArrays / kHimenoGroupWidth<T>;
static_assert(kHimenoCoefficientArrays % kHimenoGroupWidth<double> == 0 &&
                  kHimenoCoefficientArrays % kHimenoGroupWidth<float> == 0,
              "the coefficients fill whole groups");

// Where coefficient `index` of point `x` lies in the grouped fields.
template <class T>
CUNUM_HOST_DEVICE inline std::int64_t himeno_coefficient_slot(int index, std::int64_t x, std::int64_t stride) {
  constexpr int width = kHimenoGroupWidth<T>;
  return (index / width) * stride * width + x * width + index % width;
}

template <class T>
struct HimenoSweepArgs {
  const T* coefficients;  // grouped (above)
  std::int64_t stride;    // points a field
  const T* pressure;      // current
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

// The benchmark's fields of `box` into `fields` (laid out as above), on the device.
template <class T>
void launch_himeno_fill(int arch, int multiprocessor_count, const HimenoBox& box, std::int64_t stride, T* fields,
                        StreamHandle stream);

// Coefficient `index` of `points` points, from the plain array `values` (device memory)
// into its places in the grouped `fields`.
template <class T>
void launch_himeno_group_coefficient(int arch, int multiprocessor_count, std::int64_t points, std::int64_t stride,
                                     int index, const T* values, T* fields, StreamHandle stream);

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
