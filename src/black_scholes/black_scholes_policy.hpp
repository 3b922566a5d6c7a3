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

// The launch shape of one price kernel: block_threads threads, items_per_thread
// consecutive options a thread per pass (a vector of at most 16 bytes; the kernels of
// every output take 1), and min_blocks resident blocks a multiprocessor asked of the
// compiler, a register cap (1: none).
template <int BlockThreads, int ItemsPerThread, int MinBlocks>
struct BlackScholesPriceShape {
  static constexpr int block_threads = BlockThreads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int min_blocks = MinBlocks;
};

// The price kernels' shapes by precision, prices only or every output, and the cap on
// resident blocks a multiprocessor that a launch's grid is sized by.
template <class FloatPrices, class FloatAll, class DoublePrices, class DoubleAll, int BlocksPerMultiprocessor>
struct BlackScholesPricePolicyOf {
  static constexpr int blocks_per_multiprocessor = BlocksPerMultiprocessor;
  template <class T, bool kPricesOnly>
  using Shape = std::conditional_t<std::is_same_v<T, float>, std::conditional_t<kPricesOnly, FloatPrices, FloatAll>,
                                   std::conditional_t<kPricesOnly, DoublePrices, DoubleAll>>;
};

template <int BlockThreads, int BlocksPerMultiprocessor>
struct ImpliedVolPolicyOf {
  static constexpr int block_threads = BlockThreads;
  static constexpr int blocks_per_multiprocessor = BlocksPerMultiprocessor;
};

// Hopper: the double kernels are bound by their FP64 pipe and instruction issue with
// too few warps to hide latency (80 registers, 3 blocks of 256: Nsight Compute, issue
// 64% busy, 34% of cycles with no eligible warp); a register cap that leaves 16 warps
// a multiprocessor more (2 blocks of 512 at 64 registers; 3 of 256 at 80 for every
// output, against 90 uncapped) measured fastest (docs/black_scholes.md). The float
// kernels hold 48 registers uncapped.
using BlackScholesPricePolicies =
    PolicyChain<ArchPolicy<900, BlackScholesPricePolicyOf<BlackScholesPriceShape<256, 4, 1>, BlackScholesPriceShape<256, 1, 1>,
                                                          BlackScholesPriceShape<512, 1, 2>, BlackScholesPriceShape<256, 1, 3>,
                                                          8>>>;
using ImpliedVolPolicies = PolicyChain<ArchPolicy<900, ImpliedVolPolicyOf<256, 8>>>;

}  // namespace cunum::detail
