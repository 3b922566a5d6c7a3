#pragma once
// Internal: the Monte Carlo launch shapes, as policy types. The chunk shape follows
// from PathPolicy and the settings only (never from the device or the batch), since
// it fixes the summation order and so the results' last bits.

namespace cunum::detail {

struct PathPolicy {
  static constexpr int block_threads = 128;
  // A chunk is one warp's groups: up to max_groups_per_thread per thread, so that the
  // warp's sum is amortised over many paths while one option still spreads over
  // enough warps to fill the device.
  static constexpr int chunk_threads = 32;
  static constexpr int max_groups_per_thread = 64;
};

// Chunk sums are folded fan_in at a time until one warp can finish them.
struct CombinePolicy {
  static constexpr int fan_in = 256;
};

struct FinishPolicy {
  static constexpr int block_threads = 128;
};

}  // namespace cunum::detail
