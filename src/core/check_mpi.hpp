#pragma once
// Internal: the status check of cunum's MPI layers (cunum::himeno_mpi,
// cunum::monte_carlo_mpi). A failed call throws Error naming the public routine in
// progress, the MPI call and MPI's own message.

#include <mpi.h>

#include <string>

#include "cunum/core/error.hpp"
#include "src/core/routine.hpp"

namespace cunum::detail {

inline void check_mpi(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(status, text, &length);
  const char* routine = RoutineScope::current();
  throw Error(ErrorCode::cuda_failure,
              std::string(routine != nullptr ? routine : "cunum") + ": " + call + " failed: " + text);
}

}  // namespace cunum::detail
