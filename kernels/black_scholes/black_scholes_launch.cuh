#pragma once
// Internal: the pricing launcher's definition, a template on the policy chain:
// kernels/black_scholes/black_scholes.cu instantiates it with the library's chain, and
// black_scholes_candidates.cu with the chains of the formulations under measurement.

#include "kernels/black_scholes/black_scholes_kernel.cuh"
#include "kernels/common/launch.cuh"
#include "src/core/launch_shape.hpp"

namespace cunum::detail {

// The policy of `arch`, as many blocks as fill the device, never more than the
// options need; nothing when there are no options.
template <class Policies, class T>
void launch_black_scholes_price_with(const BlackScholesPriceArgs<T>& args, int arch, int multiprocessor_count,
                                     StreamHandle stream) {
  if (args.options.n == 0) return;
  Policies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "black_scholes_price_kernel";
    const std::int64_t blocks = resident_blocks(args.options.n, Policy::block_threads * Policy::items_per_thread,
                                                Policy::blocks_per_multiprocessor, multiprocessor_count);
    const LaunchConfig config{grid_1d(blocks, name), dim3(Policy::block_threads), 0, stream};
    if (args.prices_only) {
      launch_kernel(black_scholes_price_kernel<Policy, true, T>, name, config, args);
    } else {
      launch_kernel(black_scholes_price_kernel<Policy, false, T>, name, config, args);
    }
  });
}

}  // namespace cunum::detail
