// The fused quasi-random bridge on the CPU backend: cuRAND's host generator writes
// the Sobol normals of a block of paths (dimension-major, which is the path-fastest
// Z layout of the block), and the OpenMP bridge turns them into the paths' output.
// Blocks bound the memory to block_paths x z_records x d values. The generator's
// offset is set once and the blocks follow on: cuRAND's host generator keeps only
// the low 32 bits of an offset (seen with cuRAND 13.0), although it runs on past
// 2^32 correctly.

#include <algorithm>
#include <vector>

#include "src/brownian_bridge/brownian_bridge_backends.hpp"
#include "src/random/random_internal.hpp"
#include "src/core/instantiate.hpp"

namespace cunum::detail {
namespace {

constexpr std::int64_t kBlockElements = std::int64_t{1} << 24;  // normals per block

}  // namespace

template <class T>
void bridge_generate_sobol_cpu(const BrownianBridge& bridge, bool increments, std::int64_t paths,
                               T* output, const SobolBridgeOptions& options) {
  const std::int64_t dimensions = bridge.z_records() * bridge.dimension();
  const std::int64_t block_paths = std::max<std::int64_t>(1, kBlockElements / dimensions);
  std::vector<T> z(static_cast<std::size_t>(std::min(paths, block_paths) * dimensions));
  CurandGenerator generator = sobol_generator(options.sequence, static_cast<unsigned>(dimensions), options.offset,
                                              nullptr, /*on_host=*/true);
  for (std::int64_t first = 0; first < paths; first += block_paths) {
    const std::int64_t count = std::min(block_paths, paths - first);
    generator.normals(z.data(), static_cast<std::size_t>(count * dimensions));
    bridge_generate_cpu<T>(bridge, increments, count,
                           {z.data(), BridgeLayout::path_fastest, count, 0},
                           {output, options.output_layout, paths, first});
  }
}

#define CUNUM_INSTANTIATE_BRIDGE_SOBOL_CPU(T) \
  template void bridge_generate_sobol_cpu(const BrownianBridge&, bool, std::int64_t, T*, const SobolBridgeOptions&);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_BRIDGE_SOBOL_CPU, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
