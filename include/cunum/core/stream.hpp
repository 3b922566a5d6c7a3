#pragma once
// Streams without CUDA headers: StreamHandle is the same type as cudaStream_t,
// so a caller's CUDA stream passes straight through. nullptr is the default stream.

struct CUstream_st;

namespace cunum {

using StreamHandle = CUstream_st*;

// Owning, non-blocking CUDA stream. Movable, not copyable.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  StreamHandle get() const noexcept { return handle_; }
  operator StreamHandle() const noexcept { return handle_; }
  void synchronize() const;

 private:
  StreamHandle handle_ = nullptr;
};

void synchronize(StreamHandle stream);

}  // namespace cunum
