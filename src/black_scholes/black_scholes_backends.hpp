#pragma once
// Internal: the entry points each Black-Scholes backend provides; black_scholes.cpp
// validates and dispatches. Arguments are validated already.

#include <cstdint>

#include "cunum/black_scholes.hpp"

namespace cunum::detail {

// The options of a call: n of them, with their spot, strike and expiry arrays.
template <class T>
struct OptionBatch {
  std::int64_t n;
  const T* spot;
  const T* strike;
  const T* expiry;
};

// The arguments of one price() call, shared by both backends.
template <class T>
struct BlackScholesPriceArgs {
  OptionBatch<T> options;
  BlackScholesMarket<T> market;
  BlackScholesResults<T> results;  // unrequested outputs are null here
  bool prices_only;                 // whether only call, put and discount are requested
};

// The arguments of one implied_volatility() call.
template <class T>
struct ImpliedVolArgs {
  OptionBatch<T> options;
  const T* prices;
  BlackScholesRates<T> rates;
  bool is_call;
  T* volatility;
  std::int64_t* rejected;  // may be null
};

// OpenMP: host pointers, synchronous.
template <class T>
void black_scholes_price_cpu(const BlackScholesPriceArgs<T>& args);
template <class T>
void implied_volatility_cpu(const ImpliedVolArgs<T>& args);

// CUDA: device-accessible pointers, asynchronous on `stream`; one grid-stride kernel
// sized from the device's multiprocessor count.
template <class T>
void black_scholes_price_cuda(const BlackScholesPriceArgs<T>& args, int multiprocessor_count, StreamHandle stream);
template <class T>
void implied_volatility_cuda(const ImpliedVolArgs<T>& args, int multiprocessor_count, StreamHandle stream);

}  // namespace cunum::detail
