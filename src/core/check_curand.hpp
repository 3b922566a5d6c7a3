#pragma once
// Internal: cuRAND statuses in the CUNUM_CHECK family (check.hpp). Allocation
// failures become out_of_memory, every other failure cuda_failure.

#include <curand.h>

#include "src/core/check.hpp"

namespace cunum::detail {

template <>
struct LibraryStatus<curandStatus_t> {
  static bool is_success(curandStatus_t status) noexcept { return status == CURAND_STATUS_SUCCESS; }
  static LibraryFailure describe(curandStatus_t status) noexcept;
};

}  // namespace cunum::detail
