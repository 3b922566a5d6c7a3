#pragma once
// Internal: argument validation at API boundaries. Every failure names the routine
// and the argument, and is thrown before anything is written.

#include <cstdint>
#include <string>

#include "cunum/core/error.hpp"

namespace cunum::detail {

[[noreturn]] void throw_invalid_argument(const char* routine, const char* argument,
                                         const std::string& problem);

// Checks run on every call, so a check that passes builds no message: literal
// problems take the const char* overload, and composed messages are built only
// after the condition has failed.
inline void require(bool condition, const char* routine, const char* argument, const char* problem) {
  if (!condition) throw_invalid_argument(routine, argument, problem);
}

inline void require(bool condition, const char* routine, const char* argument,
                    const std::string& problem) {
  if (!condition) throw_invalid_argument(routine, argument, problem);
}

inline void require_non_negative(std::int64_t value, const char* routine, const char* argument) {
  if (value < 0) throw_invalid_argument(routine, argument, "must be >= 0, got " + std::to_string(value));
}

// A pointer may be null only when it addresses no elements.
inline void require_pointer(const void* pointer, std::int64_t count, const char* routine,
                            const char* argument) {
  if (pointer == nullptr && count != 0) {
    throw_invalid_argument(routine, argument, "is null but addresses " + std::to_string(count) + " elements");
  }
}

}  // namespace cunum::detail
