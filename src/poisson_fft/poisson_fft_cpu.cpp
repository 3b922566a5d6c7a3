// Poisson solver, CPU backend: FFTW 3 real transforms (threads through OpenMP, plans
// made once with FFTW_ESTIMATE on the solver's own arrays) and OpenMP loops for the
// extension, the spectral division and the restriction. It is the reference the CUDA
// backend is tested against, and takes the same steps.

#include <fftw3.h>
#include <omp.h>

#include <complex>
#include <mutex>
#include <string>
#include <vector>

#include "cunum/core/error.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/routine.hpp"
#include "src/poisson_fft/poisson_fft_backends.hpp"

namespace cunum::detail {

namespace {

// FFTW's planner is not thread-safe: every plan is made and destroyed under this lock.
std::mutex& fftw_planner_mutex() {
  static std::mutex mutex;
  return mutex;
}

// FFTW's calls for T: fftw_ (double) and fftwf_ (float).
template <class T>
struct Fftw;

#define CUNUM_FFTW_TRAITS(T, PREFIX)                                                                            \
  template <>                                                                                                   \
  struct Fftw<T> {                                                                                              \
    using Plan = PREFIX##_plan;                                                                                 \
    using Complex = PREFIX##_complex;                                                                           \
    static void init_threads() {                                                                                \
      static std::once_flag once;                                                                               \
      std::call_once(once, [] { PREFIX##_init_threads(); });                                                    \
    }                                                                                                           \
    static void plan_with_threads(int threads) { PREFIX##_plan_with_nthreads(threads); }                        \
    static Plan forward(int rank, const fftw_iodim64* dims, const fftw_iodim64* batch, T* in, Complex* out) {   \
      return PREFIX##_plan_guru64_dft_r2c(rank, dims, 1, batch, in, out, FFTW_ESTIMATE);                        \
    }                                                                                                           \
    static Plan inverse(int rank, const fftw_iodim64* dims, const fftw_iodim64* batch, Complex* in, T* out) {   \
      return PREFIX##_plan_guru64_dft_c2r(rank, dims, 1, batch, in, out, FFTW_ESTIMATE);                        \
    }                                                                                                           \
    static void execute(Plan plan) { PREFIX##_execute(plan); }                                                  \
    static void destroy(Plan plan) { PREFIX##_destroy_plan(plan); }                                             \
  };
CUNUM_FFTW_TRAITS(double, fftw)
CUNUM_FFTW_TRAITS(float, fftwf)
#undef CUNUM_FFTW_TRAITS

template <class T>
class PoissonCpu final : public PoissonBackend<T> {
  using Library = Fftw<T>;

 public:
  explicit PoissonCpu(const PoissonLayout& layout)
      : layout_(layout),
        real_(static_cast<std::size_t>(layout.batch * layout.extended_points)),
        spectrum_(static_cast<std::size_t>(layout.batch * layout.modes)) {
    // The transform's axes, slowest first: strides of the real array (input of the
    // forward transform) and of the half spectrum.
    fftw_iodim64 real_dims[kPoissonAxes], spectrum_dims[kPoissonAxes];
    std::int64_t real_stride = 1, spectrum_stride = 1;
    for (int a = kPoissonAxes - 1; a >= kPoissonAxes - layout.rank; --a) {
      const int d = a - (kPoissonAxes - layout.rank);
      real_dims[d] = {layout.extended[a], real_stride, spectrum_stride};
      spectrum_dims[d] = {layout.extended[a], spectrum_stride, real_stride};
      real_stride *= layout.extended[a];
      spectrum_stride *= a == kPoissonAxes - 1 ? layout.half_last : layout.extended[a];
    }
    const fftw_iodim64 forward_batch{layout.batch, layout.extended_points, layout.modes};
    const fftw_iodim64 inverse_batch{layout.batch, layout.modes, layout.extended_points};
    auto* spectrum = reinterpret_cast<typename Library::Complex*>(spectrum_.data());
    const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    Library::init_threads();
    Library::plan_with_threads(omp_get_max_threads());
    forward_ = Library::forward(layout.rank, real_dims, &forward_batch, real_.data(), spectrum);
    inverse_ = Library::inverse(layout.rank, spectrum_dims, &inverse_batch, spectrum, real_.data());
    if (forward_ == nullptr || inverse_ == nullptr) {
      release();
      const char* routine = RoutineScope::current();
      throw Error(ErrorCode::not_supported,
                  std::string(routine != nullptr ? routine : "cunum") + ": FFTW could not plan this grid");
    }
  }
  ~PoissonCpu() override { release(); }
  PoissonCpu(const PoissonCpu&) = delete;
  PoissonCpu& operator=(const PoissonCpu&) = delete;

  void solve(const T* rhs, T* solution, StreamHandle) override {
    if (layout_.reject_incompatible) require_compatible(layout_, sums(rhs).data(), RoutineScope::current());
    extend(rhs);
    Library::execute(forward_);
    divide();
    Library::execute(inverse_);
    restrict_to_grid(solution);
  }

  std::size_t workspace_bytes() const noexcept override {
    return real_.size() * sizeof(T) + spectrum_.size() * sizeof(std::complex<T>);
  }

 private:
  void release() noexcept {
    const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    if (forward_ != nullptr) Library::destroy(forward_);
    if (inverse_ != nullptr) Library::destroy(inverse_);
    forward_ = inverse_ = nullptr;
  }

  // sum f and sum |f| per problem, in double, by rows of the last axis then rows in
  // order: the same result for any thread count.
  std::vector<double> sums(const T* rhs) const {
    const std::int64_t rows_per_problem = layout_.shape[0] * layout_.shape[1];
    const std::int64_t rows = layout_.batch * rows_per_problem;
    const std::int64_t n = layout_.shape[2];
    std::vector<double> row_sums(static_cast<std::size_t>(2 * rows));
#pragma omp parallel for schedule(static)
    for (std::int64_t row = 0; row < rows; ++row) {
      double sum = 0, absolute = 0;
      for (std::int64_t k = 0; k < n; ++k) {
        const double value = rhs[row * n + k];
        sum += value;
        absolute += std::abs(value);
      }
      row_sums[2 * row] = sum;
      row_sums[2 * row + 1] = absolute;
    }
    std::vector<double> totals(static_cast<std::size_t>(2 * layout_.batch), 0.0);
    for (std::int64_t row = 0; row < rows; ++row) {
      totals[2 * (row / rows_per_problem)] += row_sums[2 * row];
      totals[2 * (row / rows_per_problem) + 1] += row_sums[2 * row + 1];
    }
    return totals;
  }

  void extend(const T* rhs) {
    const PoissonLayout& l = layout_;
    const std::int64_t rows = l.batch * l.extended[0] * l.extended[1];
#pragma omp parallel for schedule(static)
    for (std::int64_t row = 0; row < rows; ++row) {
      const std::int64_t b = row / (l.extended[0] * l.extended[1]);
      const std::int64_t e0 = row / l.extended[1] % l.extended[0];
      const std::int64_t e1 = row % l.extended[1];
      const ExtensionSource s0 = extension_source(l.boundaries[0], l.shape[0], e0);
      const ExtensionSource s1 = extension_source(l.boundaries[1], l.shape[1], e1);
      const T* source = rhs + (b * l.shape[0] + s0.source) * l.shape[1] * l.shape[2] + s1.source * l.shape[2];
      T* target = real_.data() + row * l.extended[2];
      for (std::int64_t e2 = 0; e2 < l.extended[2]; ++e2) {
        const ExtensionSource s2 = extension_source(l.boundaries[2], l.shape[2], e2);
        target[e2] = static_cast<T>(s0.sign * s1.sign * s2.sign) * source[s2.source];
      }
    }
  }

  // Each mode divided by the operator's eigenvalue, the transforms' 1/N folded in;
  // a zero eigenvalue (the constants of a singular problem) maps its mode to 0.
  void divide() {
    const PoissonLayout& l = layout_;
    const double scale = 1.0 / static_cast<double>(l.extended_points);
    const double* ev0 = l.eigenvalues.data() + l.eigen_offset[0];
    const double* ev1 = l.eigenvalues.data() + l.eigen_offset[1];
    const double* ev2 = l.eigenvalues.data() + l.eigen_offset[2];
    const std::int64_t rows = l.batch * l.extended[0] * l.extended[1];
#pragma omp parallel for schedule(static)
    for (std::int64_t row = 0; row < rows; ++row) {
      const std::int64_t m0 = row / l.extended[1] % l.extended[0];
      const std::int64_t m1 = row % l.extended[1];
      const double partial = ev0[m0] + ev1[m1] - l.screening;
      std::complex<T>* modes = spectrum_.data() + row * l.half_last;
      for (std::int64_t m2 = 0; m2 < l.half_last; ++m2) {
        const double eigenvalue = partial + ev2[m2];
        modes[m2] *= eigenvalue == 0 ? T(0) : static_cast<T>(scale / eigenvalue);
      }
    }
  }

  void restrict_to_grid(T* solution) const {
    const PoissonLayout& l = layout_;
    const std::int64_t rows = l.batch * l.shape[0] * l.shape[1];
    const std::int64_t origin = (extended_index(l.boundaries[0], 0) * l.extended[1] +
                                 extended_index(l.boundaries[1], 0)) * l.extended[2] +
                                extended_index(l.boundaries[2], 0);
#pragma omp parallel for schedule(static)
    for (std::int64_t row = 0; row < rows; ++row) {
      const std::int64_t b = row / (l.shape[0] * l.shape[1]);
      const std::int64_t i0 = row / l.shape[1] % l.shape[0];
      const std::int64_t i1 = row % l.shape[1];
      const T* problem = real_.data() + b * l.extended_points;
      const T constant = l.pin_origin ? problem[origin] : T(0);
      const T* source = problem + (extended_index(l.boundaries[0], i0) * l.extended[1] +
                                   extended_index(l.boundaries[1], i1)) * l.extended[2];
      T* target = solution + row * l.shape[2];
      for (std::int64_t i2 = 0; i2 < l.shape[2]; ++i2) {
        target[i2] = source[extended_index(l.boundaries[2], i2)] - constant;
      }
    }
  }

  PoissonLayout layout_;
  std::vector<T> real_;
  std::vector<std::complex<T>> spectrum_;
  typename Library::Plan forward_ = nullptr;
  typename Library::Plan inverse_ = nullptr;
};

}  // namespace

template <class T>
std::unique_ptr<PoissonBackend<T>> make_poisson_cpu(const PoissonLayout& layout) {
  return std::make_unique<PoissonCpu<T>>(layout);
}

#define CUNUM_INSTANTIATE_POISSON_CPU(T) \
  template std::unique_ptr<PoissonBackend<T>> make_poisson_cpu(const PoissonLayout&);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_POISSON_CPU, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
