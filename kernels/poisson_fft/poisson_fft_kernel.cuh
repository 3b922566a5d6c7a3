#pragma once
// Internal: the Poisson solver's CUDA kernels around cuFFT (the pencil kernels are in
// kernels/poisson_fft/pencil_fft.cuh): the wall passes' line kernels, the spectral
// division, the wall turnaround on lines, the copy out and the `reject` rule's sums.
// Each is a template on its policy (src/poisson_fft/poisson_fft_policy.hpp), launched by
// kernels/poisson_fft/poisson_fft.cu; the sequence of passes is the CUDA backend's
// (src/poisson_fft/poisson_fft_cuda.cpp, whose file comment has the algorithm).

#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "cunum/device/detail/block_reduce.cuh"
#include "kernels/poisson_fft/poisson_fft_launch.hpp"
#include "src/poisson_fft/wall_transforms.hpp"

namespace cunum::detail {

// cuFFT's complex type for T (cufftComplex, cufftDoubleComplex), without cuFFT's header.
template <class T>
using CufftComplex = std::conditional_t<std::is_same_v<T, float>, float2, double2>;

// The spectral division of modes (m_outer, m_middle, m_inner) of three axes in some
// order: the host's SpectralTables (poisson_fft_launch.hpp) and the factor of a mode. A
// struct of its own, not derived from SpectralTables, so that the kernels take the very
// parameter they took when they and the host code shared one file.
template <class T>
struct SpectralDivision {
  const T* outer;
  const T* middle;
  const T* inner;
  T screening;
  T scale;  // 1 / pair_factor: the transform pairs' normalisation

  // 1 / (the operator's eigenvalue), the scale folded in; 0 for a zero eigenvalue (the
  // constants of a singular problem).
  __device__ T factor(std::int64_t m_outer, std::int64_t m_middle, std::int64_t m_inner) const {
    const T eigenvalue = outer[m_outer] + middle[m_middle] + inner[m_inner] - screening;
    return eigenvalue == T(0) ? T(0) : scale / eigenvalue;
  }
};

// The launchers' conversion of the host's tables.
template <class T>
SpectralDivision<T> spectral_division(const SpectralTables<T>& tables) {
  return {tables.outer, tables.middle, tables.inner, tables.screening, tables.scale};
}

// Grid point i of an axis's line as a pass with `side` takes it (grid_side_sample,
// src/poisson_fft/wall_transforms.hpp): on the way in `value` reads the grid; on the
// way out it computes coefficient i.
template <class T, class Value>
__device__ __forceinline__ T on_grid_side(GridSide side, std::int64_t n, std::int64_t i, const Value& value) {
  const PassSample at = grid_side_sample(side, n, i);
  const T v = value(at.source);
  return at.sign < 0 ? -v : v;
}

// The samples of a line's R2C input from its grid points (`fetch(i)` reads grid point
// i, taken as `side` says): line_sample's odd or even extension, Makhoul's shuffle, or
// Makhoul's shuffle of the line padded with n zeros.
template <class T>
struct ExtendedLine {
  using Value = T;
  WallLine line;
  GridSide side;
  std::int64_t n;
  template <class Fetch>
  __device__ T operator()(std::int64_t e, const Fetch& fetch) const {
    const PassSample sample = line_sample(line, n, e);
    if (sample.sign == 0) return T(0);
    const T value = on_grid_side<T>(side, n, sample.source, fetch);
    return sample.sign < 0 ? -value : value;
  }
};

// A complex line sample of the wall steps as cuFFT's complex type.
template <class Complex, class T>
__device__ __forceinline__ Complex as_complex(HalfSpectrumValue<T> z) {
  Complex value;
  value.x = z.re;
  value.y = z.im;
  return value;
}

// DCT-III (the Neumann inverse, the mixed vertex axes' forward): the half spectrum
// whose C2R is the shuffled DCT-III of the line's values (taken as `side` says).
template <class T, class Complex>
struct CosineInverseSpectrum {
  using Value = Complex;
  GridSide side;
  std::int64_t n;
  const T* twiddles;
  template <class Fetch>
  __device__ Complex operator()(std::int64_t k, const Fetch& fetch) const {
    const auto sample = [&](std::int64_t i) { return on_grid_side<T>(side, n, i, fetch); };
    const T mirror = k == 0 ? T(0) : sample(n - k);
    return as_complex<Complex>(cosine_inverse_mode(twiddles[2 * k], twiddles[2 * k + 1], sample(k), mirror));
  }
};

// DCT-IV by pairs (quarter_pairs): complex sample j of the C2C's input from grid points
// 2j and n - 1 - 2j (taken as `side` says) and twiddle n + j.
template <class T, class Complex>
struct QuarterPairLine {
  using Value = Complex;
  GridSide side;
  std::int64_t n;
  const T* twiddles;
  template <class Fetch>
  __device__ Complex operator()(std::int64_t j, const Fetch& fetch) const {
    const auto sample = [&](std::int64_t i) { return on_grid_side<T>(side, n, i, fetch); };
    return as_complex<Complex>(
        quarter_pair_sample(sample(2 * j), sample(n - 1 - 2 * j), twiddles[2 * (n + j)], twiddles[2 * (n + j) + 1]));
  }
};

// Grid point i of a line from the line's R2C (written as `side` says): the real
// coefficients of line_coefficient (-Im U_{k+1} DST-I, Re U_k DCT-I, Makhoul's twiddle
// DCT-II, its odd modes at 2n DCT-IV).
template <class T, class Complex>
struct WallCoefficient {
  using Line = Complex;
  WallLine line;
  GridSide side;
  std::int64_t n;
  const T* twiddles;  // null for the extensions
  __device__ T coefficient(std::int64_t k, const Complex* spectrum) const {
    const Complex mode = spectrum[line_coefficient_mode(line, n, k)];
    const T cos_twiddle = twiddles != nullptr ? twiddles[2 * k] : T(0);
    const T sin_twiddle = twiddles != nullptr ? twiddles[2 * k + 1] : T(0);
    return line_coefficient(line, n, k, cos_twiddle, sin_twiddle, mode.x, mode.y);
  }
  __device__ T operator()(std::int64_t i, const Complex* spectrum) const {
    return on_grid_side<T>(side, n, i, [&](std::int64_t k) { return coefficient(k, spectrum); });
  }
};

// A C2R's line back on the grid (written as `side` says): unshuffled (the DCT-III's
// last step) or its extension's samples (DST-I, DCT-I), as c2r_line_position says.
template <class T>
struct C2rLineSamples {
  using Line = T;
  WallLine line;
  GridSide side;
  std::int64_t n;
  __device__ T operator()(std::int64_t i, const T* values) const {
    return on_grid_side<T>(side, n, i, [&](std::int64_t j) { return values[c2r_line_position(line, n, j)]; });
  }
};

// q = z / n and r = z - q n, in 32 bits when both fit (a 64-bit division costs a thread
// more than the samples it moves).
__device__ __forceinline__ void split_index(std::int64_t z, std::int64_t n, std::int64_t& q, std::int64_t& r) {
  if ((static_cast<std::uint64_t>(z) | static_cast<std::uint64_t>(n)) <= 0xFFFFFFFFu) {
    q = static_cast<std::uint32_t>(z) / static_cast<std::uint32_t>(n);
  } else {
    q = z / n;
  }
  r = z - q * n;
}

// An "along" block's items: item f of the block's run of `line_group` lines (more than
// one where lines are shorter than a block's Policy::along_samples, which would
// otherwise idle most of its threads) is sample e of line y0 + y, (y, e) = (f / extent, f mod extent).
struct AlongItem {
  std::int64_t lane, e;
  bool valid;
};

__device__ __forceinline__ AlongItem along_item(std::int64_t f, std::int64_t y0, std::int64_t extent,
                                                std::int64_t line_group, std::int64_t n_lane) {
  AlongItem item;
  std::int64_t y = 0;
  item.e = f;
  if (line_group > 1) split_index(f, extent, y, item.e);
  item.lane = y0 + y;
  item.valid = item.e < extent && y < line_group && item.lane < n_lane;
  return item;
}

// lines[r * pitch + e] = sample(e, line r's grid points), e < pitch. Its along case
// serves only lines longer than staged_lines_from_grid_kernel holds (below).
template <class Policy, class T, class Sample>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks)
    lines_from_grid_kernel(Sample sample, LineGeometry g, std::int64_t pitch, const T* grid,
                           typename Sample::Value* lines, std::int64_t line_group) {
  using Value = typename Sample::Value;
  __shared__ Value tile[Policy::across_samples][Policy::tile + 1];
  const int thread = threadIdx.y * Policy::tile + threadIdx.x;
  for (std::int64_t z = blockIdx.z; z < g.batch * g.n_block; z += gridDim.z) {
    std::int64_t b, m_block;
    split_index(z, g.n_block, b, m_block);
    const T* plane = grid + b * g.problem + m_block * g.block_stride;
    Value* plane_lines = lines + (b * g.problem_lines + m_block * g.block_lines) * pitch;
    if (g.along) {
      // Threads along the samples of a run of lines, whose grid points are contiguous.
      for (std::int64_t y0 = blockIdx.y * line_group; y0 < g.n_lane; y0 += gridDim.y * line_group) {
        const std::int64_t first = blockIdx.x * Policy::along_samples + thread;
        Value values[Policy::along_items];
#pragma unroll
        for (int k = 0; k < Policy::along_items; ++k) {
          const AlongItem item = along_item(first + k * Policy::tile * Policy::tile_rows, y0, pitch, line_group, g.n_lane);
          const T* source = plane + item.lane * g.lane_stride;
          if (item.valid) values[k] = sample(item.e, [source](std::int64_t i) { return source[i]; });
        }
#pragma unroll
        for (int k = 0; k < Policy::along_items; ++k) {
          const AlongItem item = along_item(first + k * Policy::tile * Policy::tile_rows, y0, pitch, line_group, g.n_lane);
          if (item.valid) plane_lines[item.lane * g.lane_lines * pitch + item.e] = values[k];
        }
      }
      continue;
    }
    // Neighbouring blocks take neighbouring lane tiles: the grid's rows are read in runs.
    const std::int64_t lane0 = std::int64_t{blockIdx.x} * Policy::tile;
    for (std::int64_t e0 = blockIdx.y * std::int64_t{Policy::across_samples}; e0 < pitch; e0 += gridDim.y * std::int64_t{Policy::across_samples}) {
      if (lane0 + threadIdx.x < g.n_lane) {
        const T* source = plane + (lane0 + threadIdx.x) * g.lane_stride;
        const std::int64_t step = g.axis_stride;
        const auto fetch = [source, step](std::int64_t i) { return source[i * step]; };
#pragma unroll
        for (int j = threadIdx.y; j < Policy::across_samples; j += Policy::tile_rows) {
          if (e0 + j < pitch) tile[j][threadIdx.x] = sample(e0 + j, fetch);
        }
      }
      __syncthreads();
#pragma unroll
      for (int h = 0; h < Policy::across_depth; ++h) {
        const std::int64_t e = e0 + h * Policy::tile + threadIdx.x;
        Value* line = plane_lines + lane0 * g.lane_lines * pitch + e;
#pragma unroll
        for (int j = threadIdx.y; j < Policy::tile; j += Policy::tile_rows) {
          if (e < pitch && lane0 + j < g.n_lane) line[j * g.lane_lines * pitch] = tile[h * Policy::tile + threadIdx.x][j];
        }
      }
      __syncthreads();
    }
  }
}

// grid point k of each line = coefficient(k, line), k < g.n_axis. Its along case
// serves only lines longer than staged_grid_from_lines_kernel holds (below).
template <class Policy, class T, class Coefficient>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks)
    grid_from_lines_kernel(Coefficient coefficient, LineGeometry g, std::int64_t pitch,
                           const typename Coefficient::Line* lines, T* grid, std::int64_t line_group) {
  using Line = typename Coefficient::Line;
  __shared__ T tile[Policy::tile][Policy::across_samples + 1];
  const int thread = threadIdx.y * Policy::tile + threadIdx.x;
  for (std::int64_t z = blockIdx.z; z < g.batch * g.n_block; z += gridDim.z) {
    std::int64_t b, m_block;
    split_index(z, g.n_block, b, m_block);
    T* plane = grid + b * g.problem + m_block * g.block_stride;
    const Line* plane_lines = lines + (b * g.problem_lines + m_block * g.block_lines) * pitch;
    if (g.along) {
      for (std::int64_t y0 = blockIdx.y * line_group; y0 < g.n_lane; y0 += gridDim.y * line_group) {
        const std::int64_t first = blockIdx.x * Policy::along_samples + thread;
        T values[Policy::along_items];
#pragma unroll
        for (int k = 0; k < Policy::along_items; ++k) {
          const AlongItem item = along_item(first + k * Policy::tile * Policy::tile_rows, y0, g.n_axis, line_group, g.n_lane);
          if (item.valid) values[k] = coefficient(item.e, plane_lines + item.lane * g.lane_lines * pitch);
        }
#pragma unroll
        for (int k = 0; k < Policy::along_items; ++k) {
          const AlongItem item = along_item(first + k * Policy::tile * Policy::tile_rows, y0, g.n_axis, line_group, g.n_lane);
          if (item.valid) plane[item.lane * g.lane_stride + item.e] = values[k];
        }
      }
      continue;
    }
    const std::int64_t lane0 = std::int64_t{blockIdx.x} * Policy::tile;
    for (std::int64_t k0 = blockIdx.y * std::int64_t{Policy::across_samples}; k0 < g.n_axis; k0 += gridDim.y * std::int64_t{Policy::across_samples}) {
      const Line* line = plane_lines + lane0 * g.lane_lines * pitch;
#pragma unroll
      for (int h = 0; h < Policy::across_depth; ++h) {
        const std::int64_t k = k0 + h * Policy::tile + threadIdx.x;
        if (k >= g.n_axis) continue;
#pragma unroll
        for (int j = threadIdx.y; j < Policy::tile; j += Policy::tile_rows) {
          if (lane0 + j < g.n_lane) tile[j][h * Policy::tile + threadIdx.x] = coefficient(k, line + j * g.lane_lines * pitch);
        }
      }
      __syncthreads();
      const std::int64_t m_lane = lane0 + threadIdx.x;
      if (m_lane < g.n_lane) {
        T* target = plane + m_lane * g.lane_stride;
#pragma unroll
        for (int j = threadIdx.y; j < Policy::across_samples; j += Policy::tile_rows) {
          if (k0 + j < g.n_axis) target[(k0 + j) * g.axis_stride] = tile[threadIdx.x][j];
        }
      }
      __syncthreads();
    }
  }
}

// --- the staged line kernels: the pass's axis contiguous, its lines in shared memory ---

// `count` values from `source` to `target` by the block's threads: 16-byte vectors,
// Policy::batch loads in flight a thread, where both are 16-byte aligned; else values.
template <class Policy, class U>
__device__ __forceinline__ void block_copy(const U* source, U* target, std::int64_t count) {
  std::int64_t copied = 0;
  if (((reinterpret_cast<std::uintptr_t>(source) | reinterpret_cast<std::uintptr_t>(target)) & 15) == 0) {
    constexpr std::int64_t kVectorValues = 16 / static_cast<std::int64_t>(sizeof(U));
    const std::int64_t vectors = count / kVectorValues;
    const uint4* from = reinterpret_cast<const uint4*>(source);
    uint4* to = reinterpret_cast<uint4*>(target);
    for (std::int64_t base = threadIdx.x; base < vectors; base += Policy::batch * Policy::block_threads) {
      uint4 values[Policy::batch];
#pragma unroll
      for (int k = 0; k < Policy::batch; ++k) {
        if (base + k * Policy::block_threads < vectors) values[k] = from[base + k * Policy::block_threads];
      }
#pragma unroll
      for (int k = 0; k < Policy::batch; ++k) {
        if (base + k * Policy::block_threads < vectors) to[base + k * Policy::block_threads] = values[k];
      }
    }
    copied = vectors * kVectorValues;
  }
  for (std::int64_t i = copied + threadIdx.x; i < count; i += Policy::block_threads) target[i] = source[i];
}

// A staged block's run: `count` lanes from `lane0` of plane (b, m_block), the runs of
// `rows` lanes numbered plane by plane.
struct StagedRun {
  std::int64_t b, m_block, lane0, count;
};

__device__ __forceinline__ StagedRun staged_run(std::int64_t run, const LineGeometry& g, std::int64_t rows) {
  const std::int64_t lane_runs = (g.n_lane + rows - 1) / rows;
  StagedRun s;
  std::int64_t z, lane_run;
  split_index(run, lane_runs, z, lane_run);
  split_index(z, g.n_block, s.b, s.m_block);
  s.lane0 = lane_run * rows;
  s.count = g.n_lane - s.lane0 < rows ? g.n_lane - s.lane0 : rows;
  return s;
}

// `count` rows of `length` values, `stride` apart from `source`, packed into `target`
// (one copy where the rows already lie packed).
template <class Policy, class U>
__device__ __forceinline__ void stage_rows(const U* source, std::int64_t stride, std::int64_t length,
                                           std::int64_t count, U* target) {
  if (stride == length) {
    block_copy<Policy>(source, target, count * length);
    return;
  }
  for (std::int64_t r = 0; r < count; ++r) block_copy<Policy>(source + r * stride, target + r * length, length);
}

// A thread's walk over a run's items (row r, index e < length), block_threads apart:
// one division a thread, none an item.
template <class Policy>
struct RunCursor {
  std::int64_t r, e, length, step_rows, step;
  __device__ explicit RunCursor(std::int64_t line_length) : length(line_length) {
    split_index(threadIdx.x, length, r, e);
    split_index(Policy::block_threads, length, step_rows, step);
  }
  __device__ void next() {
    r += step_rows;
    e += step;
    if (e >= length) {
      e -= length;
      ++r;
    }
  }
};

// Two real values in one 8- or 16-byte store (the layout of cuFFT's complex type).
template <class T>
using RealPair = CufftComplex<T>;

// Whether every line or row the staged kernels write starts on a RealPair: `values`
// aligned to one, and each of `strides` (the line's length, the strides that place its
// lines; 0 for one that never moves) even.
template <class T>
__device__ __forceinline__ bool pair_aligned(const T* values, std::initializer_list<std::int64_t> strides) {
  if ((reinterpret_cast<std::uintptr_t>(values) & (sizeof(RealPair<T>) - 1)) != 0) return false;
  for (const std::int64_t stride : strides) {
    if (stride % 2 != 0) return false;
  }
  return true;
}

// A staged run's items written two a store where `pairs` (real values, pair_aligned),
// else one: write(r, e, value) for each item (row r < count, index e < length) of the
// run, value(r, e) its value.
template <class Policy, class U, class Write, class Value>
__device__ __forceinline__ void write_run(bool pairs, std::int64_t count, std::int64_t length, const Write& write,
                                          const Value& value) {
  if constexpr (std::is_floating_point_v<U>) {
    if (pairs) {
      for (RunCursor<Policy> at(length / 2); at.r < count; at.next()) {
        const std::int64_t e = 2 * at.e;
        write(at.r, at.e, RealPair<U>{value(at.r, e), value(at.r, e + 1)});
      }
      return;
    }
  }
  for (RunCursor<Policy> at(length); at.r < count; at.next()) write(at.r, at.e, value(at.r, at.e));
}

// lines_from_grid_kernel's along case (g.along), staged: each run's grid points into
// shared memory, then the samples from there, `rows` lanes a run; real samples two a
// store where the lines allow.
template <class Policy, class T, class Sample>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks)
    staged_lines_from_grid_kernel(Sample sample, LineGeometry g, std::int64_t pitch, const T* grid,
                                  typename Sample::Value* lines, std::int64_t rows) {
  using Value = typename Sample::Value;
  extern __shared__ __align__(16) unsigned char staged_bytes[];
  T* staged = reinterpret_cast<T*>(staged_bytes);
  const std::int64_t runs = g.batch * g.n_block * ((g.n_lane + rows - 1) / rows);
  const bool pairs = pair_aligned(lines, {pitch});
  for (std::int64_t run = blockIdx.x; run < runs; run += gridDim.x) {
    const StagedRun s = staged_run(run, g, rows);
    stage_rows<Policy>(grid + s.b * g.problem + s.m_block * g.block_stride + s.lane0 * g.lane_stride, g.lane_stride,
                       g.n_axis, s.count, staged);
    __syncthreads();
    Value* run_lines = lines + (s.b * g.problem_lines + s.m_block * g.block_lines + s.lane0 * g.lane_lines) * pitch;
    const std::int64_t line_stride = g.lane_lines * pitch;
    write_run<Policy, Value>(
        pairs, s.count, pitch,
        [&](std::int64_t r, std::int64_t e, auto v) {
          reinterpret_cast<decltype(v)*>(run_lines + r * line_stride)[e] = v;
        },
        [&](std::int64_t r, std::int64_t e) {
          const T* row = staged + r * g.n_axis;
          return sample(e, [row](std::int64_t i) { return row[i]; });
        });
    __syncthreads();
  }
}

// grid_from_lines_kernel's along case (g.along), staged: each run's lines into shared
// memory, then the grid points from there, `rows` lanes a run; two a store where the
// grid allows.
template <class Policy, class T, class Coefficient>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks)
    staged_grid_from_lines_kernel(Coefficient coefficient, LineGeometry g, std::int64_t pitch,
                                  const typename Coefficient::Line* lines, T* grid, std::int64_t rows) {
  using Line = typename Coefficient::Line;
  extern __shared__ __align__(16) unsigned char staged_bytes[];
  Line* staged = reinterpret_cast<Line*>(staged_bytes);
  const std::int64_t runs = g.batch * g.n_block * ((g.n_lane + rows - 1) / rows);
  const bool pairs = pair_aligned(grid, {g.n_axis, g.n_lane > 1 ? g.lane_stride : 0,
                                         g.n_block > 1 ? g.block_stride : 0, g.batch > 1 ? g.problem : 0});
  for (std::int64_t run = blockIdx.x; run < runs; run += gridDim.x) {
    const StagedRun s = staged_run(run, g, rows);
    stage_rows<Policy>(lines + (s.b * g.problem_lines + s.m_block * g.block_lines + s.lane0 * g.lane_lines) * pitch,
                       g.lane_lines * pitch, pitch, s.count, staged);
    __syncthreads();
    T* run_grid = grid + s.b * g.problem + s.m_block * g.block_stride + s.lane0 * g.lane_stride;
    write_run<Policy, T>(
        pairs, s.count, g.n_axis,
        [&](std::int64_t r, std::int64_t e, auto v) {
          reinterpret_cast<decltype(v)*>(run_grid + r * g.lane_stride)[e] = v;
        },
        [&](std::int64_t r, std::int64_t e) { return coefficient(e, staged + r * pitch); });
    __syncthreads();
  }
}

// Each mode of the spectrum (complex after the periodic R2C, real without a periodic
// axis) divided by the operator's eigenvalue, from `in` to `out` (may be equal). One
// warp per row finds the row's indices once; its lanes run along the row, each loading
// Policy::lane_bytes of modes before it divides and stores any (with one load in flight a
// lane, Nsight Compute timed the pass at two thirds of the copy rate).
template <class Policy, class T, class Value>
__global__ void __launch_bounds__(Policy::block_threads)
    divide_kernel(SpectralDivision<T> division, SpectrumRows shape, const Value* in, Value* out) {
  constexpr int kDivideItems = Policy::lane_bytes / static_cast<int>(sizeof(Value));
  const std::int64_t stride = std::int64_t{gridDim.x} * Policy::rows;
  for (std::int64_t row = blockIdx.x * std::int64_t{Policy::rows} + threadIdx.y; row < shape.rows; row += stride) {
    const std::int64_t m_middle = row % shape.middle, m_outer = row / shape.middle % shape.outer;
    const std::int64_t first = row * shape.inner;
    for (std::int64_t base = threadIdx.x; base < shape.inner; base += Policy::lanes * kDivideItems) {
      Value modes[kDivideItems];
#pragma unroll
      for (int k = 0; k < kDivideItems; ++k) {
        const std::int64_t i = base + k * Policy::lanes;
        if (i < shape.inner) modes[k] = in[first + i];
      }
#pragma unroll
      for (int k = 0; k < kDivideItems; ++k) {
        const std::int64_t i = base + k * Policy::lanes;
        if (i >= shape.inner) break;
        const T factor = division.factor(m_outer, m_middle, i);
        if constexpr (std::is_same_v<Value, T>) {
          modes[k] *= factor;
        } else {
          modes[k].x *= factor;
          modes[k].y *= factor;
        }
        out[first + i] = modes[k];
      }
    }
  }
}

// The turn from the forward to the inverse transform of the last wall axis of a grid
// without periodic axes, on each line's half spectrum where it lies (block per line):
// the coefficients, divided by the operator's eigenvalue, become the inverse's input
// directly, with no trip through the coefficient array (which would cost a scatter and
// a gather over the whole grid). It composes the same functors as those two passes
// (WallCoefficient, then ExtendedLine or CosineInverseSpectrum), so the values are
// theirs, bit for bit.
//   cosine: mode k (k <= n / 2) holds DCT-II coefficients k and n - k; the inverse
//           spectrum's mode k needs those two, so it is written in place.
//   the transforms that are their own inverse (DST-I, DCT-I, DCT-IV): the R2C input
//           made of the divided coefficients, into `extended`; DCT-IV by pairs: mode m
//           holds coefficients 2m and n - 1 - 2m, the pair of the C2C's input sample m,
//           written as a complex value to `extended`, which may be `spectrum` itself
//           (each thread reads mode m before it writes sample m).
//   a forward DCT-III (dct3_forward: the mixed axes at vertices): its C2R's line in
//           `extended` holds coefficient cosine_shuffle_source(n, e) at sample e, and
//           the DCT-II back takes the coefficients in that order (C2rLineSamples, then
//           ExtendedLine's shuffle, undone), so the line is divided where it lies.
template <class Policy, class T, class Complex>
__global__ void __launch_bounds__(Policy::block_threads)
    turnaround_kernel(WallPass<T> p, LineGeometry g, SpectralDivision<T> division, Complex* spectrum, T* extended) {
  const WallCoefficient<T, Complex> coefficient{p.line, GridSide{}, p.n, p.twiddles};
  for (std::int64_t r = blockIdx.x; r < p.lines; r += gridDim.x) {
    const std::int64_t m_lane = r / g.lane_lines % g.n_lane, m_block = r / g.block_lines % g.n_block;
    if (p.dct3_forward) {
      T* samples = extended + r * p.line_pitch;
      for (std::int64_t e = threadIdx.x; e < p.length; e += blockDim.x) {
        samples[e] *= division.factor(cosine_shuffle_source(p.n, e), m_lane, m_block);
      }
      continue;
    }
    Complex* line = spectrum + r * p.half;
    // Grid point i of the line as the coefficient array would hold it: divided.
    const auto divided = [&](std::int64_t i) {
      return coefficient.coefficient(i, line) * division.factor(i, m_lane, m_block);
    };
    if (p.line == WallLine::quarter_pairs) {
      const QuarterPairLine<T, Complex> pair{GridSide{}, p.n, p.twiddles};
      Complex* target = reinterpret_cast<Complex*>(extended) + r * (p.line_pitch / 2);
      for (std::int64_t m = threadIdx.x; m < p.half; m += blockDim.x) target[m] = pair(m, divided);
      continue;
    }
    if (p.line != WallLine::cosine) {
      const ExtendedLine<T> extend{p.line, GridSide{}, p.n};
      T* target = extended + r * p.line_pitch;
      for (std::int64_t e = threadIdx.x; e < p.length; e += blockDim.x) target[e] = extend(e, divided);
      continue;
    }
    // Mode k reads grid points k and n - k, both of them mode k of this spectrum.
    const CosineInverseSpectrum<T, Complex> inverse{GridSide{}, p.n, p.twiddles};
    for (std::int64_t k = threadIdx.x; k < p.half; k += blockDim.x) {
      const Complex mode = inverse(k, divided);
      line[k] = mode;
    }
  }
}

// The solution from the coefficient array (in the grid's order), minus its value at
// the first grid point of each problem with `subtract_origin`.
template <class Policy, class T>
__global__ void __launch_bounds__(Policy::block_threads)
    copy_out_kernel(std::int64_t total, std::int64_t points, bool subtract_origin, const T* in, T* out) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t index = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; index < total; index += stride) {
    out[index] = in[index] - (subtract_origin ? in[index / points * points] : T(0));
  }
}

// The weight of point i of a problem in a singular problem's mean (MeanWeights); only
// the `reject` rule on an axis with Neumann walls at vertices pays its divisions.
__device__ __forceinline__ double mean_weight(const MeanWeights& weights, std::int64_t i) {
  double weight = 1;
#pragma unroll
  for (int a = 2; a >= 0; --a) {
    const std::int64_t n = weights.shape[a], m = i % n;
    if (weights.half_ends[a] && (m == 0 || m == n - 1)) weight *= 0.5;
    i /= n;
  }
  return weight;
}

// One block per problem: sum w f and sum w |f| in double, in a fixed order.
template <class Policy, class T>
__global__ void __launch_bounds__(Policy::block_threads)
    sums_kernel(std::int64_t points, MeanWeights weights, const T* rhs, double* sums) {
  const T* problem = rhs + blockIdx.x * points;
  const bool weighted = weights.half_ends[0] || weights.half_ends[1] || weights.half_ends[2];
  double sum = 0, absolute = 0;
  for (std::int64_t i = threadIdx.x; i < points; i += Policy::block_threads) {
    const double value = weighted ? mean_weight(weights, i) * problem[i] : problem[i];
    sum += value;
    absolute += fabs(value);
  }
  sum = block_reduce<Policy::block_threads, DoubleSum>(sum);
  __syncthreads();  // block_reduce's shared scratch is reused by the second reduction
  absolute = block_reduce<Policy::block_threads, DoubleSum>(absolute);
  if (threadIdx.x == 0) {
    sums[2 * blockIdx.x] = sum;
    sums[2 * blockIdx.x + 1] = absolute;
  }
}

}  // namespace cunum::detail
