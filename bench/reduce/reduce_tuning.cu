#include "reduce_tuning.hpp"

#include "reduce/reduce_single_pass.cuh"

#include <type_traits>

namespace cunum::bench {
namespace {

template <int Threads, int BlocksPerSM, int Loads>
ReduceVariant variant() {
  using Policy = detail::ReducePolicyOf<Threads, BlocksPerSM, Loads>;
  return {"t" + std::to_string(Threads) + " x" + std::to_string(BlocksPerSM) + "/SM, " + std::to_string(Loads) +
              " loads in flight",
          BlocksPerSM, &detail::launch_reduce<Policy, float, ReduceOp::sum>};
}

__global__ void empty_kernel() {}

}  // namespace

// The first is the library's policy; the others vary one knob.
std::vector<ReduceVariant> reduce_sum_variants() {
  static_assert(std::is_same_v<detail::ReducePolicy, detail::ReducePolicyOf<512, 4, 4>>,
                "the sweep starts from the library's policy");
  return {variant<512, 4, 4>(),  variant<512, 4, 2>(),  variant<512, 4, 8>(),  variant<512, 2, 4>(),
          variant<256, 8, 4>(),  variant<1024, 2, 4>(), variant<1024, 2, 2>(), variant<128, 16, 4>()};
}

void launch_empty_kernel(StreamHandle stream) {
  empty_kernel<<<1, 32, 0, stream>>>();
  CUNUM_CHECK_LAUNCH("empty_kernel");
}

}  // namespace cunum::bench
