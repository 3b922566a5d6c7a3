#pragma once
// Internal: the CUDA Black-Scholes kernels, templated on their launch policy
// (src/black_scholes/black_scholes_policy.hpp): grid-stride loops running the scalar
// code of black_scholes_math.hpp per option, every requested output stored in the
// same pass.

#include <cstdint>

#include "src/black_scholes/black_scholes_backends.hpp"
#include "src/black_scholes/black_scholes_element.hpp"

namespace cunum::detail {

// kPricesOnly: whether only prices and discount are formed (no density, no Greeks).
// Each pass of a block covers block_threads x items_per_thread consecutive options;
// thread t takes options t, t + block_threads, ... of it, so every load is coalesced.
template <class Policy, bool kPricesOnly, class T>
__global__ void __launch_bounds__(Policy::block_threads) black_scholes_price_kernel(BlackScholesPriceArgs<T> args) {
  constexpr int kThreads = Policy::block_threads;
  constexpr int kItems = Policy::items_per_thread;
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

// Counts rejected prices with one atomic per warp and pass (integer: deterministic).
template <class Policy, class T>
__global__ void __launch_bounds__(Policy::block_threads) implied_volatility_kernel(ImpliedVolArgs<T> args) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  const std::int64_t first = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  // Every lane of a warp runs the same number of passes, so the ballot is warp-wide.
  const std::int64_t warp_first = first - (threadIdx.x & 31);
  for (std::int64_t base = warp_first; base < args.options.n; base += stride) {
    const std::int64_t i = base + (threadIdx.x & 31);
    const bool rejected = i < args.options.n && implied_volatility_element(args, i);
    const unsigned votes = __ballot_sync(0xFFFFFFFFu, rejected);
    if (args.rejected != nullptr && (threadIdx.x & 31) == 0 && votes != 0) {
      atomicAdd(reinterpret_cast<unsigned long long*>(args.rejected), static_cast<unsigned long long>(__popc(votes)));
    }
  }
}

}  // namespace cunum::detail
