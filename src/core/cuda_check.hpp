#pragma once
// Internal: turn CUDA runtime failures into cunum::Error. Used by host code and kernels.

#include <cuda_runtime.h>

#include <string>

#include "cunum/core/error.hpp"

namespace cunum::detail {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* expression, const char* file,
                                   int line);

inline void check_cuda(cudaError_t status, const char* expression, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(status, expression, file, line);
}

// After a kernel launch: a launch-configuration error surfaces here, not later.
inline void check_launch(const char* kernel, const char* file, int line) {
  check_cuda(cudaGetLastError(), kernel, file, line);
}

}  // namespace cunum::detail

#define CUNUM_CUDA_CHECK(expr) ::cunum::detail::check_cuda((expr), #expr, __FILE__, __LINE__)
#define CUNUM_CHECK_LAUNCH(kernel) ::cunum::detail::check_launch(kernel, __FILE__, __LINE__)
