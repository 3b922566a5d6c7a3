// Fuzzes cunum-himeno's command line (examples/himeno/himeno_command_line.cpp, on
// programs/command_line.hpp and CLI11): the input is split at NUL bytes into arguments
// after the program name. The parser opens no file: --json is only read.
//
// Invariants, beyond "no crash" (an exception other than CLI11's parse errors
// escaping the parser is one):
// - the parser returns -1 (go on), 0 (help or version printed on `out`, nothing on
//   `err`) or 2 (an error printed on `err`, nothing on `out`);
// - what it accepts is in range: a listed size and backend, iterations 0 (not given)
//   or 1..2^31 - 1, seconds and the progress interval finite and above 0, sweeps per
//   pass 0..4;
// - every value that is not the default comes from the command line: some argument
//   (or the part after '=') reads as that value, whole;
// - parsing the same command line again gives the same result.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "examples/himeno/himeno_command_line.hpp"
#include "fuzz/command_line_fuzz.hpp"

namespace {

using cunum::fuzz::check;

struct Parsed {
  cunum::fuzz::ParserOutput output;
  cunum_himeno::Arguments arguments;
};

Parsed parse(const std::vector<std::string>& words) {
  Parsed parsed;
  parsed.output = cunum::fuzz::run_parser(
      "cunum-himeno", words, [&](int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
        return cunum_himeno::parse_command_line(argc, argv, parsed.arguments, out, err);
      });
  return parsed;
}

// Whether some text is `name` in any case (the choices are taken so).
bool some_text_names(const std::vector<std::string>& texts, const std::string& name) {
  return std::any_of(texts.begin(), texts.end(), [&](const std::string& text) {
    return text.size() == name.size() && std::equal(text.begin(), text.end(), name.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using cunum::fuzz::some_text_reads_as;
  const std::vector<std::string> words = cunum::fuzz::arguments_of(data, size);
  const Parsed parsed = parse(words);
  const auto& a = parsed.arguments;
  const cunum_himeno::Arguments defaults;
  cunum::fuzz::check_parser_output(parsed.output, "");
  if (parsed.output.status == -1) {
    check(is_valid(a.size) && is_valid(a.backend), "an accepted size or backend is not a listed value");
    check(a.iterations == 0 || (a.iterations >= 1 && a.iterations <= cunum_himeno::kMaxIterations),
          "iterations " + std::to_string(a.iterations) + " out of range");
    check(std::isfinite(a.seconds) && a.seconds > 0, "seconds " + std::to_string(a.seconds) + " out of range");
    check(std::isfinite(a.progress_interval) && a.progress_interval > 0,
          "progress interval " + std::to_string(a.progress_interval) + " out of range");
    check(a.sweeps_per_pass >= 0 && a.sweeps_per_pass <= cunum_himeno::kMaxSweepsPerPass,
          "sweeps per pass " + std::to_string(a.sweeps_per_pass) + " out of range");
    const auto texts = cunum::fuzz::value_texts(words);
    check(a.iterations == defaults.iterations || some_text_reads_as(texts, a.iterations),
          "iterations " + std::to_string(a.iterations) + " is on no argument");
    check(a.seconds == defaults.seconds || some_text_reads_as(texts, a.seconds),
          "seconds " + std::to_string(a.seconds) + " is on no argument");
    check(a.sweeps_per_pass == defaults.sweeps_per_pass || some_text_reads_as(texts, a.sweeps_per_pass),
          "sweeps per pass " + std::to_string(a.sweeps_per_pass) + " is on no argument");
    check(a.size == defaults.size || some_text_names(texts, to_string(a.size)),
          std::string("size ") + to_string(a.size) + " is on no argument");
    check(a.backend == defaults.backend || some_text_names(texts, to_string(a.backend)),
          std::string("backend ") + to_string(a.backend) + " is on no argument");
    check(a.double_precision == defaults.double_precision || some_text_names(texts, "double"),
          "double precision, and no argument says double");
    check(a.progress_interval == defaults.progress_interval || some_text_reads_as(texts, a.progress_interval),
          "progress interval " + std::to_string(a.progress_interval) + " is on no argument");
    check(a.json_path.empty() || cunum::fuzz::some_text_is(texts, a.json_path),
          "--json '" + a.json_path + "' is on no argument");
    check(!a.quiet || cunum::fuzz::some_word_starts_with(words, "--quiet"), "quiet, and no argument is --quiet");
  }
  const Parsed again = parse(words);
  check(again.output == parsed.output && again.arguments.size == a.size &&
            again.arguments.iterations == a.iterations && again.arguments.seconds == a.seconds &&
            again.arguments.backend == a.backend && again.arguments.double_precision == a.double_precision &&
            again.arguments.sweeps_per_pass == a.sweeps_per_pass && again.arguments.json_path == a.json_path &&
            again.arguments.quiet == a.quiet && again.arguments.progress_interval == a.progress_interval,
        "the same command line parsed twice, two results");
  return 0;
}
