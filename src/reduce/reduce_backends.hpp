#pragma once
// Internal: the entry points each backend provides; reduce.cpp validates and dispatches.

#include <cstdint>

#include "cunum/reduce.hpp"

namespace cunum::detail {

// OpenMP: host pointers, synchronous.
template <class T>
reduce_result_t<T> reduce_cpu(ReduceOp op, const T* data, std::int64_t n);

// Device scratch of a CUDA reduction and the device's SM count, both fixed when a
// plan is made, so that a call queries nothing before it launches.
struct ReduceScratch {
  void* partials = nullptr;             // one 8-byte slot per block the launch may use
  unsigned int* blocks_done = nullptr;  // zeroed; every launch leaves it zeroed again
  int multiprocessor_count = 0;
};

// CUDA production kernel. `scratch.partials` holds at least
// reduce_cuda_max_blocks(scratch.multiprocessor_count) slots.
int reduce_cuda_max_blocks(int multiprocessor_count);
template <class T>
void reduce_cuda(ReduceOp op, const T* data, std::int64_t n, reduce_result_t<T>* result,
                 const ReduceScratch& scratch, StreamHandle stream);

}  // namespace cunum::detail
