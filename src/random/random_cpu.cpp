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
  dispatch_normal(args.normal, [&](auto normal) { philox_fill_cpu<T, decltype(normal)::value>(args); });
}

template void random_fill_cpu<float>(const RandomFillArgs<float>&);
template void random_fill_cpu<double>(const RandomFillArgs<double>&);

namespace {

template <bool Normal, class T>
void mrg_fill_cpu(const MrgFillArgs<T>& args) {
  constexpr std::int64_t run = 256;  // lanes a task: one lane start from scratch, then steps
  const std::int64_t lanes = args.lanes();
  const std::int64_t runs = (lanes + run - 1) / run;
#pragma omp parallel for schedule(static)
  for (std::int64_t task = 0; task < runs; ++task) {
    const std::int64_t first = task * run, end = first + run < lanes ? first + run : lanes;
    device::Mrg32k3aState start = mrg_lane_start(args, first);
    for (std::int64_t thread = first; thread < end; ++thread) {
      fill_mrg_lane<Normal>(args, thread, start);
      if (thread + 1 < end) mrg_next_lane_start(args, thread, start);
    }
  }
}

}  // namespace

template <class T>
void mrg_fill_cpu(const MrgFillArgs<T>& args) {
  dispatch_normal(args.normal, [&](auto normal) { mrg_fill_cpu<decltype(normal)::value>(args); });
}

template void mrg_fill_cpu<float>(const MrgFillArgs<float>&);
template void mrg_fill_cpu<double>(const MrgFillArgs<double>&);

namespace {

template <bool Normal, class T, class Word>
void sobol_fill_cpu(const SobolFillArgs<T, Word>& args) {
  constexpr std::int64_t run = 4096;  // points a task: one random access, then steps
  constexpr std::int64_t table_words = sizeof(Word) * 8 + 1;
  const std::int64_t runs = (args.points + run - 1) / run;
  const std::int64_t tasks = args.n / args.points * runs;
#pragma omp parallel for schedule(static)
  for (std::int64_t task = 0; task < tasks; ++task) {
    const std::int64_t dimension = task / runs, first = task % runs * run;
    const std::int64_t end = first + run < args.points ? first + run : args.points;
    fill_sobol_points<Normal>(args, args.tables + dimension * table_words, dimension, first, end, 0);
  }
}

}  // namespace

template <class T, class Word>
void sobol_fill_cpu(const SobolFillArgs<T, Word>& args) {
  dispatch_normal(args.normal, [&](auto normal) { sobol_fill_cpu<decltype(normal)::value>(args); });
}

template void sobol_fill_cpu<float, std::uint32_t>(const SobolFillArgs<float, std::uint32_t>&);
template void sobol_fill_cpu<double, std::uint32_t>(const SobolFillArgs<double, std::uint32_t>&);
template void sobol_fill_cpu<float, std::uint64_t>(const SobolFillArgs<float, std::uint64_t>&);
template void sobol_fill_cpu<double, std::uint64_t>(const SobolFillArgs<double, std::uint64_t>&);

}  // namespace cunum::detail
