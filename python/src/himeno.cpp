// cunum.himeno: HimenoProblem, the Himeno benchmark's Jacobi sweeps (include/cunum/himeno.hpp).

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <variant>

#include "cunum/himeno.hpp"
#include "python/src/arrays.hpp"
#include "python/src/modules.hpp"

namespace cunum::python {
namespace {

struct PyHimenoProblem {
  std::variant<HimenoProblem<float>, HimenoProblem<double>> plan;
};

HimenoGrid parse_grid(nb::handle grid, const char* routine) {
  if (nb::isinstance<nb::str>(grid)) {
    return himeno_grid(parse_enum(nb::cast<std::string>(grid), HimenoSizeValues::all, routine, "size", "HimenoSize"));
  }
  const std::vector<std::int64_t> axes = nb::cast<std::vector<std::int64_t>>(grid);
  detail::require(axes.size() == 3, routine, "grid", "must be (nx, ny, nz) or a size name ('XS', 'S', 'M', 'L', 'XL')");
  return HimenoGrid{axes[0], axes[1], axes[2]};
}

nb::tuple grid_tuple(const HimenoGrid& grid) { return nb::make_tuple(grid.nx, grid.ny, grid.nz); }

// The caller's fields: a dict of host arrays, each of the grid's points ("a": 4 of
// them, "b" and "c": 3, "bnd", "wrk1", "pressure"), kept alive in `arrays`.
template <class T>
HimenoFields<T> read_fields(nb::dict fields, const HimenoGrid& grid, std::vector<Array>& arrays, const char* routine) {
  static const char* const names[] = {"fields.a[0]", "fields.a[1]", "fields.a[2]", "fields.a[3]",
                                      "fields.b[0]", "fields.b[1]", "fields.b[2]", "fields.c[0]",
                                      "fields.c[1]", "fields.c[2]", "fields.bnd",  "fields.wrk1",
                                      "fields.pressure"};
  const Target host{Backend::cpu, 0};
  const std::vector<std::int64_t> shape{grid.nx, grid.ny, grid.nz};
  arrays.reserve(13);
  auto field = [&](nb::handle object, const char* name) {
    arrays.push_back(import_as<T>(object, name, host, nullptr, Access::read, routine));
    require_shape(arrays.back(), shape, routine);
    return static_cast<const T*>(arrays.back().template as<T>());
  };
  auto entry = [&](const char* key) {
    detail::require(fields.contains(key), routine, "fields",
                    [&] { return std::string("has no '") + key + "' (a, b, c, bnd, wrk1 and pressure are needed)"; });
    return nb::object(fields[key]);
  };
  HimenoFields<T> result;
  std::size_t next = 0;
  for (auto [key, count, target] : {std::tuple{"a", 4, result.a}, std::tuple{"b", 3, result.b},
                                    std::tuple{"c", 3, result.c}}) {
    nb::object list = entry(key);
    detail::require(nb::len(list) == static_cast<std::size_t>(count), routine, "fields",
                    [&] { return std::string("'") + key + "' must hold " + std::to_string(count) + " arrays"; });
    for (int i = 0; i < count; ++i) target[i] = field(list[i], names[next++]);
  }
  result.bnd = field(entry("bnd"), names[next++]);
  result.wrk1 = field(entry("wrk1"), names[next++]);
  result.pressure = field(entry("pressure"), names[next++]);
  return result;
}

constexpr const char* problem_doc = R"(The Himeno benchmark's problem: point-Jacobi sweeps of the 19-point pressure-Poisson stencil.

RIKEN's Himeno benchmark (C edition, himenobmtxpa.c) on an nx x ny x nz grid (k the
contiguous axis; the boundary points never change). The fields live in the
backend's memory from construction on; iterate() sweeps them, pressure() copies the
pressure out. The pressure is bit-identical on the cpu and cuda backends.

Args:
    grid: (nx, ny, nz), each >= 3, or a standard size 'XS', 'S', 'M', 'L', 'XL'.
    fields: None for the benchmark's fields (a = (1, 1, 1, 1/6), b = 0, c = 1,
        bnd = 1, wrk1 = 0, p = i^2 / (nx - 1)^2); or a dict of NumPy arrays of
        shape grid and the problem's dtype: 'a' (4 arrays), 'b' and 'c' (3 each),
        'bnd', 'wrk1' and 'pressure' (copied; host memory).
    omega: the relaxation factor, finite.
    sweeps_per_pass: Jacobi sweeps per pass over memory (temporal blocking), 1 to
        4, or 0 for the fastest measured (1 on the CPU); across devices also the
        halos' depth, at most the thinnest slab's planes. The pressure does not
        depend on it.
    dtype: 'float32' (the benchmark's) or 'float64'.
    backend: 'automatic', 'cpu' or 'cuda'.
    devices: cuda: None (the current device), a device ordinal, or a list of
        ordinals to cut the grid into slabs along i, one per device.
    stream: cuda: the stream the setup is enqueued on (the constructor does not wait).

Raises:
    InvalidArgument: naming 'grid', 'options', 'fields' or a field ('fields.a[3]'),
        'placement.backend' or 'placement.devices'.
    OutOfMemory: the 14 fields exceed the machine's or a device's memory.
    NoDevice: cuda without a device.)";

}  // namespace

void bind_himeno(nb::module_& m) {
  m.def(
      "himeno_grid", [](const std::string& size) { return grid_tuple(parse_grid(nb::str(size.c_str()), "cunum::himeno_grid")); },
      nb::arg("size"),
      "The (nx, ny, nz) grid of a standard size: 'XS' 32 x 32 x 64, 'S' 64 x 64 x 128, 'M' 128 x 128 x 256, "
      "'L' 256 x 256 x 512, 'XL' 512 x 512 x 1024.\n\nRaises:\n    InvalidArgument: naming 'size'.");
  m.def(
      "himeno_flops",
      [](nb::handle grid, std::int64_t sweeps) { return himeno_flops(parse_grid(grid, "cunum::himeno_flops"), sweeps); },
      nb::arg("grid"), nb::arg("sweeps"),
      "The floating-point operations of `sweeps` sweeps by the benchmark's convention: 34 per interior point per "
      "sweep.");

  nb::class_<PyHimenoProblem>(m, "HimenoProblem", problem_doc)
      .def(
          "__init__",
          [](PyHimenoProblem* self, nb::handle grid, nb::handle fields, double omega, int sweeps_per_pass, nb::handle dtype,
             const std::string& backend, nb::handle devices, nb::handle stream) {
            const char* routine = "cunum::HimenoProblem";
            const HimenoGrid parsed = parse_grid(grid, routine);
            HimenoOptions options;
            options.omega = omega;
            options.sweeps_per_pass = sweeps_per_pass;
            const Placement placement = make_placement(backend, devices, stream, routine);
            with_real(parse_real(dtype, routine), [&](auto real) {
              using T = decltype(real);
              if (fields.is_none()) {
                nb::gil_scoped_release unlocked;
                new (self) PyHimenoProblem{HimenoProblem<T>(parsed, options, placement)};
                return;
              }
              std::vector<Array> arrays;
              const HimenoFields<T> given = read_fields<T>(nb::cast<nb::dict>(fields), parsed, arrays, routine);
              nb::gil_scoped_release unlocked;
              new (self) PyHimenoProblem{HimenoProblem<T>(parsed, given, options, placement)};
            });
          },
          nb::arg("grid") = "XS", nb::arg("fields") = nb::none(), nb::kw_only(), nb::arg("omega") = 0.8,
          nb::arg("sweeps_per_pass") = 0, nb::arg("dtype") = "float32", nb::arg("backend") = "automatic",
          nb::arg("devices") = nb::none(), nb::arg("stream") = nb::none())
      .def(
          "iterate",
          [](PyHimenoProblem& self, std::int64_t sweeps, nb::handle stream) {
            return std::visit(
                [&](auto& problem) {
                  const StreamHandle on =
                      resolve_stream(stream, nb::none(), target_of(problem.placement()), "cunum::HimenoProblem::iterate");
                  nb::gil_scoped_release unlocked;
                  return problem.iterate(sweeps, on);
                },
                self.plan);
          },
          nb::arg("sweeps"), nb::kw_only(), nb::arg("stream") = nb::none(),
          R"(Runs `sweeps` Jacobi sweeps and returns gosa, the last sweep's residual (sum of ss^2).

Args:
    sweeps: >= 1.
    stream: cuda, one device: the stream the sweeps are enqueued on (None: the
        legacy default stream); several devices: a stream of the first, which the
        sweeps start after. cpu: ignored.

Synchronizes: yes: it returns when the sweeps are done (it waits for gosa).

Raises:
    InvalidArgument: naming 'sweeps' (< 1) or 'this' (another device current).
    NotSupported: `stream` is being captured into a CUDA graph.)")
      .def(
          "pressure",
          [](const PyHimenoProblem& self, nb::handle stream) {
            return std::visit(
                [&](const auto& problem) -> nb::object {
                  using T = plan_value_t<decltype(problem)>;
                  const StreamHandle on = resolve_stream(stream, nb::none(), target_of(problem.placement()),
                                                         "cunum::HimenoProblem::pressure");
                  auto* values = new std::vector<T>();
                  {
                    nb::gil_scoped_release unlocked;
                    *values = problem.pressure(on);
                  }
                  nb::capsule owner(values, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
                  const HimenoGrid& grid = problem.grid();
                  const std::size_t shape[3] = {static_cast<std::size_t>(grid.nx), static_cast<std::size_t>(grid.ny),
                                                static_cast<std::size_t>(grid.nz)};
                  return nb::ndarray<nb::numpy, T>(values->data(), 3, shape, owner).cast();
                },
                self.plan);
          },
          nb::kw_only(), nb::arg("stream") = nb::none(),
          R"(The current pressure, copied to the host: a NumPy array of shape (nx, ny, nz).

Args:
    stream: cuda: the copy waits for the work enqueued on it. cpu: ignored.

Synchronizes: yes: it copies to the host and waits.

Raises:
    InvalidArgument: naming 'this' (another device current).)")
      .def_prop_ro(
          "grid", [](const PyHimenoProblem& self) { return std::visit([](const auto& p) { return grid_tuple(p.grid()); }, self.plan); },
          "(nx, ny, nz)")
      .def_prop_ro(
          "omega", [](const PyHimenoProblem& self) { return std::visit([](const auto& p) { return p.options().omega; }, self.plan); },
          "the relaxation factor")
      .def_prop_ro(
          "sweeps_per_pass",
          [](const PyHimenoProblem& self) { return std::visit([](const auto& p) { return p.sweeps_per_pass(); }, self.plan); },
          "the sweeps per pass iterate() uses (1 on the cpu backend and on several devices)")
      .def_prop_ro(
          "field_bytes",
          [](const PyHimenoProblem& self) { return std::visit([](const auto& p) { return p.field_bytes(); }, self.plan); },
          "bytes the whole grid's 14 fields occupy")
      .def_prop_ro(
          "dtype", [](const PyHimenoProblem& self) { return std::string(self.plan.index() == 0 ? "float32" : "float64"); },
          "'float32' or 'float64'")
      .def_prop_ro(
          "backend",
          [](const PyHimenoProblem& self) {
            return std::visit([](const auto& p) { return std::string(to_string(p.backend())); }, self.plan);
          },
          "the resolved backend: 'cpu' or 'cuda'")
      .def_prop_ro(
          "devices",
          [](const PyHimenoProblem& self) { return std::visit([](const auto& p) { return p.placement().devices; }, self.plan); },
          "cuda: the devices of the slabs, in order; cpu: empty");
}

}  // namespace cunum::python
