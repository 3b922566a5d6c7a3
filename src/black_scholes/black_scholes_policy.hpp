#pragma once
// Internal: the launch shapes of the Black-Scholes kernels, as policy chains by
// architecture (src/core/policy_chain.hpp). The kernels are bound by instruction
// issue, not by bytes in flight. The float kernels give each thread items_per_thread
// consecutive options per pass, read and written as one vector per array where every
// array is aligned to it: the loads, stores, address arithmetic and loop control of
// one option then serve several (docs/black_scholes.md); with every output that holds
// 89-95 registers and still ran 4-6% faster on an H100 than one option a thread. The
// double kernels take one option per thread.

#include <type_traits>

#include "src/core/policy_chain.hpp"

namespace cunum::detail {

// How a price kernel's grid is sized: as many blocks as stay resident together, each
// thread looping over the options a pass apart (prices only: loading the next option
// while it prices this one), or every block the options need, one pass each, which the
// device schedules as blocks finish.
enum class PriceGrid { resident, one_pass };

// The launch shape of one price kernel: block_threads threads, items_per_thread
// consecutive options a thread per pass (a vector of at most 16 bytes), min_blocks,
// __launch_bounds__' resident blocks a multiprocessor: a register cap (0 leaves it out,
// and ptxas then caps by its own measure, 40 registers for the float kernels of every
// output at one option a thread; 1 lets a kernel take what one block allows), and the
// grid.
template <int BlockThreads, int ItemsPerThread, int MinBlocks, PriceGrid Grid>
struct BlackScholesPriceShape {
  static constexpr int block_threads = BlockThreads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int min_blocks = MinBlocks;
  static constexpr PriceGrid grid = Grid;
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

// The implied-volatility kernel's block; its grid is one pass of blocks.
template <int BlockThreads>
struct ImpliedVolPolicyOf {
  static constexpr int block_threads = BlockThreads;
};

// Hopper (docs/black_scholes.md, "Launch shapes by precision"): the double prices-only
// kernel is bound by its FP64 pipe and instruction issue with too few warps to hide
// latency (Nsight Compute: 80 registers, 3 blocks of 256, issue 64% busy, no eligible
// warp in 34% of cycles); capped to 64 registers, 2 blocks of 512 priced 2^24 options
// 5-8% faster. With double_normal_math's exp, ln and expm1 (2026-11-28) one block of
// 1024 at the same 64 registers (the same 32 warps) priced a scalar market 4% faster
// still (82 -> 86% of copy), 4 blocks of 256 and 8 of 128 3-10% slower, 2 of 384 at 80
// registers 4% slower, one pass of blocks 11% slower. The float kernels ran 3-5% faster
// with min blocks 1 (more registers) than without; the double kernel of every output
// keeps ptxas's own cap (asking 3 blocks was 1-2% slower). The float kernels launch one
// pass of blocks: on an H100 at 2^24 options 4-8% faster than the resident grid (call +
// put 88.6-91.7 -> 94.1-97.7% of copy); the double kernels, whose loads ahead need
// passes, were 2-6% slower so.
using BlackScholesPricePolicies = PolicyChain<ArchPolicy<
    900, BlackScholesPricePolicyOf<BlackScholesPriceShape<256, 4, 1, PriceGrid::one_pass>,
                                   BlackScholesPriceShape<256, 4, 1, PriceGrid::one_pass>,
                                   BlackScholesPriceShape<1024, 1, 1, PriceGrid::resident>,
                                   BlackScholesPriceShape<256, 1, 0, PriceGrid::resident>, 8>>>;
using ImpliedVolPolicies = PolicyChain<ArchPolicy<900, ImpliedVolPolicyOf<256>>>;

}  // namespace cunum::detail
