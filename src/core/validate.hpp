#pragma once
// Internal: the one validation vocabulary of cunum's API boundaries. Every failure
// throws Error(invalid_argument) naming the routine and the argument, before
// anything is written. Checks run on every call, so a check that passes builds no
// message: literal problems take const char*, composed ones are built only after
// the condition has failed.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "cunum/core/backend.hpp"
#include "cunum/core/error.hpp"

namespace cunum::detail {

[[noreturn]] void throw_invalid_argument(const char* routine, const char* argument,
                                         const std::string& problem);

inline void require(bool condition, const char* routine, const char* argument, const char* problem) {
  if (!condition) throw_invalid_argument(routine, argument, problem);
}

// A composed message is a callable that returns it, called only when the check fails
// (a std::string argument does not compile: it would be built on every call).
template <class Problem, class = std::enable_if_t<std::is_invocable_r_v<std::string, Problem&>>>
void require(bool condition, const char* routine, const char* argument, Problem&& problem) {
  if (!condition) throw_invalid_argument(routine, argument, problem());
}

inline void require_at_least(std::int64_t value, std::int64_t minimum, const char* routine, const char* argument) {
  if (value < minimum) {
    throw_invalid_argument(routine, argument,
                           "must be >= " + std::to_string(minimum) + ", got " + std::to_string(value));
  }
}

inline void require_non_negative(std::int64_t value, const char* routine, const char* argument) {
  if (value < 0) throw_invalid_argument(routine, argument, "must be >= 0, got " + std::to_string(value));
}

inline void require_finite(double value, const char* routine, const char* argument) {
  if (!std::isfinite(value)) throw_invalid_argument(routine, argument, "must be finite, got " + std::to_string(value));
}

// A value of an enum declared with CUNUM_ENUM: one of its listed enumerators.
template <class Enum>
void require_enum(Enum value, const char* routine, const char* argument, const char* enum_name) {
  if (!is_valid(value)) {
    throw_invalid_argument(routine, argument,
                           std::string("is not one of ") + enum_name + "'s values (got " + std::to_string(static_cast<int>(value)) + ")");
  }
}

// `count` elements of `element_bytes` each: non-negative, and a byte size that a
// 64-bit address space can hold (count * element_bytes must not overflow).
inline void require_element_count(std::int64_t count, std::size_t element_bytes, const char* routine,
                                  const char* argument) {
  require_non_negative(count, routine, argument);
  const auto max_count = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / element_bytes;
  if (static_cast<std::uint64_t>(count) > max_count) {
    throw_invalid_argument(routine, argument,
                           "= " + std::to_string(count) + " elements of " + std::to_string(element_bytes) +
                               " bytes overflows a 64-bit byte count");
  }
}

// A pointer may be null only when it addresses no elements.
inline void require_pointer(const void* pointer, std::int64_t count, const char* routine, const char* argument) {
  if (pointer == nullptr && count != 0) {
    throw_invalid_argument(routine, argument,
                           "is null but addresses " + std::to_string(count) + (count == 1 ? " element" : " elements"));
  }
}

// Memory that `backend` (resolved: cpu or cuda) can read and write, by the rule of
// docs/contributing.md ("Memory and backends"):
//   cuda: device memory, managed memory, page-locked host memory mapped into the
//         device's address space; pageable host memory only on devices that access
//         it directly (HMM/ATS: cudaDevAttrPageableMemoryAccess).
//   cpu:  host memory, pageable or page-locked, and managed memory; never device memory.
// Non-null pointers only (require_pointer first); without a CUDA driver every
// pointer is host memory and the check passes.
void require_accessible(const void* pointer, Backend backend, const char* routine, const char* argument);

// require_pointer, then require_accessible when there is something to access.
inline void require_memory(const void* pointer, std::int64_t count, Backend backend, const char* routine,
                           const char* argument) {
  require_pointer(pointer, count, routine, argument);
  if (count != 0) require_accessible(pointer, backend, routine, argument);
}

// Two arrays that must not share a byte: an output that a routine writes while it
// still reads `other`. Any overlap is refused, not only equal pointers, naming
// `argument` (the array at `a`); empty arrays overlap nothing. Addresses are compared
// as integers, without forming a + a_bytes, so nothing can overflow. Either
// backend's pointers (one virtual address space with the CUDA driver).
inline void require_disjoint(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes,
                             const char* routine, const char* argument, const char* other) {
  const auto first = reinterpret_cast<std::uintptr_t>(a), second = reinterpret_cast<std::uintptr_t>(b);
  const bool overlap =
      a_bytes != 0 && b_bytes != 0 && (first <= second ? second - first < a_bytes : first - second < b_bytes);
  if (overlap) {
    throw_invalid_argument(routine, argument,
                           std::string("overlaps '") + other + "' (" + std::to_string(a_bytes) + " and " +
                               std::to_string(b_bytes) + " bytes " +
                               (first == second ? "at the same address" : "that share memory") +
                               "), which this routine does not allow");
  }
}

// An array a routine reads or writes, with the name the caller knows it by.
struct NamedArray {
  const void* data;
  const char* name;
};

// The outputs of an element-wise routine, each `bytes` long like its inputs: element i
// of an output is written only after element i of every input has been read, by the
// same thread, so an output may be an input array itself (in place), but must not
// otherwise overlap an input (it would overwrite elements still to be read), nor
// overlap another output at all. Null arrays are skipped.
inline void require_elementwise_outputs(const NamedArray* inputs, std::size_t input_count, const NamedArray* outputs,
                                        std::size_t output_count, std::size_t bytes, const char* routine) {
  for (std::size_t o = 0; o < output_count; ++o) {
    const NamedArray& output = outputs[o];
    if (output.data == nullptr) continue;
    for (std::size_t i = 0; i < input_count; ++i) {
      if (inputs[i].data == nullptr || inputs[i].data == output.data) continue;
      require_disjoint(output.data, bytes, inputs[i].data, bytes, routine, output.name, inputs[i].name);
    }
    for (std::size_t earlier = 0; earlier < o; ++earlier) {
      if (outputs[earlier].data == nullptr) continue;
      require_disjoint(output.data, bytes, outputs[earlier].data, bytes, routine, output.name, outputs[earlier].name);
    }
  }
}

// A plan class's hidden state (`impl_`), which is null once the object has been moved
// from: every member that needs it goes through here, so use after move is an error
// naming the routine, never a crash.
template <class Impl>
Impl& require_plan(const std::unique_ptr<Impl>& impl, const char* routine, const char* class_name) {
  if (impl == nullptr) throw_invalid_argument(routine, "this", std::string("is a moved-from ") + class_name);
  return *impl;
}

}  // namespace cunum::detail
