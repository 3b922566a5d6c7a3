#pragma once
// Internal: the checks and the backend construction that the one-box problem
// (himeno.cpp) and the MPI slabs (himeno_mpi.cpp) share.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cunum/core/placement.hpp"
#include "cunum/himeno.hpp"
#include "src/himeno/himeno_backends.hpp"

namespace cunum::detail {

// @throws Error(invalid_argument) naming 'grid.nx', 'grid.ny', 'grid.nz' or 'grid'.
void validate_himeno_grid(const HimenoGrid& grid, std::size_t value_bytes, const char* routine);
// @throws Error(invalid_argument) naming 'options.omega' or 'options.sweeps_per_pass'.
void validate_himeno_options(const HimenoOptions& options, const char* routine);
// @throws Error(invalid_argument) naming the field that is null or holds a value that is not finite.
template <class T>
void validate_himeno_fields(const HimenoFields<T>& fields, std::int64_t points, const char* routine);

// The 14 field arrays (the coefficients and two pressures) of `count` boxes, in values
// of `value_bytes`, fit what `backend` (resolved; cuda: the current device) can hold;
// else Error(out_of_memory) "needs N bytes", before anything is allocated.
void require_himeno_field_memory(const HimenoBox* boxes, std::size_t count, std::size_t value_bytes,
                                 Backend backend, const char* routine);

// The backend of `placement` (resolved: cpu or cuda, the device current); CUDA: its
// memory from placement.device_memory, set up on `stream`.
template <class T>
std::unique_ptr<HimenoBackend<T>> make_himeno_backend(const Placement& placement, const HimenoBox& box,
                                                      const HimenoFieldSource<T>& source, double omega,
                                                      StreamHandle stream);

// Slab `index` of `slabs` along i: the grid's interior planes 1..nx-2 cut into
// contiguous runs in index order, the first (interior % slabs) one plane longer. Its
// box adds `halo_depth` ghost planes on each side that faces a neighbour (the planes a
// pass of that many sweeps reads) and the grid's one boundary plane on a side that
// ends the grid. slabs <= nx - 2; halo_depth >= 1 and at most the thinnest slab's
// planes (himeno_slab_sweeps_per_pass), so that a neighbour holds every ghost plane.
struct HimenoSlab {
  std::int64_t first = 1;  // the global i of its first updated plane
  std::int64_t count = 0;  // its updated planes
  std::int64_t lower = 1;  // its box's planes below the first updated one
  HimenoBox box;

  // Its updated planes, [begin(), end()), as local planes of its box.
  std::int64_t begin() const noexcept { return lower; }
  std::int64_t end() const noexcept { return lower + count; }
};
HimenoSlab himeno_slab(const HimenoGrid& grid, int index, int slabs, int halo_depth);

// The sweeps per pass that ran fastest on one box of `backend` (resolved): 1 on the
// CPU, HimenoBestSweeps (src/himeno/himeno_policy.hpp) on CUDA.
template <class T>
int himeno_best_sweeps_per_pass(Backend backend) noexcept;

// The sweeps per pass of the grid cut into `slabs` slabs (two or more) on `backend`,
// which is also their halos' depth: options.sweeps_per_pass, or for 0 the one-box
// best, at most the thinnest slab's planes. Deep halos are exchanged once per pass, and
// each slab recomputes the planes within a pass of its edges.
// @throws Error(invalid_argument) naming 'options.sweeps_per_pass' when it is deeper
//         than the thinnest slab: its neighbours' ghost planes would reach past it.
template <class T>
int himeno_slab_sweeps_per_pass(const HimenoOptions& options, const HimenoGrid& grid, int slabs, Backend backend,
                                const char* routine);

// The sweeps per pass of the whole grid in one box: the option, or the backend's best.
template <class T>
int himeno_sweeps_per_pass(const HimenoOptions& options, Backend backend) noexcept;

}  // namespace cunum::detail
