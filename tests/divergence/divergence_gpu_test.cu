// cunum/device/divergence.cuh on the GPU: every work assignment and branch scheme
// against the CPU reference of the paper's test functions, at awkward sizes, on fresh
// random and adversarial inputs, outputs poisoned, and every item started and settled
// exactly once.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench/divergence/paper_workloads.cuh"
#include "cunum/core/device_buffer.hpp"
#include "cunum/core/stream.hpp"
#include "cunum/device/divergence.cuh"
#include "test_support.hpp"

namespace {

using cunum::DeviceBuffer;
using cunum::bench::divergence::paper_branch_reference;
using cunum::bench::divergence::paper_function;
using cunum::bench::divergence::paper_loop_reference;
using cunum::bench::divergence::PaperBranchTask;
using cunum::bench::divergence::PaperLoopTask;
using cunum::device::BranchScheme;
using cunum::device::DivergencePolicy;
using cunum::device::WorkAssignment;

// Outputs are filled with 0xDE bytes first; the test functions never exceed 0xFFFF.
constexpr std::uint32_t kPoison = 0xDEDEDEDEu;

const std::vector<std::int64_t> kSizes = {1, 2, 31, 32, 33, 127, 1021, 1024, 1025, 4093, 65537};

// Counts, per item, the calls of start (low 16 bits) and finish (high 16 bits).
template <class Inner>
struct CountingLoopTask {
  Inner inner;
  std::uint32_t* calls;
  using State = typename Inner::State;
  __device__ State start(std::int64_t item) {
    atomicAdd(&calls[item], 1u);
    return inner.start(item);
  }
  __device__ bool proceed(const State& state) const { return inner.proceed(state); }
  __device__ void step(State& state) { inner.step(state); }
  __device__ void finish(std::int64_t item, State& state) {
    atomicAdd(&calls[item], 1u << 16);
    inner.finish(item, state);
  }
};

// Counts, per item, the paths run on it.
template <class Inner>
struct CountingBranchTask {
  static constexpr int kPaths = Inner::kPaths;
  Inner inner;
  std::uint32_t* calls;
  __device__ int path(std::int64_t item) const { return inner.path(item); }
  template <int Path>
  __device__ void run(std::int64_t item) {
    atomicAdd(&calls[item], 1u);
    inner.template run<Path>(item);
  }
};

// Five paths, each its own function of the item: checks the k-path dispatch.
struct FivePathTask {
  static constexpr int kPaths = 5;
  const std::uint32_t* keys;
  std::uint32_t* out;
  __device__ int path(std::int64_t item) const { return static_cast<int>(keys[item] % 5u); }
  template <int Path>
  __device__ void run(std::int64_t item) const {
    out[item] = paper_function(static_cast<std::uint32_t>(item) + 7u * Path, Path + 1);
  }
};

std::uint32_t five_path_reference(std::uint32_t key, std::int64_t item) {
  const int path = static_cast<int>(key % 5u);
  return paper_function(static_cast<std::uint32_t>(item) + 7u * path, path + 1);
}

enum class CountShape { uniform, skewed, all_zero, all_equal, one_long };
const char* to_string(CountShape shape) {
  switch (shape) {
    case CountShape::uniform: return "uniform";
    case CountShape::skewed: return "skewed";
    case CountShape::all_zero: return "all_zero";
    case CountShape::all_equal: return "all_equal";
    case CountShape::one_long: return "one_long";
  }
  return "?";
}

std::vector<std::uint32_t> loop_counts(std::int64_t n, CountShape shape, std::uint64_t stream_id) {
  std::mt19937_64 engine(cunum::testing::fresh_seed() ^ (stream_id * 0x9E3779B97F4A7C15ull));
  std::vector<std::uint32_t> counts(static_cast<std::size_t>(n));
  std::uniform_int_distribution<std::uint32_t> small(0, 40), large(40, 400), coin(0, 9);
  for (auto& c : counts) {
    switch (shape) {
      case CountShape::uniform: c = small(engine); break;
      case CountShape::skewed: c = coin(engine) == 0 ? large(engine) : small(engine) / 8; break;
      case CountShape::all_zero: c = 0; break;
      case CountShape::all_equal: c = 17; break;
      case CountShape::one_long: c = 1; break;
    }
  }
  if (shape == CountShape::one_long) counts[static_cast<std::size_t>(n / 2)] = 3000;
  return counts;
}

// Which path each item takes, by the kind of input.
enum class KeyShape { random, all_a, all_b, alternating, blocks_of_seven };
const char* to_string(KeyShape shape) {
  switch (shape) {
    case KeyShape::random: return "random";
    case KeyShape::all_a: return "all_a";
    case KeyShape::all_b: return "all_b";
    case KeyShape::alternating: return "alternating";
    case KeyShape::blocks_of_seven: return "blocks_of_seven";
  }
  return "?";
}

std::vector<std::uint32_t> branch_keys(std::int64_t n, KeyShape shape, std::uint64_t stream_id) {
  std::mt19937_64 engine(cunum::testing::fresh_seed() ^ (stream_id * 0xD1B54A32D192ED03ull));
  std::vector<std::uint32_t> keys(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < keys.size(); ++i) {
    switch (shape) {
      case KeyShape::random: keys[i] = static_cast<std::uint32_t>(engine()); break;
      case KeyShape::all_a: keys[i] = 0x4u; break;
      case KeyShape::all_b: keys[i] = 0u; break;
      case KeyShape::alternating: keys[i] = (i & 1) != 0 ? 0x4u : 0u; break;
      case KeyShape::blocks_of_seven: keys[i] = ((i / 7) & 1) != 0 ? 0x4u : 0u; break;
    }
  }
  return keys;
}

// Every item started once and settled once (the low and high halves of its count).
void expect_each_once(const std::vector<std::uint32_t>& calls, std::uint32_t expected, const std::string& what) {
  const auto bad = std::find_if(calls.begin(), calls.end(), [&](std::uint32_t c) { return c != expected; });
  EXPECT_EQ(bad, calls.end()) << what << ": item " << (bad - calls.begin()) << " has call count 0x" << std::hex
                              << (bad == calls.end() ? 0u : *bad) << ", expected 0x" << expected;
}

void expect_equal(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& expected,
                  const std::string& what) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != expected[i]) {
      ADD_FAILURE() << what << ": item " << i << " is 0x" << std::hex << got[i] << ", expected 0x" << expected[i]
                    << (got[i] == kPoison ? " (never written)" : "");
      return;
    }
  }
}

template <class Policy>
void check_loop_assignment(WorkAssignment assignment, std::int64_t n, CountShape shape, int loop_num,
                           std::uint64_t stream_id) {
  const std::string what = std::string("assignment ") + std::to_string(static_cast<int>(assignment)) + " n=" +
                           std::to_string(n) + " counts " + to_string(shape) + " items/thread " +
                           std::to_string(Policy::items_per_thread);
  const cunum::Stream stream;
  const std::vector<std::uint32_t> counts = loop_counts(n, shape, stream_id);
  auto device_counts = DeviceBuffer<std::uint32_t>::from_host(counts, stream);
  DeviceBuffer<std::uint32_t> out(counts.size(), stream), calls(counts.size(), stream);
  out.fill_bytes_async(0xDE);
  calls.fill_bytes_async(0);
  std::vector<std::uint32_t> expected(counts.size());
  for (std::size_t i = 0; i < counts.size(); ++i) expected[i] = paper_loop_reference(counts[i], loop_num);
  const CountingLoopTask<PaperLoopTask> task{{device_counts.data(), out.data(), loop_num}, calls.data()};
  cunum::device::launch_for_each<Policy>(assignment, task, n, stream);
  expect_equal(out.to_host(), expected, what);
  expect_each_once(calls.to_host(), 0x10001u, what);
}

class DivergenceGpu : public ::testing::Test {
 protected:
  void SetUp() override { CUNUM_REQUIRE_GPU(); }
};

TEST_F(DivergenceGpu, LoopAssignmentsMatchTheReferenceAtAwkwardSizes) {
  std::uint64_t stream_id = 1;
  for (const WorkAssignment assignment :
       {WorkAssignment::static_per_thread, WorkAssignment::block_queue, WorkAssignment::warp_queue}) {
    for (const std::int64_t n : kSizes) {
      check_loop_assignment<cunum::device::PaperDivergencePolicy>(assignment, n, CountShape::uniform, 3, ++stream_id);
    }
  }
}

TEST_F(DivergenceGpu, LoopAssignmentsHandleAdversarialCounts) {
  std::uint64_t stream_id = 100;
  for (const WorkAssignment assignment :
       {WorkAssignment::static_per_thread, WorkAssignment::block_queue, WorkAssignment::warp_queue}) {
    for (const CountShape shape :
         {CountShape::skewed, CountShape::all_zero, CountShape::all_equal, CountShape::one_long}) {
      for (const std::int64_t n : {std::int64_t{1}, std::int64_t{33}, std::int64_t{4093}}) {
        check_loop_assignment<cunum::device::PaperDivergencePolicy>(assignment, n, shape, 2, ++stream_id);
      }
    }
  }
}

TEST_F(DivergenceGpu, LoopQueuesWorkWithOtherShapes) {
  std::uint64_t stream_id = 200;
  for (const WorkAssignment assignment : {WorkAssignment::block_queue, WorkAssignment::warp_queue}) {
    for (const std::int64_t n : {std::int64_t{1}, std::int64_t{95}, std::int64_t{65537}}) {
      // One item per thread: the queue deals nothing beyond the first round.
      check_loop_assignment<DivergencePolicy<32, 1>>(assignment, n, CountShape::uniform, 1, ++stream_id);
      check_loop_assignment<DivergencePolicy<256, 64>>(assignment, n, CountShape::skewed, 1, ++stream_id);
    }
  }
}

TEST_F(DivergenceGpu, EmptyInputLaunchesNothing) {
  const PaperLoopTask loop{nullptr, nullptr, 1};
  const PaperBranchTask branches{nullptr, nullptr, 1};
  cunum::device::PartitionWorkspace workspace;
  for (const WorkAssignment assignment :
       {WorkAssignment::static_per_thread, WorkAssignment::block_queue, WorkAssignment::warp_queue}) {
    cunum::device::launch_for_each(assignment, loop, 0);
  }
  for (const BranchScheme scheme :
       {BranchScheme::plain, BranchScheme::per_thread, BranchScheme::warp_compaction, BranchScheme::partition_first}) {
    cunum::device::launch_branches(scheme, branches, 0, nullptr, &workspace);
  }
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

template <class Policy, class Task, class Reference>
void check_branch_scheme(BranchScheme scheme, std::int64_t n, const std::vector<std::uint32_t>& keys,
                         const Reference& reference, const std::string& what, cunum::StreamHandle stream,
                         cunum::device::PartitionWorkspace& workspace, Task task_template) {
  auto device_keys = DeviceBuffer<std::uint32_t>::from_host(keys, stream);
  DeviceBuffer<std::uint32_t> out(keys.size(), stream), calls(keys.size(), stream);
  out.fill_bytes_async(0xDE);
  calls.fill_bytes_async(0);
  task_template.keys = device_keys.data();
  task_template.out = out.data();
  const CountingBranchTask<Task> task{task_template, calls.data()};
  cunum::device::launch_branches<Policy>(scheme, task, n, stream, &workspace);
  std::vector<std::uint32_t> expected(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) expected[i] = reference(keys[i], static_cast<std::int64_t>(i));
  expect_equal(out.to_host(), expected, what);
  expect_each_once(calls.to_host(), 1u, what);
}

template <class Policy>
void check_branch_schemes(std::uint64_t& stream_id) {
  const cunum::Stream stream;
  cunum::device::PartitionWorkspace workspace;
  constexpr int kLoop = 3;
  const auto two_paths = [](std::uint32_t key, std::int64_t item) { return paper_branch_reference(key, item, kLoop); };
  for (const BranchScheme scheme :
       {BranchScheme::plain, BranchScheme::per_thread, BranchScheme::warp_compaction, BranchScheme::partition_first}) {
    for (const std::int64_t n : kSizes) {
      for (const KeyShape shape :
           {KeyShape::random, KeyShape::all_a, KeyShape::all_b, KeyShape::alternating, KeyShape::blocks_of_seven}) {
        if (shape != KeyShape::random && n > 4093) continue;
        const std::string what = std::string("scheme ") + std::to_string(static_cast<int>(scheme)) + " n=" +
                                 std::to_string(n) + " keys " + to_string(shape) + " items/thread " +
                                 std::to_string(Policy::items_per_thread);
        check_branch_scheme<Policy>(scheme, n, branch_keys(n, shape, ++stream_id), two_paths, what, stream,
                                    workspace, PaperBranchTask{nullptr, nullptr, kLoop});
      }
      const std::string what = std::string("five paths, scheme ") + std::to_string(static_cast<int>(scheme)) +
                               " n=" + std::to_string(n);
      check_branch_scheme<Policy>(scheme, n, branch_keys(n, KeyShape::random, ++stream_id), five_path_reference,
                                  what, stream, workspace, FivePathTask{nullptr, nullptr});
    }
  }
}

TEST_F(DivergenceGpu, BranchSchemesMatchTheReference) {
  std::uint64_t stream_id = 300;
  check_branch_schemes<cunum::device::PaperDivergencePolicy>(stream_id);
  check_branch_schemes<DivergencePolicy<128, 1>>(stream_id);
  check_branch_schemes<DivergencePolicy<64, 64>>(stream_id);
}

TEST_F(DivergenceGpu, PartitionWorkspaceIsReusedAcrossSizes) {
  const cunum::Stream stream;
  cunum::device::PartitionWorkspace workspace;
  std::uint64_t stream_id = 400;
  const auto two_paths = [](std::uint32_t key, std::int64_t item) { return paper_branch_reference(key, item, 2); };
  // Growing within twice the capacity (the buffers hold two halves: a size between the
  // capacity and twice it must still grow them), shrinking, then growing again.
  for (const std::int64_t n : {std::int64_t{1000}, std::int64_t{1500}, std::int64_t{1021}, std::int64_t{65537},
                               std::int64_t{262147}}) {
    check_branch_scheme<cunum::device::PaperDivergencePolicy>(
        BranchScheme::partition_first, n, branch_keys(n, KeyShape::random, ++stream_id), two_paths,
        "partition_first n=" + std::to_string(n), stream, workspace, PaperBranchTask{nullptr, nullptr, 2});
    EXPECT_GE(workspace.capacity(), static_cast<std::size_t>(n));
  }
}

// The graph-capture contract: every launcher is captured, each replay writing what the
// direct call writes; partition_first refuses a capturing stream while its workspace
// would have to grow (nothing enqueued, the capture intact), and captures once a direct
// call has grown it.
TEST_F(DivergenceGpu, LaunchersReplayFromACapturedGraph) {
  const cunum::Stream stream;
  const std::int64_t n = 4093;
  const auto keys = DeviceBuffer<std::uint32_t>::from_host(branch_keys(n, KeyShape::random, 500), stream);
  const auto counts = DeviceBuffer<std::uint32_t>::from_host(loop_counts(n, CountShape::skewed, 501), stream);
  DeviceBuffer<std::uint32_t> out(static_cast<std::size_t>(n), stream);
  cunum::device::PartitionWorkspace workspace;
  const PaperLoopTask loop{counts.data(), out.data(), 3};
  const PaperBranchTask branches{keys.data(), out.data(), 3};
  for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
    SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
    cunum::testing::expect_capture_refused(stream, mode, [&] {
      cunum::device::launch_branches(BranchScheme::partition_first, branches, n, stream, &workspace);
    });
  }
  EXPECT_EQ(workspace.capacity(), 0u) << "a refused call grew the workspace";
  std::vector<std::pair<std::string, std::function<void()>>> launches;
  for (const WorkAssignment assignment :
       {WorkAssignment::static_per_thread, WorkAssignment::block_queue, WorkAssignment::warp_queue}) {
    launches.emplace_back("assignment " + std::to_string(static_cast<int>(assignment)),
                          [&, assignment] { cunum::device::launch_for_each(assignment, loop, n, stream); });
  }
  for (const BranchScheme scheme :
       {BranchScheme::plain, BranchScheme::per_thread, BranchScheme::warp_compaction, BranchScheme::partition_first}) {
    launches.emplace_back("scheme " + std::to_string(static_cast<int>(scheme)), [&, scheme] {
      cunum::device::launch_branches(scheme, branches, n, stream, &workspace);
    });
  }
  for (const auto& [what, launch] : launches) {
    out.fill_bytes_async(0xDE);
    launch();
    const std::vector<std::uint32_t> direct = out.to_host();
    for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
      SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
      cunum::testing::CapturedGraph graph(stream, mode, launch);
      ASSERT_TRUE(graph.ok()) << what;
      for (int replay = 0; replay < 2; ++replay) {
        out.fill_bytes_async(0xDE);
        graph.launch();
        expect_equal(out.to_host(), direct, what + ", replay " + std::to_string(replay));
      }
    }
  }
}

}  // namespace
