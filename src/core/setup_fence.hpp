#pragma once
// Internal: orders a plan's one-time device setup (zeroing a workspace, uploading
// tables) before its calls, whatever stream they come on, without synchronising the
// host or the legacy stream at construction. The constructor enqueues its setup on
// a stream and record()s it; each call passes its stream to order(), which makes
// that stream wait for the setup until the setup is seen complete, and is free from
// then on. A call captured into a CUDA graph, where event queries are prohibited,
// makes the graph wait for the setup instead. Not thread-safe: a plan serves one
// caller at a time.

#include <cuda_runtime.h>

#include <utility>

#include "src/core/check.hpp"
#include "src/core/graph_capture.hpp"

namespace cunum::detail {

class SetupFence {
 public:
  SetupFence() = default;
  ~SetupFence() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  SetupFence(SetupFence&& other) noexcept
      : event_(std::exchange(other.event_, nullptr)), complete_(other.complete_) {}
  SetupFence& operator=(SetupFence&& other) noexcept {
    if (this != &other) {
      if (event_ != nullptr) cudaEventDestroy(event_);
      event_ = std::exchange(other.event_, nullptr);
      complete_ = other.complete_;
    }
    return *this;
  }
  SetupFence(const SetupFence&) = delete;
  SetupFence& operator=(const SetupFence&) = delete;

  // After the setup work has been enqueued on `stream`.
  void record(cudaStream_t stream) {
    if (event_ == nullptr) CUNUM_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
    CUNUM_CHECK(cudaEventRecord(event_, stream));
    complete_ = false;
  }

  // Before work on `stream` that reads what the setup wrote.
  void order(cudaStream_t stream) {
    if (complete_ || event_ == nullptr) return;
    if (is_capturing(stream)) {
      // A capturing thread may not query events; the graph waits for the setup
      // itself instead, as an external event node (free at replays once it is done).
      CUNUM_CHECK(cudaStreamWaitEvent(stream, event_, cudaEventWaitExternal));
      return;
    }
    const cudaError_t status = cudaEventQuery(event_);
    if (status == cudaSuccess) {
      complete_ = true;
      return;
    }
    if (status != cudaErrorNotReady) CUNUM_CHECK(status);
    // The runtime records cudaErrorNotReady as the thread's last error; clear it (only
    // it), or the application's next cudaGetLastError() reports it.
    if (cudaPeekAtLastError() == cudaErrorNotReady) cudaGetLastError();
    CUNUM_CHECK(cudaStreamWaitEvent(stream, event_, 0));
  }

 private:
  cudaEvent_t event_ = nullptr;
  bool complete_ = true;
};

}  // namespace cunum::detail
