#pragma once
// cunum-himeno's command line: its options and their checks, on programs/command_line.hpp,
// apart from main() so that the fuzzer (fuzz/himeno_command_line_fuzz.cpp) calls the
// same code. Parsing writes nothing but its streams: main() opens the --json file.

#include <climits>
#include <ostream>
#include <string>

#include "cunum/core.hpp"
#include "cunum/himeno.hpp"

namespace cunum_himeno {

// The original counts its loops in an int.
constexpr long long kMaxIterations = INT_MAX;
constexpr int kMaxSweepsPerPass = 4;  // HimenoOptions::sweeps_per_pass: 0 is the library's choice

struct Arguments {
  cunum::HimenoSize size = cunum::HimenoSize::m;
  long long iterations = 0;  // 0: the original's rehearsal and timed run; else 1..kMaxIterations
  double seconds = 60.0;     // finite, above 0
  cunum::Backend backend = cunum::Backend::automatic;
  bool double_precision = false;
  int sweeps_per_pass = 0;          // 0..kMaxSweepsPerPass
  std::string json_path;            // --json FILE; empty: none
  bool quiet = false;               // no progress lines
  double progress_interval = 5.0;   // seconds between progress lines, finite, above 0
};

// Parses the command line into `arguments`. Returns -1 to go on, or the exit status:
// 0 after printing the help or the version to `out`, 2 after printing a bad command
// line's error, naming the option, to `err`. CLI11 reads argv[0] as the program name.
int parse_command_line(int argc, const char* const* argv, Arguments& arguments, std::ostream& out,
                       std::ostream& err);

}  // namespace cunum_himeno
