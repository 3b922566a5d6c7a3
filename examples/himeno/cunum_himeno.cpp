// cunum-himeno: the Himeno benchmark program on cunum, printing what the original C
// program prints (grid, loop count, gosa, MFLOPS by its 34-flop count) so that its
// figures read next to published ones.
//
//   cunum-himeno [--size XS|S|M|L|XL] [--iterations N] [--seconds S]
//                [--backend cuda|cpu] [--precision float|double] [--sweeps-per-pass 0-4]
//
// Without --iterations it does what the original does: 3 rehearsal sweeps, then as
// many as fill --seconds (60 by default). MFLOPS counts the interior points as the
// static C edition does ((nx-2)(ny-2)(nz-2) x 34 a sweep).

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cunum/core.hpp"
#include "cunum/himeno.hpp"

namespace {

struct Arguments {
  cunum::HimenoSize size = cunum::HimenoSize::m;
  long long iterations = 0;
  double seconds = 60.0;
  cunum::Backend backend = cunum::Backend::automatic;
  bool double_precision = false;
  int sweeps_per_pass = 0;  // HimenoOptions: 0 is the library's choice
};

[[noreturn]] void usage(const char* problem) {
  std::fprintf(stderr,
               "cunum-himeno: %s\nusage: cunum-himeno [--size XS|S|M|L|XL] [--iterations N] [--seconds S] "
               "[--backend cuda|cpu] [--precision float|double] [--sweeps-per-pass 0-4]\n",
               problem);
  std::exit(2);
}

Arguments parse(int argc, char** argv) {
  Arguments arguments;
  for (int a = 1; a < argc; ++a) {
    const std::string flag = argv[a];
    if (a + 1 >= argc) usage(("missing the value of " + flag).c_str());
    const std::string value = argv[++a];
    if (flag == "--size") {
      bool found = false;
      for (const cunum::HimenoSize size : cunum::HimenoSizeValues::all) {
        if (value == to_string(size)) {
          arguments.size = size;
          found = true;
        }
      }
      if (!found) usage(("unknown size " + value).c_str());
    } else if (flag == "--iterations") {
      arguments.iterations = std::atoll(value.c_str());
      if (arguments.iterations < 1) usage("--iterations must be >= 1");
    } else if (flag == "--seconds") {
      arguments.seconds = std::atof(value.c_str());
    } else if (flag == "--backend") {
      if (value != "cuda" && value != "cpu") usage("--backend is cuda or cpu");
      arguments.backend = value == "cuda" ? cunum::Backend::cuda : cunum::Backend::cpu;
    } else if (flag == "--precision") {
      if (value != "float" && value != "double") usage("--precision is float or double");
      arguments.double_precision = value == "double";
    } else if (flag == "--sweeps-per-pass") {
      arguments.sweeps_per_pass = std::atoi(value.c_str());
    } else {
      usage(("unknown flag " + flag).c_str());
    }
  }
  return arguments;
}

template <class T>
int run(const Arguments& arguments) {
  const cunum::HimenoGrid grid = cunum::himeno_grid(arguments.size);
  std::printf("mimax = %lld mjmax = %lld mkmax = %lld\n", static_cast<long long>(grid.nx),
              static_cast<long long>(grid.ny), static_cast<long long>(grid.nz));
  std::printf("imax = %lld jmax = %lld kmax =%lld\n", static_cast<long long>(grid.nx - 1),
              static_cast<long long>(grid.ny - 1), static_cast<long long>(grid.nz - 1));
  cunum::HimenoOptions options;
  options.sweeps_per_pass = arguments.sweeps_per_pass;
  cunum::HimenoProblem<T> problem(grid, options, arguments.backend);
  std::printf(" %s backend, %s, %d sweeps a pass\n", to_string(problem.backend()),
              sizeof(T) == 4 ? "float" : "double", problem.sweeps_per_pass());
  problem.iterate(1);  // wake up
  const auto timed = [&](long long sweeps, double& gosa) {
    const auto start = std::chrono::steady_clock::now();
    gosa = problem.iterate(sweeps);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  double gosa = 0.0;
  long long sweeps = arguments.iterations;
  if (sweeps == 0) {
    const double rehearsal = timed(3, gosa);
    std::printf(" MFLOPS: %f time(s): %f %e\n\n", cunum::himeno_flops(grid, 3) / rehearsal * 1e-6, rehearsal, gosa);
    sweeps = static_cast<long long>(arguments.seconds / (rehearsal / 3.0));
    if (sweeps < 1) sweeps = 1;
    std::printf(" Now, start the actual measurement process.\n The loop will be excuted in %lld times\n", sweeps);
  }
  const double seconds = timed(sweeps, gosa);
  const double mflops = cunum::himeno_flops(grid, sweeps) / seconds * 1e-6;
  std::printf(" Loop executed for %lld times\n", sweeps);
  std::printf(" Gosa : %e \n", gosa);
  std::printf(" MFLOPS measured : %f\tcpu : %f\n", mflops, seconds);
  std::printf(" Score based on Pentium III 600MHz using Fortran 77: %f\n", mflops / 82.84);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Arguments arguments = parse(argc, argv);
  try {
    return arguments.double_precision ? run<double>(arguments) : run<float>(arguments);
  } catch (const cunum::Error& error) {
    std::fprintf(stderr, "cunum-himeno: %s\n", error.what());
    return 1;
  }
}
