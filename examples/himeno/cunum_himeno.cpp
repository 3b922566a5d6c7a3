// cunum-himeno: the Himeno benchmark program on cunum, printing what the original C
// program prints (grid, loop count, gosa, MFLOPS by its 34-flop count) so that its
// figures read next to published ones.
//
//   cunum-himeno [--size XS|S|M|L|XL] [--iterations N] [--seconds S]
//                [--backend automatic|cpu|cuda] [--precision float|double]
//                [--sweeps-per-pass 0-4] [--help] [--version]
//
// --iterations N runs exactly N sweeps from the benchmark's initial fields and prints
// the gosa of the N-th: HimenoProblem::iterate(N) on a fresh problem. Without it the
// program does what the original's main() does: 3 rehearsal sweeps from the initial
// fields, then as many as fill --seconds (60 by default), continuing from the state
// the rehearsal left, and the gosa of the last. The one warm-up (first launches,
// thread pool) runs on a separate XS problem of the same backend, precision and sweeps
// a pass, so that it changes no answer. MFLOPS counts the interior points as the
// static C edition does ((nx-2)(ny-2)(nz-2) x 34 a sweep).
//
// The command line is parsed with CLI11: choices are case-insensitive, numbers are
// checked whole (decimal, in range, nothing after them). A bad command line exits 2
// with a message naming the option; an error of the library exits 1.

#include <CLI/CLI.hpp>

#include <charconv>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "cunum/core.hpp"
#include "cunum/himeno.hpp"
#include "cunum/version.hpp"

namespace {

// The original counts its loops in an int.
constexpr long long kMaxIterations = INT_MAX;
constexpr long long kMaxSweepsPerPass = 4;  // HimenoOptions::sweeps_per_pass: 0 is the library's choice
constexpr int kRehearsalSweeps = 3;         // the original's nn = 3

struct Arguments {
  cunum::HimenoSize size = cunum::HimenoSize::m;
  long long iterations = 0;  // 0: the original's rehearsal and timed run
  double seconds = 60.0;
  cunum::Backend backend = cunum::Backend::automatic;
  bool double_precision = false;
  int sweeps_per_pass = 0;
};

// A whole decimal integer in [low, high]: no sign but '-', no spaces, nothing after it.
bool parse_integer(const std::string& text, long long low, long long high, long long& value) {
  const char* const first = text.data();
  const char* const last = first + text.size();
  const auto [end, error] = std::from_chars(first, last, value);
  return error == std::errc() && end == last && value >= low && value <= high;
}

// A whole decimal number, finite and above zero.
bool parse_positive(const std::string& text, double& value) {
  const char* const first = text.data();
  const char* const last = first + text.size();
  const auto [end, error] = std::from_chars(first, last, value, std::chars_format::general);
  return error == std::errc() && end == last && std::isfinite(value) && value > 0.0;
}

CLI::Validator integer_in(long long low, long long high) {
  const std::string range = std::to_string(low) + " to " + std::to_string(high);
  return CLI::Validator(
      [low, high, range](std::string& text) {
        long long value = 0;
        if (parse_integer(text, low, high, value)) return std::string();
        return "'" + text + "' is not a whole number from " + range;
      },
      "");
}

CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& text) {
        double value = 0.0;
        return parse_positive(text, value) ? std::string() : "'" + text + "' is not a finite number above 0";
      },
      "");
}

template <class Enum, std::size_t n>
std::vector<std::string> names(const Enum (&values)[n]) {
  std::vector<std::string> result;
  for (const Enum value : values) result.emplace_back(to_string(value));
  return result;
}

// The value listed as `name`, which CLI::IsMember has checked and given its listed spelling.
template <class Enum, std::size_t n>
Enum value_named(const Enum (&values)[n], const std::string& name) {
  for (const Enum value : values) {
    if (name == to_string(value)) return value;
  }
  throw std::logic_error("cunum-himeno: no value is named '" + name + "'");
}

// Parses the command line into `arguments`; returns -1 to go on, or the exit status.
int parse(int argc, char** argv, Arguments& arguments) {
  CLI::App app("The Himeno benchmark (RIKEN, C edition 3.0) on cunum: point-Jacobi sweeps of the 19-point "
               "pressure-Poisson stencil. Prints what the original program prints: the grid, the loop count, "
               "gosa, MFLOPS by its 34-flop count and the Pentium III score.",
               "cunum-himeno");
  app.get_formatter()->column_width(40);
  app.set_version_flag("--version", std::string("cunum-himeno (cunum) ") + CUNUM_VERSION_STRING,
                       "Print the cunum version and exit");

  std::string size = to_string(arguments.size);
  std::string iterations;
  std::string seconds = "60";
  std::string backend = to_string(arguments.backend);
  std::string precision = "float";
  std::string sweeps_per_pass = "0";
  app.add_option("--size", size, "The grid: XS 32x32x64, S 64x64x128, M 128x128x256, L 256x256x512, XL 512x512x1024")
      ->type_name("SIZE")
      ->transform(CLI::IsMember(names(cunum::HimenoSizeValues::all), CLI::ignore_case))
      ->capture_default_str();
  CLI::Option* iterations_option =
      app.add_option("--iterations", iterations,
                     "Run exactly N sweeps (1 to 2147483647) from the initial fields and print the gosa of the "
                     "N-th (default: the original's 3 rehearsal sweeps, then as many as fill --seconds)")
          ->type_name("N")
          ->check(integer_in(1, kMaxIterations));
  app.add_option("--seconds", seconds, "Without --iterations: how long the measured sweeps should take, above 0")
      ->type_name("S")
      ->check(positive_number())
      ->capture_default_str()
      ->excludes(iterations_option);
  app.add_option("--backend", backend, "cuda, cpu (OpenMP), or automatic: CUDA when a GPU is visible, else the CPU")
      ->type_name("BACKEND")
      ->transform(CLI::IsMember(names(cunum::BackendValues::all), CLI::ignore_case))
      ->capture_default_str();
  app.add_option("--precision", precision, "The floating-point type of the fields")
      ->type_name("TYPE")
      ->transform(CLI::IsMember({"float", "double"}, CLI::ignore_case))
      ->capture_default_str();
  app.add_option("--sweeps-per-pass", sweeps_per_pass,
                 "CUDA backend: sweeps per pass over memory, 1 to 4, or 0 for the fastest measured")
      ->type_name("K")
      ->check(integer_in(0, kMaxSweepsPerPass))
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int status = app.exit(error);  // prints the help, the version or the error
    return status == 0 ? 0 : 2;
  }
  // Every value has passed its check above; these conversions cannot fail.
  arguments.size = value_named(cunum::HimenoSizeValues::all, size);
  arguments.backend = value_named(cunum::BackendValues::all, backend);
  arguments.double_precision = precision == "double";
  if (!iterations.empty()) parse_integer(iterations, 1, kMaxIterations, arguments.iterations);
  parse_positive(seconds, arguments.seconds);
  long long sweeps = 0;
  parse_integer(sweeps_per_pass, 0, kMaxSweepsPerPass, sweeps);
  arguments.sweeps_per_pass = static_cast<int>(sweeps);
  return -1;
}

// The measured loop count that fills `seconds` at the rehearsal's rate, as the
// original's nn = (int)(target / (cpu / 3.0)), kept within 1..INT_MAX.
long long sweeps_to_fill(double seconds, double rehearsal_seconds) {
  const double per_sweep = rehearsal_seconds / kRehearsalSweeps;
  const double sweeps = per_sweep > 0.0 ? seconds / per_sweep : static_cast<double>(kMaxIterations);
  if (!(sweeps >= 1.0)) return 1;
  if (sweeps >= static_cast<double>(kMaxIterations)) return kMaxIterations;
  return static_cast<long long>(sweeps);
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
  {
    // Wake up the backend on a problem of its own: `problem` stays at the initial fields.
    cunum::HimenoProblem<T> warm_up(cunum::himeno_grid(cunum::HimenoSize::xs), options, problem.backend());
    warm_up.iterate(1);
  }
  const auto timed = [&](long long sweeps, double& gosa) {
    const auto start = std::chrono::steady_clock::now();
    gosa = problem.iterate(sweeps);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  double gosa = 0.0;
  long long sweeps = arguments.iterations;
  if (sweeps == 0) {
    std::printf(" Start rehearsal measurement process.\n Measure the performance in %d times.\n\n", kRehearsalSweeps);
    const double rehearsal = timed(kRehearsalSweeps, gosa);
    std::printf(" MFLOPS: %f time(s): %f %e\n\n", cunum::himeno_flops(grid, kRehearsalSweeps) / rehearsal * 1e-6,
                rehearsal, gosa);
    sweeps = sweeps_to_fill(arguments.seconds, rehearsal);
    std::printf(" Now, start the actual measurement process.\n The loop will be excuted in %lld times\n", sweeps);
  }
  // With --iterations, from the initial fields; else from where the rehearsal left them.
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
  Arguments arguments;
  const int status = parse(argc, argv, arguments);
  if (status >= 0) return status;
  try {
    return arguments.double_precision ? run<double>(arguments) : run<float>(arguments);
  } catch (const cunum::Error& error) {
    std::fprintf(stderr, "cunum-himeno: %s\n", error.what());
    return 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "cunum-himeno: %s\n", error.what());
    return 1;
  }
}
