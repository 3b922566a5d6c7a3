#pragma once
// Internal: one fill of cunum::RandomGenerator, and the block function both backends
// call (the CPU over OpenMP, the GPU one thread per Philox block). Arguments are
// validated already.

#include <cstdint>

#include "cunum/core/stream.hpp"
#include "cunum/device/philox.hpp"
#include "cunum/device/detail/host_device.hpp"

namespace cunum::detail {

// A fill is a run of `units`: a unit is the words that make one uniform, or one pair
// of normals. Unit u reads words first_word + u * words_per_unit onwards.
template <class T>
struct RandomFillArgs {
  std::uint64_t seed;
  std::uint64_t first_word;
  std::int64_t n;  // values written
  T* out;
  bool normal;
  T mean;
  T stddev;

  CUNUM_HOST_DEVICE constexpr int words_per_unit() const {
    return (sizeof(T) == sizeof(float) ? 1 : 2) * (normal ? 2 : 1);
  }
  CUNUM_HOST_DEVICE constexpr int values_per_unit() const { return normal ? 2 : 1; }
  CUNUM_HOST_DEVICE std::int64_t units() const { return (n + values_per_unit() - 1) / values_per_unit(); }
  CUNUM_HOST_DEVICE std::uint64_t words() const {
    return static_cast<std::uint64_t>(units()) * static_cast<std::uint64_t>(words_per_unit());
  }
  // The Philox blocks the fill reads: [first_block(), end_block()).
  CUNUM_HOST_DEVICE std::uint64_t first_block() const { return first_word / 4; }
  CUNUM_HOST_DEVICE std::uint64_t end_block() const { return (first_word + words() + 3) / 4; }
};

// The value of a unit from its words (up to 4), mapped and written.
CUNUM_HOST_DEVICE inline void write_unit(const RandomFillArgs<float>& args, std::int64_t unit,
                                         const std::uint32_t* words) {
  if (!args.normal) {
    args.out[unit] = device::uniform_float(words[0]);
    return;
  }
  float pair[2];
  device::box_muller(device::uniform_float(words[0]), device::uniform_float(words[1]), pair);
  const std::int64_t first = 2 * unit;
  args.out[first] = args.mean + args.stddev * pair[0];
  if (first + 1 < args.n) args.out[first + 1] = args.mean + args.stddev * pair[1];
}

CUNUM_HOST_DEVICE inline void write_unit(const RandomFillArgs<double>& args, std::int64_t unit,
                                         const std::uint32_t* words) {
  if (!args.normal) {
    args.out[unit] = device::uniform_double(words[0], words[1]);
    return;
  }
  double pair[2];
  device::box_muller(device::uniform_double(words[0], words[1]), device::uniform_double(words[2], words[3]), pair);
  const std::int64_t first = 2 * unit;
  args.out[first] = args.mean + args.stddev * pair[0];
  if (first + 1 < args.n) args.out[first + 1] = args.mean + args.stddev * pair[1];
}

// Writes every unit whose first word lies in Philox block `block` (the next block is
// generated too only when a unit straddles the boundary, i.e. for an offset that is
// not a multiple of the unit's words).
template <class T>
CUNUM_HOST_DEVICE void fill_block(const RandomFillArgs<T>& args, std::uint64_t block) {
  const auto per_unit = static_cast<std::uint64_t>(args.words_per_unit());
  const std::uint64_t block_begin = 4 * block, block_end = block_begin + 4;
  const std::uint64_t relative_begin = block_begin > args.first_word ? block_begin - args.first_word : 0;
  const std::uint64_t unit_begin = (relative_begin + per_unit - 1) / per_unit;
  std::uint64_t unit_end = (block_end - args.first_word + per_unit - 1) / per_unit;
  const auto units = static_cast<std::uint64_t>(args.units());
  if (unit_end > units) unit_end = units;
  if (unit_begin >= unit_end) return;
  std::uint32_t words[8];
  const device::PhiloxWords current = device::generator_block(args.seed, block);
  for (int k = 0; k < 4; ++k) words[k] = current.w[k];
  const std::uint64_t last_word = args.first_word + unit_end * per_unit - 1;
  if (last_word >= block_end) {
    const device::PhiloxWords next = device::generator_block(args.seed, block + 1);
    for (int k = 0; k < 4; ++k) words[4 + k] = next.w[k];
  }
  for (std::uint64_t unit = unit_begin; unit < unit_end; ++unit) {
    write_unit(args, static_cast<std::int64_t>(unit), words + (args.first_word + unit * per_unit - block_begin));
  }
}

// OpenMP: host pointers, synchronous; blocks of Philox blocks independent of the
// thread count (the values do not depend on the split anyway).
template <class T>
void random_fill_cpu(const RandomFillArgs<T>& args);

// CUDA: device-accessible pointers, asynchronous on `stream`; one thread per Philox
// block in a grid-stride loop sized from the multiprocessor count.
template <class T>
void random_fill_cuda(const RandomFillArgs<T>& args, int multiprocessor_count, StreamHandle stream);

}  // namespace cunum::detail
