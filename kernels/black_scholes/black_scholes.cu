// CUDA Black-Scholes kernels: one grid-stride kernel per call, the scalar code of
// black_scholes_math.hpp per option, every requested output stored in the same pass.

#include <cuda_runtime.h>

#include "kernels/common/launch.cuh"
#include "src/black_scholes/black_scholes_backends.hpp"
#include "src/black_scholes/black_scholes_element.hpp"
#include "src/core/check.hpp"
#include "src/core/instantiate.hpp"

namespace cunum::detail {

namespace {

// The launch shapes, as policy types (the bench can time others on the same code).
// Pricing reads items_per_thread options per thread before computing any. The kernels
// are bound by instruction issue, not by bytes in flight: on the H100, 4 items per
// thread lowered the occupancy (64 registers) and the throughput of most cases.
struct PricePolicy {
  static constexpr int block_threads = 256;
  static constexpr int items_per_thread = 1;
  static constexpr int blocks_per_multiprocessor = 8;
};
struct ImpliedVolPolicy {
  static constexpr int block_threads = 256;
  static constexpr int blocks_per_multiprocessor = 8;
};

// Enough blocks of `block_threads` threads taking `items_per_block` options a pass to
// fill the device, never more than the options need.
dim3 black_scholes_grid(std::int64_t n, std::int64_t items_per_block, int blocks_per_multiprocessor,
                        int multiprocessor_count, const char* name) {
  const std::int64_t needed = (n + items_per_block - 1) / items_per_block;
  const std::int64_t resident = std::int64_t{multiprocessor_count} * blocks_per_multiprocessor;
  return grid_1d(needed < resident ? needed : resident, name);
}

// kPricesOnly: whether only prices and discount are formed (no density, no Greeks).
// Each pass of a block covers block_threads x items_per_thread consecutive options;
// thread t takes options t, t + block_threads, ... of it, so every load is coalesced.
template <bool kPricesOnly, class T>
__global__ void __launch_bounds__(PricePolicy::block_threads) black_scholes_price_kernel(BlackScholesPriceArgs<T> args) {
  constexpr int kThreads = PricePolicy::block_threads;
  constexpr int kItems = PricePolicy::items_per_thread;
  const std::int64_t n = args.options.n;
  const std::int64_t pass = std::int64_t{gridDim.x} * kThreads * kItems;
  for (std::int64_t base = std::int64_t{blockIdx.x} * kThreads * kItems + threadIdx.x; base < n; base += pass) {
    OptionInputs<T> inputs[kItems];
#pragma unroll
    for (int item = 0; item < kItems; ++item) {
      const std::int64_t i = base + std::int64_t{item} * kThreads;
      if (i < n) inputs[item] = load_option(args, i);
    }
#pragma unroll
    for (int item = 0; item < kItems; ++item) {
      const std::int64_t i = base + std::int64_t{item} * kThreads;
      if (i < n) price_option<kPricesOnly>(args, i, inputs[item]);
    }
  }
}

// Counts rejected prices with one atomic per warp and pass (integer: deterministic).
template <class T>
__global__ void __launch_bounds__(ImpliedVolPolicy::block_threads) implied_volatility_kernel(ImpliedVolArgs<T> args) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  const std::int64_t first = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  // Every lane of a warp runs the same number of passes, so the ballot is warp-wide.
  const std::int64_t warp_first = first - (threadIdx.x & 31);
  for (std::int64_t base = warp_first; base < args.options.n; base += stride) {
    const std::int64_t i = base + (threadIdx.x & 31);
    const bool rejected = i < args.options.n && implied_volatility_element(args, i);
    const unsigned votes = __ballot_sync(0xFFFFFFFFu, rejected);
    if (args.rejected != nullptr && (threadIdx.x & 31) == 0 && votes != 0) {
      atomicAdd(reinterpret_cast<unsigned long long*>(args.rejected), static_cast<unsigned long long>(__popc(votes)));
    }
  }
}

}  // namespace

template <class T>
void black_scholes_price_cuda(const BlackScholesPriceArgs<T>& args, int multiprocessor_count, StreamHandle stream) {
  if (args.options.n == 0) return;
  const char* name = "black_scholes_price_kernel";
  const LaunchConfig config{black_scholes_grid(args.options.n, PricePolicy::block_threads * PricePolicy::items_per_thread,
                                               PricePolicy::blocks_per_multiprocessor, multiprocessor_count, name),
                            dim3(PricePolicy::block_threads), 0, stream};
  if (args.prices_only) {
    launch_kernel(black_scholes_price_kernel<true, T>, name, config, args);
  } else {
    launch_kernel(black_scholes_price_kernel<false, T>, name, config, args);
  }
}

template <class T>
void implied_volatility_cuda(const ImpliedVolArgs<T>& args, int multiprocessor_count, StreamHandle stream) {
  if (args.rejected != nullptr) CUNUM_CHECK(cudaMemsetAsync(args.rejected, 0, sizeof(std::int64_t), stream));
  if (args.options.n == 0) return;
  const char* name = "implied_volatility_kernel";
  const LaunchConfig config{black_scholes_grid(args.options.n, ImpliedVolPolicy::block_threads,
                                               ImpliedVolPolicy::blocks_per_multiprocessor, multiprocessor_count, name),
                            dim3(ImpliedVolPolicy::block_threads), 0, stream};
  launch_kernel(implied_volatility_kernel<T>, name, config, args);
}

#define CUNUM_INSTANTIATE_BLACK_SCHOLES_CUDA(T)                                                   \
  template void black_scholes_price_cuda(const BlackScholesPriceArgs<T>&, int, StreamHandle); \
  template void implied_volatility_cuda(const ImpliedVolArgs<T>&, int, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_BLACK_SCHOLES_CUDA, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
