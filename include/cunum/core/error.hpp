#pragma once
// cunum::Error: the one exception type every cunum routine throws.

#include <stdexcept>
#include <string>

namespace cunum {

enum class ErrorCode {
  invalid_argument,  // an argument is out of its domain; the message names it
  no_device,         // the CUDA backend was asked for and no usable device exists
  cuda_failure,      // a CUDA runtime or library call failed
  out_of_memory,     // a device or host allocation failed
  not_supported,     // valid input that this routine or strategy cannot serve
};

const char* to_string(ErrorCode code) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message);
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace cunum
