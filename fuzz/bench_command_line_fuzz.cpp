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
//   after '='); the scaling set takes no --reps or --filter;
// - parsing the same command line again gives the same result.

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "bench/common/bench_command_line.hpp"
#include "fuzz/fuzz_support.hpp"

namespace {

using cunum::bench::BenchOptions;
using cunum::bench::BenchOptionSet;
using cunum::fuzz::check;

constexpr const char* kProgram = "cunum-bench-fuzzed";
constexpr const char* kSummary = "A bench's summary.";

struct Parsed {
  int status;
  BenchOptions options;
  std::string out, err;
};

Parsed parse(const std::vector<std::string>& words, BenchOptionSet set) {
  std::vector<const char*> argv{kProgram};
  for (const std::string& word : words) argv.push_back(word.c_str());
  cunum::bench::BenchCommandLine command_line(kProgram, kSummary, set);
  std::ostringstream out, err;
  Parsed parsed{};
  parsed.status = command_line.parse_options(static_cast<int>(argv.size()), argv.data(), out, err);
  parsed.options = command_line.options();
  parsed.out = out.str();
  parsed.err = err.str();
  return parsed;
}

bool starts_with(const std::string& text, const std::string& head) { return text.compare(0, head.size(), head) == 0; }

// The words and, for "--option=value" words, the part after the first '='.
std::vector<std::string> value_texts(const std::vector<std::string>& words) {
  std::vector<std::string> texts;
  for (const std::string& word : words) {
    texts.push_back(word);
    const auto equals = word.find('=');
    if (equals != std::string::npos) texts.push_back(word.substr(equals + 1));
  }
  return texts;
}

bool some_text_is(const std::vector<std::string>& texts, const std::string& value) {
  return std::find(texts.begin(), texts.end(), value) != texts.end();
}

bool some_text_reads_as(const std::vector<std::string>& texts, int value) {
  return std::any_of(texts.begin(), texts.end(), [&](const std::string& text) {
    int read = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), read);
    return error == std::errc() && end == text.data() + text.size() && read == value;
  });
}

void check_parse(const std::vector<std::string>& words, BenchOptionSet set) {
  const bool sections = set == BenchOptionSet::sections;
  const std::string which = sections ? "sections: " : "scaling: ";
  const Parsed parsed = parse(words, set);
  const BenchOptions& o = parsed.options;
  const BenchOptions defaults;
  check(parsed.status == -1 || parsed.status == 0 || parsed.status == 2,
        which + "the parser returned " + std::to_string(parsed.status));
  if (parsed.status == 0) {
    check(parsed.err.empty() && !parsed.out.empty(), which + "--help or --version printed on err, or nothing");
    if (parsed.out.find("Usage") != std::string::npos) {
      std::vector<std::string> parts{kProgram, kSummary, "--quick", "--json", "--version"};
      if (sections) parts.insert(parts.end(), {"--reps", "--filter"});
      for (const std::string& part : parts) {
        check(parsed.out.find(part) != std::string::npos, which + "the help does not show '" + part + "'");
      }
    }
  } else if (parsed.status == 2) {
    check(parsed.out.empty() && !parsed.err.empty(), which + "a refusal printed nothing on err, or something on out");
  } else {
    check(parsed.out.empty() && parsed.err.empty(), which + "an accepted command line printed something");
    const auto texts = value_texts(words);
    const bool any_quick = std::any_of(words.begin(), words.end(), [](const std::string& w) { return starts_with(w, "--quick"); });
    const bool all_quick = !words.empty() && std::all_of(words.begin(), words.end(), [](const std::string& w) { return w == "--quick"; });
    check(!o.quick || any_quick, which + "--quick is set, and no argument is --quick");
    check(!all_quick || o.quick, which + "--quick given, and not set");
    check(o.warmup_runs == (o.quick ? 1 : defaults.warmup_runs), which + "warm-up runs " + std::to_string(o.warmup_runs));
    const bool reps_given = std::any_of(words.begin(), words.end(), [](const std::string& w) { return starts_with(w, "--reps"); });
    check(sections || !reps_given, which + "--reps accepted by the scaling set");
    if (o.timed_runs != (o.quick ? 5 : defaults.timed_runs)) {
      check(sections && o.timed_runs >= 1 && o.timed_runs <= 100000 && some_text_reads_as(texts, o.timed_runs),
            which + "timed runs " + std::to_string(o.timed_runs) + " out of range or on no argument");
    }
    check(o.json_path.empty() || some_text_is(texts, o.json_path), which + "--json '" + o.json_path + "' is on no argument");
    check(o.filter.empty() || (sections && some_text_is(texts, o.filter)),
          which + "--filter '" + o.filter + "' is on no argument, or taken by the scaling set");
  }
  const Parsed again = parse(words, set);
  check(again.status == parsed.status && again.out == parsed.out && again.err == parsed.err &&
            again.options.quick == o.quick && again.options.timed_runs == o.timed_runs &&
            again.options.warmup_runs == o.warmup_runs && again.options.json_path == o.json_path &&
            again.options.filter == o.filter,
        which + "the same command line parsed twice, two results");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> words(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      words.emplace_back();
    } else {
      words.back().push_back(static_cast<char>(data[i]));
    }
  }
  if (size == 0) words.clear();
  cunum::fuzz::context() = std::to_string(words.size()) + " arguments";
  check_parse(words, BenchOptionSet::sections);
  check_parse(words, BenchOptionSet::scaling);
  return 0;
}
