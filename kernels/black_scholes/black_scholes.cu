// The Black-Scholes launchers: the kernels of black_scholes_kernel.cuh with the
// policy of the device's architecture (src/black_scholes/black_scholes_policy.hpp),
// never more blocks than the options need.

#include <algorithm>

#include "kernels/black_scholes/black_scholes_kernel.cuh"
#include "kernels/black_scholes/black_scholes_launch.hpp"
#include "kernels/common/launch.cuh"
#include "src/black_scholes/black_scholes_policy.hpp"
#include "src/core/check.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/launch_shape.hpp"

namespace cunum::detail {

// One pricing kernel, its grid as its shape says (PriceGrid): one pass of blocks, or as
// many blocks as stay resident together, never more than the options need. Resident:
// the policy's blocks per multiprocessor, or fewer where the kernel's registers allow
// fewer (asked of the occupancy API once per kernel), so that no block waits for a
// second wave.
template <class Policy, bool kPricesOnly, bool kScalarMarket, class T>
void launch_price_kernel(const BlackScholesPriceArgs<T>& args, int multiprocessor_count, StreamHandle stream) {
  using Shape = typename Policy::template Shape<T, kPricesOnly>;
  constexpr auto kernel = black_scholes_price_kernel<Shape, kPricesOnly, kScalarMarket, T>;
  const char* name = "black_scholes_price_kernel";
  const std::int64_t options_per_block = std::int64_t{Shape::block_threads} * Shape::items_per_thread;
  std::int64_t blocks = 0;
  if constexpr (Shape::grid == PriceGrid::resident) {
    static const int resident_per_multiprocessor =
        resident_blocks_per_multiprocessor(kernel, Shape::block_threads, Policy::blocks_per_multiprocessor);
    blocks = resident_blocks(args.options.n, options_per_block, resident_per_multiprocessor, multiprocessor_count);
  } else {
    blocks = one_pass_blocks(args.options.n, options_per_block);
  }
  launch_kernel(kernel, name, LaunchConfig{grid_1d(blocks, name), dim3(Shape::block_threads), 0, stream}, args);
}

template <class T>
void launch_black_scholes_price(const BlackScholesPriceArgs<T>& args, int arch, int multiprocessor_count,
                                StreamHandle stream) {
  if (args.options.n == 0) return;
  BlackScholesPricePolicies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const bool scalar_market = has_scalar_market(args.market);
    if (args.prices_only && scalar_market) {
      launch_price_kernel<Policy, true, true>(args, multiprocessor_count, stream);
    } else if (args.prices_only) {
      launch_price_kernel<Policy, true, false>(args, multiprocessor_count, stream);
    } else if (scalar_market) {
      launch_price_kernel<Policy, false, true>(args, multiprocessor_count, stream);
    } else {
      launch_price_kernel<Policy, false, false>(args, multiprocessor_count, stream);
    }
  });
}

template <class T>
void launch_implied_volatility(const ImpliedVolArgs<T>& args, int arch, StreamHandle stream) {
  if (args.options.n == 0) return;
  ImpliedVolPolicies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "implied_volatility_kernel";
    // One pass of blocks: on an H100 at 2^24 options 8% (float) and 17% (double) faster
    // than as many blocks as the policy asked resident (docs/black_scholes.md).
    const std::int64_t blocks = one_pass_blocks(args.options.n, Policy::block_threads);
    const LaunchConfig config{grid_1d(blocks, name), dim3(Policy::block_threads), 0, stream};
    launch_kernel(implied_volatility_kernel<Policy, T>, name, config, args);
  });
}

#define CUNUM_INSTANTIATE_BLACK_SCHOLES_LAUNCH(T)                                                          \
  template void launch_black_scholes_price(const BlackScholesPriceArgs<T>&, int, int, StreamHandle); \
  template void launch_implied_volatility(const ImpliedVolArgs<T>&, int, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_BLACK_SCHOLES_LAUNCH, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
