#include "python/src/arrays.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <utility>

#include "src/core/check.hpp"

namespace cunum::python {

namespace {

// The array libraries whose conventions the binding follows (streams, allocation).
enum class Library { numpy, cupy, torch, jax, numba, other };

// The library an array's type comes from, by the top-level package of its module;
// cached per type, the last type asked about first (the GIL serialises access).
Library library_of(nb::handle object) {
  static std::unordered_map<PyTypeObject*, Library> cache;
  static PyTypeObject* last_type = nullptr;
  static Library last_library = Library::other;
  PyTypeObject* type = Py_TYPE(object.ptr());
  if (type == last_type) return last_library;
  if (auto found = cache.find(type); found != cache.end()) {
    last_type = type;
    return last_library = found->second;
  }
  std::string module;
  if (nb::object name = nb::getattr(nb::handle(reinterpret_cast<PyObject*>(type)), "__module__", nb::none());
      nb::isinstance<nb::str>(name)) {
    module = nb::cast<std::string>(name);
  }
  const std::string top = module.substr(0, module.find('.'));
  Library library = Library::other;
  if (top == "numpy") library = Library::numpy;
  else if (top == "cupy" || top == "cupy_backends") library = Library::cupy;
  else if (top == "torch") library = Library::torch;
  else if (top == "jax" || top == "jaxlib") library = Library::jax;
  else if (top == "numba" || top == "numba_cuda") library = Library::numba;
  cache.emplace(type, library);
  last_type = type;
  return last_library = library;
}

// cunum._frameworks, the Python side of the libraries' conventions.
nb::object frameworks(const char* function) {
  // Released, never destroyed: a static object would be freed after the interpreter finalises.
  static const nb::handle module = nb::module_::import_("cunum._frameworks").release();
  return module.attr(function);
}

// The integer DLPack and CUDA array interface use for a stream: 1 for the legacy
// default stream (0 is ambiguous there), the handle otherwise.
std::int64_t stream_number(StreamHandle stream) {
  return stream == nullptr ? 1 : static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(stream));
}

StreamHandle stream_from_number(std::int64_t number, const char* routine) {
  detail::require(number >= 0, routine, "stream", [&] { return "is a negative handle (" + std::to_string(number) + ")"; });
  if (number == 0 || number == 1) return nullptr;  // the legacy default stream
  return reinterpret_cast<StreamHandle>(static_cast<std::uintptr_t>(number));
}

std::string python_type_name(nb::handle object) {
  return nb::cast<std::string>(nb::str(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(object.ptr()))).attr("__name__")));
}

// object.name(), with no bound method made for the call.
nb::object call_method(nb::handle object, nb::handle name) {
  PyObject* arguments[] = {object.ptr()};
  PyObject* result =
      PyObject_VectorcallMethod(name.ptr(), arguments, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
  if (result == nullptr) throw nb::python_error();
  return nb::steal(result);
}

// The truth of an attribute's or a method's value, read without a cast (the libraries
// answer True or False).
bool truth(const nb::object& value) {
  const int truth = PyObject_IsTrue(value.ptr());
  if (truth < 0) throw nb::python_error();
  return truth != 0;
}

// A Python int (an extent, a pointer) as C++ reads it, without nanobind's generic cast.
std::int64_t integer(nb::handle value) {
  const long long number = PyLong_AsLongLong(value.ptr());
  if (number == -1 && PyErr_Occurred()) throw nb::python_error();
  return number;
}

void* pointer_of(nb::handle value) {
  void* pointer = PyLong_AsVoidPtr(value.ptr());
  if (pointer == nullptr && PyErr_Occurred()) throw nb::python_error();
  return pointer;
}

// The current device, asked of the CUDA runtime once a call (kept in `target`).
int current_device_of(const Target& target) {
  if (!target.current_device) target.current_device = current_device();
  return *target.current_device;
}

// `extents` filled from a shape tuple (a CuPy shape, a torch.Size).
void read_extents(nb::handle shape, Extents& extents) {
  const std::size_t count = static_cast<std::size_t>(PyTuple_GET_SIZE(shape.ptr()));
  std::int64_t* to = extents.resize(count);
  for (std::size_t axis = 0; axis < count; ++axis) to[axis] = integer(PyTuple_GET_ITEM(shape.ptr(), axis));
}

// An explicit stream argument: an int, an object with __cuda_stream__ (returning
// (version, handle)), a CuPy stream (.ptr) or a PyTorch stream (.cuda_stream).
StreamHandle parse_stream(nb::handle stream, const char* routine) {
  if (stream.is_none()) return nullptr;
  if (nb::isinstance<nb::int_>(stream)) return stream_from_number(nb::cast<std::int64_t>(stream), routine);
  if (nb::hasattr(stream, "__cuda_stream__")) {
    nb::object protocol = stream.attr("__cuda_stream__")();
    if (nb::isinstance<nb::tuple>(protocol) && nb::len(protocol) == 2) {
      return stream_from_number(nb::cast<std::int64_t>(protocol[1]), routine);
    }
    detail::throw_invalid_argument(routine, "stream", "has a __cuda_stream__ that returns no (version, handle) pair");
  }
  for (const char* attribute : {"ptr", "cuda_stream"}) {
    if (nb::hasattr(stream, attribute)) return stream_from_number(nb::cast<std::int64_t>(stream.attr(attribute)), routine);
  }
  detail::throw_invalid_argument(routine, "stream", [&] {
    return "is a " + python_type_name(stream) +
           ", not a stream (an int handle, an object with __cuda_stream__, a CuPy or a PyTorch stream)";
  }());
}

// The current stream of a library's device as an int handle (0: the legacy default
// stream), read through a function looked up once: CuPy's get_current_stream() (of the
// current device), PyTorch's raw current stream of a device index (-1: the current
// device; torch._C._cuda_getCurrentRawStream, which makes no torch.cuda.Stream object).
// Either is None where the library lacks it, and cunum._frameworks.current_stream, which
// says the same in Python, answers instead.
nb::handle cupy_current_stream_function() {
  static const nb::handle function =
      nb::getattr(nb::module_::import_("cupy.cuda"), "get_current_stream", nb::none()).release();
  return function;
}

nb::handle torch_raw_current_stream_function() {
  static const nb::handle function =
      nb::getattr(nb::module_::import_("torch._C"), "_cuda_getCurrentRawStream", nb::none()).release();
  return function;
}

// CuPy's current stream (of the current device), asked once a call (kept in `target`);
// empty where CuPy lacks get_current_stream.
std::optional<std::int64_t> cupy_current_stream(const Target& target) {
  if (!target.cupy_current_stream) {
    static const nb::handle ptr = interned("ptr");
    if (nb::handle function = cupy_current_stream_function(); !function.is_none()) {
      target.cupy_current_stream = nb::cast<std::int64_t>(function().attr(ptr));
    }
  }
  return target.cupy_current_stream;
}

// PyTorch's raw current stream of the current device, asked once a call (kept in
// `target`); empty where PyTorch lacks _cuda_getCurrentRawStream (no CUDA).
std::optional<std::int64_t> torch_current_stream(const Target& target) {
  if (!target.torch_current_stream) {
    if (nb::handle function = torch_raw_current_stream_function(); !function.is_none()) {
      target.torch_current_stream = nb::cast<std::int64_t>(function(-1));
    }
  }
  return target.torch_current_stream;
}

std::int64_t handle_number(StreamHandle stream) {
  return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(stream));
}

// The current stream of the library owning `like` (a CuPy array or a PyTorch tensor),
// as cunum._frameworks.current_stream gives it.
std::int64_t current_stream_of(nb::handle like, Library library, const Target& target) {
  if (library == Library::cupy) {
    if (const std::optional<std::int64_t> current = cupy_current_stream(target)) return *current;
  } else if (nb::handle function = torch_raw_current_stream_function(); !function.is_none()) {
    // A CPU tensor has no device index (-1); torch.cuda.current_stream refuses it, as before.
    static const nb::handle get_device = interned("get_device");
    if (const int device = static_cast<int>(integer(call_method(like, get_device))); device >= 0) {
      const std::int64_t current = nb::cast<std::int64_t>(function(device));
      // On the current device, that is the stream the call's tensors are compared with.
      if (device == current_device_of(target)) target.torch_current_stream = current;
      return current;
    }
  }
  return nb::cast<std::int64_t>(frameworks("current_stream")(like));
}

// The stream argument of `array`'s __dlpack__ for work on `stream`. A PyTorch tensor
// not in CUDA memory: none (the protocol's None for host memory; PyTorch refuses a
// stream there). A CUDA tensor of PyTorch: -1 (the protocol's "no synchronization")
// when `stream` is PyTorch's current stream of the current device, the one its
// __dlpack__ orders its work before, so that it would do nothing; -1 spares it making
// two torch.cuda.Stream objects to find that.
std::optional<std::int64_t> dlpack_stream(nb::handle array, Library library, const Target& target,
                                          StreamHandle stream) {
  if (library == Library::torch) {
    if (!nb::cast<bool>(array.attr("is_cuda"))) return std::nullopt;
    if (torch_current_stream(target) == handle_number(stream)) return -1;
  }
  return stream_number(stream);
}

// Orders `consumer` after the work enqueued on `producer` so far, on the device.
void wait_on_device(StreamHandle producer, StreamHandle consumer) {
  if (producer == consumer) return;
  cudaEvent_t event = nullptr;
  CUNUM_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  const cudaError_t recorded = cudaEventRecord(event, producer);
  const cudaError_t waited = recorded == cudaSuccess ? cudaStreamWaitEvent(consumer, event, 0) : recorded;
  cudaEventDestroy(event);
  CUNUM_CHECK(waited);
}



nb::dlpack::dtype dtype_from_typestr(const std::string& typestr, const char* routine, const char* name) {
  // '<f4', '<f8', '<i4', '<i8', '|u1', ...: byte order, kind, bytes.
  detail::require(typestr.size() >= 3 && typestr[0] != '>', routine, name,
                  [&] { return "has a __cuda_array_interface__ typestr cunum cannot read ('" + typestr + "')"; });
  nb::dlpack::dtype dtype{};
  const char kind = typestr[1];
  dtype.code = static_cast<std::uint8_t>(kind == 'f'   ? nb::dlpack::dtype_code::Float
                                         : kind == 'i' ? nb::dlpack::dtype_code::Int
                                         : kind == 'u' ? nb::dlpack::dtype_code::UInt
                                         : kind == 'c' ? nb::dlpack::dtype_code::Complex
                                                       : nb::dlpack::dtype_code::Bool);
  dtype.bits = static_cast<std::uint8_t>(8 * std::stoi(typestr.substr(2)));
  dtype.lanes = 1;
  return dtype;
}

// The dtype of a CuPy array's NumPy dtype object, from its typestr (dtype.str, a new
// string each time it is read), read once per dtype object: the first 32 seen are kept,
// with a reference each, so that no other object comes to have their address (the GIL
// serialises access).
nb::dlpack::dtype dtype_of_numpy_dtype(nb::handle dtype, const char* routine, const char* name) {
  static std::vector<std::pair<nb::handle, nb::dlpack::dtype>> seen;
  for (const auto& [object, value] : seen) {
    if (object.is(dtype)) return value;
  }
  static const nb::handle str = interned("str");
  const nb::dlpack::dtype value = dtype_from_typestr(nb::cast<std::string>(dtype.attr(str)), routine, name);
  if (seen.size() < 32) seen.emplace_back(nb::handle(dtype).inc_ref(), value);
  return value;
}

// A view of CUDA memory of `device` at `pointer`, described as NumPy describes arrays:
// its shape, its strides in bytes (None: C-contiguous) and its dtype; `owner` keeps the
// memory alive.
nb::ndarray<> cuda_view(nb::handle owner, void* pointer, nb::handle shape, nb::handle byte_strides,
                        nb::dlpack::dtype dtype, int device) {
  std::vector<std::size_t> extents;
  for (nb::handle extent : shape) extents.push_back(nb::cast<std::size_t>(extent));
  std::vector<std::int64_t> strides;
  if (!byte_strides.is_none()) {
    for (nb::handle stride : byte_strides) strides.push_back(nb::cast<std::int64_t>(stride) / (dtype.bits / 8));
  }
  return nb::ndarray<>(pointer, extents.size(), extents.data(), owner, strides.empty() ? nullptr : strides.data(),
                       dtype, nb::device::cuda::value, device);
}

// An object exposing only __cuda_array_interface__ (Numba's device arrays): its view,
// and its stream waited for on `stream` when the producer names one.
nb::ndarray<> import_cuda_array_interface(nb::handle object, StreamHandle stream, bool& read_only, const char* name,
                                          const char* routine) {
  nb::dict interface = nb::cast<nb::dict>(object.attr("__cuda_array_interface__"));
  nb::tuple data = nb::cast<nb::tuple>(interface["data"]);
  void* pointer = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(data[0]));
  read_only = nb::cast<bool>(data[1]);
  int device = 0;
  if (pointer != nullptr) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, pointer) == cudaSuccess) device = attributes.device;
    else cudaGetLastError();
  }
  const nb::object strides = interface.contains("strides") ? nb::object(interface["strides"]) : nb::none();
  const nb::dlpack::dtype dtype = dtype_from_typestr(nb::cast<std::string>(interface["typestr"]), routine, name);
  nb::ndarray<> view = cuda_view(object, pointer, nb::cast<nb::tuple>(interface["shape"]), strides, dtype, device);
  if (interface.contains("stream") && !interface["stream"].is_none()) {
    wait_on_device(stream_from_number(nb::cast<std::int64_t>(interface["stream"]), routine), stream);
  }
  return view;
}

// A CuPy array on the plan's device, for work on CuPy's current stream: read from its
// attributes (data.ptr, data.device_id, shape, dtype), what its __dlpack__ would export.
// On CuPy's current stream __dlpack__ orders nothing, but it asks the driver for the
// pointer's attributes, a call per array, which this spares. CuPy keeps whether the
// array is C-contiguous (_c_contiguous, as NumPy decides it: axes of extent 1 and empty
// arrays never break it), which spares reading and checking its strides. False where
// that does not hold (another stream or device, an array that is not C-contiguous or a
// CuPy without _c_contiguous): then __dlpack__ imports it, and import_array's checks
// name what is wrong.
bool import_cupy_on_current_stream(nb::handle array, const Target& target, StreamHandle stream, Array& imported,
                                   const char* routine) {
  if (cupy_current_stream(target) != handle_number(stream)) return false;
  static const nb::handle data_name = interned("data"), device_id = interned("device_id"), ptr = interned("ptr"),
                          shape = interned("shape"), dtype = interned("dtype"),
                          c_contiguous = interned("_c_contiguous");
  const nb::object data = array.attr(data_name);
  const int device = static_cast<int>(integer(data.attr(device_id)));
  if (device != target.device) return false;
  const nb::object contiguous = nb::getattr(array, c_contiguous, nb::none());
  if (contiguous.is_none() || !truth(contiguous)) return false;
  imported.dtype = dtype_of_numpy_dtype(array.attr(dtype), routine, imported.name);
  imported.pointer = pointer_of(data.attr(ptr));
  imported.device_type = nb::device::cuda::value;
  imported.device_id = device;
  read_extents(array.attr(shape), imported.extents);
  return true;
}

// Whether `type` holds a valid version tag, which Python invalidates whenever the type
// or a base is modified and assigns anew at the next lookup through it.
bool has_version_tag(PyTypeObject* type) {
  return type->tp_version_tag != 0 && PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG);
}

// An attribute of a type's instances, read as Python reads it where the type looks
// attributes up generically and its MRO holds a data descriptor for the name (that
// descriptor's __get__, which takes precedence over the instance's dict), without the
// lookup PyObject_GetAttr repeats on every read (through the type's attribute cache):
// for PyTorch's C getters that lookup costs about half as much again as the getter
// itself. The descriptor is kept with the type's version tag; once the tag changes it
// is looked up again, and without a valid tag, or where the name is not a data
// descriptor, the plain lookup reads it. The GIL serialises access.
class DescriptorAttribute {
 public:
  explicit DescriptorAttribute(const char* name) : name_(interned(name)) {}

  nb::object read(nb::handle object) const {
    PyTypeObject* type = Py_TYPE(object.ptr());
    if (type != type_ || !has_version_tag(type) || type->tp_version_tag != version_) find(type);
    if (descriptor_ == nullptr) return object.attr(name_);
    PyObject* value = Py_TYPE(descriptor_)->tp_descr_get(descriptor_, object.ptr(), reinterpret_cast<PyObject*>(type));
    if (value == nullptr) throw nb::python_error();
    return nb::steal(value);
  }

 private:
  // The data descriptor for the name in `type`'s MRO, kept while the type's version
  // tag is the one read here (none without a valid tag or generic lookup, or where a
  // class before the name's has no dict of its own: Python 3.12 keeps those of its
  // static built-in types elsewhere).
  void find(PyTypeObject* type) const {
    Py_CLEAR(descriptor_);
    type_ = type;
    version_ = type->tp_version_tag;
    if (!has_version_tag(type) || type->tp_getattro != PyObject_GenericGetAttr) return;
    PyObject* mro = type->tp_mro;
    for (Py_ssize_t i = 0; mro != nullptr && i < PyTuple_GET_SIZE(mro); ++i) {
      PyObject* dict = reinterpret_cast<PyTypeObject*>(PyTuple_GET_ITEM(mro, i))->tp_dict;
      if (dict == nullptr) return;
      PyObject* found = PyDict_GetItemWithError(dict, name_.ptr());
      if (found == nullptr) {
        if (PyErr_Occurred()) throw nb::python_error();
        continue;
      }
      if (Py_TYPE(found)->tp_descr_get != nullptr && Py_TYPE(found)->tp_descr_set != nullptr) {
        Py_INCREF(found);
        descriptor_ = found;
      }
      return;
    }
  }

  nb::handle name_;
  mutable PyTypeObject* type_ = nullptr;
  mutable unsigned int version_ = 0;
  mutable PyObject* descriptor_ = nullptr;  // a reference, never released at exit (the interpreter may be gone)
};

// What the attribute route for PyTorch tensors needs of PyTorch, looked up once, when
// the first tensor comes (the binding never imports PyTorch itself): the type
// torch.Tensor, torch.strided, and the dtypes whose DLPack form that route writes
// itself, as PyTorch's __dlpack__ exports them (the others, none of which cunum
// computes in, go through __dlpack__).
struct TorchTypes {
  PyTypeObject* tensor = nullptr;
  nb::handle strided;
  std::vector<std::pair<nb::handle, nb::dlpack::dtype>> dtypes;
  // The attributes and the method names read per tensor.
  DescriptorAttribute requires_grad{"requires_grad"}, layout{"layout"}, dtype{"dtype"}, is_cpu{"is_cpu"},
      is_cuda{"is_cuda"}, shape{"shape"};
  nb::handle get_device = interned("get_device"), is_contiguous = interned("is_contiguous"),
             data_ptr = interned("data_ptr");
};

const TorchTypes& torch_types() {
  // Released, never destroyed: the interpreter may be gone first.
  static const TorchTypes types = [] {
    const nb::module_ torch = nb::module_::import_("torch");
    TorchTypes made;
    made.tensor = reinterpret_cast<PyTypeObject*>(nb::object(torch.attr("Tensor")).release().ptr());
    made.strided = nb::object(torch.attr("strided")).release();
    using Known = std::pair<const char*, nb::dlpack::dtype>;
    for (auto [name, dtype] : {Known{"float32", nb::dtype<float>()}, Known{"float64", nb::dtype<double>()},
                               Known{"int8", nb::dtype<std::int8_t>()}, Known{"int16", nb::dtype<std::int16_t>()},
                               Known{"int32", nb::dtype<std::int32_t>()}, Known{"int64", nb::dtype<std::int64_t>()},
                               Known{"uint8", nb::dtype<std::uint8_t>()}}) {
      made.dtypes.emplace_back(nb::object(torch.attr(name)).release(), dtype);
    }
    return made;
  }();
  return types;
}

// A PyTorch tensor read from its attributes (dtype, device, shape, data_ptr()), the view
// its __dlpack__ would export, where that export would order nothing: a CPU tensor, or
// a CUDA tensor of the plan's device for work on PyTorch's current stream (where
// dlpack_stream is -1). PyTorch's __dlpack__ is Python code that makes a capsule (about
// 2.4 us an array on the H200's host), which this spares. False, leaving the tensor to
// __dlpack__, for anything else: a subclass of torch.Tensor (it may export otherwise), a
// tensor that requires grad or is not strided (__dlpack__ refuses it, in its words), a
// dtype outside TorchTypes, another device (__dlpack__ refuses a tensor of a device
// other than the current one) or stream, or a tensor that is not contiguous (the
// refusal names the strides __dlpack__ exports).
bool import_torch_from_attributes(nb::handle tensor, const Target& target, StreamHandle stream, Array& imported) {
  const TorchTypes& torch = torch_types();
  if (Py_TYPE(tensor.ptr()) != torch.tensor || truth(torch.requires_grad.read(tensor)) ||
      !torch.layout.read(tensor).is(torch.strided)) {
    return false;
  }
  const nb::object dtype = torch.dtype.read(tensor);
  const auto known = std::find_if(torch.dtypes.begin(), torch.dtypes.end(),
                                  [&](const auto& entry) { return dtype.is(entry.first); });
  if (known == torch.dtypes.end()) return false;
  if (target.backend == Backend::cuda && truth(torch.is_cuda.read(tensor))) {
    const int device = static_cast<int>(integer(call_method(tensor, torch.get_device)));
    if (device != target.device || device != current_device_of(target) ||
        torch_current_stream(target) != handle_number(stream)) {
      return false;
    }
    imported.device_type = nb::device::cuda::value;
    imported.device_id = device;
  } else if (!truth(torch.is_cpu.read(tensor))) {
    return false;
  }
  if (!truth(call_method(tensor, torch.is_contiguous))) return false;
  imported.dtype = known->second;
  read_extents(torch.shape.read(tensor), imported.extents);  // a torch.Size, a tuple
  imported.pointer = pointer_of(call_method(tensor, torch.data_ptr));
  return true;
}

// The view of an object nanobind imports itself (a DLPack capsule, __dlpack__ without
// a stream, the buffer protocol), writable or not.
bool try_view(nb::handle object, Access access, nb::ndarray<>& view, bool& read_only) {
  if (access == Access::write) {
    if (nb::try_cast<nb::ndarray<>>(object, view)) return true;
  }
  nb::ndarray<nb::ro> readable;
  if (!nb::try_cast<nb::ndarray<nb::ro>>(object, readable)) return false;
  read_only = access == Access::write;
  view = nb::ndarray<>(readable);
  return true;
}

void require_reachable(const Array& array, const Target& target, const char* routine) {
  const int type = array.device_type;
  const bool host = type == nb::device::cpu::value, device = type == nb::device::cuda::value;
  const bool shared = type == nb::device::cuda_host::value || type == nb::device::cuda_managed::value;
  detail::require(host || device || shared, routine, array.name, [&] {
    return "is memory of a kind cunum cannot use (DLPack device type " + std::to_string(type) + ")";
  });
  if (target.backend == Backend::cpu) {
    detail::require(!device, routine, array.name, [&] {
      return "is memory of CUDA device " + std::to_string(array.device_id) +
             "; the cpu backend needs host or managed memory";
    });
  } else if (device) {
    detail::require(array.device_id == target.device, routine, array.name, [&] {
      return "is memory of CUDA device " + std::to_string(array.device_id) + "; the plan runs on device " +
             std::to_string(target.device);
    });
  }
  // Pageable host memory given to the CUDA backend: the C++ routine's require_memory
  // decides (devices that read pageable memory accept it).
}

// An Array imported as a view (array.exported): what the view points at.
void describe_view(Array& array) {
  const nb::ndarray<>& view = array.exported;
  array.pointer = view.data();
  array.dtype = view.dtype();
  array.device_type = view.device_type();
  array.device_id = view.device_id();
  std::int64_t* extents = array.extents.resize(view.ndim());
  for (std::size_t axis = 0; axis < view.ndim(); ++axis) extents[axis] = static_cast<std::int64_t>(view.shape(axis));
}

// Whether an imported array is C-contiguous. An array read from its attributes is (those
// routes take no other); a view is checked from its strides.
bool c_contiguous(const Array& array) {
  if (!array.exported.is_valid()) return true;
  const nb::ndarray<>& view = array.exported;
  std::int64_t expected = 1;
  for (std::size_t axis = view.ndim(); axis-- > 0;) {
    const std::int64_t extent = static_cast<std::int64_t>(view.shape(axis));
    if (extent == 0) return true;
    if (extent != 1 && view.stride(axis) != expected) return false;
    expected *= extent;
  }
  return true;
}

}  // namespace

nb::handle interned(const char* text) {
  PyObject* made = PyUnicode_InternFromString(text);
  if (made == nullptr) throw nb::python_error();
  return made;
}

std::string shape_text(const Extents& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

Target target_of(const Placement& placement) {
  Target target;
  target.backend = placement.backend;
  target.device = placement.devices.empty() ? 0 : placement.devices.front();
  return target;
}

std::string dtype_name(nb::dlpack::dtype dtype) {
  const auto code = static_cast<nb::dlpack::dtype_code>(dtype.code);
  const char* kind = code == nb::dlpack::dtype_code::Float  ? "float"
                     : code == nb::dlpack::dtype_code::Int  ? "int"
                     : code == nb::dlpack::dtype_code::UInt ? "uint"
                     : code == nb::dlpack::dtype_code::Bool ? "bool"
                                                            : "other";
  if (code == nb::dlpack::dtype_code::Bool) return kind;
  return kind + std::to_string(dtype.bits) + (dtype.lanes != 1 ? "x" + std::to_string(dtype.lanes) : "");
}

Array import_array(nb::handle object, const char* name, const Target& target, StreamHandle stream,
                   nb::dlpack::dtype dtype, Access access, const char* routine) {
  detail::require(!object.is_none(), routine, name, "is None; an array is required");
  Array array;
  array.source = object;
  array.name = name;
  bool read_only = false;
  bool imported = false;
  const Library library = library_of(object);
  if (library == Library::cupy && target.backend == Backend::cuda) {
    imported = import_cupy_on_current_stream(object, target, stream, array, routine);
  } else if (library == Library::torch) {
    imported = import_torch_from_attributes(object, target, stream, array);
  }
  nb::ndarray<>& view = array.exported;
  // NumPy arrays are host memory, which nanobind imports itself, with no stream.
  if (!imported && library != Library::numpy) {
    if (nb::object dlpack = nb::getattr(object, "__dlpack__", nb::none()); !dlpack.is_none()) {
      if (target.backend == Backend::cuda) {
        // The consumer's stream, so that the producer orders its pending work before it.
        const std::optional<std::int64_t> consumer = dlpack_stream(object, library, target, stream);
        nb::object capsule = consumer ? dlpack(nb::arg("stream") = *consumer) : dlpack();
        imported = try_view(capsule, access, view, read_only);
      }
    } else if (nb::hasattr(object, "__cuda_array_interface__")) {
      view = import_cuda_array_interface(object, stream, read_only, name, routine);
      read_only = read_only && access == Access::write;
      imported = true;
    }
  }
  if (!imported) imported = try_view(object, access, view, read_only);
  detail::require(imported, routine, name, [&] {
    return "is not an array: a " + python_type_name(object) +
           " has no __dlpack__, __cuda_array_interface__ or buffer cunum can import";
  });
  if (view.is_valid()) describe_view(array);
  detail::require(!read_only, routine, name, "is read-only; the routine writes it");
  require_reachable(array, target, routine);
  if (dtype.bits != 0) require_dtype(array, dtype, routine);
  detail::require(c_contiguous(array), routine, name, [&] {
    std::vector<std::int64_t> strides(array.exported.ndim());
    for (std::size_t axis = 0; axis < strides.size(); ++axis) strides[axis] = array.exported.stride(axis);
    return "is not C-contiguous (shape " + shape_text(array.extents) + ", strides " + shape_text(strides) +
           " elements); pass a contiguous array (ascontiguousarray, .contiguous())";
  });
  return array;
}

bool is_scalar(nb::handle value) {
  if (nb::isinstance<nb::float_>(value) || nb::isinstance<nb::int_>(value)) return true;
  // NumPy scalars and 0-d NumPy arrays: host values, read without waiting for a device.
  return library_of(value) == Library::numpy && nb::hasattr(value, "ndim") && nb::cast<int>(value.attr("ndim")) == 0;
}

void require_dtype(const Array& array, nb::dlpack::dtype dtype, const char* routine) {
  detail::require(array.dtype == dtype, routine, array.name, [&] {
    return "has dtype " + dtype_name(array.dtype) + "; expected " + dtype_name(dtype);
  });
}

void require_shape(const Array& array, const Extents& expected, const char* routine) {
  detail::require(array.extents == expected, routine, array.name,
                  [&] { return "has shape " + shape_text(array.extents) + "; expected " + shape_text(expected); });
}

void require_size(const Array& array, std::int64_t count, const char* routine) {
  detail::require(array.size() == count, routine, array.name, [&] {
    return "holds " + std::to_string(array.size()) + " elements (shape " + shape_text(array.extents) + "); expected " +
           std::to_string(count);
  });
}

nb::object new_array(nb::handle like, const Extents& shape, nb::dlpack::dtype dtype, const Target& target,
                     StreamHandle stream) {
  nb::list extents_list;
  for (std::size_t axis = 0; axis < shape.size(); ++axis) extents_list.append(shape[axis]);
  nb::tuple shape_tuple(extents_list);
  const std::string name = dtype_name(dtype);
  if (!like.is_none()) {
    nb::object made = frameworks("empty")(like, shape_tuple, name, stream_number(stream));
    if (!made.is_none()) return made;
  }
  if (target.backend == Backend::cpu) {
    static const nb::handle numpy_empty = nb::object(nb::module_::import_("numpy").attr("empty")).release();
    return numpy_empty(shape_tuple, nb::arg("dtype") = name);
  }
  // cunum's own device memory, stream-ordered on `stream`, freed on it when the last
  // reference to the array goes.
  auto* buffer = new DeviceBuffer<unsigned char>(static_cast<std::size_t>(shape.product()) * (dtype.bits / 8), stream);
  nb::capsule owner(buffer, [](void* pointer) noexcept { delete static_cast<DeviceBuffer<unsigned char>*>(pointer); });
  const std::vector<std::size_t> extents(shape.data(), shape.data() + shape.size());
  nb::ndarray<> view(buffer->data(), extents.size(), extents.data(), owner, nullptr, dtype, nb::device::cuda::value,
                     target.device);
  nb::object exported = nb::ndarray<nb::array_api>(view).cast();
  return like.is_none() ? exported : frameworks("wrap")(like, exported);
}

void require_writable_library(nb::handle out, const char* name, const char* routine) {
  // JAX's DLPack export does not mark its arrays read-only; written, one would change
  // behind JAX's back (JAX may share the buffer, a constant's among them).
  detail::require(library_of(out) != Library::jax, routine, name,
                  "is a JAX array, which is immutable; pass a writable array (NumPy, CuPy, PyTorch, Numba) "
                  "or leave it out to get a new JAX array");
}

Array output_array(nb::handle out, const char* name, nb::handle like, const Extents& shape,
                   nb::dlpack::dtype dtype, const Target& target, StreamHandle stream, const char* routine,
                   nb::object& result) {
  if (!out.is_none()) require_writable_library(out, name, routine);
  result = out.is_none() ? new_array(like, shape, dtype, target, stream) : nb::borrow(out);
  Array array = import_array(result, name, target, stream, dtype, Access::write, routine);
  require_shape(array, shape, routine);
  return array;
}

StreamHandle resolve_stream(nb::handle stream, nb::handle like, const Target& target, const char* routine) {
  if (target.backend == Backend::cpu) return nullptr;
  if (!stream.is_none()) return parse_stream(stream, routine);
  if (like.is_none()) return nullptr;
  const Library library = library_of(like);
  if (library != Library::cupy && library != Library::torch) return nullptr;
  return stream_from_number(current_stream_of(like, library, target), routine);
}

Placement make_placement(const std::string& backend, nb::handle devices, nb::handle stream, const char* routine) {
  Placement placement;
  placement.backend = parse_enum(backend, BackendValues::all, routine, "placement.backend", "Backend");
  if (nb::isinstance<nb::int_>(devices)) {
    placement.devices.push_back(nb::cast<int>(devices));
  } else if (!devices.is_none()) {
    for (nb::handle device : devices) placement.devices.push_back(nb::cast<int>(device));
  }
  placement.stream = parse_stream(stream, routine);
  return placement;
}

Placement placement_for(nb::handle like, nb::handle backend, const char* routine) {
  if (!backend.is_none()) return make_placement(nb::cast<std::string>(backend), nb::none(), nb::none(), routine);
  Placement placement(Backend::cpu);
  int device_type = nb::device::cpu::value, device = 0;
  if (nb::hasattr(like, "__dlpack_device__")) {
    nb::tuple where = nb::cast<nb::tuple>(like.attr("__dlpack_device__")());
    device_type = nb::cast<int>(where[0]);
    device = nb::cast<int>(where[1]);
  } else if (nb::hasattr(like, "__cuda_array_interface__")) {
    device_type = nb::device::cuda::value;
    device = current_device();
  }
  if (device_type == nb::device::cuda::value || device_type == nb::device::cuda_managed::value) {
    placement.backend = Backend::cuda;
    placement.devices = {device};
  }
  return placement;
}

std::string dtype_argument(nb::handle dtype) {
  std::string name;
  if (nb::isinstance<nb::str>(dtype)) {
    name = nb::cast<std::string>(dtype);
  } else if (nb::hasattr(dtype, "name") && nb::isinstance<nb::str>(dtype.attr("name"))) {
    name = nb::cast<std::string>(dtype.attr("name"));  // a NumPy dtype
  } else if (nb::hasattr(dtype, "__name__")) {
    name = nb::cast<std::string>(dtype.attr("__name__"));  // numpy.float32, float
  } else {
    name = nb::cast<std::string>(nb::str(dtype));  // torch.float32
  }
  if (name.rfind("torch.", 0) == 0) name = name.substr(6);
  if (name == "float" || name == "double") return "float64";  // Python's float is a double
  return name;
}

Real parse_real(nb::handle dtype, const char* routine) {
  const std::string name = dtype_argument(dtype);
  if (name == "float32") return Real::float32;
  if (name == "float64") return Real::float64;
  detail::throw_invalid_argument(routine, "dtype", "is '" + name + "'; cunum computes in float32 or float64");
}

Real real_of(const Array& array, const char* routine) {
  const nb::dlpack::dtype dtype = array.dtype;
  if (dtype == nb::dtype<float>()) return Real::float32;
  detail::require(dtype == nb::dtype<double>(), routine, array.name,
                  [&] { return "has dtype " + dtype_name(dtype) + "; expected float32 or float64"; });
  return Real::float64;
}

const char* real_name(Real real) { return real == Real::float32 ? "float32" : "float64"; }

}  // namespace cunum::python
