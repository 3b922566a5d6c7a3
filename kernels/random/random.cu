// The CUDA backend of cunum::RandomGenerator: one thread per Philox block or MRG32k3a
// lane, and per strided run of a Sobol dimension's points, calling the same per-unit
// functions as the CPU backend.

#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/common/launch.cuh"
#include "src/random/random_backends.hpp"

namespace cunum::detail {

namespace {

struct FillPolicy {
  static constexpr int block_threads_log2 = 8;
  static constexpr int block_threads = 1 << block_threads_log2;
  static constexpr int blocks_per_multiprocessor = 8;
};

// Philox: uniform floats fit in 32 registers without spilling, so a full SM's 8
// blocks; 0 (no minimum) leaves the other shapes to ptxas, which spills there.
struct PhiloxPolicy {
  static constexpr int min_blocks(bool uniform_float) {
    return uniform_float ? FillPolicy::blocks_per_multiprocessor : 0;
  }
};

// Sobol: a thread's random access to its first point costs up to 32 or 64 steps, so
// the grid is no wider than leaves it this many points to step over.
struct SobolPolicy {
  static constexpr std::int64_t min_points_per_thread = 16;
};

// Consecutive threads take consecutive Philox blocks: a warp's whole blocks are 512
// contiguous bytes, one 16-byte store a thread when `out` is aligned.
template <class T, bool Normal>
__global__ void __launch_bounds__(FillPolicy::block_threads,
                                    PhiloxPolicy::min_blocks(sizeof(T) == sizeof(float) && !Normal))
    random_fill_kernel(RandomFillArgs<T> args) {
  const PhiloxFill<T, Normal> fill(args);
  const std::uint64_t blocks = fill.blocks();
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t block = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; block < blocks; block += stride) {
    fill.fill_block(block);
  }
}

// One thread per lane: consecutive threads write consecutive units (coalesced).
template <bool Normal, class T>
__global__ void __launch_bounds__(FillPolicy::block_threads) mrg_fill_kernel(MrgFillArgs<T> args) {
  const std::int64_t thread = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (thread < args.lanes()) fill_mrg_lane<Normal>(args, thread, mrg_lane_start(args, thread));
}

// Blocks (x) of one dimension (y): the dimension's table in shared memory, each
// thread the points t, t + 2^k, ... of it, 2^k the grid's width, so consecutive
// threads write consecutive points.
template <bool Normal, class T, class Word>
__global__ void __launch_bounds__(FillPolicy::block_threads)
    sobol_fill_kernel(SobolFillArgs<T, Word> args, int stride_log2) {
  constexpr int table_words = sizeof(Word) * 8 + 1;
  __shared__ Word directions[table_words];
  const std::int64_t dimension = blockIdx.y;
  for (int k = threadIdx.x; k < table_words; k += blockDim.x) directions[k] = args.tables[dimension * table_words + k];
  __syncthreads();
  const std::int64_t first = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (first < args.points) fill_sobol_points<Normal>(args, directions, dimension, first, args.points, stride_log2);
}

std::int64_t resident_blocks(std::int64_t needed_threads, int multiprocessor_count) {
  const std::int64_t needed = (needed_threads + FillPolicy::block_threads - 1) / FillPolicy::block_threads;
  const std::int64_t resident = std::int64_t{multiprocessor_count} * FillPolicy::blocks_per_multiprocessor;
  return needed < resident ? needed : resident;
}

}  // namespace

template <class T>
void random_fill_cuda(const RandomFillArgs<T>& args, int multiprocessor_count, StreamHandle stream) {
  if (args.n == 0) return;
  const char* name = "random_fill_kernel";
  dispatch_normal(args.normal, [&](auto normal) {
    constexpr bool is_normal = decltype(normal)::value;
    const auto blocks = static_cast<std::int64_t>(PhiloxFill<T, is_normal>(args).blocks());
    const LaunchConfig config{grid_1d(resident_blocks(blocks, multiprocessor_count), name),
                              dim3(FillPolicy::block_threads), 0, stream};
    launch_kernel(random_fill_kernel<T, is_normal>, name, config, args);
  });
}

template void random_fill_cuda<float>(const RandomFillArgs<float>&, int, StreamHandle);
template void random_fill_cuda<double>(const RandomFillArgs<double>&, int, StreamHandle);

template <class T>
void mrg_fill_cuda(const MrgFillArgs<T>& args, StreamHandle stream) {
  if (args.n == 0) return;
  const char* name = "mrg_fill_kernel";
  const std::int64_t blocks = (args.lanes() + FillPolicy::block_threads - 1) / FillPolicy::block_threads;
  const LaunchConfig config{grid_1d(blocks, name), dim3(FillPolicy::block_threads), 0, stream};
  dispatch_normal(args.normal, [&](auto normal) {
    launch_kernel(mrg_fill_kernel<decltype(normal)::value, T>, name, config, args);
  });
}

template void mrg_fill_cuda<float>(const MrgFillArgs<float>&, StreamHandle);
template void mrg_fill_cuda<double>(const MrgFillArgs<double>&, StreamHandle);

template <class T, class Word>
void sobol_fill_cuda(const SobolFillArgs<T, Word>& args, int multiprocessor_count, StreamHandle stream) {
  if (args.n == 0) return;
  const char* name = "sobol_fill_kernel";
  // The grid's width in blocks: a power of two (the stride of a thread's points), as
  // many as keep the GPU full over the dimensions, and no more than give each thread
  // SobolPolicy::min_points_per_thread points to step over after its random access.
  const std::int64_t dimensions = args.n / args.points;
  const std::int64_t resident = std::int64_t{multiprocessor_count} * FillPolicy::blocks_per_multiprocessor;
  const std::int64_t per_block = std::int64_t{FillPolicy::block_threads} * SobolPolicy::min_points_per_thread;
  std::int64_t wanted = std::min(resident / dimensions, (args.points + per_block - 1) / per_block);
  int width_log2 = 0;
  while ((std::int64_t{2} << width_log2) <= wanted) ++width_log2;
  const int stride_log2 = width_log2 + FillPolicy::block_threads_log2;
  const LaunchConfig config{dim3(1u << width_log2, static_cast<unsigned>(dimensions)), dim3(FillPolicy::block_threads),
                            0, stream};
  dispatch_normal(args.normal, [&](auto normal) {
    launch_kernel(sobol_fill_kernel<decltype(normal)::value, T, Word>, name, config, args, stride_log2);
  });
}

template void sobol_fill_cuda<float, std::uint32_t>(const SobolFillArgs<float, std::uint32_t>&, int, StreamHandle);
template void sobol_fill_cuda<double, std::uint32_t>(const SobolFillArgs<double, std::uint32_t>&, int, StreamHandle);
template void sobol_fill_cuda<float, std::uint64_t>(const SobolFillArgs<float, std::uint64_t>&, int, StreamHandle);
template void sobol_fill_cuda<double, std::uint64_t>(const SobolFillArgs<double, std::uint64_t>&, int, StreamHandle);

}  // namespace cunum::detail
