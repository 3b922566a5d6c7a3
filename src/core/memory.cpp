#include "src/core/cuda_check.hpp"
#include "cunum/core/device_buffer.hpp"
#include "cunum/core/event_timer.hpp"
#include "cunum/core/stream.hpp"

namespace cunum {
namespace memory {

void* allocate_device(std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return nullptr;
  void* pointer = nullptr;
  CUNUM_CUDA_CHECK(cudaMallocAsync(&pointer, bytes, stream));
  return pointer;
}

void free_device(void* pointer, StreamHandle stream) noexcept {
  if (pointer != nullptr) cudaFreeAsync(pointer, stream);
}

void copy_host_to_device(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  CUNUM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
  CUNUM_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void copy_device_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  CUNUM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
  CUNUM_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void copy_device_to_device(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  CUNUM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
}

void fill_bytes(void* dst, unsigned char value, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  CUNUM_CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, stream));
}

}  // namespace memory

Stream::Stream() { CUNUM_CUDA_CHECK(cudaStreamCreateWithFlags(&handle_, cudaStreamNonBlocking)); }
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
void synchronize(StreamHandle stream) { CUNUM_CUDA_CHECK(cudaStreamSynchronize(stream)); }

EventTimer::EventTimer() {
  CUNUM_CUDA_CHECK(cudaEventCreate(&start_));
  CUNUM_CUDA_CHECK(cudaEventCreate(&stop_));
}
EventTimer::~EventTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}
void EventTimer::start(StreamHandle stream) { CUNUM_CUDA_CHECK(cudaEventRecord(start_, stream)); }
void EventTimer::stop(StreamHandle stream) { CUNUM_CUDA_CHECK(cudaEventRecord(stop_, stream)); }
float EventTimer::elapsed_ms() const {
  CUNUM_CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0f;
  CUNUM_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

}  // namespace cunum
