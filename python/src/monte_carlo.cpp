// cunum.monte_carlo: MonteCarloSettings, MonteCarloPricer and its batches
// (include/cunum/monte_carlo.hpp). Custom payoffs (cunum::price_with_payoff) are device
// functors compiled by nvcc: C++ only.

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstddef>
#include <variant>

#include "cunum/monte_carlo.hpp"
#include "python/src/arrays.hpp"
#include "python/src/modules.hpp"

namespace cunum::python {
namespace {

using AnyMonteCarloPricer = std::variant<MonteCarloPricer<float>, MonteCarloPricer<double>>;
using AnyMonteCarloBatch = std::variant<MonteCarloBatch<float>, MonteCarloBatch<double>>;

struct PyMonteCarloPricer {
  AnyMonteCarloPricer plan;
};
struct PyMonteCarloBatch {
  AnyMonteCarloBatch batch;
};

// The fields of MonteCarloEstimate<T> and MonteCarloAssetGreeks<T>, for the strided
// views price() returns: name, byte offset, and whether the field is the int64 count.
struct Field {
  const char* name;
  std::size_t offset;
  bool count;
};

template <class T>
std::vector<Field> estimate_fields() {
  using E = MonteCarloEstimate<T>;
  return {{"price", offsetof(E, price), false},
          {"standard_error", offsetof(E, standard_error), false},
          {"confidence_low", offsetof(E, confidence_low), false},
          {"confidence_high", offsetof(E, confidence_high), false},
          {"delta", offsetof(E, delta), false},
          {"delta_standard_error", offsetof(E, delta_standard_error), false},
          {"vega", offsetof(E, vega), false},
          {"vega_standard_error", offsetof(E, vega_standard_error), false},
          {"control_coefficient", offsetof(E, control_coefficient), false},
          {"paths", offsetof(E, paths), true}};
}

template <class T>
std::vector<Field> asset_greek_fields() {
  using G = MonteCarloAssetGreeks<T>;
  return {{"asset_delta", offsetof(G, delta), false},
          {"asset_delta_standard_error", offsetof(G, delta_standard_error), false},
          {"asset_vega", offsetof(G, vega), false},
          {"asset_vega_standard_error", offsetof(G, vega_standard_error), false}};
}

// Each field of `records` (rows x columns records of Record, C order, in `buffer`'s
// memory) as an array of shape (rows) or (rows, columns) viewing it in place, in the
// library of `like` (NumPy for host memory), added to `results`.
template <class T, class Record>
void add_field_views(nb::dict& results, const std::vector<Field>& fields, const Array& buffer, nb::handle like,
                     std::int64_t rows, std::int64_t columns, bool matrix) {
  static const nb::handle wrap = nb::object(nb::module_::import_("cunum._frameworks").attr("wrap")).release();
  const std::size_t shape[2] = {static_cast<std::size_t>(rows), static_cast<std::size_t>(columns)};
  for (const Field& field : fields) {
    const std::size_t element = field.count ? sizeof(std::int64_t) : sizeof(T);
    const std::int64_t strides[2] = {static_cast<std::int64_t>(columns * sizeof(Record) / element),
                                     static_cast<std::int64_t>(sizeof(Record) / element)};
    const nb::dlpack::dtype dtype = field.count ? nb::dtype<std::int64_t>() : nb::dtype<T>();
    nb::ndarray<> view(static_cast<unsigned char*>(buffer.data()) + field.offset, matrix ? 2 : 1, shape,
                       buffer.source, matrix ? strides : strides + 1, dtype, buffer.device_type,
                       buffer.device_id);
    results[field.name] = wrap(like, nb::ndarray<nb::array_api>(view).cast());
  }
}

template <class T>
nb::dict price_with(const MonteCarloPricer<T>& pricer, const MonteCarloBatch<T>& batch, nb::handle out,
                    nb::handle asset_greeks, nb::handle like, nb::handle stream) {
  const char* routine = "cunum::MonteCarloPricer::price";
  const Target target = target_of(pricer.placement());
  const nb::handle reference = out.is_none() ? like : out;
  const StreamHandle on = resolve_stream(stream, reference, target, routine);
  const std::int64_t n = batch.size();
  nb::object results_object;
  const Array results = output_as<unsigned char>(out, "results", like, {n * std::int64_t{sizeof(MonteCarloEstimate<T>)}},
                                                 target, on, routine, results_object);
  const bool per_asset = !asset_greeks.is_none() && !(nb::isinstance<nb::bool_>(asset_greeks) && !nb::cast<bool>(asset_greeks));
  const std::int64_t assets = pricer.settings().assets;
  nb::object greeks_object;
  Array greeks;
  if (per_asset) {
    const nb::handle given = nb::isinstance<nb::bool_>(asset_greeks) ? nb::handle(nb::none()) : asset_greeks;
    greeks = output_as<unsigned char>(given, "asset_greeks", like,
                                      {n * assets * std::int64_t{sizeof(MonteCarloAssetGreeks<T>)}}, target, on,
                                      routine, greeks_object);
  }
  {
    nb::gil_scoped_release unlocked;
    auto* estimates = reinterpret_cast<MonteCarloEstimate<T>*>(results.data());
    if (per_asset) {
      pricer.price(batch, estimates, reinterpret_cast<MonteCarloAssetGreeks<T>*>(greeks.data()), on);
    } else {
      pricer.price(batch, estimates, on);
    }
  }
  nb::dict views;
  add_field_views<T, MonteCarloEstimate<T>>(views, estimate_fields<T>(), results, reference, n, 1, false);
  if (per_asset) {
    add_field_views<T, MonteCarloAssetGreeks<T>>(views, asset_greek_fields<T>(), greeks, reference, n, assets, true);
  }
  return views;
}

template <class T>
std::vector<MonteCarloOption<T>> read_options(nb::handle table, const char* routine) {
  const Array columns = import_as<T>(table, "options", Target{Backend::cpu, 0}, nullptr, Access::read, routine);
  const std::vector<std::int64_t> shape = columns.shape();
  detail::require(shape.size() == 2 && shape[1] == 7, routine, "options",
                  "must be a table of 7 columns: spot, strike, expiry, rate, dividend, volatility, barrier");
  std::vector<MonteCarloOption<T>> options(static_cast<std::size_t>(shape[0]));
  const T* value = columns.as<T>();
  for (MonteCarloOption<T>& option : options) {
    option = MonteCarloOption<T>{value[0], value[1], value[2], value[3], value[4], value[5], value[6]};
    value += 7;
  }
  return options;
}

template <class T>
std::vector<MonteCarloBasketOption<T>> read_baskets(nb::handle assets, nb::handle terms, const char* routine) {
  const Target host{Backend::cpu, 0};
  const Array asset_table = import_as<T>(assets, "options.assets", host, nullptr, Access::read, routine);
  const Array term_table = import_as<T>(terms, "options", host, nullptr, Access::read, routine);
  const std::vector<std::int64_t> shape = asset_table.shape();
  detail::require(shape.size() == 3 && shape[2] == 4, routine, "options.assets",
                  "must be (options, assets, 4): spot, dividend, volatility, weight");
  require_shape(term_table, {shape[0], 3}, routine);
  std::vector<MonteCarloBasketOption<T>> options(static_cast<std::size_t>(shape[0]));
  const T* asset = asset_table.as<T>();
  const T* term = term_table.as<T>();
  for (MonteCarloBasketOption<T>& option : options) {
    for (std::int64_t j = 0; j < shape[1]; ++j, asset += 4) {
      option.assets.push_back(MonteCarloAsset<T>{asset[0], asset[1], asset[2], asset[3]});
    }
    option.strike = term[0];
    option.expiry = term[1];
    option.rate = term[2];
    term += 3;
  }
  return options;
}

constexpr const char* settings_doc = R"(What a MonteCarloPricer computes.

Args (all keyword, all attributes):
    payoff: 'european', 'digital', 'asian_arithmetic', 'asian_geometric',
        'up_and_out', 'down_and_out', 'lookback'; on several assets 'basket',
        'best_of', 'worst_of'. ('custom' payoffs are device functors compiled by
        nvcc: C++ only, cunum::price_with_payoff.)
    type: 'call' or 'put'.
    paths: paths per option, >= 2 (even with antithetic).
    time_steps: dates m of the path-dependent payoffs, >= 1.
    seed: the Philox (or MRG32k3a) key.
    source: 'philox4x32_10', 'mrg32k3a' or 'sobol_bridge' (quasi-random).
    antithetic: each normal drives a path and its mirror.
    control_variate: the optimal control variate estimated in the same pass.
    greeks: delta and vega in the same pass (pathwise or likelihood ratio).
    assets: assets of the multi-asset payoffs, 1..16 (1 for the others).
    correlation: their correlation matrix, assets x assets row-major (a flat or
        nested list); empty: independent.)";

constexpr const char* pricer_doc = R"(Prices batches of options by Monte Carlo under geometric Brownian motion.

One fused kernel on the GPU (normals drawn, paths simulated and payoffs summed in
registers) or OpenMP on the CPU, with the same random stream on both: a path's
numbers depend on (seed, option stream id, path, date) only, so prices agree to
rounding across backends, devices and batch splits, and are bit-identical run to run.

Args:
    settings: a MonteCarloSettings (None: the defaults: a European call, 2^20 paths).
    dtype: 'float32' or 'float64'.
    backend: 'automatic', 'cpu' or 'cuda'.
    devices: cuda: None (the current device), an ordinal, or a list of ordinals one
        price() call spreads its paths over (prices bit-identical to one device's).
    stream: cuda: the stream load() copies on.

Synchronizes: cuda with source 'sobol_bridge': the constructor waits for the upload
of its bridge and Sobol tables (on a stream of cunum's own). Otherwise nothing is
enqueued.

Raises:
    InvalidArgument: naming the setting ('settings.paths', 'settings.payoff', ...),
        'placement.backend' or 'placement.devices'.
    NoDevice: cuda without a device.
    NotSupported: naming 'settings.time_steps' (sobol_bridge beyond 20000 dates).)";

constexpr const char* price_doc = R"(Prices a loaded batch: one estimate per option.

Args:
    batch: a MonteCarloBatch from load() (or the options themselves: see
        cunum.monte_carlo.MonteCarloPricer.price).
    out: None, or a writable C-contiguous uint8 array of batch.size * estimate_bytes
        bytes the estimates are written into (the arrays returned view it, as arrays
        of out's library).
    asset_greeks: multi-asset payoffs with settings.greeks: True (or a writable uint8
        array of size * assets * asset_greek_bytes bytes) to also get each asset's
        delta and vega.
    like: None, or an array whose library the new results follow (CuPy, PyTorch)
        where out is None; both None: NumPy for the cpu backend, DLPack arrays of cunum's device memory for
        cuda (cupy.from_dlpack and torch.from_dlpack take them without a copy).
    stream: cuda: the stream to enqueue on; None: the current stream of out's (or
        like's) library, else the legacy default stream. cpu: ignored.

Returns:
    dict of arrays of length batch.size, viewing the results in place: 'price',
    'standard_error', 'confidence_low', 'confidence_high' (95%), 'delta',
    'delta_standard_error', 'vega', 'vega_standard_error' (NaN without
    settings.greeks), 'control_coefficient' (NaN without a control variate) and
    'paths' (int64); with asset_greeks also 'asset_delta', 'asset_vega' and their
    standard errors, shape (size, assets).

Synchronizes: never (cuda: enqueued on the stream; read the arrays after it). cpu:
returns when done.

Raises:
    InvalidArgument: naming 'batch' (made for another backend or device), 'results'
        or 'asset_greeks'.
    OutOfMemory: the chunk sums exceed the machine's or device's memory.
    NotSupported: a multi-device pricer on a stream being captured into a CUDA graph.)";

}  // namespace

void bind_monte_carlo(nb::module_& m) {
  nb::class_<MonteCarloSettings>(m, "MonteCarloSettings", settings_doc)
      .def(
          "__init__",
          [](MonteCarloSettings* self, const std::string& payoff, const std::string& type, std::int64_t paths,
             int time_steps, std::uint64_t seed, const std::string& source, bool antithetic, bool control_variate,
             bool greeks, int assets, nb::handle correlation) {
            const char* routine = "cunum::MonteCarloSettings";
            MonteCarloSettings settings;
            settings.payoff = parse_enum(payoff, MonteCarloPayoffValues::all, routine, "settings.payoff", "MonteCarloPayoff");
            settings.type = parse_enum(type, OptionTypeValues::all, routine, "settings.type", "OptionType");
            settings.paths = paths;
            settings.time_steps = time_steps;
            settings.seed = seed;
            settings.source = parse_enum(source, MonteCarloSourceValues::all, routine, "settings.source", "MonteCarloSource");
            settings.antithetic = antithetic;
            settings.control_variate = control_variate;
            settings.greeks = greeks;
            settings.assets = assets;
            for (nb::handle row : correlation) {
              if (is_scalar(row)) settings.correlation.push_back(nb::cast<double>(row));
              else for (nb::handle value : row) settings.correlation.push_back(nb::cast<double>(value));
            }
            new (self) MonteCarloSettings(std::move(settings));
          },
          nb::kw_only(), nb::arg("payoff") = "european", nb::arg("type") = "call",
          nb::arg("paths") = std::int64_t{1} << 20, nb::arg("time_steps") = 1, nb::arg("seed") = 0,
          nb::arg("source") = "philox4x32_10", nb::arg("antithetic") = false, nb::arg("control_variate") = false,
          nb::arg("greeks") = false, nb::arg("assets") = 1, nb::arg("correlation") = nb::tuple())
      .def_prop_rw(
          "payoff", [](const MonteCarloSettings& s) { return std::string(to_string(s.payoff)); },
          [](MonteCarloSettings& s, const std::string& name) {
            s.payoff = parse_enum(name, MonteCarloPayoffValues::all, "cunum::MonteCarloSettings", "settings.payoff",
                                  "MonteCarloPayoff");
          })
      .def_prop_rw(
          "type", [](const MonteCarloSettings& s) { return std::string(to_string(s.type)); },
          [](MonteCarloSettings& s, const std::string& name) {
            s.type = parse_enum(name, OptionTypeValues::all, "cunum::MonteCarloSettings", "settings.type", "OptionType");
          })
      .def_prop_rw(
          "source", [](const MonteCarloSettings& s) { return std::string(to_string(s.source)); },
          [](MonteCarloSettings& s, const std::string& name) {
            s.source = parse_enum(name, MonteCarloSourceValues::all, "cunum::MonteCarloSettings", "settings.source",
                                  "MonteCarloSource");
          })
      .def_rw("paths", &MonteCarloSettings::paths)
      .def_rw("time_steps", &MonteCarloSettings::time_steps)
      .def_rw("seed", &MonteCarloSettings::seed)
      .def_rw("antithetic", &MonteCarloSettings::antithetic)
      .def_rw("control_variate", &MonteCarloSettings::control_variate)
      .def_rw("greeks", &MonteCarloSettings::greeks)
      .def_rw("assets", &MonteCarloSettings::assets)
      .def_rw("correlation", &MonteCarloSettings::correlation)
      .def("__repr__", [](const MonteCarloSettings& s) {
        return std::string("MonteCarloSettings(payoff='") + to_string(s.payoff) + "', type='" + to_string(s.type) +
               "', paths=" + std::to_string(s.paths) + ", time_steps=" + std::to_string(s.time_steps) +
               ", source='" + to_string(s.source) + "')";
      });

  nb::class_<PyMonteCarloBatch>(m, "MonteCarloBatch",
                      "A validated batch of options, resident where its pricer computes (made by "
                      "MonteCarloPricer.load(); cheap to keep and reuse).")
      .def_prop_ro(
          "size", [](const PyMonteCarloBatch& b) { return std::visit([](const auto& x) { return x.size(); }, b.batch); },
          "the number of options")
      .def_prop_ro(
          "first_stream",
          [](const PyMonteCarloBatch& b) { return std::visit([](const auto& x) { return x.first_stream(); }, b.batch); },
          "the stream id of option 0 (option i draws from first_stream + i)");

  nb::class_<PyMonteCarloPricer>(m, "MonteCarloPricer", pricer_doc)
      .def(
          "__init__",
          [](PyMonteCarloPricer* self, const MonteCarloSettings* settings, nb::handle dtype, const std::string& backend,
             nb::handle devices, nb::handle stream) {
            const char* routine = "cunum::MonteCarloPricer";
            const Placement placement = make_placement(backend, devices, stream, routine);
            const MonteCarloSettings chosen = settings != nullptr ? *settings : MonteCarloSettings{};
            with_real(parse_real(dtype, routine), [&](auto real) {
              new (self) PyMonteCarloPricer{MonteCarloPricer<decltype(real)>(chosen, placement)};
            });
          },
          nb::arg("settings") = nb::none(), nb::arg("dtype") = "float64", nb::kw_only(),
          nb::arg("backend") = "automatic", nb::arg("devices") = nb::none(), nb::arg("stream") = nb::none())
      .def_prop_ro(
          "settings", [](const PyMonteCarloPricer& p) { return std::visit([](const auto& x) { return x.settings(); }, p.plan); },
          "a copy of the settings")
      .def_prop_ro(
          "dtype", [](const PyMonteCarloPricer& p) { return std::string(p.plan.index() == 0 ? "float32" : "float64"); },
          "'float32' or 'float64'")
      .def_prop_ro(
          "backend",
          [](const PyMonteCarloPricer& p) {
            return std::visit([](const auto& x) { return std::string(to_string(x.backend())); }, p.plan);
          },
          "the resolved backend: 'cpu' or 'cuda'")
      .def_prop_ro(
          "devices", [](const PyMonteCarloPricer& p) { return std::visit([](const auto& x) { return x.placement().devices; }, p.plan); },
          "cuda: the pricer's devices, the home device first; cpu: empty")
      .def_prop_ro(
          "chunk_paths", [](const PyMonteCarloPricer& p) { return std::visit([](const auto& x) { return x.chunk_paths(); }, p.plan); },
          "the paths one chunk sums before chunks are combined (fixed by the settings)")
      .def_prop_ro(
          "estimate_bytes",
          [](const PyMonteCarloPricer& p) {
            return std::visit([](const auto& x) { return sizeof(MonteCarloEstimate<plan_value_t<decltype(x)>>); }, p.plan);
          },
          "bytes of one option's estimate (the C++ MonteCarloEstimate)")
      .def_prop_ro(
          "asset_greek_bytes",
          [](const PyMonteCarloPricer& p) {
            return std::visit([](const auto& x) { return sizeof(MonteCarloAssetGreeks<plan_value_t<decltype(x)>>); },
                              p.plan);
          },
          "bytes of one asset's Greeks (the C++ MonteCarloAssetGreeks)")
      .def(
          "_load_table",
          [](const PyMonteCarloPricer& p, nb::handle table, std::uint64_t first_stream) {
            return std::visit(
                [&](const auto& pricer) {
                  using T = plan_value_t<decltype(pricer)>;
                  const auto options = read_options<T>(table, "cunum::MonteCarloPricer::load");
                  nb::gil_scoped_release unlocked;
                  return PyMonteCarloBatch{pricer.load(options, first_stream)};
                },
                p.plan);
          },
          nb::arg("table"), nb::arg("first_stream") = 0,
          "load() of a host table of 7 columns (spot, strike, expiry, rate, dividend, volatility, barrier).")
      .def(
          "_load_baskets",
          [](const PyMonteCarloPricer& p, nb::handle assets, nb::handle terms, std::uint64_t first_stream) {
            return std::visit(
                [&](const auto& pricer) {
                  using T = plan_value_t<decltype(pricer)>;
                  const auto options = read_baskets<T>(assets, terms, "cunum::MonteCarloPricer::load");
                  nb::gil_scoped_release unlocked;
                  return PyMonteCarloBatch{pricer.load(options, first_stream)};
                },
                p.plan);
          },
          nb::arg("assets"), nb::arg("terms"), nb::arg("first_stream") = 0,
          "load() of multi-asset options: assets (options, assets, 4) and terms (options, 3: strike, expiry, rate).")
      .def(
          "_price",
          [](const PyMonteCarloPricer& p, const PyMonteCarloBatch& batch, nb::handle out, nb::handle asset_greeks, nb::handle like,
             nb::handle stream) {
            return std::visit(
                [&](const auto& pricer) {
                  using T = plan_value_t<decltype(pricer)>;
                  const auto* typed = std::get_if<MonteCarloBatch<T>>(&batch.batch);
                  detail::require(typed != nullptr, "cunum::MonteCarloPricer::price", "batch",
                                  "was loaded by a pricer of the other dtype");
                  return price_with(pricer, *typed, out, asset_greeks, like, stream);
                },
                p.plan);
          },
          nb::arg("batch"), nb::arg("out") = nb::none(), nb::arg("asset_greeks") = nb::none(),
          nb::arg("like") = nb::none(), nb::arg("stream") = nb::none(), price_doc);

  m.def(
      "geometric_asian_price",
      [](double spot, double strike, double expiry, double volatility, double rate, double dividend,
         const std::string& type, int time_steps) {
        const char* routine = "cunum::geometric_asian_price";
        MonteCarloOption<double> option{spot, strike, expiry, rate, dividend, volatility, 0.0};
        return geometric_asian_price(option, parse_enum(type, OptionTypeValues::all, routine, "type", "OptionType"),
                                     time_steps);
      },
      nb::arg("spot"), nb::arg("strike"), nb::arg("expiry"), nb::arg("volatility"), nb::arg("rate") = 0.0,
      nb::arg("dividend") = 0.0, nb::arg("type") = "call", nb::arg("time_steps") = 1,
      "The closed-form price of the geometric Asian option on the dates k T / m, k = 1..m (the control variate of "
      "the arithmetic Asian).\n\nRaises:\n    InvalidArgument: a non-finite or non-positive input, or m < 1.");
}

}  // namespace cunum::python
