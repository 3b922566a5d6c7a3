#pragma once
/// @file
/// The Himeno problem across MPI ranks (library target `cunum::himeno_mpi`, built when
/// CMake finds MPI; needs `<mpi.h>`). The grid's interior planes i = 1..nx-2 are cut
/// into contiguous slabs along i, the slowest axis, one per rank in rank order, as in
/// Ogawa and Aoki's z-slab decomposition; each rank holds its slab and one ghost plane
/// on each side. After every sweep each rank sends its first and last updated planes to
/// its neighbours (one plane of ny x nz values each way).
///
/// CPU backend: each rank sweeps its slab with OpenMP and exchanges through MPI.
/// CUDA backend: each rank takes the GPU of its local rank (modulo the devices of the
/// node; it becomes the calling thread's current device), and exchanges through NCCL
/// point-to-point calls (built when CMake finds NCCL), overlapped with the sweep of the
/// planes inside the slab: the two edge planes are swept first on one stream and sent
/// while the interior sweeps on another. Where NCCL cannot serve (ranks sharing a GPU,
/// which NCCL refuses, or a build without NCCL) the planes go through page-locked host
/// memory and MPI instead.
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
  /// @throws Error ErrorCode::invalid_argument naming 'grid...' or 'options...' as
  ///         HimenoProblem, or 'comm' when it has more ranks than the grid has interior
  ///         planes (nx - 2); ErrorCode::no_device for Backend::cuda on a rank without a
  ///         device
  HimenoDistributed(MPI_Comm comm, const HimenoGrid& grid, const HimenoOptions& options = {},
                    Backend backend = Backend::automatic, const HimenoDistributedOptions& distributed = {});

  /// The caller's fields: on every rank, each pointer addresses the whole grid's values
  /// (host memory); each rank copies its slab.
  /// @throws Error as above, and naming the field as HimenoProblem does
  HimenoDistributed(MPI_Comm comm, const HimenoGrid& grid, const HimenoFields<T>& fields,
                    const HimenoOptions& options = {}, Backend backend = Backend::automatic,
                    const HimenoDistributedOptions& distributed = {});

  ~HimenoDistributed();
  HimenoDistributed(HimenoDistributed&&) noexcept;
  HimenoDistributed& operator=(HimenoDistributed&&) noexcept;
  HimenoDistributed(const HimenoDistributed&) = delete;
  HimenoDistributed& operator=(const HimenoDistributed&) = delete;

  /// Runs `sweeps` sweeps. Collective; returns when they are done on every rank.
  /// @return gosa of the last sweep over the whole grid (the same on every rank)
  /// @throws Error ErrorCode::invalid_argument naming 'sweeps' (< 1)
  double iterate(std::int64_t sweeps);

  /// The whole grid's pressure on `root`, empty elsewhere. Collective.
  std::vector<T> gather_pressure(int root = 0) const;

  /// @return the global i of this rank's first updated plane
  std::int64_t first_plane() const;
  /// @return the number of planes this rank updates
  std::int64_t planes() const;
  const HimenoGrid& grid() const;
  /// @return the backend it runs on (never automatic)
  Backend backend() const;

 private:
  HimenoDistributed(MPI_Comm comm, const HimenoGrid& grid, const HimenoFields<T>* fields,
                    const HimenoOptions& options, Backend backend, const HimenoDistributedOptions& distributed);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cunum
