#include "src/core/setup_stream.hpp"

#include <mutex>

#include "cunum/core/device.hpp"
#include "src/core/check.hpp"

namespace cunum::detail {

cudaStream_t setup_stream() {
  const int device = current_device();
  static std::mutex mutex;
  static std::vector<cudaStream_t> streams(static_cast<std::size_t>(device_count()), nullptr);
  const std::lock_guard<std::mutex> lock(mutex);
  cudaStream_t& stream = streams.at(static_cast<std::size_t>(device));
  if (stream == nullptr) CUNUM_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return stream;
}

SetupUpload::~SetupUpload() {
  if (!kept_.empty()) cudaStreamSynchronize(stream_);
}

void SetupUpload::wait() {
  CUNUM_CHECK(cudaStreamSynchronize(stream_));
  kept_.clear();
}

}  // namespace cunum::detail
