#pragma once
// Internal, host-only C++: the tuning of the bridge's kernels, in one place: the
// launch shape of each kernel family by architecture (PolicyChain, newest first), the
// fixed limits the kernels are built around, and the OpenMP backend's blocks. Tests
// and the bench read the same numbers; the measurements behind them are in
// docs/brownian_bridge.md.

#include <cstddef>
#include <cstdint>

#include "src/core/policy_chain.hpp"

namespace cunum::detail {

// Strategies 1-3 (kernels/brownian_bridge/brownian_bridge_constant.cu): one thread
// per (path, dimension), BlockThreads / d paths per block; strategy 3 keeps
// PrefetchNormals normals in flight.
template <int BlockThreads, int PrefetchNormals>
struct BridgeConstantPolicyOf {
  static constexpr int block_threads = BlockThreads;
  static constexpr int prefetch_normals = PrefetchNormals;  // P of strategy 3
};
using BridgeConstantPolicies = PolicyChain<ArchPolicy<900, BridgeConstantPolicyOf<256, 8>>>;

// Strategies 4-5 (kernels/brownian_bridge/brownian_bridge_shared.cu): one thread per
// path (or per V paths), all d dimensions. Blocks shrink from BlockThreads (to
// BridgeLimits::min_shared_block_threads) while the stack does not fit in shared memory.
template <int BlockThreads, int BlocksPerMultiprocessor, int VectorPrefetchDepth>
struct BridgeSharedPolicyOf {
  static constexpr int block_threads = BlockThreads;
  static constexpr int blocks_per_multiprocessor = BlocksPerMultiprocessor;  // __launch_bounds__ minimum
  // Z vectors in flight per thread with vector I/O: fewer registers, more resident
  // blocks (the sweep behind 2 is in docs/brownian_bridge.md).
  static constexpr int vector_prefetch_depth = VectorPrefetchDepth;
};
using BridgeSharedPolicies = PolicyChain<ArchPolicy<900, BridgeSharedPolicyOf<128, 1, 2>>>;

// The fused Sobol kernel (kernels/brownian_bridge/brownian_bridge_sobol.cu):
// PathsPerThread paths per thread, warp-strided (d <= 4), when shared memory allows.
template <int BlockThreads, int BlocksPerMultiprocessor, int PathsPerThread>
struct BridgeSobolPolicyOf {
  static constexpr int block_threads = BlockThreads;
  static constexpr int blocks_per_multiprocessor = BlocksPerMultiprocessor;  // __launch_bounds__ minimum
  static constexpr int paths_per_thread = PathsPerThread;
};
using BridgeSobolPolicies = PolicyChain<ArchPolicy<900, BridgeSobolPolicyOf<128, 1, 4>>>;

// The limits the kernels' data structures are built around (array extents, slot
// widths, the constant-memory image), the same on every architecture.
struct BridgeLimits {
  // Strategies 1-3: C, x0, w and the strategy in constant memory; stack in local
  // memory (8-bit slots, 255 marks "no store").
  static constexpr int max_constant_dimension = 16;
  static constexpr int max_local_stack = 64;
  static constexpr std::uint8_t constant_no_store = 255;
  static constexpr std::size_t constant_bytes = 56 * 1024;
  // Strategies 4-5 and the fused Sobol kernel: C in registers (d exact up to 4, else
  // padded to 8); stack and a chunk of the strategy in shared memory.
  static constexpr int min_shared_block_threads = 32;
  static constexpr int shared_chunk_steps = 128;  // a multiple of every prefetch depth
  static constexpr int max_register_dimension = 8;
  static constexpr int vector_bytes = 16;  // the widest Z load and output store
};

// The OpenMP backend (brownian_bridge_cpu.cpp): paths cut into blocks whose size does
// not depend on the thread count.
struct CpuBridgePolicy {
  // Bytes of each row per block when every array is path-fastest: long unit-stride
  // runs per row for the hardware prefetchers, and few blocks to pay the per-step
  // overheads (measured on 64-step paths: 8 KiB beat 1, 2 and 4 KiB; 16 was level).
  static constexpr std::int64_t fastest_row_bytes = 8 * 1024;
  // Bytes of Z and output per block when an array is path-contiguous: they stay in
  // L1 (measured on 64-step paths: 32 KiB beat 8, 16 and 64 KiB).
  static constexpr std::int64_t contiguous_block_bytes = 32 * 1024;
  // Fewest paths per block, so that each step still has a few vectors of work.
  static constexpr std::int64_t min_block_paths = 8;
  static constexpr std::int64_t cache_line_bytes = 64;
};

}  // namespace cunum::detail
