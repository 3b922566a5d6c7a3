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

// kItems consecutive values of an array, read or written as one vector.
template <int kItems, class T>
struct alignas(kItems * sizeof(T)) Pack {
  T value[kItems];
};

// Whether every array the kernel reads or writes is aligned to a Pack of kItems (null
// ones, unread or unwritten, count as aligned; prices only writes the call, the put and
// the discount factor alone).
template <int kItems, bool kPricesOnly, class T>
__device__ inline bool packs_aligned(const BlackScholesPriceArgs<T>& a) {
  const auto bits = [](const T* p) { return reinterpret_cast<std::uintptr_t>(p); };
  std::uintptr_t all = bits(a.options.spot) | bits(a.options.strike) | bits(a.options.expiry) |
                       bits(a.market.rates.rates) | bits(a.market.rates.dividends) | bits(a.market.volatilities);
  if constexpr (kPricesOnly) {
    all |= bits(a.results.call) | bits(a.results.put) | bits(a.results.discount);
  } else {
#define CUNUM_BS_OUTPUT_BITS(name, text) all |= bits(a.results.name);
    CUNUM_BLACK_SCHOLES_OUTPUTS(CUNUM_BS_OUTPUT_BITS)
#undef CUNUM_BS_OUTPUT_BITS
  }
  return all % sizeof(Pack<kItems, T>) == 0;
}

// Options first .. first + kItems - 1, every array read and written as one Pack.
template <int kItems, bool kPricesOnly, bool kScalarMarket, class T, class Index>
__device__ inline void price_pack(const BlackScholesPriceArgs<T>& a, Index first, bool no_dividend) {
  const auto read = [first](const T* array) { return *reinterpret_cast<const Pack<kItems, T>*>(array + first); };
  const Pack<kItems, T> spot = read(a.options.spot), strike = read(a.options.strike), expiry = read(a.options.expiry);
  Pack<kItems, T> rate, dividend, volatility;
  const BlackScholesMarket<T>& m = a.market;
  for (int item = 0; item < kItems; ++item) {
    rate.value[item] = m.rates.rate;
    dividend.value[item] = m.rates.dividend;
    volatility.value[item] = m.volatility;
  }
  if constexpr (!kScalarMarket) {
    if (m.rates.rates != nullptr) rate = read(m.rates.rates);
    if (m.rates.dividends != nullptr) dividend = read(m.rates.dividends);
    if (m.volatilities != nullptr) volatility = read(m.volatilities);
  }
  const BlackScholesResults<T>& r = a.results;
  if constexpr (kPricesOnly) {
    Pack<kItems, T> call, put, discount;
#pragma unroll
    for (int item = 0; item < kItems; ++item) {
      const bs::Values<T> v =
          bs::evaluate<T, true>(spot.value[item], strike.value[item], expiry.value[item], rate.value[item],
                                no_dividend ? T(0) : dividend.value[item], volatility.value[item]);
      call.value[item] = v.call;
      put.value[item] = v.put;
      discount.value[item] = v.discount;
    }
    if (r.call != nullptr) *reinterpret_cast<Pack<kItems, T>*>(r.call + first) = call;
    if (r.put != nullptr) *reinterpret_cast<Pack<kItems, T>*>(r.put + first) = put;
    if (r.discount != nullptr) *reinterpret_cast<Pack<kItems, T>*>(r.discount + first) = discount;
  } else {
    bs::Values<T> v[kItems];
#pragma unroll
    for (int item = 0; item < kItems; ++item) {
      v[item] = bs::evaluate<T, false>(spot.value[item], strike.value[item], expiry.value[item], rate.value[item],
                                       no_dividend ? T(0) : dividend.value[item], volatility.value[item]);
    }
#define CUNUM_BS_STORE_PACK(name, text)                                           \
  if (r.name != nullptr) {                                                        \
    Pack<kItems, T> values;                                                       \
    for (int item = 0; item < kItems; ++item) values.value[item] = v[item].name;  \
    *reinterpret_cast<Pack<kItems, T>*>(r.name + first) = values;                 \
  }
    CUNUM_BLACK_SCHOLES_OUTPUTS(CUNUM_BS_STORE_PACK)
#undef CUNUM_BS_STORE_PACK
  }
}

// Option i alone.
template <bool kPricesOnly, bool kScalarMarket, bool kNoDividend, class T, class Index>
__device__ inline void price_one(const BlackScholesPriceArgs<T>& args, Index i) {
  OptionInputs<T> inputs = load_option<kScalarMarket>(args, i);
  if constexpr (kNoDividend) inputs.dividend = T(0);
  price_option<kPricesOnly>(args, i, inputs);
}

// The options of one price() call, with indices of type Index. Where every array is
// aligned to a Pack of kItems (the policy's items_per_thread), a pass of a block covers
// block_threads x kItems consecutive options, thread t the t-th kItems of them, read and
// written as Packs (price_pack); the options after the last whole Pack, or all of them
// where an array is not aligned, one by one, thread t taking options t, t + the grid's
// threads, ... (prices only: each one's inputs loaded while the one before is priced).
// Every load is coalesced. kNoDividend: the market's scalar dividend yield
// is 0, and each option gets the constant 0 in its place.
template <class Index, class Shape, bool kPricesOnly, bool kScalarMarket, bool kNoDividend, class T>
__device__ inline void price_options(const BlackScholesPriceArgs<T>& args) {
  constexpr int kThreads = Shape::block_threads;
  constexpr int kItems = Shape::items_per_thread;
  static_assert(kItems * sizeof(T) <= 16, "a Pack is one vector of at most 16 bytes");
  const Index n = static_cast<Index>(args.options.n);
  const Index thread = static_cast<Index>(blockIdx.x) * kThreads + threadIdx.x;
  const Index threads = static_cast<Index>(gridDim.x) * kThreads;
  Index one_by_one = 0;  // the first option priced alone
  if constexpr (kItems > 1) {
    if (packs_aligned<kItems, kPricesOnly>(args)) {
      one_by_one = n - n % kItems;
      for (Index first = thread * kItems; first < one_by_one; first += threads * kItems) {
        price_pack<kItems, kPricesOnly, kScalarMarket>(args, first, kNoDividend);
      }
    }
  }
  Index i = one_by_one + thread;
  if constexpr (!kPricesOnly) {
    for (; i < n; i += threads) price_one<kPricesOnly, kScalarMarket, kNoDividend>(args, i);
  } else {
    // Prices only: each option's inputs loaded a pass ahead, so that the next option's
    // loads are in flight while this one is priced (double prices 5% faster at 2^24 on
    // an H100; the kernels of every output, at 80-100 registers, lost 1% and do not).
    if (i >= n) return;
    OptionInputs<T> inputs = load_option<kScalarMarket>(args, i);
    for (;;) {
      const Index next = i + threads;
      OptionInputs<T> following{};
      if (next < n) following = load_option<kScalarMarket>(args, next);
      if constexpr (kNoDividend) inputs.dividend = T(0);
      price_option<kPricesOnly>(args, i, inputs);
      if (next >= n) return;
      i = next;
      inputs = following;
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
template <class Shape, bool kPricesOnly, bool kScalarMarket, class T>
__global__ void __launch_bounds__(Shape::block_threads, Shape::min_blocks)
    black_scholes_price_kernel(BlackScholesPriceArgs<T> args) {
  const std::int64_t pass = std::int64_t{gridDim.x} * Shape::block_threads * Shape::items_per_thread;
  if (args.options.n + pass > std::int64_t{std::numeric_limits<std::uint32_t>::max()}) {
    price_options<std::int64_t, Shape, kPricesOnly, kScalarMarket, false>(args);
  } else if (kScalarMarket && args.market.rates.dividend == T(0)) {
    price_options<std::uint32_t, Shape, kPricesOnly, kScalarMarket, kScalarMarket>(args);
  } else {
    price_options<std::uint32_t, Shape, kPricesOnly, kScalarMarket, false>(args);
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
