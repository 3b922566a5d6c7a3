// A bench's command line (bench_command_line.hpp), in a unit of its own so that the
// fuzzer fuzz/bench_command_line_fuzz.cpp calls the same code.

#include "bench_command_line.hpp"

#include <iostream>

namespace cunum::bench {

BenchCommandLine::BenchCommandLine(const std::string& program, const std::string& summary, BenchOptionSet set)
    : command_line_(program, summary) {
  CLI::App& app = command_line_.app();
  app.add_flag("--quick", options_.quick, "Fewer sizes and runs (CI smoke)");
  if (set == BenchOptionSet::sections) {
    programs::add_integer(app, "--reps", reps_, 1, 100000,
                          "Timed runs per case, the median reported (default 25, with --quick 5)")
        ->default_str("");
  }
  app.add_option("--json", options_.json_path, "Also write one JSON object per row to FILE")->type_name("FILE");
  if (set == BenchOptionSet::sections) {
    app.add_option("--filter", options_.filter, "Run only the sections whose title contains TEXT, in any case")
        ->type_name("TEXT");
  }
}

int BenchCommandLine::parse_options(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  const int status = command_line_.parse(argc, argv, out, err);
  if (status >= 0) return status;
  if (options_.quick) {
    options_.warmup_runs = 1;
    options_.timed_runs = 5;
  }
  if (reps_ > 0) options_.timed_runs = reps_;
  return -1;
}

int BenchCommandLine::parse(int argc, char** argv) {
  const int status = parse_options(argc, argv, std::cout, std::cerr);
  if (status >= 0) return status;
  return programs::start_json_option(options_.json_path);
}

}  // namespace cunum::bench
