// The CUDA backend of cunum::BlackScholesPricer: the pricer's device (its
// multiprocessor count and architecture size and pick the launches), checked current
// at every call, and the orchestration around the launchers of
// kernels/black_scholes/black_scholes.cu. Allocates nothing.

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>

#include "kernels/black_scholes/black_scholes_launch.hpp"
#include "src/black_scholes/black_scholes_backends.hpp"
#include "src/core/check.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/routine.hpp"

namespace cunum::detail {
namespace {

template <class T>
class CudaBlackScholes final : public BlackScholesBackend<T> {
 public:
  CudaBlackScholes() : device_(DeviceBinding::current()) {}

  void price(const BlackScholesPriceArgs<T>& args, StreamHandle stream) const override {
    device_.require_current(RoutineScope::current());
    launch_black_scholes_price(args, device_.arch, device_.multiprocessor_count, stream);
  }

  void implied_volatility(const ImpliedVolArgs<T>& args, StreamHandle stream) const override {
    device_.require_current(RoutineScope::current());
    // The kernel adds its warps' counts to *rejected: zero it first, also for n == 0.
    if (args.rejected != nullptr) CUNUM_CHECK(cudaMemsetAsync(args.rejected, 0, sizeof(std::int64_t), stream));
    launch_implied_volatility(args, device_.arch, stream);
  }

 private:
  DeviceBinding device_;
};

}  // namespace

template <class T>
std::unique_ptr<BlackScholesBackend<T>> make_black_scholes_cuda() {
  return std::make_unique<CudaBlackScholes<T>>();
}

#define CUNUM_INSTANTIATE_MAKE_BLACK_SCHOLES_CUDA(T) \
  template std::unique_ptr<BlackScholesBackend<T>> make_black_scholes_cuda();
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MAKE_BLACK_SCHOLES_CUDA, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
