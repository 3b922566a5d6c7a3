// The start the MPI scaling benches share (cunum-bench-himeno-scaling and
// cunum-bench-monte-carlo-scaling): the command line is read before MPI starts, so
// that --help, --version and a bad option need no launcher, then MPI and this rank's
// place, and the refusal every rank agrees on without talking: no CUDA device.
// Header-only: only the benches that link MPI include it.
#pragma once

#include <mpi.h>

#include <cstdio>

#include "bench_command_line.hpp"
#include "cunum/core.hpp"

namespace cunum::bench {

struct MpiScalingRun {
  BenchOptions options;
  int rank = 0;
  int ranks = 1;
  int devices = 0;
};

// Parses the command line of `name` (the scaling option set) and starts MPI into
// `run`. Returns -1 to go on, or the status main returns at once: that of the command
// line (0 for --help or --version, 2 for a bad option), or 0 where this machine has no
// CUDA device (rank 0 says so; MPI is finalized).
inline int start_mpi_scaling_bench(int& argc, char**& argv, const char* name, const char* description,
                                   MpiScalingRun& run) {
  BenchCommandLine command_line(name, description, BenchOptionSet::scaling);
  const int status_of_options = command_line.parse(argc, argv);
  if (status_of_options >= 0) return status_of_options;
  run.options = command_line.options();
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &run.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &run.ranks);
  run.devices = cunum::device_count();
  if (run.devices == 0) {
    if (run.rank == 0) std::printf("%s: no CUDA device; nothing to measure\n", name);
    MPI_Finalize();
    return 0;
  }
  return -1;
}

}  // namespace cunum::bench
