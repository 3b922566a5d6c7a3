#pragma once
/// @file
/// The Himeno problem across MPI ranks (library target `cunum::himeno_mpi`, built when
/// CMake finds MPI; needs `<mpi.h>`). The grid's interior planes i = 1..nx-2 are cut
/// into contiguous slabs along i, the slowest axis, one per rank in rank order, as in
/// Ogawa and Aoki's z-slab decomposition; each rank holds its slab and S ghost planes
/// on each side that faces another rank, S the sweeps per pass
/// (HimenoOptions::sweeps_per_pass; 0: the fastest measured on one GPU, at most the
/// thinnest slab's planes, and 1 on CPU ranks). A pass of S sweeps also updates the
/// ghost planes that a later sweep of the pass reads (recomputing what the neighbour
/// owns), so that after each pass each rank sends its first and last S updated planes
/// to its neighbours (S planes of ny x nz values each way) once, not once a sweep.
///
/// CPU backend: each rank sweeps its slab with OpenMP and exchanges through MPI.
/// CUDA backend: each rank runs on one GPU, its Placement's: placement.devices' one
/// entry (the slab is then made on that device, and calls must be made with it
/// current), or, when empty, the GPU of its local rank (its rank among the ranks of
/// its node, modulo the devices of the node), which becomes the calling thread's
/// current device. Every rank gives the same backend and either names its device or
/// none (choosing by local rank is collective). Ranks exchange through NCCL
/// point-to-point calls (built when CMake finds NCCL), overlapped with the sweep of the
/// planes inside the slab: the S planes at each edge are swept first on one stream and
/// sent while the interior sweeps on another. Where NCCL cannot serve (ranks sharing a GPU,
/// which NCCL refuses, or a build without NCCL) the planes go through page-locked host
/// memory, from placement.pinned_memory, and MPI instead. The slab's fields come from
/// placement.device_memory, set up on placement.stream (without waiting; the sweeps
/// wait for it on the device) and freed there; the sweeps and exchanges run on two
/// streams of the rank's own. NCCL allocates its communicator's buffers itself.
///
/// The pressure equals the one-box HimenoProblem's bit for bit, for any number of ranks;
/// gosa is each rank's sum, in a fixed order, added by MPI_Allreduce, so it equals the
/// one-box value to the rounding of that sum.
///
/// Example (each rank):
/// @code
/// cunum::HimenoDistributed<float> problem(MPI_COMM_WORLD, cunum::himeno_grid(cunum::HimenoSize::l));
/// double gosa = problem.iterate(100);          // collective
/// std::vector<float> p = problem.gather_pressure(0);  // the whole field on rank 0
/// @endcode

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "cunum/core/placement.hpp"
#include "cunum/himeno.hpp"

namespace cunum {

/// How the distributed sweeps run, beside HimenoOptions.
struct HimenoDistributedOptions {
  /// CUDA backend: sweep the edge planes first and exchange them while the interior
  /// sweeps (true), or sweep everything, then exchange (false). CPU backend: ignored.
  bool overlap_halo = true;
};

/// One rank's part of the problem. Every member of a moved-from object throws Error
/// ErrorCode::invalid_argument naming 'this'.
template <class T>
class HimenoDistributed {
 public:
  /// The benchmark's problem (as HimenoProblem's), cut across the ranks of `comm`.
  /// Collective over `comm`.
  /// @param comm        the ranks, one slab each in rank order
  /// @param grid        the whole grid
  /// @param options     omega and the sweeps per pass (one rank: as HimenoProblem's;
  ///                    several: also the halos' depth)
  /// @param distributed how the exchange runs
  /// @param placement   where this rank runs (see the file comment): the backend, its
  ///                    GPU (at most one entry; empty: by local rank), the setup
  ///                    stream, and the device and page-locked memory resources
  /// @throws Error ErrorCode::invalid_argument naming 'grid...' or 'options...' as
  ///         HimenoProblem, 'comm' when it has more ranks than the grid has interior
  ///         planes (nx - 2), 'options.sweeps_per_pass' when it is more than the
  ///         thinnest slab's planes ((nx - 2) / ranks: its neighbours' halos would reach
  ///         past it), on every rank alike, 'placement.backend' (not a listed Backend) or
  ///         'placement.devices' (given with the CPU backend, more than one entry, or an
  ///         ordinal that is not a device here); ErrorCode::no_device for CUDA on a rank
  ///         without a device; ErrorCode::out_of_memory "needs N bytes", on every rank
  ///         alike and before anything is allocated or communicated, when the largest
  ///         slab's 14 arrays (ghost planes included) exceed a rank's memory (the
  ///         machine's physical memory, or its device's total memory)
  HimenoDistributed(MPI_Comm comm, const HimenoGrid& grid, const HimenoOptions& options = {},
                    const HimenoDistributedOptions& distributed = {}, const Placement& placement = {});

  /// The caller's fields: on every rank, each pointer addresses the whole grid's values
  /// (host memory); each rank copies its slab.
  /// @throws Error as above, and naming the field as HimenoProblem does
  HimenoDistributed(MPI_Comm comm, const HimenoGrid& grid, const HimenoFields<T>& fields,
                    const HimenoOptions& options = {}, const HimenoDistributedOptions& distributed = {},
                    const Placement& placement = {});

  ~HimenoDistributed();
  HimenoDistributed(HimenoDistributed&&) noexcept;
  HimenoDistributed& operator=(HimenoDistributed&&) noexcept;
  HimenoDistributed(const HimenoDistributed&) = delete;
  HimenoDistributed& operator=(const HimenoDistributed&) = delete;

  /// Runs `sweeps` sweeps. Collective; returns when they are done on every rank.
  /// @return gosa of the last sweep over the whole grid (the same on every rank)
  /// @throws Error ErrorCode::invalid_argument naming 'sweeps' (< 1) or 'this' (CUDA:
  ///         another device current than the rank's)
  double iterate(std::int64_t sweeps);

  /// The whole grid's pressure on `root`, empty elsewhere. Collective.
  /// @throws Error ErrorCode::invalid_argument naming 'this' (as iterate)
  std::vector<T> gather_pressure(int root = 0) const;

  /// @return the global i of this rank's first updated plane
  std::int64_t first_plane() const;
  /// @return the number of planes this rank updates
  std::int64_t planes() const;
  const HimenoGrid& grid() const;
  /// @return the backend it runs on (never automatic)
  Backend backend() const;
  /// @return the resolved placement: backend cpu or cuda; for CUDA the rank's device
  ///         and both resources filled in
  const Placement& placement() const;

 private:
  HimenoDistributed(MPI_Comm comm, const HimenoGrid& grid, const HimenoFields<T>* fields,
                    const HimenoOptions& options, const HimenoDistributedOptions& distributed,
                    const Placement& placement);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cunum
