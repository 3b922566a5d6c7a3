#pragma once
/// @file
/// Streams without CUDA headers: StreamHandle is the same type as cudaStream_t, so
/// a caller's CUDA stream passes straight through. nullptr is the default (legacy)
/// stream.

struct CUstream_st;

namespace cunum {

/// A CUDA stream (the same type as cudaStream_t); nullptr is the default stream.
using StreamHandle = CUstream_st*;

/// An owning, non-blocking CUDA stream (cudaStreamNonBlocking: it does not
/// synchronise with the legacy default stream), created on the device current at
/// construction. Movable (the moved-from Stream holds nullptr), not copyable. One
/// Stream may be used from several threads, as CUDA streams may.
class Stream {
 public:
  /// Creates the stream.
  /// @throws Error ErrorCode::no_device without a device ("no CUDA device");
  ///         ErrorCode::cuda_failure when CUDA cannot create it.
  Stream();
  /// Destroys the stream without waiting: work already enqueued still runs to completion.
  ~Stream();
  /// Takes `other`'s stream; `other` is left holding nullptr.
  Stream(Stream&& other) noexcept;
  /// Destroys the stream held (without waiting), then takes `other`'s.
  /// @return *this
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  /// @return the handle, for cunum calls and CUDA calls alike
  StreamHandle get() const noexcept { return handle_; }
  /// @return the handle, so that a Stream passes wherever a StreamHandle does
  operator StreamHandle() const noexcept { return handle_; }
  /// Waits until all work enqueued on the stream has completed.
  /// @throws Error ErrorCode::cuda_failure when that work failed.
  void synchronize() const;

 private:
  StreamHandle handle_ = nullptr;
};

/// Waits until all work enqueued on `stream` has completed (cudaStreamSynchronize).
/// @param stream any stream; nullptr is the default stream
/// @throws Error ErrorCode::cuda_failure when that work failed; ErrorCode::no_device
///         without a device.
void synchronize(StreamHandle stream);

}  // namespace cunum
