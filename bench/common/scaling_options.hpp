#pragma once
// The command line of the scaling benches run under mpirun (cunum-bench-himeno-scaling,
// cunum-bench-monte-carlo-scaling): --quick and --help, parsed with CLI11 before MPI
// starts, so that --help and a bad argument need no MPI.

#include <CLI/CLI.hpp>

namespace cunum::bench {

// Parses --quick (described by `quick_help`) into `quick`; --help prints `description`
// and the options. Returns -1 to go on, else the exit status: 0 after --help, 2 after
// a bad argument (the error printed).
inline int parse_scaling_options(int argc, char** argv, const char* program, const char* description,
                                 const char* quick_help, bool& quick) {
  CLI::App app(description, program);
  app.add_flag("--quick", quick, quick_help);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int status = app.exit(error);  // prints the help or the error
    return status == 0 ? 0 : 2;
  }
  return -1;
}

}  // namespace cunum::bench
