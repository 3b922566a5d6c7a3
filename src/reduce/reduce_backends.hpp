#pragma once
// Internal: the entry points each backend provides; reduce.cpp and
// classic_reducer.cpp validate and dispatch.

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

// The classic tutorial kernels: blocks of one pass over n values, and the pass
// itself (device pointers; returns the number of partial sums written to `out`).
inline unsigned int classic_pass_blocks(ClassicReduceKernel kernel, unsigned int n, int multiprocessor_count) {
  constexpr unsigned int block = ClassicReducePolicy::block_threads;
  const bool first_add = kernel != ClassicReduceKernel::interleaved_divergent &&
                         kernel != ClassicReduceKernel::interleaved_strided &&
                         kernel != ClassicReduceKernel::sequential_addressing;
  const unsigned int per_block = first_add ? 2 * block : block;
  const unsigned int blocks = (n + per_block - 1) / per_block;
  if (kernel != ClassicReduceKernel::multiple_elements_per_thread) return blocks;
  const auto cap = static_cast<unsigned int>(multiprocessor_count * ClassicReducePolicy::kernel7_blocks_per_multiprocessor);
  return blocks < cap ? blocks : cap;
}

template <class T>
unsigned int launch_classic_pass(ClassicReduceKernel kernel, const T* in, T* out, unsigned int n,
                                 int multiprocessor_count, StreamHandle stream);

}  // namespace cunum::detail
