// OpenMP backend: the compiled strategy run over blocks of consecutive paths. Each
// thread takes a block at a time and runs every step for all its paths, so each
// step is one loop over the block's paths that the compiler vectorizes (omp simd).
// Z and output are read and written in place, in either layout, without staging:
// a path-fastest row is unit stride, and a path-contiguous array is walked with the
// path stride, in blocks small enough that the block's Z and output stay in L1
// while its steps run. The steps touch a path's cache lines out of order (the
// bisection order of its records), which the hardware prefetchers do not follow,
// so the next block of a path-contiguous array is prefetched, a few lines per step.
// Each thread has a private stack of stack_size() x d rows of one block, in the
// precision of T. Each step loop is compiled once per combination of its
// loop-invariant store flags, so that its stores are unconditional: with the
// conditions inside the loop, increments ran far slower on the Xeon host of the GPU
// machine (docs/brownian_bridge.md). Increments are written by the steps that
// complete them (see BridgeStep), in the same pass.

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

#include "src/brownian_bridge/brownian_bridge_backends.hpp"
#include "src/brownian_bridge/bridge_internals.hpp"
#include "src/brownian_bridge/brownian_bridge_policy.hpp"
#include "src/brownian_bridge/bridge_routines.hpp"
#include "src/core/instantiate.hpp"

namespace cunum::detail {
namespace {

// Calls f with std::true_type or std::false_type, so that a loop can be compiled
// once per value of a loop-invariant flag with its stores unconditional.
template <class F>
void with_flag(bool flag, F&& f) {
  if (flag) {
    f(std::true_type{});
  } else {
    f(std::false_type{});
  }
}

// Paths per block: as many as fastest_row_bytes or contiguous_block_bytes holds,
// but no more than a thread's share (rounded up to whole min_block_paths), so that
// small calls still use every thread.
std::int64_t block_size(std::int64_t count, std::int64_t value_bytes, std::int64_t contiguous_path_bytes) {
  constexpr std::int64_t unit = CpuBridgePolicy::min_block_paths;
  const std::int64_t fit = contiguous_path_bytes > 0 ? CpuBridgePolicy::contiguous_block_bytes / contiguous_path_bytes
                                                     : CpuBridgePolicy::fastest_row_bytes / value_bytes;
  const std::int64_t threads = omp_get_max_threads();
  const std::int64_t share = (count + threads * unit - 1) / (threads * unit) * unit;
  return std::max(std::min(fit, share), unit);
}

// One step of the strategy with its rows resolved (slot * d, record * d) and its
// coefficients in the precision of T.
template <class T>
struct StepRows {
  std::int64_t left, right;  // stack rows
  std::int64_t store;        // stack row, or -1: no store
  std::int64_t z;            // Z record
  std::int64_t output;       // output record of the new point
  T left_weight, right_weight, std_dev;
  T inverse_left_gap, inverse_right_gap;
  bool left_increment, right_increment;
};

// The bridge's constants in the precision of T.
template <class T>
struct BridgeRun {
  BridgeRun(const BrownianBridge& bridge, bool increments)
      : d(bridge.dimension()),
        end_output(bridge.interior_points() * d),
        fixed(bridge.fixed_end()),
        increments(increments),
        factor(bridge.factor().begin(), bridge.factor().end()),
        start(bridge.start().begin(), bridge.start().end()),
        end_std_dev(static_cast<T>(std::sqrt(bridge.times().back() - bridge.times().front()))) {
    if (fixed) end_value.assign(bridge.end_value()->begin(), bridge.end_value()->end());
    for (const BridgeStep& step : BridgeInternals::compiled(bridge).steps) {
      steps.push_back({std::int64_t{step.left_slot} * d, std::int64_t{step.right_slot} * d,
                       step.store_slot == BridgeStep::no_store ? -1 : std::int64_t{step.store_slot} * d,
                       std::int64_t{step.z_index} * d, (std::int64_t{step.output_index} - 1) * d,
                       static_cast<T>(step.left_weight), static_cast<T>(step.right_weight),
                       static_cast<T>(step.std_dev), static_cast<T>(step.inverse_left_gap),
                       static_cast<T>(step.inverse_right_gap), step.left_increment, step.right_increment});
    }
  }

  int d;
  std::int64_t end_output;  // output record of X_T, times d
  bool fixed, increments;
  std::vector<T> factor, start, end_value;
  T end_std_dev;
  std::vector<StepRows<T>> steps;
};

// Element `element` (record * d + j) of path b of a block of paths of an array.
template <class T, BridgeLayout layout>
struct BlockView {
  T* data;              // element 0 of the block's first path
  std::int64_t stride;  // path_fastest: paths in the array; path_contiguous: records * d

  T& operator()(std::int64_t b, std::int64_t element) const {
    if constexpr (layout == BridgeLayout::path_fastest) {
      return data[element * stride + b];
    } else {
      return data[b * stride + element];
    }
  }
};

template <BridgeLayout layout, class T>
BlockView<T, layout> block_view(HostPaths<T> array, std::int64_t records, int d, std::int64_t first) {
  const std::int64_t path = array.first + first;
  if constexpr (layout == BridgeLayout::path_fastest) {
    return {array.data + path, array.paths};
  } else {
    return {array.data + path * records * d, records * d};
  }
}

// Prefetches a path-contiguous region (the next block's paths) a few cache lines
// per call, so that it is in cache when its block starts.
class RegionPrefetch {
 public:
  RegionPrefetch() = default;
  RegionPrefetch(const void* begin, std::int64_t bytes, std::int64_t calls)
      : next_(static_cast<const char*>(begin)),
        end_(next_ + bytes),
        step_(CpuBridgePolicy::cache_line_bytes * ((bytes / CpuBridgePolicy::cache_line_bytes + calls - 1) / calls)) {}

  void advance() {
    const char* until = next_ + std::min(step_, static_cast<std::int64_t>(end_ - next_));
    for (; next_ < until; next_ += CpuBridgePolicy::cache_line_bytes) __builtin_prefetch(next_);
  }

 private:
  const char* next_ = nullptr;
  const char* end_ = nullptr;
  std::int64_t step_ = 0;
};

// The prefetch of `paths` paths from `first` of an array: none when it is
// path-fastest or there are no paths.
template <BridgeLayout layout, class T>
RegionPrefetch next_block_prefetch(HostPaths<T> array, std::int64_t records, int d, std::int64_t first,
                                   std::int64_t paths, std::int64_t calls) {
  if (layout == BridgeLayout::path_fastest || paths == 0) return {};
  return {block_view<layout>(array, records, d, first).data, paths * records * d * static_cast<std::int64_t>(sizeof(T)),
          calls};
}

// Runs every step for `paths` paths of a block; stack rows are `pitch` values
// apart, `correlated` holds d rows of `pitch` (unused when d = 1: `single`).
template <bool single, class T, BridgeLayout z_layout, BridgeLayout out_layout>
void run_block(const BridgeRun<T>& run, BlockView<const T, z_layout> z, BlockView<T, out_layout> out,
               std::int64_t paths, T* stack, T* correlated, std::int64_t pitch, RegionPrefetch& next_z,
               RegionPrefetch& next_out) {
  const int d = single ? 1 : run.d;
  // Row j of `correlated`: (C z)_j of the Z record starting at element `record`
  // (C lower triangular).
  auto correlate = [&](std::int64_t record) {
    for (int j = 0; j < d; ++j) {
      const T* c = run.factor.data() + j * d;
      T* target = correlated + j * pitch;
      const T c0 = c[0];
#pragma omp simd
      for (std::int64_t b = 0; b < paths; ++b) target[b] = c0 * z(b, record);
      for (int i = 1; i <= j; ++i) {
        const T ci = c[i];
#pragma omp simd
        for (std::int64_t b = 0; b < paths; ++b) target[b] += ci * z(b, record + i);
      }
    }
  };
  // (C z)_j of path b for Z element `element` (record * d + j): read straight from
  // Z when d = 1.
  const T c00 = run.factor[0];
  auto correlated_z = [&](std::int64_t element, int j, std::int64_t b) {
    if constexpr (single) {
      return c00 * z(b, element);
    } else {
      return correlated[j * pitch + b];
    }
  };

  next_z.advance();
  next_out.advance();
  if (!single && !run.fixed) correlate(0);
  for (int j = 0; j < d; ++j) {
    T* x0 = stack + (BrownianBridge::start_slot * d + j) * pitch;
    T* end = stack + (BrownianBridge::end_slot * d + j) * pitch;
    // Locals: stores through T* could alias the run's members.
    const T start = run.start[j], end_std_dev = run.end_std_dev;
    const bool write_end = !run.increments;
    const std::int64_t at = run.end_output + j;
    if (run.fixed) {
      const T end_value = run.end_value[j];
#pragma omp simd
      for (std::int64_t b = 0; b < paths; ++b) {
        x0[b] = start;
        end[b] = end_value;
        if (write_end) out(b, at) = end_value;
      }
    } else {
#pragma omp simd
      for (std::int64_t b = 0; b < paths; ++b) {
        const T value = start + end_std_dev * correlated_z(j, j, b);
        x0[b] = start;
        end[b] = value;
        if (write_end) out(b, at) = value;
      }
    }
  }
  for (const StepRows<T>& step : run.steps) {
    next_z.advance();
    next_out.advance();
    if (!single) correlate(step.z);
    for (int j = 0; j < d; ++j) {
      const T* left = stack + (step.left + j) * pitch;
      const T* right = stack + (step.right + j) * pitch;
      // The store slot may be a neighbour's (dying) slot: each path reads its own
      // neighbours before it stores, and no other path touches them.
      T* store = stack + (std::max<std::int64_t>(step.store, 0) + j) * pitch;
      const bool stores = step.store >= 0;
      const std::int64_t z_at = step.z + j, at = step.output + j;
      const T wl = step.left_weight, wr = step.right_weight, sd = step.std_dev;
      const T left_scale = step.inverse_left_gap, right_scale = step.inverse_right_gap;
      if (run.increments) {
        with_flag(step.left_increment, [&](auto left_increment) {
          with_flag(step.right_increment, [&](auto right_increment) {
            with_flag(stores, [&](auto store_point) {
#pragma omp simd
              for (std::int64_t b = 0; b < paths; ++b) {
                const T l = left[b], r = right[b];
                const T point = wl * l + wr * r + sd * correlated_z(z_at, j, b);
                if constexpr (left_increment) out(b, at) = (point - l) * left_scale;
                if constexpr (right_increment) out(b, at + d) = (r - point) * right_scale;
                if constexpr (store_point) store[b] = point;
              }
            });
          });
        });
      } else {
        with_flag(stores, [&](auto store_point) {
#pragma omp simd
          for (std::int64_t b = 0; b < paths; ++b) {
            const T point = wl * left[b] + wr * right[b] + sd * correlated_z(z_at, j, b);
            out(b, at) = point;
            if constexpr (store_point) store[b] = point;
          }
        });
      }
    }
  }
}

template <class T, BridgeLayout z_layout, BridgeLayout out_layout>
void generate(const BrownianBridge& bridge, bool increments, std::int64_t count, HostPaths<const T> z,
              HostPaths<T> output) {
  const BridgeRun<T> run(bridge, increments);
  const int d = run.d;
  const std::int64_t z_records = bridge.z_records(), out_records = bridge.output_records();
  const std::int64_t contiguous_values =
      (z_layout == BridgeLayout::path_contiguous ? z_records * d : 0) +
      (out_layout == BridgeLayout::path_contiguous ? out_records * d : 0);
  const std::int64_t B = block_size(count, sizeof(T), contiguous_values * static_cast<std::int64_t>(sizeof(T)));
  const std::int64_t blocks = (count + B - 1) / B;
  const std::int64_t calls = static_cast<std::int64_t>(run.steps.size()) + 1;  // advances per block

#pragma omp parallel
  {
    std::vector<T> stack(static_cast<std::size_t>(bridge.stack_size() * d * B));
    std::vector<T> correlated(static_cast<std::size_t>(d * B));

    // Static: a thread's blocks are consecutive, so the block it prefetches is its next.
#pragma omp for schedule(static)
    for (std::int64_t block = 0; block < blocks; ++block) {
      const std::int64_t first = block * B;
      const std::int64_t paths = std::min(B, count - first);
      const std::int64_t next_paths = std::clamp<std::int64_t>(count - first - B, 0, B);
      const auto z_block = block_view<z_layout>(z, z_records, d, first);
      const auto out_block = block_view<out_layout>(output, out_records, d, first);
      RegionPrefetch next_z = next_block_prefetch<z_layout>(z, z_records, d, first + B, next_paths, calls);
      RegionPrefetch next_out = next_block_prefetch<out_layout>(output, out_records, d, first + B, next_paths, calls);
      if (d == 1) {
        run_block<true>(run, z_block, out_block, paths, stack.data(), correlated.data(), B, next_z, next_out);
      } else {
        run_block<false>(run, z_block, out_block, paths, stack.data(), correlated.data(), B, next_z, next_out);
      }
    }
  }
}

}  // namespace

template <class T>
void bridge_generate_cpu(const BrownianBridge& bridge, bool increments, std::int64_t count,
                         HostPaths<const T> z, HostPaths<T> output) {
  using L = BridgeLayout;
  const bool z_fastest = z.layout == L::path_fastest, out_fastest = output.layout == L::path_fastest;
  if (z_fastest && out_fastest) {
    generate<T, L::path_fastest, L::path_fastest>(bridge, increments, count, z, output);
  } else if (z_fastest) {
    generate<T, L::path_fastest, L::path_contiguous>(bridge, increments, count, z, output);
  } else if (out_fastest) {
    generate<T, L::path_contiguous, L::path_fastest>(bridge, increments, count, z, output);
  } else {
    generate<T, L::path_contiguous, L::path_contiguous>(bridge, increments, count, z, output);
  }
}

#define CUNUM_INSTANTIATE_BRIDGE_CPU(T) \
  template void bridge_generate_cpu(const BrownianBridge&, bool, std::int64_t, HostPaths<const T>, HostPaths<T>);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_BRIDGE_CPU, CUNUM_REAL_TYPES)

namespace {

// The OpenMP backend: holds nothing between calls.
class BridgeCpu final : public BridgeBackend {
 public:
  void require_current(const char*) const override {}

  void generate(const BrownianBridge& bridge, bool increments, std::int64_t paths, const float* z, float* output,
                const BridgeGenerateOptions& options) override {
    run(bridge, increments, paths, z, output, options);
  }
  void generate(const BrownianBridge& bridge, bool increments, std::int64_t paths, const double* z, double* output,
                const BridgeGenerateOptions& options) override {
    run(bridge, increments, paths, z, output, options);
  }
  void generate_sobol(const BrownianBridge& bridge, bool increments, std::int64_t paths, float* output,
                      const SobolBridgeOptions& options) override {
    run_sobol(bridge, increments, paths, output, options);
  }
  void generate_sobol(const BrownianBridge& bridge, bool increments, std::int64_t paths, double* output,
                      const SobolBridgeOptions& options) override {
    run_sobol(bridge, increments, paths, output, options);
  }

  std::vector<float> generate_host(const std::vector<float>& z, std::size_t output_size, StreamHandle,
                                   const std::function<void(const float*, float*)>& generate) override {
    return in_place(z, output_size, generate);
  }
  std::vector<double> generate_host(const std::vector<double>& z, std::size_t output_size, StreamHandle,
                                    const std::function<void(const double*, double*)>& generate) override {
    return in_place(z, output_size, generate);
  }

  const BridgeDeviceStrategy* device_strategy() const noexcept override { return nullptr; }

 private:
  template <class T>
  static void run(const BrownianBridge& bridge, bool increments, std::int64_t paths, const T* z, T* output,
                  const BridgeGenerateOptions& options) {
    if (paths == 0) return;
    bridge_generate_cpu<T>(bridge, increments, paths, {z, options.z_layout, paths, 0},
                           {output, options.output_layout, paths, 0});
  }

  template <class T>
  static void run_sobol(const BrownianBridge& bridge, bool increments, std::int64_t paths, T* output,
                        const SobolBridgeOptions& options) {
    if (options.offset >= (std::uint64_t{1} << 32)) {
      bridge_routines::throw_not_supported(
          "options.offset >= 2^32 on the CPU backend: cuRAND's host generator keeps only the low 32 bits of an "
          "offset (the CUDA backend has no such limit)");
    }
    if (paths == 0) return;
    bridge_generate_sobol_cpu(bridge, increments, paths, output, options);
  }

  template <class T>
  static std::vector<T> in_place(const std::vector<T>& z, std::size_t output_size,
                                 const std::function<void(const T*, T*)>& generate) {
    std::vector<T> output(output_size);
    generate(z.data(), output.data());
    return output;
  }
};

}  // namespace

std::unique_ptr<BridgeBackend> make_brownian_bridge_cpu() { return std::make_unique<BridgeCpu>(); }

}  // namespace cunum::detail
