// Poisson solver, CUDA backend: cuFFT real transforms (R2C/C2R, D2Z/Z2D) planned once
// per solver with one shared work area, and three grid-stride kernels around them:
//   extend    the right-hand side onto the periodic extension of the wall axes (odd
//             about Dirichlet walls, even about the half sample at Neumann walls);
//   divide    each mode by the operator's eigenvalue, the 1/N of the transform pair
//             folded in (zero eigenvalue: the mode is set to 0);
//   restrict  the extended solution back to the grid, minus u at the first grid
//             point under the zero_at_origin gauge.
// cuFFT has no sine or cosine transforms: the extensions turn them into real FFTs of
// twice the length (docs/poisson_fft.md). A fully periodic grid needs neither extend
// nor restrict: R2C reads the right-hand side and C2R writes the solution directly
// (when they are aligned as cuFFT requires; otherwise extend and restrict copy them).

#include <cuda_runtime.h>
#include <cufft.h>

#include <cstdint>
#include <vector>

#include "cunum/core/device_buffer.hpp"
#include "kernels/common/block_reduce.cuh"
#include "kernels/common/launch.cuh"
#include "src/core/check_libraries.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/routine.hpp"
#include "src/core/setup_fence.hpp"
#include "src/poisson_fft/poisson_fft_backends.hpp"

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

// What the kernels need of the layout, by value.
template <class T>
struct KernelLayout {
  std::int64_t batch;
  std::int64_t shape[kPoissonAxes];
  std::int64_t extended[kPoissonAxes];
  PoissonBoundary boundaries[kPoissonAxes];
  std::int64_t points;
  std::int64_t extended_points;
  std::int64_t half_last;
  std::int64_t modes;
  bool pin_origin;
  T screening;
  T scale;                                 // 1 / extended_points
  const T* eigenvalues[kPoissonAxes];      // device tables, one per axis
};

template <class T>
__global__ void __launch_bounds__(kBlockThreads) extend_kernel(KernelLayout<T> l, const T* rhs, T* real) {
  const std::int64_t total = l.batch * l.extended_points;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t index = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; index < total; index += stride) {
    const std::int64_t e2 = index % l.extended[2];
    const std::int64_t e1 = index / l.extended[2] % l.extended[1];
    const std::int64_t e0 = index / (l.extended[2] * l.extended[1]) % l.extended[0];
    const std::int64_t b = index / l.extended_points;
    const ExtensionSource s0 = extension_source(l.boundaries[0], l.shape[0], e0);
    const ExtensionSource s1 = extension_source(l.boundaries[1], l.shape[1], e1);
    const ExtensionSource s2 = extension_source(l.boundaries[2], l.shape[2], e2);
    const int sign = s0.sign * s1.sign * s2.sign;
    const std::int64_t source = ((b * l.shape[0] + s0.source) * l.shape[1] + s1.source) * l.shape[2] + s2.source;
    real[index] = sign == 0 ? T(0) : static_cast<T>(sign) * rhs[source];
  }
}

template <class T, class Complex>
__global__ void __launch_bounds__(kBlockThreads) divide_kernel(KernelLayout<T> l, Complex* spectrum) {
  const std::int64_t total = l.batch * l.modes;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t index = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; index < total; index += stride) {
    const std::int64_t m2 = index % l.half_last;
    const std::int64_t m1 = index / l.half_last % l.extended[1];
    const std::int64_t m0 = index / (l.half_last * l.extended[1]) % l.extended[0];
    const T eigenvalue = l.eigenvalues[0][m0] + l.eigenvalues[1][m1] + l.eigenvalues[2][m2] - l.screening;
    const T factor = eigenvalue == T(0) ? T(0) : l.scale / eigenvalue;
    Complex mode = spectrum[index];
    mode.x *= factor;
    mode.y *= factor;
    spectrum[index] = mode;
  }
}

template <class T>
__global__ void __launch_bounds__(kBlockThreads) restrict_kernel(KernelLayout<T> l, const T* real, T* solution) {
  const std::int64_t total = l.batch * l.points;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  const std::int64_t origin = (extended_index(l.boundaries[0], 0) * l.extended[1] +
                               extended_index(l.boundaries[1], 0)) * l.extended[2] +
                              extended_index(l.boundaries[2], 0);
  for (std::int64_t index = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; index < total; index += stride) {
    const std::int64_t i2 = index % l.shape[2];
    const std::int64_t i1 = index / l.shape[2] % l.shape[1];
    const std::int64_t i0 = index / (l.shape[2] * l.shape[1]) % l.shape[0];
    const T* problem = real + index / l.points * l.extended_points;
    const std::int64_t source = (extended_index(l.boundaries[0], i0) * l.extended[1] +
                                 extended_index(l.boundaries[1], i1)) * l.extended[2] +
                                extended_index(l.boundaries[2], i2);
    solution[index] = problem[source] - (l.pin_origin ? problem[origin] : T(0));
  }
}

struct Sum {
  __device__ static double identity() { return 0.0; }
  __device__ static double combine(double a, double b) { return a + b; }
};

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
  sum = block_reduce<kBlockThreads, Sum>(sum);
  __syncthreads();  // block_reduce's shared scratch is reused by the second reduction
  absolute = block_reduce<kBlockThreads, Sum>(absolute);
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

template <class T>
class PoissonCuda final : public PoissonBackend<T> {
  using Library = Cufft<T>;
  using Complex = typename Library::Complex;

 public:
  PoissonCuda(const PoissonLayout& layout, StreamHandle stream)
      : layout_(layout),
        multiprocessor_count_(DeviceBinding::current().multiprocessor_count),
        host_eigenvalues_(layout.eigenvalues.begin(), layout.eigenvalues.end()),
        eigenvalues_(host_eigenvalues_.size(), stream),
        spectrum_(static_cast<std::size_t>(layout.batch * layout.modes), stream),
        real_(layout.extends || layout.pin_origin ? static_cast<std::size_t>(layout.batch * layout.extended_points) : 0,
              stream),  // a fully periodic grid needs it only for misaligned arrays
        sums_(layout.reject_incompatible ? static_cast<std::size_t>(2 * layout.batch) : 0, stream) {
    // The transform's axes, slowest first. An axis of length 1 other than the last is
    // an identity and leaves the layout unchanged, so it is left out of the plan (the
    // last one fixes the half spectrum's length and stays).
    long long dims[kPoissonAxes];
    int rank = 0;
    for (int a = kPoissonAxes - layout.rank; a < kPoissonAxes; ++a) {
      if (layout.extended[a] > 1 || a == kPoissonAxes - 1) dims[rank++] = layout.extended[a];
    }
    std::size_t forward_bytes = 0, inverse_bytes = 0;
    CUNUM_CHECK(cufftSetAutoAllocation(forward_.get(), 0));
    CUNUM_CHECK(cufftSetAutoAllocation(inverse_.get(), 0));
    CUNUM_CHECK(cufftMakePlanMany64(forward_.get(), rank, dims, nullptr, 1, 0, nullptr, 1, 0,
                                    Library::forward_type, layout.batch, &forward_bytes));
    CUNUM_CHECK(cufftMakePlanMany64(inverse_.get(), rank, dims, nullptr, 1, 0, nullptr, 1, 0,
                                    Library::inverse_type, layout.batch, &inverse_bytes));
    // The two transforms never run at once: one work area serves both.
    work_area_ = DeviceBuffer<unsigned char>(forward_bytes > inverse_bytes ? forward_bytes : inverse_bytes, stream);
    if (work_area_.size() > 0) {
      CUNUM_CHECK(cufftSetWorkArea(forward_.get(), work_area_.data()));
      CUNUM_CHECK(cufftSetWorkArea(inverse_.get(), work_area_.data()));
    }
    eigenvalues_.copy_from_host_async(host_eigenvalues_.data(), host_eigenvalues_.size());
    setup_.record(stream);

    kernel_layout_.batch = layout.batch;
    for (int a = 0; a < kPoissonAxes; ++a) {
      kernel_layout_.shape[a] = layout.shape[a];
      kernel_layout_.extended[a] = layout.extended[a];
      kernel_layout_.boundaries[a] = layout.boundaries[a];
      kernel_layout_.eigenvalues[a] = eigenvalues_.data() + layout.eigen_offset[a];
    }
    kernel_layout_.points = layout.points;
    kernel_layout_.extended_points = layout.extended_points;
    kernel_layout_.half_last = layout.half_last;
    kernel_layout_.modes = layout.modes;
    kernel_layout_.pin_origin = layout.pin_origin;
    kernel_layout_.screening = static_cast<T>(layout.screening);
    kernel_layout_.scale = static_cast<T>(1.0 / static_cast<double>(layout.extended_points));
  }

  void solve(const T* rhs, T* solution, StreamHandle stream) override {
    setup_.order(stream);
    if (layout_.reject_incompatible) check_compatible(rhs, stream);
    CUNUM_CHECK(cufftSetStream(forward_.get(), stream));
    CUNUM_CHECK(cufftSetStream(inverse_.get(), stream));
    // cuFFT needs its real arrays aligned like its complex type: a caller's array that
    // is not (a slice one element in, say) goes through the solver's own, as do the
    // arrays of a grid with walls (extended) or of the zero_at_origin gauge (shifted).
    const bool stage_input = layout_.extends || !complex_aligned(rhs);
    const bool stage_output = layout_.extends || layout_.pin_origin || !complex_aligned(solution);
    if ((stage_input || stage_output) && real_.size() == 0) {
      real_ = DeviceBuffer<T>(static_cast<std::size_t>(layout_.batch * layout_.extended_points), stream);
    }
    // An out-of-place R2C leaves its input unchanged: rhs is only read.
    T* transform_input = const_cast<T*>(rhs);
    if (stage_input) {
      launch(extend_kernel<T>, "poisson_extend_kernel", layout_.batch * layout_.extended_points, stream, rhs,
             real_.data());
      transform_input = real_.data();
    }
    CUNUM_CHECK(Library::forward(forward_.get(), transform_input, spectrum_.data()));
    launch(divide_kernel<T, Complex>, "poisson_divide_kernel", layout_.batch * layout_.modes, stream,
           spectrum_.data());
    if (!stage_output) {
      CUNUM_CHECK(Library::inverse(inverse_.get(), spectrum_.data(), solution));
      return;
    }
    CUNUM_CHECK(Library::inverse(inverse_.get(), spectrum_.data(), real_.data()));
    launch(restrict_kernel<T>, "poisson_restrict_kernel", layout_.batch * layout_.points, stream,
           static_cast<const T*>(real_.data()), solution);
  }

  std::size_t workspace_bytes() const noexcept override {
    return eigenvalues_.bytes() + spectrum_.bytes() + real_.bytes() + sums_.bytes() + work_area_.bytes();
  }

 private:
  // Enough blocks of a grid-stride kernel to fill the device, never more than `items` need.
  template <class Kernel, class... Args>
  void launch(Kernel kernel, const char* name, std::int64_t items, StreamHandle stream, Args... args) const {
    const std::int64_t needed = (items + kBlockThreads - 1) / kBlockThreads;
    const std::int64_t resident = std::int64_t{multiprocessor_count_} * kBlocksPerMultiprocessor;
    const LaunchConfig config{grid_1d(needed < resident ? needed : resident, name), dim3(kBlockThreads), 0, stream};
    launch_kernel(kernel, name, config, kernel_layout_, args...);
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
  std::vector<T> host_eigenvalues_;  // the source of the setup copy, kept until it is done
  DeviceBuffer<T> eigenvalues_;
  DeviceBuffer<Complex> spectrum_;
  DeviceBuffer<T> real_;              // the extended array; allocated at the first solve that needs it
  DeviceBuffer<double> sums_;         // the `reject` rule's sums
  DeviceBuffer<unsigned char> work_area_;
  CufftPlan forward_;
  CufftPlan inverse_;
  SetupFence setup_;
  KernelLayout<T> kernel_layout_{};
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
