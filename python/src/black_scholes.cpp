// cunum.black_scholes: BlackScholesPricer, prices, Greeks and implied volatility
// (include/cunum/black_scholes.hpp).

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <variant>

#include "cunum/black_scholes.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bench.hpp"
#include "python/src/modules.hpp"

namespace cunum::python {
namespace {

using AnyBlackScholesPricer = std::variant<BlackScholesPricer<float>, BlackScholesPricer<double>>;

struct PyBlackScholesPricer {
  AnyBlackScholesPricer plan;
};

BlackScholesOutputs parse_outputs(nb::handle outputs, const char* routine) {
  BlackScholesOutputs set;
  if (nb::isinstance<nb::str>(outputs)) {
    if (nb::cast<std::string>(outputs) == "all") return BlackScholesOutputs::all();
    set.bits |= BlackScholesOutputs::bit(parse_enum(nb::cast<std::string>(outputs), BlackScholesOutputValues::all,
                                                    routine, "outputs", "BlackScholesOutput"));
    return set;
  }
  for (nb::handle name : outputs) {
    set.bits |= BlackScholesOutputs::bit(
        parse_enum(nb::cast<std::string>(name), BlackScholesOutputValues::all, routine, "outputs", "BlackScholesOutput"));
  }
  return set;
}

// A parameter given as a scalar or as an array of n values: its scalar, or its array
// (imported into `array`, which the caller keeps alive).
template <class T>
const T* scalar_or_array(nb::handle value, const char* name, T& scalar, Array& array, const Extents& shape,
                         const Target& target, StreamHandle stream, const char* routine) {
  if (is_scalar(value)) {
    scalar = static_cast<T>(nb::cast<double>(value));
    return nullptr;
  }
  array = import_as<T>(value, name, target, stream, Access::read, routine);
  require_shape(array, shape, routine);
  return array.template as<T>();
}

// One price() call as Python asks for it, its arguments imported and checked: what the
// C++ call takes, the arrays it reads and writes (kept alive), and the dict of results
// handed back to the caller.
template <class T>
struct PriceCall {
  Array spots, strikes, expiries;
  Array rates, dividends, volatilities;  // per-option arrays, where given
  std::vector<Array> outputs;  // those the pricer computes, in list order
  BlackScholesMarket<T> market;
  BlackScholesResults<T> arrays;
  StreamHandle stream = nullptr;
  nb::dict results;

  void run(const BlackScholesPricer<T>& pricer) const {
    pricer.price(spots.size(), spots.as<T>(), strikes.as<T>(), expiries.as<T>(), market, arrays, stream);
  }
};

template <class T>
PriceCall<T> price_call(const BlackScholesPricer<T>& pricer, nb::handle spot, nb::handle strike, nb::handle expiry,
                        nb::handle rate, nb::handle dividend, nb::handle volatility, nb::handle out,
                        nb::handle stream) {
  const char* routine = "cunum::BlackScholesPricer::price";
  const Target target = target_of(pricer.placement());
  PriceCall<T> call;
  const StreamHandle on = call.stream = resolve_stream(stream, spot, target, routine);
  call.spots = import_as<T>(spot, "spot", target, on, Access::read, routine);
  const Extents& shape = call.spots.extents;
  call.strikes = import_as<T>(strike, "strike", target, on, Access::read, routine);
  require_shape(call.strikes, shape, routine);
  call.expiries = import_as<T>(expiry, "expiry", target, on, Access::read, routine);
  require_shape(call.expiries, shape, routine);
  BlackScholesMarket<T>& market = call.market;
  market.rates.rates = scalar_or_array(rate, "rate", market.rates.rate, call.rates, shape, target, on, routine);
  market.rates.dividends =
      scalar_or_array(dividend, "dividend", market.rates.dividend, call.dividends, shape, target, on, routine);
  market.volatilities =
      scalar_or_array(volatility, "volatility", market.volatility, call.volatilities, shape, target, on, routine);

  const auto& all = BlackScholesOutputValues::all;
  const auto& names = python_names(all);
  nb::dict given = out.is_none() ? nb::dict() : nb::cast<nb::dict>(out);
  for (auto [key, array] : given) {
    std::size_t index = 0;
    while (index < names.size() && !key.equal(names[index])) ++index;
    const BlackScholesOutput output = index < names.size() ? all[index]
                                          : parse_enum(nb::cast<std::string>(key), all, routine, "out",
                                                       "BlackScholesOutput");
    detail::require(pricer.outputs().contains(output), routine, "out", [&] {
      return std::string("names '") + to_string(output) +
             "', which this pricer does not compute (its outputs are fixed when it is made)";
    });
  }
  call.outputs.reserve(std::size(all));
  for (std::size_t index = 0; index < names.size(); ++index) {
    const BlackScholesOutput output = all[index];
    if (!pricer.outputs().contains(output)) continue;
    nb::handle given_array = PyDict_GetItem(given.ptr(), names[index].ptr());  // borrowed; null when absent
    nb::object result;
    call.outputs.push_back(output_as<T>(given_array.is_valid() ? given_array : nb::none(), to_string(output), spot,
                                        shape, target, on, routine, result));
    call.arrays[output] = call.outputs.back().template as<T>();
    call.results[names[index]] = result;
  }
  return call;
}

template <class T>
nb::tuple implied_with(const BlackScholesPricer<T>& pricer, nb::handle prices, nb::handle spot, nb::handle strike,
                       nb::handle expiry, nb::handle rate, nb::handle dividend, const std::string& type_name,
                       nb::handle out, nb::handle rejected, nb::handle stream) {
  const char* routine = "cunum::BlackScholesPricer::implied_volatility";
  const Target target = target_of(pricer.placement());
  const StreamHandle on = resolve_stream(stream, prices, target, routine);
  const OptionType type = parse_enum(type_name, OptionTypeValues::all, routine, "type", "OptionType");
  const Array price_array = import_as<T>(prices, "prices", target, on, Access::read, routine);
  const Extents& shape = price_array.extents;
  std::vector<Array> inputs;
  inputs.reserve(3);
  for (auto [object, name] : {std::pair{spot, "spot"}, std::pair{strike, "strike"}, std::pair{expiry, "expiry"}}) {
    inputs.push_back(import_as<T>(object, name, target, on, Access::read, routine));
    require_shape(inputs.back(), shape, routine);
  }
  Array rate_array, dividend_array;
  BlackScholesRates<T> rates;
  rates.rates = scalar_or_array(rate, "rate", rates.rate, rate_array, shape, target, on, routine);
  rates.dividends = scalar_or_array(dividend, "dividend", rates.dividend, dividend_array, shape, target, on, routine);
  nb::object volatility_result, rejected_result;
  const Array volatility = output_as<T>(out, "volatility", prices, shape, target, on, routine, volatility_result);
  const Array rejected_count =
      output_as<std::int64_t>(rejected, "rejected", prices, {}, target, on, routine, rejected_result);
  {
    nb::gil_scoped_release unlocked;
    pricer.implied_volatility(price_array.size(), price_array.as<T>(), inputs[0].as<T>(), inputs[1].as<T>(),
                              inputs[2].as<T>(), rates, type, volatility.as<T>(), rejected_count.as<std::int64_t>(), on);
  }
  return nb::make_tuple(volatility_result, rejected_result);
}

constexpr const char* pricer_doc = R"(A Black-Scholes-Merton pricer for one dtype and a fixed set of outputs.

It sets nothing up on the device (making one is cheap) and holds the device it was
made on: calls with another device current are refused. Calls may come from several
threads.

Args:
    outputs: the names price() writes, any of 'call', 'put', 'delta_call',
        'delta_put', 'gamma', 'vega', 'theta_call', 'theta_put', 'rho_call',
        'rho_put', 'forward', 'discount' (theta per year, vega and rho per unit of
        sigma and r), or 'all'.
    dtype: 'float32' or 'float64'.
    backend: 'automatic' (cuda when a GPU is present), 'cpu' or 'cuda'.
    device: cuda: the device ordinal (None: the current device).

Raises:
    InvalidArgument: naming 'outputs', 'dtype', 'placement.backend' or 'placement.devices'.
    NoDevice: 'cuda' without a device.)";

constexpr const char* price_doc = R"(Prices options and writes every requested output in one pass.

    F = S e^{(r-q)T},  d1 = (ln(S/K) + (r - q)T) / (sigma sqrt T) + sigma sqrt(T) / 2,
    d2 = d1 - sigma sqrt T,
    call = S e^{-qT} N(d1) - K e^{-rT} N(d2),   put = K e^{-rT} N(-d2) - S e^{-qT} N(-d1)

(the Greeks as in include/cunum/black_scholes.hpp; out-of-the-money prices are formed
without cancellation). An option with a NaN or negative input gets NaN outputs.

Args:
    spot, strike, expiry: S, K and T (years), arrays of the pricer's dtype and one
        shape (any), C-contiguous: NumPy for the cpu backend; CuPy, PyTorch, JAX,
        Numba or any __dlpack__ / __cuda_array_interface__ array on the pricer's
        device for cuda. Not copied.
    rate, dividend, volatility: r, q and sigma: a float for the whole batch, or an
        array of the same shape.
    out: None, or a dict from output names to writable arrays of that shape and
        dtype (some or all of the outputs); the others are new arrays of spot's
        library. An output may be an input array itself (in place); any other
        overlap is refused.
    stream: cuda: the stream to enqueue on; None: the current stream of spot's
        library (CuPy, PyTorch). cpu: ignored.

Returns:
    dict from each requested output's name to its array.

Synchronizes: never. cuda: enqueued on the stream, returns at once; the arrays must
stay alive until the stream reaches the call (the returned ones are). cpu: returns
when done.

Raises:
    InvalidArgument: naming the argument: dtype, shape, contiguity, memory the
        backend cannot use, an output overlapping an array it is not, 'out' naming an
        output the pricer does not compute; 'this' with another device current.
    CudaFailure: when the launch fails.

Determinism: each option is priced independently by the same scalar code:
bit-identical run to run on a backend and device; CPU and CUDA agree to a few ulps.)";

constexpr const char* implied_doc = R"(Implied volatility: the sigma >= 0 at which each option's model price equals its price.

Reduced to a normalised out-of-the-money call in double, then inverted after
Jaeckel's "Let's Be Rational": a rational initial guess and one Householder step in
float32, then for float64 one more step in float64 (where float32 cannot hold the
normalised price, the guess and two steps in float64), the same for every option.
S, K, T not positive or not finite: NaN, not counted. A price NaN, below intrinsic
value or not below the upper bound: NaN, counted in `rejected`. A price equal to the
intrinsic value: 0.

Args:
    prices, spot, strike, expiry: arrays of one shape and the pricer's dtype.
    rate, dividend: a float, or an array of that shape.
    type: 'call' or 'put', for the whole batch.
    out: None, or a writable array of that shape for the volatilities (it may be
        `prices` or another input: in place).
    rejected: None, or a writable 0-d int64 array for the rejected count.
    stream: as price().

Returns:
    (volatility, rejected): the volatilities, and a 0-d int64 array of prices's
    library holding the count of rejected prices (read it after the stream).

Synchronizes: never (cuda); cpu returns when done.

Raises:
    InvalidArgument: naming the argument, as price() ('type', 'volatility', 'rejected').)";

}  // namespace

void bind_black_scholes(nb::module_& m, nb::module_& bench) {
  nb::class_<PyBlackScholesPricer>(m, "BlackScholesPricer", pricer_doc)
      .def(
          "__init__",
          [](PyBlackScholesPricer* self, nb::handle outputs, nb::handle dtype, const std::string& backend, nb::handle device) {
            const char* routine = "cunum::BlackScholesPricer";
            const BlackScholesOutputs set = parse_outputs(outputs, routine);
            const Placement placement = make_placement(backend, device, nb::none(), routine);
            with_real(parse_real(dtype, routine), [&](auto real) {
              new (self) PyBlackScholesPricer{BlackScholesPricer<decltype(real)>(set, placement)};
            });
          },
          nb::arg("outputs") = nb::make_tuple("call", "put"), nb::arg("dtype") = "float64", nb::kw_only(),
          nb::arg("backend") = "automatic", nb::arg("device") = nb::none())
      .def_prop_ro(
          "outputs",
          [](const PyBlackScholesPricer& self) {
            std::vector<std::string> names;
            std::visit(
                [&](const auto& pricer) {
                  for (BlackScholesOutput output : BlackScholesOutputValues::all) {
                    if (pricer.outputs().contains(output)) names.emplace_back(to_string(output));
                  }
                },
                self.plan);
            return names;
          },
          "the names of the outputs price() writes, in list order")
      .def_prop_ro(
          "dtype", [](const PyBlackScholesPricer& self) { return std::string(self.plan.index() == 0 ? "float32" : "float64"); },
          "'float32' or 'float64'")
      .def_prop_ro(
          "backend",
          [](const PyBlackScholesPricer& self) {
            return std::visit([](const auto& pricer) { return std::string(to_string(pricer.backend())); }, self.plan);
          },
          "the resolved backend: 'cpu' or 'cuda'")
      .def(
          "price",
          [](const PyBlackScholesPricer& self, nb::handle spot, nb::handle strike, nb::handle expiry, nb::handle rate,
             nb::handle dividend, nb::handle volatility, nb::handle out, nb::handle stream) {
            return std::visit(
                [&](const auto& pricer) {
                  const auto call = price_call(pricer, spot, strike, expiry, rate, dividend, volatility, out, stream);
                  {
                    nb::gil_scoped_release unlocked;
                    call.run(pricer);
                  }
                  return call.results;
                },
                self.plan);
          },
          nb::arg("spot"), nb::arg("strike"), nb::arg("expiry"), nb::kw_only(), nb::arg("rate") = 0.0,
          nb::arg("dividend") = 0.0, nb::arg("volatility"), nb::arg("out") = nb::none(),
          nb::arg("stream") = nb::none(), price_doc)
      .def(
          "implied_volatility",
          [](const PyBlackScholesPricer& self, nb::handle prices, nb::handle spot, nb::handle strike, nb::handle expiry,
             nb::handle rate, nb::handle dividend, const std::string& type, nb::handle out, nb::handle rejected,
             nb::handle stream) {
            return std::visit(
                [&](const auto& pricer) {
                  return implied_with(pricer, prices, spot, strike, expiry, rate, dividend, type, out, rejected, stream);
                },
                self.plan);
          },
          nb::arg("prices"), nb::arg("spot"), nb::arg("strike"), nb::arg("expiry"), nb::kw_only(),
          nb::arg("rate") = 0.0, nb::arg("dividend") = 0.0, nb::arg("type") = "call", nb::arg("out") = nb::none(),
          nb::arg("rejected") = nb::none(), nb::arg("stream") = nb::none(), implied_doc);

  bench.def(
      "black_scholes_price",
      [](const PyBlackScholesPricer& self, nb::handle spot, nb::handle strike, nb::handle expiry, nb::handle rate,
         nb::handle dividend, nb::handle volatility, nb::handle out, nb::handle stream, int calls,
         const std::string& part, const std::string& clock) {
        return std::visit(
            [&](const auto& pricer) {
              return seconds_of_calls(
                  part, calls, clock,
                  [&] { return price_call(pricer, spot, strike, expiry, rate, dividend, volatility, out, stream); },
                  [&](const auto& call) { call.run(pricer); });
            },
            self.plan);
      },
      nb::arg("pricer"), nb::arg("spot"), nb::arg("strike"), nb::arg("expiry"), nb::arg("rate"), nb::arg("dividend"),
      nb::arg("volatility"), nb::arg("out").none(), nb::arg("stream").none(), nb::arg("calls"), nb::arg("part"),
      nb::arg("clock") = "wall",
      "Seconds, on `clock` ('wall' or 'thread'), of `calls` back-to-back pricer.price(...) from C++ with these "
      "arguments: 'routine' (the C++ BlackScholesPricer::price alone) or 'binding' (the binding's work before it).");
}

}  // namespace cunum::python
