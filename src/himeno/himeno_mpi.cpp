// The Himeno problem across MPI ranks: slabs of i-planes, one backend box per rank,
// swept by the one sweep sequence (himeno_sequence.hpp), ghost planes as deep as a
// pass has sweeps, refreshed after every pass (MPI on the CPU backend, NCCL or staged
// MPI on CUDA).

#include "cunum/himeno_mpi.hpp"

#include <cuda_runtime.h>
#if CUNUM_HAVE_NCCL
#include <nccl.h>
#endif

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "cunum/core/device.hpp"
#include "cunum/core/error.hpp"
#include "src/core/check.hpp"
#include "src/core/routine.hpp"
#include "src/core/check_mpi.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/device_queue.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/placement.hpp"
#include "src/core/validate.hpp"
#include "src/himeno/himeno_backends.hpp"
#include "src/himeno/himeno_sequence.hpp"
#include "src/himeno/himeno_setup.hpp"

namespace cunum {
namespace {

constexpr const char* kDistributedRoutine = "cunum::HimenoDistributed";
constexpr const char* kIterateRoutine = "cunum::HimenoDistributed::iterate";
constexpr const char* kClassName = "HimenoDistributed";
using detail::check_mpi;

template <class T>
MPI_Datatype mpi_type() {
  return std::is_same_v<T, float> ? MPI_FLOAT : MPI_DOUBLE;
}

#if CUNUM_HAVE_NCCL
void check_nccl(ncclResult_t status, const char* call) {
  if (status == ncclSuccess) return;
  const char* routine = detail::RoutineScope::current();
  throw Error(ErrorCode::cuda_failure, std::string(routine != nullptr ? routine : "cunum") + ": " + call +
                                           " failed: " + ncclGetErrorString(status));
}

template <class T>
ncclDataType_t nccl_type() {
  return std::is_same_v<T, float> ? ncclFloat32 : ncclFloat64;
}

// The NCCL communicator over `comm`'s ranks, its identity broadcast by rank 0.
class NcclCommunicator {
 public:
  NcclCommunicator(MPI_Comm comm, int rank, int ranks) {
    ncclUniqueId id{};
    if (rank == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    check_mpi(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm), "MPI_Bcast");
    check_nccl(ncclCommInitRank(&communicator_, ranks, id, rank), "ncclCommInitRank");
  }
  ~NcclCommunicator() {
    if (communicator_ != nullptr) ncclCommDestroy(communicator_);
  }
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;
  ncclComm_t get() const noexcept { return communicator_; }

 private:
  ncclComm_t communicator_ = nullptr;
};
#endif

// Page-locked host memory for the staged exchange, from the placement's resource: two
// halos out, two in.
template <class T>
class PinnedPlanes {
 public:
  PinnedPlanes(std::int64_t count, HostMemoryResource* resource)
      : resource_(resource),
        bytes_(static_cast<std::size_t>(count) * sizeof(T)),
        data_(static_cast<T*>(resource->allocate(bytes_))) {}
  ~PinnedPlanes() { resource_->deallocate(data_, bytes_); }
  PinnedPlanes(const PinnedPlanes&) = delete;
  PinnedPlanes& operator=(const PinnedPlanes&) = delete;
  T* data() const noexcept { return data_; }

 private:
  HostMemoryResource* resource_;
  std::size_t bytes_;
  T* data_;
};

// Whether two ranks of `comm` drive the same GPU (same node, same PCI bus id): NCCL
// refuses a communicator with two ranks on one device.
bool ranks_share_a_device(MPI_Comm comm) {
  constexpr int kNameBytes = MPI_MAX_PROCESSOR_NAME + 32;
  char identity[kNameBytes] = {};
  int length = 0;
  check_mpi(MPI_Get_processor_name(identity, &length), "MPI_Get_processor_name");
  int device = 0;
  CUNUM_CHECK(cudaGetDevice(&device));
  identity[length] = '/';
  CUNUM_CHECK(cudaDeviceGetPCIBusId(identity + length + 1, kNameBytes - length - 1, device));
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  std::vector<char> all(static_cast<std::size_t>(ranks) * kNameBytes);
  check_mpi(MPI_Allgather(identity, kNameBytes, MPI_CHAR, all.data(), kNameBytes, MPI_CHAR, comm), "MPI_Allgather");
  std::vector<std::string> names;
  for (int r = 0; r < ranks; ++r) names.emplace_back(all.data() + static_cast<std::size_t>(r) * kNameBytes);
  std::sort(names.begin(), names.end());
  return std::adjacent_find(names.begin(), names.end()) != names.end();
}

// The rank of the calling process among the ranks of its node.
int local_rank(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int rank = 0;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_free(&node);
  return rank;
}

}  // namespace

template <class T>
struct HimenoDistributed<T>::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int ranks = 1;
  HimenoGrid grid;
  HimenoDistributedOptions distributed;
  Placement placement;
  detail::DeviceBinding binding;  // CUDA: the rank's device
  detail::HimenoSlab slab;  // its planes, and its box with the ghost planes
  // CUDA: the edge planes' queue (the whole slab's without overlap) and the interior's,
  // one event each. Declared before the sweeper, so destroyed after it.
  std::unique_ptr<detail::DeviceQueue> edge;
  std::unique_ptr<detail::DeviceQueue> interior;
#if CUNUM_HAVE_NCCL
  std::unique_ptr<NcclCommunicator> nccl;
#endif
  std::unique_ptr<detail::HimenoBackend<T>> sweeper;
  // CUDA ranks without NCCL between them (ranks sharing a GPU, which NCCL refuses, or
  // a build without NCCL): the planes go through page-locked host memory and MPI.
  bool staged = false;
  std::unique_ptr<PinnedPlanes<T>> staging;
  int sweeps_per_pass = 1;  // also the depth of the halos

  bool has_lower() const noexcept { return rank > 0; }
  bool has_upper() const noexcept { return rank < ranks - 1; }
  cudaStream_t edge_stream() const noexcept { return edge ? edge->stream() : nullptr; }
  // The edge planes are swept first and sent while the interior sweeps.
  bool overlap() const noexcept { return cuda() && distributed.overlap_halo && ranks > 1; }
  bool cuda() const noexcept { return placement.backend == Backend::cuda; }

  // The slab as the sweep sequence (himeno_sequence.hpp) sees it: split when overlapped.
  detail::HimenoSlabWork<T> work() {
    return {sweeper.get(), slab.begin(), slab.end(), edge_stream(), overlap() ? interior->stream() : nullptr};
  }

  // Host memory on both sides: the edges, sweeps_per_pass planes each, go to the
  // neighbours, theirs come back into the ghosts; a side without a neighbour (the
  // grid's end) passes null, which MPI_PROC_NULL and a count of 0 leave alone. A plane
  // at a time: MPI counts in int, and a plane is at most 2^31 - 1 values.
  void exchange_on_host(const T* lower_edge, const T* upper_edge, T* lower_ghost, T* upper_ghost) {
    const int lower = has_lower() ? rank - 1 : MPI_PROC_NULL;
    const int upper = has_upper() ? rank + 1 : MPI_PROC_NULL;
    const std::int64_t plane_points = slab.box.plane_points();
    const auto plane_of = [&](auto* halo, std::int64_t plane) { return halo ? halo + plane * plane_points : halo; };
    const auto count_of = [&](const T* halo) { return halo ? static_cast<int>(plane_points) : 0; };
    for (std::int64_t plane = 0; plane < sweeps_per_pass; ++plane) {
      check_mpi(MPI_Sendrecv(plane_of(upper_edge, plane), count_of(upper_edge), mpi_type<T>(), upper, 0,
                             plane_of(lower_ghost, plane), count_of(lower_ghost), mpi_type<T>(), lower, 0, comm,
                             MPI_STATUS_IGNORE),
                "MPI_Sendrecv");
      check_mpi(MPI_Sendrecv(plane_of(lower_edge, plane), count_of(lower_edge), mpi_type<T>(), lower, 1,
                             plane_of(upper_ghost, plane), count_of(upper_ghost), mpi_type<T>(), upper, 1, comm,
                             MPI_STATUS_IGNORE),
                "MPI_Sendrecv");
    }
  }

  // Sends the next pressure's first and last `depth` updated planes to the neighbours
  // and receives theirs into the ghost planes (depth: sweeps_per_pass; a side that
  // ends the grid has no neighbour).
  void exchange_planes(cudaStream_t stream) {
    const std::int64_t depth = sweeps_per_pass;
    const std::int64_t plane_points = slab.box.plane_points();
    const std::int64_t halo_points = depth * plane_points;
    // Null on a side without a neighbour (the grid's end).
    T* lower_edge = has_lower() ? sweeper->pressure_plane(true, slab.begin()) : nullptr;
    T* upper_edge = has_upper() ? sweeper->pressure_plane(true, slab.end() - depth) : nullptr;
    T* lower_ghost = has_lower() ? sweeper->pressure_plane(true, slab.begin() - depth) : nullptr;
    T* upper_ghost = has_upper() ? sweeper->pressure_plane(true, slab.end()) : nullptr;
    if (!cuda()) {
      exchange_on_host(lower_edge, upper_edge, lower_ghost, upper_ghost);
      return;
    }
    if (staged) {
      const std::size_t bytes = static_cast<std::size_t>(halo_points) * sizeof(T);
      // The staging halos: lower edge, upper edge, lower ghost, upper ghost.
      T* host = staging->data();
      T* lower = has_lower() ? host : nullptr;
      T* upper = has_upper() ? host + halo_points : nullptr;
      if (lower) CUNUM_CHECK(cudaMemcpyAsync(lower, lower_edge, bytes, cudaMemcpyDeviceToHost, stream));
      if (upper) CUNUM_CHECK(cudaMemcpyAsync(upper, upper_edge, bytes, cudaMemcpyDeviceToHost, stream));
      CUNUM_CHECK(cudaStreamSynchronize(stream));
      exchange_on_host(lower, upper, lower ? lower + 2 * halo_points : nullptr,
                       upper ? upper + 2 * halo_points : nullptr);
      if (lower) {
        CUNUM_CHECK(cudaMemcpyAsync(lower_ghost, lower + 2 * halo_points, bytes, cudaMemcpyHostToDevice, stream));
      }
      if (upper) {
        CUNUM_CHECK(cudaMemcpyAsync(upper_ghost, upper + 2 * halo_points, bytes, cudaMemcpyHostToDevice, stream));
      }
      return;
    }
#if CUNUM_HAVE_NCCL
    const auto n = static_cast<std::size_t>(halo_points);
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    if (has_lower()) {
      check_nccl(ncclSend(lower_edge, n, nccl_type<T>(), rank - 1, nccl->get(), stream), "ncclSend");
      check_nccl(ncclRecv(lower_ghost, n, nccl_type<T>(), rank - 1, nccl->get(), stream), "ncclRecv");
    }
    if (has_upper()) {
      check_nccl(ncclSend(upper_edge, n, nccl_type<T>(), rank + 1, nccl->get(), stream), "ncclSend");
      check_nccl(ncclRecv(upper_ghost, n, nccl_type<T>(), rank + 1, nccl->get(), stream), "ncclRecv");
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
#else
    (void)stream;
#endif
  }

  // The Halo of the sweep sequence (himeno_sequence.hpp): one slab on this rank, its
  // ghost planes refreshed through MPI (CPU), NCCL or staged MPI (CUDA), sweeps_per_pass
  // deep.
  void enter(std::size_t) noexcept {}
  void swept(std::size_t) noexcept {}
  void exchange() {
    if (ranks > 1) exchange_planes(edge_stream());
    if (overlap()) {
      // Each stream waits for the other's work so far: the next sweep reads what both wrote.
      CUNUM_CHECK(cudaEventRecord(edge->event(0), edge->stream()));
      CUNUM_CHECK(cudaEventRecord(interior->event(0), interior->stream()));
      CUNUM_CHECK(cudaStreamWaitEvent(interior->stream(), edge->event(0), 0));
      CUNUM_CHECK(cudaStreamWaitEvent(edge->stream(), interior->event(0), 0));
    }
  }
  // The ranks' sums added by MPI_Allreduce.
  double total(double local) const {
    double sum = 0.0;
    check_mpi(MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
    return sum;
  }
};

template <class T>
HimenoDistributed<T>::HimenoDistributed(MPI_Comm comm, const HimenoGrid& grid, const HimenoOptions& options,
                                        const HimenoDistributedOptions& distributed, const Placement& placement)
    : HimenoDistributed(comm, grid, nullptr, options, distributed, placement) {}

template <class T>
HimenoDistributed<T>::HimenoDistributed(MPI_Comm comm, const HimenoGrid& grid, const HimenoFields<T>& fields,
                                        const HimenoOptions& options, const HimenoDistributedOptions& distributed,
                                        const Placement& placement)
    : HimenoDistributed(comm, grid, &fields, options, distributed, placement) {}

template <class T>
HimenoDistributed<T>::HimenoDistributed(MPI_Comm comm, const HimenoGrid& grid, const HimenoFields<T>* fields,
                                        const HimenoOptions& options, const HimenoDistributedOptions& distributed,
                                        const Placement& placement) {
  const detail::RoutineScope scope(kDistributedRoutine);
  auto self = std::make_unique<Impl>();
  self->comm = comm;
  check_mpi(MPI_Comm_rank(comm, &self->rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &self->ranks), "MPI_Comm_size");
  detail::validate_himeno_grid(grid, sizeof(T), kDistributedRoutine);
  detail::validate_himeno_options(options, kDistributedRoutine);
  if (fields != nullptr) detail::validate_himeno_fields(*fields, grid.points(), kDistributedRoutine);
  const std::int64_t interior = grid.nx - 2;
  detail::require(self->ranks <= interior, kDistributedRoutine, "comm",
                  [&] { return "has " + std::to_string(self->ranks) + " ranks, more than the grid's " + std::to_string(interior) +
                      " interior planes (nx - 2)"; });
  self->placement = detail::resolve_placement(placement, detail::DeviceCount::one, kDistributedRoutine);
  // One rank: the one-box problem, at its backend's best. Several: halos as deep as a
  // pass has sweeps.
  self->sweeps_per_pass =
      self->ranks == 1
          ? detail::himeno_sweeps_per_pass<T>(options, self->placement.backend)
          : detail::himeno_slab_sweeps_per_pass<T>(options, grid, self->ranks, self->placement.backend,
                                                   kDistributedRoutine);
  if (self->cuda() && placement.devices.empty()) {
    // No device named: the GPU of the node-local rank, left current for the calls.
    self->placement.devices = {local_rank(comm) % device_count()};
    CUNUM_CHECK(cudaSetDevice(self->placement.devices.front()));
  }
  const detail::PlacementDeviceScope on_device(self->placement);
  self->grid = grid;
  self->distributed = distributed;
  self->slab = detail::himeno_slab(grid, self->rank, self->ranks, self->sweeps_per_pass);
  // Every rank weighs the largest box, so that all throw alike, before any
  // communication.
  detail::HimenoBox largest = self->slab.box;
  for (int r = 0; r < self->ranks; ++r) {
    const detail::HimenoBox box = detail::himeno_slab(grid, r, self->ranks, self->sweeps_per_pass).box;
    if (box.planes > largest.planes) largest = box;
  }
  detail::require_himeno_field_memory(&largest, 1, sizeof(T), self->placement.backend, kDistributedRoutine);
  if (self->cuda()) {
    self->binding = detail::DeviceBinding::current();
    self->edge = std::make_unique<detail::DeviceQueue>(self->binding.device, 1);
    self->interior = std::make_unique<detail::DeviceQueue>(self->binding.device, 1);
    self->staged = !CUNUM_HAVE_NCCL || ranks_share_a_device(comm);
#if CUNUM_HAVE_NCCL
    if (!self->staged && self->ranks > 1) self->nccl = std::make_unique<NcclCommunicator>(comm, self->rank, self->ranks);
#endif
    if (self->staged) {
      self->staging = std::make_unique<PinnedPlanes<T>>(4 * self->sweeps_per_pass * grid.ny * grid.nz,
                                                         self->placement.pinned_memory);
    }
  }
  self->sweeper = detail::make_himeno_backend<T>(self->placement, self->slab.box,
                                                 {fields, self->slab.box.first_plane * grid.ny * grid.nz},
                                                 options.omega, self->placement.stream);
  impl_ = std::move(self);
}

template <class T>
HimenoDistributed<T>::~HimenoDistributed() = default;
template <class T>
HimenoDistributed<T>::HimenoDistributed(HimenoDistributed&&) noexcept = default;
template <class T>
HimenoDistributed<T>& HimenoDistributed<T>::operator=(HimenoDistributed&&) noexcept = default;

template <class T>
double HimenoDistributed<T>::iterate(std::int64_t sweeps) {
  const detail::RoutineScope scope(kIterateRoutine);
  Impl& self = detail::require_plan(impl_, kIterateRoutine, kClassName);
  detail::require_at_least(sweeps, 1, kIterateRoutine, "sweeps");
  if (self.cuda()) self.binding.require_current(kIterateRoutine);
  detail::HimenoSlabWork<T> slab = self.work();
  return detail::himeno_iterate(&slab, 1, self.sweeps_per_pass, sweeps, self);
}

template <class T>
std::vector<T> HimenoDistributed<T>::gather_pressure(int root) const {
  constexpr const char* routine = "cunum::HimenoDistributed::gather_pressure";
  const detail::RoutineScope scope(routine);
  const Impl& self = detail::require_plan(impl_, routine, kClassName);
  if (self.cuda()) self.binding.require_current(routine);
  const std::int64_t plane_points = self.grid.ny * self.grid.nz;
  std::vector<T> slab(static_cast<std::size_t>(self.slab.box.points()));
  self.sweeper->copy_pressure(slab.data(), self.edge_stream());
  // Each rank sends its updated planes; the first and the last rank add the grid's
  // boundary plane on their side.
  const std::int64_t from = self.rank == 0 ? 0 : self.slab.begin();
  const std::int64_t to = self.rank == self.ranks - 1 ? self.slab.box.planes : self.slab.end();
  const std::int64_t sent = (to - from) * plane_points;
  detail::require(self.grid.points() <= std::numeric_limits<int>::max(), routine,
                  "grid", "has more than 2^31 - 1 points, which one MPI gather cannot address");
  std::vector<int> counts(static_cast<std::size_t>(self.ranks));
  const int mine = static_cast<int>(sent);
  check_mpi(MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, root, self.comm), "MPI_Gather");
  std::vector<int> offsets(counts.size(), 0);
  for (std::size_t r = 1; r < counts.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<T> whole(self.rank == root ? static_cast<std::size_t>(self.grid.points()) : 0);
  check_mpi(MPI_Gatherv(slab.data() + from * plane_points, mine, mpi_type<T>(), whole.data(), counts.data(),
                        offsets.data(), mpi_type<T>(), root, self.comm),
            "MPI_Gatherv");
  return whole;
}

template <class T>
std::int64_t HimenoDistributed<T>::first_plane() const {
  return detail::require_plan(impl_, "cunum::HimenoDistributed::first_plane", kClassName).slab.first;
}
template <class T>
std::int64_t HimenoDistributed<T>::planes() const {
  return detail::require_plan(impl_, "cunum::HimenoDistributed::planes", kClassName).slab.count;
}
template <class T>
const HimenoGrid& HimenoDistributed<T>::grid() const {
  return detail::require_plan(impl_, "cunum::HimenoDistributed::grid", kClassName).grid;
}
template <class T>
Backend HimenoDistributed<T>::backend() const {
  return detail::require_plan(impl_, "cunum::HimenoDistributed::backend", kClassName).placement.backend;
}
template <class T>
const Placement& HimenoDistributed<T>::placement() const {
  return detail::require_plan(impl_, "cunum::HimenoDistributed::placement", kClassName).placement;
}

#define CUNUM_INSTANTIATE_HIMENO_DISTRIBUTED(T) template class HimenoDistributed<T>;
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_HIMENO_DISTRIBUTED, CUNUM_REAL_TYPES)

}  // namespace cunum
