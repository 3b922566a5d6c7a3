#include "reference_kernel.hpp"

#include "kernels/common/launch.cuh"
#include "src/core/instantiate.hpp"

namespace cunum::bench {

namespace {

// The reference work's fixed launch shape.
constexpr int kReferenceBlocks = 128;
constexpr int kReferenceThreads = 256;

// Abramowitz and Stegun 26.2.17: |error| < 7.5e-8.
template <class T>
__device__ T polynomial_cnd(T d) {
  const T a1 = T(0.31938153), a2 = T(-0.356563782), a3 = T(1.781477937), a4 = T(-1.821255978),
          a5 = T(1.330274429), rsqrt2pi = T(0.39894228040143267793994605993438);
  const T k = T(1) / (T(1) + T(0.2316419) * fabs(d));
  const T cnd = rsqrt2pi * exp(T(-0.5) * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > T(0) ? T(1) - cnd : cnd;
}

template <class T>
__global__ void reference_black_scholes_kernel(ReferenceBlackScholesBatch<T> b) {
  const int thread = blockDim.x * blockIdx.x + threadIdx.x;
  const int threads = blockDim.x * gridDim.x;
  for (int option = thread; option < b.n; option += threads) {
    const T s = b.spot[option], x = b.strike[option], t = b.expiry[option];
    const T sqrt_t = sqrt(t);
    const T d1 = (log(s / x) + (b.rate + T(0.5) * b.volatility * b.volatility) * t) / (b.volatility * sqrt_t);
    const T d2 = d1 - b.volatility * sqrt_t;
    const T cnd_d1 = polynomial_cnd(d1), cnd_d2 = polynomial_cnd(d2);
    const T discounted_strike = x * exp(-b.rate * t);
    b.call[option] = s * cnd_d1 - discounted_strike * cnd_d2;
    b.put[option] = discounted_strike * (T(1) - cnd_d2) - s * (T(1) - cnd_d1);
  }
}

}  // namespace

template <class T>
void reference_black_scholes(const ReferenceBlackScholesBatch<T>& batch, StreamHandle stream) {
  const detail::LaunchConfig config{dim3(kReferenceBlocks), dim3(kReferenceThreads), 0, stream};
  detail::launch_kernel(reference_black_scholes_kernel<T>, "reference_black_scholes_kernel", config, batch);
}

#define CUNUM_INSTANTIATE_REFERENCE_BLACK_SCHOLES(T) \
  template void reference_black_scholes(const ReferenceBlackScholesBatch<T>&, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_REFERENCE_BLACK_SCHOLES, CUNUM_REAL_TYPES)

}  // namespace cunum::bench
