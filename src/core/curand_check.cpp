#include "src/core/curand_check.hpp"

#include <string>

#include "cunum/core/error.hpp"

namespace cunum::detail {

void throw_curand_error(curandStatus_t status, const char* expression, const char* file, int line) {
  const ErrorCode code =
      status == CURAND_STATUS_ALLOCATION_FAILED ? ErrorCode::out_of_memory : ErrorCode::cuda_failure;
  throw Error(code, std::string(expression) + " failed: cuRAND status " +
                        std::to_string(static_cast<int>(status)) + " at " + file + ":" +
                        std::to_string(line));
}

}  // namespace cunum::detail
