#pragma once
// Internal: the launch shapes of the Black-Scholes kernels, as policy chains by
// architecture (src/core/policy_chain.hpp). The kernels are bound by instruction
// issue, not by bytes in flight. The prices-only kernels give each thread
// items_per_thread consecutive options per pass, read and written as one vector per
// array where every array is aligned to it: the loads, stores, address arithmetic and
// loop control of one option then serve several (docs/black_scholes.md). The kernels
// of every output take one option per thread (twelve outputs a vector each would hold
// too many registers).

#include <type_traits>

#include "src/core/policy_chain.hpp"

namespace cunum::detail {

// FloatPricesItems, DoublePricesItems: options per thread of the prices-only kernels,
// a vector of at most 16 bytes (1, 2 or 4 in float; 1 or 2 in double).
template <int BlockThreads, int FloatPricesItems, int DoublePricesItems, int BlocksPerMultiprocessor>
struct BlackScholesPricePolicyOf {
  static constexpr int block_threads = BlockThreads;
  static constexpr int blocks_per_multiprocessor = BlocksPerMultiprocessor;
  template <class T, bool kPricesOnly>
  static constexpr int items_per_thread = !kPricesOnly ? 1 : (std::is_same_v<T, float> ? FloatPricesItems
                                                                                       : DoublePricesItems);
};

template <int BlockThreads, int BlocksPerMultiprocessor>
struct ImpliedVolPolicyOf {
  static constexpr int block_threads = BlockThreads;
  static constexpr int blocks_per_multiprocessor = BlocksPerMultiprocessor;
};

using BlackScholesPricePolicies = PolicyChain<ArchPolicy<900, BlackScholesPricePolicyOf<256, 4, 1, 8>>>;
using ImpliedVolPolicies = PolicyChain<ArchPolicy<900, ImpliedVolPolicyOf<256, 8>>>;

}  // namespace cunum::detail
