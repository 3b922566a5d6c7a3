#pragma once
// Internal: what each Himeno backend (CPU, CUDA) provides, declared once for both.
//
// A backend holds the fields of a box: `planes` i-planes of ny x nz points whose first
// and last plane are never updated. For a whole grid they are its boundary planes; for
// a slab (an MPI rank's, or a device's) its box holds the neighbours' planes next to
// it (ghosts, as many as a pass has sweeps), refreshed by the halo exchange after each
// pass. Two pressure arrays alternate: a sweep reads the current
// one and writes the next, then swap() exchanges them.

#include <cstdint>
#include <memory>

#include "cunum/core/memory_resource.hpp"
#include "cunum/core/placement.hpp"
#include "cunum/core/stream.hpp"
#include "cunum/himeno.hpp"
#include "src/himeno/himeno_stencil.hpp"

namespace cunum::detail {

struct HimenoBox {
  std::int64_t planes = 0;       // local planes, the two never updated included
  std::int64_t ny = 0;
  std::int64_t nz = 0;
  std::int64_t first_plane = 0;  // the global i of local plane 0
  std::int64_t global_nx = 0;    // the benchmark's initial pressure divides by (nx - 1)^2

  CUNUM_HOST_DEVICE std::int64_t plane_points() const noexcept { return ny * nz; }
  CUNUM_HOST_DEVICE std::int64_t points() const noexcept { return planes * ny * nz; }
};

// The caller's fields, offset to the box's first point, or the benchmark's.
template <class T>
struct HimenoFieldSource {
  const HimenoFields<T>* fields = nullptr;  // null: the benchmark's fields
  std::int64_t offset = 0;                  // points to skip in each caller array
};

template <class T>
const T* himeno_coefficient_array(const HimenoFields<T>& fields, int index) noexcept {
  if (index < 4) return fields.a[index];
  if (index < 7) return fields.b[index - 4];
  if (index < 10) return fields.c[index - 7];
  return index == 10 ? fields.wrk1 : fields.bnd;
}

inline const char* himeno_coefficient_name(int index) noexcept {
  static constexpr const char* names[kHimenoCoefficientArrays] = {
      "fields.a[0]", "fields.a[1]", "fields.a[2]", "fields.a[3]", "fields.b[0]", "fields.b[1]",
      "fields.b[2]", "fields.c[0]", "fields.c[1]", "fields.c[2]", "fields.wrk1", "fields.bnd"};
  return names[index];
}

// gosa slots: one per launch of a sweep (the distributed sweep's two edge planes and
// its interior), added in slot order.
constexpr int kHimenoGosaSlots = 3;

template <class T>
class HimenoBackend {
 public:
  virtual ~HimenoBackend() = default;
  // One pass of `sweeps` sweeps that updates the local planes [begin, end),
  // 1 <= begin < end <= planes - 1, from the current pressure into the next one: sweep
  // t (1..sweeps) computes the planes within sweeps - t of [begin, end), the box's
  // first and last plane excluded, from sweep t - 1's, and keeps them to itself; the
  // last sweep's planes [begin, end) are written to the next pressure and its sum of
  // ss^2 over them to gosa slot `slot` (0 <= slot < kHimenoGosaSlots). So the current
  // pressure must be right on the planes within `sweeps` of [begin, end): the slab's
  // own and its ghost planes, `sweeps` deep where the box does not end the grid.
  virtual void sweep(int sweeps, std::int64_t begin, std::int64_t end, int slot, StreamHandle stream) = 0;
  virtual void swap() noexcept = 0;
  // Waits for `stream`, then returns slot 0 + ... + slot (slots - 1), in that order.
  virtual double gosa(int slots, StreamHandle stream) = 0;
  // The whole box's current pressure into host memory; waits for `stream`.
  virtual void copy_pressure(T* host, StreamHandle stream) const = 0;
  // The address of local plane `plane` of the current or of the next pressure, in the
  // backend's memory: what the halo exchange sends and receives.
  virtual T* pressure_plane(bool next, std::int64_t plane) noexcept = 0;
  // Every backend takes 1 to kHimenoMaxSweepsPerPass sweeps a pass; the fastest is
  // himeno_best_sweeps_per_pass (himeno_setup.hpp).
};

template <class T>
std::unique_ptr<HimenoBackend<T>> make_himeno_cpu(const HimenoBox& box, const HimenoFieldSource<T>& source,
                                                  double omega);

// Bound to the current device; its memory comes from `memory`, set up on `stream`
// without waiting, and freed on it.
template <class T>
std::unique_ptr<HimenoBackend<T>> make_himeno_cuda(const HimenoBox& box, const HimenoFieldSource<T>& source,
                                                   double omega, StreamHandle stream, DeviceMemoryResource* memory);

// The whole grid as HimenoProblem drives it.
template <class T>
class HimenoGridBackend {
 public:
  virtual ~HimenoGridBackend() = default;
  // Runs `sweeps` sweeps after the work enqueued on `stream` so far; returns the last
  // sweep's gosa once they are done.
  virtual double iterate(std::int64_t sweeps, StreamHandle stream) = 0;
  // The whole grid's current pressure into host memory, after the work on `stream`.
  virtual void copy_pressure(T* host, StreamHandle stream) = 0;
  virtual int sweeps_per_pass() const noexcept = 0;
};

// Slabs on placement.devices (resolved, CUDA, two entries or more, at most nx - 2),
// one DeviceQueue each, set up after placement.stream. Validated arguments; refuses
// with out_of_memory, before allocating, a device whose slabs' fields exceed its memory.
template <class T>
std::unique_ptr<HimenoGridBackend<T>> make_himeno_multi_device(const HimenoGrid& grid, const HimenoFields<T>* fields,
                                                               const HimenoOptions& options,
                                                               const Placement& placement);

}  // namespace cunum::detail
