#pragma once
/// @file
/// Where a routine runs: cunum::Backend.

#include "cunum/core/enum.hpp"

namespace cunum {

/// Where a routine runs:
/// - `automatic`: CUDA when a device is present, the OpenMP CPU backend otherwise.
/// - `cpu`: the OpenMP CPU backend (threads from OMP_NUM_THREADS); host memory.
/// - `cuda`: the GPU; throws ErrorCode::no_device without a device, never falls back.
#define CUNUM_BACKENDS(X)     \
  X(automatic, "automatic")   \
  X(cpu, "cpu")               \
  X(cuda, "cuda")
CUNUM_ENUM(Backend, CUNUM_BACKENDS)

/// Resolves `automatic` to `cuda` or `cpu`.
/// @throws Error ErrorCode::no_device for `cuda` without a device;
///         ErrorCode::invalid_argument for a value that is not a Backend.
Backend resolve_backend(Backend requested);

}  // namespace cunum
