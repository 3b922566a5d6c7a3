// The Himeno launchers with the library's policy chains (himeno_launch.cuh). Built
// with -fmad=false (src/himeno/sources.cmake): the kernels evaluate the update as the
// serial C code writes it, so the pressure equals the CPU backend's bit for bit.

#include "kernels/himeno/himeno_launch.cuh"
#include "src/core/instantiate.hpp"

namespace cunum::detail {

#define CUNUM_INSTANTIATE_HIMENO_LAUNCHERS(T)                                                                   \
  template void launch_himeno_fill(int, int, const HimenoBox&, std::int64_t, T*, StreamHandle);               \
  template void launch_himeno_group_coefficient(int, int, std::int64_t, std::int64_t, int, const T*, T*,        \
                                                StreamHandle);                                                  \
  template std::int64_t himeno_sweep_resident_blocks<HimenoPolicies<T>, T>(int, int, int);                     \
  template void launch_himeno_sweep<HimenoPolicies<T>, T>(int, int, HimenoSweepArgs<T>, std::int64_t, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_HIMENO_LAUNCHERS, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
