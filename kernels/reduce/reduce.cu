// The reduce launcher: the single-pass kernel (reduce_single_pass_kernel.cuh) with
// the policy of the device's architecture (src/reduce/reduce_policy.hpp).

#include "kernels/reduce/reduce_launch.hpp"
#include "kernels/reduce/reduce_single_pass_kernel.cuh"
#include "src/core/instantiate.hpp"

namespace cunum::detail {

template <class T>
void launch_reduce(ReduceOp op, const T* data, std::int64_t n, reduce_result_t<T>* result,
                   const ReduceScratch& scratch, StreamHandle stream) {
  ReducePolicies::dispatch(scratch.arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    switch (op) {
      case ReduceOp::sum: return launch_single_pass<Policy, T, ReduceOp::sum>(data, n, result, scratch, stream);
      case ReduceOp::sum_of_squares:
        return launch_single_pass<Policy, T, ReduceOp::sum_of_squares>(data, n, result, scratch, stream);
      case ReduceOp::min: return launch_single_pass<Policy, T, ReduceOp::min>(data, n, result, scratch, stream);
      case ReduceOp::max: return launch_single_pass<Policy, T, ReduceOp::max>(data, n, result, scratch, stream);
    }
  });
}

#define CUNUM_INSTANTIATE_LAUNCH_REDUCE(T)                                                                  \
  template void launch_reduce(ReduceOp, const T*, std::int64_t, reduce_result_t<T>*, const ReduceScratch&, \
                              StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_LAUNCH_REDUCE, CUNUM_REDUCE_TYPES)

}  // namespace cunum::detail
