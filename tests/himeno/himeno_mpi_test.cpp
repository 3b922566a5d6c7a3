// HimenoDistributed on however many ranks mpirun starts, against the one-box
// HimenoProblem on the same backend: the pressure bit for bit, gosa to the rounding of
// its sum, for 1 to 4 sweeps a pass (halos as deep), with and without the halo overlap;
// halos deeper than a slab and too many ranks refused by name.
// Usage: cunum-test-himeno-mpi cpu|cuda. Exit status 0: passed or skipped, 1: failed.
// A cuda run on a machine without a device skips loudly, in GoogleTest's words, so that
// CTest (SKIP_REGULAR_EXPRESSION) and scripts/test count it and its reason.

#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cunum/himeno_mpi.hpp"
#include "himeno_reference.hpp"
#include "mpi_test_support.hpp"

namespace {

using cunum::Backend;
using cunum::HimenoGrid;

int rank = 0;
int ranks = 1;
int failures = 0;

void fail(const std::string& what) {
  std::printf("[himeno-mpi] rank %d of %d FAILED: %s\n", rank, ranks, what.c_str());
  ++failures;
}

// S sweeps a pass across the ranks: halos S planes deep, exchanged once a pass, against
// the one-box problem at one sweep a pass. Sweep counts that leave a shorter last pass
// (1, 2, 5, 7 in all) are included. An S deeper than the thinnest slab is refused by
// name on every rank alike, before anything is communicated.
template <class T>
void compare(const HimenoGrid& grid, const cunum::testing::HimenoArrays<T>* arrays, Backend backend, bool overlap,
             int sweeps_per_pass) {
  const std::string name = std::string(sizeof(T) == 4 ? "float " : "double ") + std::to_string(grid.nx) + "x" +
                           std::to_string(grid.ny) + "x" + std::to_string(grid.nz) +
                           (arrays != nullptr ? " random fields" : " benchmark fields") + ", " +
                           std::to_string(sweeps_per_pass) + " sweeps a pass" +
                           (overlap ? ", overlapped" : ", not overlapped");
  cunum::HimenoDistributedOptions distributed;
  distributed.overlap_halo = overlap;
  cunum::HimenoOptions options;
  options.sweeps_per_pass = sweeps_per_pass;
  cunum::HimenoOptions one_sweep_a_pass;
  one_sweep_a_pass.sweeps_per_pass = 1;
  auto fields = arrays != nullptr ? arrays->fields() : cunum::HimenoFields<T>{};
  const auto make = [&] {
    return arrays != nullptr ? cunum::HimenoDistributed<T>(MPI_COMM_WORLD, grid, fields, options, distributed, backend)
                             : cunum::HimenoDistributed<T>(MPI_COMM_WORLD, grid, options, distributed, backend);
  };
  const std::int64_t thinnest = (grid.nx - 2) / ranks;
  if (ranks > 1 && sweeps_per_pass > thinnest) {
    try {
      make();
      fail(name + ": was accepted with slabs of " + std::to_string(thinnest) + " planes");
    } catch (const cunum::Error& error) {
      const std::string expected = "cunum::HimenoDistributed: argument 'options.sweeps_per_pass' asks " +
                                   std::to_string(sweeps_per_pass) + " sweeps a pass, which need halos as deep, " +
                                   "but the thinnest of the " + std::to_string(ranks) + " slabs has " +
                                   std::to_string(thinnest);
      if (error.code() != cunum::ErrorCode::invalid_argument ||
          std::string(error.what()).find(expected) == std::string::npos) {
        fail(name + ": refused with " + error.what());
      }
    }
    if (rank == 0) std::printf("[himeno-mpi] %s on %d ranks: refused by name\n", name.c_str(), ranks);
    return;
  }
  cunum::HimenoDistributed<T> problem = make();
  auto one_box = arrays != nullptr ? cunum::HimenoProblem<T>(grid, fields, one_sweep_a_pass, backend)
                                   : cunum::HimenoProblem<T>(grid, one_sweep_a_pass, backend);
  for (const int sweeps : {1, 2, 5, 7}) {
    const double gosa = problem.iterate(sweeps);
    const double expected = one_box.iterate(sweeps);
    if (std::fabs(gosa - expected) > 1e-12 * std::fabs(expected)) {
      fail(name + ": gosa " + std::to_string(gosa) + ", one box " + std::to_string(expected));
    }
    const std::vector<T> p = problem.gather_pressure(0);
    if (rank == 0 && p != one_box.pressure()) fail(name + ": the pressure differs from the one box's");
  }
  if (rank == 0) std::printf("[himeno-mpi] %s on %d ranks: compared\n", name.c_str(), ranks);
}

// A moved-from object has no state: every member refuses it by name (before any MPI
// call, so no rank waits on another).
void moved_from_is_refused(Backend backend) {
  cunum::HimenoDistributed<float> problem(MPI_COMM_WORLD, cunum::himeno_grid(cunum::HimenoSize::xs), {}, {}, backend);
  const cunum::HimenoDistributed<float> moved(std::move(problem));
  if (moved.grid().nx != 32) fail("the moved-to object lost its grid");
  const auto expect_refused = [&](const char* member, const auto& call) {
    try {
      call();
      fail(std::string(member) + " of a moved-from HimenoDistributed did not throw");
    } catch (const cunum::Error& error) {
      if (error.code() != cunum::ErrorCode::invalid_argument ||
          std::string(error.what()).find("'this' is a moved-from HimenoDistributed") == std::string::npos) {
        fail(std::string(member) + " of a moved-from object: " + error.what());
      }
    }
  };
  expect_refused("iterate", [&] { problem.iterate(1); });
  expect_refused("gather_pressure", [&] { problem.gather_pressure(0); });
  expect_refused("first_plane", [&] { problem.first_plane(); });
  expect_refused("planes", [&] { problem.planes(); });
  expect_refused("grid", [&] { problem.grid(); });
  expect_refused("backend", [&] { problem.backend(); });
  expect_refused("placement", [&] { problem.placement(); });
}

// The placement. CPU ranks resolve to the host and refuse devices by name. CUDA ranks
// that all name device 0 share it, so that with several ranks the planes go through
// page-locked memory: every device allocation comes from placement.device_memory and
// every page-locked one from placement.pinned_memory, all returned once the problem is
// gone; the result is still the one box's.
void placement_is_followed(Backend backend) {
  const HimenoGrid grid{13, 9, 17};
  if (backend == Backend::cpu) {
    const cunum::HimenoDistributed<float> problem(MPI_COMM_WORLD, grid, {}, {}, backend);
    const cunum::Placement& resolved = problem.placement();
    if (resolved.backend != Backend::cpu || !resolved.devices.empty() || resolved.stream != nullptr ||
        resolved.device_memory != nullptr || resolved.pinned_memory != nullptr) {
      fail("a CPU rank's placement is not the host");
    }
    cunum::Placement on_a_device(Backend::cpu);
    on_a_device.devices = {0};
    try {
      cunum::HimenoDistributed<float> refused(MPI_COMM_WORLD, grid, {}, {}, on_a_device);
      fail("devices were accepted with the CPU backend");
    } catch (const cunum::Error& error) {
      if (std::string(error.what()).find("'placement.devices'") == std::string::npos) {
        fail(std::string("devices with the CPU backend: ") + error.what());
      }
    }
    return;
  }
  // A plan named on device 0 is called with device 0 current, on every rank (a rank
  // that threw on the wrong device would leave the other waiting in the exchange).
  int rank_device = 0;
  cudaGetDevice(&rank_device);
  cudaSetDevice(0);
  cunum::testing::CountingResource device_memory;
  cunum::testing::CountingPinnedResource pinned_memory;
  cunum::Placement placement(Backend::cuda);
  placement.devices = {0};
  placement.device_memory = &device_memory;
  placement.pinned_memory = &pinned_memory;
  {
    cunum::HimenoOptions options;
    options.sweeps_per_pass = 1;
    cunum::HimenoDistributed<float> problem(MPI_COMM_WORLD, grid, options, {}, placement);
    const cunum::Placement& resolved = problem.placement();
    if (resolved.devices != std::vector<int>{0} || resolved.device_memory != &device_memory ||
        resolved.pinned_memory != &pinned_memory) {
      fail("the CUDA placement was not kept as given");
    }
    const double gosa = problem.iterate(3);
    const std::vector<float> p = problem.gather_pressure(0);
    cunum::HimenoProblem<float> one_box(grid, options, Backend::cuda);
    const double expected = one_box.iterate(3);
    if (std::fabs(gosa - expected) > 1e-12 * std::fabs(expected)) fail("gosa on ranks sharing device 0");
    if (rank == 0 && p != one_box.pressure()) fail("the pressure on ranks sharing device 0");
    if (device_memory.allocations.load() == 0) fail("nothing was allocated from placement.device_memory");
    if (ranks > 1 && pinned_memory.allocations.load() == 0) {
      fail("ranks sharing a GPU staged their planes outside placement.pinned_memory");
    }
  }
  cudaDeviceSynchronize();
  if (device_memory.deallocations.load() != device_memory.allocations.load() ||
      pinned_memory.deallocations.load() != pinned_memory.allocations.load()) {
    fail("memory from the placement's resources was not all returned");
  }
  cudaSetDevice(rank_device);
  if (rank == 0) std::printf("[himeno-mpi] placement on %d ranks: checked\n", ranks);
}

// A grid whose slabs no rank can hold is refused on every rank alike, with
// out_of_memory and the bytes, before anything is allocated or any rank communicates
// (std::bad_alloc escaped on CPU ranks before).
void grid_past_memory_is_refused(Backend backend) {
  try {
    cunum::HimenoDistributed<float> huge(MPI_COMM_WORLD, HimenoGrid{std::int64_t{1} << 40, 4, 4}, {}, {}, backend);
    fail("a 2^40 x 4 x 4 grid was accepted");
  } catch (const cunum::Error& error) {
    if (error.code() != cunum::ErrorCode::out_of_memory ||
        std::string(error.what()).find("cunum::HimenoDistributed: needs ") == std::string::npos) {
      fail(std::string("a grid past memory: ") + error.what());
    }
  }
}

// CUDA asked for on ranks without a device: no_device naming the constructor on every
// rank alike, before any rank communicates. Reachable only on a machine without a
// device: the CPU runs there hold it, and say so elsewhere.
void cuda_without_a_device_is_refused() {
  if (cunum::device_count() > 0) {
    if (rank == 0) std::printf("[himeno-mpi] a CUDA device is present: CUDA on a rank without one is checked by CI\n");
    return;
  }
  try {
    cunum::HimenoDistributed<float> on_no_device(MPI_COMM_WORLD, HimenoGrid{9, 9, 9}, {}, {}, Backend::cuda);
    fail("Backend::cuda was accepted without a device");
  } catch (const cunum::Error& error) {
    if (error.code() != cunum::ErrorCode::no_device ||
        std::string(error.what()).find("cunum::HimenoDistributed: backend 'cuda' was requested but there is no "
                                       "CUDA device") == std::string::npos) {
      fail(std::string("CUDA without a device: ") + error.what());
    }
  }
}

template <class T>
void run_all(Backend backend) {
  // 11 interior planes: uneven slabs on 2, 3 and 4 ranks (6 5, 4 4 3, 3 3 3 2), some
  // thinner than the deepest halos.
  const HimenoGrid grid{13, 9, 17};
  const auto arrays = cunum::testing::himeno_random_arrays<T>(grid, 5);
  for (int sweeps_per_pass = 1; sweeps_per_pass <= 4; ++sweeps_per_pass) {
    compare<T>(cunum::himeno_grid(cunum::HimenoSize::xs), nullptr, backend, true, sweeps_per_pass);
    compare<T>(grid, &arrays, backend, true, sweeps_per_pass);
    if (backend == Backend::cuda) compare<T>(grid, &arrays, backend, false, sweeps_per_pass);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const bool cuda = argc > 1 && std::strcmp(argv[1], "cuda") == 0;
  if (cunum::testing::skip_without_device(cuda, rank, "cunum-test-himeno-mpi")) {
    MPI_Finalize();
    return 0;
  }
  const Backend backend = cuda ? Backend::cuda : Backend::cpu;
  // Every rank draws the same random fields: rank 0's seed (printed by it) for all.
  unsigned long long seed = rank == 0 ? cunum::testing::fresh_seed() : 0;
  MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank != 0) setenv("CUNUM_TEST_SEED", std::to_string(seed).c_str(), 1);
  if (rank != 0 && cunum::testing::fresh_seed() != seed) fail("the broadcast seed was not taken");
  try {
    run_all<float>(backend);
    run_all<double>(backend);
    moved_from_is_refused(backend);
    grid_past_memory_is_refused(backend);
    placement_is_followed(backend);
    if (backend == Backend::cpu) cuda_without_a_device_is_refused();
    if (ranks > 1) {
      try {
        cunum::HimenoDistributed<float> too_thin(MPI_COMM_WORLD, HimenoGrid{3, 8, 8}, {}, {}, backend);
        fail("a grid with 1 interior plane was accepted on several ranks");
      } catch (const cunum::Error& error) {
        if (std::string(error.what()).find("comm") == std::string::npos) fail(std::string("message: ") + error.what());
      }
    }
  } catch (const std::exception& error) {
    cunum::testing::abort_all_ranks(rank, error);
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("[himeno-mpi] %s on %d ranks: %s\n", cuda ? "cuda" : "cpu", ranks, total ? "FAILED" : "passed");
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
