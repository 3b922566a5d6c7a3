// Fuzzes the benches' command line (bench/common/bench_command_line.cpp: BenchCommandLine
// on programs/command_line.hpp, CLI11) with both of its option sets: a cunum-bench-<m>'s
// (--quick, --reps N, --json FILE, --filter TEXT) and a scaling bench's (--quick, --json
// FILE). The input is split at NUL bytes into arguments after the program name; each
// command line is parsed with both sets. parse_options() opens no file: --json is only
// read.
//
// Invariants, beyond "no crash" (an exception other than CLI11's parse errors
// escaping the parser is one):
// - the parser returns -1 (go on), 0 (the help or version printed on `out`, nothing on
//   `err`) or 2 (an error printed on `err`, nothing on `out`);
// - the help names the program, its summary and every option of its set;
// - what it accepts: --quick set only when some argument is a --quick flag, and by plain
//   ones; timed runs the --reps given (1 to 100000) or 25, 5 with --quick; warm-up runs 3,
//   1 with --quick; --json and --filter empty or read from some argument (or the part
//   after '='); the scaling set's timed runs and filter are never read from an argument
//   (a word starting with --reps can still be --json's value: CLI11 gives an option the
//   value it needs, whatever it looks like);
// - parsing the same command line again gives the same result.

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "bench/common/bench_command_line.hpp"
#include "fuzz/command_line_fuzz.hpp"

namespace {

using cunum::bench::BenchOptions;
using cunum::bench::BenchOptionSet;
using cunum::fuzz::check;

constexpr const char* kProgram = "cunum-bench-fuzzed";
constexpr const char* kSummary = "A bench's summary.";

struct Parsed {
  cunum::fuzz::ParserOutput output;
  BenchOptions options;
};

Parsed parse(const std::vector<std::string>& words, BenchOptionSet set) {
  cunum::bench::BenchCommandLine command_line(kProgram, kSummary, set);
  Parsed parsed;
  parsed.output = cunum::fuzz::run_parser(
      kProgram, words, [&](int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
        return command_line.parse_options(argc, argv, out, err);
      });
  parsed.options = command_line.options();
  return parsed;
}

void check_parse(const std::vector<std::string>& words, BenchOptionSet set) {
  const bool sections = set == BenchOptionSet::sections;
  const std::string which = sections ? "sections: " : "scaling: ";
  const Parsed parsed = parse(words, set);
  const BenchOptions& o = parsed.options;
  const BenchOptions defaults;
  cunum::fuzz::check_parser_output(parsed.output, which);
  if (parsed.output.status == 0 && parsed.output.out.find("Usage") != std::string::npos) {
    std::vector<std::string> parts{kProgram, kSummary, "--quick", "--json", "--version"};
    if (sections) parts.insert(parts.end(), {"--reps", "--filter"});
    for (const std::string& part : parts) {
      check(parsed.output.out.find(part) != std::string::npos, which + "the help does not show '" + part + "'");
    }
  } else if (parsed.output.status == -1) {
    const auto texts = cunum::fuzz::value_texts(words);
    const bool all_quick =
        !words.empty() && std::all_of(words.begin(), words.end(), [](const std::string& w) { return w == "--quick"; });
    check(!o.quick || cunum::fuzz::some_word_starts_with(words, "--quick"),
          which + "--quick is set, and no argument is --quick");
    check(!all_quick || o.quick, which + "--quick given, and not set");
    check(o.warmup_runs == (o.quick ? 1 : defaults.warmup_runs), which + "warm-up runs " + std::to_string(o.warmup_runs));
    if (o.timed_runs != (o.quick ? 5 : defaults.timed_runs)) {
      check(sections && o.timed_runs >= 1 && o.timed_runs <= 100000 &&
                cunum::fuzz::some_text_reads_as(texts, o.timed_runs),
            which + "timed runs " + std::to_string(o.timed_runs) + " out of range or on no argument");
    }
    check(o.json_path.empty() || cunum::fuzz::some_text_is(texts, o.json_path),
          which + "--json '" + o.json_path + "' is on no argument");
    check(o.filter.empty() || (sections && cunum::fuzz::some_text_is(texts, o.filter)),
          which + "--filter '" + o.filter + "' is on no argument, or taken by the scaling set");
  }
  const Parsed again = parse(words, set);
  check(again.output == parsed.output && again.options.quick == o.quick && again.options.timed_runs == o.timed_runs &&
            again.options.warmup_runs == o.warmup_runs && again.options.json_path == o.json_path &&
            again.options.filter == o.filter,
        which + "the same command line parsed twice, two results");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> words = cunum::fuzz::arguments_of(data, size);
  cunum::fuzz::context() = std::to_string(words.size()) + " arguments";
  check_parse(words, BenchOptionSet::sections);
  check_parse(words, BenchOptionSet::scaling);
  return 0;
}
