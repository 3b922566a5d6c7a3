#pragma once
// Internal: the Himeno launchers' definitions (declared in himeno_launch.hpp). The
// sweep's are templates on the policy chain: kernels/himeno/himeno.cu instantiates
// them with the library's chains, and the bench's tuning sweep with others. Each picks
// the policy for `arch`, computes the grid, and launches through launch_kernel.

#include <algorithm>
#include <cstdint>

#include "kernels/common/launch.cuh"
#include "kernels/himeno/himeno_fill_kernel.cuh"
#include "kernels/himeno/himeno_launch.hpp"
#include "kernels/himeno/himeno_sweep_kernel.cuh"
#include "src/core/kernel_report.hpp"
#include "src/core/launch_shape.hpp"
#include "src/himeno/himeno_policy.hpp"

namespace cunum::detail {

template <class T>
void launch_himeno_fill(int arch, int multiprocessor_count, const HimenoBox& box, std::int64_t stride, T* fields,
                        StreamHandle stream) {
  HimenoFillPolicies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const std::int64_t blocks = resident_blocks(box.points(), Policy::block_threads,
                                                Policy::blocks_per_multiprocessor, multiprocessor_count);
    launch_kernel(himeno_fill_kernel<Policy, T>, "himeno_fill_kernel",
                  LaunchConfig{grid_1d(blocks, "himeno_fill_kernel"), dim3(Policy::block_threads), 0, stream}, box,
                  stride, fields);
  });
}

template <class T>
void launch_himeno_group_coefficient(int arch, int multiprocessor_count, std::int64_t points, std::int64_t stride,
                                     int index, const T* values, T* fields, StreamHandle stream) {
  HimenoFillPolicies::dispatch(arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const std::int64_t blocks =
        resident_blocks(points, Policy::block_threads, Policy::blocks_per_multiprocessor, multiprocessor_count);
    launch_kernel(himeno_group_coefficient_kernel<Policy, T>, "himeno_group_coefficient_kernel",
                  LaunchConfig{grid_1d(blocks, "himeno_group_coefficient_kernel"), dim3(Policy::block_threads), 0,
                               stream},
                  points, stride, index, values, fields);
  });
}

template <class Policies, class T>
std::int64_t himeno_sweep_resident_blocks(int arch, int sweeps, int multiprocessor_count) {
  return Policies::dispatch(arch, [&](auto tag) {
    using Set = typename decltype(tag)::type;
    return Set::with(sweeps, [&](auto policy) {
      using Policy = decltype(policy);
      KernelReport report;
      LaunchConfig config{dim3(1), dim3(Policy::block_threads), Policy::template shared_bytes<T>(), nullptr};
      config.describe = &report;
      launch_kernel(himeno_sweep_kernel<Policy, T>, "himeno_sweep_kernel", config, HimenoSweepArgs<T>{});
      return std::int64_t{std::max(report.blocks_per_multiprocessor, 1)} * multiprocessor_count;
    });
  });
}

template <class Policies, class T>
void launch_himeno_sweep(int arch, int sweeps, HimenoSweepArgs<T> args, std::int64_t resident, StreamHandle stream) {
  Policies::dispatch(arch, [&](auto tag) {
    using Set = typename decltype(tag)::type;
    Set::with(sweeps, [&](auto policy) {
      using Policy = decltype(policy);
      const HimenoLaunchShape shape = himeno_launch_shape<Policy>(args.ny, args.nz, args.begin, args.end, resident);
      args.chunk_planes = shape.chunk_planes;
      args.tiles_j = shape.tiles_j;
      args.tiles_k = shape.tiles_k;
      const LaunchConfig config{grid_1d(shape.blocks, "himeno_sweep_kernel"), dim3(Policy::block_threads),
                                Policy::template shared_bytes<T>(), stream};
      launch_kernel(himeno_sweep_kernel<Policy, T>, "himeno_sweep_kernel", config, args);
    });
  });
}

}  // namespace cunum::detail
