// Poisson solver, CUDA backend, host orchestration: cuFFT real transforms planned once
// per solver with one shared work area, and grid-stride kernels around them (launched
// through kernels/poisson_fft/poisson_fft_launch.hpp, tuned in poisson_fft_policy.hpp).
// cuFFT has no sine or cosine transforms, so each wall axis is transformed on its own,
// along that axis only, by the algorithms of src/poisson_fft/wall_transforms.hpp
// (docs/poisson_fft.md; WallPass in kernels/poisson_fft/poisson_fft_launch.hpp maps
// each AxisTransform to its pass):
//   Neumann at cells        Makhoul's DCT-II / DCT-III: a shuffle, one real DFT of the
//                           grid's own length n, a twiddle; the inverse the other way round;
//   Dirichlet at vertices   DST-I: one real DFT of the line's odd extension, 2(n + 1);
//   Neumann at vertices     DCT-I: one real DFT of the line's even extension, 2(n - 1);
//   Dirichlet at cells      the Neumann pass with grid sample i times (-1)^i on the way
//                           in and out (DST-II / DST-III), its coefficients reversed;
//   mixed, at vertices      the Neumann pass run the other way (DCT-III forward, DCT-II
//                           back), the grid's samples reversed for dirichlet_neumann;
//   mixed, at cells         DCT-IV: for even n (>= 4), one complex DFT of n / 2
//                           pre-twiddled pairs (x_2j + i x_{n-1-2j}) and a twiddle; for odd
//                           n, Makhoul's DCT-II of the line padded to 2n, its odd modes;
//                           its own inverse; (-1)^i for dirichlet_neumann (DST-IV).
// Where a pass keeps its coefficients reversed, its axis's eigenvalue table here is
// reversed to match. The pencil kernels serve every wall at both placements (the mixed
// ones at cells for even n, by pairs).
// Each wall pass is a pre-processing kernel that gathers the lines of its axis into a
// contiguous line array, one batched 1-D cuFFT over them, and a post-processing kernel
// that scatters the real coefficients back into a grid-sized array (the coefficient
// array), ordered wall axes first and periodic axes last, so that the periodic axes are
// then one contiguous batched R2C. Where a line is not contiguous in its array, the
// pre- and post-processing kernels transpose 32 x 32 tiles through shared memory.
// With two or more Fourier axes, the slowest of power-of-two length, that R2C leaves it
// out and pencil_turnaround_kernel (kernels/poisson_fft/pencil_fft.cuh) turns around
// along it: its forward FFT, the spectral division and its inverse FFT in one pass over
// the spectrum, cheaper than cuFFT's own passes along that axis. Otherwise the division is its own kernel after
// the R2C; when no axis is periodic, the last wall pass instead turns around on its lines
// (the division and the inverse's pre-processing in one kernel, without the coefficient
// array; for the mixed axes at vertices, whose forward C2R leaves the coefficients in the
// order their inverse R2C takes them, a division in place), or, where the slowest wall
// axis's DFT length is a power of two, that axis turns around along pencils
// (cosine_pencil_kernel, extension_pencil_kernel) after the other wall passes, those of
// its kind along pencils too; there a contiguous wall axis (at cells, or at vertices but
// not mixed) folds into the first pencil kernel, which takes its R2C's half spectra and
// gives its C2R's (plan_fold); likewise a grid of one periodic axis and a contiguous
// wall axis at cells turns around along the periodic axis (plan_periodic_fold). The
// inverse runs the passes in reverse, the last one writing the solution.
// A fully periodic grid needs no pass: R2C reads the right-hand side and C2R writes the
// solution directly (when they are aligned as cuFFT requires; otherwise they are
// copied through the coefficient array).

#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cunum/core/device_buffer.hpp"
#include "cunum/core/error.hpp"
#include "kernels/poisson_fft/poisson_fft_launch.hpp"
#include "src/core/check_libraries.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/graph_capture.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/routine.hpp"
#include "src/core/setup_fence.hpp"
#include "src/poisson_fft/poisson_fft_backends.hpp"
#include "src/poisson_fft/poisson_fft_policy.hpp"
#include "src/poisson_fft/wall_passes.hpp"

namespace cunum::detail {

namespace {

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
  static constexpr cufftType complex_type = CUFFT_C2C;
  static cufftResult complex_forward(cufftHandle plan, Complex* in, Complex* out) {
    return cufftExecC2C(plan, in, out, CUFFT_FORWARD);
  }
};
template <>
struct Cufft<double> {
  using Complex = cufftDoubleComplex;
  static constexpr cufftType forward_type = CUFFT_D2Z;
  static constexpr cufftType inverse_type = CUFFT_Z2D;
  static cufftResult forward(cufftHandle plan, double* in, Complex* out) { return cufftExecD2Z(plan, in, out); }
  static cufftResult inverse(cufftHandle plan, Complex* in, double* out) { return cufftExecZ2D(plan, in, out); }
  static constexpr cufftType complex_type = CUFFT_Z2Z;
  static cufftResult complex_forward(cufftHandle plan, Complex* in, Complex* out) {
    return cufftExecZ2Z(plan, in, out, CUFFT_FORWARD);
  }
};

// Where the values of an array sit: problem b, grid point (i0, i1, i2) is element
// b problem + i0 stride[0] + i1 stride[1] + i2 stride[2].
struct GridView {
  std::int64_t problem;
  std::int64_t stride[kPoissonAxes];
};

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

  // A wall axis's pass: its kernel parameters and its plans: the R2C of its lines'
  // length (quarter_pairs: the C2C of n / 2), and for the cosine passes the C2R of n (a
  // transform that is its own inverse runs its R2C both ways, unless it folds: then a
  // C2R of its extension's length).
  struct Wall {
    WallPass<T> pass;
    LineGeometry on_grid;          // the lines in the caller's grid order
    LineGeometry on_coefficients;  // the lines in the coefficient array
    std::unique_ptr<CufftPlan> r2c;
    std::unique_ptr<CufftPlan> c2r;
    // Transformed along pencils by cosine_pencil_kernel, quarter_pencil_kernel or
    // extension_pencil_kernel instead (plan_wall_pencils): the pencils, and the offset of
    // its length's table in the pencil twiddles (add_pencil_twiddles).
    bool pencils = false;
    PencilShape pencil_shape{};
    std::int64_t pencil_twiddle_offset = 0;
    // Its pencils fold in the contiguous wall axis (plan_fold): each unit a pair of that
    // axis's coefficients (WallPencilPair); with `slots`, the pairs stay in the complex
    // array.
    bool folds = false;
    bool slots = false;
    // The folded wall's lines are transformed in place in the complex array (lines_of),
    // a line pitch of its half spectrum's reals, and so are the cosine passes' and
    // quarter_pairs' (a pass's lines and half spectra are never needed at once, nor
    // beside the periodic spectrum), and the extensions' beside periodic axes; the
    // extensions' line arrays without periodic axes have the R2C's length (the line
    // turnaround reads the half spectra while it writes the lines).
    bool in_place_lines = false;
  };

 public:
  PoissonCuda(const PoissonLayout& layout, const Placement& placement)
      : layout_(layout),
        binding_(DeviceBinding::current()),
        device_{binding_.arch, binding_.multiprocessor_count},
        memory_(placement.device_memory),
        host_eigenvalues_(layout.eigenvalues.begin(), layout.eigenvalues.end()),
        eigenvalues_(host_eigenvalues_.size(), placement.stream, memory_),
        sums_(layout.reject_incompatible ? static_cast<std::size_t>(2 * layout.batch) : 0, placement.stream, memory_) {
    const StreamHandle stream = placement.stream;
    // The coefficient array's order (coefficient_order); its strides, and the grid's own.
    const AxisOrder order = coefficient_order(layout);
    grid_view_ = {layout.points, {layout.shape[1] * layout.shape[2], layout.shape[2], 1}};
    coefficient_view_.problem = layout.points;
    std::int64_t stride = 1;
    for (int j = kPoissonAxes - 1; j >= 0; --j) {
      coefficient_view_.stride[order[j]] = stride;
      stride *= layout.shape[order[j]];
    }
    for (int j = 0; j < kPoissonAxes; ++j) order_[j] = order[j];
    division_axes_ = division_order(layout, order);
    const std::int64_t* spectrum_shape = layout.spectrum_shape;
    spectrum_rows_ = {layout.batch * spectrum_shape[division_axes_[0]] * spectrum_shape[division_axes_[1]],
                      spectrum_shape[division_axes_[0]], spectrum_shape[division_axes_[1]],
                      spectrum_shape[division_axes_[2]]};

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
      p.n = layout.shape[a];
      const WallPassKind kind = wall_pass_kind(layout.transforms[a], p.n);
      p.line = kind.line;
      p.dct3_forward = kind.dct3_forward;
      p.grid_side = kind.grid_side;
      p.length = kind.length;
      if (kind.reversed_coefficients) {
        auto first = host_eigenvalues_.begin() + layout.eigen_offset[a];
        std::reverse(first, first + p.n);
      }
      p.half = p.line == WallLine::quarter_pairs ? p.n / 2 : p.length / 2 + 1;
      p.lines = layout.batch * (layout.points / p.n);
      int others[2], other = 0;
      for (int j = 0; j < kPoissonAxes; ++j) {
        if (order[j] != a) others[other++] = order[j];
      }
      if (layout.shape[others[1]] == 1) std::swap(others[0], others[1]);
      wall.on_grid = line_geometry(p, others, grid_view_);
      wall.on_coefficients = line_geometry(p, others, coefficient_view_);
      p.twiddles = nullptr;
      if (line_has_twiddles(p.line)) {
        twiddle_offsets_[w] = static_cast<std::int64_t>(host_twiddles_.size());
        for (std::int64_t k = 0; k < line_twiddle_count(p.line, p.n); ++k) {
          const double angle = line_twiddle_angle(p.line, p.n, k);
          host_twiddles_.push_back(static_cast<T>(std::cos(angle)));
          host_twiddles_.push_back(static_cast<T>(std::sin(angle)));
        }
      }
      plan_wall_pencils(w, wall);
      walls_.push_back(std::move(wall));
    }
    plan_periodic_fold();
    plan_fold();
    // The line passes' plans and arrays (the pencil passes need neither).
    for (int w = 0; w < layout.wall_count; ++w) {
      Wall& wall = walls_[w];
      if (wall.pencils) continue;
      const WallPass<T>& p = wall.pass;
      const bool in_place = w == folded_wall_ || p.line == WallLine::quarter_pairs || p.line == WallLine::cosine ||
                            (is_extension(p.line) && layout.last_fourier >= 0);
      wall.in_place_lines = in_place;
      wall.pass.line_pitch = in_place ? 2 * p.half : p.length;
      long long length = p.length, half = p.half, n = p.n, pitch = p.line_pitch;
      if (p.line == WallLine::quarter_pairs) {  // in place in the complex array
        wall.r2c = plan(1, &half, &half, 1, p.half, &half, 1, p.half, Library::complex_type, p.lines);
      } else {
        wall.r2c = plan(1, &length, &pitch, 1, pitch, &half, 1, p.half, Library::forward_type, p.lines);
      }
      // The cosine pass's DCT-III; a folded wall at vertices back (the C2R of its
      // extensions' imaginary or real half spectra: DST-I, DCT-I).
      if (p.line == WallLine::cosine || (w == folded_wall_ && is_extension(p.line))) {
        long long c2r_length = p.line == WallLine::cosine ? n : length;
        wall.c2r = plan(1, &c2r_length, &half, 1, p.half, &pitch, 1, pitch, Library::inverse_type, p.lines);
      }
      const auto reals = static_cast<std::size_t>(in_place ? 0 : p.lines * p.length);
      const auto modes = static_cast<std::size_t>(p.lines * p.half);
      line_reals = reals > line_reals ? reals : line_reals;
      complex_values = modes > complex_values ? modes : complex_values;
    }
    // The periodic axes of more than one point: one R2C over the innermost axes of the
    // coefficient array (or of the grid, for a fully periodic one).
    // With a pencil turnaround (plan_pencils), the R2C leaves out the slowest of them.
    if (layout.last_fourier >= 0 && !periodic_fold_) {
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
    work_area_ = DeviceBuffer<unsigned char>(work_bytes, stream, memory_);
    for (CufftPlan* each : plans()) {
      if (work_area_.size() > 0) CUNUM_CHECK(cufftSetWorkArea(each->get(), work_area_.data()));
    }
    complex_ = DeviceBuffer<Complex>(complex_values, stream, memory_);
    line_real_ = DeviceBuffer<T>(line_reals, stream, memory_);
    // A fully periodic grid transforms the caller's arrays; it needs the coefficient
    // array only for misaligned ones (allocated then) or to shift by u at the origin. A
    // grid whose pencil passes keep their pairs in the complex array (plan_fold,
    // plan_periodic_fold) needs it for that shift only.
    const bool coefficients_unused = periodic_fold_ || pairs_in_slots_;
    if ((layout.wall_count > 0 && !coefficients_unused) || (layout.wall_count == 0 && layout.last_fourier < 0) ||
        layout.pin_origin) {
      allocate_coefficients(stream);
    }

    if (pencil_axis_ >= 0) pencil_twiddle_offset_ = add_pencil_twiddles(layout.shape[pencil_axis_]);
    for (Wall& wall : walls_) {
      if (wall.pencils) wall.pencil_twiddle_offset = add_pencil_twiddles(pencil_length(wall.pass));
    }
    if (!host_pencil_twiddles_.empty()) {
      pencil_twiddles_ = DeviceBuffer<PoissonComplex<T>>(host_pencil_twiddles_.size(), stream, memory_);
      pencil_twiddles_.copy_from_host_async(host_pencil_twiddles_.data(), host_pencil_twiddles_.size());
    }
    twiddles_ = DeviceBuffer<T>(host_twiddles_.size(), stream, memory_);
    eigenvalues_.copy_from_host_async(host_eigenvalues_.data(), host_eigenvalues_.size());
    if (twiddles_.size() > 0) twiddles_.copy_from_host_async(host_twiddles_.data(), host_twiddles_.size());
    setup_.record(stream);
    for (int w = 0; w < layout.wall_count; ++w) {
      if (line_has_twiddles(walls_[w].pass.line)) walls_[w].pass.twiddles = twiddles_.data() + twiddle_offsets_[w];
    }
  }

  void solve(const T* rhs, T* solution, StreamHandle stream) override {
    binding_.require_current(RoutineScope::current());
    if (layout_.reject_incompatible) refuse_capture(stream, "the reject rule waits for the sums of the right-hand side");
    if (layout_.wall_count == 0 && coefficients_.size() == 0 && !(complex_aligned(rhs) && complex_aligned(solution))) {
      refuse_capture(stream,
                     "the first solve with an array not aligned to 2 x sizeof(T) allocates the solver's staging array "
                     "on the stream; make such a solve before capturing, or pass aligned arrays");
    }
    setup_.order(stream);
    if (layout_.reject_incompatible) check_compatible(rhs, stream);
    for (CufftPlan* each : plans()) CUNUM_CHECK(cufftSetStream(each->get(), stream));
    if (!walls_.empty() && walls_[0].pencils) {
      solve_along_wall_pencils(rhs, solution, stream);
      return;
    }
    if (periodic_fold_) {
      solve_periodic_fold(rhs, solution, stream);
      return;
    }
    const std::int64_t total = layout_.batch * layout_.points;
    const bool fourier = layout_.last_fourier >= 0;

    // Forward: the wall passes, rhs -> coefficients. Without periodic axes the last
    // one turns around on its lines (turnaround_kernel) instead.
    const int turning_wall = fourier || layout_.wall_count == 0 ? -1 : layout_.wall_count - 1;
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
        launch_poisson_copy(device_, total, layout_.points, false, rhs, coefficients_.data(), stream);
        current = coefficients_.data();
      }
      // An out-of-place R2C leaves its input unchanged: rhs is only read.
      CUNUM_CHECK(Library::forward(fourier_forward_->get(), const_cast<T*>(current), complex_.data()));
      if (pencil_axis_ >= 0) {
        launch_pencils(stream);
      } else {
        launch_poisson_divide(device_, spectrum_division(), spectrum_rows_,
                              static_cast<const PoissonComplex<T>*>(spectrum()), spectrum(), stream);
      }
      in_solution = layout_.wall_count == 0 && !layout_.pin_origin && complex_aligned(solution);
      if (!in_solution) allocate_coefficients(stream);
      CUNUM_CHECK(Library::inverse(fourier_inverse_->get(), complex_.data(), in_solution ? solution : coefficients_.data()));
    } else if (layout_.wall_count == 0) {
      launch_poisson_divide(device_, spectrum_division(), spectrum_rows_, rhs, coefficients_.data(), stream);
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
    launch_poisson_copy(device_, total, layout_.points, layout_.pin_origin, static_cast<const T*>(coefficients_.data()),
                        solution, stream);
  }

  std::size_t workspace_bytes() const noexcept override {
    return eigenvalues_.bytes() + twiddles_.bytes() + pencil_twiddles_.bytes() + coefficients_.bytes() + line_real_.bytes() + complex_.bytes() +
           sums_.bytes() + work_area_.bytes();
  }

 private:
  // A line pass's line array: the complex array itself for the folded wall (an R2C and
  // a C2R in place) and quarter_pairs (a C2C in place), else the real one.
  T* lines_of(const Wall& wall) {
    return wall.in_place_lines ? reinterpret_cast<T*>(complex_.data()) : line_real_.data();
  }

  // A wall pass is four steps, split so that the last axis of a grid without periodic
  // axes can turn around on its lines: transform_lines (the lines from `source`, the
  // caller's grid or the coefficient array as `geometry` says, and their forward DFT),
  // store_coefficients (the real coefficients into the coefficient array), then, on the
  // way back, load_inverse_lines (the inverse's lines from the coefficient array) and
  // inverse_transform_lines (their inverse DFT into `target`). A Dirichlet pass is its
  // own inverse.
  void transform_lines(const Wall& wall, const T* source, const LineGeometry& geometry, StreamHandle stream) {
    const WallPass<T>& p = wall.pass;
    if (p.dct3_forward) {
      launch_poisson_cosine_inverse_spectrum(device_, p.grid_side, p.n, p.twiddles, geometry, p.half, source,
                                             spectrum(), stream);
      CUNUM_CHECK(Library::inverse(wall.c2r->get(), complex_.data(), lines_of(wall)));
      return;
    }
    make_lines(wall, p.grid_side, geometry, source, stream);
    forward_lines(wall);
  }

  // A pass's forward DFT input from `source` (the grid's values taken as `side` says):
  // its R2C's lines, or quarter_pairs' complex pairs.
  void make_lines(const Wall& wall, GridSide side, const LineGeometry& geometry, const T* source,
                  StreamHandle stream) {
    const WallPass<T>& p = wall.pass;
    if (p.line == WallLine::quarter_pairs) {
      launch_poisson_quarter_pair_lines(device_, side, p.n, p.twiddles, geometry, p.half, source,
                                        reinterpret_cast<PoissonComplex<T>*>(lines_of(wall)), stream);
      return;
    }
    launch_poisson_wall_lines(device_, p.line, side, p.n, geometry, p.line_pitch, source, lines_of(wall), stream);
  }

  // The forward DFT of a pass's lines into the complex array: its R2C, or quarter_pairs'
  // C2C in place there.
  void forward_lines(const Wall& wall) {
    if (wall.pass.line == WallLine::quarter_pairs) {
      CUNUM_CHECK(Library::complex_forward(wall.r2c->get(), complex_.data(), complex_.data()));
      return;
    }
    CUNUM_CHECK(Library::forward(wall.r2c->get(), lines_of(wall), complex_.data()));
  }

  void store_coefficients(const Wall& wall, StreamHandle stream) {
    const WallPass<T>& p = wall.pass;
    if (p.dct3_forward) {
      launch_poisson_c2r_line_samples(device_, WallLine::cosine, GridSide{}, p.n, wall.on_coefficients,
                                      p.line_pitch, static_cast<const T*>(lines_of(wall)), coefficients_.data(),
                                      stream);
      return;
    }
    launch_poisson_wall_coefficients(device_, p.line, GridSide{}, p.n, p.twiddles, wall.on_coefficients, p.half,
                                     static_cast<const PoissonComplex<T>*>(spectrum()), coefficients_.data(), stream);
  }

  // The last pass's coefficients divided and turned into its inverse's lines.
  void turn_around(const Wall& wall, StreamHandle stream) {
    launch_poisson_turnaround(device_, wall.pass, wall.on_coefficients, division(wall.on_coefficients), spectrum(),
                              lines_of(wall), stream);
  }

  // The inverse's input from the coefficient array: the DCT-III's half spectrum (the
  // cosine pass), else the R2C input of the coefficients (a transform that is its own
  // inverse, and the DCT-II back of a pass whose forward was the DCT-III).
  void load_inverse_lines(const Wall& wall, StreamHandle stream) {
    const WallPass<T>& p = wall.pass;
    const T* source = coefficients_.data();
    if (p.line == WallLine::cosine && !p.dct3_forward) {
      launch_poisson_cosine_inverse_spectrum(device_, GridSide{}, p.n, p.twiddles, wall.on_coefficients, p.half,
                                             source, spectrum(), stream);
      return;
    }
    make_lines(wall, GridSide{}, wall.on_coefficients, source, stream);
  }

  void inverse_transform_lines(const Wall& wall, T* target, const LineGeometry& geometry, StreamHandle stream) {
    const WallPass<T>& p = wall.pass;
    const bool folded_extension = folded_wall_ >= 0 && &wall == &walls_[folded_wall_] && is_extension(p.line);
    if ((p.line == WallLine::cosine && !p.dct3_forward) || folded_extension) {
      CUNUM_CHECK(Library::inverse(wall.c2r->get(), complex_.data(), lines_of(wall)));
      launch_poisson_c2r_line_samples(device_, p.line, p.grid_side, p.n, geometry, p.line_pitch,
                                      static_cast<const T*>(lines_of(wall)), target, stream);
      return;
    }
    forward_lines(wall);
    launch_poisson_wall_coefficients(device_, p.line, p.grid_side, p.n, p.twiddles, geometry, p.half,
                                     static_cast<const PoissonComplex<T>*>(spectrum()), target, stream);
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
  SpectralTables<T> division(int outer, int middle, int inner) const {
    const T* tables = eigenvalues_.data();
    return {tables + layout_.eigen_offset[outer], tables + layout_.eigen_offset[middle],
            tables + layout_.eigen_offset[inner], static_cast<T>(layout_.screening),
            static_cast<T>(1.0 / static_cast<double>(layout_.pair_factor))};
  }
  SpectralTables<T> division(const LineGeometry& g) const { return division(g.axis, g.lane, g.block); }
  // The tables of divide_kernel's rows (spectrum_rows_).
  SpectralTables<T> spectrum_division() const {
    return division(division_axes_[0], division_axes_[1], division_axes_[2]);
  }

  // The spectral work area as the launchers' complex type (cuFFT's has the same layout).
  PoissonComplex<T>* spectrum() { return reinterpret_cast<PoissonComplex<T>*>(complex_.data()); }

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
  // cosine_pencil_kernel or quarter_pencil_kernel (cells) or extension_pencil_kernel
  // (vertices), set then with the wall's pencil shape: the slowest wall axis (w = 0, the
  // coefficient array's outer axis) when it can turn around that way (its pencil length,
  // n, 2(n + 1), 2(n - 1) or n / 2, a power of two up to kMaxPencilLength, its tile within the
  // device's shared memory, and another wall pass to move the right-hand side into the
  // coefficient array); and then each other wall axis of such a length but the array's
  // contiguous one, whose pencils would be read across their rows.
  bool plan_wall_pencils(int w, Wall& wall) const {
    const WallPass<T>& p = wall.pass;
    if (layout_.last_fourier >= 0 || layout_.wall_count < 2 || (w > 0 && !walls_[0].pencils)) return false;
    // The pencil kernels take DST-I, DCT-I, the DCT-II / DCT-III either way round (the mixed
    // axes at vertices with their grid samples reversed or not: DST-III / DST-II, DCT-III /
    // DCT-II) and DCT-IV by pairs (with alternating signs: DST-II / DST-III, DST-IV).
    const bool pencil_kind =
        is_extension(p.line) || p.line == WallLine::cosine || p.line == WallLine::quarter_pairs;
    if (!pencil_kind) return false;
    if ((w > 0 && coefficient_view_.stride[p.axis] == 1) || !pencil_shared_memory_fits(pencil_length(p))) return false;
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
    shape.row_stride = faster;  // real pencils, taken in pairs but by quarter_pencil_kernel
    shape.pencils = p.line == WallLine::quarter_pairs ? faster : (faster + 1) / 2;
    shape.problems = layout_.batch * slower;
    wall.pencils = true;
    return true;
  }

  // Whether the contiguous wall axis of a grid that turns around along wall pencils folds
  // into its first pencil kernel (PencilFold): a cosine pass at cells (DCT-II forward)
  // or a wall pass at vertices (DST-I, DCT-I), by line passes and the last of them, whose
  // points are that kernel's whole rows; or a mixed axis at cells (DCT-IV by pairs) into
  // the turnaround of another one, the grid's only other wall. Its coefficients then
  // never reach the coefficient array: that kernel takes its R2C's half spectra (the
  // pairs' C2C's) and the last inverse pencil kernel gives its C2R's, 2 passes fewer (its
  // coefficient pass and the inverse's spectrum or line pass; DST-I and DCT-I back by a
  // C2R instead of a second R2C). Sets folded_wall_, the kernel's wall's `folds` and
  // units, and where every other wall goes along pencils, their `slots` and
  // pairs_in_slots_.
  void plan_fold() {
    const int last = static_cast<int>(walls_.size()) - 1;
    if (last < 1 || !walls_[0].pencils) return;
    const WallPass<T>& p = walls_[last].pass;
    // A mixed axis at cells folds only into the turnaround of another one, with no third
    // wall (folded_quarter_pencil_turnaround_kernel); the other pencil kernels take no
    // quarter fold, nor quarter_pencil_kernel another's.
    const bool quarter_turnaround = walls_[0].pass.line == WallLine::quarter_pairs;
    for (const Wall& wall : walls_) {
      if (wall.pencils && wall.pass.line == WallLine::quarter_pairs && !quarter_turnaround) return;
      if (wall.pencils && wall.pass.dct3_forward) return;  // no fold into a DCT-III-first kernel
    }
    if (quarter_turnaround && (last != 1 || p.line != WallLine::quarter_pairs)) return;
    const bool foldable = is_extension(p.line) || (p.line == WallLine::cosine && !p.dct3_forward) ||
                          (p.line == WallLine::quarter_pairs && quarter_turnaround);
    if (walls_[last].pencils || !foldable) return;
    if (coefficient_view_.stride[p.axis] != 1) return;
    Wall* first = &walls_[0];  // the turnaround, unless a pencil pass runs before it
    bool others_on_pencils = true;
    for (int w = last - 1; w >= 1; --w) {
      if (walls_[w].pencils) {
        first = &walls_[w];
      } else {
        others_on_pencils = false;
      }
    }
    if (first->pencil_shape.row_stride != p.n) return;
    first->folds = true;
    first->pencil_shape.pencils = fold_units(p.line, p.n);
    folded_wall_ = last;
    // With no other line pass, every pencil pass keeps its pairs in the complex array's
    // slots (PencilFold::slots), in place: no coefficient array.
    if (!others_on_pencils) return;
    for (int w = 0; w < last; ++w) {
      walls_[w].slots = true;
      walls_[w].pencil_shape.pencils = walls_[w].pencil_shape.row_stride / p.n * fold_units(p.line, p.n);
    }
    pairs_in_slots_ = true;
  }

  // Whether a grid of one periodic axis and one wall axis at cells (its other axes of
  // one point), the wall axis contiguous and the periodic one of a pencil length, turns
  // around along the periodic axis's pencils with the wall folded in
  // (folded_pencil_turnaround_kernel): the wall's lines and R2C in place, that
  // turnaround, the C2R and the unshuffle (a mixed axis of even length: its pairs and
  // C2C, the turnaround, the C2C and the coefficients), 5 launches over the input's size
  // in work memory, where the route through the coefficient array takes 9 (two of them
  // transposes) over 2 or 3 times it. Sets periodic_fold_, folded_wall_, pencil_axis_
  // and pencil_shape_.
  void plan_periodic_fold() {
    if (layout_.wall_count != 1) return;
    const WallPass<T>& p = walls_[0].pass;
    const bool foldable = (p.line == WallLine::cosine && !p.dct3_forward) || p.line == WallLine::quarter_pairs;
    if (!foldable || p.n < 2 || grid_view_.stride[p.axis] != 1) return;
    int periodic = -1;
    for (int a = 0; a < kPoissonAxes; ++a) {
      if (a == p.axis || layout_.shape[a] == 1) continue;
      if (!layout_.fourier[a] || periodic >= 0) return;
      periodic = a;
    }
    if (periodic < 0 || !pencil_shared_memory_fits(layout_.shape[periodic])) return;
    periodic_fold_ = true;
    folded_wall_ = 0;
    pencil_axis_ = periodic;
    pencil_shape_.pencil_is_outer = true;  // the division's outer axis is the periodic one
    pencil_shape_.inner = 1;
    pencil_shape_.outer = 1;
    pencil_shape_.row_stride = p.n;
    pencil_shape_.pencils = fold_units(p.line, p.n);
    pencil_shape_.problems = layout_.batch;
  }

  // The grid of plan_periodic_fold: its wall's forward lines, the turnaround along the
  // periodic axis on the wall's half spectra, the wall's inverse lines into the solution
  // (through the coefficient array under the zero_at_origin gauge).
  void solve_periodic_fold(const T* rhs, T* solution, StreamHandle stream) {
    const Wall& wall = walls_[0];
    const int other = kPoissonAxes * (kPoissonAxes - 1) / 2 - pencil_axis_ - wall.pass.axis;
    transform_lines(wall, rhs, wall.on_grid, stream);
    const PencilFold<T> fold{
        spectrum(), quarter_twiddles(wall.pass), wall.pass.n, wall.pass.half, wall.pass.line, true, true, false};
    launch_poisson_folded_pencil_turnaround(device_, layout_.shape[pencil_axis_],
                                            division(pencil_axis_, wall.pass.axis, other), pencil_shape_,
                                            pencil_twiddles_.data() + pencil_twiddle_offset_, fold, stream);
    const bool in_solution = !layout_.pin_origin;
    inverse_transform_lines(wall, in_solution ? solution : coefficients_.data(), wall.on_grid, stream);
    if (!in_solution) copy_out_coefficients(solution, stream);
  }

  // The complex length of a wall pass's pencil FFT: its DFT length, but n / 2 for a DCT-IV
  // by pairs.
  static std::int64_t pencil_length(const WallPass<T>& p) {
    return p.line == WallLine::quarter_pairs ? p.half : p.length;
  }

  // The twiddle table of an n-point pencil FFT (pencil_twiddle_table), appended to the
  // pencil twiddles in T; returns its offset.
  std::int64_t add_pencil_twiddles(std::int64_t n) {
    const auto offset = static_cast<std::int64_t>(host_pencil_twiddles_.size());
    for (const std::complex<double>& w : pencil_twiddle_table(static_cast<int>(n))) {
      host_pencil_twiddles_.push_back({static_cast<T>(w.real()), static_cast<T>(w.imag())});
    }
    return offset;
  }

  // Whether n is a pencil length (a power of two up to kMaxPencilLength) whose tile fits
  // the device's shared memory: the periodic turnaround's tile, for the wall pencil
  // passes too (theirs, of fewer threads, is never larger).
  bool pencil_shared_memory_fits(std::int64_t n) const {
    std::size_t shared_bytes = 0;
    const bool pencil_length = PoissonPencilPolicies::dispatch(device_.arch, [&](auto tag) {
      using Tuning = typename decltype(tag)::type;
      return with_pencil_length(n, [&](auto length) {
        shared_bytes = PencilPolicyFor<Tuning, T, decltype(length)::value>::shared_bytes;
      });
    });
    if (!pencil_length) return false;
    int shared_optin = 0;
    CUNUM_CHECK(cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, binding_.device));
    return shared_bytes <= static_cast<std::size_t>(shared_optin);
  }

  void launch_pencils(StreamHandle stream) {
    launch_poisson_pencil_turnaround(device_, layout_.shape[pencil_axis_], division(order_[0], order_[1], order_[2]),
                                     pencil_shape_, pencil_twiddles_.data() + pencil_twiddle_offset_, spectrum(),
                                     stream);
  }

  // A pass's twiddles (line_twiddle_angle), (cos, sin) interleaved: a complex value each;
  // for a cosine pass (cos, sin)(pi k / 2n).
  static const PoissonComplex<T>* quarter_twiddles(const WallPass<T>& p) {
    return reinterpret_cast<const PoissonComplex<T>*>(p.twiddles);
  }

  // Stage `stage` of a wall's transforms along its pencils, source -> target; where it
  // folds, the folded axis's spectrum stands for the grid's side (`source` before the
  // turnaround, `target` after it).
  void launch_wall_pencils(WallStage stage, const Wall& wall, const T* source, T* target, StreamHandle stream) {
    const PoissonComplex<T>* twiddles = pencil_twiddles_.data() + wall.pencil_twiddle_offset;
    const SpectralTables<T> by_eigenvalues = division(order_[0], order_[1], order_[2]);
    PencilFold<T> fold{nullptr, nullptr, 1, 1, WallLine::cosine, false, false, false};
    if (wall.folds || wall.slots) {
      const WallPass<T>& folded = walls_[folded_wall_].pass;
      fold = {spectrum(),
              quarter_twiddles(folded),
              folded.n,
              folded.half,
              folded.line,
              wall.folds && stage != WallStage::inverse,
              wall.folds && stage != WallStage::forward,
              wall.slots};
    }
    if (wall.pass.line == WallLine::quarter_pairs && wall.folds) {  // the turnaround (plan_fold)
      launch_poisson_folded_quarter_pencil_turnaround(device_, wall.pass.half, by_eigenvalues, wall.pencil_shape,
                                                      twiddles, quarter_twiddles(wall.pass),
                                                      wall.pass.grid_side.alternating, fold, stream);
      return;
    }
    if (wall.pass.line == WallLine::quarter_pairs) {
      launch_poisson_quarter_pencils(device_, stage, wall.pass.half, by_eigenvalues, wall.pencil_shape, twiddles,
                                     quarter_twiddles(wall.pass),
                                     wall.pass.grid_side.alternating, source, target, stream);
      return;
    }
    if (wall.pass.line != WallLine::cosine) {
      launch_poisson_extension_pencils(device_, wall.pass.line, stage, wall.pass.length, by_eigenvalues,
                                       wall.pencil_shape, twiddles, fold, source, target, stream);
      return;
    }
    // A DCT-III forward (a mixed axis at vertices) is the kernel's inverse stage, its DCT-II
    // back the forward stage, and its turnaround the DCT-III first.
    const bool dct3_first = wall.pass.dct3_forward;
    const WallStage kernel_stage = !dct3_first || stage == WallStage::turnaround ? stage
                                   : stage == WallStage::forward                ? WallStage::inverse
                                                                                : WallStage::forward;
    launch_poisson_cosine_pencils(device_, kernel_stage, wall.pass.length, by_eigenvalues, wall.pencil_shape,
                                  twiddles, quarter_twiddles(wall.pass), wall.pass.grid_side, dct3_first,
                                  fold, source, target, stream);
  }

  // A grid without periodic axes whose slowest wall axis turns around along pencils:
  // the cuFFT wall passes, then the other pencil passes, forward (rhs -> coefficients);
  // the turnaround in place; the same passes back in reverse order, the last writing the
  // solution (through the coefficient array under the zero_at_origin gauge). The passes
  // along different axes commute. A folded wall (plan_fold) stops at its half spectra,
  // which the first pencil kernel takes, and starts back from those the last gives.
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
        launch_wall_pencils(WallStage::forward, wall, current, coefficients_.data(), stream);
      } else {
        transform_lines(wall, current, current == rhs ? wall.on_grid : wall.on_coefficients, stream);
        if (w != folded_wall_) store_coefficients(wall, stream);
      }
      current = coefficients_.data();
    }
    launch_wall_pencils(WallStage::turnaround, walls_[0], coefficients_.data(), coefficients_.data(), stream);
    const bool in_solution = !layout_.pin_origin;
    for (auto pass = passes.rbegin(); pass != passes.rend(); ++pass) {
      const Wall& wall = walls_[*pass];
      T* target = in_solution && pass + 1 == passes.rend() ? solution : coefficients_.data();
      if (wall.pencils) {
        launch_wall_pencils(WallStage::inverse, wall, coefficients_.data(), target, stream);
      } else {
        if (*pass != folded_wall_) load_inverse_lines(wall, stream);
        inverse_transform_lines(wall, target, target == solution ? wall.on_grid : wall.on_coefficients, stream);
      }
    }
    if (!in_solution) copy_out_coefficients(solution, stream);
  }

  std::vector<CufftPlan*> plans() const {
    std::vector<CufftPlan*> all;
    for (const Wall& wall : walls_) {
      for (CufftPlan* each : {wall.r2c.get(), wall.c2r.get()}) {
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
      coefficients_ = DeviceBuffer<T>(static_cast<std::size_t>(layout_.batch * layout_.points), stream, memory_);
    }
  }

  static bool complex_aligned(const T* pointer) {
    return reinterpret_cast<std::uintptr_t>(pointer) % alignof(Complex) == 0;
  }

  // The `reject` rule: the sums come back to the host (the call waits for them).
  void check_compatible(const T* rhs, StreamHandle stream) {
    const MeanWeights weights{{layout_.half_weight_ends[0], layout_.half_weight_ends[1], layout_.half_weight_ends[2]},
                              {layout_.shape[0], layout_.shape[1], layout_.shape[2]}};
    launch_poisson_sums(device_, layout_.batch, layout_.points, weights, rhs, sums_.data(), stream);
    std::vector<double> sums(sums_.size());
    CUNUM_CHECK(cudaMemcpyAsync(sums.data(), sums_.data(), sums_.bytes(), cudaMemcpyDeviceToHost, stream));
    CUNUM_CHECK(cudaStreamSynchronize(stream));
    require_compatible(layout_, sums.data(), RoutineScope::current());
  }

  PoissonLayout layout_;
  DeviceBinding binding_;             // the device current at construction
  PoissonDevice device_;              // its architecture and multiprocessors, for the launchers
  DeviceMemoryResource* memory_;      // the placement's: every work area, at setup and per solve
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
  int folded_wall_ = -1;              // the wall folded into pencils (plan_fold, plan_periodic_fold); -1 without one
  bool periodic_fold_ = false;        // the grid turns around as plan_periodic_fold says
  bool pairs_in_slots_ = false;       // every wall pencil pass keeps its pairs in the complex array (plan_fold)
  PencilShape pencil_shape_{};
  std::int64_t pencil_twiddle_offset_ = 0;
  std::vector<PoissonComplex<T>> host_pencil_twiddles_;
  DeviceBuffer<PoissonComplex<T>> pencil_twiddles_;  // a pencil twiddle table for each pencil axis
  std::unique_ptr<CufftPlan> fourier_forward_;
  std::unique_ptr<CufftPlan> fourier_inverse_;
  GridView grid_view_{};
  GridView coefficient_view_{};
  int order_[kPoissonAxes] = {};     // the coefficient array's axes, slowest first
  AxisOrder division_axes_{};         // the division's rows, outer to inner (division_order)
  SpectrumRows spectrum_rows_{};      // the spectrum as those rows
  SetupFence setup_;
};

}  // namespace

template <class T>
std::unique_ptr<PoissonBackend<T>> make_poisson_cuda(const PoissonLayout& layout, const Placement& placement) {
  return std::make_unique<PoissonCuda<T>>(layout, placement);
}

#define CUNUM_INSTANTIATE_POISSON_CUDA(T) \
  template std::unique_ptr<PoissonBackend<T>> make_poisson_cuda(const PoissonLayout&, const Placement&);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_POISSON_CUDA, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
