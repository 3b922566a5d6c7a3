#pragma once
// Internal: cuFFT results in the CUNUM_CHECK family (check.hpp). Allocation
// failures become out_of_memory, every other failure cuda_failure.

#include <cufft.h>

#include "src/core/check.hpp"

namespace cunum::detail {

template <>
struct LibraryStatus<cufftResult> {
  static bool is_success(cufftResult status) noexcept { return status == CUFFT_SUCCESS; }
  static LibraryFailure describe(cufftResult status) noexcept;
};

}  // namespace cunum::detail
