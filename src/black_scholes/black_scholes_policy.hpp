#pragma once
// Internal: the launch shapes of the Black-Scholes kernels, as policy chains by
// architecture (src/core/policy_chain.hpp). Pricing reads items_per_thread options per
// thread before computing any. The kernels are bound by instruction issue, not by
// bytes in flight: on the H100, 4 items per thread lowered the occupancy (64
// registers) and the throughput of most cases (docs/black_scholes.md). A pricing
// policy also names the formulation of the arithmetic (bs::FormulationOf).

#include "src/black_scholes/black_scholes_math.hpp"
#include "src/core/policy_chain.hpp"

namespace cunum::detail {

template <int BlockThreads, int ItemsPerThread, int BlocksPerMultiprocessor,
          class Formulation = bs::LibraryFormulation>
struct BlackScholesPricePolicyOf {
  static constexpr int block_threads = BlockThreads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int blocks_per_multiprocessor = BlocksPerMultiprocessor;
  using formulation = Formulation;
};

template <int BlockThreads, int BlocksPerMultiprocessor>
struct ImpliedVolPolicyOf {
  static constexpr int block_threads = BlockThreads;
  static constexpr int blocks_per_multiprocessor = BlocksPerMultiprocessor;
};

using BlackScholesPricePolicies = PolicyChain<ArchPolicy<900, BlackScholesPricePolicyOf<256, 1, 8>>>;
using ImpliedVolPolicies = PolicyChain<ArchPolicy<900, ImpliedVolPolicyOf<256, 8>>>;

// The pricing formulations under measurement (issue 31): the kernels of each are built
// beside the library's (launch_black_scholes_price_candidate), so that one bench run
// times them all and the GPU suite holds each to the oracle. The library's comes first.
enum class BlackScholesCandidate {
  library,                          // BlackScholesPricePolicies as it is
  fewer_exponentials,               // bs::DensityForm::shared and bs::IntrinsicForm::difference
  minimax_mills,                    // the Mills ratio by bs::mills_ratio_minimax
  minimax_mills_fewer_exponentials, // both
};
inline constexpr BlackScholesCandidate kBlackScholesCandidates[] = {
    BlackScholesCandidate::library, BlackScholesCandidate::fewer_exponentials, BlackScholesCandidate::minimax_mills,
    BlackScholesCandidate::minimax_mills_fewer_exponentials};

inline const char* to_string(BlackScholesCandidate candidate) {
  switch (candidate) {
    case BlackScholesCandidate::library: return "library: erfcx, phi per tail, expm1 intrinsic";
    case BlackScholesCandidate::fewer_exponentials: return "erfcx, shared phi, difference intrinsic";
    case BlackScholesCandidate::minimax_mills: return "minimax Mills, phi per tail, expm1 intrinsic";
    case BlackScholesCandidate::minimax_mills_fewer_exponentials: return "minimax Mills, shared phi, difference intrinsic";
  }
  return "unknown";
}

// Calls f(PolicyTag<Formulation>) with the formulation of `candidate`; returns false,
// calling nothing, where the candidate has no form in T.
template <class T, class F>
bool with_black_scholes_candidate(BlackScholesCandidate candidate, F&& f) {
  using bs::DensityForm;
  using bs::FormulationOf;
  using bs::IntrinsicForm;
  using bs::MillsRatioForm;
  switch (candidate) {
    case BlackScholesCandidate::library:
      f(PolicyTag<bs::LibraryFormulation>{});
      return true;
    case BlackScholesCandidate::fewer_exponentials:
      f(PolicyTag<FormulationOf<MillsRatioForm::erfcx, IntrinsicForm::difference, DensityForm::shared>>{});
      return true;
    case BlackScholesCandidate::minimax_mills:
      f(PolicyTag<FormulationOf<MillsRatioForm::minimax, IntrinsicForm::expm1, DensityForm::per_tail>>{});
      return true;
    case BlackScholesCandidate::minimax_mills_fewer_exponentials:
      f(PolicyTag<FormulationOf<MillsRatioForm::minimax, IntrinsicForm::difference, DensityForm::shared>>{});
      return true;
  }
  return false;
}

}  // namespace cunum::detail
