#include "src/core/memory_need.hpp"

#include <unistd.h>

#include <cuda_runtime.h>

#include "src/core/check.hpp"

namespace cunum::detail {

MemoryCapacity memory_capacity(Backend backend) {
  if (backend == Backend::cuda) {
    int device = 0;
    CUNUM_CHECK(cudaGetDevice(&device));
    std::size_t free_bytes = 0, total_bytes = 0;
    CUNUM_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return {static_cast<std::uint64_t>(total_bytes), "the total memory of CUDA device " + std::to_string(device)};
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_bytes = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_bytes <= 0) {
    // Unknown: only an overflowing need is refused.
    return {std::numeric_limits<std::uint64_t>::max(), "the machine's physical memory (unknown)"};
  }
  const auto p = static_cast<std::uint64_t>(pages), s = static_cast<std::uint64_t>(page_bytes);
  const std::uint64_t bytes = p > std::numeric_limits<std::uint64_t>::max() / s
                                  ? std::numeric_limits<std::uint64_t>::max()
                                  : p * s;
  return {bytes, "the machine's physical memory"};
}

void throw_memory_need(const MemoryNeed& need, const MemoryCapacity* capacity, const char* routine,
                       const std::string& purpose) {
  const std::string what =
      capacity == nullptr
          ? "needs more than 2^64 - 1 bytes " + purpose + " (the byte count overflows 64 bits)"
          : "needs " + std::to_string(need.bytes()) + " bytes " + purpose + ", more than the " +
                std::to_string(capacity->bytes) + " bytes of " + capacity->what;
  throw Error(ErrorCode::out_of_memory, std::string(routine) + ": " + what);
}

}  // namespace cunum::detail
