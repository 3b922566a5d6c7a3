#pragma once
// The peer a user would otherwise reach for: cub::DeviceReduce, behind a plain C++
// interface so that the bench's host code needs no CUDA headers.

#include <cstddef>
#include <cstdint>

#include "cunum/core/device_buffer.hpp"
#include "cunum/reduce.hpp"

namespace cunum::bench {

// One CUB reduction of a fixed op and size, its temporary storage allocated up front
// so that runs time the reduction alone. The output type matches cunum's
// (int32 sums into int64); floating sums accumulate in T, CUB's default.
template <class T>
class CubReduce {
 public:
  CubReduce(ReduceOp op, std::int64_t n, StreamHandle stream);

  // Enqueues the reduction of d_in[0, n) into the device scalar *d_out on `stream`.
  void run(const T* d_in, reduce_result_t<T>* d_out, StreamHandle stream);

  // The CUB entry point, e.g. "cub::DeviceReduce::Sum".
  static const char* name(ReduceOp op) noexcept;

 private:
  ReduceOp op_;
  std::int64_t n_;
  std::size_t temp_bytes_ = 0;
  DeviceBuffer<unsigned char> temp_;
};

}  // namespace cunum::bench
