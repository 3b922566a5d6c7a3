// Poisson solver, CUDA backend: cuFFT real transforms planned once per solver with one
// shared work area, and grid-stride kernels around them. cuFFT has no sine or cosine
// transforms, so each wall axis is transformed on its own, along that axis only, by
// the algorithms of src/poisson_fft/wall_transforms.hpp (docs/poisson_fft.md):
//   Neumann    Makhoul's DCT-II / DCT-III: a shuffle, one real DFT of the grid's own
//              length n, a twiddle; the inverse the other way round;
//   Dirichlet  DST-I: one real DFT of the line's odd extension, 2(n + 1).
// Each wall pass is a pre-processing kernel that gathers the lines of its axis into a
// line array, one batched 1-D cuFFT over them, and a post-processing kernel that
// scatters the real coefficients back into a grid-sized array (the coefficient array),
// ordered wall axes first and periodic axes last, so that the periodic axes are then
// one contiguous batched R2C. The spectral division is its own kernel after that R2C,
// or folded into the last wall pass when no axis is periodic. The inverse runs the
// passes in reverse, the last one writing the solution.
// A fully periodic grid needs no pass: R2C reads the right-hand side and C2R writes the
// solution directly (when they are aligned as cuFFT requires; otherwise they are
// copied through the coefficient array).

#include <cuda_runtime.h>
#include <cufft.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "cunum/core/device_buffer.hpp"
#include "cunum/device/detail/block_reduce.cuh"
#include "kernels/common/launch.cuh"
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

// What the spectral division needs, by value: the spectrum's axes in the order they
// are stored (the coefficient array's order), and the eigenvalue tables.
template <class T>
struct SpectralLayout {
  int order[kPoissonAxes];                 // logical axes, slowest first
  std::int64_t spectrum_shape[kPoissonAxes];  // per logical axis
  std::int64_t modes;                      // per problem
  T screening;
  T scale;                                 // 1 / extended_points
  const T* eigenvalues[kPoissonAxes];      // device tables, one per axis
};

// 1 / (the operator's eigenvalue at mode m), the transform pair's 1/N folded in; 0 for
// a zero eigenvalue (the constants of a singular problem).
template <class T>
__device__ T division_factor(const SpectralLayout<T>& s, const std::int64_t* m) {
  const T eigenvalue = s.eigenvalues[0][m[0]] + s.eigenvalues[1][m[1]] + s.eigenvalues[2][m[2]] - s.screening;
  return eigenvalue == T(0) ? T(0) : s.scale / eigenvalue;
}

// One wall axis's pass: its lines, `lines` of them, each a 1-D transform of `length`
// real samples (half = length / 2 + 1 complex modes). Line r is the grid line through
// the point whose other two axes (others[], in the coefficient array's order) and
// problem have r as their row-major index. In the line arrays, sample e of line r is at
// r * count + e (contiguous: the axis is the innermost one, so lines are read whole)
// or e * lines + r (lines interleaved: neighbouring lines stay neighbours, as in the
// grid arrays).
template <class T>
struct WallPass {
  int axis;
  bool dirichlet;
  bool contiguous;
  std::int64_t n;                          // grid points on the axis
  std::int64_t length;                     // the DFT's length: 2(n + 1) Dirichlet, n Neumann
  std::int64_t half;
  std::int64_t lines;
  int others[2];
  std::int64_t other_shape[2];
  const T* twiddles;                       // Neumann: (cos, sin)(pi k / 2n), k < n, interleaved
};

template <class T>
__device__ std::int64_t line_offset(const WallPass<T>& p, std::int64_t r, std::int64_t e, std::int64_t count) {
  return p.contiguous ? r * count + e : e * p.lines + r;
}

// The inverse of line_offset for a grid-stride index over lines of `count` samples.
template <class T>
__device__ void split_line_index(const WallPass<T>& p, std::int64_t index, std::int64_t count, std::int64_t& r,
                                 std::int64_t& e) {
  if (p.contiguous) {
    r = index / count;
    e = index % count;
  } else {
    e = index / p.lines;
    r = index % p.lines;
  }
}

// The element of `view` at point i of line r; m receives the point's coordinates.
template <class T>
__device__ std::int64_t grid_offset(const WallPass<T>& p, const GridView& view, std::int64_t r, std::int64_t i,
                                    std::int64_t* m) {
  m[p.others[1]] = r % p.other_shape[1];
  m[p.others[0]] = r / p.other_shape[1] % p.other_shape[0];
  m[p.axis] = i;
  const std::int64_t b = r / (p.other_shape[0] * p.other_shape[1]);
  return b * view.problem + m[0] * view.stride[0] + m[1] * view.stride[1] + m[2] * view.stride[2];
}

// Forward pre-processing (and the Dirichlet inverse's, the same transform): each line
// as the DFT's input: odd extension (Dirichlet) or Makhoul's shuffle (Neumann).
template <class T>
__global__ void __launch_bounds__(kBlockThreads) wall_gather_kernel(WallPass<T> p, const T* grid, GridView view,
                                                                     T* line) {
  const std::int64_t total = p.lines * p.length;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t index = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; index < total; index += stride) {
    std::int64_t r, e, m[kPoissonAxes];
    split_line_index(p, index, p.length, r, e);
    T value;
    if (p.dirichlet) {
      const OddExtensionSource source = odd_extension_source(p.n, e);
      value = source.sign == 0 ? T(0) : static_cast<T>(source.sign) * grid[grid_offset(p, view, r, source.source, m)];
    } else {
      value = grid[grid_offset(p, view, r, cosine_shuffle_source(p.n, e), m)];
    }
    line[line_offset(p, r, e, p.length)] = value;
  }
}

// Forward post-processing: the real coefficients of each line from its half spectrum
// (-Im U_{k+1}, or Makhoul's twiddle), into the coefficient array; with `divide`, also
// divided by the eigenvalue (the last wall pass when no axis is periodic).
template <class T, class Complex>
__global__ void __launch_bounds__(kBlockThreads)
    wall_coefficients_kernel(WallPass<T> p, SpectralLayout<T> s, bool divide, const Complex* line, T* grid,
                             GridView view) {
  const std::int64_t total = p.lines * p.n;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t index = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; index < total; index += stride) {
    std::int64_t r, k, m[kPoissonAxes];
    split_line_index(p, index, p.n, r, k);
    const std::int64_t target = grid_offset(p, view, r, k, m);
    T value;
    if (p.dirichlet) {
      value = -line[line_offset(p, r, sine_spectrum_index(k), p.half)].y;
    } else {
      const Complex mode = line[line_offset(p, r, cosine_spectrum_index(p.n, k), p.half)];
      value = cosine_coefficient(p.n, k, p.twiddles[2 * k], p.twiddles[2 * k + 1], mode.x, mode.y);
    }
    grid[target] = divide ? value * division_factor(s, m) : value;
  }
}

// Neumann inverse pre-processing: the half spectrum whose C2R is the shuffled DCT-III.
template <class T, class Complex>
__global__ void __launch_bounds__(kBlockThreads)
    cosine_inverse_spectrum_kernel(WallPass<T> p, const T* grid, GridView view, Complex* line) {
  const std::int64_t total = p.lines * p.half;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t index = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; index < total; index += stride) {
    std::int64_t r, k, m[kPoissonAxes];
    split_line_index(p, index, p.half, r, k);
    const T coefficient = grid[grid_offset(p, view, r, k, m)];
    const T mirror = k == 0 ? T(0) : grid[grid_offset(p, view, r, p.n - k, m)];
    const HalfSpectrumValue<T> z = cosine_inverse_mode(p.twiddles[2 * k], p.twiddles[2 * k + 1], coefficient, mirror);
    Complex mode;
    mode.x = z.re;
    mode.y = z.im;
    line[line_offset(p, r, k, p.half)] = mode;
  }
}

// Neumann inverse post-processing: the C2R's lines unshuffled onto the grid.
template <class T>
__global__ void __launch_bounds__(kBlockThreads) cosine_scatter_kernel(WallPass<T> p, const T* line, T* grid,
                                                                        GridView view) {
  const std::int64_t total = p.lines * p.n;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t index = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; index < total; index += stride) {
    std::int64_t r, i, m[kPoissonAxes];
    split_line_index(p, index, p.n, r, i);
    grid[grid_offset(p, view, r, i, m)] = line[line_offset(p, r, cosine_shuffle_position(p.n, i), p.n)];
  }
}

// Each mode of the spectrum (complex after the periodic R2C, real without a periodic
// axis) divided by the operator's eigenvalue, from `in` to `out` (may be equal).
template <class T, class Value>
__global__ void __launch_bounds__(kBlockThreads)
    divide_kernel(SpectralLayout<T> s, std::int64_t total, const Value* in, Value* out) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  const std::int64_t inner = s.spectrum_shape[s.order[2]];
  const std::int64_t middle = s.spectrum_shape[s.order[1]];
  const std::int64_t outer = s.spectrum_shape[s.order[0]];
  for (std::int64_t index = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; index < total; index += stride) {
    std::int64_t m[kPoissonAxes];
    m[s.order[2]] = index % inner;
    m[s.order[1]] = index / inner % middle;
    m[s.order[0]] = index / (inner * middle) % outer;
    const T factor = division_factor(s, m);
    Value mode = in[index];
    if constexpr (std::is_same_v<Value, T>) {
      mode *= factor;
    } else {
      mode.x *= factor;
      mode.y *= factor;
    }
    out[index] = mode;
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
    std::unique_ptr<CufftPlan> forward;
    std::unique_ptr<CufftPlan> inverse;
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
    for (int j = 0; j < kPoissonAxes; ++j) {
      spectral_.order[j] = order[j];
      spectral_.spectrum_shape[j] = layout.spectrum_shape[j];
    }
    spectral_.modes = layout.modes;
    spectral_.screening = static_cast<T>(layout.screening);
    spectral_.scale = static_cast<T>(1.0 / static_cast<double>(layout.extended_points));

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

    // One pass per wall axis, its lines contiguous when it is the innermost axis of
    // the coefficient array with more than one point.
    int innermost = order[0];
    for (int j = 0; j < kPoissonAxes; ++j) {
      if (layout.shape[order[j]] > 1) innermost = order[j];
    }
    for (int w = 0; w < layout.wall_count; ++w) {
      const int a = layout.walls[w];
      Wall wall;
      WallPass<T>& p = wall.pass;
      p.axis = a;
      p.dirichlet = layout.boundaries[a] == PoissonBoundary::dirichlet;
      p.contiguous = a == innermost;
      p.n = layout.shape[a];
      p.length = p.dirichlet ? 2 * (p.n + 1) : p.n;
      p.half = p.length / 2 + 1;
      p.lines = layout.batch * (layout.points / p.n);
      int other = 0;
      for (int j = 0; j < kPoissonAxes; ++j) {
        if (order[j] == a) continue;
        p.others[other] = order[j];
        p.other_shape[other++] = layout.shape[order[j]];
      }
      p.twiddles = nullptr;
      if (!p.dirichlet) {
        twiddle_offsets_[w] = static_cast<std::int64_t>(host_twiddles_.size());
        for (std::int64_t k = 0; k < p.n; ++k) {
          const double angle = kPi * static_cast<double>(k) / (2.0 * static_cast<double>(p.n));
          host_twiddles_.push_back(static_cast<T>(std::cos(angle)));
          host_twiddles_.push_back(static_cast<T>(std::sin(angle)));
        }
      }
      long long length = p.length, half = p.half, n = p.n;
      const long long element_stride = p.contiguous ? 1 : p.lines;
      wall.forward = plan(1, &length, &length, element_stride, p.contiguous ? p.length : 1, &half, element_stride,
                          p.contiguous ? p.half : 1, Library::forward_type, p.lines);
      if (!p.dirichlet) {
        wall.inverse = plan(1, &n, &half, element_stride, p.contiguous ? p.half : 1, &n, element_stride,
                            p.contiguous ? p.n : 1, Library::inverse_type, p.lines);
      }
      const auto reals = static_cast<std::size_t>(p.lines * p.length);
      const auto modes = static_cast<std::size_t>(p.lines * p.half);
      line_reals = reals > line_reals ? reals : line_reals;
      complex_values = modes > complex_values ? modes : complex_values;
      walls_.push_back(std::move(wall));
    }
    // The periodic axes of more than one point: one R2C over the innermost axes of the
    // coefficient array (or of the grid, for a fully periodic one).
    if (layout.last_fourier >= 0) {
      long long dims[kPoissonAxes];
      int rank = 0;
      std::int64_t fourier_points = 1;
      for (int a = 0; a < kPoissonAxes; ++a) {
        if (!layout.fourier[a]) continue;
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

    twiddles_ = DeviceBuffer<T>(host_twiddles_.size(), stream);
    eigenvalues_.copy_from_host_async(host_eigenvalues_.data(), host_eigenvalues_.size());
    if (twiddles_.size() > 0) twiddles_.copy_from_host_async(host_twiddles_.data(), host_twiddles_.size());
    setup_.record(stream);
    for (int a = 0; a < kPoissonAxes; ++a) spectral_.eigenvalues[a] = eigenvalues_.data() + layout.eigen_offset[a];
    for (int w = 0; w < layout.wall_count; ++w) {
      if (!walls_[w].pass.dirichlet) walls_[w].pass.twiddles = twiddles_.data() + twiddle_offsets_[w];
    }
  }

  void solve(const T* rhs, T* solution, StreamHandle stream) override {
    setup_.order(stream);
    if (layout_.reject_incompatible) check_compatible(rhs, stream);
    for (CufftPlan* each : plans()) CUNUM_CHECK(cufftSetStream(each->get(), stream));
    const std::int64_t total = layout_.batch * layout_.points;
    const bool fourier = layout_.last_fourier >= 0;

    // Forward: the wall passes, rhs -> coefficients.
    const T* current = rhs;
    GridView current_view = grid_view_;
    for (int w = 0; w < layout_.wall_count; ++w) {
      const bool divide_here = w == layout_.wall_count - 1 && !fourier;
      forward_pass(walls_[w], current, current_view, divide_here, stream);
      current = coefficients_.data();
      current_view = coefficient_view_;
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
      launch(divide_kernel<T, Complex>, "poisson_divide_kernel", layout_.batch * layout_.modes, stream, spectral_,
             layout_.batch * layout_.modes, static_cast<const Complex*>(complex_.data()), complex_.data());
      in_solution = layout_.wall_count == 0 && !layout_.pin_origin && complex_aligned(solution);
      if (!in_solution) allocate_coefficients(stream);
      CUNUM_CHECK(Library::inverse(fourier_inverse_->get(), complex_.data(), in_solution ? solution : coefficients_.data()));
    } else if (layout_.wall_count == 0) {
      launch(divide_kernel<T, T>, "poisson_divide_kernel", total, stream, spectral_, total, rhs, coefficients_.data());
    }
    // Inverse: the wall passes in reverse, the first axis's writing the solution in the
    // grid's order (through the coefficient array under the zero_at_origin gauge).
    for (int w = layout_.wall_count - 1; w >= 0; --w) {
      const bool last = w == 0;
      in_solution = last && !layout_.pin_origin;
      inverse_pass(walls_[w], in_solution ? solution : coefficients_.data(), last ? grid_view_ : coefficient_view_,
                   stream);
    }
    if (!in_solution) {
      launch(copy_out_kernel<T>, "poisson_copy_kernel", total, stream, total, layout_.points, layout_.pin_origin,
             static_cast<const T*>(coefficients_.data()), solution);
    }
  }

  std::size_t workspace_bytes() const noexcept override {
    return eigenvalues_.bytes() + twiddles_.bytes() + coefficients_.bytes() + line_real_.bytes() + complex_.bytes() +
           sums_.bytes() + work_area_.bytes();
  }

 private:
  // The wall pass's forward transform, from `source` (seen through `view`) into the
  // coefficient array; a Dirichlet pass is its own inverse.
  void forward_pass(const Wall& wall, const T* source, const GridView& view, bool divide, StreamHandle stream) {
    const WallPass<T>& p = wall.pass;
    launch(wall_gather_kernel<T>, "poisson_wall_gather_kernel", p.lines * p.length, stream, p, source, view,
           line_real_.data());
    CUNUM_CHECK(Library::forward(wall.forward->get(), line_real_.data(), complex_.data()));
    launch(wall_coefficients_kernel<T, Complex>, "poisson_wall_coefficients_kernel", p.lines * p.n, stream, p,
           spectral_, divide, static_cast<const Complex*>(complex_.data()), coefficients_.data(), coefficient_view_);
  }

  // The wall pass's inverse transform, from the coefficient array into `target` (seen
  // through `view`; it may be the coefficient array itself: the line arrays hold the
  // values in between).
  void inverse_pass(const Wall& wall, T* target, const GridView& view, StreamHandle stream) {
    const WallPass<T>& p = wall.pass;
    const T* source = coefficients_.data();
    if (p.dirichlet) {
      launch(wall_gather_kernel<T>, "poisson_wall_gather_kernel", p.lines * p.length, stream, p, source,
             coefficient_view_, line_real_.data());
      CUNUM_CHECK(Library::forward(wall.forward->get(), line_real_.data(), complex_.data()));
      launch(wall_coefficients_kernel<T, Complex>, "poisson_wall_coefficients_kernel", p.lines * p.n, stream, p,
             spectral_, false, static_cast<const Complex*>(complex_.data()), target, view);
      return;
    }
    launch(cosine_inverse_spectrum_kernel<T, Complex>, "poisson_cosine_inverse_spectrum_kernel", p.lines * p.half,
           stream, p, source, coefficient_view_, complex_.data());
    CUNUM_CHECK(Library::inverse(wall.inverse->get(), complex_.data(), line_real_.data()));
    launch(cosine_scatter_kernel<T>, "poisson_cosine_scatter_kernel", p.lines * p.n, stream, p,
           static_cast<const T*>(line_real_.data()), target, view);
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
  std::unique_ptr<CufftPlan> fourier_forward_;
  std::unique_ptr<CufftPlan> fourier_inverse_;
  GridView grid_view_{};
  GridView coefficient_view_{};
  SpectralLayout<T> spectral_{};
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
