// The Black-Scholes launchers: the kernels of black_scholes_kernel.cuh with the
// policy of the device's architecture (src/black_scholes/black_scholes_policy.hpp),
// as many blocks as fill the device, never more than the options need.

#include "kernels/black_scholes/black_scholes_kernel.cuh"
#include "kernels/black_scholes/black_scholes_launch.hpp"
#include "kernels/common/launch.cuh"
#include "src/black_scholes/black_scholes_policy.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/launch_shape.hpp"

namespace cunum::detail {

template <class T>
void launch_black_scholes_price(const BlackScholesPriceArgs<T>& args, int arch, int multiprocessor_count,
                                StreamHandle stream) {
  if (args.options.n == 0) return;
  BlackScholesPricePolicies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "black_scholes_price_kernel";
    const std::int64_t blocks = resident_blocks(args.options.n, Policy::block_threads * Policy::items_per_thread,
                                                Policy::blocks_per_multiprocessor, multiprocessor_count);
    const LaunchConfig config{grid_1d(blocks, name), dim3(Policy::block_threads), 0, stream};
    const bool scalar_market = has_scalar_market(args.market);
    if (args.prices_only && scalar_market) {
      launch_kernel(black_scholes_price_kernel<Policy, true, true, T>, name, config, args);
    } else if (args.prices_only) {
      launch_kernel(black_scholes_price_kernel<Policy, true, false, T>, name, config, args);
    } else if (scalar_market) {
      launch_kernel(black_scholes_price_kernel<Policy, false, true, T>, name, config, args);
    } else {
      launch_kernel(black_scholes_price_kernel<Policy, false, false, T>, name, config, args);
    }
  });
}

template <class T>
void launch_implied_volatility(const ImpliedVolArgs<T>& args, int arch, int multiprocessor_count,
                               StreamHandle stream) {
  if (args.options.n == 0) return;
  ImpliedVolPolicies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "implied_volatility_kernel";
    const std::int64_t blocks = resident_blocks(args.options.n, Policy::block_threads,
                                                Policy::blocks_per_multiprocessor, multiprocessor_count);
    const LaunchConfig config{grid_1d(blocks, name), dim3(Policy::block_threads), 0, stream};
    launch_kernel(implied_volatility_kernel<Policy, T>, name, config, args);
  });
}

#define CUNUM_INSTANTIATE_BLACK_SCHOLES_LAUNCH(T)                                                          \
  template void launch_black_scholes_price(const BlackScholesPriceArgs<T>&, int, int, StreamHandle); \
  template void launch_implied_volatility(const ImpliedVolArgs<T>&, int, int, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_BLACK_SCHOLES_LAUNCH, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
