// GPU strategies 4 and 5: the variants the policy names, chosen per problem
// (bridge_shared_kernel.cuh holds the kernel).

#include "kernels/brownian_bridge/bridge_shared_kernel.cuh"
#include "kernels/brownian_bridge/brownian_bridge_launch.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/instantiate.hpp"

namespace cunum::detail {
namespace {

template <class T, int D>
void launch_for_dimension(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args,
                          BridgeStrategy which, StreamHandle stream, BridgeKernelReport* describe) {
  BridgeSharedPolicies::dispatch(architecture(device_properties()), [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    constexpr int threads = Policy::block_threads;
    constexpr int min_blocks = Policy::blocks_per_multiprocessor;
    constexpr int P = shared_prefetch_depth<D>();
    constexpr int V = vector_paths<T>(D);
    if constexpr (V > 1) {
      // V consecutive paths per thread in one vector access, where the arrays allow.
      constexpr int PV = Policy::vector_prefetch_depth;
      const bool vector = bridge_vector_io_allowed<T, V>(args) &&
                          bridge_shared_bytes<T>(strategy.stack_size, args.dimension,
                                                 BridgeLimits::min_shared_block_threads, V) <=
                              device_properties().shared_memory_per_block_optin_bytes;
      if (vector) {
        switch (which) {
          case BridgeStrategy::shared_memory_reuse:
            return launch_bridge_shared_variant<T, D, V, true, 1, threads, min_blocks>(strategy, args, stream,
                                                                                       describe);
          case BridgeStrategy::shared_memory_reuse_prefetch:
            return launch_bridge_shared_variant<T, D, V, true, PV, threads, min_blocks>(strategy, args, stream,
                                                                                        describe);
          default:
            return launch_bridge_shared_variant<T, D, V, false, PV, threads, min_blocks>(strategy, args, stream,
                                                                                         describe);
        }
      }
    }
    switch (which) {
      case BridgeStrategy::shared_memory_reuse:
        return launch_bridge_shared_variant<T, D, 1, true, 1, threads, min_blocks>(strategy, args, stream, describe);
      case BridgeStrategy::shared_memory_reuse_prefetch:
        return launch_bridge_shared_variant<T, D, 1, true, P, threads, min_blocks>(strategy, args, stream, describe);
      default:
        return launch_bridge_shared_variant<T, D, 1, false, P, threads, min_blocks>(strategy, args, stream, describe);
    }
  });
}

}  // namespace

template <class T>
void launch_bridge_shared(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args,
                          BridgeStrategy which, StreamHandle stream, BridgeKernelReport* describe) {
  switch (args.dimension) {
    case 1: return launch_for_dimension<T, 1>(strategy, args, which, stream, describe);
    case 2: return launch_for_dimension<T, 2>(strategy, args, which, stream, describe);
    case 3: return launch_for_dimension<T, 3>(strategy, args, which, stream, describe);
    case 4: return launch_for_dimension<T, 4>(strategy, args, which, stream, describe);
    default:
      return launch_for_dimension<T, BridgeLimits::max_register_dimension>(strategy, args, which, stream, describe);
  }
}

#define CUNUM_INSTANTIATE_BRIDGE_SHARED(T)                                                                \
  template std::size_t bridge_shared_bytes<T>(std::uint32_t, int, int, int);                             \
  template void launch_bridge_shared(const BridgeDeviceStrategy&, const BridgeArgs<T>&, BridgeStrategy, \
                                     StreamHandle, BridgeKernelReport*);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_BRIDGE_SHARED, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
