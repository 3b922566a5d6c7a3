#pragma once
/// @file
/// Where a routine runs: cunum::Backend, and resolve_backend() which turns
/// `automatic` into a concrete backend.

#include "cunum/core/enum.hpp"

namespace cunum {

/// Where a routine runs (cunum::Backend):
/// - `automatic`: CUDA when a device is present, the OpenMP CPU backend otherwise.
/// - `cpu`: the OpenMP CPU backend (threads from OMP_NUM_THREADS); host or managed memory.
/// - `cuda`: the GPU current on the calling thread; throws ErrorCode::no_device
///   without a device, never falls back to the CPU.
///
/// to_string() gives the enumerator's name ("automatic", "cpu", "cuda");
/// is_valid() is false for any other value (one cast from an integer, say).
#define CUNUM_BACKENDS(X)     \
  X(automatic, "automatic")   \
  X(cpu, "cpu")               \
  X(cuda, "cuda")
CUNUM_ENUM(Backend, CUNUM_BACKENDS)

/// Resolves a requested backend to the one that will run: `automatic` becomes
/// `cuda` when device_count() > 0, else `cpu`; `cpu` and `cuda` are returned as
/// they are. Thread-safe; synchronises nothing.
/// @param requested the caller's choice
/// @return Backend::cpu or Backend::cuda, never Backend::automatic
/// @throws Error ErrorCode::no_device for `cuda` without a device (the message names
///         the routine in progress, e.g. "cunum::Reducer", and says "no CUDA device");
///         ErrorCode::invalid_argument, naming 'backend', for a value that is not a
///         listed Backend.
Backend resolve_backend(Backend requested);

}  // namespace cunum
