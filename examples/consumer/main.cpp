// Compiled by the host compiler alone: cunum's headers need no CUDA header.
#include <cstdio>
#include <vector>

#include "cunum/core.hpp"
#include "cunum/reduce.hpp"

int main() {
  const std::vector<double> values = {1.0, 2.0, 3.0, 4.0};
  const double sum = cunum::reduce(cunum::ReduceOp::sum, values);
  // The installed-package test reads the version line back and compares it with the project's.
  std::printf("cunum %s (CUNUM_VERSION %d)\n", CUNUM_VERSION_STRING, CUNUM_VERSION);
  std::printf("cunum consumer: sum = %g on the %s backend\n", sum,
              cunum::to_string(cunum::resolve_backend(cunum::Backend::automatic)));
  return sum == 10.0 ? 0 : 1;
}
