#pragma once
// Internal: turn cuRAND failures into cunum::Error (allocation failures become
// out_of_memory, every other status cuda_failure).

#include <curand.h>

namespace cunum::detail {

[[noreturn]] void throw_curand_error(curandStatus_t status, const char* expression, const char* file,
                                     int line);

inline void check_curand(curandStatus_t status, const char* expression, const char* file, int line) {
  if (status != CURAND_STATUS_SUCCESS) throw_curand_error(status, expression, file, line);
}

}  // namespace cunum::detail

#define CUNUM_CURAND_CHECK(expr) ::cunum::detail::check_curand((expr), #expr, __FILE__, __LINE__)
