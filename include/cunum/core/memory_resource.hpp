#pragma once
/// @file
/// Where cunum's device memory comes from: a stream-ordered memory resource an
/// application may replace with its own pool (after RMM's device_memory_resource).
/// Every device allocation cunum's own code makes (DeviceBuffer, the plans' work
/// areas, the conveniences' copies) goes through current_device_resource() unless a
/// resource is passed explicitly (a plan's Placement::device_memory); CUDA libraries
/// (cuRAND) allocate their own state. Page-locked host memory comes from a
/// HostMemoryResource, pinned_memory_resource() unless one is passed.

#include <cstddef>

#include "cunum/core/stream.hpp"

namespace cunum {

/// Stream-ordered device memory. allocate() returns memory that work enqueued on
/// `stream` after the call may use; deallocate() returns it once the work enqueued
/// on `stream` before the call has finished with it (work on other streams must
/// have finished, or be ordered before that point of `stream`). Implementations
/// override do_allocate and do_deallocate; they must be thread-safe, and must
/// outlive every buffer they allocated.
class DeviceMemoryResource {
 public:
  virtual ~DeviceMemoryResource() = default;

  /// Allocates device memory for work on `stream`; does not wait.
  /// @param bytes  size; 0 gives nullptr without calling do_allocate
  /// @param stream the stream on which the memory is first used
  /// @return the memory, or nullptr for 0 bytes
  /// @throws Error ErrorCode::out_of_memory when the memory cannot be had;
  ///         ErrorCode::no_device without a device (the default resource)
  void* allocate(std::size_t bytes, StreamHandle stream) { return bytes == 0 ? nullptr : do_allocate(bytes, stream); }
  /// Returns memory from allocate() on `stream`; does not wait. nullptr is ignored
  /// (do_deallocate is not called).
  /// @param pointer what allocate() returned
  /// @param bytes   the size it was allocated with
  /// @param stream  the stream whose earlier work is the last to use the memory
  void deallocate(void* pointer, std::size_t bytes, StreamHandle stream) noexcept {
    if (pointer != nullptr) do_deallocate(pointer, bytes, stream);
  }

 private:
  /// Allocates `bytes` > 0 bytes, stream-ordered on `stream`; throws Error
  /// (ErrorCode::out_of_memory when the memory cannot be had) or std::bad_alloc on
  /// failure. cunum reports either as an Error of the same code (std::bad_alloc:
  /// out_of_memory) naming the cunum routine that asked and the bytes refused.
  virtual void* do_allocate(std::size_t bytes, StreamHandle stream) = 0;
  /// Frees a non-null `pointer`, stream-ordered on `stream`; must not throw.
  virtual void do_deallocate(void* pointer, std::size_t bytes, StreamHandle stream) noexcept = 0;
};

/// cudaMallocAsync / cudaFreeAsync from the current device's default memory pool:
/// the resource cunum uses unless told otherwise. Thread-safe.
/// @return a resource that lives as long as the process
DeviceMemoryResource* async_memory_resource() noexcept;

/// The resource cunum allocates its device memory from (one per process; it serves
/// whichever device is current when it allocates). Thread-safe.
/// @return the resource last set, or async_memory_resource()
DeviceMemoryResource* current_device_resource() noexcept;

/// Makes `resource` the current one for the whole process. The exchange is atomic,
/// but a plan or buffer being made on another thread at the same time may take
/// either resource: set it before such work starts. Buffers and plans keep the
/// resource they were allocated from and return their memory to it.
/// @param resource the new resource, which must outlive every allocation made from
///                 it; nullptr restores async_memory_resource()
/// @return the previous current resource, to restore later
DeviceMemoryResource* set_current_device_resource(DeviceMemoryResource* resource) noexcept;

/// Page-locked host memory (after RMM's pinned_host_memory_resource): what plans keep
/// for asynchronous copies between host and device. Implementations override
/// do_allocate and do_deallocate; they must be thread-safe, and must outlive every
/// allocation they made.
class HostMemoryResource {
 public:
  virtual ~HostMemoryResource() = default;

  /// @param bytes size; 0 gives nullptr without calling do_allocate
  /// @return page-locked host memory, or nullptr for 0 bytes
  /// @throws Error ErrorCode::out_of_memory when the memory cannot be had;
  ///         ErrorCode::no_device without a device (the default resource)
  void* allocate(std::size_t bytes) { return bytes == 0 ? nullptr : do_allocate(bytes); }
  /// Returns memory from allocate(); the device work that used it must have finished.
  /// nullptr is ignored (do_deallocate is not called).
  void deallocate(void* pointer, std::size_t bytes) noexcept {
    if (pointer != nullptr) do_deallocate(pointer, bytes);
  }

 private:
  /// Allocates `bytes` > 0 bytes of page-locked memory; throws Error on failure.
  virtual void* do_allocate(std::size_t bytes) = 0;
  /// Frees a non-null `pointer`; must not throw.
  virtual void do_deallocate(void* pointer, std::size_t bytes) noexcept = 0;
};

/// cudaMallocHost / cudaFreeHost: the page-locked memory plans use unless told
/// otherwise. Thread-safe.
/// @return a resource that lives as long as the process
HostMemoryResource* pinned_memory_resource() noexcept;

}  // namespace cunum
