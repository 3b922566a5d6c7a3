#pragma once
// Internal: one element of a price() or implied_volatility() call, the same code for
// the OpenMP loop and the CUDA kernels.

#include <cstdint>

#include "src/black_scholes/black_scholes_backends.hpp"
#include "src/black_scholes/black_scholes_math.hpp"
#include "cunum/device/detail/host_device.hpp"

namespace cunum::detail {

template <class T>
CUNUM_HOST_DEVICE inline T element_or(const T* array, T scalar, std::int64_t i) {
  return array != nullptr ? array[i] : scalar;
}

// The inputs of one option.
template <class T>
struct OptionInputs {
  T spot, strike, expiry, rate, dividend, volatility;
};

// Whether the market is the call's scalars (no per-option array): the kernels then hold
// r, q and sigma in registers for every option instead of loading or selecting them.
template <class T>
CUNUM_HOST_DEVICE inline bool has_scalar_market(const BlackScholesMarket<T>& m) {
  return m.rates.rates == nullptr && m.rates.dividends == nullptr && m.volatilities == nullptr;
}

// Reads option i's inputs (the kernels issue the reads of several options before
// computing any, so that more loads are in flight). kScalarMarket: has_scalar_market.
template <bool kScalarMarket = false, class T>
CUNUM_HOST_DEVICE inline OptionInputs<T> load_option(const BlackScholesPriceArgs<T>& a, std::int64_t i) {
  const BlackScholesMarket<T>& m = a.market;
  const OptionBatch<T>& o = a.options;
  if constexpr (kScalarMarket) {
    return {o.spot[i], o.strike[i], o.expiry[i], m.rates.rate, m.rates.dividend, m.volatility};
  } else {
    return {o.spot[i],
            o.strike[i],
            o.expiry[i],
            element_or(m.rates.rates, m.rates.rate, i),
            element_or(m.rates.dividends, m.rates.dividend, i),
            element_or(m.volatilities, m.volatility, i)};
  }
}

// Computes option i from its inputs and stores the outputs whose pointer is non-null;
// kPricesOnly must be a.prices_only (then only prices and discount are formed).
template <bool kPricesOnly, class T>
CUNUM_HOST_DEVICE inline void price_option(const BlackScholesPriceArgs<T>& a, std::int64_t i, const OptionInputs<T>& in) {
  const bs::Values<T> v =
      bs::evaluate<T, kPricesOnly>(in.spot, in.strike, in.expiry, in.rate, in.dividend, in.volatility);
  const BlackScholesResults<T>& r = a.results;
  if constexpr (kPricesOnly) {  // the other pointers are null: no need to test them
    if (r.call != nullptr) r.call[i] = v.call;
    if (r.put != nullptr) r.put[i] = v.put;
    if (r.discount != nullptr) r.discount[i] = v.discount;
  } else {
#define CUNUM_BS_STORE_OUTPUT(name, text) \
  if (r.name != nullptr) r.name[i] = v.name;
    CUNUM_BLACK_SCHOLES_OUTPUTS(CUNUM_BS_STORE_OUTPUT)
#undef CUNUM_BS_STORE_OUTPUT
  }
}

// Inverts option i; returns whether its price was rejected (outside the bounds).
template <class T>
CUNUM_HOST_DEVICE inline bool implied_volatility_element(const ImpliedVolArgs<T>& a, std::int64_t i) {
  bool rejected = false;
  const OptionBatch<T>& o = a.options;
  const double sigma = bs::implied_volatility<T>(
      static_cast<double>(a.prices[i]), static_cast<double>(o.spot[i]), static_cast<double>(o.strike[i]),
      static_cast<double>(o.expiry[i]), static_cast<double>(element_or(a.rates.rates, a.rates.rate, i)),
      static_cast<double>(element_or(a.rates.dividends, a.rates.dividend, i)), a.is_call, &rejected);
  a.volatility[i] = static_cast<T>(sigma);
  return rejected;
}

}  // namespace cunum::detail
