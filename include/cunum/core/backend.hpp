#pragma once
// Where a routine runs. `automatic` means CUDA when a device is present, the
// OpenMP CPU backend otherwise; asking for `cuda` without a device throws
// ErrorCode::no_device rather than falling back.

namespace cunum {

enum class Backend { automatic, cpu, cuda };

const char* to_string(Backend backend) noexcept;

// Resolves `automatic`; throws ErrorCode::no_device for `cuda` without a device.
Backend resolve_backend(Backend requested);

}  // namespace cunum
