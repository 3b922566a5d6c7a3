// cunum-himeno's command line, on programs/command_line.hpp (CLI11): choices are
// case-insensitive, numbers are checked whole (decimal, no leading zero on an integer, in
// range, nothing after them).

#include "himeno_command_line.hpp"

#include "programs/command_line.hpp"

namespace cunum_himeno {

int parse_command_line(int argc, const char* const* argv, Arguments& arguments, std::ostream& out,
                       std::ostream& err) {
  using namespace cunum::programs;
  CommandLine command_line(
      "cunum-himeno",
      "The Himeno benchmark (RIKEN, C edition 3.0) on cunum: point-Jacobi sweeps of the 19-point pressure-Poisson "
      "stencil. Prints what the original program prints: the grid, the loop count, gosa, MFLOPS by its 34-flop "
      "count and the Pentium III score; on stderr, a line about every 5 seconds of the measured run.");
  CLI::App& app = command_line.app();
  add_choice(app, "--size", arguments.size, named_values(cunum::HimenoSizeValues::all),
             "The grid: XS 32x32x64, S 64x64x128, M 128x128x256, L 256x256x512, XL 512x512x1024")
      ->type_name("SIZE");
  CLI::Option* iterations =
      add_integer(app, "--iterations", arguments.iterations, 1, kMaxIterations,
                  "Run exactly N sweeps (1 to 2147483647) from the initial fields and print the gosa of the N-th "
                  "(default: the original's 3 rehearsal sweeps, then as many as fill --seconds)")
          ->default_str("");
  add_number_above(app, "--seconds", arguments.seconds, 0.0,
                   "Without --iterations: how long the measured sweeps should take, above 0")
      ->type_name("S")
      ->excludes(iterations);
  add_choice(app, "--backend", arguments.backend, named_values(cunum::BackendValues::all),
             "cuda, cpu (OpenMP), or automatic: CUDA when a GPU is visible, else the CPU")
      ->type_name("BACKEND");
  add_choice(app, "--precision", arguments.double_precision, {{"float", false}, {"double", true}},
             "The floating-point type of the fields")
      ->type_name("TYPE");
  add_integer(app, "--sweeps-per-pass", arguments.sweeps_per_pass, 0, kMaxSweepsPerPass,
              "CUDA backend: sweeps per pass over memory, 1 to 4, or 0 for the fastest measured")
      ->type_name("K");
  app.add_option("--json", arguments.json_path, "Also write the result to FILE as one JSON object")->type_name("FILE");
  CLI::Option* quiet = app.add_flag("--quiet", arguments.quiet, "No progress lines on stderr");
  add_number_above(app, "--progress-interval", arguments.progress_interval, 0.0,
                   "Seconds between progress lines on stderr, above 0")
      ->type_name("S")
      ->excludes(quiet);
  return command_line.parse(argc, argv, out, err);
}

}  // namespace cunum_himeno
