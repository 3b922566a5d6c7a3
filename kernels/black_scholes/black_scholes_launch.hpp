#pragma once
// Internal: the launchers of the Black-Scholes kernels (kernels/black_scholes/
// black_scholes.cu), plain C++ for the CUDA backend (src/black_scholes/black_scholes_cuda.cpp).
// Each launches one grid-stride kernel with the policy of `arch`, sized from the
// device's multiprocessor count; nothing when there are no options.

#include "cunum/core/stream.hpp"
#include "src/black_scholes/black_scholes_backends.hpp"

namespace cunum::detail {

template <class T>
void launch_black_scholes_price(const BlackScholesPriceArgs<T>& args, int arch, int multiprocessor_count,
                                StreamHandle stream);
template <class T>
void launch_implied_volatility(const ImpliedVolArgs<T>& args, int arch, StreamHandle stream);

}  // namespace cunum::detail
