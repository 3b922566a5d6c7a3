#include "cunum/core/error.hpp"

#include "src/core/cuda_check.hpp"
#include "src/core/validate.hpp"

namespace cunum {

const char* to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::no_device: return "no_device";
    case ErrorCode::cuda_failure: return "cuda_failure";
    case ErrorCode::out_of_memory: return "out_of_memory";
    case ErrorCode::not_supported: return "not_supported";
  }
  return "unknown";
}

Error::Error(ErrorCode code, const std::string& message)
    : std::runtime_error(std::string("cunum [") + to_string(code) + "]: " + message), code_(code) {}

namespace detail {

void throw_cuda_error(cudaError_t status, const char* expression, const char* file, int line) {
  ErrorCode code = ErrorCode::cuda_failure;
  if (status == cudaErrorMemoryAllocation) code = ErrorCode::out_of_memory;
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver) {
    code = ErrorCode::no_device;
  }
  cudaGetLastError();  // clear a sticky launch error so later calls report their own status
  throw Error(code, std::string(expression) + " failed: " + cudaGetErrorName(status) + " (" +
                        cudaGetErrorString(status) + ") at " + file + ":" + std::to_string(line));
}

void throw_invalid_argument(const char* routine, const char* argument, const std::string& problem) {
  throw Error(ErrorCode::invalid_argument,
              std::string(routine) + ": argument '" + argument + "' " + problem);
}

}  // namespace detail
}  // namespace cunum
