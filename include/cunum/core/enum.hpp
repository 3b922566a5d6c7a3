#pragma once
/// @file
/// Enumerations listed once. Each cunum enum is written as a list macro of
/// X(enumerator, "text") entries; CUNUM_ENUM declares the enum class from it, with
/// to_string() and is_valid(). Adding a value is one edit: a new line in its list.
/// The values and their meaning are documented above each list.

/// The enumerator of one list entry.
#define CUNUM_ENUM_VALUE(enumerator, text) enumerator,

/// Declares, in the current namespace:
/// - `enum class Enum`, its enumerators in list order, from 0;
/// - `const char* to_string(Enum value) noexcept`: the entry's text, or "unknown"
///   for a value that is not listed (never nullptr; a static string);
/// - `bool is_valid(Enum value) noexcept`: whether `value` is one of the listed
///   enumerators (false, say, after a cast from an out-of-range integer).
/// Both are thread-safe. Every cunum routine refuses an unlisted value with
/// ErrorCode::invalid_argument naming the argument.
// The qualified enumerator of one list entry, inside a scope that names the enum ListedEnum.
#define CUNUM_ENUM_LISTED_VALUE(enumerator, text) ListedEnum::enumerator,

#define CUNUM_ENUM(Enum, LIST)                                        \
  enum class Enum { LIST(CUNUM_ENUM_VALUE) };                          \
  struct Enum##Values {                                                \
    using ListedEnum = Enum;                                           \
    static constexpr ListedEnum all[] = {LIST(CUNUM_ENUM_LISTED_VALUE)}; \
  };                                                                   \
  const char* to_string(Enum value) noexcept;                          \
  bool is_valid(Enum value) noexcept;
