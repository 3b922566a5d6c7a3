// The production reduction: the library's policy of the single-pass kernel
// (reduce_single_pass.cuh).

#include "kernels/reduce/reduce_single_pass.cuh"

namespace cunum::detail {
int reduce_cuda_max_blocks(int multiprocessor_count) {
  return multiprocessor_count * ReducePolicy::blocks_per_multiprocessor;
}

template <class T>
void reduce_cuda(ReduceOp op, const T* data, std::int64_t n, reduce_result_t<T>* result,
                 const ReduceScratch& scratch, StreamHandle stream) {
  switch (op) {
    case ReduceOp::sum: return launch_reduce<ReducePolicy, T, ReduceOp::sum>(data, n, result, scratch, stream);
    case ReduceOp::sum_of_squares:
      return launch_reduce<ReducePolicy, T, ReduceOp::sum_of_squares>(data, n, result, scratch, stream);
    case ReduceOp::min: return launch_reduce<ReducePolicy, T, ReduceOp::min>(data, n, result, scratch, stream);
    case ReduceOp::max: return launch_reduce<ReducePolicy, T, ReduceOp::max>(data, n, result, scratch, stream);
  }
}

template void reduce_cuda(ReduceOp, const float*, std::int64_t, reduce_result_t<float>*,
                          const ReduceScratch&, StreamHandle);
template void reduce_cuda(ReduceOp, const double*, std::int64_t, reduce_result_t<double>*,
                          const ReduceScratch&, StreamHandle);
template void reduce_cuda(ReduceOp, const std::int32_t*, std::int64_t,
                          reduce_result_t<std::int32_t>*, const ReduceScratch&, StreamHandle);
template void reduce_cuda(ReduceOp, const std::int64_t*, std::int64_t,
                          reduce_result_t<std::int64_t>*, const ReduceScratch&, StreamHandle);

}  // namespace cunum::detail
