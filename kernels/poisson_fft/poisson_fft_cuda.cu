// Poisson solver, CUDA backend: cuFFT real transforms planned once per solver with one
// shared work area, and grid-stride kernels around them. cuFFT has no sine or cosine
// transforms, so each wall axis is transformed on its own, along that axis only, by
// the algorithms of src/poisson_fft/wall_transforms.hpp (docs/poisson_fft.md):
//   Neumann    Makhoul's DCT-II / DCT-III: a shuffle, one real DFT of the grid's own
//              length n, a twiddle; the inverse the other way round;
//   Dirichlet  DST-I: one real DFT of the line's odd extension, 2(n + 1).
// Each wall pass is a pre-processing kernel that gathers the lines of its axis into a
// contiguous line array, one batched 1-D cuFFT over them, and a post-processing kernel
// that scatters the real coefficients back into a grid-sized array (the coefficient
// array), ordered wall axes first and periodic axes last, so that the periodic axes are
// then one contiguous batched R2C. Where a line is not contiguous in its array, the
// pre- and post-processing kernels transpose 32 x 32 tiles through shared memory.
// With two or more Fourier axes, the slowest of power-of-two length, that R2C leaves it
// out and pencil_turnaround_kernel (pencil_fft.cuh) turns around along it: its forward
// FFT, the spectral division and its inverse FFT in one pass over the spectrum, cheaper
// than cuFFT's own passes along that axis. Otherwise the division is its own kernel after
// the R2C; when no axis is periodic, the last wall pass instead turns around on its lines
// (the division and the inverse's pre-processing in one kernel, without the coefficient
// array), or, where the slowest wall axis's DFT length is a power of two, that axis
// turns around along pencils (cosine_pencil_kernel, sine_pencil_kernel) after the other
// wall passes, those of its kind along pencils too. The inverse runs the passes in
// reverse, the last one writing the solution.
// A fully periodic grid needs no pass: R2C reads the right-hand side and C2R writes the
// solution directly (when they are aligned as cuFFT requires; otherwise they are
// copied through the coefficient array).

#include <cuda_runtime.h>
#include <cufft.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "cunum/core/device_buffer.hpp"
#include "cunum/device/detail/block_reduce.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/poisson_fft/pencil_fft.cuh"
#include "src/core/check_libraries.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/routine.hpp"
#include "src/core/setup_fence.hpp"
#include "src/poisson_fft/poisson_fft_backends.hpp"
#include "src/poisson_fft/wall_transforms.hpp"

namespace cunum::detail {

namespace {

constexpr int kBlockThreads = 256;
constexpr int kBlocksPerMultiprocessor = 8;

// cuFFT's types and calls for T.
template <class T>
struct Cufft;
template <>
struct Cufft<float> {
  using Complex = cufftComplex;
  static constexpr cufftType forward_type = CUFFT_R2C;
  static constexpr cufftType inverse_type = CUFFT_C2R;
  static cufftResult forward(cufftHandle plan, float* in, Complex* out) { return cufftExecR2C(plan, in, out); }
  static cufftResult inverse(cufftHandle plan, Complex* in, float* out) { return cufftExecC2R(plan, in, out); }
};
template <>
struct Cufft<double> {
  using Complex = cufftDoubleComplex;
  static constexpr cufftType forward_type = CUFFT_D2Z;
  static constexpr cufftType inverse_type = CUFFT_Z2D;
  static cufftResult forward(cufftHandle plan, double* in, Complex* out) { return cufftExecD2Z(plan, in, out); }
  static cufftResult inverse(cufftHandle plan, Complex* in, double* out) { return cufftExecZ2D(plan, in, out); }
};

// Where the values of an array sit: problem b, grid point (i0, i1, i2) is element
// b problem + i0 stride[0] + i1 stride[1] + i2 stride[2].
struct GridView {
  std::int64_t problem;
  std::int64_t stride[kPoissonAxes];
};

// The spectral division of modes (m_outer, m_middle, m_inner) of three axes in some
// order: each axis's eigenvalue table, resolved on the host so that no kernel indexes
// an array by a run-time axis (which would put it in local memory).
template <class T>
struct SpectralDivision {
  const T* outer;
  const T* middle;
  const T* inner;
  T screening;
  T scale;  // 1 / extended_points: the transform pair's normalisation

  // 1 / (the operator's eigenvalue), the scale folded in; 0 for a zero eigenvalue (the
  // constants of a singular problem).
  __device__ T factor(std::int64_t m_outer, std::int64_t m_middle, std::int64_t m_inner) const {
    const T eigenvalue = outer[m_outer] + middle[m_middle] + inner[m_inner] - screening;
    return eigenvalue == T(0) ? T(0) : scale / eigenvalue;
  }
};

// One wall axis's pass: `lines` 1-D transforms of `length` real samples (half =
// length / 2 + 1 complex modes), one per grid line along `axis`. The line arrays are
// always contiguous (sample e of line r at r * pitch + e), so every cuFFT plan of a pass
// is a plain batched 1-D transform: a strided one costs cuFFT extra passes of its own.
// Line r is the grid line of problem b through (m[slow], m[fast]) with
// r = (b * n[slow] + m[slow]) * n[fast] + m[fast].
template <class T>
struct WallPass {
  int axis;
  bool dirichlet;
  std::int64_t n;                          // grid points on the axis
  std::int64_t length;                     // the DFT's length: 2(n + 1) Dirichlet, n Neumann
  std::int64_t half;
  std::int64_t lines;
  const T* twiddles;                       // Neumann: (cos, sin)(pi k / 2n), k < n, interleaved
};

// How a pass's lines meet one grid-shaped array (the caller's grid or the coefficient
// array). Where the array is contiguous along the pass's axis, a thread takes one sample
// of one line ("along"); otherwise 32 x 32 tiles are transposed through shared memory,
// lanes running along `lane`, the other axis's contiguous one ("across"), so that
// both the array and the lines are read and written in whole sectors. The third axis,
// `block`, and the problem index come from blockIdx.z: one division per block, none
// per element.
struct LineGeometry {
  bool along;
  int axis, lane, block;
  std::int64_t n_axis, n_lane, n_block, batch;
  std::int64_t lane_lines, block_lines, problem_lines;  // line index = b pl + m[lane] ll + m[block] bl
  std::int64_t problem, axis_stride, lane_stride, block_stride;  // the array's strides
};

constexpr int kTile = 32;
constexpr int kTileRows = 8;

// The samples of a line from the grid: `fetch(i)` reads grid point i of the line.
// Forward (and the Dirichlet inverse, the same transform): the odd extension or
// Makhoul's shuffle.
template <class T>
struct ExtendedLine {
  using Value = T;
  bool dirichlet;
  std::int64_t n;
  template <class Fetch>
  __device__ T operator()(std::int64_t e, const Fetch& fetch) const {
    if (!dirichlet) return fetch(cosine_shuffle_source(n, e));
    const OddExtensionSource source = odd_extension_source(n, e);
    return source.sign == 0 ? T(0) : static_cast<T>(source.sign) * fetch(source.source);
  }
};

// Neumann inverse: the half spectrum whose C2R is the shuffled DCT-III.
template <class T, class Complex>
struct CosineInverseSpectrum {
  using Value = Complex;
  std::int64_t n;
  const T* twiddles;
  template <class Fetch>
  __device__ Complex operator()(std::int64_t k, const Fetch& fetch) const {
    const T mirror = k == 0 ? T(0) : fetch(n - k);
    const HalfSpectrumValue<T> z = cosine_inverse_mode(twiddles[2 * k], twiddles[2 * k + 1], fetch(k), mirror);
    Complex mode;
    mode.x = z.re;
    mode.y = z.im;
    return mode;
  }
};

// Grid point k of a line from the line's transform: the real coefficients (-Im U_{k+1},
// or Makhoul's twiddle) after a forward pass.
template <class T, class Complex>
struct WallCoefficient {
  using Line = Complex;
  bool dirichlet;
  std::int64_t n;
  const T* twiddles;
  __device__ T operator()(std::int64_t k, const Complex* line) const {
    if (dirichlet) return -line[sine_spectrum_index(k)].y;
    const Complex mode = line[cosine_spectrum_index(n, k)];
    return cosine_coefficient(n, k, twiddles[2 * k], twiddles[2 * k + 1], mode.x, mode.y);
  }
};

// Neumann inverse: the C2R's line unshuffled.
template <class T>
struct CosineUnshuffle {
  using Line = T;
  std::int64_t n;
  __device__ T operator()(std::int64_t i, const T* line) const { return line[cosine_shuffle_position(n, i)]; }
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

// Samples a thread of an "along" launch moves, kTile * kTileRows apart, loaded first.
constexpr int kAlongItems = 8;
constexpr std::int64_t kAlongSamples = std::int64_t{kTile} * kTileRows * kAlongItems;
// An "across" block transposes kAcrossDepth 32 x 32 tiles stacked along the pass's
// axis, so that each thread has 8 loads in flight before it stores (with one tile, 4
// were too few to cover the memory latency: the across kernels ran at 40% of the along
// ones' bandwidth).
constexpr int kAcrossDepth = 2;
constexpr int kAcrossSamples = kTile * kAcrossDepth;
// Resident blocks asked of the compiler (a register cap): memory-bound, they want warps.
constexpr int kLinesBlocksPerMultiprocessor = 3;

// An "along" block's items: item f of the block's run of `line_group` lines (more than
// one where lines are shorter than a block's kAlongSamples, which would otherwise idle
// most of its threads) is sample e of line y0 + y, (y, e) = (f / extent, f mod extent).
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

// lines[r * pitch + e] = sample(e, line r's grid points), e < pitch.
template <class T, class Sample>
__global__ void __launch_bounds__(kTile * kTileRows, kLinesBlocksPerMultiprocessor)
    lines_from_grid_kernel(Sample sample, LineGeometry g, std::int64_t pitch, const T* grid,
                           typename Sample::Value* lines, std::int64_t line_group) {
  using Value = typename Sample::Value;
  __shared__ Value tile[kAcrossSamples][kTile + 1];
  const int thread = threadIdx.y * kTile + threadIdx.x;
  for (std::int64_t z = blockIdx.z; z < g.batch * g.n_block; z += gridDim.z) {
    std::int64_t b, m_block;
    split_index(z, g.n_block, b, m_block);
    const T* plane = grid + b * g.problem + m_block * g.block_stride;
    Value* plane_lines = lines + (b * g.problem_lines + m_block * g.block_lines) * pitch;
    if (g.along) {
      // Threads along the samples of a run of lines, whose grid points are contiguous.
      for (std::int64_t y0 = blockIdx.y * line_group; y0 < g.n_lane; y0 += gridDim.y * line_group) {
        const std::int64_t first = blockIdx.x * kAlongSamples + thread;
        Value values[kAlongItems];
#pragma unroll
        for (int k = 0; k < kAlongItems; ++k) {
          const AlongItem item = along_item(first + k * kTile * kTileRows, y0, pitch, line_group, g.n_lane);
          const T* source = plane + item.lane * g.lane_stride;
          if (item.valid) values[k] = sample(item.e, [source](std::int64_t i) { return source[i]; });
        }
#pragma unroll
        for (int k = 0; k < kAlongItems; ++k) {
          const AlongItem item = along_item(first + k * kTile * kTileRows, y0, pitch, line_group, g.n_lane);
          if (item.valid) plane_lines[item.lane * g.lane_lines * pitch + item.e] = values[k];
        }
      }
      continue;
    }
    // Neighbouring blocks take neighbouring lane tiles: the grid's rows are read in runs.
    const std::int64_t lane0 = std::int64_t{blockIdx.x} * kTile;
    for (std::int64_t e0 = blockIdx.y * std::int64_t{kAcrossSamples}; e0 < pitch; e0 += gridDim.y * std::int64_t{kAcrossSamples}) {
      if (lane0 + threadIdx.x < g.n_lane) {
        const T* source = plane + (lane0 + threadIdx.x) * g.lane_stride;
        const std::int64_t step = g.axis_stride;
        const auto fetch = [source, step](std::int64_t i) { return source[i * step]; };
#pragma unroll
        for (int j = threadIdx.y; j < kAcrossSamples; j += kTileRows) {
          if (e0 + j < pitch) tile[j][threadIdx.x] = sample(e0 + j, fetch);
        }
      }
      __syncthreads();
#pragma unroll
      for (int h = 0; h < kAcrossDepth; ++h) {
        const std::int64_t e = e0 + h * kTile + threadIdx.x;
        Value* line = plane_lines + lane0 * g.lane_lines * pitch + e;
#pragma unroll
        for (int j = threadIdx.y; j < kTile; j += kTileRows) {
          if (e < pitch && lane0 + j < g.n_lane) line[j * g.lane_lines * pitch] = tile[h * kTile + threadIdx.x][j];
        }
      }
      __syncthreads();
    }
  }
}

// grid point k of each line = coefficient(k, line), k < g.n_axis.
template <class T, class Coefficient>
__global__ void __launch_bounds__(kTile * kTileRows, kLinesBlocksPerMultiprocessor)
    grid_from_lines_kernel(Coefficient coefficient, LineGeometry g, std::int64_t pitch,
                           const typename Coefficient::Line* lines, T* grid, std::int64_t line_group) {
  using Line = typename Coefficient::Line;
  __shared__ T tile[kTile][kAcrossSamples + 1];
  const int thread = threadIdx.y * kTile + threadIdx.x;
  for (std::int64_t z = blockIdx.z; z < g.batch * g.n_block; z += gridDim.z) {
    std::int64_t b, m_block;
    split_index(z, g.n_block, b, m_block);
    T* plane = grid + b * g.problem + m_block * g.block_stride;
    const Line* plane_lines = lines + (b * g.problem_lines + m_block * g.block_lines) * pitch;
    if (g.along) {
      for (std::int64_t y0 = blockIdx.y * line_group; y0 < g.n_lane; y0 += gridDim.y * line_group) {
        const std::int64_t first = blockIdx.x * kAlongSamples + thread;
        T values[kAlongItems];
#pragma unroll
        for (int k = 0; k < kAlongItems; ++k) {
          const AlongItem item = along_item(first + k * kTile * kTileRows, y0, g.n_axis, line_group, g.n_lane);
          if (item.valid) values[k] = coefficient(item.e, plane_lines + item.lane * g.lane_lines * pitch);
        }
#pragma unroll
        for (int k = 0; k < kAlongItems; ++k) {
          const AlongItem item = along_item(first + k * kTile * kTileRows, y0, g.n_axis, line_group, g.n_lane);
          if (item.valid) plane[item.lane * g.lane_stride + item.e] = values[k];
        }
      }
      continue;
    }
    const std::int64_t lane0 = std::int64_t{blockIdx.x} * kTile;
    for (std::int64_t k0 = blockIdx.y * std::int64_t{kAcrossSamples}; k0 < g.n_axis; k0 += gridDim.y * std::int64_t{kAcrossSamples}) {
      const Line* line = plane_lines + lane0 * g.lane_lines * pitch;
#pragma unroll
      for (int h = 0; h < kAcrossDepth; ++h) {
        const std::int64_t k = k0 + h * kTile + threadIdx.x;
        if (k >= g.n_axis) continue;
#pragma unroll
        for (int j = threadIdx.y; j < kTile; j += kTileRows) {
          if (lane0 + j < g.n_lane) tile[j][h * kTile + threadIdx.x] = coefficient(k, line + j * g.lane_lines * pitch);
        }
      }
      __syncthreads();
      const std::int64_t m_lane = lane0 + threadIdx.x;
      if (m_lane < g.n_lane) {
        T* target = plane + m_lane * g.lane_stride;
#pragma unroll
        for (int j = threadIdx.y; j < kAcrossSamples; j += kTileRows) {
          if (k0 + j < g.n_axis) target[(k0 + j) * g.axis_stride] = tile[threadIdx.x][j];
        }
      }
      __syncthreads();
    }
  }
}

// The spectrum of a batch as rows of its innermost axis: `rows` of `inner` modes, row r
// of problem r / (outer middle) at (outer index, middle index) = (r / middle % outer,
// r % middle).
struct SpectrumRows {
  std::int64_t rows, outer, middle, inner;
};

// Each mode of the spectrum (complex after the periodic R2C, real without a periodic
// axis) divided by the operator's eigenvalue, from `in` to `out` (may be equal). One
// warp per row finds the row's indices once; its lanes run along the row, each loading
// kDivideBytes of modes before it divides and stores any (with one load in flight a
// lane, Nsight Compute timed the pass at two thirds of the copy rate).
constexpr int kDivideBytes = 64;

template <class T, class Value>
__global__ void __launch_bounds__(kTile * kTileRows)
    divide_kernel(SpectralDivision<T> division, SpectrumRows shape, const Value* in, Value* out) {
  constexpr int kDivideItems = kDivideBytes / static_cast<int>(sizeof(Value));
  const std::int64_t stride = std::int64_t{gridDim.x} * kTileRows;
  for (std::int64_t row = blockIdx.x * std::int64_t{kTileRows} + threadIdx.y; row < shape.rows; row += stride) {
    const std::int64_t m_middle = row % shape.middle, m_outer = row / shape.middle % shape.outer;
    const std::int64_t first = row * shape.inner;
    for (std::int64_t base = threadIdx.x; base < shape.inner; base += kTile * kDivideItems) {
      Value modes[kDivideItems];
#pragma unroll
      for (int k = 0; k < kDivideItems; ++k) {
        const std::int64_t i = base + k * kTile;
        if (i < shape.inner) modes[k] = in[first + i];
      }
#pragma unroll
      for (int k = 0; k < kDivideItems; ++k) {
        const std::int64_t i = base + k * kTile;
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

// The pencil kernel's launch shape for each length (PencilPolicy), from launch shapes
// timed on the H100 (docs/poisson_fft.md): at least 8 pencils a block (rows of 64 bytes
// or more) and at least 128 threads, within max_threads (1024) and 128 KB of shared
// memory; and as many resident blocks as leave a thread about 80 registers (float) or
// 128 (double), up to 4: with one block an SM, loading, transforming and storing take
// turns instead of overlapping (54% of the copy rate at 512^3 float, 70% with three).
// The wall kernels hold more per thread (a mirror, twiddles, signs): at most 512
// threads and 128 registers a thread in both precisions (at 1024, the 4096-point turnaround
// spilled 420 bytes a thread and moved 2.4 times its data, Nsight Compute).
template <class T>
constexpr int pencils_per_block(int length, int max_threads) {
  const int complex_bytes = 2 * static_cast<int>(sizeof(T));
  const int threads_per_pencil = length < 16 ? 1 : length / 16;
  int pencils = 128 / threads_per_pencil > 8 ? 128 / threads_per_pencil : 8;
  while (pencils > 1 &&
         (pencils * length * complex_bytes > 128 * 1024 || pencils * threads_per_pencil > max_threads)) {
    pencils /= 2;
  }
  return pencils;
}
template <class T>
constexpr int pencil_blocks_per_multiprocessor(int length, int max_threads, int registers_wanted) {
  const int threads = pencils_per_block<T>(length, max_threads) * (length < 16 ? 1 : length / 16);
  const int blocks = 65536 / (threads * registers_wanted);
  return blocks < 1 ? 1 : blocks > 4 ? 4 : blocks;
}
template <class T, int kLength, int kMaxThreads = 1024, int kRegisters = sizeof(T) == 4 ? 80 : 128>
using PoissonPencilPolicy = PencilPolicy<T, kLength, pencils_per_block<T>(kLength, kMaxThreads),
                                         pencil_blocks_per_multiprocessor<T>(kLength, kMaxThreads, kRegisters)>;
template <class T, int kLength>
using PoissonWallPencilPolicy = PoissonPencilPolicy<T, kLength, 512, 128>;

// Calls f(std::integral_constant<int, n>) for a pencil length n = 2^1 .. 2^13; false
// for any other n.
constexpr int kMaxPencilLength = 8192;
template <int kLength = 2, class F>
bool with_pencil_length(std::int64_t n, F&& f) {
  if (n == kLength) {
    f(std::integral_constant<int, kLength>{});
    return true;
  }
  if constexpr (kLength < kMaxPencilLength) {
    return with_pencil_length<2 * kLength>(n, f);
  } else {
    return false;
  }
}

// The turn from the forward to the inverse transform of the last wall axis of a grid
// without periodic axes, on each line's half spectrum where it lies (block per line):
// the coefficients, divided by the operator's eigenvalue, become the inverse's input
// directly, with no trip through the coefficient array (which would cost a scatter and
// a gather over the whole grid). It composes the same functors as those two passes
// (WallCoefficient, then ExtendedLine or CosineInverseSpectrum), so the values are
// theirs, bit for bit.
//   Neumann: mode k (k <= n / 2) holds DCT-II coefficients k and n - k; the inverse
//            spectrum's mode k needs those two, so it is written in place.
//   Dirichlet: the odd extension of the divided DST-I coefficients, into `extended`.
template <class T, class Complex>
__global__ void __launch_bounds__(kBlockThreads)
    turnaround_kernel(WallPass<T> p, LineGeometry g, SpectralDivision<T> division, Complex* spectrum, T* extended) {
  const WallCoefficient<T, Complex> coefficient{p.dirichlet, p.n, p.twiddles};
  for (std::int64_t r = blockIdx.x; r < p.lines; r += gridDim.x) {
    const std::int64_t m_lane = r / g.lane_lines % g.n_lane, m_block = r / g.block_lines % g.n_block;
    Complex* line = spectrum + r * p.half;
    // Grid point i of the line as the coefficient array would hold it: divided.
    const auto divided = [&](std::int64_t i) { return coefficient(i, line) * division.factor(i, m_lane, m_block); };
    if (p.dirichlet) {
      const ExtendedLine<T> extend{true, p.n};
      T* target = extended + r * p.length;
      for (std::int64_t e = threadIdx.x; e < p.length; e += blockDim.x) target[e] = extend(e, divided);
      continue;
    }
    // Mode k reads grid points k and n - k, both of them mode k of this spectrum.
    const CosineInverseSpectrum<T, Complex> inverse{p.n, p.twiddles};
    for (std::int64_t k = threadIdx.x; k < p.half; k += blockDim.x) {
      const Complex mode = inverse(k, divided);
      line[k] = mode;
    }
  }
}

// The solution from the coefficient array (in the grid's order), minus its value at
// the first grid point of each problem with `subtract_origin`.
template <class T>
__global__ void __launch_bounds__(kBlockThreads)
    copy_out_kernel(std::int64_t total, std::int64_t points, bool subtract_origin, const T* in, T* out) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t index = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; index < total; index += stride) {
    out[index] = in[index] - (subtract_origin ? in[index / points * points] : T(0));
  }
}

// One block per problem: sum f and sum |f| in double, in a fixed order.
template <class T>
__global__ void __launch_bounds__(kBlockThreads) sums_kernel(std::int64_t points, const T* rhs, double* sums) {
  const T* problem = rhs + blockIdx.x * points;
  double sum = 0, absolute = 0;
  for (std::int64_t i = threadIdx.x; i < points; i += kBlockThreads) {
    const double value = problem[i];
    sum += value;
    absolute += fabs(value);
  }
  sum = block_reduce<kBlockThreads, DoubleSum>(sum);
  __syncthreads();  // block_reduce's shared scratch is reused by the second reduction
  absolute = block_reduce<kBlockThreads, DoubleSum>(absolute);
  if (threadIdx.x == 0) {
    sums[2 * blockIdx.x] = sum;
    sums[2 * blockIdx.x + 1] = absolute;
  }
}

// A cuFFT plan handle, destroyed with its owner.
class CufftPlan {
 public:
  CufftPlan() { CUNUM_CHECK(cufftCreate(&handle_)); }
  ~CufftPlan() { cufftDestroy(handle_); }
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;
  cufftHandle get() const noexcept { return handle_; }

 private:
  cufftHandle handle_ = 0;
};

constexpr double kPi = 3.14159265358979323846;

template <class T>
class PoissonCuda final : public PoissonBackend<T> {
  using Library = Cufft<T>;
  using Complex = typename Library::Complex;

  // A wall axis's pass: its kernel parameters and its plans (the Dirichlet pass's
  // forward plan serves both directions: DST-I is its own inverse).
  struct Wall {
    WallPass<T> pass;
    LineGeometry on_grid;          // the lines in the caller's grid order
    LineGeometry on_coefficients;  // the lines in the coefficient array
    std::unique_ptr<CufftPlan> forward;
    std::unique_ptr<CufftPlan> inverse;
    // Transformed along pencils by cosine_pencil_kernel or sine_pencil_kernel instead
    // (plan_wall_pencils): the pencils, and the offset of its e^(-2 pi i k / length) in
    // the pencil twiddles.
    bool pencils = false;
    PencilShape pencil_shape{};
    std::int64_t pencil_twiddle_offset = 0;
  };

 public:
  PoissonCuda(const PoissonLayout& layout, StreamHandle stream)
      : layout_(layout),
        multiprocessor_count_(DeviceBinding::current().multiprocessor_count),
        host_eigenvalues_(layout.eigenvalues.begin(), layout.eigenvalues.end()),
        eigenvalues_(host_eigenvalues_.size(), stream),
        sums_(layout.reject_incompatible ? static_cast<std::size_t>(2 * layout.batch) : 0, stream) {
    // The coefficient array's order: wall axes, then periodic axes, each in grid order;
    // its strides, and the grid's own.
    int order[kPoissonAxes], count = 0;
    for (int w = 0; w < layout.wall_count; ++w) order[count++] = layout.walls[w];
    for (int a = 0; a < kPoissonAxes; ++a) {
      if (layout.boundaries[a] == PoissonBoundary::periodic) order[count++] = a;
    }
    grid_view_ = {layout.points, {layout.shape[1] * layout.shape[2], layout.shape[2], 1}};
    coefficient_view_.problem = layout.points;
    std::int64_t stride = 1;
    for (int j = kPoissonAxes - 1; j >= 0; --j) {
      coefficient_view_.stride[order[j]] = stride;
      stride *= layout.shape[order[j]];
    }
    for (int j = 0; j < kPoissonAxes; ++j) order_[j] = order[j];
    spectrum_rows_ = {layout.batch * layout.spectrum_shape[order[0]] * layout.spectrum_shape[order[1]],
                      layout.spectrum_shape[order[0]], layout.spectrum_shape[order[1]],
                      layout.spectrum_shape[order[2]]};

    std::size_t line_reals = 0, complex_values = 0, work_bytes = 0;
    auto plan = [&](int rank, long long* dims, long long* in_embed, long long in_stride, long long in_distance,
                    long long* out_embed, long long out_stride, long long out_distance, cufftType type,
                    long long batch) {
      auto made = std::make_unique<CufftPlan>();
      std::size_t bytes = 0;
      CUNUM_CHECK(cufftSetAutoAllocation(made->get(), 0));
      CUNUM_CHECK(cufftMakePlanMany64(made->get(), rank, dims, in_embed, in_stride, in_distance, out_embed, out_stride,
                                      out_distance, type, batch, &bytes));
      work_bytes = bytes > work_bytes ? bytes : work_bytes;
      return made;
    };

    // One pass per wall axis. Its lines are ordered by the other two axes in the
    // coefficient array's order (the later one with more than one point fastest).
    for (int w = 0; w < layout.wall_count; ++w) {
      const int a = layout.walls[w];
      Wall wall;
      WallPass<T>& p = wall.pass;
      p.axis = a;
      p.dirichlet = layout.boundaries[a] == PoissonBoundary::dirichlet;
      p.n = layout.shape[a];
      p.length = p.dirichlet ? 2 * (p.n + 1) : p.n;
      p.half = p.length / 2 + 1;
      p.lines = layout.batch * (layout.points / p.n);
      int others[2], other = 0;
      for (int j = 0; j < kPoissonAxes; ++j) {
        if (order[j] != a) others[other++] = order[j];
      }
      if (layout.shape[others[1]] == 1) std::swap(others[0], others[1]);
      wall.on_grid = line_geometry(p, others, grid_view_);
      wall.on_coefficients = line_geometry(p, others, coefficient_view_);
      p.twiddles = nullptr;
      if (!p.dirichlet) {
        twiddle_offsets_[w] = static_cast<std::int64_t>(host_twiddles_.size());
        for (std::int64_t k = 0; k < p.n; ++k) {
          const double angle = kPi * static_cast<double>(k) / (2.0 * static_cast<double>(p.n));
          host_twiddles_.push_back(static_cast<T>(std::cos(angle)));
          host_twiddles_.push_back(static_cast<T>(std::sin(angle)));
        }
      }
      if (plan_wall_pencils(w, wall)) {
        walls_.push_back(std::move(wall));  // no plans or line arrays
        continue;
      }
      long long length = p.length, half = p.half, n = p.n;
      wall.forward = plan(1, &length, &length, 1, p.length, &half, 1, p.half, Library::forward_type, p.lines);
      if (!p.dirichlet) wall.inverse = plan(1, &n, &half, 1, p.half, &n, 1, p.n, Library::inverse_type, p.lines);
      const auto reals = static_cast<std::size_t>(p.lines * p.length);
      const auto modes = static_cast<std::size_t>(p.lines * p.half);
      line_reals = reals > line_reals ? reals : line_reals;
      complex_values = modes > complex_values ? modes : complex_values;
      walls_.push_back(std::move(wall));
    }
    // The periodic axes of more than one point: one R2C over the innermost axes of the
    // coefficient array (or of the grid, for a fully periodic one).
    // With a pencil turnaround (plan_pencils), the R2C leaves out the slowest of them.
    if (layout.last_fourier >= 0) {
      const bool pencils = plan_pencils();
      long long dims[kPoissonAxes];
      int rank = 0;
      std::int64_t fourier_points = 1;
      for (int a = 0; a < kPoissonAxes; ++a) {
        if (!layout.fourier[a] || (pencils && a == pencil_axis_)) continue;
        dims[rank++] = layout.shape[a];
        fourier_points *= layout.shape[a];
      }
      const long long batch = layout.batch * (layout.points / fourier_points);
      fourier_forward_ = plan(rank, dims, nullptr, 1, 0, nullptr, 1, 0, Library::forward_type, batch);
      fourier_inverse_ = plan(rank, dims, nullptr, 1, 0, nullptr, 1, 0, Library::inverse_type, batch);
      const auto modes = static_cast<std::size_t>(layout.batch * layout.modes);
      complex_values = modes > complex_values ? modes : complex_values;
    }
    // The plans never run at once: one work area serves them all; likewise one complex
    // array holds the wall passes' half spectra and the periodic spectrum in turn.
    work_area_ = DeviceBuffer<unsigned char>(work_bytes, stream);
    for (CufftPlan* each : plans()) {
      if (work_area_.size() > 0) CUNUM_CHECK(cufftSetWorkArea(each->get(), work_area_.data()));
    }
    complex_ = DeviceBuffer<Complex>(complex_values, stream);
    line_real_ = DeviceBuffer<T>(line_reals, stream);
    // A fully periodic grid transforms the caller's arrays; it needs the coefficient
    // array only for misaligned ones (allocated then) or to shift by u at the origin.
    if (layout.wall_count > 0 || layout.last_fourier < 0 || layout.pin_origin) allocate_coefficients(stream);

    if (pencil_axis_ >= 0) pencil_twiddle_offset_ = add_pencil_twiddles(layout.shape[pencil_axis_]);
    for (Wall& wall : walls_) {
      if (wall.pencils) wall.pencil_twiddle_offset = add_pencil_twiddles(wall.pass.length);
    }
    if (!host_pencil_twiddles_.empty()) {
      pencil_twiddles_ = DeviceBuffer<PencilValue<T>>(host_pencil_twiddles_.size(), stream);
      pencil_twiddles_.copy_from_host_async(host_pencil_twiddles_.data(), host_pencil_twiddles_.size());
    }
    twiddles_ = DeviceBuffer<T>(host_twiddles_.size(), stream);
    eigenvalues_.copy_from_host_async(host_eigenvalues_.data(), host_eigenvalues_.size());
    if (twiddles_.size() > 0) twiddles_.copy_from_host_async(host_twiddles_.data(), host_twiddles_.size());
    setup_.record(stream);
    for (int w = 0; w < layout.wall_count; ++w) {
      if (!walls_[w].pass.dirichlet) walls_[w].pass.twiddles = twiddles_.data() + twiddle_offsets_[w];
    }
  }

  void solve(const T* rhs, T* solution, StreamHandle stream) override {
    setup_.order(stream);
    if (layout_.reject_incompatible) check_compatible(rhs, stream);
    for (CufftPlan* each : plans()) CUNUM_CHECK(cufftSetStream(each->get(), stream));
    if (!walls_.empty() && walls_[0].pencils) {
      solve_along_wall_pencils(rhs, solution, stream);
      return;
    }
    const std::int64_t total = layout_.batch * layout_.points;
    const bool fourier = layout_.last_fourier >= 0;

    // Forward: the wall passes, rhs -> coefficients. Without periodic axes the last
    // one turns around on its lines (turnaround_kernel) instead.
    const int turning_wall = fourier ? -1 : layout_.wall_count - 1;
    const T* current = rhs;
    for (int w = 0; w < layout_.wall_count; ++w) {
      const LineGeometry& geometry = w == 0 ? walls_[w].on_grid : walls_[w].on_coefficients;
      transform_lines(walls_[w], current, geometry, stream);
      if (w == turning_wall) {
        turn_around(walls_[w], stream);
      } else {
        store_coefficients(walls_[w], stream);
      }
      current = coefficients_.data();
    }
    // The periodic axes and the division; cuFFT needs its real arrays aligned like its
    // complex type, so a caller's misaligned array (a slice one element in, say) is
    // copied through the coefficient array.
    bool in_solution = false;
    if (fourier) {
      if (current == rhs && !complex_aligned(rhs)) {
        allocate_coefficients(stream);
        launch(copy_out_kernel<T>, "poisson_copy_kernel", total, stream, total, layout_.points, false, rhs,
               coefficients_.data());
        current = coefficients_.data();
      }
      // An out-of-place R2C leaves its input unchanged: rhs is only read.
      CUNUM_CHECK(Library::forward(fourier_forward_->get(), const_cast<T*>(current), complex_.data()));
      if (pencil_axis_ >= 0) {
        launch_pencils(stream);
      } else {
        launch_divide(static_cast<const Complex*>(complex_.data()), complex_.data(), stream);
      }
      in_solution = layout_.wall_count == 0 && !layout_.pin_origin && complex_aligned(solution);
      if (!in_solution) allocate_coefficients(stream);
      CUNUM_CHECK(Library::inverse(fourier_inverse_->get(), complex_.data(), in_solution ? solution : coefficients_.data()));
    } else if (layout_.wall_count == 0) {
      launch_divide(rhs, coefficients_.data(), stream);
    }
    // Inverse: the wall passes in reverse, the first axis's writing the solution in the
    // grid's order (through the coefficient array under the zero_at_origin gauge).
    for (int w = layout_.wall_count - 1; w >= 0; --w) {
      const bool last = w == 0;
      in_solution = last && !layout_.pin_origin;
      T* target = in_solution ? solution : coefficients_.data();
      const LineGeometry& geometry = last ? walls_[w].on_grid : walls_[w].on_coefficients;
      if (w != turning_wall) load_inverse_lines(walls_[w], stream);
      inverse_transform_lines(walls_[w], target, geometry, stream);
    }
    if (!in_solution) copy_out_coefficients(solution, stream);
  }

  // The coefficient array (in the grid's order by now) into the solution, less its value
  // at the origin under the zero_at_origin gauge.
  void copy_out_coefficients(T* solution, StreamHandle stream) {
    const std::int64_t total = layout_.batch * layout_.points;
    launch(copy_out_kernel<T>, "poisson_copy_kernel", total, stream, total, layout_.points, layout_.pin_origin,
           static_cast<const T*>(coefficients_.data()), solution);
  }

  std::size_t workspace_bytes() const noexcept override {
    return eigenvalues_.bytes() + twiddles_.bytes() + pencil_twiddles_.bytes() + coefficients_.bytes() + line_real_.bytes() + complex_.bytes() +
           sums_.bytes() + work_area_.bytes();
  }

 private:
  // A wall pass is four steps, split so that the last axis of a grid without periodic
  // axes can turn around on its lines: transform_lines (the lines from `source`, the
  // caller's grid or the coefficient array as `geometry` says, and their forward DFT),
  // store_coefficients (the real coefficients into the coefficient array), then, on the
  // way back, load_inverse_lines (the inverse's lines from the coefficient array) and
  // inverse_transform_lines (their inverse DFT into `target`). A Dirichlet pass is its
  // own inverse.
  void transform_lines(const Wall& wall, const T* source, const LineGeometry& geometry, StreamHandle stream) {
    const WallPass<T>& p = wall.pass;
    const ExtendedLine<T> extend{p.dirichlet, p.n};
    launch_lines(lines_from_grid_kernel<T, ExtendedLine<T>>, "poisson_wall_lines_kernel", geometry, p.length, stream,
                 extend, geometry, p.length, source, line_real_.data());
    CUNUM_CHECK(Library::forward(wall.forward->get(), line_real_.data(), complex_.data()));
  }

  void store_coefficients(const Wall& wall, StreamHandle stream) {
    const WallPass<T>& p = wall.pass;
    const WallCoefficient<T, Complex> coefficient{p.dirichlet, p.n, p.twiddles};
    launch_lines(grid_from_lines_kernel<T, WallCoefficient<T, Complex>>, "poisson_wall_coefficients_kernel",
                 wall.on_coefficients, p.n, stream, coefficient, wall.on_coefficients, p.half,
                 static_cast<const Complex*>(complex_.data()), coefficients_.data());
  }

  // The last pass's coefficients divided and turned into its inverse's lines.
  void turn_around(const Wall& wall, StreamHandle stream) {
    const char* name = "poisson_turnaround_kernel";
    const std::int64_t resident = std::int64_t{multiprocessor_count_} * kBlocksPerMultiprocessor;
    const LaunchConfig config{grid_1d(wall.pass.lines < resident ? wall.pass.lines : resident, name),
                              dim3(kBlockThreads), 0, stream};
    launch_kernel(turnaround_kernel<T, Complex>, name, config, wall.pass, wall.on_coefficients,
                  division(wall.on_coefficients), complex_.data(), line_real_.data());
  }

  void load_inverse_lines(const Wall& wall, StreamHandle stream) {
    const WallPass<T>& p = wall.pass;
    const T* source = coefficients_.data();
    if (p.dirichlet) {
      const ExtendedLine<T> extend{true, p.n};
      launch_lines(lines_from_grid_kernel<T, ExtendedLine<T>>, "poisson_wall_lines_kernel", wall.on_coefficients,
                   p.length, stream, extend, wall.on_coefficients, p.length, source, line_real_.data());
      return;
    }
    const CosineInverseSpectrum<T, Complex> spectrum{p.n, p.twiddles};
    launch_lines(lines_from_grid_kernel<T, CosineInverseSpectrum<T, Complex>>, "poisson_cosine_inverse_spectrum_kernel",
                 wall.on_coefficients, p.half, stream, spectrum, wall.on_coefficients, p.half, source, complex_.data());
  }

  void inverse_transform_lines(const Wall& wall, T* target, const LineGeometry& geometry, StreamHandle stream) {
    const WallPass<T>& p = wall.pass;
    if (p.dirichlet) {
      CUNUM_CHECK(Library::forward(wall.forward->get(), line_real_.data(), complex_.data()));
      const WallCoefficient<T, Complex> coefficient{true, p.n, nullptr};
      launch_lines(grid_from_lines_kernel<T, WallCoefficient<T, Complex>>, "poisson_wall_coefficients_kernel",
                   geometry, p.n, stream, coefficient, geometry, p.half, static_cast<const Complex*>(complex_.data()),
                   target);
      return;
    }
    CUNUM_CHECK(Library::inverse(wall.inverse->get(), complex_.data(), line_real_.data()));
    const CosineUnshuffle<T> unshuffle{p.n};
    launch_lines(grid_from_lines_kernel<T, CosineUnshuffle<T>>, "poisson_cosine_unshuffle_kernel", geometry, p.n,
                 stream, unshuffle, geometry, p.n, static_cast<const T*>(line_real_.data()), target);
  }

  LineGeometry line_geometry(const WallPass<T>& p, const int others[2], const GridView& view) const {
    LineGeometry g{};
    g.axis = p.axis;
    g.n_axis = p.n;
    g.batch = layout_.batch;
    g.problem = view.problem;
    const int slow = others[0], fast = others[1];
    const std::int64_t fast_lines = 1, slow_lines = layout_.shape[fast];
    g.problem_lines = layout_.shape[slow] * layout_.shape[fast];
    g.along = view.stride[p.axis] == 1 && p.n > 1;
    const bool lane_is_fast = g.along || layout_.shape[slow] == 1 || view.stride[fast] <= view.stride[slow];
    g.lane = lane_is_fast ? fast : slow;
    g.block = lane_is_fast ? slow : fast;
    g.lane_lines = lane_is_fast ? fast_lines : slow_lines;
    g.block_lines = lane_is_fast ? slow_lines : fast_lines;
    g.n_lane = layout_.shape[g.lane];
    g.n_block = layout_.shape[g.block];
    g.axis_stride = view.stride[g.axis];
    g.lane_stride = view.stride[g.lane];
    g.block_stride = view.stride[g.block];
    return g;
  }

  // The eigenvalue tables of three axes, in the order a kernel indexes them.
  SpectralDivision<T> division(int outer, int middle, int inner) const {
    const T* tables = eigenvalues_.data();
    return {tables + layout_.eigen_offset[outer], tables + layout_.eigen_offset[middle],
            tables + layout_.eigen_offset[inner], static_cast<T>(layout_.screening),
            static_cast<T>(1.0 / static_cast<double>(layout_.extended_points))};
  }
  SpectralDivision<T> division(const LineGeometry& g) const { return division(g.axis, g.lane, g.block); }

  // divide_kernel over the whole spectrum, in the coefficient array's order.
  template <class Value>
  void launch_divide(const Value* in, Value* out, StreamHandle stream) const {
    const char* name = "poisson_divide_kernel";
    const std::int64_t needed = (spectrum_rows_.rows + kTileRows - 1) / kTileRows;
    const std::int64_t resident = std::int64_t{multiprocessor_count_} * kBlocksPerMultiprocessor;
    const LaunchConfig config{grid_1d(needed < resident ? needed : resident, name), dim3(kTile, kTileRows), 0, stream};
    launch_kernel(divide_kernel<T, Value>, name, config, division(order_[0], order_[1], order_[2]), spectrum_rows_, in,
                  out);
  }

  // Whether the periodic spectrum turns around in pencil_turnaround_kernel: at least two
  // Fourier axes, the slowest of them (in the coefficient array's order) of power-of-two
  // length up to kMaxPencilLength, and the device's shared memory enough for its tile.
  // Sets pencil_axis_ and pencil_shape_.
  bool plan_pencils() {
    int position = -1, fourier_axes = 0;
    for (int j = 0; j < kPoissonAxes; ++j) {
      if (!layout_.fourier[order_[j]]) continue;
      if (position < 0) position = j;
      ++fourier_axes;
    }
    if (fourier_axes < 2) return false;
    const int axis = order_[position];
    if (!pencil_shared_memory_fits(layout_.shape[axis])) return false;
    const std::int64_t* spectrum = layout_.spectrum_shape;
    PencilShape& shape = pencil_shape_;
    shape.pencil_is_outer = position == 0;
    shape.inner = spectrum[order_[2]];
    shape.outer = spectrum[order_[0]];
    shape.pencils = position == 0 ? spectrum[order_[1]] * spectrum[order_[2]] : spectrum[order_[2]];
    shape.problems = position == 0 ? layout_.batch : layout_.batch * spectrum[order_[0]];
    shape.row_stride = shape.pencils;
    pencil_axis_ = axis;
    return true;
  }

  // Whether wall pass w of a grid without periodic axes goes along pencils through
  // cosine_pencil_kernel (Neumann) or sine_pencil_kernel (Dirichlet), set then with the
  // wall's pencil shape: the slowest wall axis (w = 0, the coefficient array's outer
  // axis) when it can turn around that way (its DFT length, n or 2(n + 1), a power of
  // two up to kMaxPencilLength, its tile within the device's shared memory, and another
  // wall pass to move the right-hand side into the coefficient array); and then each
  // other wall axis of such a length but the array's contiguous one, whose pencils
  // would be read across their rows.
  bool plan_wall_pencils(int w, Wall& wall) const {
    const WallPass<T>& p = wall.pass;
    if (layout_.last_fourier >= 0 || layout_.wall_count < 2 || (w > 0 && !walls_[0].pencils)) return false;
    if ((w > 0 && coefficient_view_.stride[p.axis] == 1) || !pencil_shared_memory_fits(p.length)) return false;
    std::int64_t slower = 1, faster = 1;  // points of the axes before and after it
    bool after = false;
    for (int j = 0; j < kPoissonAxes; ++j) {
      if (order_[j] == p.axis) {
        after = true;
      } else {
        (after ? faster : slower) *= layout_.shape[order_[j]];
      }
    }
    PencilShape& shape = wall.pencil_shape;
    shape.pencil_is_outer = true;  // the turnaround's axis is the outer one
    shape.inner = layout_.shape[order_[2]];
    shape.outer = layout_.shape[order_[0]];
    shape.row_stride = faster;         // real pencils
    shape.pencils = (faster + 1) / 2;  // taken in pairs
    shape.problems = layout_.batch * slower;
    wall.pencils = true;
    return true;
  }

  // e^(-2 pi i k / n), k < n, appended to the pencil twiddles; returns their offset.
  std::int64_t add_pencil_twiddles(std::int64_t n) {
    const auto offset = static_cast<std::int64_t>(host_pencil_twiddles_.size());
    for (std::int64_t k = 0; k < n; ++k) {
      const double angle = 2.0 * kPi * static_cast<double>(k) / static_cast<double>(n);
      host_pencil_twiddles_.push_back({static_cast<T>(std::cos(angle)), static_cast<T>(-std::sin(angle))});
    }
    return offset;
  }

  // Whether n is a pencil length (a power of two up to kMaxPencilLength) whose tile fits
  // the device's shared memory.
  static bool pencil_shared_memory_fits(std::int64_t n) {
    std::size_t shared_bytes = 0;
    if (!with_pencil_length(n, [&](auto length) {
          shared_bytes = PoissonPencilPolicy<T, decltype(length)::value>::shared_bytes;
        })) {
      return false;
    }
    int shared_optin = 0;
    CUNUM_CHECK(cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                       DeviceBinding::current().device));
    return shared_bytes <= static_cast<std::size_t>(shared_optin);
  }

  void launch_pencils(StreamHandle stream) {
    with_pencil_length(layout_.shape[pencil_axis_], [&](auto length) {
      using Policy = PoissonPencilPolicy<T, decltype(length)::value>;
      const char* name = "poisson_pencil_turnaround_kernel";
      const PencilShape shape = with_tiles<Policy>(pencil_shape_);
      launch_kernel(pencil_turnaround_kernel<Policy, SpectralDivision<T>>, name,
                    pencil_launch<Policy>(shape, name, stream), division(order_[0], order_[1], order_[2]), shape,
                    pencil_twiddles_.data() + pencil_twiddle_offset_,
                    reinterpret_cast<PencilValue<T>*>(complex_.data()));
    });
  }

  // Stage kStage of a wall's transforms along its pencils, source -> target.
  template <WallStage kStage>
  void launch_wall_pencils(const Wall& wall, const T* source, T* target, StreamHandle stream) {
    with_pencil_length(wall.pass.length, [&](auto length) {
      using Policy = PoissonWallPencilPolicy<T, decltype(length)::value>;
      const PencilShape shape = with_tiles<Policy>(wall.pencil_shape);
      const PencilValue<T>* twiddles = pencil_twiddles_.data() + wall.pencil_twiddle_offset;
      const SpectralDivision<T> by_eigenvalues = division(order_[0], order_[1], order_[2]);
      if (wall.pass.dirichlet) {
        // DST-I is its own inverse: one kernel serves both directions.
        constexpr WallStage kSineStage = kStage == WallStage::turnaround ? kStage : WallStage::forward;
        const char* name = "poisson_sine_pencil_kernel";
        launch_kernel(sine_pencil_kernel<Policy, kSineStage, SpectralDivision<T>>, name,
                      pencil_launch<Policy>(shape, name, stream), by_eigenvalues, shape, twiddles, source, target);
        return;
      }
      const char* name = "poisson_cosine_pencil_kernel";
      // The Neumann pass's (cos, sin)(pi k / 2n), interleaved: a PencilValue each.
      const auto* quarter_twiddles = reinterpret_cast<const PencilValue<T>*>(wall.pass.twiddles);
      launch_kernel(cosine_pencil_kernel<Policy, kStage, SpectralDivision<T>>, name,
                    pencil_launch<Policy>(shape, name, stream), by_eigenvalues, shape, twiddles, quarter_twiddles,
                    source, target);
    });
  }

  // The shape with its tiles of Policy::pencils units a problem.
  template <class Policy>
  static PencilShape with_tiles(PencilShape shape) {
    shape.tiles = (shape.pencils + Policy::pencils - 1) / Policy::pencils;
    return shape;
  }

  // A block a tile of a shape with its tiles set.
  template <class Policy>
  static LaunchConfig pencil_launch(const PencilShape& shape, const char* name, StreamHandle stream) {
    return {grid_1d(shape.problems * shape.tiles, name), dim3(Policy::block_threads), Policy::shared_bytes, stream};
  }

  // A grid without periodic axes whose slowest wall axis turns around along pencils:
  // the cuFFT wall passes, then the other pencil passes, forward (rhs -> coefficients);
  // the turnaround in place; the same passes back in reverse order, the last writing the
  // solution (through the coefficient array under the zero_at_origin gauge). The passes
  // along different axes commute.
  void solve_along_wall_pencils(const T* rhs, T* solution, StreamHandle stream) {
    std::vector<int> passes;
    for (const bool pencils : {false, true}) {
      for (int w = 1; w < layout_.wall_count; ++w) {
        if (walls_[w].pencils == pencils) passes.push_back(w);
      }
    }
    const T* current = rhs;
    for (const int w : passes) {
      const Wall& wall = walls_[w];
      if (wall.pencils) {
        launch_wall_pencils<WallStage::forward>(wall, current, coefficients_.data(), stream);
      } else {
        transform_lines(wall, current, current == rhs ? wall.on_grid : wall.on_coefficients, stream);
        store_coefficients(wall, stream);
      }
      current = coefficients_.data();
    }
    launch_wall_pencils<WallStage::turnaround>(walls_[0], coefficients_.data(), coefficients_.data(), stream);
    const bool in_solution = !layout_.pin_origin;
    for (auto pass = passes.rbegin(); pass != passes.rend(); ++pass) {
      const Wall& wall = walls_[*pass];
      T* target = in_solution && pass + 1 == passes.rend() ? solution : coefficients_.data();
      if (wall.pencils) {
        launch_wall_pencils<WallStage::inverse>(wall, coefficients_.data(), target, stream);
      } else {
        load_inverse_lines(wall, stream);
        inverse_transform_lines(wall, target, target == solution ? wall.on_grid : wall.on_coefficients, stream);
      }
    }
    if (!in_solution) copy_out_coefficients(solution, stream);
  }

  // A launch of lines_from_grid_kernel or grid_from_lines_kernel over `samples` samples
  // (or grid points) of each line; blockIdx.y and .z loop where the grid is capped.
  template <class Kernel, class... Args>
  void launch_lines(Kernel kernel, const char* name, const LineGeometry& g, std::int64_t samples, StreamHandle stream,
                    Args... args) const {
    constexpr std::int64_t kMaxGridYZ = 65535;
    // Along: x over each line's samples, y over runs of line_group lines (lines shorter
    // than a block's samples share it). Across: x over the lane tiles, y over the tiles
    // along the axis.
    const std::int64_t line_group = g.along && samples < kAlongSamples ? kAlongSamples / samples : 1;
    const std::int64_t sample_blocks = g.along ? (samples + kAlongSamples - 1) / kAlongSamples
                                               : (samples + kAcrossSamples - 1) / kAcrossSamples;
    const std::int64_t lane_blocks = g.along ? (g.n_lane + line_group - 1) / line_group : (g.n_lane + kTile - 1) / kTile;
    const std::int64_t x = g.along ? sample_blocks : lane_blocks;
    const std::int64_t y = g.along ? lane_blocks : sample_blocks;
    const std::int64_t z = g.batch * g.n_block;
    const dim3 grid(grid_1d(x, name).x, static_cast<unsigned>(y < kMaxGridYZ ? y : kMaxGridYZ),
                    static_cast<unsigned>(z < kMaxGridYZ ? z : kMaxGridYZ));
    const LaunchConfig config{grid, dim3(kTile, kTileRows), 0, stream};
    launch_kernel(kernel, name, config, args..., line_group);
  }

  std::vector<CufftPlan*> plans() const {
    std::vector<CufftPlan*> all;
    for (const Wall& wall : walls_) {
      for (CufftPlan* each : {wall.forward.get(), wall.inverse.get()}) {
        if (each != nullptr) all.push_back(each);
      }
    }
    for (CufftPlan* each : {fourier_forward_.get(), fourier_inverse_.get()}) {
      if (each != nullptr) all.push_back(each);
    }
    return all;
  }

  void allocate_coefficients(StreamHandle stream) {
    if (coefficients_.size() == 0) {
      coefficients_ = DeviceBuffer<T>(static_cast<std::size_t>(layout_.batch * layout_.points), stream);
    }
  }

  // Enough blocks of a grid-stride kernel to fill the device, never more than `items` need.
  template <class Kernel, class... Args>
  void launch(Kernel kernel, const char* name, std::int64_t items, StreamHandle stream, Args... args) const {
    const std::int64_t needed = (items + kBlockThreads - 1) / kBlockThreads;
    const std::int64_t resident = std::int64_t{multiprocessor_count_} * kBlocksPerMultiprocessor;
    const LaunchConfig config{grid_1d(needed < resident ? needed : resident, name), dim3(kBlockThreads), 0, stream};
    launch_kernel(kernel, name, config, args...);
  }

  static bool complex_aligned(const T* pointer) {
    return reinterpret_cast<std::uintptr_t>(pointer) % alignof(Complex) == 0;
  }

  // The `reject` rule: the sums come back to the host (the call waits for them).
  void check_compatible(const T* rhs, StreamHandle stream) {
    const LaunchConfig config{grid_1d(layout_.batch, "poisson_sums_kernel"), dim3(kBlockThreads), 0, stream};
    launch_kernel(sums_kernel<T>, "poisson_sums_kernel", config, layout_.points, rhs, sums_.data());
    std::vector<double> sums(sums_.size());
    CUNUM_CHECK(cudaMemcpyAsync(sums.data(), sums_.data(), sums_.bytes(), cudaMemcpyDeviceToHost, stream));
    CUNUM_CHECK(cudaStreamSynchronize(stream));
    require_compatible(layout_, sums.data(), RoutineScope::current());
  }

  PoissonLayout layout_;
  int multiprocessor_count_;
  std::vector<T> host_eigenvalues_;  // the sources of the setup copies, kept until they are done
  std::vector<T> host_twiddles_;
  std::int64_t twiddle_offsets_[kPoissonAxes] = {};
  DeviceBuffer<T> eigenvalues_;
  DeviceBuffer<T> twiddles_;
  DeviceBuffer<double> sums_;         // the `reject` rule's sums
  DeviceBuffer<T> coefficients_;      // grid-sized, in the coefficient array's order
  DeviceBuffer<T> line_real_;         // a wall pass's real lines
  DeviceBuffer<Complex> complex_;     // a wall pass's half spectra, or the periodic spectrum
  DeviceBuffer<unsigned char> work_area_;
  std::vector<Wall> walls_;
  int pencil_axis_ = -1;              // the axis of the periodic pencil turnaround; -1 without one
  PencilShape pencil_shape_{};
  std::int64_t pencil_twiddle_offset_ = 0;
  std::vector<PencilValue<T>> host_pencil_twiddles_;
  DeviceBuffer<PencilValue<T>> pencil_twiddles_;  // e^(-2 pi i k / n), k < n, for each pencil axis
  std::unique_ptr<CufftPlan> fourier_forward_;
  std::unique_ptr<CufftPlan> fourier_inverse_;
  GridView grid_view_{};
  GridView coefficient_view_{};
  int order_[kPoissonAxes] = {};     // the coefficient array's axes, slowest first
  SpectrumRows spectrum_rows_{};
  SetupFence setup_;
};

}  // namespace

template <class T>
std::unique_ptr<PoissonBackend<T>> make_poisson_cuda(const PoissonLayout& layout, StreamHandle stream) {
  return std::make_unique<PoissonCuda<T>>(layout, stream);
}

#define CUNUM_INSTANTIATE_POISSON_CUDA(T) \
  template std::unique_ptr<PoissonBackend<T>> make_poisson_cuda(const PoissonLayout&, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_POISSON_CUDA, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
