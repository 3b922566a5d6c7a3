// Poisson solver front end: validation at the API boundary, the layout both backends
// share (extension lengths, eigenvalue tables), and dispatch.

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "cunum/core/device_buffer.hpp"
#include "cunum/core/error.hpp"
#include "src/core/enum_functions.hpp"
#include "src/core/graph_capture.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/placement.hpp"
#include "src/core/memory_need.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"
#include "src/poisson_fft/poisson_fft_backends.hpp"

namespace cunum {

CUNUM_DEFINE_ENUM_FUNCTIONS(PoissonBoundary, CUNUM_POISSON_BOUNDARIES)
CUNUM_DEFINE_ENUM_FUNCTIONS(PoissonCentring, CUNUM_POISSON_CENTRINGS)
CUNUM_DEFINE_ENUM_FUNCTIONS(PoissonDiscretization, CUNUM_POISSON_DISCRETIZATIONS)
CUNUM_DEFINE_ENUM_FUNCTIONS(PoissonCompatibility, CUNUM_POISSON_COMPATIBILITIES)
CUNUM_DEFINE_ENUM_FUNCTIONS(PoissonGauge, CUNUM_POISSON_GAUGES)

namespace {

constexpr const char* kPlanRoutine = "cunum::PoissonSolver";
constexpr const char* kSolveRoutine = "cunum::PoissonSolver::solve";
constexpr const char* kClassName = "PoissonSolver";

constexpr double kPi = 3.14159265358979323846;

template <class T>
void validate(const PoissonGrid& grid, const PoissonOptions& options) {
  const std::size_t rank = grid.shape.size();
  detail::require(rank == 2 || rank == 3, kPlanRoutine, "grid.shape",
                  [&] { return "must have 2 or 3 axes, got " + std::to_string(rank); });
  detail::require(grid.lengths.size() == rank, kPlanRoutine, "grid.lengths",
                  [&] { return "must have one value per axis (" + std::to_string(rank) + "), got " +
                      std::to_string(grid.lengths.size()); });
  detail::require(grid.boundaries.size() == rank, kPlanRoutine, "grid.boundaries",
                  [&] { return "must have one value per axis (" + std::to_string(rank) + "), got " +
                      std::to_string(grid.boundaries.size()); });
  detail::require(grid.centrings.empty() || grid.centrings.size() == rank, kPlanRoutine, "grid.centrings",
                  [&] { return "must be empty (the default centrings) or have one value per axis (" +
                      std::to_string(rank) + "), got " + std::to_string(grid.centrings.size()); });
  detail::require_at_least(grid.batch, 1, kPlanRoutine, "grid.batch");
  // Every count below (grid, extension, batch) must fit a 64-bit byte count; the
  // extension at most doubles an axis, and the complex work area is about as large.
  double extended_bytes = static_cast<double>(grid.batch) * 2 * sizeof(T);
  for (std::size_t a = 0; a < rank; ++a) {
    detail::require(grid.shape[a] >= 1, kPlanRoutine, "grid.shape",
                    [&] { return "must be >= 1 on every axis, got " + std::to_string(grid.shape[a]) + " on axis " +
                        std::to_string(a); });
    detail::require(std::isfinite(grid.lengths[a]) && grid.lengths[a] > 0, kPlanRoutine, "grid.lengths",
                    [&] { return "must be finite and > 0 on every axis, got " + std::to_string(grid.lengths[a]) + " on axis " +
                        std::to_string(a); });
    detail::require_enum(grid.boundaries[a], kPlanRoutine, "grid.boundaries", "PoissonBoundary");
    if (!grid.centrings.empty()) detail::require_enum(grid.centrings[a], kPlanRoutine, "grid.centrings", "PoissonCentring");
    const PoissonCentring centring = grid.centrings.empty() ? detail::default_centring(grid.boundaries[a]) : grid.centrings[a];
    // DCT-I needs both walls' points: h = L / (n - 1).
    detail::require(detail::axis_transform(grid.boundaries[a], centring) != detail::AxisTransform::cosine_vertex ||
                        grid.shape[a] >= 2,
                    kPlanRoutine, "grid.shape", [&] {
                      return "must be >= 2 on an axis with neumann walls at vertices (both walls are grid points), "
                             "got " + std::to_string(grid.shape[a]) + " on axis " + std::to_string(a);
                    });
    extended_bytes *= 2.0 * (static_cast<double>(grid.shape[a]) + 1.0);  // in double: shape may be INT64_MAX
  }
  detail::require(extended_bytes < static_cast<double>(std::numeric_limits<std::int64_t>::max()), kPlanRoutine,
                  "grid.shape", "with grid.batch needs more than 2^63 bytes of work memory");
  detail::require_enum(options.discretization, kPlanRoutine, "options.discretization", "PoissonDiscretization");
  detail::require_enum(options.compatibility, kPlanRoutine, "options.compatibility", "PoissonCompatibility");
  detail::require_enum(options.gauge, kPlanRoutine, "options.gauge", "PoissonGauge");
  detail::require(std::isfinite(options.screening) && options.screening >= 0, kPlanRoutine, "options.screening",
                  [&] { return "must be finite and >= 0, got " + std::to_string(options.screening); });
  detail::require(std::isfinite(options.compatibility_tolerance) && options.compatibility_tolerance >= 0,
                  kPlanRoutine, "options.compatibility_tolerance",
                  [&] { return "must be finite and >= 0, got " + std::to_string(options.compatibility_tolerance); });
}

// A value in messages with three significant digits: std::to_string's fixed six
// decimals print a tolerance of 1.5e-8 as 0.000000.
std::string significant(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

// How an axis's transform modes map onto its periodic extension (poisson_layout.hpp):
// mode k is mode first_mode + mode_step k of the extension of length `extended`, on a
// grid of spacing `spacing`; a forward and inverse pair multiplies by `pair_factor`.
struct AxisSpectrum {
  std::int64_t extended;
  std::int64_t first_mode;
  std::int64_t mode_step;
  std::int64_t pair_factor;
  double spacing;
};

AxisSpectrum axis_spectrum(detail::AxisTransform transform, std::int64_t n, double length) {
  using detail::AxisTransform;
  const double cells = static_cast<double>(n);
  switch (transform) {
    case AxisTransform::fourier: return {n, 0, 1, n, length / cells};
    case AxisTransform::sine_vertex: return {2 * (n + 1), 1, 1, 2 * (n + 1), length / (cells + 1)};
    case AxisTransform::cosine_vertex: return {2 * (n - 1), 0, 1, 2 * (n - 1), length / (cells - 1)};
    case AxisTransform::sine_cell: return {2 * n, 1, 1, 2 * n, length / cells};
    case AxisTransform::cosine_cell: return {2 * n, 0, 1, 2 * n, length / cells};
    default: return {4 * n, 1, 2, 2 * n, length / cells};  // the four quarter-wave transforms
  }
}

// The eigenvalue contribution of the axis's transform mode k.
double mode_eigenvalue(const AxisSpectrum& axis, std::int64_t k, PoissonDiscretization discretization) {
  const double extended = static_cast<double>(axis.extended);
  const std::int64_t m = axis.first_mode + axis.mode_step * k;
  if (m == 0) return 0.0;  // the constant mode, exactly, whatever the spacing
  if (discretization == PoissonDiscretization::finite_difference) {
    const double s = std::sin(kPi * static_cast<double>(m) / extended);
    return -4.0 * s * s / (axis.spacing * axis.spacing);
  }
  const std::int64_t signed_mode = m <= axis.extended / 2 ? m : m - axis.extended;
  const double wavenumber = 2.0 * kPi * static_cast<double>(signed_mode) / (extended * axis.spacing);
  return -wavenumber * wavenumber;
}

// The axis's eigenvalue contribution at each of its n transform modes.
void append_eigenvalues(const AxisSpectrum& axis, std::int64_t n, PoissonDiscretization discretization,
                        std::vector<double>& table) {
  for (std::int64_t k = 0; k < n; ++k) table.push_back(mode_eigenvalue(axis, k, discretization));
}

// Every mode's eigenvalue but a constant mode's (0) must be a normal value of T (the
// CUDA backend divides by it in T): with a spacing h = L / n so fine that 1/h^2
// overflows, or a length so large that (pi / L)^2 underflows, modes would be divided by
// infinity or NaN, or zeroed, and the solution come back wrong without a word.
// Checked on a validated grid before anything is allocated, on each axis's extreme
// modes: but for a periodic axis, the modes run over m / N in [0, 1/2], where both
// discretizations' eigenvalues grow with m, so the least is the first mode that is not
// constant and the greatest the last; a periodic axis's modes k and n - k are one
// frequency, the least k = 1, the greatest k = n / 2.
template <class T>
void require_representable_eigenvalues(const PoissonGrid& grid, const PoissonOptions& options) {
  for (std::size_t a = 0; a < grid.shape.size(); ++a) {
    const std::int64_t n = grid.shape[a];
    const PoissonCentring centring =
        grid.centrings.empty() ? detail::default_centring(grid.boundaries[a]) : grid.centrings[a];
    const detail::AxisTransform transform = detail::axis_transform(grid.boundaries[a], centring);
    const AxisSpectrum axis = axis_spectrum(transform, n, grid.lengths[a]);
    const std::int64_t least = axis.first_mode == 0 ? 1 : 0;
    const std::int64_t greatest = transform == detail::AxisTransform::fourier ? n / 2 : n - 1;
    for (const std::int64_t k : {least, greatest}) {
      if (k >= n || axis.first_mode + axis.mode_step * k == 0) continue;  // a one-point axis's constant mode
      const double eigenvalue = mode_eigenvalue(axis, k, options.discretization);
      const double magnitude = std::abs(eigenvalue);
      detail::require(magnitude >= std::numeric_limits<T>::min() && magnitude <= std::numeric_limits<T>::max(),
                      kPlanRoutine, "grid.lengths", [&] {
                        return "on axis " + std::to_string(a) + " gives mode " + std::to_string(k) +
                               " the eigenvalue " + significant(eigenvalue) + ", not a normal " +
                               (sizeof(T) == 4 ? "float" : "double") +
                               ": the spacing length / points is too small or the length too large";
                      });
    }
  }
}

bool has_dirichlet_wall(PoissonBoundary boundary) {
  return boundary == PoissonBoundary::dirichlet || boundary == PoissonBoundary::dirichlet_neumann ||
         boundary == PoissonBoundary::neumann_dirichlet;
}

}  // namespace

namespace detail {

AxisTransform axis_transform(PoissonBoundary boundary, PoissonCentring centring) {
  const bool vertex = centring == PoissonCentring::vertex;
  switch (boundary) {
    case PoissonBoundary::dirichlet: return vertex ? AxisTransform::sine_vertex : AxisTransform::sine_cell;
    case PoissonBoundary::neumann: return vertex ? AxisTransform::cosine_vertex : AxisTransform::cosine_cell;
    case PoissonBoundary::dirichlet_neumann:
      return vertex ? AxisTransform::sine_quarter_vertex : AxisTransform::sine_quarter_cell;
    case PoissonBoundary::neumann_dirichlet:
      return vertex ? AxisTransform::cosine_quarter_vertex : AxisTransform::cosine_quarter_cell;
    default: return AxisTransform::fourier;
  }
}

PoissonCentring default_centring(PoissonBoundary boundary) {
  return boundary == PoissonBoundary::periodic || boundary == PoissonBoundary::dirichlet ? PoissonCentring::vertex
                                                                                          : PoissonCentring::cell;
}

template <class T>
PoissonLayout make_poisson_layout(const PoissonGrid& grid, const PoissonOptions& options) {
  PoissonLayout layout{};
  layout.rank = static_cast<int>(grid.shape.size());
  layout.batch = grid.batch;
  const int first = kPoissonAxes - layout.rank;
  bool any_dirichlet = false;
  layout.points = 1;
  layout.weight_total = 1;
  layout.pair_factor = 1;
  layout.last_fourier = -1;
  layout.wall_count = 0;
  for (int a = 0; a < kPoissonAxes; ++a) {
    const bool present = a >= first;
    const std::int64_t n = present ? grid.shape[a - first] : 1;
    const PoissonBoundary boundary = present ? grid.boundaries[a - first] : PoissonBoundary::periodic;
    const PoissonCentring centring = !present                ? PoissonCentring::vertex
                                     : grid.centrings.empty() ? default_centring(boundary)
                                                              : grid.centrings[a - first];
    const double length = present ? grid.lengths[a - first] : 1.0;
    layout.shape[a] = n;
    layout.boundaries[a] = boundary;
    layout.centrings[a] = centring;
    layout.transforms[a] = axis_transform(boundary, centring);
    const AxisSpectrum axis = axis_spectrum(layout.transforms[a], n, length);
    layout.extended[a] = axis.extended;
    any_dirichlet = any_dirichlet || has_dirichlet_wall(boundary);
    layout.fourier[a] = boundary == PoissonBoundary::periodic && n > 1;
    if (layout.fourier[a]) layout.last_fourier = a;
    if (boundary != PoissonBoundary::periodic) layout.walls[layout.wall_count++] = a;
    layout.points *= n;
    layout.half_weight_ends[a] = layout.transforms[a] == AxisTransform::cosine_vertex;
    layout.weight_total *= layout.half_weight_ends[a] ? static_cast<double>(n - 1) : static_cast<double>(n);
    layout.pair_factor *= axis.pair_factor;
    layout.eigen_offset[a] = static_cast<std::int64_t>(layout.eigenvalues.size());
    append_eigenvalues(axis, n, options.discretization, layout.eigenvalues);
  }
  layout.modes = 1;
  for (int a = 0; a < kPoissonAxes; ++a) {
    layout.spectrum_shape[a] = a == layout.last_fourier ? layout.shape[a] / 2 + 1 : layout.shape[a];
    layout.modes *= layout.spectrum_shape[a];
  }
  layout.screening = options.screening;
  layout.singular = !any_dirichlet && options.screening == 0;
  layout.pin_origin = layout.singular && options.gauge == PoissonGauge::zero_at_origin;
  layout.reject_incompatible = layout.singular && options.compatibility == PoissonCompatibility::reject;
  layout.compatibility_tolerance = options.compatibility_tolerance > 0
                                       ? options.compatibility_tolerance
                                       : std::sqrt(static_cast<double>(std::numeric_limits<T>::epsilon()));
  return layout;
}

void require_compatible(const PoissonLayout& layout, const double* sums, const char* routine) {
  for (std::int64_t b = 0; b < layout.batch; ++b) {
    const double sum = sums[2 * b];
    const double absolute_sum = sums[2 * b + 1];
    // sum |f| is NaN exactly when f holds a NaN, and infinite when f holds an infinity
    // (or, in double, magnitudes that sum past the largest double). The mean test
    // below is false for both (inf > inf, NaN > x), so they are refused here first.
    require(std::isfinite(absolute_sum), routine, "rhs", [&] {
      return std::string("holds a non-finite value in problem ") + std::to_string(b) +
             (std::isnan(absolute_sum) ? " (a NaN: sum |f| is NaN)"
                                       : " (an infinity, or magnitudes whose sum overflows double: sum |f| is inf)") +
             ": its solution would not be finite (PoissonCompatibility::reject refuses non-finite input)";
    });
    require(std::abs(sum) <= layout.compatibility_tolerance * absolute_sum, routine, "rhs", [&] {
      return "has mean " + significant(sum / layout.weight_total) + " in problem " +
             std::to_string(b) + " (|sum f| / sum |f| = " + significant(std::abs(sum) / absolute_sum) +
             " > tolerance " + significant(layout.compatibility_tolerance) +
             "): without a Dirichlet wall or screening a solution needs mean zero "
             "(PoissonCompatibility::project removes the mean)";
    });
  }
}

}  // namespace detail

namespace {

// The memory a solver of `grid` needs whatever its backend, counted before anything is
// allocated (the eigenvalue table included): the grid-sized real work array, the
// spectrum when an axis is a real DFT (the last such axis halved), and the eigenvalue
// contributions of each axis. The backends' FFT plans and scratch come on top.
template <class T>
detail::MemoryNeed poisson_memory_need(const PoissonGrid& grid) {
  detail::MemoryNeed need;
  std::int64_t points = grid.batch, modes = grid.batch, axis_values = 0;
  int last_fourier = -1;
  for (std::size_t a = 0; a < grid.shape.size(); ++a) {
    if (grid.boundaries[a] == PoissonBoundary::periodic && grid.shape[a] > 1) last_fourier = static_cast<int>(a);
    axis_values += grid.shape[a];
  }
  // validate() has held batch * prod 2 (n + 1) * 2 sizeof(T) below 2^63: no product overflows.
  for (std::size_t a = 0; a < grid.shape.size(); ++a) {
    points *= grid.shape[a];
    modes *= static_cast<int>(a) == last_fourier ? grid.shape[a] / 2 + 1 : grid.shape[a];
  }
  need.add(points, sizeof(T));
  if (last_fourier >= 0) need.add(modes, 2 * sizeof(T));
  need.add(axis_values, sizeof(double));
  return need;
}

}  // namespace

// The solver's hidden state: the resolved placement, the values per call, and the
// backend object made once here (it owns the FFT plans and work areas).
template <class T>
struct PoissonSolver<T>::Impl {
  Placement placement;
  std::int64_t size;
  std::unique_ptr<detail::PoissonBackend<T>> backend;
};

template <class T>
PoissonSolver<T>::PoissonSolver(const PoissonGrid& grid, const PoissonOptions& options, const Placement& placement) {
  const detail::RoutineScope scope(kPlanRoutine);
  validate<T>(grid, options);
  require_representable_eigenvalues<T>(grid, options);
  auto impl = std::make_unique<Impl>();
  impl->placement = detail::resolve_placement(placement, detail::DeviceCount::one, kPlanRoutine);
  const detail::PlacementDeviceScope on_device(impl->placement);
  detail::require_memory_need(poisson_memory_need<T>(grid), impl->placement.backend, kPlanRoutine,
                              "for its work arrays (the grid, its spectrum and the eigenvalue tables)");
  const detail::PoissonLayout layout = detail::make_poisson_layout<T>(grid, options);
  impl->size = layout.batch * layout.points;
  if (impl->placement.backend == Backend::cuda) {
    impl->backend = detail::make_poisson_cuda<T>(layout, impl->placement);
  } else {
    impl->backend = detail::make_poisson_cpu<T>(layout);
  }
  impl_ = std::move(impl);
}

template <class T>
PoissonSolver<T>::~PoissonSolver() = default;
template <class T>
PoissonSolver<T>::PoissonSolver(PoissonSolver&&) noexcept = default;
template <class T>
PoissonSolver<T>& PoissonSolver<T>::operator=(PoissonSolver&&) noexcept = default;

template <class T>
void PoissonSolver<T>::solve(const T* rhs, T* solution, StreamHandle stream) {
  const detail::RoutineScope scope(kSolveRoutine);
  Impl& self = detail::require_plan(impl_, kSolveRoutine, kClassName);
  detail::require_memory(rhs, self.size, self.placement.backend, kSolveRoutine, "rhs");
  detail::require_memory(solution, self.size, self.placement.backend, kSolveRoutine, "solution");
  // In place is served; any other overlap would read values already written.
  if (solution != rhs) {
    const auto bytes = static_cast<std::size_t>(self.size) * sizeof(T);
    detail::require_disjoint(solution, bytes, rhs, bytes, kSolveRoutine, "solution", "rhs");
  }
  self.backend->solve(rhs, solution, stream);
}

template <class T>
std::vector<T> PoissonSolver<T>::solve(const std::vector<T>& rhs) {
  detail::require_plan(impl_, kSolveRoutine, kClassName);
  std::vector<T> solution = rhs;
  solve_in_place(solution);
  return solution;
}

template <class T>
void PoissonSolver<T>::solve_in_place(std::vector<T>& rhs_and_solution) {
  const detail::RoutineScope scope(kSolveRoutine);
  const Impl& self = detail::require_plan(impl_, kSolveRoutine, kClassName);
  const std::int64_t expected = self.size;
  detail::require(static_cast<std::int64_t>(rhs_and_solution.size()) == expected, kSolveRoutine, "rhs",
                  [&] { return "has " + std::to_string(rhs_and_solution.size()) + " values, expected " + std::to_string(expected); });
  if (self.placement.backend == Backend::cpu) {
    solve(rhs_and_solution.data(), rhs_and_solution.data());
    return;
  }
  detail::refuse_capture(self.placement.stream, "it copies through the device on placement.stream and waits");
  auto device = DeviceBuffer<T>::from_host(rhs_and_solution, self.placement.stream, self.placement.device_memory);
  solve(device.data(), device.data(), self.placement.stream);
  device.copy_to_host(rhs_and_solution.data(), rhs_and_solution.size());
}

template <class T>
std::int64_t PoissonSolver<T>::size() const {
  return detail::require_plan(impl_, "cunum::PoissonSolver::size", kClassName).size;
}

template <class T>
std::size_t PoissonSolver<T>::workspace_bytes() const {
  return detail::require_plan(impl_, "cunum::PoissonSolver::workspace_bytes", kClassName).backend->workspace_bytes();
}

template <class T>
Backend PoissonSolver<T>::backend() const {
  return detail::require_plan(impl_, "cunum::PoissonSolver::backend", kClassName).placement.backend;
}

template <class T>
const Placement& PoissonSolver<T>::placement() const {
  return detail::require_plan(impl_, "cunum::PoissonSolver::placement", kClassName).placement;
}

#define CUNUM_INSTANTIATE_POISSON(T) \
  template class PoissonSolver<T>;   \
  template detail::PoissonLayout detail::make_poisson_layout<T>(const PoissonGrid&, const PoissonOptions&);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_POISSON, CUNUM_REAL_TYPES)

}  // namespace cunum
