// cunum.poisson_fft: PoissonSolver (include/cunum/poisson_fft.hpp).

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <variant>

#include "cunum/poisson_fft.hpp"
#include "python/src/arrays.hpp"
#include "python/src/modules.hpp"

namespace cunum::python {
namespace {

struct PyPoissonSolver {
  std::variant<PoissonSolver<float>, PoissonSolver<double>> plan;
  PoissonGrid grid;
};

// The shapes a right-hand side may have: the grid's (one problem) or (batch, grid).
bool solvable_shape(const std::vector<std::int64_t>& shape, const PoissonGrid& grid) {
  if (grid.batch == 1 && shape == grid.shape) return true;
  std::vector<std::int64_t> batched{grid.batch};
  batched.insert(batched.end(), grid.shape.begin(), grid.shape.end());
  return shape == batched;
}

template <class T>
nb::object solve_with(PoissonSolver<T>& solver, const PoissonGrid& grid, nb::handle rhs, nb::handle out,
                      nb::handle stream) {
  const char* routine = "cunum::PoissonSolver::solve";
  const Target target = target_of(solver.placement());
  const StreamHandle on = resolve_stream(stream, rhs, target, routine);
  const Array input = import_as<T>(rhs, "rhs", target, on, Access::read, routine);
  const std::vector<std::int64_t> shape = input.shape();
  detail::require(solvable_shape(shape, grid), routine, "rhs", [&] {
    std::vector<std::int64_t> batched{grid.batch};
    batched.insert(batched.end(), grid.shape.begin(), grid.shape.end());
    return "has shape " + shape_text(shape) + "; expected " +
           (grid.batch == 1 ? shape_text(grid.shape) + " or " : std::string()) + shape_text(batched);
  });
  nb::object result;
  const Array output = output_as<T>(out, "solution", rhs, shape, target, on, routine, result);
  {
    nb::gil_scoped_release unlocked;
    solver.solve(input.as<T>(), output.as<T>(), on);
  }
  return result;
}

constexpr const char* solver_doc = R"(A Poisson solver planned once for a grid, then called many times.

Solves (Laplacian - alpha) u = f, alpha = screening >= 0, on a 2-D or 3-D grid by
FFTs (cuFFT on the GPU, FFTW on the CPU), with a boundary condition per axis:
'periodic'; 'dirichlet' (u = 0) or 'neumann' (du/dn = 0) on both walls;
'dirichlet_neumann' (u = 0 at x = 0, du/dx = 0 at x = L) or 'neumann_dirichlet'.
Each axis's walls sit at cell faces ('cell': x_i = (i + 1/2) h, h = L / n) or at
grid points ('vertex': a Dirichlet wall's point is not stored, a Neumann wall's is):

- 'periodic':          x_i = i h,       h = L / n;
- 'dirichlet':         x_i = (i + 1) h, h = L / (n + 1);
- 'neumann':           x_i = i h,       h = L / (n - 1) (n >= 2);
- 'dirichlet_neumann': x_i = (i + 1) h, h = L / n;
- 'neumann_dirichlet': x_i = i h,       h = L / n.

The default centrings are 'vertex' for periodic and dirichlet axes and 'cell' for
the others. Both backends serve every condition at both centrings.

Arrays are C-ordered, the last axis fastest. Without a Dirichlet wall and with
alpha = 0 the constants solve the homogeneous problem: `compatibility` says what a
right-hand side of non-zero mean does ('project' solves for f - mean f, 'reject'
raises InvalidArgument naming 'rhs'), `gauge` which constant is returned
('zero_mean', or 'zero_at_origin': u = 0 at the first point).

Args:
    shape: points per axis, (n0, n1) or (n0, n1, n2), each >= 1.
    lengths: domain length per axis, > 0; None: 1 on every axis.
    boundaries: one name for every axis, or one per axis.
    batch: independent problems per call, >= 1.
    centrings: 'vertex' or 'cell' for every axis, or one per axis; None: the
        defaults above.
    discretization: 'spectral' (-k^2 per mode) or 'finite_difference' (the
        eigenvalues of the 5-point / 7-point stencil).
    screening: alpha >= 0.
    compatibility: 'project' or 'reject'.
    compatibility_tolerance: reject's bound on |sum f| / sum |f|; 0: sqrt(eps).
    gauge: 'zero_mean' or 'zero_at_origin'.
    dtype: 'float32' or 'float64'.
    backend, device: where it runs ('automatic', 'cpu', 'cuda').
    stream: cuda: the stream its one-time setup is enqueued on (the constructor
        does not wait; solves on other streams are ordered after it).

Raises:
    InvalidArgument: naming the argument ('grid.shape', 'grid.lengths',
        'grid.boundaries', 'grid.batch', 'grid.centrings', 'options.screening', ...).
    OutOfMemory: the work arrays exceed the machine's or device's memory.
    NoDevice: 'cuda' without a device.
    NotSupported: `stream` is being captured into a CUDA graph.)";

constexpr const char* solve_doc = R"(Solves every problem of the batch: out = (Laplacian - alpha)^-1 rhs.

Args:
    rhs: f, a C-contiguous array of the solver's dtype, of the grid's shape (one
        problem) or (batch, *shape): NumPy for the cpu backend; CuPy, PyTorch, JAX or
        any __dlpack__ / __cuda_array_interface__ array on the solver's device for cuda.
    out: None, or a writable array of rhs's shape; it may be rhs itself (in place);
        any other overlap is refused. None: a new array of rhs's library.
    stream: cuda: the stream to enqueue on; None: the current stream of rhs's library.

Returns:
    the solution (out, or the new array).

Synchronizes: never (cuda), except that the 'reject' compatibility check on a
singular problem waits for its sums; cpu returns when done. One solve at a time per
solver: solves on different streams must be ordered by the caller.

Raises:
    InvalidArgument: naming 'rhs' (shape, dtype, memory; an incompatible mean or a
        non-finite value under 'reject') or 'solution' (overlapping rhs without being it).
    NotSupported: on a stream being captured into a CUDA graph, in the cases
        docs/poisson_fft.md lists.)";

}  // namespace

void bind_poisson_fft(nb::module_& m) {
  nb::class_<PyPoissonSolver>(m, "PoissonSolver", solver_doc)
      .def(
          "__init__",
          [](PyPoissonSolver* self, const std::vector<std::int64_t>& shape, nb::handle lengths, nb::handle boundaries,
             std::int64_t batch, nb::handle centrings, const std::string& discretization, double screening,
             const std::string& compatibility, double compatibility_tolerance, const std::string& gauge,
             nb::handle dtype, const std::string& backend, nb::handle device, nb::handle stream) {
            const char* routine = "cunum::PoissonSolver";
            PoissonGrid grid;
            grid.shape = shape;
            grid.batch = batch;
            if (lengths.is_none()) grid.lengths.assign(shape.size(), 1.0);
            else grid.lengths = nb::cast<std::vector<double>>(lengths);
            auto boundary = [&](nb::handle name) {
              return parse_enum(nb::cast<std::string>(name), PoissonBoundaryValues::all, routine, "grid.boundaries",
                                "PoissonBoundary");
            };
            if (nb::isinstance<nb::str>(boundaries)) grid.boundaries.assign(shape.size(), boundary(boundaries));
            else for (nb::handle name : boundaries) grid.boundaries.push_back(boundary(name));
            auto centring = [&](nb::handle name) {
              return parse_enum(nb::cast<std::string>(name), PoissonCentringValues::all, routine, "grid.centrings",
                                "PoissonCentring");
            };
            if (nb::isinstance<nb::str>(centrings)) grid.centrings.assign(shape.size(), centring(centrings));
            else if (!centrings.is_none()) for (nb::handle name : centrings) grid.centrings.push_back(centring(name));
            PoissonOptions options;
            options.discretization = parse_enum(discretization, PoissonDiscretizationValues::all, routine,
                                                "options.discretization", "PoissonDiscretization");
            options.screening = screening;
            options.compatibility = parse_enum(compatibility, PoissonCompatibilityValues::all, routine,
                                               "options.compatibility", "PoissonCompatibility");
            options.compatibility_tolerance = compatibility_tolerance;
            options.gauge = parse_enum(gauge, PoissonGaugeValues::all, routine, "options.gauge", "PoissonGauge");
            const Placement placement = make_placement(backend, device, stream, routine);
            with_real(parse_real(dtype, routine), [&](auto real) {
              new (self) PyPoissonSolver{PoissonSolver<decltype(real)>(grid, options, placement), grid};
            });
          },
          nb::arg("shape"), nb::arg("lengths") = nb::none(), nb::arg("boundaries") = "periodic",
          nb::arg("batch") = 1, nb::kw_only(), nb::arg("centrings") = nb::none(), nb::arg("discretization") = "spectral", nb::arg("screening") = 0.0,
          nb::arg("compatibility") = "project", nb::arg("compatibility_tolerance") = 0.0,
          nb::arg("gauge") = "zero_mean", nb::arg("dtype") = "float64", nb::arg("backend") = "automatic",
          nb::arg("device") = nb::none(), nb::arg("stream") = nb::none())
      .def(
          "solve",
          [](PyPoissonSolver& self, nb::handle rhs, nb::handle out, nb::handle stream) {
            return std::visit([&](auto& solver) { return solve_with(solver, self.grid, rhs, out, stream); }, self.plan);
          },
          nb::arg("rhs"), nb::arg("out") = nb::none(), nb::kw_only(), nb::arg("stream") = nb::none(), solve_doc)
      .def_prop_ro(
          "shape", [](const PyPoissonSolver& self) { return self.grid.shape; }, "points per axis")
      .def_prop_ro(
          "batch", [](const PyPoissonSolver& self) { return self.grid.batch; }, "problems per call")
      .def_prop_ro(
          "dtype", [](const PyPoissonSolver& self) { return std::string(self.plan.index() == 0 ? "float32" : "float64"); },
          "'float32' or 'float64'")
      .def_prop_ro(
          "size", [](const PyPoissonSolver& self) { return std::visit([](const auto& s) { return s.size(); }, self.plan); },
          "values per call: batch times the points of one grid")
      .def_prop_ro(
          "workspace_bytes",
          [](const PyPoissonSolver& self) { return std::visit([](const auto& s) { return s.workspace_bytes(); }, self.plan); },
          "bytes of work memory the solver holds (device memory for cuda), FFT work areas included")
      .def_prop_ro(
          "backend",
          [](const PyPoissonSolver& self) {
            return std::visit([](const auto& s) { return std::string(to_string(s.backend())); }, self.plan);
          },
          "the resolved backend: 'cpu' or 'cuda'");
}

}  // namespace cunum::python
