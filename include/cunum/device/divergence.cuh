#pragma once
/// @file
/// Branch-divergence reduction for callers' own kernels: dynamic work assignment and
/// branch-path unification (Kato, Suda and Tamada [1]), with the modern alternatives
/// beside them. Compile with nvcc; docs/divergence.md says when each one pays, with
/// the measurements on an H100.
///
/// **Loops whose trip count differs per item** (the paper's dynamic work assignment).
/// A *loop task* describes one item's work in the paper's terms:
///
///     struct MyLoop {
///       struct State { ... };                          // one item in progress; default-constructible
///       __device__ State start(std::int64_t item);     // preparation: read the item
///       __device__ bool proceed(const State&) const;   // branch(i): is another iteration due?
///       __device__ void step(State&);                  // function(); i = next(i)
///       __device__ void finish(std::int64_t item, State&);  // settlement: store the result
///     };
///
/// and is run over items [first, first + count) by one of:
///  - static_for_each: one item per thread, the plain kernel; a warp runs as long as
///    its longest item;
///  - block_queue_for_each: the paper's scheme: a block owns many items and a thread
///    whose item is done takes the next from a shared-memory atomic counter;
///  - warp_queue_for_each: the same at warp granularity without atomics: the lanes
///    whose items are done draw the next ones by their rank in a ballot.
///
/// **Kernels whose items take one of several branch paths** (branch-path unification).
/// A *branch task*:
///
///     struct MyBranches {
///       static constexpr int kPaths = 2;               // at most 8
///       __device__ int path(std::int64_t item) const;  // which path item takes, in [0, kPaths)
///       template <int Path> __device__ void run(std::int64_t item);  // that path, for item
///     };
///
/// run by one of:
///  - plain_branches: one item per thread, every path of the warp in turn;
///  - unify_branches_per_thread: the paper's scheme: a thread holds several items and
///    runs each path over its next item that takes it, so that more lanes have work
///    on each path;
///  - unify_branches_warp: warp-level compaction: the warp lists its items by path in
///    shared memory (a ballot a slot, so the list keeps the items' order) and runs each
///    path over its list 32 items at a time, so only each path's last round of a warp
///    is partly idle;
///  - run_partitioned (host): sorts the item indices by path with CUB first, then runs
///    one item per thread over the sorted list: only warps that straddle two paths
///    diverge, at the price of two extra passes over memory.
///
/// The launch helpers (launch_for_each, launch_branches) run a task over [0, count)
/// on a stream with a policy's shape; the device functions serve kernels of your own.
/// Tasks are copied into the kernel by value; each thread works on its own copy (it
/// may keep per-thread tallies in it).
///
/// [1] S. Kato, R. Suda, Y. Tamada, "Optimization techniques for reducing branch
///     divergence on GPUs" (in Japanese), IPSJ SIG Technical Report, 2012.

#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "cunum/core/device_buffer.hpp"
#include "cunum/core/error.hpp"

namespace cunum::device {

inline constexpr int kWarpLanes = 32;

/// How a loop task's items are dealt to threads.
enum class WorkAssignment {
  static_per_thread,  ///< one item per thread
  block_queue,        ///< the paper's shared-memory counter per block
  warp_queue,         ///< ballot-ranked refills per warp, no atomics
};

/// How a branch task's items are arranged over the paths.
enum class BranchScheme {
  plain,             ///< one item per thread
  per_thread,        ///< the paper's branch-path unification
  warp_compaction,   ///< per-warp lists of items by path
  partition_first,   ///< CUB radix sort of the indices by path, then one item per thread
};

/// Launch shape: threads per block, and items per thread for the schemes that give a
/// thread several (block and warp queues, per-thread and warp unification).
template <int BlockThreads, int ItemsPerThread>
struct DivergencePolicy {
  static_assert(BlockThreads % kWarpLanes == 0 && BlockThreads <= 1024, "whole warps, at most 1024 threads");
  static_assert(ItemsPerThread >= 1 && ItemsPerThread <= 64, "1 to 64 items per thread");
  static constexpr int block_threads = BlockThreads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int items_per_warp = kWarpLanes * ItemsPerThread;
  static constexpr int items_per_block = BlockThreads * ItemsPerThread;
};
/// The paper's shape: 128 threads, 8 items per thread (1024 items per block).
using PaperDivergencePolicy = DivergencePolicy<128, 8>;

namespace detail {

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x) & (kWarpLanes - 1); }

// Calls f(std::integral_constant<int, P>{}) for P = 0 .. Count - 1, unrolled, so that
// register arrays indexed by P stay in registers.
template <int Count, class F, int... P>
__device__ __forceinline__ void for_each_path(F&& f, std::integer_sequence<int, P...>) {
  (f(std::integral_constant<int, P>{}), ...);
}
template <int Count, class F>
__device__ __forceinline__ void for_each_path(F&& f) {
  for_each_path<Count>(std::forward<F>(f), std::make_integer_sequence<int, Count>{});
}

// Runs the path numbered `path` of item: a chain of tests, like a switch.
template <class Task>
__device__ __forceinline__ void run_path(Task& task, int path, std::int64_t item) {
  for_each_path<Task::kPaths>([&](auto p) {
    if (path == decltype(p)::value) task.template run<decltype(p)::value>(item);
  });
}

// Per path, bit j set where slot j of this lane (item first + j * 32 + lane) takes it.
template <int Items, class Task>
__device__ __forceinline__ void path_masks(const Task& task, std::int64_t first, int count,
                                           std::uint64_t (&masks)[Task::kPaths]) {
  const int lane = lane_id();
  for_each_path<Task::kPaths>([&](auto p) { masks[decltype(p)::value] = 0; });
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const int slot = j * kWarpLanes + lane;
    if (slot < count) {
      const int path = task.path(first + slot);
      for_each_path<Task::kPaths>([&](auto p) {
        masks[decltype(p)::value] |= std::uint64_t{path == decltype(p)::value} << j;
      });
    }
  }
}

// Host and device: the launchers check the task too.
template <class Task>
__host__ __device__ constexpr void check_branch_task() {
  static_assert(Task::kPaths >= 1 && Task::kPaths <= 8, "a branch task has 1 to 8 paths");
}

}  // namespace detail

// ---------------------------------------------------------------------------------
// Loop tasks: device layer.

/// Runs one item to the end: start, step while proceed, finish.
template <class Task>
__device__ __forceinline__ void run_item(Task& task, std::int64_t item) {
  typename Task::State state = task.start(item);
  while (task.proceed(state)) task.step(state);
  task.finish(item, state);
}

/// The paper's dynamic work assignment for one block: items [first, first + count)
/// (count >= 0), thread t starting on item first + t and then taking the next item
/// from `counter` (block-shared: `__shared__ int counter;`) when its own is done.
/// Every thread of the block must call it (it synchronises the block twice).
template <class Task>
__device__ void block_queue_for_each(Task& task, std::int64_t first, int count, int& counter) {
  if (threadIdx.x == 0) counter = static_cast<int>(blockDim.x);
  __syncthreads();
  int index = static_cast<int>(threadIdx.x);
  if (index < count) {
    typename Task::State state = task.start(first + index);
    for (;;) {
      if (task.proceed(state)) {
        task.step(state);
        continue;
      }
      task.finish(first + index, state);
      index = atomicAdd(&counter, 1);
      if (index >= count) break;
      state = task.start(first + index);
    }
  }
  __syncthreads();  // the counter is free again
}

/// Dynamic work assignment for one warp, without atomics: lane l starts on item
/// first + l; when a lane's item is done, it settles it and the idle lanes draw the
/// next undealt items in order of their lane (a ballot's rank). A step costs one
/// ballot beyond the task's own work; the settling and dealing run only in steps where
/// an item finished. All 32 lanes of the warp must call it, converged, with the same
/// arguments (count >= 0).
template <class Task>
__device__ void warp_queue_for_each(Task& task, std::int64_t first, std::int64_t count) {
  constexpr unsigned kAll = 0xFFFFFFFFu;
  const int lane = detail::lane_id();
  const unsigned lower_lanes = (1u << lane) - 1u;
  std::int64_t index = lane;
  std::int64_t next = kWarpLanes;  // the first undealt item
  bool busy = index < count;
  typename Task::State state{};
  if (busy) state = task.start(first + index);
  bool stepping = busy && task.proceed(state);
  unsigned busy_lanes = __ballot_sync(kAll, busy);
  for (;;) {
    if (__ballot_sync(kAll, stepping) != busy_lanes) {
      // Settle and deal until every busy lane steps or nothing is left to deal (an
      // item may need no step at all, so a lane just dealt one may be done at once).
      unsigned idle;
      for (;;) {
        if (busy && !stepping) {
          task.finish(first + index, state);
          busy = false;
        }
        idle = __ballot_sync(kAll, !busy);
        if (idle == 0 || next >= count) break;
        if (!busy) {
          index = next + __popc(idle & lower_lanes);
          if (index < count) {
            state = task.start(first + index);
            busy = true;
            stepping = task.proceed(state);
          }
        }
        next += __popc(idle);
      }
      busy_lanes = ~idle;
      if (busy_lanes == 0) break;
    }
    if (stepping) {
      task.step(state);
      stepping = task.proceed(state);
    }
  }
}

// ---------------------------------------------------------------------------------
// Branch tasks: device layer. Items of one warp's tile: [first, first + count),
// count <= 32 x Items; lane l holds items first + j * 32 + l (coalesced reads).

/// The paper's branch-path unification for one lane: it runs each path in turn on its
/// next item that takes it, until its items are done. No synchronisation: lanes may
/// call it with different tiles.
template <int Items, class Task>
__device__ void unify_branches_per_thread(Task& task, std::int64_t first, int count) {
  detail::check_branch_task<Task>();
  std::uint64_t masks[Task::kPaths];
  detail::path_masks<Items>(task, first, count, masks);
  const int lane = detail::lane_id();
  for (;;) {
    bool left = false;
    detail::for_each_path<Task::kPaths>([&](auto p) {
      constexpr int kPath = decltype(p)::value;
      std::uint64_t& mask = masks[kPath];
      if (mask != 0) {
        const int j = __ffsll(static_cast<long long>(mask)) - 1;
        mask &= mask - 1;
        task.template run<kPath>(first + j * kWarpLanes + lane);
      }
      left = left || mask != 0;
    });
    if (!left) break;
  }
}

/// Warp-level compaction: per path, the warp lists the tile's items that take it in
/// `list` (shared memory of this warp alone, 32 x Items entries), in item order (one
/// ballot a slot: a lane's place is the count of lanes below it with an item on the
/// path), and runs the path over the list 32 items at a time, so that consecutive lanes
/// mostly touch consecutive items. All 32 lanes must call it, converged, with the same
/// arguments.
template <int Items, class Task>
__device__ void unify_branches_warp(Task& task, std::int64_t first, int count, std::uint16_t* list) {
  static_assert(Items * kWarpLanes <= 65536, "tile indices are 16-bit");
  detail::check_branch_task<Task>();
  constexpr unsigned kAll = 0xFFFFFFFFu;
  std::uint64_t masks[Task::kPaths];
  detail::path_masks<Items>(task, first, count, masks);
  const int lane = detail::lane_id();
  const unsigned lower_lanes = (1u << lane) - 1u;
  detail::for_each_path<Task::kPaths>([&](auto p) {
    constexpr int kPath = decltype(p)::value;
    const std::uint64_t mask = masks[kPath];
    int total = 0;
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const bool mine = ((mask >> j) & 1u) != 0;
      const unsigned lanes = __ballot_sync(kAll, mine);
      if (mine) list[total + __popc(lanes & lower_lanes)] = static_cast<std::uint16_t>(j * kWarpLanes + lane);
      total += __popc(lanes);
    }
    __syncwarp();
    for (int r = lane; r < total; r += kWarpLanes) task.template run<kPath>(first + list[r]);
    __syncwarp();  // the list is rewritten for the next path
  });
}

// ---------------------------------------------------------------------------------
// Kernels and host launchers over items [0, count).

namespace detail {

template <class Policy, class Task>
__global__ void __launch_bounds__(Policy::block_threads) static_loop_kernel(Task task, std::int64_t count) {
  const std::int64_t item = std::int64_t{blockIdx.x} * Policy::block_threads + threadIdx.x;
  if (item < count) run_item(task, item);
}

template <class Policy, class Task>
__global__ void __launch_bounds__(Policy::block_threads) block_queue_kernel(Task task, std::int64_t count) {
  __shared__ int counter;
  const std::int64_t first = std::int64_t{blockIdx.x} * Policy::items_per_block;
  const std::int64_t left = count - first;
  block_queue_for_each(task, first, static_cast<int>(left < Policy::items_per_block ? left : Policy::items_per_block),
                       counter);
}

// The warp's tile of items_per_warp items, [first, first + count) (count may be <= 0).
template <class Policy>
__device__ __forceinline__ void warp_tile(std::int64_t total, std::int64_t& first, int& count) {
  const std::int64_t warp = (std::int64_t{blockIdx.x} * Policy::block_threads + threadIdx.x) / kWarpLanes;
  first = warp * Policy::items_per_warp;
  const std::int64_t left = total - first;
  count = static_cast<int>(left < 0 ? 0 : left < Policy::items_per_warp ? left : Policy::items_per_warp);
}

template <class Policy, class Task>
__global__ void __launch_bounds__(Policy::block_threads) warp_queue_kernel(Task task, std::int64_t count) {
  std::int64_t first;
  int items;
  warp_tile<Policy>(count, first, items);
  if (items > 0) warp_queue_for_each(task, first, items);
}

template <class Policy, class Task>
__global__ void __launch_bounds__(Policy::block_threads) plain_branch_kernel(Task task, std::int64_t count) {
  const std::int64_t item = std::int64_t{blockIdx.x} * Policy::block_threads + threadIdx.x;
  if (item < count) run_path(task, task.path(item), item);
}

template <class Policy, class Task>
__global__ void __launch_bounds__(Policy::block_threads) per_thread_branch_kernel(Task task, std::int64_t count) {
  std::int64_t first;
  int items;
  warp_tile<Policy>(count, first, items);
  if (items > 0) unify_branches_per_thread<Policy::items_per_thread>(task, first, items);
}

template <class Policy, class Task>
__global__ void __launch_bounds__(Policy::block_threads) warp_compaction_kernel(Task task, std::int64_t count) {
  __shared__ std::uint16_t lists[Policy::block_threads / kWarpLanes][Policy::items_per_warp];
  std::int64_t first;
  int items;
  warp_tile<Policy>(count, first, items);
  if (items > 0) unify_branches_warp<Policy::items_per_thread>(task, first, items, lists[threadIdx.x / kWarpLanes]);
}

// Keys (the path) and values (the item) for the partition-first sort.
template <class Policy, class Task>
__global__ void __launch_bounds__(Policy::block_threads)
    path_keys_kernel(Task task, std::int64_t count, std::uint8_t* paths, std::int64_t* items) {
  const std::int64_t item = std::int64_t{blockIdx.x} * Policy::block_threads + threadIdx.x;
  if (item < count) {
    paths[item] = static_cast<std::uint8_t>(task.path(item));
    items[item] = item;
  }
}

template <class Policy, class Task>
__global__ void __launch_bounds__(Policy::block_threads)
    sorted_branch_kernel(Task task, std::int64_t count, const std::uint8_t* paths, const std::int64_t* items) {
  const std::int64_t index = std::int64_t{blockIdx.x} * Policy::block_threads + threadIdx.x;
  if (index < count) run_path(task, paths[index], items[index]);
}

// A failed CUDA status as the library's own checks report it (src/core/error.cpp, which
// an installed header cannot include): out_of_memory, no_device ("no CUDA device"),
// else cuda_failure, naming `routine` and what failed.
[[noreturn]] inline void throw_cuda_failure(cudaError_t status, const char* routine, const char* what) {
  const std::string problem = std::string(what) + ": " + cudaGetErrorString(status);
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver) {
    throw Error(ErrorCode::no_device, std::string(routine) + ": no CUDA device (" + problem + ")");
  }
  throw Error(status == cudaErrorMemoryAllocation ? ErrorCode::out_of_memory : ErrorCode::cuda_failure,
              std::string(routine) + ": " + problem);
}

inline void check_launch(const char* routine, const char* kernel) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) throw_cuda_failure(status, routine, kernel);
}

inline void check_call(cudaError_t status, const char* routine, const char* call) {
  if (status != cudaSuccess) throw_cuda_failure(status, routine, call);
}

// Error(not_supported) naming `routine` when `stream` is being captured into a CUDA
// graph (the library's own check is src/core/graph_capture.hpp, which an installed
// header cannot include); cudaStreamIsCapturing is legal in every capture mode.
inline void refuse_capture(cudaStream_t stream, const char* routine, const char* reason) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  const cudaError_t status = cudaStreamIsCapturing(stream, &capture);
  if (status == cudaErrorStreamCaptureImplicit) {
    // The legacy stream while a blocking stream captures: work on it would join the capture.
    if (cudaPeekAtLastError() == status) cudaGetLastError();
    capture = cudaStreamCaptureStatusActive;
  } else {
    check_call(status, routine, "cudaStreamIsCapturing");
  }
  if (capture != cudaStreamCaptureStatusNone) {
    throw Error(ErrorCode::not_supported,
                std::string(routine) + ": cannot run on a stream being captured into a CUDA graph: " + reason);
  }
}

// Blocks of `per_block` items for `count` items; refuses grids past 2^31 - 1 blocks.
inline unsigned grid_for(std::int64_t count, std::int64_t per_block, const char* routine) {
  const std::int64_t blocks = (count + per_block - 1) / per_block;
  if (blocks > 0x7FFFFFFF) {
    throw Error(ErrorCode::not_supported, std::string(routine) + ": " + std::to_string(count) +
                                              " items need more than 2^31 - 1 blocks");
  }
  return static_cast<unsigned>(blocks);
}

inline void require_count(std::int64_t count, const char* routine) {
  if (count < 0) {
    throw Error(ErrorCode::invalid_argument,
                std::string(routine) + ": argument 'count' must be >= 0, got " + std::to_string(count));
  }
}

}  // namespace detail

/// Runs the loop task over items [0, count) on `stream` with `assignment`:
/// static_per_thread launches one thread per item; block_queue and warp_queue give each
/// block (warp) Policy::items_per_block (items_per_warp) consecutive items.
/// Asynchronous; what the task points to must stay valid until the stream reaches it.
/// CUDA graphs: captures (one kernel); each replay runs the task again.
/// @throws Error ErrorCode::invalid_argument naming 'count' (negative) or 'assignment'
///         (not a WorkAssignment); ErrorCode::not_supported (grid past 2^31 - 1
///         blocks); ErrorCode::no_device without a device; ErrorCode::cuda_failure (the
///         launch failed)
template <class Policy = PaperDivergencePolicy, class Task>
void launch_for_each(WorkAssignment assignment, const Task& task, std::int64_t count, cudaStream_t stream = nullptr) {
  constexpr const char* kRoutine = "cunum::device::launch_for_each";
  detail::require_count(count, kRoutine);
  if (assignment != WorkAssignment::static_per_thread && assignment != WorkAssignment::block_queue &&
      assignment != WorkAssignment::warp_queue) {
    throw Error(ErrorCode::invalid_argument, std::string(kRoutine) + ": argument 'assignment' is not a WorkAssignment");
  }
  if (count == 0) return;
  const dim3 block(Policy::block_threads);
  switch (assignment) {
    case WorkAssignment::static_per_thread:
      detail::static_loop_kernel<Policy><<<detail::grid_for(count, Policy::block_threads, kRoutine), block, 0, stream>>>(
          task, count);
      return detail::check_launch(kRoutine, "static_loop_kernel");
    case WorkAssignment::block_queue:
      detail::block_queue_kernel<Policy>
          <<<detail::grid_for(count, Policy::items_per_block, kRoutine), block, 0, stream>>>(task, count);
      return detail::check_launch(kRoutine, "block_queue_kernel");
    case WorkAssignment::warp_queue:
      detail::warp_queue_kernel<Policy>
          <<<detail::grid_for(count, Policy::items_per_block, kRoutine), block, 0, stream>>>(task, count);
      return detail::check_launch(kRoutine, "warp_queue_kernel");
  }
}

/// Scratch memory of run_partitioned and launch_branches(partition_first), kept
/// between calls so that repeated calls allocate nothing once it has grown.
class PartitionWorkspace {
 public:
  /// Grows the buffers to `count` items (and CUB's scratch to `cub_bytes`) on `stream`.
  void reserve(std::int64_t count, std::size_t cub_bytes, cudaStream_t stream) {
    const auto n = static_cast<std::size_t>(count);
    if (capacity() < n) {
      paths_ = DeviceBuffer<std::uint8_t>(2 * n, stream);
      items_ = DeviceBuffer<std::int64_t>(2 * n, stream);
    }
    if (scratch_.size() < cub_bytes) scratch_ = DeviceBuffer<std::uint8_t>(cub_bytes, stream);
  }
  /// Keys and values, in and out: [0, n) and [n, 2n) of the buffers.
  std::uint8_t* paths() noexcept { return paths_.data(); }
  std::int64_t* items() noexcept { return items_.data(); }
  std::uint8_t* scratch() noexcept { return scratch_.data(); }
  std::size_t capacity() const noexcept { return paths_.size() / 2; }
  std::size_t scratch_bytes() const noexcept { return scratch_.size(); }

 private:
  DeviceBuffer<std::uint8_t> paths_, scratch_;
  DeviceBuffer<std::int64_t> items_;
};

/// The partition-first alternative: writes each item's path, sorts the item indices
/// by path (cub::DeviceRadixSort, stable, only the bits the paths need), then runs one
/// item per thread over the sorted list. Asynchronous on `stream`.
/// CUDA graphs: captures once `workspace` holds `count` items (a call with as many
/// items grew it); a call that would grow it refuses a stream being captured with
/// ErrorCode::not_supported, before anything is enqueued (the buffers would belong to
/// the graph).
/// @throws Error as launch_branches
template <class Policy = PaperDivergencePolicy, class Task>
void run_partitioned(const Task& task, std::int64_t count, PartitionWorkspace& workspace,
                     cudaStream_t stream = nullptr) {
  constexpr const char* kRoutine = "cunum::device::run_partitioned";
  detail::check_branch_task<Task>();
  detail::require_count(count, kRoutine);
  if (count == 0) return;
  if (count > 0x7FFFFFFF) {
    throw Error(ErrorCode::not_supported, std::string(kRoutine) + ": cub::DeviceRadixSort sorts at most 2^31 - 1 items");
  }
  const int n = static_cast<int>(count);
  const int end_bit = Task::kPaths <= 2 ? 1 : Task::kPaths <= 4 ? 2 : 3;
  // CUB reports a missing device as an invalid ordinal: ask the runtime first.
  int device = 0;
  detail::check_call(cudaGetDevice(&device), kRoutine, "cudaGetDevice");
  std::size_t cub_bytes = 0;
  detail::check_call(cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, static_cast<const std::uint8_t*>(nullptr),
                                                     static_cast<std::uint8_t*>(nullptr),
                                                     static_cast<const std::int64_t*>(nullptr),
                                                     static_cast<std::int64_t*>(nullptr), n, 0, end_bit, stream),
                     kRoutine, "cub::DeviceRadixSort::SortPairs");
  if (workspace.capacity() < static_cast<std::size_t>(count) || workspace.scratch_bytes() < cub_bytes) {
    detail::refuse_capture(stream, kRoutine,
                           "it grows its workspace on the stream; make one call with as many items before capturing");
  }
  workspace.reserve(count, cub_bytes, stream);
  const std::size_t half = workspace.capacity();
  std::uint8_t* paths = workspace.paths();
  std::int64_t* items = workspace.items();
  const unsigned blocks = detail::grid_for(count, Policy::block_threads, kRoutine);
  detail::path_keys_kernel<Policy><<<blocks, Policy::block_threads, 0, stream>>>(task, count, paths, items);
  detail::check_launch(kRoutine, "path_keys_kernel");
  detail::check_call(cub::DeviceRadixSort::SortPairs(workspace.scratch(), cub_bytes, paths, paths + half, items,
                                                     items + half, n, 0, end_bit, stream),
                     kRoutine, "cub::DeviceRadixSort::SortPairs");
  detail::sorted_branch_kernel<Policy>
      <<<blocks, Policy::block_threads, 0, stream>>>(task, count, paths + half, items + half);
  detail::check_launch(kRoutine, "sorted_branch_kernel");
}

/// Runs the branch task over items [0, count) on `stream` with `scheme`: plain launches
/// one thread per item; per_thread and warp_compaction give each warp a tile of
/// Policy::items_per_warp items (lane l: items j x 32 + l of it); partition_first is
/// run_partitioned with `workspace` (required for it, ignored otherwise).
/// Asynchronous; what the task points to must stay valid until the stream reaches it.
/// CUDA graphs: captures (one kernel; partition_first as run_partitioned).
/// @throws Error ErrorCode::invalid_argument naming 'count' (negative), 'scheme' (not a
///         BranchScheme) or 'workspace' (null for partition_first);
///         ErrorCode::not_supported (grid past 2^31 - 1 blocks, or partition_first past
///         2^31 - 1 items); ErrorCode::no_device without a device; ErrorCode::cuda_failure
///         or out_of_memory
template <class Policy = PaperDivergencePolicy, class Task>
void launch_branches(BranchScheme scheme, const Task& task, std::int64_t count, cudaStream_t stream = nullptr,
                     PartitionWorkspace* workspace = nullptr) {
  constexpr const char* kRoutine = "cunum::device::launch_branches";
  detail::check_branch_task<Task>();
  detail::require_count(count, kRoutine);
  if (scheme != BranchScheme::plain && scheme != BranchScheme::per_thread && scheme != BranchScheme::warp_compaction &&
      scheme != BranchScheme::partition_first) {
    throw Error(ErrorCode::invalid_argument, std::string(kRoutine) + ": argument 'scheme' is not a BranchScheme");
  }
  if (scheme == BranchScheme::partition_first) {
    if (workspace == nullptr) {
      throw Error(ErrorCode::invalid_argument,
                  std::string(kRoutine) + ": argument 'workspace' must not be null for partition_first");
    }
    return run_partitioned<Policy>(task, count, *workspace, stream);
  }
  if (count == 0) return;
  const dim3 block(Policy::block_threads);
  switch (scheme) {
    case BranchScheme::plain:
      detail::plain_branch_kernel<Policy>
          <<<detail::grid_for(count, Policy::block_threads, kRoutine), block, 0, stream>>>(task, count);
      return detail::check_launch(kRoutine, "plain_branch_kernel");
    case BranchScheme::per_thread:
      detail::per_thread_branch_kernel<Policy>
          <<<detail::grid_for(count, Policy::items_per_block, kRoutine), block, 0, stream>>>(task, count);
      return detail::check_launch(kRoutine, "per_thread_branch_kernel");
    case BranchScheme::warp_compaction:
      detail::warp_compaction_kernel<Policy>
          <<<detail::grid_for(count, Policy::items_per_block, kRoutine), block, 0, stream>>>(task, count);
      return detail::check_launch(kRoutine, "warp_compaction_kernel");
    case BranchScheme::partition_first:
      return;  // run_partitioned, above
  }
}

}  // namespace cunum::device
