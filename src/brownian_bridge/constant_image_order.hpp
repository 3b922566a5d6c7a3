#pragma once
// Internal: the ordering guard of the constant-memory strategies' image.
//
// Strategies 1-3 read their strategy from one __constant__ symbol per device
// (c_bridge, kernels/brownian_bridge/brownian_bridge_constant.cu): at up to 56 KiB the image
// is too large for a kernel parameter (32 KiB at most), so each call copies its
// bridge's image into the symbol before it launches. Unguarded, a copy enqueued on
// one stream could overwrite the symbol while a kernel on another stream still reads
// it. The guard makes the uses of each device's symbol one chain: holding the
// device's mutex, a turn makes its stream wait (cudaStreamWaitEvent) for the event
// recorded after the previous turn's kernel, copies its image unless the symbol
// already holds it, launches, and records the event after its kernel. So every copy
// runs after every earlier kernel that read the symbol and before every later one,
// whatever their streams and host threads; constant-strategy kernels of one device
// run one after another.
//
// The wait is made on the previous turn's stream too, where stream order already
// implies it (it costs an API call, nothing on the device): a stream handle does not
// name one stream over time (a destroyed stream's handle may come back while its
// work still runs; cudaStreamPerThread names another stream on each thread). The
// copy is skipped only when the symbol holds this image, named by an id that is
// never reused (not by an address, which a later bridge may share), and no other
// image was copied since.

#include <cstdint>
#include <mutex>

#include "cunum/core/stream.hpp"

namespace cunum::detail {

// A new image id, one per bridge and precision; 0 is never given.
std::uint64_t new_constant_image_id() noexcept;

// One device's chain of turns (constant_image_order.cpp).
struct ConstantImageChain;

// One turn on the current device's symbol, from construction (lock, wait) to
// finish() (event recorded after the turn's kernel). Holds the device's mutex for
// its whole life.
class ConstantImageTurn {
 public:
  // Locks the device's record and enqueues on `stream` the wait for the previous turn's kernel.
  // @throws Error(not_supported) when `stream` is being captured into a CUDA graph.
  ConstantImageTurn(StreamHandle stream, std::uint64_t image);
  // A turn left without finish() (an exception after the wait) still records its
  // event, so that later turns order after whatever it enqueued.
  ~ConstantImageTurn();
  ConstantImageTurn(const ConstantImageTurn&) = delete;
  ConstantImageTurn& operator=(const ConstantImageTurn&) = delete;

  // Whether the image must be copied into the symbol before the launch.
  bool copy_needed() const noexcept { return copy_needed_; }
  // After the copy has been enqueued: the symbol holds the turn's image, in stream order.
  void copied() noexcept;
  // After the launch: records the event the next turn waits for.
  void finish();

 private:
  ConstantImageChain& chain_;
  std::unique_lock<std::mutex> lock_;
  StreamHandle stream_;
  std::uint64_t image_;
  bool copy_needed_ = true;
  bool finished_ = false;
};

}  // namespace cunum::detail
