#pragma once
// Internal: the semantics of each ReduceOp, shared by the CPU backend and the CUDA
// kernels so that both compute the same function.
//   Accumulator: float -> double (rounded once at the end), int32 -> int64,
//   int64 sums -> uint64 (defined wrap-around), otherwise T.
//   min/max: fmin/fmax semantics; NaN is the identity, so NaN elements are ignored
//   unless all are NaN, and the order of combination cannot change the result.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cunum/device/detail/host_device.hpp"
#include "cunum/reduce.hpp"

namespace cunum::detail {

template <class T, ReduceOp Op>
struct ReduceOperation {
  static constexpr bool is_floating = std::is_floating_point_v<T>;
  static constexpr bool is_additive = Op == ReduceOp::sum || Op == ReduceOp::sum_of_squares;

  using Accumulator = std::conditional_t<
      std::is_same_v<T, float>, double,
      std::conditional_t<std::is_same_v<T, std::int32_t>, std::int64_t,
                         std::conditional_t<std::is_same_v<T, std::int64_t> && is_additive,
                                            std::uint64_t, T>>>;
  using Result = reduce_result_t<T>;

  CUNUM_HOST_DEVICE static Accumulator identity() {
    if constexpr (is_additive) {
      return Accumulator(0);
    } else if constexpr (is_floating) {
      return std::numeric_limits<Accumulator>::quiet_NaN();
    } else if constexpr (Op == ReduceOp::min) {
      return std::numeric_limits<Accumulator>::max();
    } else {
      return std::numeric_limits<Accumulator>::lowest();
    }
  }

  CUNUM_HOST_DEVICE static Accumulator transform(T x) {
    const Accumulator a = static_cast<Accumulator>(x);
    if constexpr (Op == ReduceOp::sum_of_squares) return a * a;
    return a;
  }

  CUNUM_HOST_DEVICE static Accumulator combine(Accumulator a, Accumulator b) {
    if constexpr (is_additive) {
      return a + b;
    } else if constexpr (is_floating) {
      // IEEE minNum/maxNum: one instruction on the GPU, NaN only if both are NaN.
      if constexpr (Op == ReduceOp::min) return static_cast<Accumulator>(::fmin(a, b));
      return static_cast<Accumulator>(::fmax(a, b));
    } else {
      if constexpr (Op == ReduceOp::min) return b < a ? b : a;
      return a < b ? b : a;
    }
  }

  CUNUM_HOST_DEVICE static Result finish(Accumulator a) { return static_cast<Result>(a); }
};

}  // namespace cunum::detail
