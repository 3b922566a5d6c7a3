// Reduction front end: validation at the API boundary, workspace ownership and
// dispatch to the CPU or CUDA backend.

#include <string>

#include "cunum/core/device.hpp"
#include "cunum/core/device_buffer.hpp"
#include "cunum/core/error.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/enum_functions.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/routine.hpp"
#include "src/core/setup_fence.hpp"
#include "src/core/validate.hpp"
#include "src/reduce/reduce_backends.hpp"

namespace cunum {

CUNUM_DEFINE_ENUM_FUNCTIONS(ReduceOp, CUNUM_REDUCE_OPS)

namespace {

constexpr const char* kReducerRoutine = "cunum::Reducer";
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
}

}  // namespace

// Partials (one 8-byte accumulator per block), the last-block ticket counter and
// the device's SM count and architecture, read once here rather than per call.
template <class T>
struct Reducer<T>::DeviceWorkspace {
  detail::DeviceBinding device;
  DeviceBuffer<double> partials;
  DeviceBuffer<unsigned int> blocks_done;
  detail::SetupFence zeroed;
  detail::ReduceScratch scratch;
};

template <class T>
Reducer<T>::Reducer(Backend backend, StreamHandle stream) {
  const detail::RoutineScope scope(kReducerRoutine);
  backend_ = resolve_backend(backend);
  if (backend_ != Backend::cuda) return;
  auto workspace = std::make_unique<DeviceWorkspace>();
  workspace->device = detail::DeviceBinding::current();
  const int arch = workspace->device.arch;
  const int max_blocks =
      workspace->device.multiprocessor_count * detail::reduce_tuning(arch).blocks_per_multiprocessor;
  workspace->partials = DeviceBuffer<double>(static_cast<std::size_t>(max_blocks), stream);
  workspace->blocks_done = DeviceBuffer<unsigned int>(1, stream);
  workspace->blocks_done.fill_bytes_async(0);
  workspace->zeroed.record(stream);
  workspace->scratch = {workspace->partials.data(), workspace->blocks_done.data(),
                        workspace->device.multiprocessor_count, arch};
  workspace_ = std::move(workspace);
}

template <class T>
Reducer<T>::~Reducer() = default;
template <class T>
Reducer<T>::Reducer(Reducer&&) noexcept = default;
template <class T>
Reducer<T>& Reducer<T>::operator=(Reducer&&) noexcept = default;

template <class T>
void Reducer<T>::reduce(ReduceOp op, const T* data, std::int64_t n, reduce_result_t<T>* result,
                        StreamHandle stream) {
  const detail::RoutineScope scope(kReduceRoutine);
  validate(backend_, op, data, n, result);
  if (backend_ == Backend::cpu) {
    *result = detail::reduce_cpu(op, data, n);
    return;
  }
  detail::require(workspace_ != nullptr, kReduceRoutine, "this", "is a moved-from Reducer");
  workspace_->device.require_current(kReduceRoutine);
  workspace_->zeroed.order(stream);
  detail::reduce_cuda(op, data, n, result, workspace_->scratch, stream);
}

template <class T>
reduce_result_t<T> reduce(ReduceOp op, const T* data, std::int64_t n, Backend backend, StreamHandle stream) {
  Reducer<T> reducer(backend, stream);
  if (reducer.backend() == Backend::cpu) {
    reduce_result_t<T> result{};
    reducer.reduce(op, data, n, &result);
    return result;
  }
  DeviceBuffer<reduce_result_t<T>> device_result(1, stream);
  reducer.reduce(op, data, n, device_result.data(), stream);
  reduce_result_t<T> result{};
  device_result.copy_to_host(&result, 1);
  return result;
}

template <class T>
reduce_result_t<T> reduce(ReduceOp op, const std::vector<T>& data, Backend backend) {
  const detail::RoutineScope scope(kReduceRoutine);
  const Backend resolved = resolve_backend(backend);
  if (resolved == Backend::cpu) {
    return reduce(op, data.data(), static_cast<std::int64_t>(data.size()), resolved);
  }
  const auto device_data = DeviceBuffer<T>::from_host(data);
  return reduce(op, device_data.data(), static_cast<std::int64_t>(data.size()), resolved);
}

#define CUNUM_INSTANTIATE_REDUCE(T)                                                            \
  template class Reducer<T>;                                                                   \
  template reduce_result_t<T> reduce(ReduceOp, const T*, std::int64_t, Backend, StreamHandle); \
  template reduce_result_t<T> reduce(ReduceOp, const std::vector<T>&, Backend);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_REDUCE, CUNUM_REDUCE_TYPES)

}  // namespace cunum
