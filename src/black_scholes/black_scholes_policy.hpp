#pragma once
// Internal: the launch shapes of the Black-Scholes kernels, as policy chains by
// architecture (src/core/policy_chain.hpp). Pricing reads items_per_thread options per
// thread before computing any. The kernels are bound by instruction issue, not by
// bytes in flight: on the H100, 4 items per thread lowered the occupancy (64
// registers) and the throughput of most cases (docs/black_scholes.md).

#include "src/core/policy_chain.hpp"

namespace cunum::detail {

template <int BlockThreads, int ItemsPerThread, int BlocksPerMultiprocessor>
struct BlackScholesPricePolicyOf {
  static constexpr int block_threads = BlockThreads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int blocks_per_multiprocessor = BlocksPerMultiprocessor;
};

template <int BlockThreads, int BlocksPerMultiprocessor>
struct ImpliedVolPolicyOf {
  static constexpr int block_threads = BlockThreads;
  static constexpr int blocks_per_multiprocessor = BlocksPerMultiprocessor;
};

using BlackScholesPricePolicies = PolicyChain<ArchPolicy<900, BlackScholesPricePolicyOf<256, 1, 8>>>;
using ImpliedVolPolicies = PolicyChain<ArchPolicy<900, ImpliedVolPolicyOf<256, 8>>>;

}  // namespace cunum::detail
