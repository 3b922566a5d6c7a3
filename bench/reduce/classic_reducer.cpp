// ClassicReducer: validation, scratch and the pass loop of the classic tutorial
// kernels (classic_kernels.cu): each pass reduces n values to one per block, until
// one value remains.

#include <memory>
#include <string>

#include "classic_reducer.hpp"
#include "cunum/core/backend.hpp"
#include "cunum/core/device_buffer.hpp"
#include "src/core/check.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/enum_functions.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"

namespace cunum::bench {

CUNUM_DEFINE_ENUM_FUNCTIONS(ClassicReduceKernel, CUNUM_CLASSIC_REDUCE_KERNELS)

namespace {
constexpr const char* kClassicRoutine = "cunum::bench::ClassicReducer";
constexpr const char* kClassicSumRoutine = "cunum::bench::ClassicReducer::sum";
}  // namespace

// Two ping-pong buffers of partial sums, grown on demand.
template <class T>
struct ClassicReducer<T>::Scratch {
  detail::DeviceBinding device;
  DeviceBuffer<T> ping;
  DeviceBuffer<T> pong;
};

template <class T>
ClassicReducer<T>::ClassicReducer() : scratch_(std::make_unique<Scratch>()) {
  const detail::RoutineScope scope(kClassicRoutine);
  resolve_backend(Backend::cuda);
  scratch_->device = detail::DeviceBinding::current();
}
template <class T>
ClassicReducer<T>::~ClassicReducer() = default;
template <class T>
ClassicReducer<T>::ClassicReducer(ClassicReducer&&) noexcept = default;
template <class T>
ClassicReducer<T>& ClassicReducer<T>::operator=(ClassicReducer&&) noexcept = default;

template <class T>
void ClassicReducer<T>::sum(ClassicReduceKernel kernel, const T* data, std::int64_t n, T* result,
                            StreamHandle stream) {
  constexpr const char* routine = kClassicSumRoutine;
  const detail::RoutineScope scope(routine);
  detail::require(scratch_ != nullptr, routine, "this", "is a moved-from ClassicReducer");
  detail::require_enum(kernel, routine, "kernel", "ClassicReduceKernel");
  detail::require_element_count(n, sizeof(T), routine, "n");
  detail::require(n <= max_elements, routine, "n",
                  [&] { return "exceeds 2^31, the limit of the classic kernels' 32-bit indexing (got " +
                      std::to_string(n) + "); use cunum::Reducer"; });
  detail::require_memory(data, n, Backend::cuda, routine, "data");
  detail::require_memory(result, 1, Backend::cuda, routine, "result");
  scratch_->device.require_current(routine);
  if (n == 0) {
    CUNUM_CHECK(cudaMemsetAsync(result, 0, sizeof(T), stream));
    return;
  }

  auto count = static_cast<unsigned int>(n);
  const std::size_t partials = classic_pass_blocks(ClassicReduceKernel::interleaved_divergent, count, 0);
  if (scratch_->ping.size() < partials) {
    scratch_->ping = DeviceBuffer<T>(partials, stream);
    scratch_->pong = DeviceBuffer<T>(partials, stream);
  }
  const T* in = data;
  T* buffers[2] = {scratch_->ping.data(), scratch_->pong.data()};
  for (int pass = 0; count > 1; ++pass) {
    T* out = buffers[pass % 2];
    count = launch_classic_pass(kernel, in, out, count, scratch_->device.multiprocessor_count, stream);
    in = out;
  }
  CUNUM_CHECK(cudaMemcpyAsync(result, in, sizeof(T), cudaMemcpyDeviceToDevice, stream));
}

#define CUNUM_INSTANTIATE_CLASSIC_REDUCER(T) template class ClassicReducer<T>;
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_CLASSIC_REDUCER, CUNUM_REDUCE_TYPES)

}  // namespace cunum::bench
