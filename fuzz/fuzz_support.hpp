#pragma once
// What every harness shares: reading typed values from libFuzzer's bytes, what the
// rules of a Placement expect, and the invariants of a refusal. A broken invariant is a finding: the harness prints it and
// aborts, which libFuzzer reports as a crash with the input that caused it.

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cunum/core/device.hpp"
#include "cunum/core/error.hpp"
#include "cunum/core/placement.hpp"

namespace cunum::fuzz {

// What a harness expects of a call, from its independent reading of the rules: `either`
// where the rules depend on what it does not compute (a covariance positive definite or not).
enum class Expect { accept, refuse, either };

// The stricter of two expectations: refuse, then either, then accept.
inline Expect combine(Expect a, Expect b) {
  if (a == Expect::refuse || b == Expect::refuse) return Expect::refuse;
  if (a == Expect::either || b == Expect::either) return Expect::either;
  return Expect::accept;
}

// What the rules of cunum/core/placement.hpp do with `placement` on this machine, for a
// plan that runs on at most `most_devices` devices: nothing (std::nullopt), or the code
// of the refusal (invalid_argument naming 'placement.backend' or 'placement.devices';
// no_device for CUDA without a device).
inline std::optional<ErrorCode> placement_refusal(const Placement& placement, std::size_t most_devices) {
  if (!is_valid(placement.backend)) return ErrorCode::invalid_argument;
  const int here = device_count();
  const bool wants_cuda = placement.backend == Backend::cuda ||
                          (placement.backend == Backend::automatic && !placement.devices.empty());
  if (placement.backend == Backend::cpu || (!wants_cuda && here == 0)) {
    if (placement.devices.empty()) return std::nullopt;
    return ErrorCode::invalid_argument;
  }
  if (here == 0) return ErrorCode::no_device;
  if (placement.devices.size() > most_devices) return ErrorCode::invalid_argument;
  for (const int device : placement.devices) {
    if (device < 0 || device >= here) return ErrorCode::invalid_argument;
  }
  return std::nullopt;
}

// The backend an accepted `placement` resolves to.
inline Backend resolved_backend(const Placement& placement) {
  const bool wants_cuda = placement.backend == Backend::cuda || !placement.devices.empty();
  return placement.backend != Backend::cpu && (wants_cuda || device_count() > 0) ? Backend::cuda : Backend::cpu;
}

// What the harness is testing, printed with a finding (set it once the input is read).
inline std::string& context() {
  static std::string text;
  return text;
}

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "\nFUZZ FINDING: %s\ninput: %s\n", what.c_str(), context().c_str());
  std::fflush(stderr);
  std::abort();
}

inline void check(bool condition, const std::string& what) {
  if (!condition) finding(what);
}

// Any bit pattern of a float or double: NaN, infinities, subnormals and huge values included.
template <class T>
T raw_value(FuzzedDataProvider& in) {
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  const Bits bits = in.ConsumeIntegral<Bits>();
  T value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

inline double raw_double(FuzzedDataProvider& in) { return raw_value<double>(in); }

// Up to `most` device ordinals, each -1 (never a device), a device, or one past them.
inline std::vector<int> fuzz_devices(FuzzedDataProvider& in, std::size_t most) {
  std::vector<int> devices(in.ConsumeIntegralInRange<std::size_t>(0, most));
  for (int& device : devices) device = in.ConsumeIntegralInRange<int>(-1, device_count() + 1);
  return devices;
}

// Values as text, exactly (%.17g), for context().
template <class Values>
std::string list(const Values& values) {
  std::string text = "{";
  for (const auto& value : values) {
    char number[32];
    std::snprintf(number, sizeof number, "%.17g", static_cast<double>(value));
    text += (text.size() > 1 ? ", " : "") + std::string(number);
  }
  return text + "}";
}

// An enumerator of a CUNUM_ENUM list, or now and then an integer that is none of them.
template <class Enum>
Enum fuzz_enum(FuzzedDataProvider& in, int listed) {
  const int value = in.ConsumeIntegralInRange<int>(-1, listed);
  return static_cast<Enum>(value);
}

// A refusal is an Error whose message reads "cunum [code]: routine: argument 'name' ...",
// and, for invalid_argument, the name one of `arguments` (a name ending in '[' stands
// for its elements: "options[" for 'options[3].spot').
inline void check_refusal(const Error& error, const char* routine, std::initializer_list<const char*> arguments) {
  const std::string message = error.what();
  const std::string head = std::string("cunum [") + to_string(error.code()) + "]: " + routine + ": ";
  check(message.compare(0, head.size(), head) == 0, "refusal '" + message + "' does not start with '" + head + "'");
  if (error.code() != ErrorCode::invalid_argument) return;
  for (const char* argument : arguments) {
    const std::string name(argument);
    const std::string named = head + "argument '" + name + (name.back() == '[' ? "" : "'");
    if (message.compare(0, named.size(), named) == 0) return;
  }
  finding("refusal '" + message + "' names no argument of " + routine);
}

}  // namespace cunum::fuzz
