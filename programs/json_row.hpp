#pragma once
// The JSON the programs write (the benches' --json rows, cunum-himeno's --json result):
// one object a line, its keys in the order added, numbers written so that they read back
// to the same double.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "cunum/core/error.hpp"

namespace cunum::programs {

// One JSON object on one line. A number is written as the shortest text that reads back
// to the same double (never rounded to a few digits); NaN and infinities become null.
class JsonRow {
 public:
  JsonRow& text(const std::string& key, const std::string& value) { return raw(key, quoted(value)); }
  JsonRow& text(const std::string& key, const char* value) { return text(key, std::string(value)); }
  JsonRow& text(const std::string& key, const std::optional<std::string>& value) {  // null when empty
    return value ? text(key, *value) : raw(key, "null");
  }
  JsonRow& number(const std::string& key, double value) {
    if (!std::isfinite(value)) return raw(key, "null");
    char digits[32];
    // Without a precision, to_chars writes the shortest text that reads back to `value`.
    const auto result = std::to_chars(digits, digits + sizeof digits, value);
    return raw(key, std::string(digits, result.ptr));
  }
  JsonRow& number(const std::string& key, const std::optional<double>& value) {  // null when empty
    return value ? number(key, *value) : raw(key, "null");
  }
  JsonRow& integer(const std::string& key, std::int64_t value) { return raw(key, std::to_string(value)); }
  JsonRow& boolean(const std::string& key, bool value) { return raw(key, value ? "true" : "false"); }

  std::string line() const { return "{" + members_ + "}"; }  // without the newline

 private:
  static std::string quoted(const std::string& value) {
    std::string json = "\"";
    for (const char c : value) {
      if (c == '"' || c == '\\') {
        json += '\\';
        json += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char escape[8];
        std::snprintf(escape, sizeof escape, "\\u%04x", c);
        json += escape;
      } else {
        json += c;
      }
    }
    return json + "\"";
  }
  JsonRow& raw(const std::string& key, const std::string& json) {
    members_ += (members_.empty() ? "" : ",") + quoted(key) + ":" + json;
    return *this;
  }

  std::string members_;
};

// Empties the file at `path`, once at the start of a run (every row is then appended).
// Returns false, having written nothing, when it cannot be opened for writing.
inline bool start_json_file(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) return false;
  std::fclose(file);
  return true;
}

// A program's --json FILE once its command line is parsed: empties FILE
// (start_json_file) when one was given. Returns -1 to go on, or the exit status 2 after
// saying on stderr that FILE cannot be written.
inline int start_json_option(const std::string& path) {
  if (path.empty() || start_json_file(path)) return -1;
  std::fprintf(stderr, "--json: cannot open '%s' for writing\n", path.c_str());
  return 2;
}

// Appends `row` as one line to the file at `path`.
// Throws Error(invalid_argument) naming the path when it cannot be opened.
inline void append_json_row(const std::string& path, const JsonRow& row) {
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (file == nullptr) {
    throw Error(ErrorCode::invalid_argument, "--json: cannot open '" + path + "' for appending");
  }
  std::fprintf(file, "%s\n", row.line().c_str());
  std::fclose(file);
}

}  // namespace cunum::programs
