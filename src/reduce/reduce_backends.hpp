#pragma once
// Internal: the entry points each backend provides; reduce.cpp validates and
// dispatches.

#include <cstdint>

#include "cunum/reduce.hpp"
#include "src/reduce/reduce_policy.hpp"

namespace cunum::detail {

// OpenMP: host pointers, synchronous.
template <class T>
reduce_result_t<T> reduce_cpu(ReduceOp op, const T* data, std::int64_t n);

// Device scratch of a CUDA reduction and what the launch needs of its device, all
// fixed when a plan is made, so that a call queries nothing before it launches.
struct ReduceScratch {
  void* partials = nullptr;             // one 8-byte slot per block the launch may use
  unsigned int* blocks_done = nullptr;  // zeroed; every launch leaves it zeroed again
  int multiprocessor_count = 0;
  int arch = 0;                         // compute capability x 100: picks the policy
};

// CUDA production kernel. `scratch.partials` holds at least
// multiprocessor_count x reduce_tuning(arch).blocks_per_multiprocessor slots.
template <class T>
void reduce_cuda(ReduceOp op, const T* data, std::int64_t n, reduce_result_t<T>* result,
                 const ReduceScratch& scratch, StreamHandle stream);

}  // namespace cunum::detail
