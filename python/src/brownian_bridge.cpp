// cunum.brownian_bridge: BrownianBridge, its construction orders and the fused Sobol
// bridge (include/cunum/brownian_bridge.hpp).

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "cunum/brownian_bridge.hpp"
#include "python/src/arrays.hpp"
#include "python/src/modules.hpp"

namespace cunum::python {
namespace {

// Records of a path in `layout`: (records, d, paths) path-fastest, (paths, records, d)
// path-contiguous.
std::vector<std::int64_t> layout_shape(BridgeLayout layout, std::int64_t paths, std::int64_t records, std::int64_t d) {
  if (layout == BridgeLayout::path_fastest) return {records, d, paths};
  return {paths, records, d};
}

// generate_paths or generate_increments on `z`, whose dtype picks T.
template <class Generate>
nb::object generate_from_z(const BrownianBridge& bridge, nb::handle z, nb::handle out, const std::string& z_layout,
                           const std::string& output_layout, const std::string& strategy, nb::handle stream,
                           const char* routine, Generate generate) {
  const Target target = target_of(bridge.placement());
  BridgeGenerateOptions options;
  options.z_layout = parse_enum(z_layout, BridgeLayoutValues::all, routine, "options.z_layout", "BridgeLayout");
  options.output_layout =
      parse_enum(output_layout, BridgeLayoutValues::all, routine, "options.output_layout", "BridgeLayout");
  options.strategy = parse_enum(strategy, BridgeStrategyValues::all, routine, "options.strategy", "BridgeStrategy");
  options.stream = resolve_stream(stream, z, target, routine);
  const Array normals = import_array(z, "z", target, options.stream, {}, Access::read, routine);
  const std::int64_t record_values = bridge.z_records() * bridge.dimension();
  detail::require(normals.size() % record_values == 0, routine, "z", [&] {
    return "holds " + std::to_string(normals.size()) + " values, not a whole number of paths of " +
           std::to_string(bridge.z_records()) + " records of " + std::to_string(bridge.dimension()) + " normals";
  });
  const std::int64_t paths = normals.size() / record_values;
  return with_real(real_of(normals, routine), [&](auto value) {
    using T = decltype(value);
    nb::object result;
    const Array output = output_as<T>(out, "output", z,
                                      layout_shape(options.output_layout, paths, bridge.output_records(),
                                                   bridge.dimension()),
                                      target, options.stream, routine, result);
    {
      nb::gil_scoped_release unlocked;
      generate(bridge, paths, normals.as<T>(), output.as<T>(), options);
    }
    return result;
  });
}

template <class Generate>
nb::object generate_sobol(const BrownianBridge& bridge, std::int64_t paths, nb::handle out, nb::handle dtype,
                          nb::handle like, const std::string& sequence, std::uint64_t offset,
                          const std::string& output_layout, nb::handle stream, const char* routine,
                          Generate generate) {
  const Target target = target_of(bridge.placement());
  const nb::handle reference = out.is_none() ? like : out;
  SobolBridgeOptions options;
  options.sequence = parse_enum(sequence, SobolSequenceValues::all, routine, "options.sequence", "SobolSequence");
  options.offset = offset;
  options.output_layout =
      parse_enum(output_layout, BridgeLayoutValues::all, routine, "options.output_layout", "BridgeLayout");
  options.stream = resolve_stream(stream, reference, target, routine);
  detail::require_non_negative(paths, routine, "paths");
  const nb::object dtype_given = dtype.is_none() && !out.is_none() ? nb::object(out.attr("dtype")) : nb::borrow(dtype);
  const Real real = dtype_given.is_none() ? Real::float64 : parse_real(dtype_given, routine);
  return with_real(real, [&](auto value) {
    using T = decltype(value);
    nb::object result;
    const Array output = output_as<T>(out, "output", like,
                                      layout_shape(options.output_layout, paths, bridge.output_records(),
                                                   bridge.dimension()),
                                      target, options.stream, routine, result);
    {
      nb::gil_scoped_release unlocked;
      generate(bridge, paths, output.as<T>(), options);
    }
    return result;
  });
}

constexpr const char* bridge_doc = R"(A Brownian bridge (NAG g05xa): time grid, construction order, covariance, start and optional fixed end.

The interior times t_1..t_N are built in the caller's construction order: X_T first
(x0 + C sqrt(T - t0) Z_0, or the fixed end w), then each t between its nearest
already-built neighbours l < t < r:

    X_t = (X_l (r - t) + X_r (t - l)) / (r - l) + C Z sqrt((r - t)(t - l) / (r - l)),

C the lower-triangular factor of the covariance (C C' = Sigma). The bridge compiles
the order once and, for cuda, uploads it (the constructor waits for that upload
only, on a stream of cunum's own); then any number of generate calls.

Args:
    t0, T: start and end times, finite, t0 < T.
    construction_order: the interior times in construction order (make_bridge_order(),
        or any permutation): N >= 1, distinct, inside (t0, T).
    dimension: d >= 1.
    covariance: d x d values, row-major (a nested list or array); None: the identity.
    form: 'covariance' (Sigma, factored by Cholesky) or 'factor' (C itself).
    start: x0, d values; None: zeros.
    fixed_end: w, d values, for a bridge pinned at T; None: a free bridge.
    backend, device: where generate calls run ('automatic', 'cpu', 'cuda').

Synchronizes: cuda: the constructor waits for the upload of the strategy (on a
stream of cunum's own, never the caller's streams).

Raises:
    InvalidArgument: naming the argument that breaks a rule above.
    NoDevice: 'cuda' without a device.)";

constexpr const char* paths_doc = R"(Sample paths from standard normals (NAG g05xb): X_{t_1}..X_{t_N}, X_T per path.

Args:
    z: the normals, a C-contiguous float32 or float64 array (its dtype is the
        computation's) of paths x z_records records of d values, in z_layout:
        'path_fastest' (element j of record r of path p at (r d + j) paths + p;
        coalesced on the GPU) or 'path_contiguous' ((p R + r) d + j). Any shape: the
        number of paths is z.size / (z_records d).
    out: None, or a writable array of the layout's shape for the output, which must
        not overlap z; None: a new array of z's library.
    z_layout, output_layout: 'path_fastest' or 'path_contiguous'.
    strategy: the GPU strategy ('automatic', 'constant_memory', 'vectorized',
        'prefetch', 'shared_memory', 'shared_memory_reuse',
        'shared_memory_reuse_prefetch'); the cpu backend ignores it.
    stream: cuda: the stream to enqueue on; None: the current stream of z's library.

Returns:
    the output: shape (output_records, d, paths) path-fastest, (paths, output_records, d)
    path-contiguous.

Synchronizes: never (cuda); cpu returns when done.

Raises:
    InvalidArgument: z not a whole number of paths, an array the backend cannot use,
        output overlapping z, a name off its list.
    NotSupported: the strategy asked for cannot serve this bridge (the message says why).)";

constexpr const char* sobol_doc = R"(The fused quasi-random bridge: path p driven by point offset + p of a Sobol sequence.

Dimension r d + j of the sequence feeds element j of Z record r, so the lowest
dimensions build X_T and the first points of the construction order. On the GPU the
normals never touch memory. The first call with each sequence uploads its tables
and waits for that upload (not for the caller's stream).

Args:
    paths: the number of paths, >= 0.
    out: None, or a writable array of the layout's shape and `dtype`.
    dtype: 'float32' or 'float64'; None: out's dtype, or float64 without out.
    like: None, or an array whose library the new output follows (CuPy, PyTorch, ...);
        None: NumPy for the cpu backend, a DLPack array of cunum's device memory for
        cuda (cupy.from_dlpack and torch.from_dlpack take it without a copy).
    sequence: 'sobol32', 'scrambled_sobol32' (default), 'sobol64', 'scrambled_sobol64'.
    offset: the first point.
    output_layout: 'path_fastest' or 'path_contiguous'.
    stream: cuda: the stream to enqueue on; None: the current stream of out's (or
        like's) library, else the legacy default stream.

Returns:
    the output, shaped as generate_paths's.

Synchronizes: only the first call with a sequence, for its tables' upload (cuda).)";

}  // namespace

void bind_brownian_bridge(nb::module_& m) {
  m.def(
      "make_bridge_order",
      [](const std::vector<double>& times, const std::string& order, const std::vector<double>& important_times) {
        const char* routine = "cunum::make_bridge_order";
        return make_bridge_order(times, parse_enum(order, BridgeOrderValues::all, routine, "order", "BridgeOrder"),
                                 important_times);
      },
      nb::arg("times"), nb::arg("order") = "bisection", nb::arg("important_times") = std::vector<double>{},
      R"(A construction order of a time grid (NAG g05xe), for BrownianBridge.

Args:
    times: the strictly increasing interior grid t_1..t_N, N >= 1, finite.
    order: 'bisection' (T, then the index midpoint of every gap, level by level),
        'ascending' (t_1, t_2, ...) or 'important_first' (important_times in their
        order, then bisection of the gaps).
    important_times: important_first only: distinct members of times.

Returns:
    the interior times in construction order.

Raises:
    InvalidArgument: naming 'times', 'order' or 'important_times'.)");

  nb::class_<BridgeConstructionStep>(m, "BridgeConstructionStep",
                                     "One step of a bridge's compiled construction (BrownianBridge.construction_steps).")
      .def_ro("time_index", &BridgeConstructionStep::time_index, "i (1..N): the point built, output record i - 1")
      .def_ro("left_time_index", &BridgeConstructionStep::left_time_index, "l: the nearest built neighbour before")
      .def_ro("right_time_index", &BridgeConstructionStep::right_time_index, "r: the nearest built neighbour after")
      .def_ro("z_record", &BridgeConstructionStep::z_record, "the Z record the step consumes")
      .def_ro("left_weight", &BridgeConstructionStep::left_weight, "(t_r - t_i) / (t_r - t_l)")
      .def_ro("right_weight", &BridgeConstructionStep::right_weight, "(t_i - t_l) / (t_r - t_l)")
      .def_ro("std_dev", &BridgeConstructionStep::std_dev, "sqrt((t_r - t_i)(t_i - t_l) / (t_r - t_l))")
      .def_ro("left_slot", &BridgeConstructionStep::left_slot)
      .def_ro("right_slot", &BridgeConstructionStep::right_slot)
      .def_ro("store_slot", &BridgeConstructionStep::store_slot);

  nb::class_<BrownianBridge>(m, "BrownianBridge", bridge_doc)
      .def(
          "__init__",
          [](BrownianBridge* self, double t0, double end, std::vector<double> construction_order, int dimension,
             nb::handle covariance, const std::string& form, std::optional<std::vector<double>> start,
             std::optional<std::vector<double>> fixed_end, const std::string& backend, nb::handle device) {
            const char* routine = "cunum::BrownianBridge";
            std::vector<double> matrix;
            if (covariance.is_none()) {
              const std::size_t d = static_cast<std::size_t>(std::max(dimension, 0));
              matrix.assign(d * d, 0.0);
              for (std::size_t i = 0; i < d; ++i) matrix[i * d + i] = 1.0;
            } else {
              for (nb::handle row : covariance) {
                if (nb::isinstance<nb::float_>(row) || nb::isinstance<nb::int_>(row) || is_scalar(row)) {
                  matrix.push_back(nb::cast<double>(row));
                } else {
                  for (nb::handle value : row) matrix.push_back(nb::cast<double>(value));
                }
              }
            }
            const CovarianceForm parsed =
                parse_enum(form, CovarianceFormValues::all, routine, "form", "CovarianceForm");
            std::vector<double> x0 = start ? *start : std::vector<double>(std::max(dimension, 0), 0.0);
            new (self) BrownianBridge(t0, end, std::move(construction_order), dimension, matrix, parsed, std::move(x0),
                                      std::move(fixed_end), make_placement(backend, device, nb::none(), routine));
          },
          nb::arg("t0"), nb::arg("T"), nb::arg("construction_order"), nb::arg("dimension") = 1,
          nb::arg("covariance") = nb::none(), nb::arg("form") = "covariance", nb::arg("start") = nb::none(),
          nb::arg("fixed_end") = nb::none(), nb::kw_only(), nb::arg("backend") = "automatic",
          nb::arg("device") = nb::none())
      .def_prop_ro(
          "backend", [](const BrownianBridge& b) { return std::string(to_string(b.backend())); },
          "the resolved backend: 'cpu' or 'cuda'")
      .def_prop_ro("dimension", &BrownianBridge::dimension, "d")
      .def_prop_ro("interior_points", &BrownianBridge::interior_points, "N")
      .def_prop_ro("fixed_end", &BrownianBridge::fixed_end, "whether X_T is pinned to end_value")
      .def_prop_ro("z_records", &BrownianBridge::z_records, "records of Z per path: N + 1 free, N with a fixed end")
      .def_prop_ro("output_records", &BrownianBridge::output_records, "records of output per path: N + 1")
      .def_prop_ro("times", &BrownianBridge::times, "t0, t_1..t_N, T")
      .def_prop_ro("factor", &BrownianBridge::factor, "C, d x d row-major lower triangular")
      .def_prop_ro("start", &BrownianBridge::start, "x0")
      .def_prop_ro("end_value", &BrownianBridge::end_value, "w for a fixed-end bridge, else None")
      .def_prop_ro("stack_size", &BrownianBridge::stack_size, "slots of the compiled strategy's stack")
      .def("construction_steps", &BrownianBridge::construction_steps,
           "The compiled strategy, step by step in the order the backends run it.")
      .def(
          "generate_paths",
          [](const BrownianBridge& bridge, nb::handle z, nb::handle out, const std::string& z_layout,
             const std::string& output_layout, const std::string& strategy, nb::handle stream) {
            return generate_from_z(bridge, z, out, z_layout, output_layout, strategy, stream,
                                   "cunum::BrownianBridge::generate_paths",
                                   [](const BrownianBridge& b, std::int64_t paths, const auto* z_data, auto* output,
                                      const BridgeGenerateOptions& options) {
                                     b.generate_paths(paths, z_data, output, options);
                                   });
          },
          nb::arg("z"), nb::arg("out") = nb::none(), nb::kw_only(), nb::arg("z_layout") = "path_fastest",
          nb::arg("output_layout") = "path_fastest", nb::arg("strategy") = "automatic",
          nb::arg("stream") = nb::none(), paths_doc)
      .def(
          "generate_increments",
          [](const BrownianBridge& bridge, nb::handle z, nb::handle out, const std::string& z_layout,
             const std::string& output_layout, const std::string& strategy, nb::handle stream) {
            return generate_from_z(bridge, z, out, z_layout, output_layout, strategy, stream,
                                   "cunum::BrownianBridge::generate_increments",
                                   [](const BrownianBridge& b, std::int64_t paths, const auto* z_data, auto* output,
                                      const BridgeGenerateOptions& options) {
                                     b.generate_increments(paths, z_data, output, options);
                                   });
          },
          nb::arg("z"), nb::arg("out") = nb::none(), nb::kw_only(), nb::arg("z_layout") = "path_fastest",
          nb::arg("output_layout") = "path_fastest", nb::arg("strategy") = "automatic",
          nb::arg("stream") = nb::none(),
          "Scaled increments (NAG g05xd): (X_{t_i} - X_{t_{i-1}}) / (t_i - t_{i-1}), i = 1..N+1, per path.\n\n"
          "Arguments, result shape, errors and streams as generate_paths.\n\n"
          "Synchronizes: never (cuda); cpu returns when done.")
      .def(
          "generate_sobol_paths",
          [](const BrownianBridge& bridge, std::int64_t paths, nb::handle out, nb::handle dtype, nb::handle like,
             const std::string& sequence, std::uint64_t offset, const std::string& output_layout, nb::handle stream) {
            return generate_sobol(bridge, paths, out, dtype, like, sequence, offset, output_layout, stream,
                                  "cunum::BrownianBridge::generate_sobol_paths",
                                  [](const BrownianBridge& b, std::int64_t n, auto* output,
                                     const SobolBridgeOptions& options) { b.generate_sobol_paths(n, output, options); });
          },
          nb::arg("paths"), nb::arg("out") = nb::none(), nb::kw_only(), nb::arg("dtype") = nb::none(),
          nb::arg("like") = nb::none(), nb::arg("sequence") = "scrambled_sobol32", nb::arg("offset") = 0,
          nb::arg("output_layout") = "path_fastest", nb::arg("stream") = nb::none(), sobol_doc)
      .def(
          "generate_sobol_increments",
          [](const BrownianBridge& bridge, std::int64_t paths, nb::handle out, nb::handle dtype, nb::handle like,
             const std::string& sequence, std::uint64_t offset, const std::string& output_layout, nb::handle stream) {
            return generate_sobol(bridge, paths, out, dtype, like, sequence, offset, output_layout, stream,
                                  "cunum::BrownianBridge::generate_sobol_increments",
                                  [](const BrownianBridge& b, std::int64_t n, auto* output,
                                     const SobolBridgeOptions& options) {
                                    b.generate_sobol_increments(n, output, options);
                                  });
          },
          nb::arg("paths"), nb::arg("out") = nb::none(), nb::kw_only(), nb::arg("dtype") = nb::none(),
          nb::arg("like") = nb::none(), nb::arg("sequence") = "scrambled_sobol32", nb::arg("offset") = 0,
          nb::arg("output_layout") = "path_fastest", nb::arg("stream") = nb::none(),
          "The fused quasi-random bridge's scaled increments; as generate_sobol_paths.\n\n"
          "Synchronizes: only the first call with a sequence, for its tables' upload (cuda).");
}

}  // namespace cunum::python
