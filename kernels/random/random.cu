// The launchers of cunum::RandomGenerator's CUDA fills (kernels/random/random_launch.hpp):
// the policy of the device's architecture (src/random/random_policy.hpp), the grid,
// one launch of random_fill_kernel.cuh's kernel.

#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/common/launch.cuh"
#include "kernels/random/random_fill_kernel.cuh"
#include "kernels/random/random_launch.hpp"
#include "src/core/check.hpp"
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

// One Sobol fill kernel. Each lane's groups are as few as fill the GPU's resident
// blocks over the dimensions (a dimension at least one block, whose first thread writes
// the edge groups), and no fewer than Policy::min_groups_per_lane to step over after
// its random access. Resident: the policy's blocks per multiprocessor, or fewer where
// the kernel's registers allow fewer (asked of the occupancy API once per kernel), so
// that no block waits for a second wave.
template <class Policy, bool Normal, class T, class Word>
void launch_sobol_kernel(const SobolFillArgs<T, Word>& args, int multiprocessor_count, StreamHandle stream) {
  constexpr auto kernel = sobol_fill_kernel<Policy, Normal, T, Word>;
  const char* name = "sobol_fill_kernel";
  static const int resident_per_multiprocessor =
      resident_blocks_per_multiprocessor(kernel, Policy::block_threads, Policy::blocks_per_multiprocessor);
  const std::int64_t dimensions = args.n / args.points;
  const std::int64_t groups = args.whole_groups();
  const std::int64_t resident = std::int64_t{multiprocessor_count} * resident_per_multiprocessor;
  const std::int64_t dimension_blocks = std::max<std::int64_t>(resident / dimensions, 1);
  const std::int64_t block_span = std::int64_t{Policy::block_threads} * dimension_blocks;
  const std::int64_t groups_per_lane = std::max((groups + block_span - 1) / block_span, Policy::min_groups_per_lane);
  const std::int64_t block_groups = std::int64_t{Policy::block_threads} * groups_per_lane;
  const std::int64_t blocks = std::max<std::int64_t>((groups + block_groups - 1) / block_groups, 1);
  const LaunchConfig config{dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(dimensions)),
                            dim3(Policy::block_threads), 0, stream};
  launch_kernel(kernel, name, config, args, groups_per_lane);
}

template <class T, class Word>
void launch_sobol_fill(const SobolFillArgs<T, Word>& args, int arch, int multiprocessor_count,
                       StreamHandle stream) {
  if (args.n == 0) return;
  SobolPolicies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    dispatch_normal(args.normal, [&](auto normal) {
      launch_sobol_kernel<Policy, decltype(normal)::value>(args, multiprocessor_count, stream);
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
