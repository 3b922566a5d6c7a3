#pragma once
/// @file
/// cunum::DeviceBuffer<T>: RAII, stream-ordered device memory.
///
/// Copies follow one rule, CUDA's own: a function whose name ends in `_async` is
/// enqueued on the stream and returns at once (host memory it reads must stay
/// valid and unchanged until the stream reaches it); every other copy has
/// completed when it returns, and waits for the work enqueued on the stream
/// before it.

#include <cstddef>
#include <utility>
#include <vector>

#include "cunum/core/memory_resource.hpp"
#include "cunum/core/stream.hpp"

namespace cunum {
namespace memory {
void copy_host_to_device(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
void copy_host_to_device_async(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
void copy_device_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
void copy_device_to_device_async(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
void fill_bytes_async(void* dst, unsigned char value, std::size_t bytes, StreamHandle stream);
}  // namespace memory

/// Device memory for `size` values of T, allocated on a stream from a
/// DeviceMemoryResource and returned to it on that stream when destroyed. Movable,
/// not copyable. The contents start undefined.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// @param size     number of values
  /// @param stream   the stream the memory is allocated, used and freed on
  /// @param resource where the memory comes from (default: current_device_resource())
  /// @throws Error ErrorCode::out_of_memory, ErrorCode::no_device
  explicit DeviceBuffer(std::size_t size, StreamHandle stream = nullptr,
                        DeviceMemoryResource* resource = current_device_resource())
      : resource_(resource),
        data_(static_cast<T*>(resource->allocate(size * sizeof(T), stream))),
        size_(size),
        stream_(stream) {}

  /// A buffer holding a copy of `host`; returns when the copy is complete.
  static DeviceBuffer from_host(const std::vector<T>& host, StreamHandle stream = nullptr,
                                DeviceMemoryResource* resource = current_device_resource()) {
    DeviceBuffer buffer(host.size(), stream, resource);
    buffer.copy_from_host(host.data(), host.size());
    return buffer;
  }

  ~DeviceBuffer() { release(); }

  DeviceBuffer(DeviceBuffer&& other) noexcept
      : resource_(other.resource_),
        data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        stream_(other.stream_) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      resource_ = other.resource_;
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      stream_ = other.stream_;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  StreamHandle stream() const noexcept { return stream_; }

  /// Copies `count` values from host memory; complete on return.
  void copy_from_host(const T* host, std::size_t count) {
    memory::copy_host_to_device(data_, host, count * sizeof(T), stream_);
  }
  /// Enqueues the copy of `count` values from host memory on the buffer's stream.
  void copy_from_host_async(const T* host, std::size_t count) {
    memory::copy_host_to_device_async(data_, host, count * sizeof(T), stream_);
  }
  /// Copies `count` values into host memory; complete on return.
  void copy_to_host(T* host, std::size_t count) const {
    memory::copy_device_to_host(host, data_, count * sizeof(T), stream_);
  }
  /// The whole buffer in host memory; complete on return.
  std::vector<T> to_host() const {
    std::vector<T> host(size_);
    copy_to_host(host.data(), size_);
    return host;
  }
  /// Enqueues setting every byte to `value` (tests poison outputs with it).
  void fill_bytes_async(unsigned char value) { memory::fill_bytes_async(data_, value, bytes(), stream_); }

 private:
  void release() noexcept {
    if (resource_ != nullptr) resource_->deallocate(data_, bytes(), stream_);
  }

  DeviceMemoryResource* resource_ = nullptr;
  T* data_ = nullptr;
  std::size_t size_ = 0;
  StreamHandle stream_ = nullptr;
};

}  // namespace cunum
