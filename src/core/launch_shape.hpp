#pragma once
// Internal: the launch-shape arithmetic that every module's grid-stride kernels share,
// host-only, so that policies and tests can use it without nvcc.

#include <cstdint>

namespace cunum::detail {

// The most blocks a grid's x dimension takes.
constexpr std::int64_t kMaxGridBlocks = 0x7FFFFFFF;

// Blocks for a grid-stride kernel whose block takes `items_per_block` items a pass,
// enough to cover `items` in one pass: at least one, at most kMaxGridBlocks (the
// kernel's loop then takes the rest).
constexpr std::int64_t one_pass_blocks(std::int64_t items, std::int64_t items_per_block) {
  const std::int64_t needed = (items + items_per_block - 1) / items_per_block;
  const std::int64_t blocks = needed < kMaxGridBlocks ? needed : kMaxGridBlocks;
  return blocks < 1 ? 1 : blocks;
}

// Blocks for a grid-stride kernel whose block takes `items_per_block` items a pass:
// enough to cover `items`, never more than the device holds resident at once
// (`blocks_per_multiprocessor` on each of `multiprocessor_count`), and at least one.
constexpr std::int64_t resident_blocks(std::int64_t items, std::int64_t items_per_block,
                                       int blocks_per_multiprocessor, int multiprocessor_count) {
  const std::int64_t needed = one_pass_blocks(items, items_per_block);
  const std::int64_t resident = std::int64_t{multiprocessor_count} * blocks_per_multiprocessor;
  const std::int64_t blocks = needed < resident ? needed : resident;
  return blocks < 1 ? 1 : blocks;
}

}  // namespace cunum::detail
