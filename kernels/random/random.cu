// The launchers of cunum::RandomGenerator's CUDA fills (kernels/random/random_launch.hpp):
// the policy of the device's architecture (src/random/random_policy.hpp), the grid,
// one launch of random_fill_kernel.cuh's kernel.

#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/common/launch.cuh"
#include "kernels/random/random_fill_kernel.cuh"
#include "kernels/random/random_launch.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/launch_shape.hpp"
#include "src/random/random_policy.hpp"

namespace cunum::detail {

template <class T>
void launch_philox_fill(const RandomFillArgs<T>& args, int arch, int multiprocessor_count, StreamHandle stream) {
  if (args.n == 0) return;
  const char* name = "random_fill_kernel";
  PhiloxPolicies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    dispatch_normal(args.normal, [&](auto normal) {
      constexpr bool is_normal = decltype(normal)::value;
      const PhiloxFill<T, is_normal> fill(args);
      const auto blocks = static_cast<std::int64_t>(fill.blocks());
      const LaunchConfig config{grid_1d(resident_blocks(blocks, Policy::block_threads,
                                                        Policy::blocks_per_multiprocessor, multiprocessor_count),
                                        name),
                                dim3(Policy::block_threads), 0, stream};
      launch_kernel(random_fill_kernel<Policy, T, is_normal>, name, config, fill);
    });
  });
}

template <class T>
void launch_mrg_fill(const MrgFillArgs<T>& args, int arch, StreamHandle stream) {
  if (args.n == 0) return;
  const char* name = "mrg_fill_kernel";
  MrgPolicies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const std::int64_t blocks = (args.lanes() + Policy::block_threads - 1) / Policy::block_threads;
    const LaunchConfig config{grid_1d(blocks, name), dim3(Policy::block_threads), 0, stream};
    dispatch_normal(args.normal, [&](auto normal) {
      launch_kernel(mrg_fill_kernel<Policy, decltype(normal)::value, T>, name, config, args);
    });
  });
}

template <class T, class Word>
void launch_sobol_fill(const SobolFillArgs<T, Word>& args, int arch, int multiprocessor_count,
                       StreamHandle stream) {
  if (args.n == 0) return;
  const char* name = "sobol_fill_kernel";
  SobolPolicies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    // The grid's width in blocks: a power of two (the stride of a thread's points), as
    // many as keep the GPU full over the dimensions, and no more than give each thread
    // Policy::min_points_per_thread points to step over after its random access.
    const std::int64_t dimensions = args.n / args.points;
    const std::int64_t resident = std::int64_t{multiprocessor_count} * Policy::blocks_per_multiprocessor;
    const std::int64_t per_block = std::int64_t{Policy::block_threads} * Policy::min_points_per_thread;
    std::int64_t wanted = std::min(resident / dimensions, (args.points + per_block - 1) / per_block);
    int width_log2 = 0;
    while ((std::int64_t{2} << width_log2) <= wanted) ++width_log2;
    const int stride_log2 = width_log2 + Policy::block_threads_log2;
    const LaunchConfig config{dim3(1u << width_log2, static_cast<unsigned>(dimensions)),
                              dim3(Policy::block_threads), 0, stream};
    dispatch_normal(args.normal, [&](auto normal) {
      launch_kernel(sobol_fill_kernel<Policy, decltype(normal)::value, T, Word>, name, config, args, stride_log2);
    });
  });
}

#define CUNUM_INSTANTIATE_RANDOM_LAUNCHERS(T)                                                                  \
  template void launch_philox_fill(const RandomFillArgs<T>&, int, int, StreamHandle);                          \
  template void launch_mrg_fill(const MrgFillArgs<T>&, int, StreamHandle);                                     \
  template void launch_sobol_fill(const SobolFillArgs<T, std::uint32_t>&, int, int, StreamHandle);             \
  template void launch_sobol_fill(const SobolFillArgs<T, std::uint64_t>&, int, int, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_RANDOM_LAUNCHERS, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
