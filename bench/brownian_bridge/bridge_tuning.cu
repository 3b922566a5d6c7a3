#include "bridge_tuning.hpp"

#include "kernels/brownian_bridge/bridge_shared_kernel.cuh"
#include "kernels/brownian_bridge/bridge_sobol_kernel.cuh"

namespace cunum::bench {
namespace {

using detail::launch_bridge_shared_variant;
using detail::launch_bridge_sobol_variant;

// "4" or "5" (reuse), D, V paths per thread, P normals in flight, block threads,
// minimum resident blocks (a register cap).
template <class T, int D, int V, bool Reuse, int P, int Threads, int MinBlocks>
SharedKernelVariant<T> shared_variant() {
  std::string name = std::string(Reuse ? "5" : "4") + " D" + std::to_string(D) + " V" + std::to_string(V) + " P" +
                     std::to_string(P) + " t" + std::to_string(Threads);
  if (MinBlocks > 1) name += " min" + std::to_string(MinBlocks);
  return {name, &launch_bridge_shared_variant<T, D, V, Reuse, P, Threads, MinBlocks>};
}

template <class T, int V, int Threads, int MinBlocks>
SobolKernelVariant<T> sobol_variant() {
  std::string name = "sobol32 D1 V" + std::to_string(V) + " t" + std::to_string(Threads);
  if (MinBlocks > 1) name += " min" + std::to_string(MinBlocks);
  return {name, &launch_bridge_sobol_variant<T, 1, V, unsigned int, Threads, MinBlocks>};
}

// The first variant of each list is the library's policy
// (src/brownian_bridge/brownian_bridge_policy.hpp): P 2 with vector I/O, 128 threads,
// no minimum of resident blocks; V 4 paths per thread for Sobol.
using SharedPolicy = detail::BridgeSharedPolicies::newest;
using SobolPolicy = detail::BridgeSobolPolicies::newest;
static_assert(SharedPolicy::block_threads == 128 && SharedPolicy::blocks_per_multiprocessor == 1 &&
                  SharedPolicy::vector_prefetch_depth == 2,
              "the first shared variant of each list below must be the library's policy");
static_assert(SobolPolicy::block_threads == 128 && SobolPolicy::blocks_per_multiprocessor == 1 &&
                  SobolPolicy::paths_per_thread == 4,
              "the first Sobol variant of each list below must be the library's policy");

}  // namespace

// The first variant of each list is the library's policy; the others vary one knob.
template <>
std::vector<SharedKernelVariant<float>> shared_kernel_variants<float>(int dimension) {
  if (dimension == 3) {
    return {shared_variant<float, 3, 2, false, 2, 128, 1>(), shared_variant<float, 3, 2, false, 1, 128, 1>(),
            shared_variant<float, 3, 2, false, 4, 128, 1>(), shared_variant<float, 3, 2, false, 2, 128, 6>(),
            shared_variant<float, 3, 2, false, 2, 64, 1>(),  shared_variant<float, 3, 1, false, 2, 128, 1>(),
            shared_variant<float, 3, 2, true, 2, 128, 1>()};
  }
  return {shared_variant<float, 1, 4, false, 2, 128, 1>(), shared_variant<float, 1, 4, false, 1, 128, 1>(),
          shared_variant<float, 1, 4, false, 4, 128, 1>(), shared_variant<float, 1, 4, false, 2, 128, 9>(),
          shared_variant<float, 1, 4, false, 2, 256, 1>(), shared_variant<float, 1, 4, false, 2, 64, 1>(),
          shared_variant<float, 1, 4, true, 2, 128, 1>(),  shared_variant<float, 1, 4, true, 1, 128, 1>()};
}

template <>
std::vector<SharedKernelVariant<double>> shared_kernel_variants<double>(int dimension) {
  if (dimension == 3) {
    return {shared_variant<double, 3, 2, false, 2, 128, 1>(), shared_variant<double, 3, 2, false, 1, 128, 1>(),
            shared_variant<double, 3, 2, false, 2, 128, 5>(), shared_variant<double, 3, 1, false, 2, 128, 1>(),
            shared_variant<double, 3, 2, true, 2, 128, 1>()};
  }
  return {shared_variant<double, 1, 2, false, 2, 128, 1>(), shared_variant<double, 1, 2, false, 1, 128, 1>(),
          shared_variant<double, 1, 2, false, 4, 128, 1>(), shared_variant<double, 1, 2, false, 2, 128, 9>(),
          shared_variant<double, 1, 2, false, 2, 64, 1>(),  shared_variant<double, 1, 2, true, 2, 128, 1>(),
          shared_variant<double, 1, 2, true, 1, 128, 1>()};
}

template <>
std::vector<SobolKernelVariant<float>> sobol_kernel_variants<float>() {
  return {sobol_variant<float, 4, 128, 1>(), sobol_variant<float, 4, 64, 1>(), sobol_variant<float, 2, 128, 1>(),
          sobol_variant<float, 2, 64, 1>(),  sobol_variant<float, 8, 64, 1>(), sobol_variant<float, 4, 128, 5>()};
}

template <>
std::vector<SobolKernelVariant<double>> sobol_kernel_variants<double>() {
  return {sobol_variant<double, 4, 128, 1>(), sobol_variant<double, 2, 128, 1>(), sobol_variant<double, 2, 64, 1>(),
          sobol_variant<double, 1, 128, 1>(), sobol_variant<double, 4, 64, 1>()};
}

}  // namespace cunum::bench
