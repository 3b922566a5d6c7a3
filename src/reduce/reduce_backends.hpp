#pragma once
// Internal: the entry points each backend provides; reduce.cpp validates and dispatches.

#include <cstdint>

#include "cunum/reduce.hpp"

namespace cunum::detail {

// OpenMP: host pointers, synchronous.
template <class T>
reduce_result_t<T> reduce_cpu(ReduceOp op, const T* data, std::int64_t n);

// CUDA production kernel. `partials` holds at least reduce_cuda_max_blocks() 8-byte
// slots; `blocks_done` is a zeroed counter that the kernel leaves zeroed again.
int reduce_cuda_max_blocks();
template <class T>
void reduce_cuda(ReduceOp op, const T* data, std::int64_t n, reduce_result_t<T>* result,
                 void* partials, unsigned int* blocks_done, StreamHandle stream);

}  // namespace cunum::detail
