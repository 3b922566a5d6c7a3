#pragma once
// Internal: one status-check family for every CUDA library cunum calls. A library
// joins it by specialising LibraryStatus for its status type (cuRAND and cuFFT:
// check_libraries.hpp); CUNUM_CHECK then works on any of them:
//     CUNUM_CHECK(cudaMemcpyAsync(...));   CUNUM_CHECK(curandGenerateNormal(...));
// A failure throws cunum::Error naming the API routine in progress (routine.hpp),
// the call, the library's status and the source file relative to the project.

#include <cuda_runtime.h>

#include "cunum/core/error.hpp"

namespace cunum::detail {

// What a failed call reports: its ErrorCode and a readable status.
struct LibraryFailure {
  ErrorCode code;
  const char* library;
  const char* status_name;  // e.g. "cudaErrorMemoryAllocation", or a cuRAND enumerator
  const char* description;  // the library's own words where it has them, else ""
};

// Specialised per status type: is_success(status) and describe(status).
template <class Status>
struct LibraryStatus;

template <>
struct LibraryStatus<cudaError_t> {
  static bool is_success(cudaError_t status) noexcept { return status == cudaSuccess; }
  static LibraryFailure describe(cudaError_t status) noexcept;
};

[[noreturn]] void throw_library_failure(const LibraryFailure& failure, const char* expression,
                                        const char* file, int line);

template <class Status>
inline void check_status(Status status, const char* expression, const char* file, int line) {
  if (!LibraryStatus<Status>::is_success(status)) {
    throw_library_failure(LibraryStatus<Status>::describe(status), expression, file, line);
  }
}

}  // namespace cunum::detail

#define CUNUM_CHECK(expr) ::cunum::detail::check_status((expr), #expr, __FILE__, __LINE__)
