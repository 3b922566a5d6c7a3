#pragma once
// Internal: one-time device setup (uploading a plan's tables) on a stream of the
// library's own, so that a constructor neither uses nor synchronises the legacy
// default stream or the caller's streams. Each device has one setup stream,
// non-blocking, created on first use and never destroyed (its handle stays valid
// for the life of the process, so buffers allocated on it may be freed on it
// whenever their owner dies). A plan whose buffers live on the setup stream frees
// them there when it is destroyed: work on other streams that uses them must have
// completed by then, which is the rule for every plan.

#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "cunum/core/device_buffer.hpp"

namespace cunum::detail {

// The current device's setup stream. @throws Error(no_device) without a device.
cudaStream_t setup_stream();

// Host arrays copied into new device buffers, allocated from `resource` (a plan's
// Placement::device_memory), on the current device's setup stream. wait() returns
// once the copies enqueued so far are complete: the host waits for the setup stream
// only. The host arrays are kept until then (an upload destroyed without wait(), by
// an exception, waits for them first).
class SetupUpload {
 public:
  explicit SetupUpload(DeviceMemoryResource* resource) : stream_(setup_stream()), resource_(resource) {}
  ~SetupUpload();
  SetupUpload(const SetupUpload&) = delete;
  SetupUpload& operator=(const SetupUpload&) = delete;

  // A buffer on the setup stream whose copy of `host` is enqueued.
  template <class T>
  DeviceBuffer<T> copy(std::vector<T> host) {
    auto kept = std::make_shared<const std::vector<T>>(std::move(host));
    DeviceBuffer<T> buffer(kept->size(), stream_, resource_);
    buffer.copy_from_host_async(kept->data(), kept->size());
    kept_.push_back(std::move(kept));
    return buffer;
  }

  // Returns when every copy enqueued so far is complete.
  void wait();

 private:
  cudaStream_t stream_;
  DeviceMemoryResource* resource_;
  std::vector<std::shared_ptr<const void>> kept_;
};

}  // namespace cunum::detail
