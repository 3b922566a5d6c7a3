// The CUDA backend of cunum::RandomGenerator: one thread per Philox block, calling the
// same fill_block() as the CPU backend.

#include <cuda_runtime.h>

#include "kernels/common/launch.cuh"
#include "src/random/random_backends.hpp"

namespace cunum::detail {

namespace {

struct FillPolicy {
  static constexpr int block_threads = 256;
  static constexpr int blocks_per_multiprocessor = 8;
};

template <class T>
__global__ void __launch_bounds__(FillPolicy::block_threads) random_fill_kernel(RandomFillArgs<T> args) {
  const std::uint64_t first = args.first_block();
  const std::uint64_t blocks = args.end_block() - first;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t block = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; block < blocks; block += stride) {
    fill_block(args, first + block);
  }
}

}  // namespace

template <class T>
void random_fill_cuda(const RandomFillArgs<T>& args, int multiprocessor_count, StreamHandle stream) {
  if (args.n == 0) return;
  const char* name = "random_fill_kernel";
  const auto blocks = static_cast<std::int64_t>(args.end_block() - args.first_block());
  const std::int64_t needed = (blocks + FillPolicy::block_threads - 1) / FillPolicy::block_threads;
  const std::int64_t resident = std::int64_t{multiprocessor_count} * FillPolicy::blocks_per_multiprocessor;
  const LaunchConfig config{grid_1d(needed < resident ? needed : resident, name), dim3(FillPolicy::block_threads), 0,
                            stream};
  launch_kernel(random_fill_kernel<T>, name, config, args);
}

template void random_fill_cuda<float>(const RandomFillArgs<float>&, int, StreamHandle);
template void random_fill_cuda<double>(const RandomFillArgs<double>&, int, StreamHandle);

}  // namespace cunum::detail
