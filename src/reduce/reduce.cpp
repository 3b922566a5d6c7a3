// Reduction front end: validation at the API boundary, the backend chosen once per
// plan (reduce_backends.hpp), calls forwarded to it.

#include <memory>
#include <string>

#include "cunum/core/device.hpp"
#include "cunum/core/device_buffer.hpp"
#include "cunum/core/error.hpp"
#include "src/core/enum_functions.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/placement.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"
#include "src/reduce/reduce_backends.hpp"

namespace cunum {

CUNUM_DEFINE_ENUM_FUNCTIONS(ReduceOp, CUNUM_REDUCE_OPS)

namespace {

constexpr const char* kClassName = "Reducer";
constexpr const char* kReducerRoutine = "cunum::Reducer";
constexpr const char* kBackendRoutine = "cunum::Reducer::backend";
constexpr const char* kPlacementRoutine = "cunum::Reducer::placement";
constexpr const char* kReduceRoutine = "cunum::reduce";

template <class T>
void validate(Backend backend, ReduceOp op, const T* data, std::int64_t n, const void* result) {
  detail::require_enum(op, kReduceRoutine, "op", "ReduceOp");
  detail::require_element_count(n, sizeof(T), kReduceRoutine, "n");
  if (n == 0 && (op == ReduceOp::min || op == ReduceOp::max)) {
    detail::throw_invalid_argument(kReduceRoutine, "n",
                                   std::string("must be >= 1 for ") + to_string(op) + " (no identity element)");
  }
  detail::require_memory(data, n, backend, kReduceRoutine, "data");
  detail::require_memory(result, 1, backend, kReduceRoutine, "result");
  // The CUDA backend writes partial results while blocks still read: result lies apart.
  detail::require_disjoint(result, sizeof(reduce_result_t<T>), data, static_cast<std::size_t>(n) * sizeof(T),
                           kReduceRoutine, "result", "data");
}

}  // namespace

// The resolved placement and the backend object, made once.
template <class T>
struct Reducer<T>::Impl {
  Placement placement;
  std::unique_ptr<detail::ReducerBackend<T>> backend;
};

template <class T>
Reducer<T>::Reducer(const Placement& placement) {
  const detail::RoutineScope scope(kReducerRoutine);
  auto impl = std::make_unique<Impl>();
  impl->placement = detail::resolve_placement(placement, detail::DeviceCount::one, kReducerRoutine);
  const detail::PlacementDeviceScope on_device(impl->placement);
  impl->backend = impl->placement.backend == Backend::cuda ? detail::make_reduce_cuda<T>(impl->placement)
                                                           : detail::make_reduce_cpu<T>();
  impl_ = std::move(impl);
}

template <class T>
Reducer<T>::~Reducer() = default;
template <class T>
Reducer<T>::Reducer(Reducer&&) noexcept = default;
template <class T>
Reducer<T>& Reducer<T>::operator=(Reducer&&) noexcept = default;

template <class T>
Backend Reducer<T>::backend() const {
  return detail::require_plan(impl_, kBackendRoutine, kClassName).placement.backend;
}

template <class T>
const Placement& Reducer<T>::placement() const {
  return detail::require_plan(impl_, kPlacementRoutine, kClassName).placement;
}

template <class T>
void Reducer<T>::reduce(ReduceOp op, const T* data, std::int64_t n, reduce_result_t<T>* result,
                        StreamHandle stream) {
  const detail::RoutineScope scope(kReduceRoutine);
  Impl& impl = detail::require_plan(impl_, kReduceRoutine, kClassName);
  validate(impl.placement.backend, op, data, n, result);
  impl.backend->reduce(op, data, n, result, stream);
}

template <class T>
reduce_result_t<T> reduce(ReduceOp op, const T* data, std::int64_t n, const Placement& placement) {
  const detail::RoutineScope scope(kReduceRoutine);
  // Resolved here first, so that a capturing stream is refused naming this routine.
  Reducer<T> reducer(detail::resolve_placement(placement, detail::DeviceCount::one, kReduceRoutine));
  const Placement& resolved = reducer.placement();
  if (resolved.backend == Backend::cpu) {
    reduce_result_t<T> result{};
    reducer.reduce(op, data, n, &result);
    return result;
  }
  const detail::PlacementDeviceScope on_device(resolved);
  DeviceBuffer<reduce_result_t<T>> device_result(1, resolved.stream, resolved.device_memory);
  reducer.reduce(op, data, n, device_result.data(), resolved.stream);
  reduce_result_t<T> result{};
  device_result.copy_to_host(&result, 1);
  return result;
}

template <class T>
reduce_result_t<T> reduce(ReduceOp op, const std::vector<T>& data, const Placement& placement) {
  const detail::RoutineScope scope(kReduceRoutine);
  const Placement resolved = detail::resolve_placement(placement, detail::DeviceCount::one, kReduceRoutine);
  if (resolved.backend == Backend::cpu) {
    return reduce(op, data.data(), static_cast<std::int64_t>(data.size()), resolved);
  }
  const detail::PlacementDeviceScope on_device(resolved);
  const auto device_data = DeviceBuffer<T>::from_host(data, resolved.stream, resolved.device_memory);
  return reduce(op, device_data.data(), static_cast<std::int64_t>(data.size()), resolved);
}

#define CUNUM_INSTANTIATE_REDUCE(T)                                                            \
  template class Reducer<T>;                                                                   \
  template reduce_result_t<T> reduce(ReduceOp, const T*, std::int64_t, const Placement&); \
  template reduce_result_t<T> reduce(ReduceOp, const std::vector<T>&, const Placement&);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_REDUCE, CUNUM_REDUCE_TYPES)

}  // namespace cunum
