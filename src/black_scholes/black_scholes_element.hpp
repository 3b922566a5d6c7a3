#pragma once
// Internal: one element of a price() or implied_volatility() call, the same code for
// the OpenMP loop and the CUDA kernels.

#include <cstdint>

#include "src/black_scholes/black_scholes_backends.hpp"
#include "src/black_scholes/black_scholes_math.hpp"
#include "src/core/host_device.hpp"

namespace cunum::detail {

template <class T>
CUNUM_HOST_DEVICE inline T element_or(const T* array, T scalar, std::int64_t i) {
  return array != nullptr ? array[i] : scalar;
}

// Computes option i and stores the outputs whose pointer is non-null.
template <class T>
CUNUM_HOST_DEVICE inline void black_scholes_price_element(const BlackScholesPriceArgs<T>& a, std::int64_t i) {
  const BlackScholesMarket<T>& m = a.market;
  const bs::Values<T> v = bs::evaluate(a.spot[i], a.strike[i], a.expiry[i], element_or(m.rates.rates, m.rates.rate, i),
                                       element_or(m.rates.dividends, m.rates.dividend, i),
                                       element_or(m.volatilities, m.volatility, i));
  const BlackScholesResults<T>& r = a.results;
  if (r.call != nullptr) r.call[i] = v.call;
  if (r.put != nullptr) r.put[i] = v.put;
  if (r.delta_call != nullptr) r.delta_call[i] = v.delta_call;
  if (r.delta_put != nullptr) r.delta_put[i] = v.delta_put;
  if (r.gamma != nullptr) r.gamma[i] = v.gamma;
  if (r.vega != nullptr) r.vega[i] = v.vega;
  if (r.theta_call != nullptr) r.theta_call[i] = v.theta_call;
  if (r.theta_put != nullptr) r.theta_put[i] = v.theta_put;
  if (r.rho_call != nullptr) r.rho_call[i] = v.rho_call;
  if (r.rho_put != nullptr) r.rho_put[i] = v.rho_put;
  if (r.forward != nullptr) r.forward[i] = v.forward;
  if (r.discount != nullptr) r.discount[i] = v.discount;
}

// Inverts option i; returns whether its price was rejected (outside the bounds).
template <class T>
CUNUM_HOST_DEVICE inline bool implied_volatility_element(const ImpliedVolArgs<T>& a, std::int64_t i) {
  bool rejected = false;
  const double sigma = bs::implied_volatility(
      static_cast<double>(a.prices[i]), static_cast<double>(a.spot[i]), static_cast<double>(a.strike[i]),
      static_cast<double>(a.expiry[i]), static_cast<double>(element_or(a.rates.rates, a.rates.rate, i)),
      static_cast<double>(element_or(a.rates.dividends, a.rates.dividend, i)), a.is_call, &rejected);
  a.volatility[i] = static_cast<T>(sigma);
  return rejected;
}

}  // namespace cunum::detail
