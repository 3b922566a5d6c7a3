#pragma once
// Enumerations listed once. Each cunum enum is written as a list of
// X(enumerator, "text") entries; CUNUM_ENUM declares the enum class from it, with
// to_string() (the text) and is_valid() (whether a value is one of the listed
// enumerators, e.g. after a cast from an integer). Adding a value is one edit: a
// new line in its list.

// The enumerator of one list entry.
#define CUNUM_ENUM_VALUE(enumerator, text) enumerator,

#define CUNUM_ENUM(Enum, LIST)               \
  enum class Enum { LIST(CUNUM_ENUM_VALUE) }; \
  const char* to_string(Enum value) noexcept; \
  bool is_valid(Enum value) noexcept;
