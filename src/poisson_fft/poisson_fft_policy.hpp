#pragma once
// Internal: the tuning of the Poisson solver's CUDA kernels, in one place: a policy type
// per kernel family, held by architecture in a PolicyChain (src/core/policy_chain.hpp).
// The launchers (kernels/poisson_fft/poisson_fft.cu, poisson_fft_pencils.cu) pick the
// policy of the device's architecture; the kernels are templates on it. Host-only (plain
// C++): the CUDA backend (src/poisson_fft/poisson_fft_cuda.cpp) reads the pencil tiles'
// shared memory from here. The measurements behind the numbers are in docs/poisson_fft.md.

#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "src/core/policy_chain.hpp"

namespace cunum::detail {

// The grid-stride kernels of one element a thread a pass (the copy out of the
// coefficient array, the wall turnaround on lines, the `reject` rule's sums: one block
// a problem) and the resident blocks asked of a multiprocessor.
template <int BlockThreads, int BlocksPerMultiprocessor>
struct PoissonStridePolicyOf {
  static constexpr int block_threads = BlockThreads;
  static constexpr int blocks_per_multiprocessor = BlocksPerMultiprocessor;
};
using PoissonStridePolicies = PolicyChain<ArchPolicy<900, PoissonStridePolicyOf<256, 8>>>;

// The wall passes' line kernels (lines_from_grid_kernel, grid_from_lines_kernel): blocks
// of tile x tile_rows threads. An "along" thread moves along_items samples, tile x
// tile_rows apart, loaded first; an "across" block transposes across_depth tiles of
// tile x tile samples stacked along the pass's axis, so that each thread has 8 loads in
// flight before it stores (with one tile, 4 were too few to cover the memory latency:
// the across kernels ran at 40% of the along ones' bandwidth). min_blocks: resident
// blocks asked of the compiler (a register cap): memory-bound, they want warps.
template <int Tile, int TileRows, int AlongItems, int AcrossDepth, int MinBlocks>
struct PoissonLinesPolicyOf {
  static constexpr int tile = Tile;
  static constexpr int tile_rows = TileRows;
  static constexpr int block_threads = Tile * TileRows;
  static constexpr int along_items = AlongItems;
  static constexpr std::int64_t along_samples = std::int64_t{Tile} * TileRows * AlongItems;  // an along block's
  static constexpr int across_depth = AcrossDepth;
  static constexpr int across_samples = Tile * AcrossDepth;  // an across block's along the axis
  static constexpr int min_blocks = MinBlocks;
};
using PoissonLinesPolicies = PolicyChain<ArchPolicy<900, PoissonLinesPolicyOf<32, 8, 8, 2, 3>>>;

// The line kernels' staged form (staged_lines_from_grid_kernel,
// staged_grid_from_lines_kernel), taken where the pass's axis is contiguous and a line
// fits max_row_bytes (longer lines take the along case of lines_from_grid_kernel and
// grid_from_lines_kernel): blocks of block_threads stage runs of whole lines in shared
// memory, about run_bytes a run, in 16-byte vectors with `batch` in flight a thread, and
// gather the shuffles and extensions there. Read straight from global memory, Makhoul's
// shuffle and unshuffle of 4096^2 floats had run at 31% and 46% of DRAM peak (119 and
// 137 us, about 41 us of bytes at the copy rate); staged, 68 and 58 us, now bound by the
// functors' index arithmetic (SM 65-75%; 66 and 64 us on an H200, whose copy rate moves
// the bytes in about 32), less where real values go two a store (2-D float cell walls
// 2-5% faster). min_blocks: resident blocks asked of the
// compiler (a register cap): 4 beat no cap by 0-10%, median 2% (Nsight Compute and the
// placements bench, H100; docs/measurements/2026-11-27-h100-poisson-staged.md).
template <int BlockThreads, int RunBytes, int MaxRowBytes, int Batch, int MinBlocks>
struct PoissonStagedLinesPolicyOf {
  static constexpr int block_threads = BlockThreads;
  static constexpr int min_blocks = MinBlocks;
  static constexpr std::int64_t run_bytes = RunBytes;
  static constexpr std::int64_t max_row_bytes = MaxRowBytes;
  static constexpr int batch = Batch;
};
using PoissonStagedLinesPolicies = PolicyChain<ArchPolicy<900, PoissonStagedLinesPolicyOf<256, 16384, 65536, 4, 4>>>;

// The spectral division (divide_kernel): one warp of `lanes` a row of the spectrum,
// `rows` rows a block, each lane loading lane_bytes of modes before it divides and
// stores any (with one load in flight a lane, Nsight Compute timed the pass at two
// thirds of the copy rate); a grid of at most blocks_per_multiprocessor a multiprocessor.
template <int Lanes, int Rows, int LaneBytes, int BlocksPerMultiprocessor>
struct PoissonDividePolicyOf {
  static constexpr int lanes = Lanes;
  static constexpr int rows = Rows;
  static constexpr int block_threads = Lanes * Rows;
  static constexpr int lane_bytes = LaneBytes;
  static constexpr int blocks_per_multiprocessor = BlocksPerMultiprocessor;
};
using PoissonDividePolicies = PolicyChain<ArchPolicy<900, PoissonDividePolicyOf<32, 8, 64, 8>>>;

constexpr int log2_of(int n) { return n <= 1 ? 0 : 1 + log2_of(n / 2); }

// A pencil FFT of `length` points runs a first pass of this radix (the remainder of the
// length over radix-16 passes), then radix-16 passes.
constexpr int pencil_first_radix(int length) {
  return log2_of(length) % 4 == 0 ? (length < 16 ? length : 16) : 1 << (log2_of(length) % 4);
}

// The twiddle table of a pencil FFT (kernels/poisson_fft/pencil_fft.cuh), built by the
// host, read by the kernels: for each radix-16 pass after the first, in order, with
// L = Ns x 16 the length the pass completes and w = e^(-2 pi i / L), the 3 L / 16 values
// w^k and then the 3 L / 16 values w^(4 k), k < 3 L / 16. Butterfly j of the pass turns
// its inputs by w^(r (j mod Ns)), r < 16, from w^(r_low (j mod Ns)) and
// w^(4 r_high (j mod Ns)), r = r_low + 4 r_high: neighbouring butterflies read
// neighbouring entries (one table of e^(-2 pi i k / length) would put the first radix-16
// pass's reads 16 or more entries apart, each in its own cache line).
constexpr int pencil_twiddle_run(int pass_length) { return 3 * pass_length / 16; }
// Where the pass completing pass_length starts in the table of `length` (and, with
// pass_length = 16 x length, the table's size).
constexpr int pencil_twiddle_offset(int length, int pass_length) {
  int offset = 0;
  for (int l = 16 * pencil_first_radix(length); l < pass_length && l <= length; l *= 16) {
    offset += 2 * pencil_twiddle_run(l);
  }
  return offset;
}
constexpr int pencil_twiddle_count(int length) { return pencil_twiddle_offset(length, 16 * length); }

// The table of `length` as the host builds it, in double (the CUDA backend rounds it to
// its precision); tests/poisson_fft/pencil_twiddles_test.cpp holds it to the offsets
// above, which the kernels read by.
inline std::vector<std::complex<double>> pencil_twiddle_table(int length) {
  constexpr double kTwoPi = 6.28318530717958647692;
  std::vector<std::complex<double>> table;
  table.reserve(static_cast<std::size_t>(pencil_twiddle_count(length)));
  const auto root = [&](int k, int pass_length) {
    const double angle = kTwoPi * static_cast<double>(k) / static_cast<double>(pass_length);
    table.emplace_back(std::cos(angle), -std::sin(angle));
  };
  for (int pass_length = 16 * pencil_first_radix(length); pass_length <= length; pass_length *= 16) {
    const int run = pencil_twiddle_run(pass_length);
    for (int k = 0; k < run; ++k) root(k, pass_length);
    for (int k = 0; k < run; ++k) root(4 * k, pass_length);
  }
  return table;
}

// The launch shape for pencils of kLength complex T (kernels/poisson_fft/pencil_fft.cuh):
// E = items a thread holds (16, or the length), kPencils = W pencils a block takes, and
// the resident blocks asked of the compiler (a register cap). PencilPolicyFor picks them
// per length from a PencilTuningOf (measured).
template <class T, int kLength, int kPencils, int kMinBlocks>
struct PencilPolicy {
  using Value = T;
  static constexpr int length = kLength;
  static constexpr int items = kLength < 16 ? kLength : 16;
  static constexpr int threads_per_pencil = kLength / items;
  static constexpr int pencils = kPencils;
  static constexpr int min_blocks = kMinBlocks;
  static constexpr int block_threads = pencils * threads_per_pencil;
  static_assert(block_threads <= 1024, "a block holds at most 1024 threads");
  static constexpr int complex_bytes = 2 * static_cast<int>(sizeof(T));
  // Element (row, pencil) of the tile at row W + pencil, plus one complex of padding
  // every 32: a pass's writes, rows R apart, would otherwise fall on the same banks.
  static constexpr int padded(int index) { return index + index / 32; }
  static constexpr int shared_values = padded(kLength * pencils);
  static constexpr int shared_bytes = shared_values * complex_bytes;
  static constexpr int first_radix = pencil_first_radix(kLength);
};

// The pencil kernels' launch shape for each length, from launch shapes timed on the
// H100 (docs/poisson_fft.md): at least 8 pencils a block (rows of 64 bytes or more) and
// at least 128 threads, within max_threads and 128 KB of shared memory; and as many
// resident blocks as leave a thread about `registers` (float_registers or
// double_registers) registers, up to max_blocks (4 unless a tuning says): with one block
// an SM, loading, transforming and storing take turns instead of overlapping (54% of the
// copy rate at 512^3 float, 70% with three).
template <class T>
constexpr int pencils_per_block(int length, int max_threads) {
  const int complex_bytes = 2 * static_cast<int>(sizeof(T));
  const int threads_per_pencil = length < 16 ? 1 : length / 16;
  int pencils = 128 / threads_per_pencil > 8 ? 128 / threads_per_pencil : 8;
  while (pencils > 1 &&
         (pencils * length * complex_bytes > 128 * 1024 || pencils * threads_per_pencil > max_threads)) {
    pencils /= 2;
  }
  return pencils;
}
template <class T>
constexpr int pencil_blocks_per_multiprocessor(int length, int max_threads, int registers_wanted, int max_blocks) {
  const int threads = pencils_per_block<T>(length, max_threads) * (length < 16 ? 1 : length / 16);
  const int blocks = 65536 / (threads * registers_wanted);
  return blocks < 1 ? 1 : blocks > max_blocks ? max_blocks : blocks;
}
template <int MaxThreads, int FloatRegisters, int DoubleRegisters, int MaxBlocks = 4>
struct PencilTuningOf {
  static constexpr int max_threads = MaxThreads;
  static constexpr int max_blocks = MaxBlocks;
  static constexpr int registers(int value_bytes) { return value_bytes == 4 ? FloatRegisters : DoubleRegisters; }
};
template <class Tuning, class T, int kLength>
using PencilPolicyFor =
    PencilPolicy<T, kLength, pencils_per_block<T>(kLength, Tuning::max_threads),
                 pencil_blocks_per_multiprocessor<T>(kLength, Tuning::max_threads,
                                                     Tuning::registers(static_cast<int>(sizeof(T))),
                                                     Tuning::max_blocks)>;

// The periodic turnaround (pencil_turnaround_kernel): up to 1024 threads, about 80
// registers a thread (float) or 128 (double).
using PoissonPencilPolicies = PolicyChain<ArchPolicy<900, PencilTuningOf<1024, 80, 128>>>;
// The wall kernels (cosine_pencil_kernel, extension_pencil_kernel, the quarter ones) hold
// more per thread (a mirror, twiddles, signs): at most 512 threads (at 1024, the
// 4096-point turnaround spilled 420 bytes a thread and moved 2.4 times its data, Nsight
// Compute); about 80 registers a thread in float, up to 8 blocks an SM, 128 in double.
// At 128 registers the 256-point kernels ran 4 blocks of 128 threads an SM (25%
// occupancy, latency-bound); at 80, 6 blocks, the turnaround spilling 24-168 bytes a
// thread, 256^3 float wall solves ran 3-9% faster (H200, 2026-11-28); a 4096-point
// kernel keeps one block of 512 threads and its 128.
using PoissonWallPencilPolicies = PolicyChain<ArchPolicy<900, PencilTuningOf<512, 80, 128, 8>>>;

// The pencil lengths compiled: calls f(std::integral_constant<int, n>) for a pencil
// length n = 2^1 .. 2^13; false for any other n.
constexpr int kMaxPencilLength = 8192;
template <int kLength = 2, class F>
bool with_pencil_length(std::int64_t n, F&& f) {
  if (n == kLength) {
    f(std::integral_constant<int, kLength>{});
    return true;
  }
  if constexpr (kLength < kMaxPencilLength) {
    return with_pencil_length<2 * kLength>(n, f);
  } else {
    return false;
  }
}

}  // namespace cunum::detail
