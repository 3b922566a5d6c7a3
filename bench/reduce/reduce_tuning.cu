#include "reduce_tuning.hpp"

#include "kernels/common/launch.cuh"
#include "src/core/device_binding.hpp"
#include "kernels/reduce/reduce_single_pass_kernel.cuh"

namespace cunum::bench {
namespace {

template <class Policy>
ReduceVariant variant() {
  return {"t" + std::to_string(Policy::block_threads) + " x" + std::to_string(Policy::blocks_per_multiprocessor) +
              "/SM, " + std::to_string(Policy::loads_in_flight) + " loads in flight",
          Policy::blocks_per_multiprocessor, &detail::launch_single_pass<Policy, float, ReduceOp::sum>};
}

}  // namespace

// The first is the library's policy for the newest tuned architecture (sm_90); the
// others vary its block shape or its loads in flight.
std::vector<ReduceVariant> reduce_sum_variants() {
  using detail::ReducePolicyOf;
  return {variant<detail::ReducePolicies::newest>(),       variant<ReducePolicyOf<512, 4, 2>>(),
          variant<ReducePolicyOf<512, 4, 8>>(),   variant<ReducePolicyOf<512, 2, 4>>(),
          variant<ReducePolicyOf<256, 8, 4>>(),   variant<ReducePolicyOf<1024, 2, 4>>(),
          variant<ReducePolicyOf<1024, 2, 2>>(),  variant<ReducePolicyOf<128, 16, 4>>()};
}

BareReduceWorkspace::BareReduceWorkspace(int blocks_per_multiprocessor, StreamHandle stream) {
  const detail::DeviceBinding device = detail::DeviceBinding::current();
  partials = DeviceBuffer<double>(static_cast<std::size_t>(device.multiprocessor_count * blocks_per_multiprocessor), stream);
  blocks_done = DeviceBuffer<unsigned int>(1, stream);
  blocks_done.fill_bytes_async(0);
  scratch = {partials.data(), blocks_done.data(), device.multiprocessor_count, device.arch};
}

}  // namespace cunum::bench
