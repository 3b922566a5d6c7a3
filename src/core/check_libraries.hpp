#pragma once
// Internal: the CUDA libraries' statuses in the CUNUM_CHECK family (check.hpp):
// cuRAND's curandStatus_t and cuFFT's cufftResult. Allocation failures become
// out_of_memory, every other failure cuda_failure; error.cpp names each status.

#include <cufft.h>
#include <curand.h>

#include "src/core/check.hpp"

namespace cunum::detail {

template <>
struct LibraryStatus<curandStatus_t> {
  static bool is_success(curandStatus_t status) noexcept { return status == CURAND_STATUS_SUCCESS; }
  static LibraryFailure describe(curandStatus_t status) noexcept;
};

template <>
struct LibraryStatus<cufftResult> {
  static bool is_success(cufftResult status) noexcept { return status == CUFFT_SUCCESS; }
  static LibraryFailure describe(cufftResult status) noexcept;
};

}  // namespace cunum::detail
