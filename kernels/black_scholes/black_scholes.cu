// CUDA Black-Scholes kernels: one grid-stride kernel per call, the scalar code of
// black_scholes_math.hpp per option, every requested output stored in the same pass.

#include <cuda_runtime.h>

#include "kernels/black_scholes/implied_volatility.cuh"
#include "kernels/common/launch.cuh"
#include "src/black_scholes/black_scholes_backends.hpp"
#include "src/black_scholes/black_scholes_element.hpp"
#include "src/core/check.hpp"
#include "src/core/instantiate.hpp"

namespace cunum::detail {

namespace {

// The launch shapes, as policy types (the bench can time others on the same code).
// Pricing reads items_per_thread options per thread before computing any. The kernels
// are bound by instruction issue, not by bytes in flight: on the H100, 4 items per
// thread lowered the occupancy (64 registers) and the throughput of most cases.
struct PricePolicy {
  static constexpr int block_threads = 256;
  static constexpr int items_per_thread = 1;
  static constexpr int blocks_per_multiprocessor = 8;
};
// The implied-volatility policy the library ships (kernels/black_scholes/implied_volatility.cuh):
// one option per thread. Dealing options through a warp queue was 0.88x as fast on the
// H100 (docs/divergence.md); the bench keeps it as its comparison line.
using ShippedImpliedVolPolicy = ImpliedVolPolicy<device::WorkAssignment::static_per_thread>;

// kPricesOnly: whether only prices and discount are formed (no density, no Greeks).
// Each pass of a block covers block_threads x items_per_thread consecutive options;
// thread t takes options t, t + block_threads, ... of it, so every load is coalesced.
template <bool kPricesOnly, class T>
__global__ void __launch_bounds__(PricePolicy::block_threads) black_scholes_price_kernel(BlackScholesPriceArgs<T> args) {
  constexpr int kThreads = PricePolicy::block_threads;
  constexpr int kItems = PricePolicy::items_per_thread;
  const std::int64_t n = args.options.n;
  const std::int64_t pass = std::int64_t{gridDim.x} * kThreads * kItems;
  for (std::int64_t base = std::int64_t{blockIdx.x} * kThreads * kItems + threadIdx.x; base < n; base += pass) {
    OptionInputs<T> inputs[kItems];
#pragma unroll
    for (int item = 0; item < kItems; ++item) {
      const std::int64_t i = base + std::int64_t{item} * kThreads;
      if (i < n) inputs[item] = load_option(args, i);
    }
#pragma unroll
    for (int item = 0; item < kItems; ++item) {
      const std::int64_t i = base + std::int64_t{item} * kThreads;
      if (i < n) price_option<kPricesOnly>(args, i, inputs[item]);
    }
  }
}

}  // namespace

template <class T>
void black_scholes_price_cuda(const BlackScholesPriceArgs<T>& args, int multiprocessor_count, StreamHandle stream) {
  if (args.options.n == 0) return;
  const char* name = "black_scholes_price_kernel";
  const LaunchConfig config{black_scholes_grid(args.options.n, PricePolicy::block_threads * PricePolicy::items_per_thread,
                                               PricePolicy::blocks_per_multiprocessor, multiprocessor_count, name),
                            dim3(PricePolicy::block_threads), 0, stream};
  if (args.prices_only) {
    launch_kernel(black_scholes_price_kernel<true, T>, name, config, args);
  } else {
    launch_kernel(black_scholes_price_kernel<false, T>, name, config, args);
  }
}

template <class T>
void implied_volatility_cuda(const ImpliedVolArgs<T>& args, int multiprocessor_count, StreamHandle stream) {
  launch_implied_volatility<ShippedImpliedVolPolicy>(args, multiprocessor_count, stream);
}

#define CUNUM_INSTANTIATE_BLACK_SCHOLES_CUDA(T)                                                   \
  template void black_scholes_price_cuda(const BlackScholesPriceArgs<T>&, int, StreamHandle); \
  template void implied_volatility_cuda(const ImpliedVolArgs<T>&, int, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_BLACK_SCHOLES_CUDA, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
