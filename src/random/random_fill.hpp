#pragma once
// Internal: one fill of cunum::RandomGenerator, and the per-unit function of each
// generator that both backends call (the CPU over OpenMP in random_cpu.cpp, the GPU
// one thread each in kernels/random/random_fill_kernel.cuh): PhiloxFill::fill_block
// (one Philox block), fill_mrg_lane (one MRG32k3a subsequence), SobolGroupRun (a
// strided run of one dimension's groups of points) and fill_sobol_edges. Arguments
// are validated already. The backend interface is src/random/random_backends.hpp.

#include <cstdint>
#include <type_traits>

#include "cunum/device/mrg32k3a.hpp"
#include "cunum/device/philox.hpp"
#include "cunum/device/sobol.hpp"
#include "cunum/device/detail/float_normal_math.hpp"
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
};

// The shape of a fill's unit, fixed at compile time so that the index arithmetic of
// a block is shifts: 1 word (uniform float), 2 (uniform double, normal float) or 4
// (normal double); 1 value, or 2 for a Box-Muller pair.
template <class T, bool Normal>
struct PhiloxUnit {
  static constexpr int words = (sizeof(T) == sizeof(float) ? 1 : 2) * (Normal ? 2 : 1);
  static constexpr int word_shift = words == 1 ? 0 : (words == 2 ? 1 : 2);
  static constexpr int values = Normal ? 2 : 1;
  static constexpr int value_shift = Normal ? 1 : 0;
  // A Philox block's 4 words make 16 bytes of values when its units are its own.
  static constexpr int block_units = 4 / words;
  static constexpr int block_values = block_units * values;
};

// mean + stddev z as one fma, so that the CPU and the GPU round it alike (a compiler
// would fuse it on one and not the other).
template <class T>
CUNUM_HOST_DEVICE T scaled_normal(T mean, T stddev, T z) {
  return float_normal_math::fma_rn(stddev, z, mean);
}

// The values of one unit from its words.
template <class T, bool Normal>
CUNUM_HOST_DEVICE void unit_values(const RandomFillArgs<T>& args, const std::uint32_t* words, T* values) {
  if constexpr (!Normal) {
    if constexpr (sizeof(T) == sizeof(float)) {
      values[0] = device::uniform_float(words[0]);
    } else {
      values[0] = device::uniform_double(words[0], words[1]);
    }
  } else {
    T pair[2];
    if constexpr (sizeof(T) == sizeof(float)) {
      device::box_muller(device::uniform_float(words[0]), device::uniform_float(words[1]), pair);
    } else {
      device::box_muller(device::uniform_double(words[0], words[1]), device::uniform_double(words[2], words[3]),
                         pair);
    }
    values[0] = scaled_normal(args.mean, args.stddev, pair[0]);
    values[1] = scaled_normal(args.mean, args.stddev, pair[1]);
  }
}

// The 16 bytes of a block's values at a 16-byte aligned `out`: one store on the GPU.
template <class T, int Count>
CUNUM_HOST_DEVICE void store_aligned_block_values(T* out, const T (&values)[Count]) {
  static_assert(Count * sizeof(T) == 16, "a block's values are 16 bytes");
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == sizeof(float)) {
    *reinterpret_cast<float4*>(out) = make_float4(values[0], values[1], values[2], values[3]);
  } else {
    *reinterpret_cast<double2*>(out) = make_double2(values[0], values[1]);
  }
#else
  for (int k = 0; k < Count; ++k) out[k] = values[k];
#endif
}

// The 16 bytes of a block's values with the widest stores `out`'s alignment allows.
// Every whole block of a fill has the same alignment, so a warp takes one branch.
template <class T, int Count>
CUNUM_HOST_DEVICE void store_block_values(T* out, const T (&values)[Count]) {
  static_assert(Count * sizeof(T) == 16, "a block's values are 16 bytes");
#if defined(__CUDA_ARCH__)
  const auto address = reinterpret_cast<std::uintptr_t>(out);
  if (address % 16 == 0) {
    store_aligned_block_values(out, values);
    return;
  }
  if constexpr (sizeof(T) == sizeof(float)) {
    if (address % 8 == 0) {
      reinterpret_cast<float2*>(out)[0] = make_float2(values[0], values[1]);
      reinterpret_cast<float2*>(out)[1] = make_float2(values[2], values[3]);
      return;
    }
  }
#endif
  for (int k = 0; k < Count; ++k) out[k] = values[k];
}

// One Philox fill with its unit shape fixed. Block i of the fill (i < blocks(), the
// Philox block first_word / 4 + i) writes the units whose first word lies in it.
// When the offset is a multiple of the unit's words, a block's units are its own,
// and a whole block (all but the fill's first and last, at most: the blocks of
// [whole_begin(), whole_end())) writes its 16 bytes of values at once; the others,
// every block where units straddle blocks, go unit by unit (fill_units). Made once a
// fill, on the host for the GPU (the kernel's parameter: the Philox round keys and the
// fill's shape come from the kernel's constant bank, not from each thread's arithmetic).
template <class T, bool Normal>
class PhiloxFill {
 public:
  using Unit = PhiloxUnit<T, Normal>;

  CUNUM_HOST_DEVICE explicit PhiloxFill(const RandomFillArgs<T>& args)
      : args_(args),
        keys_(device::philox_round_keys(args.seed)),
        first_block_(args.first_word / 4),
        units_((static_cast<std::uint64_t>(args.n) + Unit::values - 1) >> Unit::value_shift),
        // From first_word's block, not from word 0: a fill may end at the stream's last
        // word, where first_word + words + 3 would wrap.
        blocks_(((args.first_word % 4) + (units_ << Unit::word_shift) + 3) / 4),
        lead_values_(static_cast<std::int64_t>((args.first_word % 4) >> Unit::word_shift) * Unit::values) {
    // Whole blocks: their first value at or after the fill's first, their last before n.
    if (args.first_word % Unit::words == 0) {
      whole_begin_ = lead_values_ == 0 ? 0 : 1;
      whole_end_ = static_cast<std::uint64_t>(args.n + lead_values_) / Unit::block_values;
      if (whole_end_ < whole_begin_) whole_end_ = whole_begin_;
    }
  }

  CUNUM_HOST_DEVICE std::uint64_t blocks() const { return blocks_; }
  CUNUM_HOST_DEVICE std::uint64_t whole_begin() const { return whole_begin_; }
  CUNUM_HOST_DEVICE std::uint64_t whole_end() const { return whole_end_; }

  CUNUM_HOST_DEVICE void fill_block(std::uint64_t index) const {
    if (index >= whole_begin_ && index < whole_end_) {
      fill_whole_block(index);
    } else {
      fill_units(index);
    }
  }

  // Block `index` of [whole_begin(), whole_end()).
  CUNUM_HOST_DEVICE void fill_whole_block(std::uint64_t index) const {
    const device::PhiloxWords words = device::generator_block(keys_, first_block_ + index);
    T values[Unit::block_values];
    for (int unit = 0; unit < Unit::block_units; ++unit) {
      unit_values<T, Normal>(args_, words.w + unit * Unit::words, values + unit * Unit::values);
    }
    store_block_values(args_.out + (static_cast<std::int64_t>(index) * Unit::block_values - lead_values_), values);
  }

  // The units whose first word lies in block `index`, one by one; the next block is
  // generated too when the last of them straddles the boundary.
  CUNUM_HOST_DEVICE void fill_units(std::uint64_t index) const {
    const std::uint64_t block = first_block_ + index;
    const std::uint64_t block_begin = 4 * block, block_end = block_begin + 4;
    const std::uint64_t relative_begin = block_begin > args_.first_word ? block_begin - args_.first_word : 0;
    const std::uint64_t unit_begin = (relative_begin + Unit::words - 1) >> Unit::word_shift;
    std::uint64_t unit_end = (block_end - args_.first_word + Unit::words - 1) >> Unit::word_shift;
    if (unit_end > units_) unit_end = units_;
    if (unit_begin >= unit_end) return;
    std::uint32_t words[8];
    const device::PhiloxWords current = device::generator_block(keys_, block);
    for (int k = 0; k < 4; ++k) words[k] = current.w[k];
    const std::uint64_t last_word = args_.first_word + (unit_end << Unit::word_shift) - 1;
    if (last_word >= block_end) {
      const device::PhiloxWords next = device::generator_block(keys_, block + 1);
      for (int k = 0; k < 4; ++k) words[4 + k] = next.w[k];
    }
    for (std::uint64_t unit = unit_begin; unit < unit_end; ++unit) {
      T values[Unit::values];
      unit_values<T, Normal>(args_, words + (args_.first_word + (unit << Unit::word_shift) - block_begin), values);
      const auto first = static_cast<std::int64_t>(unit << Unit::value_shift);
      args_.out[first] = values[0];
      if (Normal && first + 1 < args_.n) args_.out[first + 1] = values[1];
    }
  }

 private:
  RandomFillArgs<T> args_;
  device::PhiloxRoundKeys keys_;
  std::uint64_t first_block_;
  std::uint64_t units_;
  std::uint64_t blocks_;
  std::int64_t lead_values_;  // values of the first block's units before first_word
  std::uint64_t whole_begin_ = 0;
  std::uint64_t whole_end_ = 0;  // none where units straddle blocks
};

// Calls run(std::true_type{}) for a normal fill, run(std::false_type{}) for a uniform
// one: how each backend picks the fill templated on it.
template <class Run>
void dispatch_normal(bool normal, Run&& run) {
  if (normal) {
    run(std::true_type{});
  } else {
    run(std::false_type{});
  }
}

// MRG32k3a in cuRAND's host-API order: raw output k (counted from the seed's start)
// is output k / kMrgLanes of subsequence (lane) k mod kMrgLanes, lanes 2^76 apart. A
// fill starting at raw output `first` runs one lane per thread t < kMrgLanes: lane
// (first + t) mod kMrgLanes from its output (first + t) / kMrgLanes on, drawing
// consecutively; its m-th unit is unit t + m kMrgLanes of the fill (one value, or
// one Box-Muller pair on two consecutive draws).
constexpr std::uint64_t kMrgLanes = 81920;
// Substream tables enough for any lane below kMrgLanes < 2^17.
constexpr int kMrgLaneTables = 17;

template <class T>
struct MrgFillArgs {
  device::Mrg32k3aState seeded;  // lane 0, output 0
  device::MrgMatrix lane_tables1[kMrgLaneTables];  // A1^(2^(76 + k))
  device::MrgMatrix lane_tables2[kMrgLaneTables];  // A2^(2^(76 + k))
  device::Mrg32k3aJump start_jump[2];  // outputs first / kMrgLanes and one more
  std::uint64_t first_lane;            // first mod kMrgLanes
  std::int64_t n;
  T* out;
  bool normal;
  T mean;
  T stddev;

  // Values or Box-Muller pairs (a division by a constant, not by a run-time unit size).
  CUNUM_HOST_DEVICE std::int64_t units() const { return normal ? (n + 1) / 2 : n; }
  // The threads (lanes) that have work: min(units, kMrgLanes).
  CUNUM_HOST_DEVICE std::int64_t lanes() const {
    return units() < static_cast<std::int64_t>(kMrgLanes) ? units() : static_cast<std::int64_t>(kMrgLanes);
  }
};

// The raw outputs a fill of `units` units of `draws_per_unit` draws moves the stream
// position on (cuRAND's: whole rounds of kMrgLanes units, then the partial round's
// lanes one output each).
constexpr std::uint64_t mrg_advance(std::uint64_t units, std::uint64_t draws_per_unit) {
  return draws_per_unit * kMrgLanes * (units / kMrgLanes) + units % kMrgLanes;
}

// The raw outputs such a fill reads, counted from its first: one past the last. Lane
// t draws outputs first + t + kMrgLanes j; the lanes of a partial last round draw
// once more than the others, so with two draws a unit a fill reads up to kMrgLanes
// outputs past mrg_advance (with one draw a unit the two are equal).
constexpr std::uint64_t mrg_reach(std::uint64_t units, std::uint64_t draws_per_unit) {
  const std::uint64_t rounds = units / kMrgLanes, partial = units % kMrgLanes;
  if (partial == 0) return draws_per_unit * kMrgLanes * rounds;
  return partial + kMrgLanes * (draws_per_unit * (rounds + 1) - 1);
}

// The state thread `thread` (< args.lanes()) starts from: its lane's substreams on
// from the seed's start, then the jump to its first output.
template <class T>
CUNUM_HOST_DEVICE device::Mrg32k3aState mrg_lane_start(const MrgFillArgs<T>& args, std::int64_t thread) {
  std::uint64_t lane = args.first_lane + static_cast<std::uint64_t>(thread);
  const bool next_output = lane >= kMrgLanes;
  if (next_output) lane -= kMrgLanes;
  device::Mrg32k3aState state = args.seeded;
  device::mrg32k3a_skip_substreams(state, lane, args.lane_tables1, args.lane_tables2);
  device::mrg32k3a_apply(args.start_jump[next_output ? 1 : 0], state);
  return state;
}

// Moves thread `thread`'s start state to thread + 1's: one substream on (the jumps
// are powers of one matrix, so their order does not matter), or from scratch where
// the next lane wraps to lane 0 of the next output.
template <class T>
CUNUM_HOST_DEVICE void mrg_next_lane_start(const MrgFillArgs<T>& args, std::int64_t thread,
                                           device::Mrg32k3aState& state) {
  if (args.first_lane + static_cast<std::uint64_t>(thread) + 1 == kMrgLanes) {
    state = mrg_lane_start(args, thread + 1);
    return;
  }
  device::mrg32k3a_skip_substreams(state, 1, args.lane_tables1, args.lane_tables2);
}

// Writes the units of thread `thread` (< args.lanes()), drawing from `state`, its
// start.
template <bool Normal, class T>
CUNUM_HOST_DEVICE void fill_mrg_lane(const MrgFillArgs<T>& args, std::int64_t thread, device::Mrg32k3aState state) {
  const std::int64_t units = args.units();
  // Three units an iteration on the GPU: a multiple of the state's three words, so
  // that they stay in place instead of moving down a register each draw.
  CUNUM_UNROLL_BY_3
  for (std::int64_t unit = thread; unit < units; unit += static_cast<std::int64_t>(kMrgLanes)) {
    if constexpr (!Normal) {
      const std::uint64_t output = device::mrg32k3a_next(state);
      if constexpr (sizeof(T) == sizeof(float)) {
        args.out[unit] = device::mrg32k3a_curand_uniform_float(output);
      } else {
        args.out[unit] = device::mrg32k3a_curand_uniform_double(output);
      }
    } else {
      T pair[2];
      if constexpr (sizeof(T) == sizeof(float)) {
        const float u1 = device::mrg32k3a_curand_uniform_float(device::mrg32k3a_next(state));
        device::box_muller(u1, device::mrg32k3a_curand_uniform_float(device::mrg32k3a_next(state)), pair);
      } else {
        const double u1 = device::mrg32k3a_curand_uniform_double(device::mrg32k3a_next(state));
        device::box_muller(u1, device::mrg32k3a_curand_uniform_double(device::mrg32k3a_next(state)), pair);
      }
      const std::int64_t first = 2 * unit;
      args.out[first] = scaled_normal(args.mean, args.stddev, pair[0]);
      if (first + 1 < args.n) args.out[first + 1] = scaled_normal(args.mean, args.stddev, pair[1]);
    }
  }
}

// Sobol in cuRAND's host-API layout: a fill of n > 0 values in d dimensions is n / d
// points from point `first_point`, dimension k's points contiguous at
// [k n / d, (k + 1) n / d). `tables` holds each dimension's bits direction vectors
// followed by its scrambling constant (bits + 1 words a dimension).
//
// The backends take a dimension's points in groups of 16 bytes of values: group q is
// points G q to G q + G - 1 (G = 4 floats or 2 doubles, absolute point indices). Its
// first point's index has its low bits clear, so the Gray codes of its points are that
// index's XOR the Gray codes of 0 to G - 1: the group's words are one word XOR G
// constants, and its values one 16-byte store. The fill's whole groups, those of G of
// its points, are [whole_first_group(), whole_end_group()); the fill's first point
// may fall inside a group (the lead group) and so may its end (the trail group), or both
// inside one.
template <class T, class Word>
struct SobolFillArgs {
  static constexpr int group_points_log2 = sizeof(T) == sizeof(float) ? 2 : 1;
  static constexpr int group_points = 1 << group_points_log2;
  static constexpr std::uint64_t group_mask = group_points - 1;

  const Word* tables;
  std::uint64_t first_point;
  std::int64_t points;  // per dimension
  std::int64_t n;       // points x dimensions
  T* out;
  bool normal;
  T mean;
  T stddev;

  // One past the fill's last point: at most 2^64 - 1, the end of the sobol64 stream.
  CUNUM_HOST_DEVICE std::uint64_t end_point() const { return first_point + static_cast<std::uint64_t>(points); }
  CUNUM_HOST_DEVICE std::uint64_t whole_first_group() const {
    return (first_point >> group_points_log2) + ((first_point & group_mask) != 0 ? 1 : 0);
  }
  CUNUM_HOST_DEVICE std::uint64_t whole_end_group() const {
    const std::uint64_t end = end_point() >> group_points_log2;
    return end > whole_first_group() ? end : whole_first_group();
  }
  CUNUM_HOST_DEVICE std::int64_t whole_groups() const {
    return static_cast<std::int64_t>(whole_end_group() - whole_first_group());
  }
};

// What a value needs of its point's word: a float's the high 32 bits (all of a 32-bit
// word), a double's the whole word. The Gray-code XORs act on each bit alone, so a float
// fill of a 64-bit sequence steps the high halves only.
template <class T, class Word>
using SobolValueWord = std::conditional_t<sizeof(T) == sizeof(float), std::uint32_t, Word>;

template <class T, class Word>
CUNUM_HOST_DEVICE SobolValueWord<T, Word> sobol_value_word(Word word) {
  return static_cast<SobolValueWord<T, Word>>(static_cast<std::uint64_t>(word) >>
                                              (sizeof(Word) * 8 - sizeof(SobolValueWord<T, Word>) * 8));
}

// The fill's value of a point's word (its sobol_value_word): cuRAND's uniform, or
// mean + stddev z with z its inverse-normal-CDF normal.
template <bool Normal, class T, class Word>
CUNUM_HOST_DEVICE T sobol_value(const SobolFillArgs<T, Word>& args, SobolValueWord<T, Word> word) {
  if constexpr (!Normal) {
    if constexpr (sizeof(T) == sizeof(float)) {
      return device::sobol_uniform_float(word);
    } else {
      return device::sobol_uniform_double(word);
    }
  } else {
    T z;
    if constexpr (sizeof(T) == sizeof(float)) {
      z = device::sobol_normal_float(word);
    } else if constexpr (sizeof(Word) == sizeof(std::uint64_t)) {
      z = device::sobol_normal_double(word);
    } else {
      z = device::sobol_normal(word);
    }
    return scaled_normal(args.mean, args.stddev, z);
  }
}

// The values of the group whose first point's value word is `word`, `offsets` the value
// words of the Gray codes of 0 to G - 1 in its dimension (sobol_group_offsets).
template <bool Normal, class T, class Word, class ValueWord, int GroupPoints>
CUNUM_HOST_DEVICE void sobol_group_values(const SobolFillArgs<T, Word>& args, ValueWord word,
                                          const ValueWord (&offsets)[GroupPoints], T (&values)[GroupPoints]) {
  for (int point = 0; point < GroupPoints; ++point) {
    values[point] = sobol_value<Normal>(args, static_cast<ValueWord>(word ^ offsets[point]));
  }
}

// What a group's words differ from its first word by: the value words of the Gray codes
// of 0 to G - 1 in the dimension of `directions` (unscrambled).
template <class T, class Word, int GroupPoints>
CUNUM_HOST_DEVICE void sobol_group_offsets(const Word* directions, SobolValueWord<T, Word> (&offsets)[GroupPoints]) {
  for (int point = 0; point < GroupPoints; ++point) {
    offsets[point] = sobol_value_word<T>(device::sobol_word(directions, Word{0}, static_cast<std::uint64_t>(point)));
  }
}

// A run of whole groups of one dimension: the groups first, first + 2^stride_log2, ...
// below `end` (absolute group indices in [whole_first_group(), whole_end_group()),
// first < end), `directions` the dimension's table (bits + 1 words) from wherever the
// caller keeps it. The first group's word comes by random access, each next one by a
// Gray-code stride step (device::SobolStride, by 2^stride_log2 groups), so a group
// costs two XORs and a table load for its first word, one XOR for each other, and one
// 16-byte store.
template <bool Normal, class T, class Word>
class SobolGroupRun {
 public:
  using Args = SobolFillArgs<T, Word>;
  using ValueWord = SobolValueWord<T, Word>;

  CUNUM_HOST_DEVICE SobolGroupRun(const Args& args, const Word* directions, std::int64_t dimension,
                                  std::uint64_t first, std::uint64_t end, int stride_log2)
      : args_(args),
        directions_(directions),
        stride_(directions, stride_log2 + Args::group_points_log2),
        step_(std::int64_t{1} << (stride_log2 + Args::group_points_log2)) {
    constexpr int bits = sizeof(Word) * 8;
    sobol_group_offsets<T>(directions, offsets_);
    // Below 2^32 for the 32-bit sequences, so Word holds every point index.
    const std::uint64_t first_index = first << Args::group_points_log2;
    word_ = sobol_value_word<T>(device::sobol_word(directions, directions[bits], first_index));
    complement_ = static_cast<Word>(~(static_cast<Word>(first_index) | stride_.low_bits));
    out_ = args.out + (dimension * args.points + static_cast<std::int64_t>(first_index - args.first_point));
    last_ = out_ + static_cast<std::int64_t>((end - first - 1) >> stride_log2) * step_;
  }

  // Writes the run; on the GPU with 16-byte stores where the first group's values are
  // 16-byte aligned (and so every group's: they are a multiple of 16 bytes apart).
  CUNUM_HOST_DEVICE void fill() {
#if defined(__CUDA_ARCH__)
    if (reinterpret_cast<std::uintptr_t>(out_) % 16 == 0) {
      fill_with_stores<true>();
      return;
    }
#endif
    fill_with_stores<false>();
  }

 private:
  template <bool Aligned>
  CUNUM_HOST_DEVICE void fill_with_stores() {
    ValueWord word = word_;
    Word complement = complement_;
    T* out = out_;
    for (;;) {
      T values[Args::group_points];
      sobol_group_values<Normal>(args_, word, offsets_, values);
      if constexpr (Aligned) {
        store_aligned_block_values(out, values);
      } else {
        store_block_values(out, values);
      }
      if (out == last_) break;
      word ^= sobol_value_word<T>(stride_.step_from_complement(directions_, complement));
      complement -= static_cast<Word>(step_);
      out += step_;
    }
  }

  const Args& args_;
  const Word* directions_;
  device::SobolStride<Word> stride_;
  std::int64_t step_;
  ValueWord offsets_[Args::group_points];
  ValueWord word_;
  Word complement_;
  T* out_;
  T* last_;
};

// The GPU kernel's share of a dimension's whole groups for its thread `thread`
// (blockIdx.x * blockDim.x + threadIdx.x, the dimension's blocks in x): warp w =
// thread / 32 takes the next 32 m of them, [32 m w, 32 m (w + 1)) counted from
// whole_first_group() (m = groups_per_lane), and its lane l every 32nd of those from
// the l-th, so that a warp stores 32 consecutive groups (512 bytes) at a time. A lane's
// groups are 32 apart, not the grid's width: dimension 0's leading bits are its index's
// trailing bits reversed, so a lane whose points were 2^k apart for a large k would meet
// the inverse CDF's tail at every point or at none, and its warp would run far longer
// than the others. A thread past the groups writes nothing.
constexpr int kSobolWarpLanesLog2 = 5;

template <bool Normal, class T, class Word>
CUNUM_HOST_DEVICE void fill_sobol_lane(const SobolFillArgs<T, Word>& args, const Word* directions,
                                       std::int64_t dimension, std::int64_t thread, std::int64_t groups_per_lane) {
  constexpr std::int64_t lanes = std::int64_t{1} << kSobolWarpLanesLog2;
  const std::int64_t chunk_begin = (thread >> kSobolWarpLanesLog2) * lanes * groups_per_lane;
  const std::int64_t first = chunk_begin + thread % lanes;
  const std::int64_t groups = args.whole_groups();
  const std::int64_t end = chunk_begin + lanes * groups_per_lane < groups ? chunk_begin + lanes * groups_per_lane : groups;
  if (first >= end) return;
  SobolGroupRun<Normal, T, Word>(args, directions, dimension, args.whole_first_group() + static_cast<std::uint64_t>(first),
                                 args.whole_first_group() + static_cast<std::uint64_t>(end), kSobolWarpLanesLog2)
      .fill();
}

// Writes the fill's points of dimension `dimension` outside its whole groups: those of
// its lead and trail groups (none, one or both), each group by random access.
template <bool Normal, class T, class Word>
CUNUM_HOST_DEVICE void fill_sobol_edges(const SobolFillArgs<T, Word>& args, const Word* directions,
                                        std::int64_t dimension) {
  using Args = SobolFillArgs<T, Word>;
  constexpr int bits = sizeof(Word) * 8;
  const auto fill_group = [&](std::uint64_t group) {
    SobolValueWord<T, Word> offsets[Args::group_points];
    sobol_group_offsets<T>(directions, offsets);
    const std::uint64_t first_index = group << Args::group_points_log2;
    T values[Args::group_points];
    sobol_group_values<Normal>(args, sobol_value_word<T>(device::sobol_word(directions, directions[bits], first_index)),
                               offsets, values);
    for (int point = 0; point < Args::group_points; ++point) {
      const std::uint64_t index = first_index + static_cast<std::uint64_t>(point);
      if (index >= args.first_point && index < args.end_point()) {
        args.out[dimension * args.points + static_cast<std::int64_t>(index - args.first_point)] = values[point];
      }
    }
  };
  const std::uint64_t lead = args.first_point >> Args::group_points_log2;
  const std::uint64_t trail = args.end_point() >> Args::group_points_log2;
  const bool lead_partial = (args.first_point & Args::group_mask) != 0;
  if (lead_partial) fill_group(lead);
  // A fill inside one group has it as both; the lead's writes took every point.
  if ((args.end_point() & Args::group_mask) != 0 && !(lead_partial && trail == lead)) fill_group(trail);
}

}  // namespace cunum::detail
