// cunum-test-himeno-program-reference SIZE PRECISION N...: for each N, the gosa of
// HimenoProblem<T>::iterate(N) on a fresh CPU-backend problem at the benchmark's
// fields, one line each, printed with "%e" as cunum-himeno prints its "Gosa :" line.
// himeno_program_test.cmake compares the two (the cunum-himeno-program-gosa-* tests).

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "cunum/himeno.hpp"

namespace {

template <class T>
double gosa_after(cunum::HimenoSize size, std::int64_t sweeps) {
  cunum::HimenoProblem<T> problem(cunum::himeno_grid(size), cunum::HimenoOptions{}, cunum::Backend::cpu);
  return problem.iterate(sweeps);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s XS|S|M|L|XL float|double N...\n", argv[0]);
    return 2;
  }
  bool found = false;
  cunum::HimenoSize size = cunum::HimenoSize::xs;
  for (const cunum::HimenoSize value : cunum::HimenoSizeValues::all) {
    if (std::strcmp(argv[1], to_string(value)) == 0) {
      size = value;
      found = true;
    }
  }
  const std::string precision = argv[2];
  if (!found || (precision != "float" && precision != "double")) {
    std::fprintf(stderr, "%s: bad size '%s' or precision '%s'\n", argv[0], argv[1], argv[2]);
    return 2;
  }
  try {
    for (int a = 3; a < argc; ++a) {
      std::int64_t sweeps = 0;
      const char* const last = argv[a] + std::strlen(argv[a]);
      const auto [end, error] = std::from_chars(argv[a], last, sweeps);
      if (error != std::errc() || end != last || sweeps < 1) {
        std::fprintf(stderr, "%s: bad sweep count '%s'\n", argv[0], argv[a]);
        return 2;
      }
      std::printf("%e\n", precision == "double" ? gosa_after<double>(size, sweeps) : gosa_after<float>(size, sweeps));
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", argv[0], error.what());
    return 1;
  }
  return 0;
}
