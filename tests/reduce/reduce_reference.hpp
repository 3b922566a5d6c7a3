#pragma once
// Long-double reference reductions and the documented accuracy bound.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "cunum/core/device.hpp"
#include "cunum/reduce.hpp"
#include "src/core/device_binding.hpp"
#include "src/reduce/reduce_policy.hpp"

namespace cunum::testing {

struct ReferenceReduction {
  long double value;
  long double sum_of_magnitudes;  // sum |transform(x)|: scales the floating error bound
};

template <class T>
ReferenceReduction reference_reduce(cunum::ReduceOp op, const T* data, std::int64_t n) {
  long double value = 0.0L, magnitudes = 0.0L;
  if (op == cunum::ReduceOp::min || op == cunum::ReduceOp::max) {
    value = std::numeric_limits<long double>::quiet_NaN();
    for (std::int64_t i = 0; i < n; ++i) {
      const long double x = data[i];
      value = op == cunum::ReduceOp::min ? std::fmin(value, x) : std::fmax(value, x);
    }
    return {value, 0.0L};
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const long double x = data[i];
    const long double term = op == cunum::ReduceOp::sum ? x : x * x;
    value += term;
    magnitudes += std::fabs(term);
  }
  return {value, magnitudes};
}

// The bound stated in cunum/reduce.hpp: `depth` is the longest chain of additions
// any element goes through; float results add one final rounding to float.
template <class T>
long double floating_sum_bound(const ReferenceReduction& ref, long double depth) {
  static_assert(std::is_floating_point_v<T>);
  const long double u_accumulator = std::numeric_limits<double>::epsilon() / 2;
  long double bound = depth * u_accumulator * ref.sum_of_magnitudes;
  if (std::is_same_v<T, float>) bound += std::numeric_limits<float>::epsilon() / 2 * std::fabs(ref.value);
  return bound + std::numeric_limits<long double>::min();
}


// CPU: the depth the library's OpenMP policy gives (src/reduce/reduce_policy.hpp).
inline long double cpu_sum_depth(std::int64_t n, int threads) {
  return static_cast<long double>(cunum::detail::cpu_sum_depth(n, threads));
}

// CUDA: the threads the production kernel launches, from the library's own policy
// for the current device (src/reduce/reduce_policy.hpp).
inline std::int64_t cuda_launched_threads(std::int64_t n, int element_bytes) {
  const cunum::detail::DeviceBinding device = cunum::detail::DeviceBinding::current();
  const cunum::detail::ReduceTuning tuning = cunum::detail::reduce_tuning(device.arch);
  return static_cast<std::int64_t>(tuning.block_threads) *
         cunum::detail::reduce_grid_blocks(tuning, n, element_bytes, device.multiprocessor_count);
}
inline long double cuda_sum_depth(std::int64_t n, std::int64_t launched_threads) {
  return std::ceil(static_cast<long double>(n) / launched_threads) + 48;
}

}  // namespace cunum::testing
