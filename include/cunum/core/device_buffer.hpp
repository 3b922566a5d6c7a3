#pragma once
// DeviceBuffer<T>: RAII, stream-ordered device memory (cudaMallocAsync/cudaFreeAsync
// on the stream it was made on). Movable, not copyable.

#include <cstddef>
#include <utility>
#include <vector>

#include "cunum/core/stream.hpp"

namespace cunum {
namespace memory {
void* allocate_device(std::size_t bytes, StreamHandle stream);
void free_device(void* pointer, StreamHandle stream) noexcept;
void copy_host_to_device(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
void copy_device_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
void copy_device_to_device(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
void fill_bytes(void* dst, unsigned char value, std::size_t bytes, StreamHandle stream);
}  // namespace memory

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t size, StreamHandle stream = nullptr)
      : data_(static_cast<T*>(memory::allocate_device(size * sizeof(T), stream))),
        size_(size),
        stream_(stream) {}
  // Allocates and copies `host`; returns once the copy is complete.
  DeviceBuffer(const std::vector<T>& host, StreamHandle stream = nullptr)
      : DeviceBuffer(host.size(), stream) {
    copy_from_host(host.data(), host.size());
  }
  ~DeviceBuffer() { memory::free_device(data_, stream_); }

  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        stream_(other.stream_) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      memory::free_device(data_, stream_);
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

  // Synchronous copies (they wait on the buffer's stream).
  void copy_from_host(const T* host, std::size_t count) {
    memory::copy_host_to_device(data_, host, count * sizeof(T), stream_);
  }
  void copy_to_host(T* host, std::size_t count) const {
    memory::copy_device_to_host(host, data_, count * sizeof(T), stream_);
  }
  std::vector<T> to_host() const {
    std::vector<T> host(size_);
    copy_to_host(host.data(), size_);
    return host;
  }
  // Sets every byte to `value` (stream-ordered): tests poison outputs with it.
  void fill_bytes(unsigned char value) { memory::fill_bytes(data_, value, bytes(), stream_); }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
  StreamHandle stream_ = nullptr;
};

}  // namespace cunum
