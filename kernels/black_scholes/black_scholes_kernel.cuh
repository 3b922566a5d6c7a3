#pragma once
// Internal: the CUDA Black-Scholes kernels, templated on their launch policy
// (src/black_scholes/black_scholes_policy.hpp): grid-stride loops running the scalar
// code of black_scholes_math.hpp per option, every requested output stored in the
// same pass.

#include <cstdint>
#include <limits>

#include "src/black_scholes/black_scholes_backends.hpp"
#include "src/black_scholes/black_scholes_element.hpp"

namespace cunum::detail {

// The options of one price() call, with indices of type Index. Each pass of a block
// covers block_threads x items_per_thread consecutive options; thread t takes options
// t, t + block_threads, ... of it, so every load is coalesced. kNoDividend: the market's
// scalar dividend yield is 0, and each option gets the constant 0 in its place.
template <class Index, class Policy, bool kPricesOnly, bool kScalarMarket, bool kNoDividend, class T>
__device__ inline void price_options(const BlackScholesPriceArgs<T>& args) {
  constexpr int kThreads = Policy::block_threads;
  constexpr int kItems = Policy::items_per_thread;
  const Index n = static_cast<Index>(args.options.n);
  const Index pass = static_cast<Index>(gridDim.x) * kThreads * kItems;
  for (Index base = static_cast<Index>(blockIdx.x) * kThreads * kItems + threadIdx.x; base < n; base += pass) {
    OptionInputs<T> inputs[kItems];
#pragma unroll
    for (int item = 0; item < kItems; ++item) {
      const Index i = base + static_cast<Index>(item) * kThreads;
      if (i < n) inputs[item] = load_option<kScalarMarket>(args, i);
      if constexpr (kNoDividend) inputs[item].dividend = T(0);
    }
#pragma unroll
    for (int item = 0; item < kItems; ++item) {
      const Index i = base + static_cast<Index>(item) * kThreads;
      if (i < n) price_option<kPricesOnly>(args, i, inputs[item]);
    }
  }
}

// kPricesOnly: whether only prices and discount are formed (no density, no Greeks);
// kScalarMarket: whether r, q and sigma are the call's scalars (has_scalar_market).
// The loop is specialised twice over, on values that hold for the whole call:
//  - 32-bit indices wherever every index a thread forms fits (an address is then one
//    multiply-add from the array's base, where a 64-bit index takes two adds);
//  - a scalar market without dividends (the usual batch) with q the constant 0, so
//    that e^{-qT} and its test compile away (evaluate() skips them only by a select
//    that every option still issues).
template <class Policy, bool kPricesOnly, bool kScalarMarket, class T>
__global__ void __launch_bounds__(Policy::block_threads) black_scholes_price_kernel(BlackScholesPriceArgs<T> args) {
  const std::int64_t pass = std::int64_t{gridDim.x} * Policy::block_threads * Policy::items_per_thread;
  if (args.options.n + pass > std::int64_t{std::numeric_limits<std::uint32_t>::max()}) {
    price_options<std::int64_t, Policy, kPricesOnly, kScalarMarket, false>(args);
  } else if (kScalarMarket && args.market.rates.dividend == T(0)) {
    price_options<std::uint32_t, Policy, kPricesOnly, kScalarMarket, kScalarMarket>(args);
  } else {
    price_options<std::uint32_t, Policy, kPricesOnly, kScalarMarket, false>(args);
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
