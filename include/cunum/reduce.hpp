#pragma once
// Parallel reduction: sum, sum of squares, min and max of float, double, int32 and int64.
//
// Accuracy (floating sums and sums of squares): float inputs are accumulated in
// double and rounded to float once; double inputs in double. With u = 2^-53 and D
// the longest chain of additions any element passes through,
//     |computed - exact| <= D * u * sum |x_i|   (+ one rounding to float for float),
// CUDA: each of the P launched threads adds ceil(n / P) elements in order, then
//   shuffle trees: D <= ceil(n / P) + 48, with P = 512 x min(ceil(n / (2048 x
//   elements per 16 bytes)), 4 x SMs), i.e. about 270,000 threads on an H100.
// CPU: blocks of 256 split over 16 interleaved lanes, each lane adding its 16
//   elements in order, lanes and then blocks merged pairwise, then threads in order:
//   D <= 16 + 4 + ceil(log2(n / 256 + 1)) + threads.
// Determinism: partial results are combined in a fixed order (no floating atomics),
// so a given device (or CPU thread count) returns bit-identical results run to run.
// min/max follow fmin/fmax: NaN elements are ignored unless every element is NaN.
// int32 reductions return int64; int64 sums wrap modulo 2^64.

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "cunum/core/backend.hpp"
#include "cunum/core/enum.hpp"
#include "cunum/core/stream.hpp"

namespace cunum {

#define CUNUM_REDUCE_OPS(X)        \
  X(sum, "sum")                    \
  X(sum_of_squares, "sum_of_squares") \
  X(min, "min")                    \
  X(max, "max")
CUNUM_ENUM(ReduceOp, CUNUM_REDUCE_OPS)

// Result type: int32 widens to int64 so that sums cannot overflow at any size that fits in memory.
template <class T>
using reduce_result_t = std::conditional_t<std::is_same_v<T, std::int32_t>, std::int64_t, T>;

// A reduction plan: holds the device workspace and the device's SM count, so
// repeated reductions cost one kernel launch each and query nothing. Use one Reducer
// per stream at a time. CUDA launches are programmatic dependents (sm_90+): a
// reduction issued right after other kernels, or replayed in a CUDA graph, starts
// launching during the previous kernel's tail and waits for it before reading.
template <class T>
class Reducer {
 public:
  explicit Reducer(Backend backend = Backend::automatic, StreamHandle stream = nullptr);
  ~Reducer();
  Reducer(Reducer&&) noexcept;
  Reducer& operator=(Reducer&&) noexcept;

  Backend backend() const noexcept { return backend_; }

  // Reduces data[0, n) into *result. CUDA backend: device pointers, asynchronous on
  // `stream`. CPU backend: host pointers, returns when done (stream ignored).
  // n == 0 gives 0 for sum and sum_of_squares; min and max need n >= 1.
  void reduce(ReduceOp op, const T* data, std::int64_t n, reduce_result_t<T>* result,
              StreamHandle stream = nullptr);

 private:
  struct DeviceWorkspace;
  Backend backend_;
  std::unique_ptr<DeviceWorkspace> workspace_;
};

// Synchronous convenience: `data` is in the resolved backend's memory (device
// memory for CUDA, host memory for CPU).
template <class T>
reduce_result_t<T> reduce(ReduceOp op, const T* data, std::int64_t n,
                          Backend backend = Backend::automatic, StreamHandle stream = nullptr);

// Host data; the CUDA backend copies it to the device first.
template <class T>
reduce_result_t<T> reduce(ReduceOp op, const std::vector<T>& data,
                          Backend backend = Backend::automatic);

// The seven kernels of the classic CUDA reduction tutorial (Harris, 2007), kept as
// selectable teaching variants and benchmarked beside the production Reducer.
// Sum only, CUDA only, n <= 2^31 (they index with 32 bits). The unrolled warp steps
// use __syncwarp(), since the tutorial's implicit warp synchrony is unsafe since Volta.
#define CUNUM_CLASSIC_REDUCE_KERNELS(X)                                                  \
  X(interleaved_divergent, "1 interleaved, divergent")                                   \
  X(interleaved_strided, "2 interleaved, bank conflicts")                                \
  X(sequential_addressing, "3 sequential addressing")                                    \
  X(first_add_during_load, "4 first add during load")                                    \
  X(unroll_last_warp, "5 unroll last warp")                                              \
  X(complete_unroll, "6 completely unrolled")                                            \
  X(multiple_elements_per_thread, "7 multiple elements per thread")
CUNUM_ENUM(ClassicReduceKernel, CUNUM_CLASSIC_REDUCE_KERNELS)

template <class T>
class ClassicReducer {
 public:
  ClassicReducer();
  ~ClassicReducer();
  ClassicReducer(ClassicReducer&&) noexcept;
  ClassicReducer& operator=(ClassicReducer&&) noexcept;

  // Sums device data[0, n) into device *result, asynchronously on `stream`.
  void sum(ClassicReduceKernel kernel, const T* data, std::int64_t n, T* result,
           StreamHandle stream = nullptr);

  static constexpr std::int64_t max_elements = std::int64_t{1} << 31;

 private:
  struct Scratch;
  std::unique_ptr<Scratch> scratch_;
};

}  // namespace cunum
