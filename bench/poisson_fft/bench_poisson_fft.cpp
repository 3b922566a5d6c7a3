// cunum-bench-poisson-fft: PoissonSolver against the bare cuFFT transform pair of the
// same shape (R2C then C2R, no Poisson work), interleaved on the same rotating inputs;
// the cost of wall boundaries against periodic of the same grid; every boundary and
// centring ("placements": against periodic and against the bare pair, or listed as
// refused where the CUDA backend does not serve it); 1,000 solves with one
// plan; the plan's memory against its input; and an experiment, the division folded
// into cuFFT's R2C as an LTO store callback (callback_solver.hpp), against the same
// pair, reported but not held to. Every case solves a manufactured problem
// whose exact solution is known (a separable eigenfunction obeying each axis's
// condition) and is checked against it outside the timing. Without a GPU, the periodic
// cases run on the CPU (FFTW) backend at small sizes.
//
// A mode for the profilers (scripts/poisson-profile runs it under Nsight Systems and
// Nsight Compute), instead of the sections:
//   --profile-solve GRID [--profile-precision float32|float64] [--reps N]
// plans one solver of GRID, spelt as the rows name it ("4096x4096 neumann@cell/neumann@cell",
// "256x256x256 periodic/periodic/periodic"), checks a solve against the exact solution,
// warms up, then runs N solves back to back between cudaProfilerStart and
// cudaProfilerStop, so that a profiler told to wait for that range sees the solves' own
// launches and nothing of the setup.

#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_command_line.hpp"
#include "bench_harness.hpp"
#include "callback_solver.hpp"
#include "cunum/core.hpp"
#include "cunum/poisson_fft.hpp"

namespace {

using cunum::Backend;
using cunum::PoissonBoundary;
using cunum::PoissonCentring;
using cunum::PoissonGrid;
using cunum::PoissonSolver;
using cunum::bench::BenchEnvironment;
using cunum::bench::BenchOptions;
using cunum::bench::BenchReport;
using cunum::bench::BenchRow;
using cunum::bench::FailureLog;
using cunum::bench::precision_name;

constexpr const char* kModule = "poisson_fft";
constexpr double kPi = 3.14159265358979323846;

void check_cufft(cufftResult status, const char* call) {
  if (status != CUFFT_SUCCESS) throw std::runtime_error(std::string(call) + " failed with cufftResult " + std::to_string(status));
}

// The peer: cuFFT's R2C and C2R of the grid, with nothing between them.
template <class T>
class BareCufftPair {
 public:
  BareCufftPair(const std::vector<std::int64_t>& shape, cunum::StreamHandle stream)
      : spectrum_(complex_count(shape) * 2, stream) {
    std::vector<long long> dims(shape.begin(), shape.end());
    std::size_t bytes = 0;
    constexpr bool is_float = std::is_same_v<T, float>;
    check_cufft(cufftCreate(&forward_), "cufftCreate");
    check_cufft(cufftCreate(&inverse_), "cufftCreate");
    check_cufft(cufftMakePlanMany64(forward_, static_cast<int>(dims.size()), dims.data(), nullptr, 1, 0, nullptr, 1, 0,
                                    is_float ? CUFFT_R2C : CUFFT_D2Z, 1, &bytes),
                "cufftMakePlanMany64");
    check_cufft(cufftMakePlanMany64(inverse_, static_cast<int>(dims.size()), dims.data(), nullptr, 1, 0, nullptr, 1, 0,
                                    is_float ? CUFFT_C2R : CUFFT_Z2D, 1, &bytes),
                "cufftMakePlanMany64");
    check_cufft(cufftSetStream(forward_, stream), "cufftSetStream");
    check_cufft(cufftSetStream(inverse_, stream), "cufftSetStream");
  }
  ~BareCufftPair() {
    cufftDestroy(forward_);
    cufftDestroy(inverse_);
  }
  BareCufftPair(const BareCufftPair&) = delete;
  BareCufftPair& operator=(const BareCufftPair&) = delete;

  void run(const T* input, T* output) {
    if constexpr (std::is_same_v<T, float>) {
      auto* spectrum = reinterpret_cast<cufftComplex*>(spectrum_.data());
      check_cufft(cufftExecR2C(forward_, const_cast<float*>(input), spectrum), "cufftExecR2C");
      check_cufft(cufftExecC2R(inverse_, spectrum, output), "cufftExecC2R");
    } else {
      auto* spectrum = reinterpret_cast<cufftDoubleComplex*>(spectrum_.data());
      check_cufft(cufftExecD2Z(forward_, const_cast<double*>(input), spectrum), "cufftExecD2Z");
      check_cufft(cufftExecZ2D(inverse_, spectrum, output), "cufftExecZ2D");
    }
  }

 private:
  static std::size_t complex_count(const std::vector<std::int64_t>& shape) {
    std::size_t count = static_cast<std::size_t>(shape.back() / 2 + 1);
    for (std::size_t a = 0; a + 1 < shape.size(); ++a) count *= static_cast<std::size_t>(shape[a]);
    return count;
  }
  cunum::DeviceBuffer<T> spectrum_;  // interleaved real and imaginary parts
  cufftHandle forward_ = 0;
  cufftHandle inverse_ = 0;
};

// A manufactured problem: u = prod_a phi_a(x_a), phi_a an eigenfunction obeying axis
// a's condition (periodic cos(2 pi m x / L + 0.3), Dirichlet sin(pi m x / L), Neumann
// cos(pi m x / L), dirichlet_neumann sin(pi (m + 1/2) x / L), neumann_dirichlet
// cos(pi (m + 1/2) x / L), m = 2 + a) at the grid's points (cunum/poisson_fft.hpp),
// f = -(sum k_a^2) u. The spectral solve returns u to rounding.
struct Manufactured {
  std::vector<std::vector<double>> factors;  // phi_a at each grid point of axis a
  double eigenvalue = 0;

  explicit Manufactured(const PoissonGrid& grid) {
    for (std::size_t a = 0; a < grid.shape.size(); ++a) {
      const std::int64_t n = grid.shape[a];
      const double length = grid.lengths[a];
      const int m = 2 + static_cast<int>(a);
      const PoissonBoundary boundary = grid.boundaries[a];
      const bool periodic = boundary == PoissonBoundary::periodic;
      const bool lower_dirichlet = boundary == PoissonBoundary::dirichlet || boundary == PoissonBoundary::dirichlet_neumann;
      const bool upper_dirichlet = boundary == PoissonBoundary::dirichlet || boundary == PoissonBoundary::neumann_dirichlet;
      const PoissonCentring centring = !grid.centrings.empty() ? grid.centrings[a]
                                       : periodic || boundary == PoissonBoundary::dirichlet ? PoissonCentring::vertex
                                                                                            : PoissonCentring::cell;
      // Cells: (i + 1/2) h, h = L / n. Vertices: an unstored Dirichlet wall's point is
      // one interval beyond the first point, a stored Neumann wall's is the point.
      double h = length / static_cast<double>(n), offset = 0.5;
      if (centring == PoissonCentring::vertex) {
        offset = periodic || !lower_dirichlet ? 0.0 : 1.0;
        const int neumann_walls = periodic ? 0 : (lower_dirichlet ? 0 : 1) + (upper_dirichlet ? 0 : 1);
        h = periodic ? h : length / static_cast<double>(n + 1 - neumann_walls);
      }
      const double mode = lower_dirichlet == upper_dirichlet ? m : m + 0.5;
      const double k = periodic ? 2 * kPi * m / length : kPi * mode / length;
      const double phase = periodic ? 0.3 : lower_dirichlet ? -kPi / 2 : 0.0;
      std::vector<double> values(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) values[i] = std::cos(k * (static_cast<double>(i) + offset) * h + phase);
      factors.push_back(values);
      eigenvalue -= k * k;
    }
  }

  // u (or f with `scale` = eigenvalue) at flat index `index`.
  double at(std::int64_t index, double scale = 1) const {
    double value = scale;
    for (std::size_t a = factors.size(); a-- > 0;) {
      const auto n = static_cast<std::int64_t>(factors[a].size());
      value *= factors[a][index % n];
      index /= n;
    }
    return value;
  }

  template <class T>
  std::vector<T> rhs(std::int64_t points) const {
    std::vector<T> f(static_cast<std::size_t>(points));
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < points; ++i) f[i] = static_cast<T>(at(i, eigenvalue));
    return f;
  }

  template <class T>
  double max_error(const std::vector<T>& u) const {
    double worst = 0;
    const auto points = static_cast<std::int64_t>(u.size());
#pragma omp parallel for reduction(max : worst) schedule(static)
    for (std::int64_t i = 0; i < points; ++i) {
      const double error = std::abs(static_cast<double>(u[i]) - at(i));
      worst = std::max(worst, std::isnan(error) ? INFINITY : error);
    }
    return worst;
  }
};

template <class T>
double tolerance() {
  return std::is_same_v<T, float> ? 5e-4 : 1e-9;
}

std::string shape_name(const PoissonGrid& grid) {
  std::string text;
  for (std::size_t a = 0; a < grid.shape.size(); ++a) {
    text += (a ? "x" : "") + std::to_string(grid.shape[a]);
  }
  text += " ";
  for (std::size_t a = 0; a < grid.shape.size(); ++a) {
    text += std::string(a ? "/" : "") + cunum::to_string(grid.boundaries[a]);
    if (!grid.centrings.empty()) text += std::string("@") + cunum::to_string(grid.centrings[a]);
  }
  return text;
}

// The grid that shape_name spells as `text` ("4096x4096 neumann@cell/neumann@cell": the
// points of each axis, then each axis's boundary, with "@centring" on every axis or on
// none), of lengths 1; std::invalid_argument saying what does not read. Whether the grid
// can be solved is the solver's to say.
PoissonGrid grid_from_name(const std::string& text) {
  const auto split = [](const std::string& part, char separator) {
    std::vector<std::string> pieces(1);
    for (const char c : part) {
      if (c == separator) {
        pieces.emplace_back();
      } else {
        pieces.back() += c;
      }
    }
    return pieces;
  };
  const std::vector<std::string> parts = split(text, ' ');
  if (parts.size() != 2) {
    throw std::invalid_argument("'" + text + "' is not 'SHAPE BOUNDARIES' (e.g. '4096x4096 neumann@cell/neumann@cell')");
  }
  PoissonGrid grid;
  for (const std::string& extent : split(parts[0], 'x')) {
    long long points = 0;
    if (!cunum::programs::parse_integer(extent, 1, std::int64_t{1} << 40, points)) {
      throw std::invalid_argument("'" + extent + "' in '" + parts[0] + "' is not a number of points");
    }
    grid.shape.push_back(points);
  }
  for (const std::string& axis : split(parts[1], '/')) {
    const std::size_t at = axis.find('@');
    const std::string boundary = axis.substr(0, at);
    const auto* found = std::find_if(std::begin(cunum::PoissonBoundaryValues::all),
                                     std::end(cunum::PoissonBoundaryValues::all),
                                     [&](PoissonBoundary b) { return boundary == cunum::to_string(b); });
    if (found == std::end(cunum::PoissonBoundaryValues::all)) {
      throw std::invalid_argument("'" + boundary + "' is not a boundary (periodic, dirichlet, neumann, "
                                  "dirichlet_neumann, neumann_dirichlet)");
    }
    grid.boundaries.push_back(*found);
    if (at == std::string::npos) continue;
    const std::string centring = axis.substr(at + 1);
    const auto* placed = std::find_if(std::begin(cunum::PoissonCentringValues::all),
                                      std::end(cunum::PoissonCentringValues::all),
                                      [&](PoissonCentring c) { return centring == cunum::to_string(c); });
    if (placed == std::end(cunum::PoissonCentringValues::all)) {
      throw std::invalid_argument("'" + centring + "' is not a centring (cell, vertex)");
    }
    grid.centrings.push_back(*placed);
  }
  if (grid.boundaries.size() != grid.shape.size()) {
    throw std::invalid_argument("'" + text + "' names " + std::to_string(grid.boundaries.size()) +
                                " boundaries for " + std::to_string(grid.shape.size()) + " axes");
  }
  if (!grid.centrings.empty() && grid.centrings.size() != grid.shape.size()) {
    throw std::invalid_argument("'" + text + "' gives a centring ('@cell', '@vertex') to some axes only");
  }
  grid.lengths.assign(grid.shape.size(), 1.0);
  return grid;
}

std::int64_t points_of(const PoissonGrid& grid) {
  std::int64_t points = 1;
  for (std::int64_t extent : grid.shape) points *= extent;
  return points;
}

PoissonGrid uniform_grid(std::vector<std::int64_t> shape, PoissonBoundary boundary) {
  return {shape, std::vector<double>(shape.size(), 1.0), std::vector<PoissonBoundary>(shape.size(), boundary)};
}

struct BenchContext {
  const BenchOptions& options;
  const BenchEnvironment& environment;
  BenchReport& report;
  FailureLog& failures;
  cunum::StreamHandle stream;  // CUDA backend only
};

template <class T>
void verify(BenchContext& context, const Manufactured& problem, const std::vector<T>& u, const std::string& what) {
  const double error = problem.max_error(u);
  if (!(error <= tolerance<T>())) {
    context.failures.fail(what + ": max error " + std::to_string(error) + " against the exact solution exceeds " +
                          std::to_string(tolerance<T>()));
  }
}

// A solve of the grid's manufactured problem, `ours(input, output)`, checked against
// its exact solution, then timed against `peer(input, output)` on the same rotating
// inputs, interleaved; the note gives the ratio and `against` what it is compared
// with. A wrong answer fails the bench, except in an experiment, where it is reported.
struct SolveCase {
  std::string name;            // the row's case
  const char* peer_name;
  const char* against;
  std::size_t workspace_bytes;
  bool experiment;
};

template <class T, class Ours, class Peer>
void bench_solve(BenchContext& context, const PoissonGrid& grid, const SolveCase& solve_case, Ours&& ours,
                 Peer&& peer) {
  const std::int64_t points = points_of(grid);
  const Manufactured problem(grid);
  const std::vector<T> f = problem.rhs<T>(points);
  cunum::bench::RotatingDeviceInput<T> input(f.data(), static_cast<std::size_t>(points), context.environment,
                                             context.options, context.stream);
  cunum::DeviceBuffer<T> output(static_cast<std::size_t>(points), context.stream);
  ours(input.next(), output.data());
  cunum::synchronize(context.stream);
  const std::string what = solve_case.name + " " + precision_name<T>();
  std::string wrong;
  const double error = problem.max_error(output.to_host());
  if (!(error <= tolerance<T>())) {
    wrong = "WRONG: max error " + std::to_string(error) + " against the exact solution; ";
    if (!solve_case.experiment) context.failures.fail(what + ": max error " + std::to_string(error));
  }
  const cunum::bench::PairedMedians medians = cunum::bench::compare_device_ms(
      context.options, context.stream, [&] { ours(input.next(), output.data()); },
      [&] { peer(input.next(), output.data()); });
  BenchRow row = cunum::bench::bench_row(kModule, solve_case.name, precision_name<T>(), points);
  row.median_ms = medians.ours_ms;
  row.bytes_moved = 2.0 * static_cast<double>(points) * sizeof(T);
  row.peer = solve_case.peer_name;
  row.peer_median_ms = medians.peer_ms;
  char note[200];
  std::snprintf(note, sizeof note, "%.3fx %s; workspace %.2fx the input", medians.ours_ms / medians.peer_ms,
                solve_case.against,
                static_cast<double>(solve_case.workspace_bytes) / (static_cast<double>(points) * sizeof(T)));
  row.note = wrong + note;
  context.report.add(row);
}

// Periodic grid: PoissonSolver against the bare cuFFT pair of the same shape; then the
// experiment, the division folded into the R2C as an LTO callback, against the same pair.
template <class T>
void bench_against_cufft(BenchContext& context, const PoissonGrid& grid) {
  BareCufftPair<T> pair(grid.shape, context.stream);
  const auto bare = [&](const T* input, T* output) { pair.run(input, output); };
  {
    PoissonSolver<T> solver(grid, {}, {Backend::cuda, context.stream});
    bench_solve<T>(context, grid,
                   {"solve " + shape_name(grid), "cuFFT R2C + C2R alone", "the bare pair (target <= 1.10x)",
                    solver.workspace_bytes(), false},
                   [&](const T* input, T* output) { solver.solve(input, output, context.stream); }, bare);
  }
  CallbackPoissonSolver<T> callback(grid, context.stream);
  if (!callback.available()) {
    std::printf("LTO-callback experiment, %s %s: not available (%s)\n", shape_name(grid).c_str(),
                precision_name<T>(), callback.why().c_str());
    return;
  }
  bench_solve<T>(context, grid,
                 {"experiment: LTO-callback divide " + shape_name(grid), "cuFFT R2C + C2R alone", "the bare pair", 0,
                  true},
                 [&](const T* input, T* output) { callback.solve(input, output); }, bare);
}

// Wall boundaries (issue 33's table): against the periodic solver of the same grid. Its
// targets: 1.3x, and 4x for Dirichlet at vertices where 2(n + 1) is not smooth (4096).
template <class T>
void bench_walls(BenchContext& context, const PoissonGrid& walls) {
  PoissonSolver<T> solver(walls, {}, {Backend::cuda, context.stream});
  PoissonSolver<T> periodic(uniform_grid(walls.shape, PoissonBoundary::periodic), {}, {Backend::cuda, context.stream});
  bench_solve<T>(context, walls,
                 {"solve " + shape_name(walls), "PoissonSolver, periodic, same grid", "periodic (target <= 1.3x; 4x if Bluestein)",
                  solver.workspace_bytes(), false},
                 [&](const T* input, T* output) { solver.solve(input, output, context.stream); },
                 [&](const T* input, T* output) { periodic.solve(input, output, context.stream); });
}

// One boundary and centring (placements): against the periodic solve of the same grid
// and against the bare cuFFT pair of its shape, or said to be refused.
template <class T>
void bench_placement(BenchContext& context, const PoissonGrid& grid) {
  std::optional<PoissonSolver<T>> solver;
  try {
    solver.emplace(grid, cunum::PoissonOptions{}, cunum::Placement{Backend::cuda, context.stream});
  } catch (const cunum::Error& error) {
    if (error.code() != cunum::ErrorCode::not_supported) throw;
    std::printf("placements: %s %s: refused by the CUDA backend (not_supported)\n", shape_name(grid).c_str(),
                precision_name<T>());
    return;
  }
  PoissonSolver<T> periodic(uniform_grid(grid.shape, PoissonBoundary::periodic), {}, {Backend::cuda, context.stream});
  BareCufftPair<T> pair(grid.shape, context.stream);
  const auto ours = [&](const T* input, T* output) { solver->solve(input, output, context.stream); };
  bench_solve<T>(context, grid,
                 {"placement " + shape_name(grid), "PoissonSolver, periodic, same grid", "periodic (target <= 1.3x)",
                  solver->workspace_bytes(), false},
                 ours, [&](const T* input, T* output) { periodic.solve(input, output, context.stream); });
  bench_solve<T>(context, grid,
                 {"placement " + shape_name(grid), "cuFFT R2C + C2R alone", "the bare pair",
                  solver->workspace_bytes(), false},
                 ours, [&](const T* input, T* output) { pair.run(input, output); });
}

// Every boundary at both centrings on every axis, and beside periodic axes, at each
// placement's good FFT size (n = 2^k at cells and for the mixed axes, 2^k - 1 for
// Dirichlet at vertices, 2^k + 1 for Neumann at vertices), 2-D and 3-D.
template <class T>
void bench_placements(BenchContext& context, std::int64_t side, std::int64_t cube) {
  for (const PoissonBoundary boundary : cunum::PoissonBoundaryValues::all) {
    if (boundary == PoissonBoundary::periodic) continue;
    for (const PoissonCentring centring : cunum::PoissonCentringValues::all) {
      const bool vertex = centring == PoissonCentring::vertex;
      const std::int64_t shift = !vertex                                  ? 0
                                 : boundary == PoissonBoundary::dirichlet ? -1
                                 : boundary == PoissonBoundary::neumann   ? 1
                                                                          : 0;
      for (const std::int64_t n : {side + shift, cube + shift}) {
        const std::size_t rank = n == side + shift ? 2 : 3;
        PoissonGrid walls{std::vector<std::int64_t>(rank, n), std::vector<double>(rank, 1.0),
                          std::vector<PoissonBoundary>(rank, boundary)};
        walls.centrings.assign(rank, centring);
        bench_placement<T>(context, walls);
        // Beside periodic axes: the wall axis last (contiguous), the others periodic.
        PoissonGrid beside = walls;
        for (std::size_t a = 0; a + 1 < rank; ++a) beside.boundaries[a] = PoissonBoundary::periodic;
        bench_placement<T>(context, beside);
      }
    }
  }
}

// Plan reuse: the time to plan, and `solves` solves with one plan in one timed call.
void bench_plan_reuse(BenchContext& context, const PoissonGrid& grid, int solves) {
  const std::int64_t points = points_of(grid);
  const Manufactured problem(grid);
  const std::vector<float> f = problem.rhs<float>(points);
  const auto device_f = cunum::DeviceBuffer<float>::from_host(f, context.stream);
  cunum::DeviceBuffer<float> output(static_cast<std::size_t>(points), context.stream);
  const auto start = std::chrono::steady_clock::now();
  std::optional<PoissonSolver<float>> solver;
  solver.emplace(grid, cunum::PoissonOptions{}, cunum::Placement{Backend::cuda, context.stream});
  cunum::synchronize(context.stream);
  const double plan_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  BenchRow row = cunum::bench::bench_row(kModule, std::to_string(solves) + " solves, one plan " + shape_name(grid),
                                         "float32", points);
  row.median_ms = cunum::bench::median_device_ms(context.options, context.stream, [&] {
    for (int s = 0; s < solves; ++s) solver->solve(device_f.data(), output.data(), context.stream);
  });
  cunum::synchronize(context.stream);
  verify(context, problem, output.to_host(), "plan reuse " + shape_name(grid));
  row.bytes_moved = 2.0 * static_cast<double>(points) * sizeof(float) * solves;
  char note[200];
  std::snprintf(note, sizeof note, "%.4f ms per solve; planning took %.2f ms (host clock, first plan of this shape "
                "may include cuFFT's own setup); workspace %.1f MB",
                row.median_ms / solves, plan_ms, static_cast<double>(solver->workspace_bytes()) / 1e6);
  row.note = note;
  context.report.add(row);
}

// Without a GPU: the FFTW backend on small periodic grids.
template <class T>
void bench_cpu(BenchContext& context, const PoissonGrid& grid) {
  const std::int64_t points = points_of(grid);
  const Manufactured problem(grid);
  const std::vector<T> f = problem.rhs<T>(points);
  std::vector<T> u(f.size());
  PoissonSolver<T> solver(grid, {}, Backend::cpu);
  solver.solve(f.data(), u.data());
  verify(context, problem, u, "PoissonSolver (CPU) " + shape_name(grid));
  BenchRow row = cunum::bench::bench_row(kModule, "solve " + shape_name(grid), precision_name<T>(), points);
  row.median_ms = cunum::bench::median_host_ms(context.options, [&] { solver.solve(f.data(), u.data()); });
  row.bytes_moved = 2.0 * static_cast<double>(points) * sizeof(T);
  context.report.add(row);
}

// --profile-solve: one solver of `grid`, a solve checked against the exact solution, the
// warm-up solves, then options.timed_runs solves back to back between cudaProfilerStart
// and cudaProfilerStop (the profilers' capture range). Prints one line: the solve's
// time by the host clock over those solves, the copy bandwidth measured before them,
// the workspace and the check; returns 1 if the check failed.
template <class T>
int profile_solve(const BenchOptions& options, const PoissonGrid& grid) {
  const BenchEnvironment environment = cunum::bench::measure_environment(options);
  if (environment.backend != Backend::cuda) {
    std::fprintf(stderr, "cunum-bench-poisson-fft: --profile-solve needs a CUDA device\n");
    return 1;
  }
  const auto check_cuda = [](cudaError_t status, const char* call) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(status));
  };
  cunum::Stream stream;
  PoissonSolver<T> solver(grid, {}, {Backend::cuda, stream});
  const std::int64_t points = points_of(grid);
  const Manufactured problem(grid);
  const std::vector<T> f = problem.rhs<T>(points);
  cunum::bench::RotatingDeviceInput<T> input(f.data(), static_cast<std::size_t>(points), environment, options, stream);
  cunum::DeviceBuffer<T> output(static_cast<std::size_t>(points), stream);
  solver.solve(input.next(), output.data(), stream);
  cunum::synchronize(stream);
  const double error = problem.max_error(output.to_host());
  for (int run = 0; run < options.warmup_runs; ++run) solver.solve(input.next(), output.data(), stream);
  cunum::synchronize(stream);
  check_cuda(cudaProfilerStart(), "cudaProfilerStart");
  const auto start = std::chrono::steady_clock::now();
  for (int run = 0; run < options.timed_runs; ++run) solver.solve(input.next(), output.data(), stream);
  cunum::synchronize(stream);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  check_cuda(cudaProfilerStop(), "cudaProfilerStop");
  const bool right = error <= tolerance<T>();
  std::printf("profile: %s %s on %s: %d solves in the capture range, %.4f ms a solve (host clock, back to back); "
              "copy %.1f GB/s; workspace %.2fx the input; max error %.3g against the exact solution (%s)\n",
              shape_name(grid).c_str(), precision_name<T>(), environment.provenance.device.c_str(),
              options.timed_runs, ms / options.timed_runs, environment.copy_gbps,
              static_cast<double>(solver.workspace_bytes()) / (static_cast<double>(points) * sizeof(T)), error,
              right ? "ok" : "WRONG");
  return right ? 0 : 1;
}

void run(const BenchOptions& options, FailureLog& failures) {
  const BenchEnvironment environment = cunum::bench::measure_environment(options);
  BenchReport report(environment, options, "cunum-bench-poisson-fft");
  const bool quick = options.quick;
  // The CPU backend is a backend of its own: measured wherever the filter names it.
  if (cunum::bench::section_selected(options, "cpu")) {
    BenchContext context{options, environment, report, failures, nullptr};
    for (const auto& shape : std::vector<std::vector<std::int64_t>>{{256, 256}, {64, 64, 64}}) {
      bench_cpu<float>(context, uniform_grid(shape, PoissonBoundary::periodic));
      bench_cpu<double>(context, uniform_grid(shape, PoissonBoundary::periodic));
    }
  }
  if (environment.backend != Backend::cuda) {
    std::printf("\nthe cuFFT peer, the wall-boundary costs and plan reuse need a CUDA device: not run\n");
    return;
  }
  cunum::Stream stream;
  BenchContext context{options, environment, report, failures, stream};
  const PoissonBoundary periodic = PoissonBoundary::periodic, dirichlet = PoissonBoundary::dirichlet,
                        neumann = PoissonBoundary::neumann;

  if (cunum::bench::section_selected(options, "periodic")) {
    const std::vector<std::vector<std::int64_t>> float_shapes =
        quick ? std::vector<std::vector<std::int64_t>>{{1024, 1024}, {128, 128, 128}}
              : std::vector<std::vector<std::int64_t>>{{4096, 4096}, {8192, 8192}, {256, 256, 256}, {512, 512, 512}};
    const std::vector<std::vector<std::int64_t>> double_shapes =
        quick ? std::vector<std::vector<std::int64_t>>{{1024, 1024}}
              : std::vector<std::vector<std::int64_t>>{{4096, 4096}, {8192, 8192}, {256, 256, 256}, {512, 512, 512}};
    for (const auto& shape : float_shapes) bench_against_cufft<float>(context, uniform_grid(shape, periodic));
    for (const auto& shape : double_shapes) bench_against_cufft<double>(context, uniform_grid(shape, periodic));
  }
  if (cunum::bench::section_selected(options, "walls")) {
    const std::int64_t side = quick ? 1024 : 4096;
    const std::int64_t cube = quick ? 64 : 256;
    for (const auto& boundaries : std::vector<std::vector<PoissonBoundary>>{
             {dirichlet, dirichlet}, {neumann, neumann}, {periodic, dirichlet}}) {
      bench_walls<float>(context, {{side, side}, {1.0, 1.0}, boundaries});
    }
    bench_walls<double>(context, {{side, side}, {1.0, 1.0}, {dirichlet, dirichlet}});
    bench_walls<float>(context, uniform_grid({cube, cube, cube}, dirichlet));
    bench_walls<float>(context, uniform_grid({cube, cube, cube}, neumann));
    // A Dirichlet axis of n points is a DFT of 2(n + 1): n = 2^k - 1 is its good size,
    // as n = 2^k is the periodic axis's.
    bench_walls<float>(context, {{side - 1, side - 1}, {1.0, 1.0}, {dirichlet, dirichlet}});
    bench_walls<float>(context, uniform_grid({cube - 1, cube - 1, cube - 1}, dirichlet));
  }
  if (cunum::bench::section_selected(options, "placements")) {
    bench_placements<float>(context, quick ? 1024 : 4096, quick ? 64 : 256);
    bench_placements<double>(context, quick ? 1024 : 4096, quick ? 64 : 256);
  }
  if (cunum::bench::section_selected(options, "plan reuse")) {
    bench_plan_reuse(context, uniform_grid({1024, 1024}, periodic), quick ? 100 : 1000);
  }
}

}  // namespace

int main(int argc, char** argv) {
  FailureLog failures;
  cunum::bench::BenchCommandLine command_line(
      "cunum-bench-poisson-fft",
      "cunum-bench-poisson-fft: cunum::PoissonSolver against the bare cuFFT R2C + C2R pair, wall boundaries "
      "against periodic, every boundary and centring against both, plan reuse (FFTW CPU backend without a GPU). "
      "Sections: periodic, walls, placements, plan reuse (GPU); cpu (the FFTW backend, anywhere)");
  CLI::App& app = command_line.app();
  std::string profile_grid;
  std::string profile_precision = "float32";
  CLI::Option* profile =
      app.add_option("--profile-solve", profile_grid,
                     "For Nsight Systems and Compute, instead of the sections: one solver of GRID, spelt as the "
                     "rows name it ('4096x4096 neumann@cell/neumann@cell'), checked, warmed up, then --reps solves "
                     "between cudaProfilerStart and cudaProfilerStop")
          ->type_name("GRID")
          ->check(CLI::Validator(
              [](std::string& text) {
                try {
                  grid_from_name(text);
                } catch (const std::invalid_argument& error) {
                  return std::string(error.what());
                }
                return std::string();
              },
              ""))
          ->excludes(app.get_option("--filter"));
  app.add_option("--profile-precision", profile_precision, "The --profile-solve solver's precision")
      ->check(CLI::IsMember({"float32", "float64"}))
      ->capture_default_str()
      ->needs(profile);
  const int status = command_line.parse(argc, argv);
  if (status >= 0) return status;
  if (!profile_grid.empty()) {
    try {
      const PoissonGrid grid = grid_from_name(profile_grid);
      return profile_precision == "float64" ? profile_solve<double>(command_line.options(), grid)
                                            : profile_solve<float>(command_line.options(), grid);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "cunum-bench-poisson-fft: error: %s\n", error.what());
      return 1;
    }
  }
  return cunum::bench::bench_main(command_line.options(), "cunum-bench-poisson-fft", failures,
                                  [&](const BenchOptions& options) { run(options, failures); });
}
