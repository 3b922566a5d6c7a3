#include "cub_peer.hpp"

#include <cub/cub.cuh>

#include <string>

#include "cunum/core/error.hpp"
#include "src/core/instantiate.hpp"

namespace cunum::bench {

namespace {

void check_cub(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw Error(ErrorCode::cuda_failure, std::string(what) + ": " + cudaGetErrorString(status));
  }
}

// Squares in the result type, so that int32 inputs cannot overflow before widening.
template <class Result>
struct Square {
  template <class T>
  __device__ Result operator()(T x) const {
    return static_cast<Result>(x) * static_cast<Result>(x);
  }
};

// One dispatch for both phases of CUB's two-call protocol: with temp == nullptr it
// only sizes the temporary storage.
template <class T>
cudaError_t cub_reduce(ReduceOp op, void* temp, std::size_t& temp_bytes, const T* d_in,
                       reduce_result_t<T>* d_out, std::int64_t n, cudaStream_t stream) {
  using Result = reduce_result_t<T>;
  switch (op) {
    case ReduceOp::sum:
      return cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n, stream);
    case ReduceOp::sum_of_squares:
      return cub::DeviceReduce::TransformReduce(temp, temp_bytes, d_in, d_out, n, cuda::std::plus<>{},
                                                Square<Result>{}, Result{0}, stream);
    case ReduceOp::min:
      return cub::DeviceReduce::Min(temp, temp_bytes, d_in, d_out, n, stream);
    case ReduceOp::max:
      return cub::DeviceReduce::Max(temp, temp_bytes, d_in, d_out, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

template <class T>
CubReduce<T>::CubReduce(ReduceOp op, std::int64_t n, StreamHandle stream) : op_(op), n_(n) {
  check_cub(cub_reduce<T>(op, nullptr, temp_bytes_, nullptr, nullptr, n, stream),
            "sizing cub::DeviceReduce temporary storage");
  temp_ = DeviceBuffer<unsigned char>(temp_bytes_, stream);
}

template <class T>
void CubReduce<T>::run(const T* d_in, reduce_result_t<T>* d_out, StreamHandle stream) {
  check_cub(cub_reduce<T>(op_, temp_.data(), temp_bytes_, d_in, d_out, n_, stream), name(op_));
}

template <class T>
const char* CubReduce<T>::name(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::sum: return "cub::DeviceReduce::Sum";
    case ReduceOp::sum_of_squares: return "cub::DeviceReduce::TransformReduce";
    case ReduceOp::min: return "cub::DeviceReduce::Min";
    case ReduceOp::max: return "cub::DeviceReduce::Max";
  }
  return "cub::DeviceReduce";
}

#define CUNUM_INSTANTIATE_CUB_REDUCE(T) template class CubReduce<T>;
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_CUB_REDUCE, CUNUM_REDUCE_TYPES)

}  // namespace cunum::bench
