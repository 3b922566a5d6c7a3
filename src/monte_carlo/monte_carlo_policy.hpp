#pragma once
// Part of cunum's device API for callers' own Monte Carlo payoffs (not a stable
// interface of its own): the Monte Carlo launch shapes, as policy types. The chunk shape follows
// from PathPolicy and the settings only (never from the device or the batch), since
// it fixes the summation order and so the results' last bits.

#include <cstdint>

namespace cunum::detail {

struct PathPolicy {
  static constexpr int block_threads = 128;
  // A chunk is one warp's groups. An option is cut into about target_chunks chunks
  // (16 warps for each of the H100's 132 SMs), each thread taking between
  // min_groups_per_thread (so that the warp's final sum costs little per path) and
  // max_groups_per_thread groups (so that huge options make fewer partial sums).
  static constexpr int chunk_threads = 32;
  static constexpr int target_chunks = 2048;
  static constexpr int min_groups_per_thread = 16;
  static constexpr int max_groups_per_thread = 64;
};

// Quasi-random pricing walks the bridge's paths a batch at a time: a whole number of
// chunks whose paths fill about batch_bytes.
struct QuasiPolicy {
  static constexpr std::int64_t batch_bytes = std::int64_t{256} << 20;
};

// Chunk sums are folded fan_in at a time until one warp can finish them.
struct CombinePolicy {
  static constexpr int fan_in = 256;
};

struct FinishPolicy {
  static constexpr int block_threads = 128;
};

}  // namespace cunum::detail
