#pragma once
// Internal: tuning policies by GPU architecture, after CUB's ChainedPolicy. A chain
// lists (oldest architecture it is tuned for, policy type) entries, newest first;
// a device runs the newest entry not newer than its compute capability, and the
// last entry serves anything older. Only sm_90 is tuned today, so the chains hold
// one entry each; a tuned entry for another architecture is one line.

#include <utility>

namespace cunum::detail {

// min_arch: compute capability x 100 (900 for sm_90), as CUB counts.
template <int MinArch, class Policy>
struct ArchPolicy {
  static constexpr int min_arch = MinArch;
  using type = Policy;
};

template <class Policy>
struct PolicyTag {
  using type = Policy;
};

template <class Newest, class... Older>
struct PolicyChain {
  // The policy of the newest architecture in the chain (the one benches sweep around).
  using newest = typename Newest::type;

  // Calls f(PolicyTag<Policy>{}) with the policy for `arch` and returns its result.
  template <class F>
  static decltype(auto) dispatch(int arch, F&& f) {
    if constexpr (sizeof...(Older) == 0) {
      return std::forward<F>(f)(PolicyTag<typename Newest::type>{});
    } else {
      if (arch >= Newest::min_arch) return std::forward<F>(f)(PolicyTag<typename Newest::type>{});
      return PolicyChain<Older...>::dispatch(arch, std::forward<F>(f));
    }
  }
};

}  // namespace cunum::detail
