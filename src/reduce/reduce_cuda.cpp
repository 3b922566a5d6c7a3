// The CUDA backend of cunum::Reducer: the plan's device, its workspace (block
// partials and the last-block ticket counter) and the fence of the workspace's setup,
// all made once per plan, so that a call queries nothing and launches one kernel
// (kernels/reduce/reduce.cu).

#include <memory>

#include "cunum/core/device_buffer.hpp"
#include "kernels/reduce/reduce_launch.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/routine.hpp"
#include "src/core/setup_fence.hpp"
#include "src/reduce/reduce_backends.hpp"
#include "src/reduce/reduce_policy.hpp"

namespace cunum::detail {
namespace {

// Partials (one 8-byte accumulator per block), the last-block ticket counter and
// the device's SM count and architecture, read once here rather than per call.
template <class T>
class CudaReducer final : public ReducerBackend<T> {
 public:
  // Allocates and zeroes the workspace on the placement's stream, without waiting.
  explicit CudaReducer(const Placement& placement) : device_(DeviceBinding::current()) {
    const int max_blocks = device_.multiprocessor_count * reduce_tuning(device_.arch).blocks_per_multiprocessor;
    partials_ = DeviceBuffer<double>(static_cast<std::size_t>(max_blocks), placement.stream, placement.device_memory);
    blocks_done_ = DeviceBuffer<unsigned int>(1, placement.stream, placement.device_memory);
    blocks_done_.fill_bytes_async(0);
    zeroed_.record(placement.stream);
    scratch_ = {partials_.data(), blocks_done_.data(), device_.multiprocessor_count, device_.arch};
  }

  void reduce(ReduceOp op, const T* data, std::int64_t n, reduce_result_t<T>* result,
              StreamHandle stream) override {
    device_.require_current(RoutineScope::current());
    zeroed_.order(stream);
    launch_reduce(op, data, n, result, scratch_, stream);
  }

 private:
  DeviceBinding device_;
  DeviceBuffer<double> partials_;
  DeviceBuffer<unsigned int> blocks_done_;
  SetupFence zeroed_;
  ReduceScratch scratch_;
};

}  // namespace

template <class T>
std::unique_ptr<ReducerBackend<T>> make_reduce_cuda(const Placement& placement) {
  return std::make_unique<CudaReducer<T>>(placement);
}

#define CUNUM_INSTANTIATE_MAKE_REDUCE_CUDA(T) \
  template std::unique_ptr<ReducerBackend<T>> make_reduce_cuda(const Placement&);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MAKE_REDUCE_CUDA, CUNUM_REDUCE_TYPES)

}  // namespace cunum::detail
