// cunum.reduce: Reducer and the one-call reductions (include/cunum/reduce.hpp).

#include <nanobind/stl/string.h>

#include <variant>

#include "cunum/reduce.hpp"
#include "python/src/arrays.hpp"
#include "python/src/bench.hpp"
#include "python/src/modules.hpp"

namespace cunum::python {
namespace {

using AnyReducer = std::variant<Reducer<float>, Reducer<double>, Reducer<std::int32_t>, Reducer<std::int64_t>>;

AnyReducer make_reducer(const std::string& dtype, const Placement& placement, const char* routine) {
  if (dtype == "float32") return Reducer<float>(placement);
  if (dtype == "float64") return Reducer<double>(placement);
  if (dtype == "int32") return Reducer<std::int32_t>(placement);
  if (dtype == "int64") return Reducer<std::int64_t>(placement);
  detail::throw_invalid_argument(routine, "dtype", "is '" + dtype + "'; Reducer takes float32, float64, int32 or int64");
}

// A Reducer of any of the reduce types, as Python holds it.
struct PyReducer {
  AnyReducer plan;
  std::string dtype;
};

// One reduction as Python asks for it, its arguments imported and checked: what the C++
// call takes, and the object handed back to the caller.
template <class T>
struct ReduceCall {
  ReduceOp op;
  Array input;
  Array output;
  StreamHandle stream;
  nb::object result;

  void run(Reducer<T>& plan) const {
    plan.reduce(op, input.as<T>(), input.size(), output.as<reduce_result_t<T>>(), stream);
  }
};

// The call reducing `input` into `out` (None: a new 0-d array of the input's library).
template <class T>
ReduceCall<T> reduce_call(const std::string& op_name, Array input, nb::handle out, const Target& target,
                          StreamHandle stream, const char* routine) {
  const ReduceOp op = parse_enum(op_name, ReduceOpValues::all, routine, "op", "ReduceOp");
  require_dtype(input, nb::dtype<T>(), routine);
  nb::object result;
  Array output = output_as<reduce_result_t<T>>(out, "result", input.source, {}, target, stream, routine, result);
  return {op, std::move(input), std::move(output), stream, std::move(result)};
}

// Reducer.reduce's call: the stream resolved and `data` imported for the plan.
template <class T>
ReduceCall<T> plan_reduce_call(const Reducer<T>& plan, const std::string& op, nb::handle data, nb::handle out,
                               nb::handle stream) {
  const char* routine = "cunum::Reducer::reduce";
  const Target target = target_of(plan.placement());
  const StreamHandle on = resolve_stream(stream, data, target, routine);
  Array input = import_as<T>(data, "data", target, on, Access::read, routine);
  return reduce_call<T>(op, std::move(input), out, target, on, routine);
}

template <class T>
nb::object run_released(Reducer<T>& plan, const ReduceCall<T>& call) {
  {
    nb::gil_scoped_release unlocked;
    call.run(plan);
  }
  return call.result;
}

constexpr const char* reduce_doc = R"(Reduces every element of `data` into one value.

Args:
    op: 'sum', 'sum_of_squares', 'min' or 'max' (min and max as fmin/fmax: NaN
        elements are ignored unless every element is NaN; they need >= 1 element).
    data: a C-contiguous array of the Reducer's dtype, any shape (all its elements
        are reduced): a NumPy array for the cpu backend; a CuPy, PyTorch, JAX or
        Numba array (or any object with __dlpack__ or __cuda_array_interface__)
        on the plan's device for cuda. Not copied.
    out: None, or a writable 0-d array of the result dtype (the input's; int64 for
        int32) the result is written into.
    stream: cuda: the stream to enqueue on (an int handle, a CuPy or PyTorch
        stream, an object with __cuda_stream__); None: the current stream of the
        library owning `data`. cpu: ignored.

Returns:
    `out`, or a new 0-d array of data's library (NumPy for the cpu backend).

Synchronizes: never. cuda: enqueued on the stream, returns at once; read the
result after the stream (float(result) on CuPy or PyTorch waits for it). cpu:
returns when done.

Raises:
    InvalidArgument: naming 'op', 'data' or 'result' (dtype, shape, contiguity,
        memory the backend cannot use), or 'this' with another device current.
    CudaFailure: when the launch fails.

Determinism: bit-identical results run to run for a given device (or CPU thread
count); float sums are accumulated in double (docs/reduce.md has the bound).)";

}  // namespace

void bind_reduce(nb::module_& m, nb::module_& bench) {
  nb::class_<PyReducer>(m, "Reducer", R"(A reduction plan: sum, sum of squares, min and max of one dtype.

For the cuda backend it holds the device workspace, so repeated reductions cost
one kernel launch each; it is bound to the device current when it is made. The
workspace is shared by all calls: calls on different streams must not overlap
(one Reducer per stream for concurrent work). Keep the Reducer alive until the
work it enqueued has completed.

Args:
    dtype: 'float32', 'float64', 'int32' or 'int64' (a NumPy or PyTorch dtype too).
    backend: 'automatic' (cuda when a GPU is present), 'cpu' or 'cuda'.
    device: cuda: the device ordinal (None: the current device).
    stream: cuda: the stream the workspace is set up (and freed) on; the
        constructor does not wait.

Raises:
    InvalidArgument: naming 'dtype', 'placement.backend' or 'placement.devices'.
    NoDevice: 'cuda' without a device.
    NotSupported: `stream` is being captured into a CUDA graph.)")
      .def(
          "__init__",
          [](PyReducer* self, nb::handle dtype, const std::string& backend, nb::handle device, nb::handle stream) {
            const char* routine = "cunum::Reducer";
            const std::string name = dtype_argument(dtype);
            const Placement placement = make_placement(backend, device, stream, routine);
            new (self) PyReducer{make_reducer(name, placement, routine), name};
          },
          nb::arg("dtype") = "float32", nb::kw_only(), nb::arg("backend") = "automatic",
          nb::arg("device") = nb::none(), nb::arg("stream") = nb::none())
      .def_prop_ro("dtype", [](const PyReducer& self) { return self.dtype; }, "the element dtype it reduces")
      .def_prop_ro(
          "backend", [](const PyReducer& self) { return std::visit([](auto& plan) { return std::string(to_string(plan.backend())); }, self.plan); },
          "the resolved backend: 'cpu' or 'cuda'")
      .def(
          "reduce",
          [](PyReducer& self, const std::string& op, nb::handle data, nb::handle out, nb::handle stream) {
            return std::visit(
                [&](auto& plan) { return run_released(plan, plan_reduce_call(plan, op, data, out, stream)); },
                self.plan);
          },
          nb::arg("op"), nb::arg("data"), nb::arg("out") = nb::none(), nb::kw_only(), nb::arg("stream") = nb::none(),
          reduce_doc);

  bench.def(
      "reduce",
      [](PyReducer& self, const std::string& op, nb::handle data, nb::handle out, nb::handle stream, int calls,
         const std::string& part, const std::string& clock) {
        return std::visit(
            [&](auto& plan) {
              return seconds_of_calls(
                  part, calls, clock, [&] { return plan_reduce_call(plan, op, data, out, stream); },
                  [&](const auto& call) { call.run(plan); });
            },
            self.plan);
      },
      nb::arg("reducer"), nb::arg("op"), nb::arg("data"), nb::arg("out").none(), nb::arg("stream").none(),
      nb::arg("calls"), nb::arg("part"), nb::arg("clock") = "wall",
      "Seconds, on `clock` ('wall' or 'thread'), of `calls` back-to-back reducer.reduce(op, data, out, "
      "stream=stream) from C++: 'routine' (the C++ Reducer::reduce alone) or 'binding' (the binding's work "
      "before it).");

  m.def(
      "reduce",
      [](const std::string& op, nb::handle data, nb::handle out, nb::handle backend, nb::handle stream) {
        const char* routine = "cunum::reduce";
        Placement placement = placement_for(data, backend, routine);
        const Target target = target_of(placement);
        placement.stream = resolve_stream(stream, data, target, routine);
        const Array input = import_array(data, "data", target, placement.stream, {}, Access::read, routine);
        AnyReducer plan = make_reducer(dtype_name(input.dtype), placement, routine);
        return std::visit(
            [&](auto& reducer) {
              using T = plan_value_t<decltype(reducer)>;
              return run_released(reducer, reduce_call<T>(op, input, out, target, placement.stream, routine));
            },
            plan);
      },
      nb::arg("op"), nb::arg("data"), nb::arg("out") = nb::none(), nb::kw_only(), nb::arg("backend") = nb::none(),
      nb::arg("stream") = nb::none(),
      R"(One reduction with a plan made for it (see Reducer.reduce for the arguments).

The plan follows `data`: its dtype, and its backend and device (a NumPy array runs
on the cpu backend, a CuPy or PyTorch array on its GPU) unless `backend` names one.
The plan's workspace is set up and freed on the call's stream, so the call stays
asynchronous; reuse a Reducer for many small reductions (it saves that setup).

Synchronizes: never (cuda); cpu returns when done.)");
}

}  // namespace cunum::python
