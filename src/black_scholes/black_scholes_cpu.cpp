// The OpenMP Black-Scholes backend: the scalar code of black_scholes_math.hpp over
// the options, each computed independently (results do not depend on the thread count).

#include "src/black_scholes/black_scholes_backends.hpp"
#include "src/black_scholes/black_scholes_element.hpp"
#include "src/core/instantiate.hpp"

namespace cunum::detail {

template <bool kPricesOnly, class T>
void price_batch(const BlackScholesPriceArgs<T>& args) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < args.options.n; ++i) price_option<kPricesOnly>(args, i, load_option(args, i));
}

template <class T>
void black_scholes_price_cpu(const BlackScholesPriceArgs<T>& args) {
  if (args.prices_only) {
    price_batch<true>(args);
  } else {
    price_batch<false>(args);
  }
}

template <class T>
void implied_volatility_cpu(const ImpliedVolArgs<T>& args) {
  std::int64_t rejected = 0;
  // The iteration count varies per option: dynamic blocks of a fixed size.
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : rejected)
  for (std::int64_t i = 0; i < args.options.n; ++i) rejected += implied_volatility_element(args, i) ? 1 : 0;
  if (args.rejected != nullptr) *args.rejected = rejected;
}

#define CUNUM_INSTANTIATE_BLACK_SCHOLES_CPU(T)                          \
  template void black_scholes_price_cpu(const BlackScholesPriceArgs<T>&); \
  template void implied_volatility_cpu(const ImpliedVolArgs<T>&);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_BLACK_SCHOLES_CPU, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
