#pragma once
// The test functions of Kato, Suda and Tamada's experiments as cunum::device tasks,
// with their CPU reference. The bench times them; tests/divergence holds them against
// the reference.

#include <cstdint>

#include "cunum/device/detail/host_device.hpp"

namespace cunum::bench::divergence {

// The paper's loop body: `loop` rounds of tmp = 0xffff & (tmp * tmp + tmp), in
// unsigned arithmetic (the paper's int overflows).
CUNUM_HOST_DEVICE inline std::uint32_t paper_function(std::uint32_t tmp, int loop) {
#if defined(__CUDA_ARCH__)
#pragma unroll 8
#endif
  for (int i = 0; i < loop; ++i) tmp = 0xFFFFu & (tmp * tmp + tmp);
  return tmp;
}

// The second path of the branch experiment. The paper's two paths are the same code,
// which a compiler may merge into one unconditional loop; this one subtracts, at the
// same cost (one multiply-add and one logical operation a round).
CUNUM_HOST_DEVICE inline std::uint32_t paper_function_b(std::uint32_t tmp, int loop) {
#if defined(__CUDA_ARCH__)
#pragma unroll 8
#endif
  for (int i = 0; i < loop; ++i) tmp = 0xFFFFu & (tmp * tmp - tmp);
  return tmp;
}

// Dynamic work assignment experiment: item i starts at num = counts[i] and applies
// paper_function(., loop_num) counts[i] times (at least once, as the paper's do-while).
struct PaperLoopTask {
  const std::uint32_t* counts;
  std::uint32_t* out;
  int loop_num;

  struct State {
    std::uint32_t num = 0;
    std::uint32_t left = 0;
  };
  __device__ State start(std::int64_t item) const {
    const std::uint32_t count = counts[item];
    return {count, count > 0 ? count : 1u};
  }
  __device__ bool proceed(const State& state) const { return state.left > 0; }
  __device__ void step(State& state) const {
    state.num = paper_function(state.num, loop_num);
    --state.left;
  }
  __device__ void finish(std::int64_t item, const State& state) const { out[item] = state.num; }
};

inline std::uint32_t paper_loop_reference(std::uint32_t count, int loop_num) {
  std::uint32_t num = count;
  for (std::uint32_t i = 0; i < (count > 0 ? count : 1u); ++i) num = paper_function(num, loop_num);
  return num;
}

// Branch-path unification experiment: item i takes path A when bit 2 of keys[i] is set,
// else path B, each `loop` rounds on the item's index.
struct PaperBranchTask {
  static constexpr int kPaths = 2;
  const std::uint32_t* keys;
  std::uint32_t* out;
  int loop;

  __device__ int path(std::int64_t item) const { return (keys[item] & 0x4u) != 0 ? 0 : 1; }
  template <int Path>
  __device__ void run(std::int64_t item) const {
    const auto data = static_cast<std::uint32_t>(item);
    out[item] = Path == 0 ? paper_function(data, loop) : paper_function_b(data, loop);
  }
};

inline std::uint32_t paper_branch_reference(std::uint32_t key, std::int64_t item, int loop) {
  const auto data = static_cast<std::uint32_t>(item);
  return (key & 0x4u) != 0 ? paper_function(data, loop) : paper_function_b(data, loop);
}

}  // namespace cunum::bench::divergence
