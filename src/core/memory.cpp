#include <atomic>
#include <new>
#include <string>

#include "cunum/core/device_buffer.hpp"
#include "cunum/core/event_timer.hpp"
#include "cunum/core/memory_resource.hpp"
#include "cunum/core/stream.hpp"
#include "src/core/check.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"

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

class PinnedMemoryResource final : public HostMemoryResource {
  void* do_allocate(std::size_t bytes) override {
    void* pointer = nullptr;
    CUNUM_CHECK(cudaMallocHost(&pointer, bytes));
    return pointer;
  }
  void do_deallocate(void* pointer, std::size_t) noexcept override { cudaFreeHost(pointer); }
};

AsyncMemoryResource async_resource;
PinnedMemoryResource pinned_resource;
std::atomic<DeviceMemoryResource*> current_resource{&async_resource};

}  // namespace

DeviceMemoryResource* async_memory_resource() noexcept { return &async_resource; }

HostMemoryResource* pinned_memory_resource() noexcept { return &pinned_resource; }

DeviceMemoryResource* current_device_resource() noexcept { return current_resource.load(); }

DeviceMemoryResource* set_current_device_resource(DeviceMemoryResource* resource) noexcept {
  return current_resource.exchange(resource != nullptr ? resource : &async_resource);
}

namespace detail {
namespace {

// What an Error says after the "cunum [code]: " its constructor puts first.
std::string problem_of(const Error& error) {
  const std::string prefix = std::string("cunum [") + to_string(error.code()) + "]: ";
  const std::string message = error.what();
  return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

// A resource's refusal, named as every cunum error is: after the routine in progress
// (an application's resource cannot know it), with the bytes asked for.
[[noreturn]] void throw_refused(ErrorCode code, std::size_t bytes, const std::string& why) {
  throw Error(code, std::string(RoutineScope::current()) + ": the device memory resource refused " +
                        std::to_string(bytes) + " bytes (" + why + ")");
}

}  // namespace

void* allocate_device_buffer(DeviceMemoryResource* resource, std::size_t bytes, StreamHandle stream, int* device) {
  const RoutineScope scope("cunum::DeviceBuffer");
  if (bytes == 0) return nullptr;
  CUNUM_CHECK(cudaGetDevice(device));
  try {
    return resource->allocate(bytes, stream);
  } catch (const Error& error) {
    const std::string problem = problem_of(error);
    // cunum's own resources already name it (CUNUM_CHECK).
    if (problem.rfind(std::string(RoutineScope::current()) + ": ", 0) == 0) throw;
    throw_refused(error.code(), bytes, problem);
  } catch (const std::bad_alloc& error) {
    // Pools written to the standard allocator's contract (RMM's) throw this.
    throw_refused(ErrorCode::out_of_memory, bytes, std::string("std::bad_alloc: ") + error.what());
  }
}

void release_device_buffer(DeviceMemoryResource* resource, void* pointer, std::size_t bytes, StreamHandle stream,
                           int device) noexcept {
  int current = device;
  if (cudaGetDevice(&current) != cudaSuccess || current == device || cudaSetDevice(device) != cudaSuccess) {
    resource->deallocate(pointer, bytes, stream);
    return;
  }
  resource->deallocate(pointer, bytes, stream);
  cudaSetDevice(current);
}

}  // namespace detail

namespace memory {
namespace {

// Every copy helper: enqueued on `stream`, and waited for when `wait`.
void copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, StreamHandle stream, bool wait) {
  if (bytes == 0) return;
  const char* routine = detail::RoutineScope::current();
  detail::require(dst != nullptr, routine, "dst", "is null but 'bytes' is not 0");
  detail::require(src != nullptr, routine, "src", "is null but 'bytes' is not 0");
  CUNUM_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
  if (wait) CUNUM_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace

void copy_host_to_device(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  const detail::RoutineScope scope("cunum::memory::copy_host_to_device");
  copy(dst, src, bytes, cudaMemcpyHostToDevice, stream, true);
}
void copy_host_to_device_async(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  const detail::RoutineScope scope("cunum::memory::copy_host_to_device_async");
  copy(dst, src, bytes, cudaMemcpyHostToDevice, stream, false);
}
void copy_device_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  const detail::RoutineScope scope("cunum::memory::copy_device_to_host");
  copy(dst, src, bytes, cudaMemcpyDeviceToHost, stream, true);
}
void copy_device_to_device_async(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  const detail::RoutineScope scope("cunum::memory::copy_device_to_device_async");
  copy(dst, src, bytes, cudaMemcpyDeviceToDevice, stream, false);
}

void fill_bytes_async(void* dst, unsigned char value, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  const detail::RoutineScope scope("cunum::memory::fill_bytes_async");
  detail::require(dst != nullptr, detail::RoutineScope::current(), "dst", "is null but 'bytes' is not 0");
  CUNUM_CHECK(cudaMemsetAsync(dst, value, bytes, stream));
}

}  // namespace memory

Stream::Stream() {
  const detail::RoutineScope scope("cunum::Stream");
  CUNUM_CHECK(cudaStreamCreateWithFlags(&handle_, cudaStreamNonBlocking));
}
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
void Stream::synchronize() const {
  const detail::RoutineScope scope("cunum::Stream::synchronize");
  cunum::synchronize(handle_);
}
void synchronize(StreamHandle stream) {
  const detail::RoutineScope scope("cunum::synchronize");
  CUNUM_CHECK(cudaStreamSynchronize(stream));
}

EventTimer::EventTimer() {
  const detail::RoutineScope scope("cunum::EventTimer");
  CUNUM_CHECK(cudaEventCreate(&start_));
  CUNUM_CHECK(cudaEventCreate(&stop_));
}
EventTimer::~EventTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}
void EventTimer::start(StreamHandle stream) {
  const detail::RoutineScope scope("cunum::EventTimer::start");
  CUNUM_CHECK(cudaEventRecord(start_, stream));
  started_ = true;
  stopped_ = false;  // a stop before this start measures nothing
}
void EventTimer::stop(StreamHandle stream) {
  const detail::RoutineScope scope("cunum::EventTimer::stop");
  CUNUM_CHECK(cudaEventRecord(stop_, stream));
  stopped_ = true;
}
float EventTimer::elapsed_ms() const {
  constexpr const char* routine = "cunum::EventTimer::elapsed_ms";
  const detail::RoutineScope scope(routine);
  detail::require(started_ && stopped_, routine, "this", "has not recorded both start() and stop()");
  CUNUM_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0f;
  CUNUM_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

}  // namespace cunum
