// OpenMP backend: the compiled strategy run over blocks of consecutive paths. Each
// thread takes a block at a time and runs every step for all its paths, so each
// step is a short unit-stride loop over paths that the compiler vectorizes. A
// path-contiguous array is transposed block by block through a thread-local
// path-fastest staging buffer (read or written one path after another), so every
// layout gets unit-stride steps. Each thread has a private stack of stack_size() x d
// rows of one block, in the precision of T. Increments are written by the steps
// that complete them (see BridgeStep), in the same pass.

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "src/brownian_bridge/bridge_backends.hpp"

namespace cunum::detail {
namespace {

struct CpuBridgePolicy {
  // Paths per block when no array is staged: long enough unit-stride runs per row
  // for the hardware prefetchers (256 paths = 1 KiB of float per row).
  static constexpr std::int64_t block_paths = 256;
  // Bytes of staging per thread when an array is path-contiguous: the transposed
  // block stays in L1/L2 (measured on 64-step paths: 64 KiB beat 16 and 256 KiB).
  static constexpr std::size_t staging_bytes = 64 * 1024;
};

// Paths per block: block_paths, or as many as staging_bytes holds when
// path-contiguous arrays must be staged.
std::int64_t block_size(std::int64_t staged_values_per_path, std::size_t value_bytes) {
  if (staged_values_per_path == 0) return CpuBridgePolicy::block_paths;
  const auto fit = static_cast<std::int64_t>(CpuBridgePolicy::staging_bytes / value_bytes) / staged_values_per_path;
  return std::clamp<std::int64_t>(fit, 1, CpuBridgePolicy::block_paths);
}

// The rows (record r, element j) of one block of paths of an array, each with unit
// stride: the array itself when path-fastest, else a staging buffer of the block.
template <class T>
class BlockRows {
 public:
  using Value = std::remove_const_t<T>;

  BlockRows(HostPaths<T> array, std::int64_t records, int d, std::int64_t block)
      : array_(array), records_(records), d_(d), block_(block) {
    if (staged()) staging_.resize(static_cast<std::size_t>(records * d * block));
  }

  // Moves to paths [first, first + count) of the block's range; a staged input
  // block is transposed in here.
  void begin(std::int64_t first, std::int64_t count) {
    first_ = first;
    count_ = count;
    if (!staged() || !std::is_const_v<T>) return;
    const T* source = array_.data + (array_.first + first) * records_ * d_;
    for (std::int64_t b = 0; b < count; ++b) {
      for (std::int64_t e = 0; e < records_ * d_; ++e) staging_[e * block_ + b] = source[b * records_ * d_ + e];
    }
  }

  T* row(std::int64_t record, int j) {
    if (staged()) return staging_.data() + (record * d_ + j) * block_;
    return array_.data + bridge_element(array_.layout, array_.paths, records_, d_, array_.first + first_, record, j);
  }

  // A staged output block is transposed out here.
  void finish() {
    if constexpr (!std::is_const_v<T>) {
      if (!staged()) return;
      T* target = array_.data + (array_.first + first_) * records_ * d_;
      for (std::int64_t b = 0; b < count_; ++b) {
        for (std::int64_t e = 0; e < records_ * d_; ++e) target[b * records_ * d_ + e] = staging_[e * block_ + b];
      }
    }
  }

 private:
  bool staged() const { return array_.layout == BridgeLayout::path_contiguous; }

  HostPaths<T> array_;
  std::int64_t records_;
  int d_;
  std::int64_t block_;
  std::int64_t first_ = 0, count_ = 0;
  std::vector<Value> staging_;
};

}  // namespace

template <class T>
void bridge_generate_cpu(const BrownianBridge& bridge, bool increments, std::int64_t count,
                         HostPaths<const T> z, HostPaths<T> output) {
  const int d = bridge.dimension();
  const std::int64_t n = bridge.interior_points();
  const std::int64_t z_records = bridge.z_records();
  const std::int64_t out_records = bridge.output_records();
  const auto& steps = BridgeInternals::compiled(bridge).steps;
  const std::vector<T> factor(bridge.factor().begin(), bridge.factor().end());
  const std::vector<T> start(bridge.start().begin(), bridge.start().end());
  const bool fixed = bridge.fixed_end();
  std::vector<T> end_value(static_cast<std::size_t>(d));
  if (fixed) end_value.assign(bridge.end_value()->begin(), bridge.end_value()->end());
  const T end_std_dev = static_cast<T>(std::sqrt(bridge.times().back() - bridge.times().front()));
  const std::int64_t B =
      block_size((z.layout == BridgeLayout::path_contiguous ? z_records * d : 0) +
                     (output.layout == BridgeLayout::path_contiguous ? out_records * d : 0),
                 sizeof(T));
  const std::int64_t blocks = (count + B - 1) / B;

#pragma omp parallel
  {
    BlockRows<const T> z_rows(z, z_records, d, B);
    BlockRows<T> out_rows(output, out_records, d, B);
    std::vector<T> stack(static_cast<std::size_t>(bridge.stack_size() * d * B));
    std::vector<T> correlated(static_cast<std::size_t>(d * B));
    std::vector<T> point(static_cast<std::size_t>(B));
    auto slot = [&](std::uint32_t s, int j) { return stack.data() + (static_cast<std::int64_t>(s) * d + j) * B; };

#pragma omp for schedule(static)
    for (std::int64_t block = 0; block < blocks; ++block) {
      const std::int64_t first = block * B;
      const std::int64_t paths = std::min(B, count - first);
      z_rows.begin(first, paths);
      out_rows.begin(first, paths);
      // correlated[i][b] = (C z)_i of Z record `record` (C lower triangular).
      auto correlate = [&](std::int64_t record) {
        std::fill(correlated.begin(), correlated.end(), T(0));
        for (int j = 0; j < d; ++j) {
          const T* source = z_rows.row(record, j);
          for (int i = j; i < d; ++i) {
            const T c = factor[i * d + j];
            T* target = correlated.data() + i * B;
            for (std::int64_t b = 0; b < paths; ++b) target[b] += c * source[b];
          }
        }
      };

      if (!fixed) correlate(0);
      for (int j = 0; j < d; ++j) {
        T* x0 = slot(BrownianBridge::start_slot, j);
        T* end = slot(BrownianBridge::end_slot, j);
        const T* cz = correlated.data() + j * B;
        for (std::int64_t b = 0; b < paths; ++b) {
          x0[b] = start[j];
          end[b] = fixed ? end_value[j] : start[j] + end_std_dev * cz[b];
        }
        if (!increments) std::copy(end, end + paths, out_rows.row(n, j));
      }
      for (const BridgeStep& step : steps) {
        correlate(step.z_index);
        const T wl = static_cast<T>(step.left_weight), wr = static_cast<T>(step.right_weight);
        const T sd = static_cast<T>(step.std_dev);
        for (int j = 0; j < d; ++j) {
          // The store slot may be a neighbour's (dying) slot: build into `point` first.
          const T* left = slot(step.left_slot, j);
          const T* right = slot(step.right_slot, j);
          const T* cz = correlated.data() + j * B;
          for (std::int64_t b = 0; b < paths; ++b) point[b] = wl * left[b] + wr * right[b] + sd * cz[b];
          if (increments) {
            if (step.left_increment) {
              const T scale = static_cast<T>(step.inverse_left_gap);
              T* target = out_rows.row(step.output_index - 1, j);
              for (std::int64_t b = 0; b < paths; ++b) target[b] = (point[b] - left[b]) * scale;
            }
            if (step.right_increment) {
              const T scale = static_cast<T>(step.inverse_right_gap);
              T* target = out_rows.row(step.output_index, j);
              for (std::int64_t b = 0; b < paths; ++b) target[b] = (right[b] - point[b]) * scale;
            }
          } else {
            std::copy(point.begin(), point.begin() + paths, out_rows.row(step.output_index - 1, j));
          }
          if (step.store_slot != BridgeStep::no_store) {
            std::copy(point.begin(), point.begin() + paths, slot(step.store_slot, j));
          }
        }
      }
      out_rows.finish();
    }
  }
}

template void bridge_generate_cpu(const BrownianBridge&, bool, std::int64_t, HostPaths<const float>,
                                  HostPaths<float>);
template void bridge_generate_cpu(const BrownianBridge&, bool, std::int64_t, HostPaths<const double>,
                                  HostPaths<double>);

}  // namespace cunum::detail
