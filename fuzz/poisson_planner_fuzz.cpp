// Fuzzes the Poisson solver's planner: a grid (shape, lengths, boundaries, batch) and
// options (discretization, screening, compatibility rule, tolerance, gauge) given to
// PoissonSolver<float> or <double> on the CPU backend, then tiny solves. The boundaries
// are the periodic, dirichlet and neumann ones at the centrings a grid without
// `centrings` gives them; the mixed boundaries and explicit centrings are not modelled
// here yet.
//
// Invariants, beyond "no crash":
// - the constructor refuses exactly what its header's rules refuse (an independent
//   check of them here), with an Error naming the argument, and refuses sizes past any
//   machine's memory before allocating;
// - an accepted plan's layout (src/poisson_fft/poisson_layout.hpp) is consistent: the
//   extension of each axis by its boundary, the transformed axes and the spectrum's
//   shape, one eigenvalue per mode, zero only for the constant mode of a periodic or
//   Neumann axis, the singular flags;
// - on grids of up to 16 points an axis, the solution satisfies the equation: the
//   residual of (Laplacian - alpha) u = f (f less its mean for a singular problem)
//   is within rounding, with the operator built independently here: the 3-point
//   stencil with the boundary rows for finite_difference, the multiplier -k^2 on each
//   axis's periodic extension by a direct DFT for spectral; a singular problem's gauge
//   holds; `reject` refuses exactly the right-hand sides its rule refuses, naming
//   'rhs', before writing anything.

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "cunum/core/device.hpp"
#include "cunum/poisson_fft.hpp"
#include "fuzz/fuzz_support.hpp"
#include "src/poisson_fft/poisson_layout.hpp"

namespace {

using cunum::PoissonBoundary;
using cunum::fuzz::check;
using cunum::fuzz::Expect;
using cunum::fuzz::raw_double;

constexpr const char* kPlan = "cunum::PoissonSolver";
constexpr const char* kSolve = "cunum::PoissonSolver::solve";
constexpr double kPi = 3.14159265358979323846;
constexpr double kPlannedPoints = 1 << 15;  // larger grids are planned only when they cannot fit any machine
constexpr double kImpossibleBytes = 1e13;   // past this, a grid is refused before anything is allocated
constexpr std::int64_t kSolvedAxis = 16;    // solves are checked up to this many points an axis

// A dense n x n matrix, row-major: one axis's discrete second derivative.
using Matrix = std::vector<double>;

// The 3-point second difference with the boundary rows (u = 0 beyond a Dirichlet
// wall; the mirrored neighbour, du/dn = 0, at a Neumann wall; wrap-around on a period).
Matrix stencil_matrix(PoissonBoundary boundary, std::int64_t n, double length) {
  Matrix matrix(static_cast<std::size_t>(n * n), 0.0);
  const double h = boundary == PoissonBoundary::dirichlet ? length / static_cast<double>(n + 1)
                                                          : length / static_cast<double>(n);
  const double w = 1.0 / (h * h);
  for (std::int64_t i = 0; i < n; ++i) {
    matrix[i * n + i] -= 2 * w;
    for (const std::int64_t neighbour : {i - 1, i + 1}) {
      std::int64_t j = neighbour;
      if (j < 0 || j >= n) {
        if (boundary == PoissonBoundary::dirichlet) continue;
        j = boundary == PoissonBoundary::neumann ? i : (j + n) % n;
      }
      matrix[i * n + j] += w;
    }
  }
  return matrix;
}

// -k^2 on the axis's periodic extension (odd about the walls for Dirichlet, even about
// the half sample for Neumann, the grid itself for periodic), by a direct DFT of each
// unit vector's extension.
Matrix spectral_matrix(PoissonBoundary boundary, std::int64_t n, double length) {
  const std::int64_t extended = boundary == PoissonBoundary::dirichlet ? 2 * (n + 1)
                                : boundary == PoissonBoundary::neumann ? 2 * n
                                                                       : n;
  const double h = boundary == PoissonBoundary::dirichlet ? length / static_cast<double>(n + 1)
                                                          : length / static_cast<double>(n);
  // Where grid point i sits in the extension, and the extension of a unit vector.
  auto position = [&](std::int64_t i) { return boundary == PoissonBoundary::dirichlet ? i + 1 : i; };
  Matrix matrix(static_cast<std::size_t>(n * n), 0.0);
  for (std::int64_t j = 0; j < n; ++j) {
    std::vector<double> e(static_cast<std::size_t>(extended), 0.0);
    e[position(j)] = 1;
    if (boundary == PoissonBoundary::dirichlet) e[extended - 1 - j] = -1;  // x -> -x about the wall at 0
    if (boundary == PoissonBoundary::neumann) e[extended - 1 - j] = 1;     // x -> -x about the half sample
    std::vector<std::complex<double>> coefficients(static_cast<std::size_t>(extended));
    for (std::int64_t m = 0; m < extended; ++m) {
      for (std::int64_t x = 0; x < extended; ++x) {
        coefficients[m] += e[x] * std::polar(1.0, -2 * kPi * static_cast<double>(m * x % extended) /
                                                      static_cast<double>(extended));
      }
    }
    for (std::int64_t i = 0; i < n; ++i) {
      std::complex<double> sum = 0;
      for (std::int64_t m = 0; m < extended; ++m) {
        const std::int64_t signed_mode = m <= extended / 2 ? m : m - extended;
        const double k = 2 * kPi * static_cast<double>(signed_mode) / (static_cast<double>(extended) * h);
        sum += -k * k * coefficients[m] *
               std::polar(1.0, 2 * kPi * static_cast<double>(m * position(i) % extended) / static_cast<double>(extended));
      }
      matrix[i * n + j] = sum.real() / static_cast<double>(extended);
    }
  }
  return matrix;
}

struct Fuzzed {
  cunum::PoissonGrid grid;
  cunum::PoissonOptions options;
  bool moderate = true;  // lengths and screening of ordinary sizes: eigenvalues finite and non-zero
};

// The rule on lengths: every eigenvalue but a constant mode's a normal T. The
// eigenvalues by the header's formulas in long double (no overflow); near either
// end of T's range rounding decides, so either answer is right there.
template <class T>
Expect expected_eigenvalues(const Fuzzed& f) {
  const auto& g = f.grid;
  Expect expect = Expect::accept;
  for (std::size_t a = 0; a < g.shape.size(); ++a) {
    const PoissonBoundary boundary = g.boundaries[a];
    const auto n = static_cast<long double>(g.shape[a]);
    const long double extended = boundary == PoissonBoundary::dirichlet ? 2 * (n + 1)
                                 : boundary == PoissonBoundary::neumann ? 2 * n
                                                                        : n;
    const long double h = static_cast<long double>(g.lengths[a]) / (boundary == PoissonBoundary::dirichlet ? n + 1 : n);
    // The extreme magnitudes: the lowest non-constant mode, the highest, and those
    // about N / 2 (the largest wavenumber).
    const long double first = boundary == PoissonBoundary::dirichlet ? 1 : 0;
    const long double lowest = std::max<long double>(first, 1), highest = n - 1 + first;
    for (long double m : {lowest, highest, std::floor(extended / 2), std::floor(extended / 2) + 1}) {
      if (m < lowest || m > highest) continue;
      long double magnitude;
      if (f.options.discretization == cunum::PoissonDiscretization::finite_difference) {
        const long double s = std::sin(static_cast<long double>(kPi) * m / extended);
        magnitude = 4 * s * s / (h * h);
      } else {
        const long double signed_mode = m <= extended / 2 ? m : m - extended;
        const long double k = 2 * static_cast<long double>(kPi) * signed_mode / (extended * h);
        magnitude = k * k;
      }
      const long double low = std::numeric_limits<T>::min(), high = std::numeric_limits<T>::max();
      if (magnitude < low / 2 || magnitude > high * 2) return Expect::refuse;
      if (magnitude < low * 2 || magnitude > high / 2) expect = Expect::either;
    }
  }
  return expect;
}

// What the header's rules say of the grid and options.
template <class T>
Expect expected(const Fuzzed& f, double bytes) {
  const auto& g = f.grid;
  const auto& o = f.options;
  const std::size_t rank = g.shape.size();
  if (rank != 2 && rank != 3) return Expect::refuse;
  if (g.lengths.size() != rank || g.boundaries.size() != rank || g.batch < 1) return Expect::refuse;
  for (std::size_t a = 0; a < rank; ++a) {
    if (g.shape[a] < 1 || !std::isfinite(g.lengths[a]) || !(g.lengths[a] > 0) || !is_valid(g.boundaries[a])) {
      return Expect::refuse;
    }
  }
  if (!is_valid(o.discretization) || !is_valid(o.compatibility) || !is_valid(o.gauge)) return Expect::refuse;
  if (!std::isfinite(o.screening) || o.screening < 0) return Expect::refuse;
  if (!std::isfinite(o.compatibility_tolerance) || o.compatibility_tolerance < 0) return Expect::refuse;
  if (bytes > kImpossibleBytes) return Expect::refuse;  // out_of_memory, or the 2^63 bound
  return expected_eigenvalues<T>(f);
}

template <class T>
void check_layout(const Fuzzed& f, const cunum::detail::PoissonLayout& layout) {
  const auto& g = f.grid;
  const int rank = static_cast<int>(g.shape.size());
  const int first = cunum::detail::kPoissonAxes - rank;
  check(layout.rank == rank && layout.batch == g.batch, "layout: rank or batch differs from the grid");
  std::int64_t points = 1, pair_factor = 1, modes = 1, offset = 0;
  int last_fourier = -1, walls = 0;
  bool any_dirichlet = false;
  for (int a = 0; a < cunum::detail::kPoissonAxes; ++a) {
    const std::int64_t n = a >= first ? g.shape[a - first] : 1;
    const PoissonBoundary boundary = a >= first ? g.boundaries[a - first] : PoissonBoundary::periodic;
    const std::int64_t extended = boundary == PoissonBoundary::dirichlet ? 2 * (n + 1)
                                  : boundary == PoissonBoundary::neumann ? 2 * n
                                                                         : n;
    const std::string axis = "layout axis " + std::to_string(a) + ": ";
    check(layout.shape[a] == n && layout.boundaries[a] == boundary, axis + "shape or boundary differs from the grid");
    check(layout.extended[a] == extended, axis + "extension " + std::to_string(layout.extended[a]) + ", expected " +
                                              std::to_string(extended));
    // The default centrings: vertex for periodic and dirichlet axes, cell for neumann ones.
    using cunum::detail::AxisTransform;
    const AxisTransform transform = boundary == PoissonBoundary::dirichlet ? AxisTransform::sine_vertex
                                    : boundary == PoissonBoundary::neumann ? AxisTransform::cosine_cell
                                                                           : AxisTransform::fourier;
    check(layout.transforms[a] == transform, axis + "wrong transform");
    check(layout.fourier[a] == (boundary == PoissonBoundary::periodic && n > 1), axis + "wrong Fourier flag");
    if (layout.fourier[a]) last_fourier = a;
    if (boundary != PoissonBoundary::periodic) {
      check(walls < layout.wall_count && layout.walls[walls] == a, axis + "missing from the wall axes");
      ++walls;
    }
    any_dirichlet = any_dirichlet || boundary == PoissonBoundary::dirichlet;
    check(layout.eigen_offset[a] == offset, axis + "eigenvalues at the wrong offset");
    for (std::int64_t k = 0; k < n; ++k) {
      const double eigenvalue = layout.eigenvalues[static_cast<std::size_t>(offset + k)];
      check(!(eigenvalue > 0), axis + "a positive eigenvalue");
      const bool constant_mode = boundary != PoissonBoundary::dirichlet && k == 0;
      if (constant_mode) check(eigenvalue == 0, axis + "the constant mode's eigenvalue is not 0");
      if (f.moderate && !constant_mode) {
        check(std::isfinite(eigenvalue) && eigenvalue < 0, axis + "mode " + std::to_string(k) + " has eigenvalue " +
                                                               std::to_string(eigenvalue));
      }
    }
    offset += n;
    points *= n;
    pair_factor *= extended;  // a forward and inverse pair of these transforms scales by N
  }
  check(layout.wall_count == walls, "layout: wall count");
  check(layout.last_fourier == last_fourier, "layout: last Fourier axis");
  for (int a = 0; a < cunum::detail::kPoissonAxes; ++a) {
    const std::int64_t expected = a == last_fourier ? layout.shape[a] / 2 + 1 : layout.shape[a];
    check(layout.spectrum_shape[a] == expected, "layout: spectrum shape on axis " + std::to_string(a));
    modes *= expected;
  }
  check(layout.points == points && layout.pair_factor == pair_factor && layout.modes == modes,
        "layout: points, pair factor or modes");
  check(static_cast<std::int64_t>(layout.eigenvalues.size()) == offset, "layout: eigenvalue table size");
  const bool singular = !any_dirichlet && f.options.screening == 0;
  check(layout.singular == singular, "layout: singular flag");
  check(layout.pin_origin == (singular && f.options.gauge == cunum::PoissonGauge::zero_at_origin),
        "layout: pin_origin");
  check(layout.reject_incompatible == (singular && f.options.compatibility == cunum::PoissonCompatibility::reject),
        "layout: reject_incompatible");
  const double tolerance = f.options.compatibility_tolerance > 0
                               ? f.options.compatibility_tolerance
                               : std::sqrt(static_cast<double>(std::numeric_limits<T>::epsilon()));
  check(layout.compatibility_tolerance == tolerance, "layout: compatibility tolerance");
}

// Solves fuzzed right-hand sides and checks the residual, the gauge and `reject`.
template <class T>
void check_solves(FuzzedDataProvider& in, const Fuzzed& f, cunum::PoissonSolver<T>& solver,
                  const cunum::detail::PoissonLayout& layout) {
  const std::int64_t points = layout.points, total = solver.size();
  check(total == layout.batch * points, "size() is not batch x points");
  // Right-hand sides: small integers scaled, plus a mean offset per problem, or raw values.
  const bool raw = in.ConsumeIntegralInRange<int>(0, 7) == 0;
  std::vector<T> rhs(static_cast<std::size_t>(total));
  for (std::int64_t b = 0; b < layout.batch; ++b) {
    const double offset = in.ConsumeIntegralInRange<int>(-8, 8) * 0.25;
    for (std::int64_t i = 0; i < points; ++i) {
      rhs[b * points + i] = raw ? cunum::fuzz::raw_value<T>(in) : static_cast<T>(in.ConsumeIntegralInRange<int>(-64, 64) / 16.0 + offset);
    }
  }
  // What `reject` does, by its rule on the sums in double; a margin either side for rounding.
  bool refuse = false, sure = true;
  if (layout.reject_incompatible) {
    for (std::int64_t b = 0; b < layout.batch; ++b) {
      double sum = 0, absolute = 0;
      for (std::int64_t i = 0; i < points; ++i) {
        sum += rhs[b * points + i];
        absolute += std::abs(double(rhs[b * points + i]));
      }
      if (!std::isfinite(absolute) || std::abs(sum) > 2 * layout.compatibility_tolerance * absolute) refuse = true;
      else if (std::abs(sum) > 0.5 * layout.compatibility_tolerance * absolute) sure = false;
    }
  }
  std::vector<T> solution(rhs.size(), std::numeric_limits<T>::quiet_NaN());
  try {
    solver.solve(rhs.data(), solution.data());
    check(!refuse || !sure, "solve under reject accepted a right-hand side its rule refuses");
  } catch (const cunum::Error& error) {
    check(refuse || !sure, std::string("solve refused a right-hand side: ") + error.what());
    cunum::fuzz::check_refusal(error, kSolve, {"rhs"});
    check(std::all_of(solution.begin(), solution.end(), [](T v) { return std::isnan(v); }),
          "solve wrote the solution, then refused the right-hand side");
    return;
  }
  if (raw || !f.moderate) return;

  // The residual of each problem against the operator built here.
  const int first = cunum::detail::kPoissonAxes - layout.rank;
  std::vector<Matrix> operators(cunum::detail::kPoissonAxes);
  double operator_norm = f.options.screening;
  for (int a = 0; a < cunum::detail::kPoissonAxes; ++a) {
    const std::int64_t n = layout.shape[a];
    const double length = a >= first ? f.grid.lengths[a - first] : 1.0;
    operators[a] = f.options.discretization == cunum::PoissonDiscretization::finite_difference
                       ? stencil_matrix(layout.boundaries[a], n, length)
                       : spectral_matrix(layout.boundaries[a], n, length);
    double row_norm = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      double sum = 0;
      for (std::int64_t j = 0; j < n; ++j) sum += std::abs(operators[a][i * n + j]);
      row_norm = std::max(row_norm, sum);
    }
    operator_norm += row_norm;
  }
  const double unit = std::numeric_limits<T>::epsilon();
  const std::int64_t n0 = layout.shape[0], n1 = layout.shape[1], n2 = layout.shape[2];
  for (std::int64_t b = 0; b < layout.batch; ++b) {
    const T* u = solution.data() + b * points;
    const T* rhs_b = rhs.data() + b * points;
    double mean_f = 0, mean_u = 0, largest_u = 0, largest_f = 0;
    for (std::int64_t i = 0; i < points; ++i) {
      check(std::isfinite(u[i]), "a finite right-hand side has a non-finite solution");
      mean_f += rhs_b[i];
      mean_u += u[i];
      largest_u = std::max(largest_u, std::abs(double(u[i])));
      largest_f = std::max(largest_f, std::abs(double(rhs_b[i])));
    }
    mean_f /= static_cast<double>(points);
    mean_u /= static_cast<double>(points);
    const double bound = 1000 * unit * (operator_norm * largest_u + largest_f);
    for (std::int64_t i0 = 0; i0 < n0; ++i0) {
      for (std::int64_t i1 = 0; i1 < n1; ++i1) {
        for (std::int64_t i2 = 0; i2 < n2; ++i2) {
          const auto at = [&](std::int64_t j0, std::int64_t j1, std::int64_t j2) { return double(u[(j0 * n1 + j1) * n2 + j2]); };
          double applied = -f.options.screening * at(i0, i1, i2);
          for (std::int64_t j = 0; j < n0; ++j) applied += operators[0][i0 * n0 + j] * at(j, i1, i2);
          for (std::int64_t j = 0; j < n1; ++j) applied += operators[1][i1 * n1 + j] * at(i0, j, i2);
          for (std::int64_t j = 0; j < n2; ++j) applied += operators[2][i2 * n2 + j] * at(i0, i1, j);
          const double target = rhs_b[(i0 * n1 + i1) * n2 + i2] - (layout.singular ? mean_f : 0.0);
          check(std::abs(applied - target) <= bound,
                "residual " + std::to_string(applied - target) + " at (" + std::to_string(i0) + ", " +
                    std::to_string(i1) + ", " + std::to_string(i2) + ") of problem " + std::to_string(b) +
                    " exceeds " + std::to_string(bound));
        }
      }
    }
    if (layout.pin_origin) check(u[0] == 0, "zero_at_origin: u at the first point is not 0");
    if (layout.singular && !layout.pin_origin) {
      check(std::abs(mean_u) <= 1000 * unit * largest_u, "zero_mean: the solution's mean is " + std::to_string(mean_u));
    }
  }
}

// A boundary this harness models (periodic, dirichlet, neumann, each at the centring a
// grid without `centrings` gives it), or now and then one off the list: -1 or the first
// value past it. The mixed boundaries and explicit centrings are not modelled yet
// (fuzz/README.md).
PoissonBoundary modelled_boundary(FuzzedDataProvider& in) {
  const int past_the_list = static_cast<int>(std::size(cunum::PoissonBoundaryValues::all));
  const int value = in.ConsumeIntegralInRange<int>(-1, 3);
  return static_cast<PoissonBoundary>(value == 3 ? past_the_list : value);
}

template <class T>
void fuzz_solver(FuzzedDataProvider& in) {
  const auto flags = in.ConsumeIntegral<std::uint16_t>();
  const auto flag = [&](int bit) { return (flags >> bit) & 1; };
  Fuzzed f;
  auto& g = f.grid;
  auto& o = f.options;
  const std::size_t rank = flag(0) ? in.ConsumeIntegralInRange<std::size_t>(0, 4) : in.ConsumeIntegralInRange<std::size_t>(2, 3);
  for (std::size_t a = 0; a < rank; ++a) {
    g.shape.push_back(flag(1) && in.ConsumeBool() ? in.ConsumeIntegral<std::int64_t>()
                                                  : in.ConsumeIntegralInRange<std::int64_t>(1, 12));
    g.lengths.push_back(flag(2) && in.ConsumeBool() ? raw_double(in) : in.ConsumeIntegralInRange<int>(1, 400) * 0.25);
    g.boundaries.push_back(flag(3) ? modelled_boundary(in)
                                   : static_cast<PoissonBoundary>(in.ConsumeIntegralInRange<int>(0, 2)));
  }
  if (flag(4)) {  // one list of another length
    const int which = in.ConsumeIntegralInRange<int>(0, 2);
    if (which == 0) g.shape.push_back(3);
    if (which == 1 && !g.lengths.empty()) g.lengths.pop_back();
    if (which == 2) g.boundaries.push_back(PoissonBoundary::periodic);
  }
  g.batch = flag(5) ? in.ConsumeIntegral<std::int64_t>() : in.ConsumeIntegralInRange<std::int64_t>(1, 3);
  o.discretization = flag(6) ? cunum::fuzz::fuzz_enum<cunum::PoissonDiscretization>(in, 2)
                             : static_cast<cunum::PoissonDiscretization>(in.ConsumeIntegralInRange<int>(0, 1));
  o.screening = flag(7) ? raw_double(in) : in.ConsumeBool() ? 0.0 : in.ConsumeIntegralInRange<int>(1, 100) * 0.5;
  o.compatibility = flag(8) ? cunum::fuzz::fuzz_enum<cunum::PoissonCompatibility>(in, 2)
                            : static_cast<cunum::PoissonCompatibility>(in.ConsumeIntegralInRange<int>(0, 1));
  o.compatibility_tolerance = flag(9) ? raw_double(in) : in.ConsumeBool() ? 0.0 : in.ConsumeIntegralInRange<int>(1, 100) * 1e-6;
  o.gauge = flag(10) ? cunum::fuzz::fuzz_enum<cunum::PoissonGauge>(in, 2)
                     : static_cast<cunum::PoissonGauge>(in.ConsumeIntegralInRange<int>(0, 1));
  std::vector<int> boundaries;
  for (const PoissonBoundary b : g.boundaries) boundaries.push_back(static_cast<int>(b));
  cunum::fuzz::context() = std::string(sizeof(T) == 4 ? "float" : "double") + ", shape " + cunum::fuzz::list(g.shape) +
                           ", lengths " + cunum::fuzz::list(g.lengths) + ", boundaries " + cunum::fuzz::list(boundaries) +
                           ", batch " + std::to_string(g.batch) + ", discretization " +
                           std::to_string(static_cast<int>(o.discretization)) + ", screening " +
                           cunum::fuzz::list(std::vector<double>{o.screening}) + ", compatibility " +
                           std::to_string(static_cast<int>(o.compatibility)) + ", tolerance " +
                           cunum::fuzz::list(std::vector<double>{o.compatibility_tolerance}) + ", gauge " +
                           std::to_string(static_cast<int>(o.gauge));
  for (double length : g.lengths) f.moderate = f.moderate && length >= 0.25 && length <= 100;
  f.moderate = f.moderate && (o.screening == 0 || (o.screening >= 0.5 && o.screening <= 50));

  // The grid's size in points and bytes, in double (no overflow): planned only when
  // small, or when no machine could hold it (then refused before any allocation).
  double grid_points = std::max<double>(static_cast<double>(g.batch), 0);
  double axis_points = 0;
  for (const std::int64_t n : g.shape) {
    grid_points *= std::max<double>(static_cast<double>(n), 0);
    axis_points += std::max<double>(static_cast<double>(n), 0);
  }
  const double bytes = grid_points * sizeof(T);
  const Expect expect = expected<T>(f, bytes);
  const bool plannable = grid_points <= kPlannedPoints && axis_points <= kPlannedPoints;
  if (!plannable && !(bytes > kImpossibleBytes) && expect != Expect::refuse) return;

  try {
    cunum::PoissonSolver<T> solver(g, o, cunum::Backend::cpu);
    check(expect != Expect::refuse, "PoissonSolver accepted what its rules refuse");
    check(solver.backend() == cunum::Backend::cpu, "backend() is not cpu");
    check(solver.workspace_bytes() >= static_cast<std::size_t>(solver.size()) * sizeof(T),
          "workspace_bytes() is smaller than the grid");
    const auto layout = cunum::detail::make_poisson_layout<T>(g, o);
    check_layout<T>(f, layout);
    if (layout.shape[0] <= kSolvedAxis && layout.shape[1] <= kSolvedAxis && layout.shape[2] <= kSolvedAxis) {
      check_solves<T>(in, f, solver, layout);
    }
  } catch (const cunum::Error& error) {
    check(expect != Expect::accept, std::string("PoissonSolver refused what its rules allow: ") + error.what());
    cunum::fuzz::check_refusal(error, kPlan,
                               {"grid.shape", "grid.lengths", "grid.boundaries", "grid.batch", "options.discretization",
                                "options.screening", "options.compatibility", "options.compatibility_tolerance",
                                "options.gauge"});
    check(error.code() == cunum::ErrorCode::invalid_argument || error.code() == cunum::ErrorCode::out_of_memory,
          std::string("unexpected code: ") + error.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  omp_set_num_threads(1);  // the fuzzer shares its machine; FFTW plans for one thread
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  if (in.ConsumeBool()) {
    fuzz_solver<double>(in);
  } else {
    fuzz_solver<float>(in);
  }
  return 0;
}
