// OpenMP backend: each thread runs the compiled strategy for whole paths, with a
// private stack of stack_size() d-vectors, in the precision of T. Increments are
// written by the steps that complete them (see BridgeStep), in the same pass.

#include <omp.h>

#include <cmath>
#include <vector>

#include "brownian_bridge/bridge_backends.hpp"

namespace cunum::detail {

template <class T>
void bridge_generate_cpu(const BrownianBridge& bridge, bool increments, std::int64_t count,
                         HostPaths<const T> z, HostPaths<T> output) {
  const int d = bridge.dimension();
  const std::int64_t n = bridge.interior_points();
  const std::int64_t z_records = bridge.z_records();
  const std::int64_t out_records = bridge.output_records();
  const auto& steps = bridge.steps();
  const std::vector<T> factor(bridge.factor().begin(), bridge.factor().end());
  const std::vector<T> start(bridge.start().begin(), bridge.start().end());
  const bool fixed = bridge.fixed_end();
  std::vector<T> end_value(static_cast<std::size_t>(d));
  if (fixed) end_value.assign(bridge.end_value()->begin(), bridge.end_value()->end());
  const T end_std_dev = static_cast<T>(std::sqrt(bridge.times().back() - bridge.times().front()));

  auto z_at = [&](std::int64_t p, std::int64_t record, int j) {
    return z.data[bridge_element(z.layout, z.paths, z_records, d, z.first + p, record, j)];
  };
  auto out_at = [&](std::int64_t p, std::int64_t record, int j) -> T& {
    return output.data[bridge_element(output.layout, output.paths, out_records, d, output.first + p, record, j)];
  };

#pragma omp parallel
  {
    std::vector<T> stack(static_cast<std::size_t>(bridge.stack_size()) * d);
    std::vector<T> correlated(static_cast<std::size_t>(d));
    // C z for Z record `record` of path p (C lower triangular).
    auto correlate = [&](std::int64_t p, std::int64_t record) {
      for (int i = 0; i < d; ++i) {
        T sum = 0;
        for (int j = 0; j <= i; ++j) sum += factor[i * d + j] * z_at(p, record, j);
        correlated[i] = sum;
      }
    };
#pragma omp for schedule(static)
    for (std::int64_t p = 0; p < count; ++p) {
      T* start_slot = &stack[BrownianBridge::start_slot * d];
      T* end_slot = &stack[BrownianBridge::end_slot * d];
      if (!fixed) correlate(p, 0);
      for (int j = 0; j < d; ++j) {
        start_slot[j] = start[j];
        end_slot[j] = fixed ? end_value[j] : start[j] + end_std_dev * correlated[j];
        if (!increments) out_at(p, n, j) = end_slot[j];
      }
      for (const BridgeStep& step : steps) {
        correlate(p, step.z_index);
        const T wl = static_cast<T>(step.left_weight), wr = static_cast<T>(step.right_weight);
        const T sd = static_cast<T>(step.std_dev);
        const T inverse_left = static_cast<T>(step.inverse_left_gap);
        const T inverse_right = static_cast<T>(step.inverse_right_gap);
        for (int j = 0; j < d; ++j) {
          const T left = stack[step.left_slot * d + j], right = stack[step.right_slot * d + j];
          const T x = wl * left + wr * right + sd * correlated[j];
          if (increments) {
            if (step.left_increment) out_at(p, step.output_index - 1, j) = (x - left) * inverse_left;
            if (step.right_increment) out_at(p, step.output_index, j) = (right - x) * inverse_right;
          } else {
            out_at(p, step.output_index - 1, j) = x;
          }
          if (step.store_slot != BridgeStep::no_store) stack[step.store_slot * d + j] = x;
        }
      }
    }
  }
}

template void bridge_generate_cpu(const BrownianBridge&, bool, std::int64_t, HostPaths<const float>,
                                  HostPaths<float>);
template void bridge_generate_cpu(const BrownianBridge&, bool, std::int64_t, HostPaths<const double>,
                                  HostPaths<double>);

}  // namespace cunum::detail
