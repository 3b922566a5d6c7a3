#pragma once
// The binding's one vocabulary for what crosses from Python: arrays of any library,
// imported without a copy (DLPack, __cuda_array_interface__, the buffer protocol);
// streams (an int, a CuPy or PyTorch stream, __cuda_stream__, or the current stream of
// the library owning the input); placements; enums by name; results allocated by the
// caller's library. Every refusal is the C++ API's cunum::Error(invalid_argument),
// naming the routine and the argument, raised before anything is enqueued.

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cunum/core.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"

namespace cunum::python {

namespace nb = nanobind;

// What a plan accepts arrays for: its resolved backend and, for CUDA, its device. Made
// for one call, it also keeps what the call's arrays asked once: CuPy's and PyTorch's
// current streams of the current device (raw handles) and the current device, empty
// until asked.
struct Target {
  Target(Backend plan_backend = Backend::cpu, int plan_device = 0) : backend(plan_backend), device(plan_device) {}
  Backend backend;
  int device;
  mutable std::optional<std::int64_t> cupy_current_stream, torch_current_stream;
  mutable std::optional<int> current_device;
};

// The Target of a plan from its resolved placement (the first device for CUDA).
Target target_of(const Placement& placement);

// The extents of an array: up to four axes held inline, so that importing the arrays
// of a small call allocates nothing for them; more on the heap.
class Extents {
 public:
  Extents() = default;
  Extents(std::initializer_list<std::int64_t> extents) { assign(extents.begin(), extents.size()); }
  Extents(const std::vector<std::int64_t>& extents) { assign(extents.data(), extents.size()); }

  // Room for `count` extents, for the caller to fill.
  std::int64_t* resize(std::size_t count) {
    count_ = count;
    if (count <= inline_axes) return inline_.data();
    heap_.resize(count);
    return heap_.data();
  }
  void assign(const std::int64_t* extents, std::size_t count) {
    std::int64_t* to = resize(count);
    for (std::size_t axis = 0; axis < count; ++axis) to[axis] = extents[axis];
  }
  std::size_t size() const { return count_; }
  const std::int64_t* data() const { return count_ <= inline_axes ? inline_.data() : heap_.data(); }
  std::int64_t operator[](std::size_t axis) const { return data()[axis]; }
  std::int64_t product() const {
    std::int64_t product = 1;
    for (std::size_t axis = 0; axis < count_; ++axis) product *= data()[axis];
    return product;
  }
  std::vector<std::int64_t> vector() const { return {data(), data() + count_}; }
  bool operator==(const Extents& other) const {
    if (count_ != other.count_) return false;
    for (std::size_t axis = 0; axis < count_; ++axis) {
      if (data()[axis] != other.data()[axis]) return false;
    }
    return true;
  }

 private:
  static constexpr std::size_t inline_axes = 4;
  std::size_t count_ = 0;
  std::array<std::int64_t, inline_axes> inline_{};
  std::vector<std::int64_t> heap_;
};

// An array the caller passed, imported without a copy, as the C++ call takes it: its
// memory, element type, device and extents; C-contiguous (import_array refuses others),
// so no strides are kept. `exported` holds what an import through DLPack, the buffer
// protocol or __cuda_array_interface__ made, keeping the producer's export alive for as
// long as the Array lives; an array read from its attributes needs nothing made (the
// caller's object outlives the call).
struct Array {
  void* pointer = nullptr;
  nb::dlpack::dtype dtype{};
  int device_type = nb::device::cpu::value;
  int device_id = 0;
  Extents extents;
  nb::ndarray<> exported;
  nb::handle source;  // the caller's object: results follow its library
  const char* name = "";

  void* data() const { return pointer; }
  std::int64_t size() const { return extents.product(); }
  std::vector<std::int64_t> shape() const { return extents.vector(); }
  template <class T>
  T* as() const {
    return static_cast<T*>(pointer);
  }
};

// What an import requires of the array beyond being reachable by the target.
enum class Access { read, write };

// Imports `object` for `target` on `stream` (passed to __dlpack__ so that the producer
// orders its work before the stream, as the DLPack protocol asks): any object with
// __dlpack__, __cuda_array_interface__ (its stream, when given, is waited for on the
// device) or the buffer protocol. Checks that it is memory the target can use (host,
// page-locked or managed memory for the CPU backend; the plan's device, managed or
// mapped memory for CUDA), C-contiguous, of `dtype` (any dtype when its bits are 0,
// for a convenience that dispatches on it), and writable for Access::write.
Array import_array(nb::handle object, const char* name, const Target& target, StreamHandle stream,
                   nb::dlpack::dtype dtype, Access access, const char* routine);

template <class T>
Array import_as(nb::handle object, const char* name, const Target& target, StreamHandle stream, Access access,
                const char* routine) {
  return import_array(object, name, target, stream, nb::dtype<T>(), access, routine);
}

// Whether an argument that takes a scalar or an array is a scalar: a Python int or
// float, or a NumPy scalar (numpy.float32(0.05)); anything else is read as an array.
bool is_scalar(nb::handle value);

// A shape as Python prints it: "(3, 4)", "(5,)", "()".
std::string shape_text(const Extents& shape);

// The array's dtype must be `dtype`.
void require_dtype(const Array& array, nb::dlpack::dtype dtype, const char* routine);
// The array's shape must be `expected` exactly ("has shape (3, 4), expected (3, 5)").
void require_shape(const Array& array, const Extents& expected, const char* routine);
// The array must hold `count` elements, whatever its shape.
void require_size(const Array& array, std::int64_t count, const char* routine);

// A new, uninitialised C-contiguous array of `shape` and `dtype` for the results of a
// call with `like` as its first array: allocated by like's library (NumPy, CuPy,
// PyTorch, Numba) on its device and, where the library's allocator is stream-ordered,
// for `stream`; for other libraries (JAX, whose arrays are immutable) cunum's own
// stream-ordered device memory, handed over through DLPack. With `like` None: NumPy
// for the CPU backend, cunum's device memory (a DLPack array) for CUDA.
nb::object new_array(nb::handle like, const Extents& shape, nb::dlpack::dtype dtype,
                     const Target& target, StreamHandle stream);
template <class T>
nb::object new_array_of(nb::handle like, const Extents& shape, const Target& target,
                        StreamHandle stream) {
  return new_array(like, shape, nb::dtype<T>(), target, stream);
}

// Refuses, with InvalidArgument naming `name`, a caller's output array that cunum must not
// write: a JAX array (immutable, though its DLPack export does not say so).
void require_writable_library(nb::handle out, const char* name, const char* routine);

// The output argument `out` (None: a new array like `like`), imported for writing.
// Returns the Python object handed back to the caller in `result`.
Array output_array(nb::handle out, const char* name, nb::handle like, const Extents& shape,
                   nb::dlpack::dtype dtype, const Target& target, StreamHandle stream, const char* routine,
                   nb::object& result);
template <class T>
Array output_as(nb::handle out, const char* name, nb::handle like, const Extents& shape,
                const Target& target, StreamHandle stream, const char* routine, nb::object& result) {
  return output_array(out, name, like, shape, nb::dtype<T>(), target, stream, routine, result);
}

// The stream a call runs on. CPU backend: nullptr (ignored). CUDA: `stream` when given
// (an int handle, an object with __cuda_stream__, a CuPy stream's .ptr or a PyTorch
// stream's .cuda_stream; 0 and 1 are the legacy default stream, 2 the per-thread one),
// else the current stream of the library owning `like` (CuPy, PyTorch), else the
// legacy default stream.
StreamHandle resolve_stream(nb::handle stream, nb::handle like, const Target& target, const char* routine);

// A placement from the Python keywords every plan takes: backend by name, devices
// (None, an int or a list of ints) and the setup stream.
Placement make_placement(const std::string& backend, nb::handle devices, nb::handle stream, const char* routine);

// The placement of a convenience call that makes its plan itself: the backend by name,
// or None for where `like` lives (host memory: cpu; CUDA memory: cuda on its device).
Placement placement_for(nb::handle like, nb::handle backend, const char* routine);

// The value type a plan is built for, from "float32", "float64", a NumPy dtype or scalar
// type, a PyTorch dtype or anything whose name is one of those.
enum class Real { float32, float64 };
Real parse_real(nb::handle dtype, const char* routine);
const char* real_name(Real real);
// The value type of an array (float32 or float64), refused naming the array otherwise.
Real real_of(const Array& array, const char* routine);

// The NumPy name of a dtype argument ("float32", "int64"): a string, a NumPy dtype or
// scalar type, a PyTorch dtype, or Python's float (float64).
std::string dtype_argument(nb::handle dtype);

// The value type of a plan class template's instance: float for Reducer<float>.
template <class Plan>
struct plan_value;
template <template <class> class Plan, class T>
struct plan_value<Plan<T>> {
  using type = T;
};
template <class Plan>
using plan_value_t = typename plan_value<std::decay_t<Plan>>::type;

// Calls `body` with a value of float or double, as `real` says.
template <class Body>
decltype(auto) with_real(Real real, Body&& body) {
  if (real == Real::float32) return body(float{});
  return body(double{});
}

// An enum of the C++ API (declared with CUNUM_ENUM) from its name.
template <class Enum, std::size_t N>
Enum parse_enum(const std::string& text, const Enum (&all)[N], const char* routine, const char* argument,
                const char* enum_name) {
  for (Enum value : all) {
    if (text == to_string(value)) return value;
  }
  detail::throw_invalid_argument(routine, argument, [&] {
    std::string names;
    for (Enum value : all) names += std::string(names.empty() ? "" : ", ") + to_string(value);
    return std::string("is not one of ") + enum_name + "'s values (got '" + text + "'; one of " + names + ")";
  }());
}

// A Python string made once and interned, never destroyed (the interpreter may be gone
// first): a name a call uses, as a dict key or an attribute looked up per array, that
// costs no new string a call (getattr by a C string makes one each time).
nb::handle interned(const char* text);

// The names of an enum's values (CUNUM_ENUM) as Python strings, interned and made once
// (never destroyed: the interpreter may be gone first), indexed by the value (its
// position in `all`): dict keys that cost no new string a call.
template <class Enum, std::size_t N>
const std::array<nb::handle, N>& python_names(const Enum (&all)[N]) {
  static const std::array<nb::handle, N> names = [&] {
    std::array<nb::handle, N> made{};
    for (std::size_t i = 0; i < N; ++i) {
      made[i] = interned(to_string(all[i]));
    }
    return made;
  }();
  return names;
}

// The name of a dtype as NumPy spells it ("float32").
std::string dtype_name(nb::dlpack::dtype dtype);

}  // namespace cunum::python
