// Reduction front end: validation at the API boundary, workspace ownership and
// dispatch to the CPU or CUDA backend.

#include <string>

#include "src/core/validate.hpp"
#include "cunum/core/device.hpp"
#include "cunum/core/device_buffer.hpp"
#include "cunum/core/error.hpp"
#include "src/reduce/reduce_backends.hpp"

namespace cunum {

const char* to_string(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::sum_of_squares: return "sum_of_squares";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
  }
  return "unknown";
}

namespace {

constexpr const char* kRoutine = "cunum::reduce";

void validate(ReduceOp op, const void* data, std::int64_t n, const void* result) {
  detail::require(op == ReduceOp::sum || op == ReduceOp::sum_of_squares || op == ReduceOp::min ||
                      op == ReduceOp::max,
                  kRoutine, "op", "is not a ReduceOp");
  detail::require_non_negative(n, kRoutine, "n");
  if (n == 0 && (op == ReduceOp::min || op == ReduceOp::max)) {
    detail::throw_invalid_argument(kRoutine, "n", std::string("must be >= 1 for ") + to_string(op) +
                                                      " (no identity element)");
  }
  detail::require_pointer(data, n, kRoutine, "data");
  detail::require(result != nullptr, kRoutine, "result", "is null");
}

}  // namespace

// Partials (one 8-byte accumulator per block), the last-block ticket counter and the
// SM count of the device current at construction, read once here rather than per call.
template <class T>
struct Reducer<T>::DeviceWorkspace {
  DeviceBuffer<double> partials;
  DeviceBuffer<unsigned int> blocks_done;
  detail::ReduceScratch scratch;
};

template <class T>
Reducer<T>::Reducer(Backend backend) : backend_(resolve_backend(backend)) {
  if (backend_ != Backend::cuda) return;
  const int multiprocessor_count = device_properties().multiprocessor_count;
  workspace_ = std::make_unique<DeviceWorkspace>();
  workspace_->partials =
      DeviceBuffer<double>(static_cast<std::size_t>(detail::reduce_cuda_max_blocks(multiprocessor_count)));
  workspace_->blocks_done = DeviceBuffer<unsigned int>(1);
  workspace_->blocks_done.fill_bytes(0);
  synchronize(nullptr);
  workspace_->scratch = {workspace_->partials.data(), workspace_->blocks_done.data(), multiprocessor_count};
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
  validate(op, data, n, result);
  if (backend_ == Backend::cpu) {
    *result = detail::reduce_cpu(op, data, n);
    return;
  }
  detail::reduce_cuda(op, data, n, result, workspace_->scratch, stream);
}

template <class T>
reduce_result_t<T> reduce(ReduceOp op, const T* data, std::int64_t n, Backend backend,
                          StreamHandle stream) {
  Reducer<T> reducer(backend);
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
  const Backend resolved = resolve_backend(backend);
  if (resolved == Backend::cpu) {
    return reduce(op, data.data(), static_cast<std::int64_t>(data.size()), resolved);
  }
  const DeviceBuffer<T> device_data(data);
  return reduce(op, device_data.data(), static_cast<std::int64_t>(data.size()), resolved);
}

#define CUNUM_INSTANTIATE_REDUCE(T)                                                          \
  template class Reducer<T>;                                                                 \
  template reduce_result_t<T> reduce(ReduceOp, const T*, std::int64_t, Backend, StreamHandle); \
  template reduce_result_t<T> reduce(ReduceOp, const std::vector<T>&, Backend);

CUNUM_INSTANTIATE_REDUCE(float)
CUNUM_INSTANTIATE_REDUCE(double)
CUNUM_INSTANTIATE_REDUCE(std::int32_t)
CUNUM_INSTANTIATE_REDUCE(std::int64_t)

}  // namespace cunum
