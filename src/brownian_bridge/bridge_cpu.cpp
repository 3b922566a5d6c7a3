// OpenMP backend: each thread runs the compiled strategy for whole paths, with a
// private stack of stack_size() d-vectors, in the precision of T.

#include <omp.h>

#include <cmath>
#include <vector>

#include "brownian_bridge/bridge_backends.hpp"

namespace cunum::detail {

template <class T>
void bridge_generate_cpu(const BrownianBridge& bridge, bool increments, std::int64_t paths,
                         const T* z, T* output, BridgeLayout z_layout, BridgeLayout output_layout) {
  const int d = bridge.dimension();
  const std::int64_t n = bridge.interior_points();
  const std::int64_t z_records = bridge.z_records();
  const std::int64_t out_records = bridge.output_records();
  const auto& times = bridge.times();
  const auto& steps = bridge.steps();
  const std::vector<T> factor(bridge.factor().begin(), bridge.factor().end());
  const std::vector<T> start(bridge.start().begin(), bridge.start().end());
  const bool fixed = bridge.fixed_end();
  std::vector<T> end_value(static_cast<std::size_t>(d));
  if (fixed) end_value.assign(bridge.end_value()->begin(), bridge.end_value()->end());
  const T end_std_dev = static_cast<T>(std::sqrt(times.back() - times.front()));

  auto z_at = [&](std::int64_t p, std::int64_t record, int j) {
    return z[bridge_element(z_layout, paths, z_records, d, p, record, j)];
  };
  auto out_at = [&](std::int64_t p, std::int64_t record, int j) -> T& {
    return output[bridge_element(output_layout, paths, out_records, d, p, record, j)];
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
    for (std::int64_t p = 0; p < paths; ++p) {
      T* start_slot = &stack[BrownianBridge::start_slot * d];
      T* end_slot = &stack[BrownianBridge::end_slot * d];
      if (!fixed) correlate(p, 0);
      for (int j = 0; j < d; ++j) {
        start_slot[j] = start[j];
        end_slot[j] = fixed ? end_value[j] : start[j] + end_std_dev * correlated[j];
        out_at(p, n, j) = end_slot[j];
      }
      for (const BridgeStep& step : steps) {
        correlate(p, step.z_index);
        const T wl = static_cast<T>(step.left_weight), wr = static_cast<T>(step.right_weight);
        const T sd = static_cast<T>(step.std_dev);
        for (int j = 0; j < d; ++j) {
          const T x = wl * stack[step.left_slot * d + j] + wr * stack[step.right_slot * d + j] +
                      sd * correlated[j];
          out_at(p, step.output_index - 1, j) = x;
          if (step.store_slot != BridgeStep::no_store) stack[step.store_slot * d + j] = x;
        }
      }
      if (increments) {
        // Backwards, so each difference reads a point not yet overwritten.
        for (int j = 0; j < d; ++j) {
          for (std::int64_t i = n + 1; i >= 1; --i) {
            const T previous = i > 1 ? out_at(p, i - 2, j) : start[j];
            const T dt = static_cast<T>(times[i] - times[i - 1]);
            out_at(p, i - 1, j) = (out_at(p, i - 1, j) - previous) / dt;
          }
        }
      }
    }
  }
}

template void bridge_generate_cpu(const BrownianBridge&, bool, std::int64_t, const float*, float*,
                                  BridgeLayout, BridgeLayout);
template void bridge_generate_cpu(const BrownianBridge&, bool, std::int64_t, const double*,
                                  double*, BridgeLayout, BridgeLayout);

}  // namespace cunum::detail
