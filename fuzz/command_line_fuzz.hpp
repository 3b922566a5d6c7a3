#pragma once
// What the command-line harnesses share (himeno_command_line_fuzz.cpp,
// bench_command_line_fuzz.cpp): the arguments an input stands for, running a parser on
// them with streams of its own, the rules of every program's parser
// (programs/command_line.hpp) on what it returns and prints, and where an accepted
// value may have come from.

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "fuzz/fuzz_support.hpp"

namespace cunum::fuzz {

// The input split at NUL bytes: the arguments after the program name; none for an
// empty input.
inline std::vector<std::string> arguments_of(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return {};
  std::vector<std::string> words(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      words.emplace_back();
    } else {
      words.back().push_back(static_cast<char>(data[i]));
    }
  }
  return words;
}

// What a parser returned and printed.
struct ParserOutput {
  int status = 0;
  std::string out, err;
};

inline bool operator==(const ParserOutput& a, const ParserOutput& b) {
  return a.status == b.status && a.out == b.out && a.err == b.err;
}

// Calls parse(argc, argv, out, err) on `program` and `words`, with streams that it
// keeps.
template <class Parse>
ParserOutput run_parser(const char* program, const std::vector<std::string>& words, Parse&& parse) {
  std::vector<const char*> argv{program};
  for (const std::string& word : words) argv.push_back(word.c_str());
  std::ostringstream out, err;
  ParserOutput output;
  output.status = parse(static_cast<int>(argv.size()), argv.data(), static_cast<std::ostream&>(out),
                        static_cast<std::ostream&>(err));
  output.out = out.str();
  output.err = err.str();
  return output;
}

// programs::CommandLine::parse's rules: -1 (go on) printing nothing, 0 with the help or
// version on `out` and nothing on `err`, or 2 with an error on `err` and nothing on `out`.
// `which` names the parser in a finding.
inline void check_parser_output(const ParserOutput& output, const std::string& which) {
  check(output.status == -1 || output.status == 0 || output.status == 2,
        which + "the parser returned " + std::to_string(output.status));
  if (output.status == 0) {
    check(!output.out.empty() && output.err.empty(), which + "help or version: nothing on out, or something on err");
  } else if (output.status == 2) {
    check(output.out.empty() && !output.err.empty(), which + "a refusal printed nothing on err, or something on out");
  } else {
    check(output.out.empty() && output.err.empty(), which + "an accepted command line printed something");
  }
}

// Where a value can come from: the words and, for "--option=value" words, the part
// after the first '='.
inline std::vector<std::string> value_texts(const std::vector<std::string>& words) {
  std::vector<std::string> texts;
  for (const std::string& word : words) {
    texts.push_back(word);
    const auto equals = word.find('=');
    if (equals != std::string::npos) texts.push_back(word.substr(equals + 1));
  }
  return texts;
}

// Whether some text reads as `value`, whole.
template <class Number>
bool some_text_reads_as(const std::vector<std::string>& texts, Number value) {
  return std::any_of(texts.begin(), texts.end(), [&](const std::string& text) {
    Number read{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), read);
    return error == std::errc() && end == text.data() + text.size() && read == value;
  });
}

inline bool some_text_is(const std::vector<std::string>& texts, const std::string& value) {
  return std::find(texts.begin(), texts.end(), value) != texts.end();
}

inline bool some_word_starts_with(const std::vector<std::string>& words, const std::string& head) {
  return std::any_of(words.begin(), words.end(),
                     [&](const std::string& word) { return word.compare(0, head.size(), head) == 0; });
}

}  // namespace cunum::fuzz
