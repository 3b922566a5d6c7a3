// cunum-himeno: the Himeno benchmark program on cunum, printing what the original C
// program prints (grid, loop count, gosa, MFLOPS by its 34-flop count) so that its
// figures read next to published ones.
//
//   cunum-himeno [--size XS|S|M|L|XL] [--iterations N] [--seconds S]
//                [--backend automatic|cpu|cuda] [--precision float|double]
//                [--sweeps-per-pass 0-4] [--json FILE] [--quiet] [--progress-interval S]
//                [--help] [--version]
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
// The measured sweeps run in rounds (iterate() called once a round, each round a
// second or so once the rate is known), so that a line on stderr says how far the run
// is about every --progress-interval seconds (5); --quiet prints none. The pressure
// and gosa are those of one iterate() call of all the sweeps: each sweep's arithmetic
// is the same however they are grouped. --json FILE also writes the result as one
// JSON object.
//
// The command line is parsed as every cunum program's (programs/command_line.hpp), in
// himeno_command_line.cpp: choices are case-insensitive, numbers are checked whole
// (decimal, no leading zero on an integer, in range, nothing after them). A bad command line, or a --json file that
// cannot be written, exits 2 with a message naming the option; an error of the library
// exits 1.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <exception>
#include <iostream>
#include <string>

#include "cunum/core.hpp"
#include "cunum/himeno.hpp"
#include "himeno_command_line.hpp"
#include "programs/json_row.hpp"

namespace {

using cunum_himeno::Arguments;
using cunum_himeno::kMaxIterations;

constexpr int kRehearsalSweeps = 3;  // the original's nn = 3

// The measured loop count that fills `seconds` at the rehearsal's rate, as the
// original's nn = (int)(target / (cpu / 3.0)), kept within 1..INT_MAX.
long long sweeps_to_fill(double seconds, double rehearsal_seconds) {
  const double per_sweep = rehearsal_seconds / kRehearsalSweeps;
  const double sweeps = per_sweep > 0.0 ? seconds / per_sweep : static_cast<double>(kMaxIterations);
  if (!(sweeps >= 1.0)) return 1;
  if (sweeps >= static_cast<double>(kMaxIterations)) return kMaxIterations;
  return static_cast<long long>(sweeps);
}

// Runs `sweeps` sweeps of `problem` in rounds, timed from the first to the last, and
// returns the seconds; `gosa` is the last sweep's. The first round is one sweep; each
// next one lasts about kRoundSeconds (or a fifth of the progress interval, if shorter)
// at the rate so far. Unless quiet, a line on stderr says how far the run is whenever
// progress_interval seconds have passed since the last one.
template <class T>
double measured_run(cunum::HimenoProblem<T>& problem, long long sweeps, const Arguments& arguments, double& gosa) {
  using Clock = std::chrono::steady_clock;
  constexpr double kRoundSeconds = 1.0;
  const double round_seconds = std::min(kRoundSeconds, arguments.progress_interval / 5);
  const auto start = Clock::now();
  auto last_line = start;
  double elapsed = 0.0;
  long long round = 1;
  for (long long done = 0; done < sweeps;) {
    const long long this_round = std::min(round, sweeps - done);
    gosa = problem.iterate(this_round);
    done += this_round;
    const auto now = Clock::now();
    elapsed = std::chrono::duration<double>(now - start).count();
    const double per_second = elapsed > 0.0 ? static_cast<double>(done) / elapsed : 1e9;
    round = std::max(1LL, static_cast<long long>(std::min(per_second * round_seconds, double(kMaxIterations))));
    if (!arguments.quiet && done < sweeps &&
        std::chrono::duration<double>(now - last_line).count() >= arguments.progress_interval) {
      std::fprintf(stderr, "cunum-himeno: %lld of %lld sweeps (%.0f%%), %.1f s, about %.0f s left, gosa %e\n", done,
                   sweeps, 100.0 * static_cast<double>(done) / static_cast<double>(sweeps), elapsed,
                   static_cast<double>(sweeps - done) / per_second, gosa);
      std::fflush(stderr);
      last_line = now;
    }
  }
  return elapsed;
}

std::string now_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &utc);
  return text;
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
  double gosa = 0.0;
  long long sweeps = arguments.iterations;
  if (sweeps == 0) {
    std::printf(" Start rehearsal measurement process.\n Measure the performance in %d times.\n\n", kRehearsalSweeps);
    const auto start = std::chrono::steady_clock::now();
    gosa = problem.iterate(kRehearsalSweeps);
    const double rehearsal = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(" MFLOPS: %f time(s): %f %e\n\n", cunum::himeno_flops(grid, kRehearsalSweeps) / rehearsal * 1e-6,
                rehearsal, gosa);
    sweeps = sweeps_to_fill(arguments.seconds, rehearsal);
    std::printf(" Now, start the actual measurement process.\n The loop will be excuted in %lld times\n", sweeps);
    std::fflush(stdout);
  }
  // With --iterations, from the initial fields; else from where the rehearsal left them.
  const double seconds = measured_run(problem, sweeps, arguments, gosa);
  const double mflops = cunum::himeno_flops(grid, sweeps) / seconds * 1e-6;
  const double score = mflops / 82.84;
  std::printf(" Loop executed for %lld times\n", sweeps);
  std::printf(" Gosa : %e \n", gosa);
  std::printf(" MFLOPS measured : %f\tcpu : %f\n", mflops, seconds);
  std::printf(" Score based on Pentium III 600MHz using Fortran 77: %f\n", score);
  if (!arguments.json_path.empty()) {
    cunum::programs::JsonRow result;
    result.text("program", "cunum-himeno")
        .text("cunum_version", CUNUM_VERSION_STRING)
        .text("size", to_string(arguments.size))
        .integer("nx", grid.nx)
        .integer("ny", grid.ny)
        .integer("nz", grid.nz)
        .text("backend", to_string(problem.backend()))
        .text("device", problem.backend() == cunum::Backend::cuda ? cunum::device_properties().name : "host CPU")
        .text("precision", sizeof(T) == 4 ? "float" : "double")
        .integer("sweeps_per_pass", problem.sweeps_per_pass())
        .integer("sweeps", sweeps)
        .number("gosa", gosa)
        .number("seconds", seconds)
        .number("mflops", mflops)
        .number("score", score)
        .text("date", now_utc());
    cunum::programs::append_json_row(arguments.json_path, result);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Arguments arguments;
  const int status = cunum_himeno::parse_command_line(argc, argv, arguments, std::cout, std::cerr);
  if (status >= 0) return status;
  const int json_status = cunum::programs::start_json_option(arguments.json_path);
  if (json_status >= 0) return json_status;
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
