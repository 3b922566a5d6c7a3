// The pricing kernels of the formulations under measurement (BlackScholesCandidate,
// src/black_scholes/black_scholes_policy.hpp): the library's launch shape with each
// candidate's arithmetic, for the bench and the GPU suite. Compiled with the flags of
// black_scholes.cu (src/black_scholes/sources.cmake), so that the library candidate is
// the library's kernel.

#include "kernels/black_scholes/black_scholes_launch.cuh"
#include "kernels/black_scholes/black_scholes_launch.hpp"
#include "src/black_scholes/black_scholes_policy.hpp"
#include "src/core/instantiate.hpp"

namespace cunum::detail {

template <class T>
bool launch_black_scholes_price_candidate(BlackScholesCandidate candidate, const BlackScholesPriceArgs<T>& args,
                                          int arch, int multiprocessor_count, StreamHandle stream) {
  return with_black_scholes_candidate<T>(candidate, [&](auto tag) {
    using Formulation = typename decltype(tag)::type;
    using Library = typename BlackScholesPricePolicies::newest;
    using Policy = BlackScholesPricePolicyOf<Library::block_threads, Library::items_per_thread,
                                             Library::blocks_per_multiprocessor, Formulation>;
    launch_black_scholes_price_with<PolicyChain<ArchPolicy<0, Policy>>>(args, arch, multiprocessor_count, stream);
  });
}

#define CUNUM_INSTANTIATE_BLACK_SCHOLES_CANDIDATE(T)                                                        \
  template bool launch_black_scholes_price_candidate(BlackScholesCandidate, const BlackScholesPriceArgs<T>&, \
                                                     int, int, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_BLACK_SCHOLES_CANDIDATE, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
