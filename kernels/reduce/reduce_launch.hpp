#pragma once
// Internal: the launcher of the reduce kernels (kernels/reduce/reduce.cu), plain C++
// for the CUDA backend (src/reduce/reduce_cuda.cpp) and the bench.

#include <cstdint>

#include "cunum/core/stream.hpp"
#include "cunum/reduce.hpp"

namespace cunum::detail {

// Device scratch of a CUDA reduction and what the launch needs of its device, all
// fixed when a plan is made, so that a call queries nothing before it launches.
struct ReduceScratch {
  void* partials = nullptr;             // one 8-byte slot per block the launch may use
  unsigned int* blocks_done = nullptr;  // zeroed; every launch leaves it zeroed again
  int multiprocessor_count = 0;
  int arch = 0;                         // compute capability x 100: picks the policy
};

// One launch of the single-pass kernel with the policy of `scratch.arch`
// (src/reduce/reduce_policy.hpp). `scratch.partials` holds at least
// multiprocessor_count x reduce_tuning(arch).blocks_per_multiprocessor slots.
template <class T>
void launch_reduce(ReduceOp op, const T* data, std::int64_t n, reduce_result_t<T>* result,
                   const ReduceScratch& scratch, StreamHandle stream);

}  // namespace cunum::detail
