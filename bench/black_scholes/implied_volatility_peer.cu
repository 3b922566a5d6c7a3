// The implied-volatility kernel with a warp queue (implied_volatility_peer.hpp).

#include "implied_volatility_peer.hpp"
#include "kernels/black_scholes/implied_volatility.cuh"
#include "src/core/instantiate.hpp"

namespace cunum::bench::black_scholes {

template <class T>
void implied_volatility_warp_queue(const detail::ImpliedVolArgs<T>& args, int multiprocessor_count,
                                   StreamHandle stream) {
  detail::launch_implied_volatility<detail::ImpliedVolPolicy<device::WorkAssignment::warp_queue>>(
      args, multiprocessor_count, stream);
}

#define CUNUM_INSTANTIATE_IMPLIED_VOLATILITY_PEER(T) \
  template void implied_volatility_warp_queue(const detail::ImpliedVolArgs<T>&, int, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_IMPLIED_VOLATILITY_PEER, CUNUM_REAL_TYPES)

}  // namespace cunum::bench::black_scholes
