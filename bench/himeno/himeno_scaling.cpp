// cunum-bench-himeno-scaling: HimenoDistributed under mpirun, one GPU per rank.
// Strong scaling at M, L and XL and weak scaling with an L slab per rank (254 interior
// planes each), float and double, with and without the halo overlap: milliseconds per
// sweep (the slowest rank's, between barriers) and GFLOPS by the benchmark's count.
// Run it with -np 1 in the same session for the efficiency's one-GPU base. First it
// checks that the distributed pressure equals the one-box problem's bit for bit (M).
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

#include "bench_command_line.hpp"
#include "cunum/himeno.hpp"
#include "cunum/himeno_mpi.hpp"

namespace {

using cunum::Backend;
using cunum::HimenoGrid;

int rank = 0;
int ranks = 1;
std::string json_path;                     // --json FILE; empty: none
cunum::bench::RunProvenance provenance;  // of rank 0's run, in every JSON row

template <class T>
double ms_per_sweep(const HimenoGrid& grid, bool overlap, int sweeps, int repeats) {
  cunum::HimenoDistributedOptions distributed;
  distributed.overlap_halo = overlap;
  cunum::HimenoDistributed<T> problem(MPI_COMM_WORLD, grid, {}, distributed, Backend::cuda);
  problem.iterate(2);  // warm-up
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    problem.iterate(sweeps);
    MPI_Barrier(MPI_COMM_WORLD);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2] / sweeps;
}

template <class T>
void report(const char* kind, const char* name, const HimenoGrid& grid, bool quick) {
  for (const bool overlap : {true, false}) {
    if (ranks == 1 && !overlap) continue;  // nothing to overlap on one rank
    const double ms = ms_per_sweep<T>(grid, overlap, quick ? 10 : 40, quick ? 3 : 5);
    if (rank == 0) {
      std::printf("| %s | %s | %lldx%lldx%lld | %d | %s | %s | %.4f | %.0f |\n", kind, name,
                  static_cast<long long>(grid.nx), static_cast<long long>(grid.ny), static_cast<long long>(grid.nz),
                  ranks, sizeof(T) == 4 ? "float32" : "float64", ranks == 1 ? "-" : (overlap ? "yes" : "no"), ms,
                  cunum::himeno_flops(grid, 1) / (ms * 1e6));
      std::fflush(stdout);
      if (!json_path.empty()) {
        cunum::bench::JsonRow row;
        row.text("module", "himeno")
            .text("scaling", kind)
            .text("size", name)
            .integer("nx", grid.nx)
            .integer("ny", grid.ny)
            .integer("nz", grid.nz)
            .integer("ranks", ranks)
            .text("precision", sizeof(T) == 4 ? "float32" : "float64")
            .text("overlap", ranks == 1 ? "-" : (overlap ? "yes" : "no"))
            .number("ms_per_sweep", ms)
            .number("gflops", cunum::himeno_flops(grid, 1) / (ms * 1e6));
        cunum::bench::append_json_row(json_path, cunum::bench::add_provenance(row, provenance));
      }
    }
  }
}

template <class T>
bool check(const HimenoGrid& grid) {
  cunum::HimenoDistributed<T> problem(MPI_COMM_WORLD, grid, {}, {}, Backend::cuda);
  const double gosa = problem.iterate(10);
  const std::vector<T> p = problem.gather_pressure(0);
  int good = 1;
  if (rank == 0) {
    cunum::HimenoOptions options;
    options.sweeps_per_pass = 1;
    cunum::HimenoProblem<T> box(grid, options, Backend::cuda);
    const double expected = box.iterate(10);
    good = p == box.pressure() && std::fabs(gosa - expected) <= 1e-12 * expected;
    std::printf("check %s: %d ranks, 10 sweeps: pressure %s the one-box problem's; gosa %.12e vs %.12e\n",
                sizeof(T) == 4 ? "float32" : "float64", ranks, p == box.pressure() ? "equals" : "DIFFERS FROM", gosa,
                expected);
  }
  MPI_Bcast(&good, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return good != 0;
}

}  // namespace

int main(int argc, char** argv) {
  cunum::bench::BenchCommandLine command_line(
      "cunum-bench-himeno-scaling",
      "HimenoDistributed under mpirun, one GPU per rank: strong scaling at M, L and XL and weak scaling with an L "
      "slab per rank, float and double, with and without the halo overlap, in milliseconds per sweep and GFLOPS. It "
      "first checks the distributed pressure against the one-box problem's (M). Run it as mpirun -np N "
      "cunum-bench-himeno-scaling, and with -np 1 for the one-GPU base. --quick: strong scaling at M only, with "
      "fewer sweeps and repeats.",
      cunum::bench::BenchOptionSet::scaling);
  const int status_of_options = command_line.parse(argc, argv);
  if (status_of_options >= 0) return status_of_options;
  const bool quick = command_line.options().quick;
  json_path = command_line.options().json_path;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (cunum::device_count() == 0) {
    if (rank == 0) std::printf("cunum-bench-himeno-scaling: no CUDA device; nothing to measure\n");
    MPI_Finalize();
    return 0;
  }
  int status = 0;
  try {
    provenance = cunum::bench::run_provenance(Backend::cuda);
    const HimenoGrid m = cunum::himeno_grid(cunum::HimenoSize::m);
    if (!check<float>(m) || !check<double>(m)) status = 1;
    if (rank == 0) {
      std::printf("| scaling | size | grid | ranks | precision | overlap | ms per sweep | GFLOPS |\n");
      std::printf("|---|---|---|---:|---|---|---:|---:|\n");
    }
    const std::vector<cunum::HimenoSize> sizes =
        quick ? std::vector<cunum::HimenoSize>{cunum::HimenoSize::m}
              : std::vector<cunum::HimenoSize>{cunum::HimenoSize::m, cunum::HimenoSize::l, cunum::HimenoSize::xl};
    for (const cunum::HimenoSize size : sizes) {
      const HimenoGrid grid = cunum::himeno_grid(size);
      report<float>("strong", to_string(size), grid, quick);
      report<double>("strong", to_string(size), grid, quick);
    }
    HimenoGrid weak = cunum::himeno_grid(cunum::HimenoSize::l);
    weak.nx = 254 * ranks + 2;
    report<float>("weak", "L per rank", weak, quick);
    report<double>("weak", "L per rank", weak, quick);
  } catch (const std::exception& error) {
    std::printf("rank %d: FAILED: %s\n", rank, error.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
