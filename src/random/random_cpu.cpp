// The OpenMP backend of cunum::RandomGenerator: each generator's per-unit function
// (src/random/random_backends.hpp) over the threads.

#include "src/random/random_backends.hpp"

namespace cunum::detail {

namespace {

template <class T, bool Normal>
void philox_fill_cpu(const RandomFillArgs<T>& args) {
  const PhiloxFill<T, Normal> fill(args);
  const auto blocks = static_cast<std::int64_t>(fill.blocks());
#pragma omp parallel for schedule(static, 1024)
  for (std::int64_t block = 0; block < blocks; ++block) fill.fill_block(static_cast<std::uint64_t>(block));
}

}  // namespace

template <class T>
void random_fill_cpu(const RandomFillArgs<T>& args) {
  if (args.normal) {
    philox_fill_cpu<T, true>(args);
  } else {
    philox_fill_cpu<T, false>(args);
  }
}

template void random_fill_cpu<float>(const RandomFillArgs<float>&);
template void random_fill_cpu<double>(const RandomFillArgs<double>&);

template <class T>
void mrg_fill_cpu(const MrgFillArgs<T>& args) {
  const std::int64_t lanes = args.lanes();
#pragma omp parallel for schedule(static)
  for (std::int64_t lane = 0; lane < lanes; ++lane) fill_mrg_lane(args, lane);
}

template void mrg_fill_cpu<float>(const MrgFillArgs<float>&);
template void mrg_fill_cpu<double>(const MrgFillArgs<double>&);

template <class T, class Word>
void sobol_fill_cpu(const SobolFillArgs<T, Word>& args) {
#pragma omp parallel for schedule(static, 4096)
  for (std::int64_t index = 0; index < args.n; ++index) fill_sobol_value(args, index);
}

template void sobol_fill_cpu<float, std::uint32_t>(const SobolFillArgs<float, std::uint32_t>&);
template void sobol_fill_cpu<double, std::uint32_t>(const SobolFillArgs<double, std::uint32_t>&);
template void sobol_fill_cpu<float, std::uint64_t>(const SobolFillArgs<float, std::uint64_t>&);
template void sobol_fill_cpu<double, std::uint64_t>(const SobolFillArgs<double, std::uint64_t>&);

}  // namespace cunum::detail
