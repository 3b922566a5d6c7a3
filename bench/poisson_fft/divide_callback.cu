// The spectral division as cuFFT LTO store callbacks: each complex output element of
// the R2C transform is multiplied by scale / eigenvalue (0 where the eigenvalue is 0)
// as it is stored, so that no separate pass over the spectrum is needed. Compiled to
// LTO-IR (-dc -fatbin, code=lto_XX) and embedded in the bench; cuFFT links it into its
// own kernels at plan time through nvJitLink.

#include <cufftXt.h>

#include "divide_callback.hpp"

namespace {

template <class Real, class Complex>
__device__ void divide_and_store(void* out, unsigned long long offset, Complex element, const PoissonDivideInfo* info) {
  const auto index = static_cast<long long>(offset);
  const long long m2 = index % info->half_last;
  const long long m1 = index / info->half_last % info->extended[1];
  const long long m0 = index / (info->half_last * info->extended[1]) % info->extended[0];
  const Real eigenvalue = static_cast<const Real*>(info->eigenvalues[0])[m0] +
                          static_cast<const Real*>(info->eigenvalues[1])[m1] +
                          static_cast<const Real*>(info->eigenvalues[2])[m2] - static_cast<Real>(info->screening);
  const Real factor = eigenvalue == Real(0) ? Real(0) : static_cast<Real>(info->scale) / eigenvalue;
  element.x *= factor;
  element.y *= factor;
  static_cast<Complex*>(out)[offset] = element;
}

}  // namespace

extern "C" __device__ void poisson_divide_store_float(void* out, unsigned long long offset, cufftComplex element,
                                                      void* info, void*) {
  divide_and_store<float>(out, offset, element, static_cast<const PoissonDivideInfo*>(info));
}

extern "C" __device__ void poisson_divide_store_double(void* out, unsigned long long offset,
                                                       cufftDoubleComplex element, void* info, void*) {
  divide_and_store<double>(out, offset, element, static_cast<const PoissonDivideInfo*>(info));
}
