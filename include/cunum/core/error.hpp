#pragma once
/// @file
/// cunum::Error: the one exception type every cunum routine throws.

#include <stdexcept>
#include <string>

#include "cunum/core/enum.hpp"

namespace cunum {

/// What went wrong (cunum::ErrorCode):
/// - `invalid_argument`: an argument is out of its domain; the message names the routine and the argument.
/// - `no_device`: the CUDA backend was asked for (or CUDA memory was passed) and no usable device exists.
/// - `cuda_failure`: a CUDA runtime or library call failed; the message names the call and its status.
/// - `out_of_memory`: a device or host allocation failed.
/// - `not_supported`: valid input that this routine or strategy cannot serve; the message names the limit.
#define CUNUM_ERROR_CODES(X)              \
  X(invalid_argument, "invalid_argument") \
  X(no_device, "no_device")               \
  X(cuda_failure, "cuda_failure")         \
  X(out_of_memory, "out_of_memory")       \
  X(not_supported, "not_supported")
CUNUM_ENUM(ErrorCode, CUNUM_ERROR_CODES)

/// Thrown by every cunum routine. what() reads "cunum [code]: routine: problem";
/// an argument error is raised before anything is written.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message);
  /// The category of the failure.
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace cunum
