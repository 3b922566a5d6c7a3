#pragma once
/// @file
/// cunum::Error: the one exception type every cunum routine throws, and the
/// ErrorCode it carries.

#include <stdexcept>
#include <string>

#include "cunum/core/enum.hpp"

namespace cunum {

/// What went wrong (cunum::ErrorCode):
/// - `invalid_argument`: an argument is out of its domain (a size, a null pointer,
///   memory the backend cannot reach, a value off its enum's list, a plan used on
///   the wrong device or after a move); the message names the routine and the argument.
/// - `no_device`: the CUDA backend or a device object (Stream, DeviceBuffer, ...) was
///   asked for and no usable driver or device exists; the message says "no CUDA device".
/// - `cuda_failure`: a CUDA runtime or library call (cuRAND, cuFFT) failed; the message
///   names the call, the library's status and the source file relative to the project.
/// - `out_of_memory`: a device or host allocation failed.
/// - `not_supported`: valid input that this routine or strategy cannot serve; the
///   message names the limit.
///
/// to_string() gives the enumerator's name; is_valid() is false for any other value.
#define CUNUM_ERROR_CODES(X)              \
  X(invalid_argument, "invalid_argument") \
  X(no_device, "no_device")               \
  X(cuda_failure, "cuda_failure")         \
  X(out_of_memory, "out_of_memory")       \
  X(not_supported, "not_supported")
CUNUM_ENUM(ErrorCode, CUNUM_ERROR_CODES)

/// Thrown by every cunum routine. what() reads "cunum [code]: routine: problem",
/// where routine is the public routine the caller called (e.g. "cunum::reduce"),
/// also for a failure deep inside it. An argument error is raised before anything
/// is written or enqueued.
class Error : public std::runtime_error {
 public:
  /// @param code    the category
  /// @param message "routine: problem"; what() prefixes "cunum [code]: "
  Error(ErrorCode code, const std::string& message);
  /// @return the category of the failure
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace cunum
