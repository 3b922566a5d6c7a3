#pragma once
/// @file
/// cunum::DeviceBuffer<T>: RAII, stream-ordered device memory, and the copies
/// between host and device memory it uses.
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
/// Byte copies and fills on a stream. `bytes` == 0 does nothing (null pointers
/// included); otherwise the pointers must address `bytes` bytes of the memory named
/// (device memory: anything the device can address, managed and mapped memory
/// included). Each throws Error ErrorCode::invalid_argument naming 'dst' or 'src'
/// when it is null and `bytes` > 0, ErrorCode::cuda_failure when CUDA refuses the
/// copy or reports an earlier failure on the stream (ErrorCode::no_device without a
/// device).
namespace memory {
/// Copies host to device; complete on return (waits for `stream`).
/// @param dst,src destination and source of `bytes` bytes
/// @param bytes   how many; 0 does nothing
/// @param stream  the stream the copy is ordered on
void copy_host_to_device(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
/// Enqueues a host-to-device copy on `stream` and returns at once; `src` must stay
/// valid and unchanged until the stream reaches the copy.
/// @param dst,src destination and source of `bytes` bytes
/// @param bytes   how many; 0 does nothing
/// @param stream  the stream the copy is enqueued on
void copy_host_to_device_async(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
/// Copies device to host; complete on return (waits for `stream`).
/// @param dst,src destination and source of `bytes` bytes
/// @param bytes   how many; 0 does nothing
/// @param stream  the stream the copy is ordered on
void copy_device_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
/// Enqueues a device-to-device copy on `stream` and returns at once.
/// @param dst,src destination and source of `bytes` bytes
/// @param bytes   how many; 0 does nothing
/// @param stream  the stream the copy is enqueued on
void copy_device_to_device_async(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
/// Enqueues setting `bytes` bytes at `dst` to `value` on `stream` and returns at once.
/// @param dst    the first byte
/// @param value  the byte written
/// @param bytes  how many; 0 does nothing
/// @param stream the stream the fill is enqueued on
void fill_bytes_async(void* dst, unsigned char value, std::size_t bytes, StreamHandle stream);
}  // namespace memory

namespace detail {
/// Not a stable interface: DeviceBuffer's allocation from `resource`, whose errors
/// name cunum::DeviceBuffer (or the cunum routine in progress that made the buffer);
/// `device` receives the device current at the allocation.
void* allocate_device_buffer(DeviceMemoryResource* resource, std::size_t bytes, StreamHandle stream, int* device);
/// Not a stable interface: returns DeviceBuffer's memory to `resource` with the device
/// it was allocated on current (a plan made for another device may be destroyed with
/// the caller's device current), restoring the caller's afterwards.
void release_device_buffer(DeviceMemoryResource* resource, void* pointer, std::size_t bytes, StreamHandle stream,
                           int device) noexcept;
}  // namespace detail

/// Device memory for `size` values of T, allocated on a stream from a
/// DeviceMemoryResource and returned to it on that stream, with the device it was
/// allocated on current, when destroyed. Movable,
/// not copyable. The contents start undefined. Every copy runs on the buffer's
/// stream. Not thread-safe: one caller at a time.
///
/// Lifetime: destruction enqueues the release on the buffer's stream and returns at
/// once, so work already enqueued on that stream may still use the memory; work on
/// other streams that uses it must have completed (or be ordered before the buffer's
/// stream) first.
template <class T>
class DeviceBuffer {
 public:
  /// An empty buffer: no memory, size 0.
  DeviceBuffer() = default;
  /// Allocates, stream-ordered: returns at once, and work enqueued on `stream`
  /// afterwards may use the memory. A size of 0 allocates nothing (data() is nullptr)
  /// and calls nothing on the resource.
  /// @param size     number of values
  /// @param stream   the stream the memory is allocated, used and freed on
  /// @param resource where the memory comes from (default: current_device_resource());
  ///                 it must outlive the buffer
  /// @throws Error ErrorCode::out_of_memory, ErrorCode::no_device ("no CUDA device"),
  ///         or the code `resource` throws, naming the cunum routine in progress (or
  ///         cunum::DeviceBuffer) and the bytes refused; a std::bad_alloc from
  ///         `resource` is ErrorCode::out_of_memory
  explicit DeviceBuffer(std::size_t size, StreamHandle stream = nullptr,
                        DeviceMemoryResource* resource = current_device_resource())
      : resource_(resource),
        data_(static_cast<T*>(detail::allocate_device_buffer(resource, size * sizeof(T), stream, &device_))),
        size_(size),
        stream_(stream) {}

  /// A buffer holding a copy of `host`; returns when the copy is complete.
  /// @param host     the values
  /// @param stream   the buffer's stream (see the constructor)
  /// @param resource where the memory comes from
  /// @throws Error as the constructor, and ErrorCode::cuda_failure from the copy
  static DeviceBuffer from_host(const std::vector<T>& host, StreamHandle stream = nullptr,
                                DeviceMemoryResource* resource = current_device_resource()) {
    DeviceBuffer buffer(host.size(), stream, resource);
    buffer.copy_from_host(host.data(), host.size());
    return buffer;
  }

  /// Returns the memory to its resource on the buffer's stream; does not wait.
  ~DeviceBuffer() { release(); }

  /// Takes `other`'s memory, stream and resource; `other` is left empty.
  /// @param other the buffer to take from
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : resource_(other.resource_),
        device_(other.device_),
        data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        stream_(other.stream_) {}
  /// Releases the memory held (as the destructor does), then takes `other`'s;
  /// `other` is left empty.
  /// @param other the buffer to take from
  /// @return *this
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      resource_ = other.resource_;
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      stream_ = other.stream_;
      device_ = other.device_;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// @return the device memory; nullptr when empty
  T* data() noexcept { return data_; }
  /// @return the device memory; nullptr when empty
  const T* data() const noexcept { return data_; }
  /// @return the number of values
  std::size_t size() const noexcept { return size_; }
  /// @return size() * sizeof(T)
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  /// @return the stream the memory is allocated, copied and freed on
  StreamHandle stream() const noexcept { return stream_; }

  /// Copies `count` <= size() values from host memory to the start of the buffer;
  /// complete on return (waits for the buffer's stream).
  /// @param host  `count` values in host memory
  /// @param count how many
  /// @throws Error ErrorCode::cuda_failure
  void copy_from_host(const T* host, std::size_t count) {
    memory::copy_host_to_device(data_, host, count * sizeof(T), stream_);
  }
  /// Enqueues the copy of `count` <= size() values from host memory on the buffer's
  /// stream and returns at once; `host` must stay valid and unchanged until the
  /// stream reaches the copy.
  /// @param host  `count` values in host memory
  /// @param count how many
  /// @throws Error ErrorCode::cuda_failure
  void copy_from_host_async(const T* host, std::size_t count) {
    memory::copy_host_to_device_async(data_, host, count * sizeof(T), stream_);
  }
  /// Copies the first `count` <= size() values into host memory; complete on return
  /// (waits for the buffer's stream, so it sees the work enqueued there before it).
  /// @param host  room for `count` values in host memory
  /// @param count how many
  /// @throws Error ErrorCode::cuda_failure
  void copy_to_host(T* host, std::size_t count) const {
    memory::copy_device_to_host(host, data_, count * sizeof(T), stream_);
  }
  /// The whole buffer in host memory; complete on return (waits for the buffer's stream).
  /// @return size() values
  /// @throws Error ErrorCode::cuda_failure
  std::vector<T> to_host() const {
    std::vector<T> host(size_);
    copy_to_host(host.data(), size_);
    return host;
  }
  /// Enqueues setting every byte to `value` on the buffer's stream and returns at
  /// once (tests poison outputs with it).
  /// @param value the byte written
  /// @throws Error ErrorCode::cuda_failure
  void fill_bytes_async(unsigned char value) { memory::fill_bytes_async(data_, value, bytes(), stream_); }

 private:
  void release() noexcept {
    if (resource_ != nullptr && data_ != nullptr) detail::release_device_buffer(resource_, data_, bytes(), stream_, device_);
  }

  DeviceMemoryResource* resource_ = nullptr;
  int device_ = -1;  // current at the allocation; declared before data_, whose allocation sets it
  T* data_ = nullptr;
  std::size_t size_ = 0;
  StreamHandle stream_ = nullptr;
};

}  // namespace cunum
