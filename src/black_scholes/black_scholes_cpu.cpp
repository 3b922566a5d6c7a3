// The OpenMP Black-Scholes backend: the scalar code of black_scholes_math.hpp over
// the options, each computed independently (results do not depend on the thread count).

#include <memory>

#include "src/black_scholes/black_scholes_backends.hpp"
#include "src/black_scholes/black_scholes_element.hpp"
#include "src/core/instantiate.hpp"

namespace cunum::detail {

namespace {

template <bool kPricesOnly, class T>
void price_batch(const BlackScholesPriceArgs<T>& args) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < args.options.n; ++i) price_option<kPricesOnly>(args, i, load_option(args, i));
}

// Keeps nothing between calls.
template <class T>
class CpuBlackScholes final : public BlackScholesBackend<T> {
 public:
  void price(const BlackScholesPriceArgs<T>& args, StreamHandle) const override {
    if (args.prices_only) {
      price_batch<true>(args);
    } else {
      price_batch<false>(args);
    }
  }

  void implied_volatility(const ImpliedVolArgs<T>& args, StreamHandle) const override {
    std::int64_t rejected = 0;
    // Every option takes the same steps (bs::implied_total_vol): static blocks.
#pragma omp parallel for schedule(static) reduction(+ : rejected)
    for (std::int64_t i = 0; i < args.options.n; ++i) rejected += implied_volatility_element(args, i) ? 1 : 0;
    if (args.rejected != nullptr) *args.rejected = rejected;
  }
};

}  // namespace

template <class T>
std::unique_ptr<BlackScholesBackend<T>> make_black_scholes_cpu() {
  return std::make_unique<CpuBlackScholes<T>>();
}

#define CUNUM_INSTANTIATE_MAKE_BLACK_SCHOLES_CPU(T) \
  template std::unique_ptr<BlackScholesBackend<T>> make_black_scholes_cpu();
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MAKE_BLACK_SCHOLES_CPU, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
