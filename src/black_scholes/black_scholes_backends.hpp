#pragma once
// Internal: the arguments of a Black-Scholes call, shared by both backends, and the
// backend interface; black_scholes.cpp validates and calls through it.

#include <cstdint>
#include <memory>

#include "cunum/black_scholes.hpp"
#include "cunum/core/stream.hpp"

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

// The one backend interface of cunum::BlackScholesPricer, made once per pricer
// (black_scholes.cpp); arguments validated. CPU: host pointers, synchronous,
// `stream` ignored. CUDA: device-accessible pointers, enqueued on `stream`. A
// backend keeps no mutable state: calls may come from several threads.
template <class T>
class BlackScholesBackend {
 public:
  virtual ~BlackScholesBackend() = default;
  virtual void price(const BlackScholesPriceArgs<T>& args, StreamHandle stream) const = 0;
  virtual void implied_volatility(const ImpliedVolArgs<T>& args, StreamHandle stream) const = 0;
};

// OpenMP (black_scholes_cpu.cpp).
template <class T>
std::unique_ptr<BlackScholesBackend<T>> make_black_scholes_cpu();

// CUDA (black_scholes_cuda.cpp): bound to the current device, whose multiprocessor
// count and architecture size and pick the launches.
template <class T>
std::unique_ptr<BlackScholesBackend<T>> make_black_scholes_cuda();

}  // namespace cunum::detail
