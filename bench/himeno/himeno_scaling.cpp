// cunum-bench-himeno-scaling: HimenoDistributed under mpirun, one GPU per rank.
// Strong scaling at M, L and XL and weak scaling with an L slab per rank (254 interior
// planes each), float and double, 1 to 4 sweeps a pass (halos as deep) with the halo
// overlap, and one sweep a pass without: milliseconds per sweep (the slowest rank's, between
// barriers) and GFLOPS by the benchmark's count of useful points (the redundant halo
// sweeps count nothing). Run it with -np 1 in the same session for the efficiency's
// one-GPU base; with -np 1 on a machine of several GPUs it also times HimenoProblem on
// all of them from one process (scaling "devices"), the same sizes and settings (weak:
// an L slab per device). First
// it checks that the distributed pressure equals the one-box problem's bit for bit (M,
// every sweeps a pass).
// Usage: mpirun -np N cunum-bench-himeno-scaling [--quick] [--json FILE] (--help and
// --version say so without MPI). --json writes one row per table line, with the run's
// provenance (bench/common/bench_json.hpp).

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cunum/himeno.hpp"
#include "cunum/himeno_mpi.hpp"
#include "mpi_scaling_bench.hpp"

namespace {

using cunum::Backend;
using cunum::HimenoGrid;

int rank = 0;
int ranks = 1;
std::string json_path;                     // --json FILE; empty: none
cunum::bench::RunProvenance provenance;  // of rank 0's run, in every JSON row

// The median time of `repeats` calls of `sweeps` sweeps (`call` runs them and returns
// when they are done on every rank), per sweep.
template <class Call>
double median_ms_per_sweep(int sweeps, int repeats, const Call& call) {
  call(2);  // warm-up
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    call(sweeps);
    MPI_Barrier(MPI_COMM_WORLD);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2] / sweeps;
}

cunum::HimenoOptions passes_of(int sweeps_per_pass) {
  cunum::HimenoOptions options;
  options.sweeps_per_pass = sweeps_per_pass;
  return options;
}

// Whether slabs of `grid` cut `slabs` ways hold halos `sweeps_per_pass` deep.
bool fits(const HimenoGrid& grid, int slabs, int sweeps_per_pass) {
  return slabs == 1 || sweeps_per_pass <= (grid.nx - 2) / slabs;
}

template <class T>
double ms_per_sweep(const HimenoGrid& grid, bool overlap, int sweeps_per_pass, int sweeps, int repeats) {
  cunum::HimenoDistributedOptions distributed;
  distributed.overlap_halo = overlap;
  cunum::HimenoDistributed<T> problem(MPI_COMM_WORLD, grid, passes_of(sweeps_per_pass), distributed, Backend::cuda);
  return median_ms_per_sweep(sweeps, repeats, [&](int n) { problem.iterate(n); });
}

// HimenoProblem on every device of this process (rank 0 of one).
template <class T>
double devices_ms_per_sweep(const HimenoGrid& grid, int sweeps_per_pass, int sweeps, int repeats) {
  cunum::Placement all_devices(Backend::cuda);
  for (int device = 0; device < cunum::device_count(); ++device) all_devices.devices.push_back(device);
  cunum::HimenoProblem<T> problem(grid, passes_of(sweeps_per_pass), all_devices);
  return median_ms_per_sweep(sweeps, repeats, [&](int n) { problem.iterate(n); });
}

// One table line (rank 0), and its JSON row. GFLOPS by the benchmark's count of useful
// points, himeno_flops: the slabs' redundant halo sweeps count nothing.
template <class T>
void row(const char* kind, const char* name, const HimenoGrid& grid, int gpus, int sweeps_per_pass,
         const char* overlap, double ms) {
  if (rank != 0) return;
  const double gflops = cunum::himeno_flops(grid, 1) / (ms * 1e6);
  std::printf("| %s | %s | %lldx%lldx%lld | %d | %s | %d | %s | %.4f | %.0f |\n", kind, name,
              static_cast<long long>(grid.nx), static_cast<long long>(grid.ny), static_cast<long long>(grid.nz), gpus,
              sizeof(T) == 4 ? "float32" : "float64", sweeps_per_pass, overlap, ms, gflops);
  std::fflush(stdout);
  if (json_path.empty()) return;
  cunum::bench::JsonRow json;
  json.text("module", "himeno")
      .text("scaling", kind)
      .text("size", name)
      .integer("nx", grid.nx)
      .integer("ny", grid.ny)
      .integer("nz", grid.nz)
      .integer("ranks", gpus)
      .text("precision", sizeof(T) == 4 ? "float32" : "float64")
      .integer("sweeps_per_pass", sweeps_per_pass)
      .text("overlap", overlap)
      .number("ms_per_sweep", ms)
      .number("gflops", gflops);
  cunum::bench::append_json_row(json_path, cunum::bench::add_provenance(json, provenance));
}

// The grid that `slabs` GPUs solve: `grid` (strong scaling), or, weak, `grid`'s
// interior planes once a GPU.
HimenoGrid grid_of(const HimenoGrid& grid, bool weak, int slabs) {
  HimenoGrid solved = grid;
  if (weak) solved.nx = (grid.nx - 2) * slabs + 2;
  return solved;
}

template <class T>
void report(const char* kind, const char* name, const HimenoGrid& size, bool weak, bool quick) {
  const HimenoGrid grid = grid_of(size, weak, ranks);
  for (int sweeps_per_pass = 1; sweeps_per_pass <= 4; ++sweeps_per_pass) {
    if (!fits(grid, ranks, sweeps_per_pass)) continue;
    for (const bool overlap : {true, false}) {
      // Nothing to overlap on one rank; without the overlap, one sweep a pass only (the
      // earlier runs' comparison).
      if (!overlap && (ranks == 1 || sweeps_per_pass > 1)) continue;
      const double ms = ms_per_sweep<T>(grid, overlap, sweeps_per_pass, quick ? 12 : 48, quick ? 3 : 5);
      row<T>(kind, name, grid, ranks, sweeps_per_pass, ranks == 1 ? "-" : (overlap ? "yes" : "no"), ms);
    }
  }
  const int devices = cunum::device_count();
  if (ranks != 1 || devices < 2) return;
  const HimenoGrid cut = grid_of(size, weak, devices);
  for (int sweeps_per_pass = 1; sweeps_per_pass <= 4; ++sweeps_per_pass) {
    if (!fits(cut, devices, sweeps_per_pass)) continue;
    const double ms = devices_ms_per_sweep<T>(cut, sweeps_per_pass, quick ? 12 : 48, quick ? 3 : 5);
    row<T>((std::string(kind) + ", devices").c_str(), name, cut, devices, sweeps_per_pass, "yes", ms);
  }
}

template <class T>
bool check(const HimenoGrid& grid, int sweeps_per_pass) {
  cunum::HimenoDistributed<T> problem(MPI_COMM_WORLD, grid, passes_of(sweeps_per_pass), {}, Backend::cuda);
  const double gosa = problem.iterate(10);
  const std::vector<T> p = problem.gather_pressure(0);
  int good = 1;
  if (rank == 0) {
    cunum::HimenoProblem<T> box(grid, passes_of(1), Backend::cuda);
    const double expected = box.iterate(10);
    good = p == box.pressure() && std::fabs(gosa - expected) <= 1e-12 * expected;
    std::printf("check %s: %d ranks, %d sweeps a pass, 10 sweeps: pressure %s the one-box problem's; gosa %.12e vs "
                "%.12e\n",
                sizeof(T) == 4 ? "float32" : "float64", ranks, sweeps_per_pass,
                p == box.pressure() ? "equals" : "DIFFERS FROM", gosa, expected);
  }
  MPI_Bcast(&good, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return good != 0;
}

}  // namespace

int main(int argc, char** argv) {
  cunum::bench::MpiScalingRun run;
  const int early_status = cunum::bench::start_mpi_scaling_bench(
      argc, argv, "cunum-bench-himeno-scaling",
      "HimenoDistributed under mpirun, one GPU per rank: strong scaling at M, L and XL and weak scaling with an L "
      "slab per rank, float and double, 1 to 4 sweeps a pass (halos as deep) with the halo overlap and one without, in "
      "milliseconds per sweep and GFLOPS of useful points. With -np 1 on several GPUs, also HimenoProblem on all of "
      "them from one process. It first checks the distributed pressure against the one-box problem's (M, every "
      "sweeps a pass). Run it as mpirun -np N cunum-bench-himeno-scaling, and with -np 1 for the one-GPU base. "
      "--quick: strong scaling at M only, with fewer sweeps and repeats.",
      run);
  if (early_status >= 0) return early_status;
  rank = run.rank;
  ranks = run.ranks;
  const bool quick = run.options.quick;
  json_path = run.options.json_path;
  int status = 0;
  try {
    provenance = cunum::bench::run_provenance(Backend::cuda);
    const HimenoGrid m = cunum::himeno_grid(cunum::HimenoSize::m);
    for (int sweeps_per_pass = 1; sweeps_per_pass <= 4; ++sweeps_per_pass) {
      if (fits(m, ranks, sweeps_per_pass) && (!check<float>(m, sweeps_per_pass) || !check<double>(m, sweeps_per_pass))) {
        status = 1;
      }
    }
    if (rank == 0) {
      std::printf("| scaling | size | grid | GPUs | precision | sweeps a pass | overlap | ms per sweep | GFLOPS |\n");
      std::printf("|---|---|---|---:|---|---:|---|---:|---:|\n");
    }
    const std::vector<cunum::HimenoSize> sizes =
        quick ? std::vector<cunum::HimenoSize>{cunum::HimenoSize::m}
              : std::vector<cunum::HimenoSize>{cunum::HimenoSize::m, cunum::HimenoSize::l, cunum::HimenoSize::xl};
    for (const cunum::HimenoSize size : sizes) {
      const HimenoGrid grid = cunum::himeno_grid(size);
      report<float>("strong", to_string(size), grid, false, quick);
      report<double>("strong", to_string(size), grid, false, quick);
    }
    const HimenoGrid l_per_gpu = cunum::himeno_grid(cunum::HimenoSize::l);
    report<float>("weak", "L per rank", l_per_gpu, true, quick);
    report<double>("weak", "L per rank", l_per_gpu, true, quick);
  } catch (const std::exception& error) {
    std::printf("rank %d: FAILED: %s\n", rank, error.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
