#pragma once
// The command line of every bench, parsed as every cunum program's is
// (programs/command_line.hpp: --help, --version, numbers checked whole).

#include <ostream>
#include <string>

#include "bench_harness.hpp"
#include "programs/command_line.hpp"

namespace cunum::bench {

// The sets of options a bench's command line takes.
enum class BenchOptionSet {
  sections,  // a cunum-bench-<module> on this harness: --quick, --reps N, --json FILE, --filter TEXT
  scaling,   // a scaling bench run under mpirun: --quick, --json FILE
};

// A bench's command line (programs/command_line.hpp: --help, --version, numbers checked
// whole): the options of `set`, into options(). A bench with modes of its own (the
// profiling modes scripts run under Nsight Compute) adds them to app() before parse().
class BenchCommandLine {
 public:
  BenchCommandLine(const std::string& program, const std::string& summary,
                   BenchOptionSet set = BenchOptionSet::sections);
  CLI::App& app() noexcept { return command_line_.app(); }
  // Returns -1 to go on, else the exit status: 0 after --help or --version, 2 after a bad
  // command line or a --json file that cannot be written (said on stderr). Empties the
  // --json file, once: every row of the run is appended to it.
  int parse(int argc, char** argv);
  // parse() without the --json file: the options alone, the help or version printed on
  // `out` and a bad command line's error on `err`; writes nothing else (the fuzzer
  // fuzz/bench_command_line_fuzz.cpp calls it).
  int parse_options(int argc, const char* const* argv, std::ostream& out, std::ostream& err);
  const BenchOptions& options() const noexcept { return options_; }

 private:
  programs::CommandLine command_line_;
  BenchOptions options_;
  int reps_ = 0;  // --reps N; 0: the default of --quick or not
};

}  // namespace cunum::bench
