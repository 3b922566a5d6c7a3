// cunum._cunum: the extension module behind the cunum package. Each module of the C++
// API is bound in its own file (bind_<module>); the package's Python files re-export
// them under cunum.<module>.

#include <nanobind/stl/string.h>

#include "cunum/version.hpp"
#include "python/src/arrays.hpp"
#include "python/src/modules.hpp"

namespace cunum::python {
namespace {

// cunum::Error becomes the cunum.Error subclass of its code (cunum._errors), with the
// C++ message.
void translate_errors() {
  nb::register_exception_translator([](const std::exception_ptr& error, void*) {
    try {
      std::rethrow_exception(error);
    } catch (const Error& failure) {
      nb::object errors = nb::module_::import_("cunum._errors");
      nb::object type = errors.attr("error_class")(to_string(failure.code()));
      nb::object instance = type(failure.what());
      PyErr_SetObject(type.ptr(), instance.ptr());
    }
  });
}

void bind_core(nb::module_& m) {
  m.attr("__version__") = CUNUM_VERSION_STRING;

  nb::class_<DeviceProperties>(m, "DeviceProperties", "What cunum reads off a CUDA device.")
      .def_ro("ordinal", &DeviceProperties::ordinal, "the CUDA device ordinal")
      .def_ro("name", &DeviceProperties::name, "e.g. 'NVIDIA H100 80GB HBM3'")
      .def_ro("compute_capability_major", &DeviceProperties::compute_capability_major)
      .def_ro("compute_capability_minor", &DeviceProperties::compute_capability_minor)
      .def_ro("multiprocessor_count", &DeviceProperties::multiprocessor_count)
      .def_ro("max_threads_per_multiprocessor", &DeviceProperties::max_threads_per_multiprocessor)
      .def_ro("global_memory_bytes", &DeviceProperties::global_memory_bytes)
      .def_ro("l2_cache_bytes", &DeviceProperties::l2_cache_bytes)
      .def_ro("shared_memory_per_block_optin_bytes", &DeviceProperties::shared_memory_per_block_optin_bytes)
      .def_ro("pageable_memory_access", &DeviceProperties::pageable_memory_access,
              "the device reads pageable host memory (HMM/ATS), so the cuda backend accepts NumPy arrays")
      .def("__repr__", [](const DeviceProperties& p) {
        return "DeviceProperties(ordinal=" + std::to_string(p.ordinal) + ", name='" + p.name + "')";
      });

  m.def("device_count", &device_count,
        "Number of usable CUDA devices, read once per process; 0 (never an error) without a driver or device.");
  m.def("cuda_available", &cuda_available, "Whether a CUDA device can be used: device_count() > 0.");
  m.def(
      "current_device", [] { return current_device(); },
      "The CUDA device current on the calling thread (plans made for the cuda backend bind to it).\n\n"
      "Raises:\n    NoDevice: without a device.");
  m.def(
      "device_properties", [](int ordinal) { return device_properties(ordinal); }, nb::arg("ordinal") = -1,
      "Properties of a device (the current one for ordinal < 0), read once and cached.\n\n"
      "Raises:\n    NoDevice: without a device.\n    InvalidArgument: naming 'ordinal' for an ordinal >= device_count().");
  m.def(
      "resolve_backend", [](const std::string& backend) {
        detail::RoutineScope scope("cunum::resolve_backend");
        return std::string(to_string(resolve_backend(parse_enum(backend, BackendValues::all, "cunum::resolve_backend",
                                                                "backend", "Backend"))));
      },
      nb::arg("backend") = "automatic",
      "The backend a plan asked for `backend` runs on: 'automatic' is 'cuda' when a device is present, else "
      "'cpu'.\n\n"
      "Raises:\n    NoDevice: for 'cuda' without a device.\n    InvalidArgument: naming 'backend' for another name.");
  m.def(
      "_where",
      [](nb::handle array, nb::handle backend) {
        const Placement placement = placement_for(array, backend, "cunum");
        return nb::make_tuple(dtype_argument(array.attr("dtype")), to_string(placement.backend),
                              placement.devices.empty() ? nb::object(nb::none()) : nb::cast(placement.devices.front()));
      },
      nb::arg("array"), nb::arg("backend") = nb::none(),
      "(dtype, backend, device) of the plan a convenience makes for `array`: its dtype's name, and the backend "
      "and device where it lives (or `backend` when given).");
  m.def(
      "synchronize",
      [](nb::handle stream) {
        const StreamHandle handle = resolve_stream(stream, nb::none(), Target{Backend::cuda, 0}, "cunum::synchronize");
        nb::gil_scoped_release unlocked;
        synchronize(handle);
      },
      nb::arg("stream") = nb::none(),
      "Waits until the work enqueued on `stream` (an int handle, a CuPy or PyTorch stream, an object with "
      "__cuda_stream__; None: the legacy default stream) has completed. The one cunum call whose purpose is to "
      "synchronise.\n\n"
      "Raises:\n    CudaFailure: when that work failed.\n    NoDevice: without a device.");
}

// What the binding's import of an array sees, for the tests that compare its routes
// (an array read from its attributes against the same array's __dlpack__ capsule).
void bind_import_view(nb::module_& bench) {
  bench.def(
      "import_view",
      [](nb::handle array, const std::string& backend, nb::handle stream, bool write) {
        const char* routine = "cunum._cunum._bench.import_view";
        Target target;
        target.backend = parse_enum(backend, BackendValues::all, routine, "backend", "Backend");
        if (target.backend == Backend::cuda) target.device = current_device();
        const StreamHandle on = resolve_stream(stream, array, target, routine);
        const Array imported = import_array(array, "array", target, on, nb::dlpack::dtype{},
                                            write ? Access::write : Access::read, routine);
        // An imported array is C-contiguous: its strides follow from its extents.
        const std::vector<std::int64_t> shape = imported.shape();
        std::vector<std::int64_t> strides(shape.size());
        std::int64_t stride = 1;
        for (std::size_t axis = shape.size(); axis-- > 0;) {
          strides[axis] = stride;
          stride *= shape[axis];
        }
        nb::dict view;
        view["pointer"] = reinterpret_cast<std::uintptr_t>(imported.data());
        view["shape"] = nb::tuple(nb::cast(shape));
        view["strides"] = nb::tuple(nb::cast(strides));
        view["dtype"] = dtype_name(imported.dtype);
        view["device"] = nb::make_tuple(imported.device_type, imported.device_id);
        return view;
      },
      nb::arg("array"), nb::arg("backend"), nb::arg("stream") = nb::none(), nb::arg("write") = false,
      "The view the binding imports `array` as for a plan of `backend` (cuda: the current device) on `stream` "
      "(None: the array's library's current one), any dtype, read or written: a dict of its pointer, shape, "
      "strides (elements), dtype name and DLPack (device type, id). Raises as a call would.");
}

}  // namespace
}  // namespace cunum::python

NB_MODULE(_cunum, m) {
  using namespace cunum::python;
  m.doc() = "The compiled core of the cunum package; import cunum, not this module.";
  translate_errors();
  bind_core(m);
  nb::module_ bench = m.def_submodule(
      "_bench",
      "The C++ side of bench/python/bench_overhead.py (small calls timed as C++ makes them) and of the tests of "
      "the array imports. Not API.");
  bind_import_view(bench);
  bind_reduce(m, bench);
  bind_black_scholes(m, bench);
  bind_brownian_bridge(m);
  bind_random(m);
  bind_monte_carlo(m);
  bind_poisson_fft(m);
  bind_himeno(m);
  bind_access_model(m);
}
