#include <atomic>

#include "cunum/core/device_buffer.hpp"
#include "cunum/core/event_timer.hpp"
#include "cunum/core/memory_resource.hpp"
#include "cunum/core/stream.hpp"
#include "src/core/check.hpp"

namespace cunum {
namespace {

class AsyncMemoryResource final : public DeviceMemoryResource {
  void* do_allocate(std::size_t bytes, StreamHandle stream) override {
    void* pointer = nullptr;
    CUNUM_CHECK(cudaMallocAsync(&pointer, bytes, stream));
    return pointer;
  }
  void do_deallocate(void* pointer, std::size_t, StreamHandle stream) noexcept override {
    cudaFreeAsync(pointer, stream);
  }
};

AsyncMemoryResource async_resource;
std::atomic<DeviceMemoryResource*> current_resource{&async_resource};

}  // namespace

DeviceMemoryResource* async_memory_resource() noexcept { return &async_resource; }

DeviceMemoryResource* current_device_resource() noexcept { return current_resource.load(); }

DeviceMemoryResource* set_current_device_resource(DeviceMemoryResource* resource) noexcept {
  return current_resource.exchange(resource != nullptr ? resource : &async_resource);
}

namespace memory {

void copy_host_to_device(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  CUNUM_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
  CUNUM_CHECK(cudaStreamSynchronize(stream));
}

void copy_host_to_device_async(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  CUNUM_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
}

void copy_device_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  CUNUM_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
  CUNUM_CHECK(cudaStreamSynchronize(stream));
}

void copy_device_to_device_async(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  CUNUM_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
}

void fill_bytes_async(void* dst, unsigned char value, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  CUNUM_CHECK(cudaMemsetAsync(dst, value, bytes, stream));
}

}  // namespace memory

Stream::Stream() { CUNUM_CHECK(cudaStreamCreateWithFlags(&handle_, cudaStreamNonBlocking)); }
Stream::~Stream() {
  if (handle_ != nullptr) cudaStreamDestroy(handle_);
}
Stream::Stream(Stream&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) cudaStreamDestroy(handle_);
    handle_ = other.handle_;
    other.handle_ = nullptr;
  }
  return *this;
}
void Stream::synchronize() const { cunum::synchronize(handle_); }
void synchronize(StreamHandle stream) { CUNUM_CHECK(cudaStreamSynchronize(stream)); }

EventTimer::EventTimer() {
  CUNUM_CHECK(cudaEventCreate(&start_));
  CUNUM_CHECK(cudaEventCreate(&stop_));
}
EventTimer::~EventTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}
void EventTimer::start(StreamHandle stream) { CUNUM_CHECK(cudaEventRecord(start_, stream)); }
void EventTimer::stop(StreamHandle stream) { CUNUM_CHECK(cudaEventRecord(stop_, stream)); }
float EventTimer::elapsed_ms() const {
  CUNUM_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0f;
  CUNUM_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

}  // namespace cunum
