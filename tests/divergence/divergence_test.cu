// cunum/device/divergence.cuh without a GPU: the launchers refuse bad arguments before
// any CUDA call, and the CPU reference of the paper's test functions.

#include <gtest/gtest.h>

#include <cstdint>

#include "bench/divergence/paper_workloads.cuh"
#include "cunum/device/divergence.cuh"
#include "test_support.hpp"

namespace {

using cunum::ErrorCode;
using cunum::bench::divergence::PaperBranchTask;
using cunum::bench::divergence::PaperLoopTask;
using cunum::device::BranchScheme;
using cunum::device::WorkAssignment;

TEST(Divergence, LaunchersRefuseANegativeCount) {
  const PaperLoopTask loop{nullptr, nullptr, 1};
  const PaperBranchTask branches{nullptr, nullptr, 1};
  EXPECT_CUNUM_ERROR(cunum::device::launch_for_each(WorkAssignment::warp_queue, loop, -1), ErrorCode::invalid_argument,
                     "'count'");
  EXPECT_CUNUM_ERROR(cunum::device::launch_branches(BranchScheme::plain, branches, -5), ErrorCode::invalid_argument,
                     "'count'");
  cunum::device::PartitionWorkspace workspace;
  EXPECT_CUNUM_ERROR(cunum::device::run_partitioned(branches, -1, workspace), ErrorCode::invalid_argument, "'count'");
}

TEST(Divergence, LaunchersRefuseValuesOutsideTheirEnums) {
  const PaperLoopTask loop{nullptr, nullptr, 1};
  const PaperBranchTask branches{nullptr, nullptr, 1};
  EXPECT_CUNUM_ERROR(cunum::device::launch_for_each(static_cast<WorkAssignment>(7), loop, 10),
                     ErrorCode::invalid_argument, "'assignment'");
  EXPECT_CUNUM_ERROR(cunum::device::launch_branches(static_cast<BranchScheme>(9), branches, 10),
                     ErrorCode::invalid_argument, "'scheme'");
}

TEST(Divergence, PartitionFirstNeedsAWorkspace) {
  const PaperBranchTask branches{nullptr, nullptr, 1};
  EXPECT_CUNUM_ERROR(cunum::device::launch_branches(BranchScheme::partition_first, branches, 10),
                     ErrorCode::invalid_argument, "'workspace'");
}

TEST(Divergence, PartitionFirstRefusesMoreItemsThanCubSorts) {
  const PaperBranchTask branches{nullptr, nullptr, 1};
  cunum::device::PartitionWorkspace workspace;
  EXPECT_CUNUM_ERROR(cunum::device::run_partitioned(branches, std::int64_t{1} << 31, workspace),
                     ErrorCode::not_supported, "2^31 - 1");
}

// Without a device the launchers are no_device naming themselves, as every cunum
// routine is; an empty launch still does nothing.
TEST(Divergence, WithoutADeviceTheLaunchersAreNoDevice) {
  if (cunum::device_count() > 0) {
    GTEST_SKIP() << "SKIPPED: a CUDA device is present; this test covers machines without one (CI)";
  }
  const PaperLoopTask loop{nullptr, nullptr, 1};
  const PaperBranchTask branches{nullptr, nullptr, 1};
  cunum::device::PartitionWorkspace workspace;
  for (const WorkAssignment assignment :
       {WorkAssignment::static_per_thread, WorkAssignment::block_queue, WorkAssignment::warp_queue}) {
    EXPECT_CUNUM_ERROR(cunum::device::launch_for_each(assignment, loop, 10), ErrorCode::no_device,
                       "cunum::device::launch_for_each: no CUDA device");
  }
  for (const BranchScheme scheme : {BranchScheme::plain, BranchScheme::per_thread, BranchScheme::warp_compaction}) {
    EXPECT_CUNUM_ERROR(cunum::device::launch_branches(scheme, branches, 10), ErrorCode::no_device,
                       "cunum::device::launch_branches: no CUDA device");
  }
  EXPECT_CUNUM_ERROR(cunum::device::run_partitioned(branches, 10, workspace), ErrorCode::no_device,
                     "cunum::device::run_partitioned: no CUDA device");
  EXPECT_CUNUM_ERROR(
      cunum::device::launch_branches(BranchScheme::partition_first, branches, 10, nullptr, &workspace),
      ErrorCode::no_device, "no CUDA device");
  EXPECT_NO_THROW(cunum::device::launch_for_each(WorkAssignment::warp_queue, loop, 0));
  EXPECT_NO_THROW(cunum::device::run_partitioned(branches, 0, workspace));
}

// The paper's function in its own words (int arithmetic), where nothing overflows:
// tmp = 0xffff & (tmp * tmp + tmp) with tmp * tmp + tmp < 2^31 needs tmp < 46340.
TEST(Divergence, PaperFunctionIsThePapersLoop) {
  for (std::uint32_t start : {0u, 1u, 2u, 3u, 255u, 4095u, 46339u}) {
    int tmp = static_cast<int>(start);
    int loops = 0;
    while (loops < 1000 && tmp < 46340) {
      tmp = 0xffff & (tmp * tmp + tmp);
      ++loops;
      EXPECT_EQ(cunum::bench::divergence::paper_function(start, loops), static_cast<std::uint32_t>(tmp))
          << "start " << start << " after " << loops << " rounds";
      if (loops > 8) break;
    }
  }
  // The loop experiment's reference applies the function count times, at least once.
  EXPECT_EQ(cunum::bench::divergence::paper_loop_reference(0, 5), cunum::bench::divergence::paper_function(0, 5));
  EXPECT_EQ(cunum::bench::divergence::paper_loop_reference(2, 3),
            cunum::bench::divergence::paper_function(cunum::bench::divergence::paper_function(2, 3), 3));
}

}  // namespace
