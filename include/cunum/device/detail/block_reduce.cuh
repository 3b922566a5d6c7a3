#pragma once
// Internal: warp- and block-level tree reductions by shuffles, layered as in CUB
// (warp -> block). The combination order is fixed, which keeps results deterministic.

namespace cunum::detail {

constexpr int kWarpThreads = 32;

// Addition in double, the operation of cunum's deterministic sums.
struct DoubleSum {
  __device__ static double identity() { return 0.0; }
  __device__ static double combine(double a, double b) { return a + b; }
};

template <class Operation, class Accumulator>
__device__ __forceinline__ Accumulator warp_reduce(Accumulator value) {
#pragma unroll
  for (int offset = kWarpThreads / 2; offset > 0; offset /= 2) {
    value = Operation::combine(value, __shfl_down_sync(0xffffffffu, value, offset));
  }
  return value;
}

// Result valid in thread 0. Every thread of the block must call it.
template <int BlockThreads, class Operation, class Accumulator>
__device__ __forceinline__ Accumulator block_reduce(Accumulator value) {
  static_assert(BlockThreads % kWarpThreads == 0, "block must be whole warps");
  constexpr int warps = BlockThreads / kWarpThreads;
  __shared__ Accumulator warp_results[warps];
  const int lane = threadIdx.x % kWarpThreads;
  const int warp = threadIdx.x / kWarpThreads;
  value = warp_reduce<Operation>(value);
  if (lane == 0) warp_results[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < warps ? warp_results[lane] : Operation::identity();
    value = warp_reduce<Operation>(value);
  }
  return value;
}

}  // namespace cunum::detail
