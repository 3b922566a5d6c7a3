#pragma once
// The command line of every cunum program (cunum-demo, cunum-himeno, the benches), parsed
// with CLI11 the same way: --help prints the description and the options, --version
// prints "<program> (cunum) <version>", numbers are checked whole (decimal, no leading
// zero on an integer, in range, nothing after them), choices are taken in any case. A
// bad command line exits 2 with a message naming the option; --help and --version exit 0.

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "cunum/version.hpp"

namespace cunum::programs {

// The text --version prints.
inline std::string version_text(const std::string& program) {
  return program + " (cunum) " + CUNUM_VERSION_STRING;
}

// A program's CLI11 application with --help and --version; add its options to app().
class CommandLine {
 public:
  CommandLine(const std::string& program, const std::string& description) : app_(description, program) {
    app_.get_formatter()->column_width(40);
    app_.set_version_flag("--version", version_text(program), "Print the cunum version and exit");
  }

  CLI::App& app() noexcept { return app_; }

  // Returns -1 to go on, else the exit status: 0 after --help or --version (printed on
  // `out`), 2 after a bad command line (the error printed on `err`). The fuzzers pass
  // streams of their own (fuzz/).
  int parse(int argc, const char* const* argv, std::ostream& out = std::cout, std::ostream& err = std::cerr) {
    try {
      app_.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
      return app_.exit(error, out, err) == 0 ? 0 : 2;
    }
    return -1;
  }

 private:
  CLI::App app_;
};

// A whole decimal integer in [low, high]: no sign but '-', no spaces, no leading zero,
// nothing after it. CLI11 converts the text after this check, and reads a leading 0 as
// octal (075 as 61): such a text is refused, not read as another number.
inline bool parse_integer(const std::string& text, long long low, long long high, long long& value) {
  const char* const first = text.data();
  const char* const last = first + text.size();
  const char* const digits = first != last && *first == '-' ? first + 1 : first;
  if (last - digits > 1 && *digits == '0') return false;
  const auto [end, error] = std::from_chars(first, last, value);
  return error == std::errc() && end == last && value >= low && value <= high;
}

// A whole decimal number, finite and above `low` (not equal to it).
inline bool parse_number_above(const std::string& text, double low, double& value) {
  const char* const first = text.data();
  const char* const last = first + text.size();
  const auto [end, error] = std::from_chars(first, last, value, std::chars_format::general);
  return error == std::errc() && end == last && std::isfinite(value) && value > low;
}

// Checks of one value's text, for Option::check (Validator::application_index picks one
// value of an option that takes several).
inline CLI::Validator integer_in(long long low, long long high) {
  const std::string range = std::to_string(low) + " to " + std::to_string(high);
  return CLI::Validator(
      [low, high, range](std::string& text) {
        long long value = 0;
        if (parse_integer(text, low, high, value)) return std::string();
        return "'" + text + "' is not a whole number from " + range + " (decimal, no leading zero)";
      },
      "");
}

inline CLI::Validator number_above(double low) {
  return CLI::Validator(
      [low](std::string& text) {
        double value = 0.0;
        if (parse_number_above(text, low, value)) return std::string();
        std::ostringstream bound;
        bound << low;
        return "'" + text + "' is not a finite number above " + bound.str();
      },
      "");
}

// An integer option checked whole and within [low, high] (which T must hold); the
// default shown is value's.
template <class T>
CLI::Option* add_integer(CLI::App& app, const std::string& name, T& value, long long low, long long high,
                         const std::string& description) {
  static_assert(std::is_integral_v<T>, "add_integer takes an integer");
  if (low < static_cast<long long>(std::numeric_limits<T>::min()) ||
      high > static_cast<long long>(std::numeric_limits<T>::max())) {
    throw std::logic_error(name + ": the range does not fit the option's type");
  }
  // The text has passed integer_in (decimal, no leading zero) before CLI11 converts it,
  // so the conversion is exact.
  return app.add_option(name, value, description)->check(integer_in(low, high))->type_name("N")->capture_default_str();
}

// A number option, finite and above `low`; the default shown is value's.
inline CLI::Option* add_number_above(CLI::App& app, const std::string& name, double& value, double low,
                                     const std::string& description) {
  return app.add_option(name, value, description)->check(number_above(low))->type_name("X")->capture_default_str();
}

// The choices of an enum with to_string and a Values::all list, named as to_string names them.
template <class Enum, std::size_t n>
std::vector<std::pair<std::string, Enum>> named_values(const Enum (&values)[n]) {
  std::vector<std::pair<std::string, Enum>> choices;
  for (const Enum each : values) choices.emplace_back(to_string(each), each);
  return choices;
}

// An option taking one of `choices` by name, in any case; the default shown is the
// name of value's choice.
template <class T>
CLI::Option* add_choice(CLI::App& app, const std::string& name, T& value,
                        const std::vector<std::pair<std::string, T>>& choices, const std::string& description) {
  std::vector<std::string> names;
  std::string default_name;
  for (const auto& [choice_name, choice] : choices) {
    names.push_back(choice_name);
    if (choice == value) default_name = choice_name;
  }
  // IsMember has replaced the text by the listed spelling when the callback runs.
  return app
      .add_option_function<std::string>(
          name,
          [&value, choices](const std::string& listed) {
            for (const auto& [choice_name, choice] : choices) {
              if (choice_name == listed) value = choice;
            }
          },
          description)
      ->transform(CLI::IsMember(names, CLI::ignore_case))
      ->type_name("CHOICE")
      ->default_str(default_name);
}

}  // namespace cunum::programs
