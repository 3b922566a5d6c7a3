#include "cunum/core/error.hpp"

#include <string>

#include "src/core/check.hpp"
#include "src/core/check_libraries.hpp"
#include "src/core/enum_functions.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"

namespace cunum {

CUNUM_DEFINE_ENUM_FUNCTIONS(ErrorCode, CUNUM_ERROR_CODES)

Error::Error(ErrorCode code, const std::string& message)
    : std::runtime_error(std::string("cunum [") + to_string(code) + "]: " + message), code_(code) {}

namespace detail {
namespace {

// "routine: " when a routine scope is open on this thread, else nothing.
std::string routine_prefix() {
  const char* routine = RoutineScope::current();
  return routine != nullptr ? std::string(routine) + ": " : std::string();
}

const char* curand_status_name(curandStatus_t status) {
  switch (status) {
    case CURAND_STATUS_SUCCESS: return "CURAND_STATUS_SUCCESS";
    case CURAND_STATUS_VERSION_MISMATCH: return "CURAND_STATUS_VERSION_MISMATCH";
    case CURAND_STATUS_NOT_INITIALIZED: return "CURAND_STATUS_NOT_INITIALIZED";
    case CURAND_STATUS_ALLOCATION_FAILED: return "CURAND_STATUS_ALLOCATION_FAILED";
    case CURAND_STATUS_TYPE_ERROR: return "CURAND_STATUS_TYPE_ERROR";
    case CURAND_STATUS_OUT_OF_RANGE: return "CURAND_STATUS_OUT_OF_RANGE";
    case CURAND_STATUS_LENGTH_NOT_MULTIPLE: return "CURAND_STATUS_LENGTH_NOT_MULTIPLE";
    case CURAND_STATUS_DOUBLE_PRECISION_REQUIRED: return "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED";
    case CURAND_STATUS_LAUNCH_FAILURE: return "CURAND_STATUS_LAUNCH_FAILURE";
    case CURAND_STATUS_PREEXISTING_FAILURE: return "CURAND_STATUS_PREEXISTING_FAILURE";
    case CURAND_STATUS_INITIALIZATION_FAILED: return "CURAND_STATUS_INITIALIZATION_FAILED";
    case CURAND_STATUS_ARCH_MISMATCH: return "CURAND_STATUS_ARCH_MISMATCH";
    case CURAND_STATUS_INTERNAL_ERROR: return "CURAND_STATUS_INTERNAL_ERROR";
  }
  return "unknown cuRAND status";
}

const char* cufft_status_name(cufftResult status) {
  switch (status) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_MISSING_DEPENDENCY: return "CUFFT_MISSING_DEPENDENCY";
    case CUFFT_NVRTC_FAILURE: return "CUFFT_NVRTC_FAILURE";
    case CUFFT_NVJITLINK_FAILURE: return "CUFFT_NVJITLINK_FAILURE";
    case CUFFT_NVSHMEM_FAILURE: return "CUFFT_NVSHMEM_FAILURE";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
  }
  return "unknown cuFFT result";
}

}  // namespace

LibraryFailure LibraryStatus<cudaError_t>::describe(cudaError_t status) noexcept {
  ErrorCode code = ErrorCode::cuda_failure;
  if (status == cudaErrorMemoryAllocation) code = ErrorCode::out_of_memory;
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver) code = ErrorCode::no_device;
  return {code, "CUDA", cudaGetErrorName(status), cudaGetErrorString(status)};
}

LibraryFailure LibraryStatus<curandStatus_t>::describe(curandStatus_t status) noexcept {
  const ErrorCode code =
      status == CURAND_STATUS_ALLOCATION_FAILED ? ErrorCode::out_of_memory : ErrorCode::cuda_failure;
  return {code, "cuRAND", curand_status_name(status), ""};
}

LibraryFailure LibraryStatus<cufftResult>::describe(cufftResult status) noexcept {
  const ErrorCode code = status == CUFFT_ALLOC_FAILED ? ErrorCode::out_of_memory : ErrorCode::cuda_failure;
  return {code, "cuFFT", cufft_status_name(status), ""};
}

void throw_library_failure(const LibraryFailure& failure, const char* expression, const char* file, int line) {
  cudaGetLastError();  // clear a sticky launch error so later calls report their own status
  // `file` is relative to the project: the build maps the source directory away (CMakeLists.txt).
  const std::string location = std::string(" [") + file + ":" + std::to_string(line) + "]";
  if (failure.code == ErrorCode::no_device) {
    throw Error(failure.code, routine_prefix() + "no CUDA device (" + failure.status_name + " from " +
                                  expression + ")" + location);
  }
  const std::string description =
      failure.description[0] != '\0' ? std::string(" (") + failure.description + ")" : std::string();
  throw Error(failure.code, routine_prefix() + expression + " failed: " + failure.library + " " +
                                failure.status_name + description + location);
}

void throw_invalid_argument(const char* routine, const char* argument, const std::string& problem) {
  throw Error(ErrorCode::invalid_argument, std::string(routine) + ": argument '" + argument + "' " + problem);
}

}  // namespace detail
}  // namespace cunum
