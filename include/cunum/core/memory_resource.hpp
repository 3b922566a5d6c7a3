#pragma once
/// @file
/// Where cunum's device memory comes from: a stream-ordered memory resource an
/// application may replace with its own pool (after RMM's device_memory_resource).

#include <cstddef>

#include "cunum/core/stream.hpp"

namespace cunum {

/// Stream-ordered device memory. allocate() returns memory that work enqueued on
/// `stream` after the call may use; deallocate() returns it once the work enqueued
/// on `stream` before the call has finished with it. Implementations must be
/// thread-safe, and must outlive every buffer they allocated.
class DeviceMemoryResource {
 public:
  virtual ~DeviceMemoryResource() = default;

  /// @param bytes  size; 0 gives nullptr
  /// @param stream the stream on which the memory is first used
  /// @throws Error ErrorCode::out_of_memory when the memory cannot be had
  void* allocate(std::size_t bytes, StreamHandle stream) { return bytes == 0 ? nullptr : do_allocate(bytes, stream); }
  /// Returns memory from allocate() with the same `bytes`; nullptr is ignored.
  void deallocate(void* pointer, std::size_t bytes, StreamHandle stream) noexcept {
    if (pointer != nullptr) do_deallocate(pointer, bytes, stream);
  }

 private:
  virtual void* do_allocate(std::size_t bytes, StreamHandle stream) = 0;
  virtual void do_deallocate(void* pointer, std::size_t bytes, StreamHandle stream) noexcept = 0;
};

/// cudaMallocAsync / cudaFreeAsync from the current device's default memory pool:
/// the resource cunum uses unless told otherwise.
DeviceMemoryResource* async_memory_resource() noexcept;

/// The resource cunum allocates its device memory from (one per process; it serves
/// whichever device is current when it allocates).
DeviceMemoryResource* current_device_resource() noexcept;

/// Makes `resource` the current one (nullptr restores async_memory_resource()) and
/// returns the previous one. Buffers keep the resource they were allocated from.
DeviceMemoryResource* set_current_device_resource(DeviceMemoryResource* resource) noexcept;

}  // namespace cunum
