#pragma once
// Shared by the MPI test programs (run by mpirun, not GoogleTest): a cuda run on a
// machine without a device skips loudly, in GoogleTest's words, so that CTest
// (SKIP_REGULAR_EXPRESSION) and scripts/test count it and its reason.

#include <mpi.h>

#include <cstdio>
#include <exception>

#include "cunum/core/device.hpp"

namespace cunum::testing {

// True when `cuda` is asked for and there is no device: rank 0 has printed the skip,
// and the caller finalises MPI and returns 0.
inline bool skip_without_device(bool cuda, int rank, const char* program) {
  if (!cuda || cunum::device_count() > 0) return false;
  if (rank == 0) {
    std::printf("%s:%d: Skipped\nSKIPPED: no CUDA device on this machine; this GPU test proves nothing here "
                "and must be run on a GPU (scripts/device-check)\n[  SKIPPED ] %s cuda\n",
                __FILE__, __LINE__, program);
  }
  return true;
}

// An exception escaped a test on this rank: the others may be waiting in a collective
// it will never join, so every rank stops now (mpirun exits non-zero at once rather
// than at CTest's timeout), with the reason on stderr.
[[noreturn]] inline void abort_all_ranks(int rank, const std::exception& error) {
  std::fprintf(stderr, "[  FAILED  ] rank %d: exception: %s\n", rank, error.what());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::terminate();  // MPI_Abort does not return
}

}  // namespace cunum::testing
