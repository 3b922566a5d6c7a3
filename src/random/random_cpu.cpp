// The OpenMP backend of cunum::RandomGenerator.

#include "src/random/random_backends.hpp"

namespace cunum::detail {

template <class T>
void random_fill_cpu(const RandomFillArgs<T>& args) {
  const std::uint64_t first = args.first_block();
  const auto blocks = static_cast<std::int64_t>(args.end_block() - first);
#pragma omp parallel for schedule(static, 1024)
  for (std::int64_t block = 0; block < blocks; ++block) fill_block(args, first + static_cast<std::uint64_t>(block));
}

template void random_fill_cpu<float>(const RandomFillArgs<float>&);
template void random_fill_cpu<double>(const RandomFillArgs<double>&);

}  // namespace cunum::detail
