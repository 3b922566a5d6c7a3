// OpenMP backend: the compiled strategy run over blocks of consecutive paths. Each
// thread takes a block at a time and runs every step for all its paths, so each
// step is a short loop over paths that the compiler vectorizes (unit stride in the
// path-fastest layout). Each thread has a private stack of stack_size() x d rows of
// block_paths values, in the precision of T. Increments are written by the steps
// that complete them (see BridgeStep), in the same pass.

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "brownian_bridge/bridge_backends.hpp"

namespace cunum::detail {
namespace {

struct CpuBridgePolicy {
  static constexpr std::int64_t block_paths = 64;  // a row of the stack: 256 B in float
};

// Element j of record r for the paths of one block: a base pointer and a stride.
template <class T>
struct Row {
  T* data;
  std::int64_t stride;
};

template <class T>
Row<T> row(HostPaths<T> a, std::int64_t records, int d, std::int64_t first, std::int64_t record, int j) {
  const std::int64_t base = bridge_element(a.layout, a.paths, records, d, a.first + first, record, j);
  const std::int64_t stride = a.layout == BridgeLayout::path_fastest ? 1 : records * d;
  return {a.data + base, stride};
}

// target[b] = values[b] for b < count, unit stride kept visible to the vectorizer.
template <class T>
void store_row(Row<T> target, const T* values, std::int64_t count) {
  if (target.stride == 1) {
    std::copy(values, values + count, target.data);
  } else {
    for (std::int64_t b = 0; b < count; ++b) target.data[b * target.stride] = values[b];
  }
}

}  // namespace

template <class T>
void bridge_generate_cpu(const BrownianBridge& bridge, bool increments, std::int64_t count,
                         HostPaths<const T> z, HostPaths<T> output) {
  constexpr std::int64_t B = CpuBridgePolicy::block_paths;
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
  const std::int64_t blocks = (count + B - 1) / B;

#pragma omp parallel
  {
    std::vector<T> stack(static_cast<std::size_t>(bridge.stack_size()) * d * B);
    std::vector<T> correlated(static_cast<std::size_t>(d) * B);
    std::vector<T> point(B), increment(B);
    auto slot = [&](std::uint32_t s, int j) { return stack.data() + (static_cast<std::size_t>(s) * d + j) * B; };

#pragma omp for schedule(static)
    for (std::int64_t block = 0; block < blocks; ++block) {
      const std::int64_t first = block * B;
      const std::int64_t paths = std::min(B, count - first);
      // correlated[i][b] = (C z)_i of Z record `record` (C lower triangular).
      auto correlate = [&](std::int64_t record) {
        std::fill(correlated.begin(), correlated.end(), T(0));
        for (int j = 0; j < d; ++j) {
          const Row<const T> source = row(z, z_records, d, first, record, j);
          for (int i = j; i < d; ++i) {
            const T c = factor[i * d + j];
            T* target = correlated.data() + static_cast<std::size_t>(i) * B;
            if (source.stride == 1) {
              for (std::int64_t b = 0; b < paths; ++b) target[b] += c * source.data[b];
            } else {
              for (std::int64_t b = 0; b < paths; ++b) target[b] += c * source.data[b * source.stride];
            }
          }
        }
      };

      if (!fixed) correlate(0);
      for (int j = 0; j < d; ++j) {
        T* x0 = slot(BrownianBridge::start_slot, j);
        T* end = slot(BrownianBridge::end_slot, j);
        const T* cz = correlated.data() + static_cast<std::size_t>(j) * B;
        for (std::int64_t b = 0; b < paths; ++b) {
          x0[b] = start[j];
          end[b] = fixed ? end_value[j] : start[j] + end_std_dev * cz[b];
        }
        if (!increments) store_row(row(output, out_records, d, first, n, j), end, paths);
      }
      for (const BridgeStep& step : steps) {
        correlate(step.z_index);
        const T wl = static_cast<T>(step.left_weight), wr = static_cast<T>(step.right_weight);
        const T sd = static_cast<T>(step.std_dev);
        for (int j = 0; j < d; ++j) {
          // The store slot may be a neighbour's (dying) slot: build into `point` first.
          const T* left = slot(step.left_slot, j);
          const T* right = slot(step.right_slot, j);
          const T* cz = correlated.data() + static_cast<std::size_t>(j) * B;
          for (std::int64_t b = 0; b < paths; ++b) point[b] = wl * left[b] + wr * right[b] + sd * cz[b];
          if (increments) {
            if (step.left_increment) {
              const T scale = static_cast<T>(step.inverse_left_gap);
              for (std::int64_t b = 0; b < paths; ++b) increment[b] = (point[b] - left[b]) * scale;
              store_row(row(output, out_records, d, first, step.output_index - 1, j), increment.data(), paths);
            }
            if (step.right_increment) {
              const T scale = static_cast<T>(step.inverse_right_gap);
              for (std::int64_t b = 0; b < paths; ++b) increment[b] = (right[b] - point[b]) * scale;
              store_row(row(output, out_records, d, first, step.output_index, j), increment.data(), paths);
            }
          } else {
            store_row(row(output, out_records, d, first, step.output_index - 1, j), point.data(), paths);
          }
          if (step.store_slot != BridgeStep::no_store) std::copy(point.begin(), point.begin() + paths, slot(step.store_slot, j));
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
