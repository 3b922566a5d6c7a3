#pragma once
// Internal: the one rule for plans whose memory follows from their size. A plan adds
// up, at construction and before allocating or enqueuing anything, the bytes its
// arrays will take (overflow-checked), and require_memory_need refuses with
// Error(out_of_memory) "needs N bytes ..." when that count overflows 64 bits or
// exceeds what the backend can have: the machine's physical memory for the cpu
// backend, the current device's total memory for the cuda backend. A need within it
// may still fail to allocate later (other users of the memory); one past it never fits.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "cunum/core/backend.hpp"
#include "cunum/core/error.hpp"

namespace cunum::detail {

// A byte count built from element counts; an overflow is remembered, not wrapped.
class MemoryNeed {
 public:
  // `count` elements of `element_bytes` each (count < 0 is treated as an overflow:
  // such a size is refused elsewhere first).
  MemoryNeed& add(std::int64_t count, std::size_t element_bytes) noexcept {
    if (count < 0) {
      overflow_ = true;
      return *this;
    }
    const auto n = static_cast<std::uint64_t>(count);
    const std::uint64_t size = element_bytes;
    if (size != 0 && n > std::numeric_limits<std::uint64_t>::max() / size) {
      overflow_ = true;
      return *this;
    }
    const std::uint64_t bytes = n * size;
    if (bytes > std::numeric_limits<std::uint64_t>::max() - bytes_) overflow_ = true;
    else bytes_ += bytes;
    return *this;
  }
  bool overflowed() const noexcept { return overflow_; }
  std::uint64_t bytes() const noexcept { return bytes_; }

 private:
  std::uint64_t bytes_ = 0;
  bool overflow_ = false;
};

// The bytes `backend` (resolved: cpu or cuda) can have at most, and what they are
// ("the machine's physical memory", "the total memory of CUDA device 0").
struct MemoryCapacity {
  std::uint64_t bytes;
  std::string what;
};
MemoryCapacity memory_capacity(Backend backend);

[[noreturn]] void throw_memory_need(const MemoryNeed& need, const MemoryCapacity* capacity, const char* routine,
                                    const std::string& purpose);

// Refuses `need` with Error(out_of_memory) naming `routine`, the bytes and what they
// are for: `purpose` is a literal or a callable returning the words, called only on
// failure ("for its 14 field arrays of 4096 x 4096 x 4096 floats"). `capacity` is
// memory_capacity() of the backend, which a plan checking every call keeps from its
// construction (a device's total memory does not change; asking the driver again
// costs each call microseconds).
template <class Purpose>
void require_memory_need(const MemoryNeed& need, const MemoryCapacity& capacity, const char* routine,
                         Purpose&& purpose) {
  auto words = [&]() -> std::string {
    if constexpr (std::is_invocable_r_v<std::string, Purpose&>) return purpose();
    else return std::string(purpose);
  };
  if (need.overflowed()) throw_memory_need(need, nullptr, routine, words());
  if (need.bytes() > capacity.bytes) throw_memory_need(need, &capacity, routine, words());
}

// The same against memory_capacity(backend), asked now (not asked for a need that
// overflows: that is refused whatever the capacity).
template <class Purpose>
void require_memory_need(const MemoryNeed& need, Backend backend, const char* routine, Purpose&& purpose) {
  require_memory_need(need, need.overflowed() ? MemoryCapacity{} : memory_capacity(backend), routine,
                      std::forward<Purpose>(purpose));
}

}  // namespace cunum::detail
