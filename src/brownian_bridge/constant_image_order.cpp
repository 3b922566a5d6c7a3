#include "src/brownian_bridge/constant_image_order.hpp"

#include <cuda_runtime.h>

#include <atomic>
#include <vector>

#include "cunum/core/device.hpp"
#include "src/core/check.hpp"
#include "src/core/graph_capture.hpp"

namespace cunum::detail {
namespace {

constexpr std::uint64_t kNoImage = 0;

}  // namespace

// One device's chain of turns. Its event is never destroyed: a turn may come at any
// time, and a CUDA call from a static destructor may find the driver gone.
struct ConstantImageChain {
  std::mutex mutex;
  cudaEvent_t last_kernel = nullptr;  // created by the device's first turn
  bool recorded = false;              // last_kernel marks the previous turn's kernel
  std::uint64_t image = kNoImage;     // the image the symbol holds after the previous turn
};

namespace {

ConstantImageChain& current_device_chain() {
  static std::vector<ConstantImageChain> chains(static_cast<std::size_t>(device_count()));
  return chains.at(static_cast<std::size_t>(current_device()));
}

}  // namespace

std::uint64_t new_constant_image_id() noexcept {
  static std::atomic<std::uint64_t> next{kNoImage + 1};
  return next.fetch_add(1);
}

ConstantImageTurn::ConstantImageTurn(StreamHandle stream, std::uint64_t image)
    : chain_(current_device_chain()), lock_(chain_.mutex), stream_(stream), image_(image) {
  // The chain's event lives outside any graph: a captured turn could neither wait for
  // it nor leave it for the turns after the capture.
  refuse_capture(stream_,
                 "strategies 1-3 order their shared constant-memory image with events outside any graph; use a "
                 "shared-memory strategy (automatic picks one)");
  if (chain_.last_kernel == nullptr) {
    CUNUM_CHECK(cudaEventCreateWithFlags(&chain_.last_kernel, cudaEventDisableTiming));
  }
  if (chain_.recorded) CUNUM_CHECK(cudaStreamWaitEvent(stream_, chain_.last_kernel, 0));
  copy_needed_ = chain_.image != image_;
  // Until the copy is enqueued the symbol's image is unknown.
  if (copy_needed_) chain_.image = kNoImage;
}

ConstantImageTurn::~ConstantImageTurn() {
  if (!finished_ && cudaEventRecord(chain_.last_kernel, stream_) == cudaSuccess) chain_.recorded = true;
}

void ConstantImageTurn::copied() noexcept { chain_.image = image_; }

void ConstantImageTurn::finish() {
  CUNUM_CHECK(cudaEventRecord(chain_.last_kernel, stream_));
  chain_.recorded = true;
  finished_ = true;
}

}  // namespace cunum::detail
