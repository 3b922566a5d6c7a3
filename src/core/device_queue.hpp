#pragma once
// Internal: the pieces of work spread over several devices of one process (himeno's
// and Monte Carlo's multi-device plans): a non-blocking stream with events on one
// device, peer access where a pair allows it (memory pools included), and a guard
// that restores the caller's current device.

#include <mutex>
#include <set>
#include <utility>
#include <cuda_runtime.h>

#include <vector>

#include "src/core/check.hpp"

namespace cunum::detail {

// A non-blocking stream and `events` events (timing disabled) on one device,
// destroyed with it.
class DeviceQueue {
 public:
  // Creates them on `device`, which it leaves current (callers restore theirs with
  // CurrentDeviceGuard).
  DeviceQueue(int device, int events) : device_(device), events_(static_cast<std::size_t>(events), nullptr) {
    CUNUM_CHECK(cudaSetDevice(device));
    CUNUM_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (cudaEvent_t& event : events_) CUNUM_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  }
  // Leaves the caller's current device as it found it.
  ~DeviceQueue() {
    int caller = 0;
    const bool known = cudaGetDevice(&caller) == cudaSuccess;
    cudaSetDevice(device_);
    for (cudaEvent_t event : events_) cudaEventDestroy(event);
    cudaStreamDestroy(stream_);
    if (known) cudaSetDevice(caller);
  }
  DeviceQueue(const DeviceQueue&) = delete;
  DeviceQueue& operator=(const DeviceQueue&) = delete;
  int device() const noexcept { return device_; }
  cudaStream_t stream() const noexcept { return stream_; }
  cudaEvent_t event(int index) const noexcept { return events_[static_cast<std::size_t>(index)]; }

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
  std::vector<cudaEvent_t> events_;
};

// Lets `from` read and write `to`'s memory directly where the pair allows it (copies
// work either way, but without access the driver stages them instead of copying device
// to device): cudaMalloc's memory, by peer access, and that of `to`'s current memory
// pool, which cudaMallocAsync serves (cunum's default device resource) and which peer
// access does not reach: a pool's allocations are mapped on the devices the pool grants
// (cudaMemPoolSetAccess), by default its own alone. The grant is the pool's,
// process-wide, for its allocations made before and after; a resource with a pool of
// its own must grant it likewise. Leaves `from` current. Peer access is enabled once a
// process a pair: enabling it again is an API error (cudaErrorPeerAccessAlreadyEnabled)
// that compute-sanitizer reports, so the pairs done are remembered; the pool, which the
// application may change, is looked at each time.
inline void enable_peer_access(int from, int to) {
  if (from == to) return;
  static std::mutex mutex;
  static std::set<std::pair<int, int>> enabled;
  const std::lock_guard<std::mutex> lock(mutex);
  CUNUM_CHECK(cudaSetDevice(from));
  int possible = 0;
  CUNUM_CHECK(cudaDeviceCanAccessPeer(&possible, from, to));
  if (!possible) return;
  if (enabled.count({from, to}) == 0) {
    const cudaError_t status = cudaDeviceEnablePeerAccess(to, 0);
    if (status == cudaErrorPeerAccessAlreadyEnabled) {
      cudaGetLastError();  // clear it: the application enabled it, which is what we want
    } else {
      CUNUM_CHECK(status);
    }
    enabled.insert({from, to});
  }
  int pools = 0;
  CUNUM_CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, to));
  if (!pools) return;
  cudaMemPool_t pool = nullptr;
  CUNUM_CHECK(cudaDeviceGetMemPool(&pool, to));
  cudaMemAccessDesc access{};
  access.location.type = cudaMemLocationTypeDevice;
  access.location.id = from;
  access.flags = cudaMemAccessFlagsProtReadWrite;
  cudaMemAccessFlags granted = cudaMemAccessFlagsProtNone;
  CUNUM_CHECK(cudaMemPoolGetAccess(&granted, pool, &access.location));
  if (granted != cudaMemAccessFlagsProtReadWrite) CUNUM_CHECK(cudaMemPoolSetAccess(pool, &access, 1));
}

// Restores the device current at construction when it goes out of scope.
class CurrentDeviceGuard {
 public:
  CurrentDeviceGuard() { CUNUM_CHECK(cudaGetDevice(&device_)); }
  ~CurrentDeviceGuard() { cudaSetDevice(device_); }
  CurrentDeviceGuard(const CurrentDeviceGuard&) = delete;
  CurrentDeviceGuard& operator=(const CurrentDeviceGuard&) = delete;

 private:
  int device_ = 0;
};

}  // namespace cunum::detail
