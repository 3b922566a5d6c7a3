#pragma once
// Internal: the one backend interface of cunum::Reducer. reduce.cpp validates, makes
// the backend object once, at construction, and calls through it.

#include <cstdint>
#include <memory>

#include "cunum/core/placement.hpp"
#include "cunum/core/stream.hpp"
#include "cunum/reduce.hpp"

namespace cunum::detail {

// What a plan keeps between calls lives in its backend object: nothing on the CPU;
// on CUDA the device binding, the workspace and its setup fence (reduce_cuda.cpp).
template <class T>
class ReducerBackend {
 public:
  virtual ~ReducerBackend() = default;
  // Reduces data[0, n) into *result; arguments validated. CPU: host pointers,
  // synchronous, `stream` ignored. CUDA: enqueued on `stream`.
  virtual void reduce(ReduceOp op, const T* data, std::int64_t n, reduce_result_t<T>* result,
                      StreamHandle stream) = 0;
};

// OpenMP (reduce_cpu.cpp).
template <class T>
std::unique_ptr<ReducerBackend<T>> make_reduce_cpu();

// CUDA (reduce_cuda.cpp), bound to the current device (the placement's); its
// workspace comes from placement.device_memory, set up on placement.stream without
// waiting.
template <class T>
std::unique_ptr<ReducerBackend<T>> make_reduce_cuda(const Placement& placement);

}  // namespace cunum::detail
