// cunum.random: RandomGenerator, uniform and normal fills into arrays
// (include/cunum/random.hpp).

#include <nanobind/stl/string.h>

#include "cunum/random.hpp"
#include "python/src/arrays.hpp"
#include "python/src/modules.hpp"

namespace cunum::python {
namespace {

// The array a fill writes: `out`, or a new one of `size` (an int or a shape) and
// `dtype` (None: out's, else float64) following `like`'s library.
template <class Fill>
nb::object fill(RandomGenerator& generator, nb::handle out, nb::handle size, nb::handle dtype, nb::handle like,
                nb::handle stream, const char* routine, Fill body) {
  const Target target = target_of(generator.placement());
  const StreamHandle on = resolve_stream(stream, out.is_none() ? like : out, target, routine);
  std::vector<std::int64_t> shape;
  if (out.is_none()) {
    detail::require(!size.is_none(), routine, "size", "is None and so is 'out'; give one of them");
    if (nb::isinstance<nb::int_>(size)) {
      shape.push_back(nb::cast<std::int64_t>(size));
    } else {
      for (nb::handle extent : size) shape.push_back(nb::cast<std::int64_t>(extent));
    }
    for (std::int64_t extent : shape) detail::require_non_negative(extent, routine, "size");
  }
  nb::object result = nb::borrow(out);
  Real real = dtype.is_none() ? Real::float64 : parse_real(dtype, routine);
  if (!out.is_none()) {
    require_writable_library(out, "out", routine);
    real = real_of(import_array(out, "out", target, on, {}, Access::write, routine), routine);
    detail::require(dtype.is_none() || parse_real(dtype, routine) == real, routine, "dtype",
                    "differs from the dtype of 'out'");
  }
  return with_real(real, [&](auto value) {
    using T = decltype(value);
    if (out.is_none()) result = new_array_of<T>(like, shape, target, on);
    const Array output = import_as<T>(result, "out", target, on, Access::write, routine);
    {
      nb::gil_scoped_release unlocked;
      body(output.size(), output.as<T>(), on);
    }
    return result;
  });
}

constexpr const char* generator_doc = R"(A random generator filling arrays with uniform or normal float32 or float64 values.

The stream is the same on the cpu and the cuda backend, and equals cuRAND's host
generator of the kind (uniforms bit for bit; normals to a few ulps):

- 'philox4x32_10': Philox4x32-10 keyed by `seed`; offset() counts 32-bit words.
- 'mrg32k3a': L'Ecuyer's MRG32k3a with cuRAND's seeding; offset() counts raw outputs.
- 'sobol32', 'scrambled_sobol32', 'sobol64', 'scrambled_sobol64': cuRAND's Sobol
  sequences (no seed); `dimensions` of them, a fill of n values writes n / d points,
  dimension k's points contiguous; offset() counts points.

A fill starts at offset() and moves it on. A copy (copy.copy) continues the same
stream independently.

Args:
    kind: the generator, one of the names above.
    seed: the 64-bit seed (ignored by the Sobol kinds).
    backend, device: where fills run ('automatic', 'cpu', 'cuda').
    stream: cuda: the stream a Sobol kind's tables are uploaded on (the constructor
        waits for that upload).

Raises:
    InvalidArgument: naming 'kind', 'placement.backend' or 'placement.devices'.
    NoDevice: 'cuda' without a device.)";

constexpr const char* fill_args = R"(
Args:
    out: None, or a writable C-contiguous float32 or float64 array to fill (any
        shape; n = out.size values, a multiple of dimensions for Sobol kinds).
    size: with out None: the shape (an int or a tuple) of the new array.
    dtype: 'float32' or 'float64'; None: out's dtype, or float64 without out.
    like: with out None: an array whose library and device the new array follows;
        None: NumPy for the cpu backend, a DLPack array of cunum's device memory for
        cuda (cupy.from_dlpack and torch.from_dlpack take it without a copy).
    stream: cuda: the stream to enqueue on; None: the current stream of out's (or
        like's) library. cpu: ignored.

Returns:
    the filled array (out, or the new one).

Synchronizes: never (cuda); cpu returns when done.

Raises:
    InvalidArgument: naming 'n' (not a multiple of dimensions, or past the end of
        the stream), 'out', 'size' or 'dtype'; nothing is written and the offset is
        unchanged.)";

}  // namespace

void bind_random(nb::module_& m) {
  static const std::string uniform_doc =
      std::string("Fills an array with uniform values in (0, 1] and moves the offset on.\n") + fill_args;
  static const std::string normal_doc =
      std::string("Fills an array with normal values mean + stddev z (Box-Muller for the pseudo-random kinds, the "
                  "inverse normal CDF for Sobol) and moves the offset on.\n\n"
                  "    mean: finite.\n    stddev: finite, >= 0.\n") +
      fill_args;

  nb::class_<RandomGenerator>(m, "RandomGenerator", generator_doc)
      .def(
          "__init__",
          [](RandomGenerator* self, const std::string& kind, std::uint64_t seed, const std::string& backend,
             nb::handle device, nb::handle stream) {
            const char* routine = "cunum::RandomGenerator";
            new (self) RandomGenerator(
                parse_enum(kind, RandomGeneratorKindValues::all, routine, "kind", "RandomGeneratorKind"), seed,
                make_placement(backend, device, stream, routine));
          },
          nb::arg("kind") = "philox4x32_10", nb::arg("seed") = 0, nb::kw_only(), nb::arg("backend") = "automatic",
          nb::arg("device") = nb::none(), nb::arg("stream") = nb::none())
      .def("__copy__", [](const RandomGenerator& generator) { return RandomGenerator(generator); },
           "A generator continuing the same stream from the same offset, independently.")
      .def_prop_ro(
          "kind", [](const RandomGenerator& g) { return std::string(to_string(g.kind())); }, "the generator's name")
      .def_prop_ro(
          "backend", [](const RandomGenerator& g) { return std::string(to_string(g.backend())); },
          "the resolved backend: 'cpu' or 'cuda'")
      .def_prop_rw("seed", &RandomGenerator::seed, &RandomGenerator::set_seed,
                   "the seed; setting it restarts the stream of the new seed at offset 0")
      .def_prop_rw("offset", &RandomGenerator::offset, &RandomGenerator::set_offset,
                   "the next position a fill consumes, in the kind's units (words, raw outputs, points)")
      .def_prop_rw("dimensions", &RandomGenerator::dimensions, &RandomGenerator::set_dimensions,
                   "the Sobol dimensions (1 to 20,000; 1 for the pseudo-random kinds). Setting it uploads the new "
                   "tables (cuda) and waits for that upload.")
      .def(
          "uniform",
          [](RandomGenerator& generator, nb::handle out, nb::handle size, nb::handle dtype, nb::handle like,
             nb::handle stream) {
            return fill(generator, out, size, dtype, like, stream, "cunum::RandomGenerator::uniform",
                        [&](std::int64_t n, auto* data, StreamHandle on) { generator.uniform(n, data, on); });
          },
          nb::arg("out") = nb::none(), nb::kw_only(), nb::arg("size") = nb::none(), nb::arg("dtype") = nb::none(),
          nb::arg("like") = nb::none(), nb::arg("stream") = nb::none(), uniform_doc.c_str())
      .def(
          "normal",
          [](RandomGenerator& generator, nb::handle out, double mean, double stddev, nb::handle size,
             nb::handle dtype, nb::handle like, nb::handle stream) {
            return fill(generator, out, size, dtype, like, stream, "cunum::RandomGenerator::normal",
                        [&](std::int64_t n, auto* data, StreamHandle on) {
                          using T = std::remove_pointer_t<decltype(data)>;
                          generator.normal(n, data, static_cast<T>(mean), static_cast<T>(stddev), on);
                        });
          },
          nb::arg("out") = nb::none(), nb::kw_only(), nb::arg("mean") = 0.0, nb::arg("stddev") = 1.0,
          nb::arg("size") = nb::none(), nb::arg("dtype") = nb::none(), nb::arg("like") = nb::none(),
          nb::arg("stream") = nb::none(), normal_doc.c_str());
}

}  // namespace cunum::python
