// The fused quasi-random bridge: the variant the policy names, per dimension and
// Sobol word size (bridge_sobol_kernel.cuh holds the kernel).

#include "kernels/brownian_bridge/bridge_sobol_kernel.cuh"
#include "kernels/brownian_bridge/brownian_bridge_launch.hpp"
#include "src/random/random_internal.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/instantiate.hpp"

namespace cunum::detail {
namespace {

// V paths per thread when their tables and stack fit in shared memory, else one.
template <class T, int D, class Word>
void launch_for_dimension(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args, std::uint64_t offset,
                          const DeviceSobolTables& tables, StreamHandle stream, BridgeKernelReport* describe) {
  BridgeSobolPolicies::dispatch(architecture(device_properties()), [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    constexpr int threads = Policy::block_threads;
    constexpr int min_blocks = Policy::blocks_per_multiprocessor;
    constexpr int V = sobol_paths_per_thread<Policy>(D);
    if constexpr (V > 1) {
      const std::size_t bytes = bridge_sobol_shared_bytes<T>(
          strategy.stack_size, args.dimension, args.z_records * args.dimension, sizeof(Word), threads, V);
      if (bytes <= device_properties().shared_memory_per_block_optin_bytes) {
        return launch_bridge_sobol_variant<T, D, V, Word, threads, min_blocks>(strategy, args, offset, tables,
                                                                               stream, describe);
      }
    }
    launch_bridge_sobol_variant<T, D, 1, Word, threads, min_blocks>(strategy, args, offset, tables, stream,
                                                                    describe);
  });
}

template <class T, class Word>
void launch_for_word(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args, std::uint64_t offset,
                     const DeviceSobolTables& tables, StreamHandle stream, BridgeKernelReport* describe) {
  switch (args.dimension) {
    case 1: return launch_for_dimension<T, 1, Word>(strategy, args, offset, tables, stream, describe);
    case 2: return launch_for_dimension<T, 2, Word>(strategy, args, offset, tables, stream, describe);
    case 3: return launch_for_dimension<T, 3, Word>(strategy, args, offset, tables, stream, describe);
    case 4: return launch_for_dimension<T, 4, Word>(strategy, args, offset, tables, stream, describe);
    default:
      return launch_for_dimension<T, BridgeLimits::max_register_dimension, Word>(strategy, args, offset, tables,
                                                                                  stream, describe);
  }
}

}  // namespace

template <class T>
std::size_t sobol_minimum_shared_bytes(const BrownianBridge& bridge, bool wide_words) {
  return BridgeSobolPolicies::dispatch(architecture(device_properties()), [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    return bridge_sobol_shared_bytes<T>(bridge.stack_size(), bridge.dimension(),
                                        bridge.z_records() * bridge.dimension(), wide_words ? 8 : 4,
                                        Policy::block_threads, 1);
  });
}

template <class T>
void launch_bridge_sobol(const BridgeDeviceStrategy& strategy, const BridgeArgs<T>& args, SobolSequence sequence,
                         std::uint64_t offset, const DeviceSobolTables& tables, StreamHandle stream,
                         BridgeKernelReport* describe) {
  if (is_64_bit(sequence)) {
    return launch_for_word<T, unsigned long long>(strategy, args, offset, tables, stream, describe);
  }
  launch_for_word<T, unsigned int>(strategy, args, offset, tables, stream, describe);
}

#define CUNUM_INSTANTIATE_BRIDGE_SOBOL(T)                                                                  \
  template std::size_t sobol_minimum_shared_bytes<T>(const BrownianBridge&, bool);                        \
  template void launch_bridge_sobol(const BridgeDeviceStrategy&, const BridgeArgs<T>&, SobolSequence,    \
                                    std::uint64_t, const DeviceSobolTables&, StreamHandle, BridgeKernelReport*);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_BRIDGE_SOBOL, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
