#pragma once
// Internal: defines to_string() and is_valid() of an enum declared with CUNUM_ENUM
// (cunum/core/enum.hpp), from the same list. Use once per enum, in the namespace of
// the enum, in the module's .cpp.

#include "cunum/core/enum.hpp"

#define CUNUM_ENUM_TO_STRING_CASE(enumerator, text) \
  case ListedEnum::enumerator:                      \
    return text;
#define CUNUM_ENUM_VALID_CASE(enumerator, text) case ListedEnum::enumerator:

#define CUNUM_DEFINE_ENUM_FUNCTIONS(Enum, LIST)    \
  const char* to_string(Enum value) noexcept {     \
    using ListedEnum = Enum;                       \
    switch (value) { LIST(CUNUM_ENUM_TO_STRING_CASE) } \
    return "unknown";                              \
  }                                                \
  bool is_valid(Enum value) noexcept {             \
    using ListedEnum = Enum;                       \
    switch (value) {                               \
      LIST(CUNUM_ENUM_VALID_CASE)                  \
      return true;                                 \
    }                                              \
    return false;                                  \
  }
