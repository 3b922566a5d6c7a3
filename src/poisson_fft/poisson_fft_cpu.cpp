// Poisson solver, CPU backend: FFTW 3 (threads through OpenMP, plans made once with
// FFTW_ESTIMATE on the solver's own arrays). The wall axes are transformed by FFTW's
// real-to-real kinds, in place on the grid-sized array, each by the pair its
// AxisTransform names (src/poisson_fft/poisson_layout.hpp: RODFT00, REDFT00, RODFT10
// and RODFT01, REDFT10 and REDFT01, RODFT11, REDFT11, or type III forward and type II
// back for a mixed axis at vertices); then the periodic axes by a real-to-complex DFT;
// each mode is divided by the operator's eigenvalue (OpenMP loop), and the inverse
// transforms run in the reverse order. It is the reference the CUDA backend is tested
// against.

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
    static Plan forward(int rank, const fftw_iodim64* dims, int batch_rank, const fftw_iodim64* batch, T* in,   \
                        Complex* out) {                                                                         \
      return PREFIX##_plan_guru64_dft_r2c(rank, dims, batch_rank, batch, in, out, FFTW_ESTIMATE);               \
    }                                                                                                           \
    static Plan inverse(int rank, const fftw_iodim64* dims, int batch_rank, const fftw_iodim64* batch,          \
                        Complex* in, T* out) {                                                                  \
      return PREFIX##_plan_guru64_dft_c2r(rank, dims, batch_rank, batch, in, out, FFTW_ESTIMATE);               \
    }                                                                                                           \
    static Plan real_to_real(int rank, const fftw_iodim64* dims, int batch_rank, const fftw_iodim64* batch,     \
                             T* data, const fftw_r2r_kind* kinds) {                                             \
      return PREFIX##_plan_guru64_r2r(rank, dims, batch_rank, batch, data, data, kinds, FFTW_ESTIMATE);         \
    }                                                                                                           \
    static void execute(Plan plan) { PREFIX##_execute(plan); }                                                  \
    static void destroy(Plan plan) { PREFIX##_destroy_plan(plan); }                                             \
  };
CUNUM_FFTW_TRAITS(double, fftw)
CUNUM_FFTW_TRAITS(float, fftwf)
#undef CUNUM_FFTW_TRAITS

struct WallKinds {
  fftw_r2r_kind forward;
  fftw_r2r_kind inverse;
};

// FFTW's kinds for a wall axis's forward and inverse transforms.
WallKinds wall_kinds(AxisTransform transform) {
  switch (transform) {
    case AxisTransform::sine_vertex: return {FFTW_RODFT00, FFTW_RODFT00};
    case AxisTransform::cosine_vertex: return {FFTW_REDFT00, FFTW_REDFT00};
    case AxisTransform::sine_cell: return {FFTW_RODFT10, FFTW_RODFT01};
    case AxisTransform::cosine_cell: return {FFTW_REDFT10, FFTW_REDFT01};
    case AxisTransform::sine_quarter_vertex: return {FFTW_RODFT01, FFTW_RODFT10};
    case AxisTransform::cosine_quarter_vertex: return {FFTW_REDFT01, FFTW_REDFT10};
    case AxisTransform::sine_quarter_cell: return {FFTW_RODFT11, FFTW_RODFT11};
    default: return {FFTW_REDFT11, FFTW_REDFT11};  // cosine_quarter_cell
  }
}

// The loops of a transform: the batch and the axes of one problem it does not
// transform, as FFTW "howmany" dimensions.
struct TransformLoops {
  int count = 0;
  fftw_iodim64 dims[kPoissonAxes + 1];
};

template <class T>
class PoissonCpu final : public PoissonBackend<T> {
  using Library = Fftw<T>;

 public:
  explicit PoissonCpu(const PoissonLayout& layout)
      : layout_(layout),
        real_(static_cast<std::size_t>(layout.batch * layout.points)),
        spectrum_(layout.last_fourier >= 0 ? static_cast<std::size_t>(layout.batch * layout.modes) : 0) {
    // Row-major strides of the grid (real) and of the spectrum, per axis.
    std::int64_t real_stride[kPoissonAxes], spectrum_stride[kPoissonAxes];
    real_stride[kPoissonAxes - 1] = spectrum_stride[kPoissonAxes - 1] = 1;
    for (int a = kPoissonAxes - 2; a >= 0; --a) {
      real_stride[a] = real_stride[a + 1] * layout.shape[a + 1];
      spectrum_stride[a] = spectrum_stride[a + 1] * layout.spectrum_shape[a + 1];
    }
    // The loops of a transform over the axes `transformed` leaves out, from an array of
    // strides `in` (problem size in_problem) to one of strides `out`.
    auto loops_of = [&](auto transformed, const std::int64_t* in, std::int64_t in_problem, const std::int64_t* out,
                        std::int64_t out_problem) {
      TransformLoops loops;
      loops.dims[loops.count++] = {layout.batch, in_problem, out_problem};
      for (int a = 0; a < kPoissonAxes; ++a) {
        if (!transformed(a) && layout.shape[a] > 1) loops.dims[loops.count++] = {layout.shape[a], in[a], out[a]};
      }
      return loops;
    };

    const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    Library::init_threads();
    Library::plan_with_threads(omp_get_max_threads());
    bool planned = true;
    if (layout.wall_count > 0) {
      fftw_iodim64 dims[kPoissonAxes];
      fftw_r2r_kind forward_kinds[kPoissonAxes], inverse_kinds[kPoissonAxes];
      for (int w = 0; w < layout.wall_count; ++w) {
        const int a = layout.walls[w];
        const WallKinds kinds = wall_kinds(layout.transforms[a]);
        dims[w] = {layout.shape[a], real_stride[a], real_stride[a]};
        forward_kinds[w] = kinds.forward;
        inverse_kinds[w] = kinds.inverse;
      }
      // In place on the real array.
      const TransformLoops loops = loops_of([&](int a) { return layout.boundaries[a] != PoissonBoundary::periodic; },
                                            real_stride, layout.points, real_stride, layout.points);
      wall_forward_ = Library::real_to_real(layout.wall_count, dims, loops.count, loops.dims, real_.data(),
                                            forward_kinds);
      wall_inverse_ = Library::real_to_real(layout.wall_count, dims, loops.count, loops.dims, real_.data(),
                                            inverse_kinds);
      planned = wall_forward_ != nullptr && wall_inverse_ != nullptr;
    }
    if (layout.last_fourier >= 0) {
      fftw_iodim64 real_dims[kPoissonAxes], spectrum_dims[kPoissonAxes];
      int rank = 0;
      for (int a = 0; a < kPoissonAxes; ++a) {
        if (!layout.fourier[a]) continue;
        real_dims[rank] = {layout.shape[a], real_stride[a], spectrum_stride[a]};
        spectrum_dims[rank++] = {layout.shape[a], spectrum_stride[a], real_stride[a]};
      }
      auto fourier = [&](int a) { return layout.fourier[a]; };
      const TransformLoops forward_loops = loops_of(fourier, real_stride, layout.points, spectrum_stride, layout.modes);
      const TransformLoops inverse_loops = loops_of(fourier, spectrum_stride, layout.modes, real_stride, layout.points);
      auto* spectrum = reinterpret_cast<typename Library::Complex*>(spectrum_.data());
      fourier_forward_ = Library::forward(rank, real_dims, forward_loops.count, forward_loops.dims, real_.data(),
                                          spectrum);
      fourier_inverse_ = Library::inverse(rank, spectrum_dims, inverse_loops.count, inverse_loops.dims, spectrum,
                                          real_.data());
      planned = planned && fourier_forward_ != nullptr && fourier_inverse_ != nullptr;
    }
    if (!planned) {
      destroy_plans();
      const char* routine = RoutineScope::current();
      throw Error(ErrorCode::not_supported,
                  std::string(routine != nullptr ? routine : "cunum") + ": FFTW could not plan this grid");
    }
  }
  ~PoissonCpu() override {
    const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    destroy_plans();
  }
  PoissonCpu(const PoissonCpu&) = delete;
  PoissonCpu& operator=(const PoissonCpu&) = delete;

  void solve(const T* rhs, T* solution, StreamHandle) override {
    if (layout_.reject_incompatible) require_compatible(layout_, sums(rhs).data(), RoutineScope::current());
    copy(rhs, real_.data());
    if (wall_forward_ != nullptr) Library::execute(wall_forward_);
    if (fourier_forward_ != nullptr) {
      Library::execute(fourier_forward_);
      divide(spectrum_.data());
      Library::execute(fourier_inverse_);
    } else {
      divide(real_.data());
    }
    if (wall_inverse_ != nullptr) Library::execute(wall_inverse_);
    copy_out(solution);
  }

  std::size_t workspace_bytes() const noexcept override {
    return real_.size() * sizeof(T) + spectrum_.size() * sizeof(std::complex<T>);
  }

 private:
  // Called with the planner lock held.
  void destroy_plans() noexcept {
    for (typename Library::Plan* plan : {&wall_forward_, &wall_inverse_, &fourier_forward_, &fourier_inverse_}) {
      if (*plan != nullptr) Library::destroy(*plan);
      *plan = nullptr;
    }
  }

  // The weight of point i of axis a in a singular problem's mean: 1/2 at the ends of
  // an axis with Neumann walls at vertices, 1 otherwise.
  double end_weight(int a, std::int64_t i) const {
    return layout_.half_weight_ends[a] && (i == 0 || i == layout_.shape[a] - 1) ? 0.5 : 1.0;
  }

  // sum f and sum |f| per problem (weighted as end_weight says), in double, by rows of
  // the last axis then rows in order: the same result for any thread count.
  std::vector<double> sums(const T* rhs) const {
    const std::int64_t rows_per_problem = layout_.shape[0] * layout_.shape[1];
    const std::int64_t rows = layout_.batch * rows_per_problem;
    const std::int64_t n = layout_.shape[2];
    std::vector<double> row_sums(static_cast<std::size_t>(2 * rows));
#pragma omp parallel for schedule(static)
    for (std::int64_t row = 0; row < rows; ++row) {
      const std::int64_t within = row % rows_per_problem;
      const double row_weight = end_weight(0, within / layout_.shape[1]) * end_weight(1, within % layout_.shape[1]);
      double sum = 0, absolute = 0;
      for (std::int64_t k = 0; k < n; ++k) {
        const double value = end_weight(2, k) * static_cast<double>(rhs[row * n + k]);
        sum += value;
        absolute += std::abs(value);
      }
      row_sums[2 * row] = row_weight * sum;
      row_sums[2 * row + 1] = row_weight * absolute;
    }
    std::vector<double> totals(static_cast<std::size_t>(2 * layout_.batch), 0.0);
    for (std::int64_t row = 0; row < rows; ++row) {
      totals[2 * (row / rows_per_problem)] += row_sums[2 * row];
      totals[2 * (row / rows_per_problem) + 1] += row_sums[2 * row + 1];
    }
    return totals;
  }

  void copy(const T* source, T* target) const {
    const std::int64_t total = layout_.batch * layout_.points;
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < total; ++i) target[i] = source[i];
  }

  // Each mode divided by the operator's eigenvalue, the transforms' 1/N folded in;
  // a zero eigenvalue (the constants of a singular problem) maps its mode to 0.
  // `Value` is std::complex<T> after the periodic transform, T without one.
  template <class Value>
  void divide(Value* spectrum) const {
    const PoissonLayout& l = layout_;
    const double scale = 1.0 / static_cast<double>(l.pair_factor);
    const double* ev0 = l.eigenvalues.data() + l.eigen_offset[0];
    const double* ev1 = l.eigenvalues.data() + l.eigen_offset[1];
    const double* ev2 = l.eigenvalues.data() + l.eigen_offset[2];
    const std::int64_t rows = l.batch * l.spectrum_shape[0] * l.spectrum_shape[1];
    const std::int64_t last = l.spectrum_shape[2];
#pragma omp parallel for schedule(static)
    for (std::int64_t row = 0; row < rows; ++row) {
      const std::int64_t m0 = row / l.spectrum_shape[1] % l.spectrum_shape[0];
      const std::int64_t m1 = row % l.spectrum_shape[1];
      const double partial = ev0[m0] + ev1[m1] - l.screening;
      Value* modes = spectrum + row * last;
      for (std::int64_t m2 = 0; m2 < last; ++m2) {
        const double eigenvalue = partial + ev2[m2];
        modes[m2] *= eigenvalue == 0 ? T(0) : static_cast<T>(scale / eigenvalue);
      }
    }
  }

  // The solution, minus its value at the first grid point under zero_at_origin.
  void copy_out(T* solution) const {
    const std::int64_t total = layout_.batch * layout_.points;
    const std::int64_t points = layout_.points;
    const bool pin = layout_.pin_origin;
    const T* real = real_.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < total; ++i) solution[i] = real[i] - (pin ? real[i / points * points] : T(0));
  }

  PoissonLayout layout_;
  std::vector<T> real_;
  std::vector<std::complex<T>> spectrum_;
  typename Library::Plan wall_forward_ = nullptr;
  typename Library::Plan wall_inverse_ = nullptr;
  typename Library::Plan fourier_forward_ = nullptr;
  typename Library::Plan fourier_inverse_ = nullptr;
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
