// The CPU backend against the published serial algorithm (himeno_reference.hpp), on
// the benchmark's fields and on random caller fields at awkward sizes; gosa's
// independence of the thread count; and every argument check.

#include <gtest/gtest.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "cunum/core/value_types.hpp"
#include "cunum/himeno.hpp"
#include "himeno_reference.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::ErrorCode;
using cunum::HimenoGrid;
using cunum::HimenoProblem;
using cunum::testing::himeno_benchmark_arrays;
using cunum::testing::himeno_random_arrays;
using cunum::testing::himeno_serial_jacobi;

template <class T>
class HimenoCpu : public ::testing::Test {};
using RealTypes = ::testing::Types<CUNUM_REAL_TYPES>;
TYPED_TEST_SUITE(HimenoCpu, RealTypes);

TEST(HimenoGrid, StandardSizesAreTheCEditionsGrids) {
  const HimenoGrid xs = cunum::himeno_grid(cunum::HimenoSize::xs);
  EXPECT_EQ(xs.nx, 32);
  EXPECT_EQ(xs.ny, 32);
  EXPECT_EQ(xs.nz, 64);
  const HimenoGrid xl = cunum::himeno_grid(cunum::HimenoSize::xl);
  EXPECT_EQ(xl.nx, 512);
  EXPECT_EQ(xl.ny, 512);
  EXPECT_EQ(xl.nz, 1024);
  // The benchmark counts 34 flops per interior point per sweep: S is 62 x 62 x 126.
  EXPECT_DOUBLE_EQ(cunum::himeno_flops(cunum::himeno_grid(cunum::HimenoSize::s), 1), 34.0 * 62 * 62 * 126);
}

// The benchmark's own problem: the pressure bit for bit (the CPU backend evaluates the
// serial code's expression in its order, with no fused multiply-adds on the host);
// gosa to the rounding of its sum (n eps for n terms), which the backend adds plane by
// plane.
constexpr double kGosaOrderTolerance = 1e-11;
TYPED_TEST(HimenoCpu, BenchmarkProblemMatchesTheSerialCode) {
  using T = TypeParam;
  for (const HimenoGrid grid : {HimenoGrid{3, 3, 3}, HimenoGrid{5, 7, 11}, cunum::himeno_grid(cunum::HimenoSize::xs)}) {
    auto reference = himeno_benchmark_arrays<T>(grid);
    HimenoProblem<T> problem(grid, {}, Backend::cpu);
    int done = 0;
    for (const int sweeps : {1, 2, 7}) {
      const double gosa = problem.iterate(sweeps);
      const double expected = himeno_serial_jacobi(sweeps, reference);
      done += sweeps;
      EXPECT_NEAR(gosa, expected, kGosaOrderTolerance * expected) << grid.nx << "x" << grid.ny << "x" << grid.nz << " after " << done;
      EXPECT_EQ(problem.pressure(), reference.p) << "after " << done << " sweeps";
    }
  }
}

TYPED_TEST(HimenoCpu, CallerFieldsMatchTheSerialCode) {
  using T = TypeParam;
  std::uint64_t stream = 0;
  for (const HimenoGrid grid : {HimenoGrid{3, 4, 5}, HimenoGrid{13, 3, 17}, HimenoGrid{17, 19, 67}}) {
    auto reference = himeno_random_arrays<T>(grid, ++stream);
    cunum::HimenoOptions options;
    options.omega = 0.7;
    HimenoProblem<T> problem(grid, reference.fields(), options, Backend::cpu);
    const double gosa = problem.iterate(5);
    const double expected = himeno_serial_jacobi(5, reference, static_cast<T>(0.7));
    EXPECT_NEAR(gosa, expected, kGosaOrderTolerance * expected);
    EXPECT_EQ(problem.pressure(), reference.p);
  }
}

// Several sweeps a pass (the slabs' deep-halo passes run them on the CPU too): each
// sweep's points are computed as in one sweep a pass, so the pressure is the serial
// code's bit for bit, whatever the pass, a shorter last one included.
TYPED_TEST(HimenoCpu, EverySweepsPerPassMatchesTheSerialCode) {
  using T = TypeParam;
  const HimenoGrid grid{11, 9, 13};
  for (int sweeps_per_pass = 1; sweeps_per_pass <= 4; ++sweeps_per_pass) {
    auto reference = himeno_random_arrays<T>(grid, 60);
    cunum::HimenoOptions options;
    options.sweeps_per_pass = sweeps_per_pass;
    HimenoProblem<T> problem(grid, reference.fields(), options, Backend::cpu);
    EXPECT_EQ(problem.sweeps_per_pass(), sweeps_per_pass);
    for (const int sweeps : {1, 6}) {
      const double gosa = problem.iterate(sweeps);
      const double expected = himeno_serial_jacobi(sweeps, reference);
      EXPECT_NEAR(gosa, expected, kGosaOrderTolerance * expected) << sweeps_per_pass << " sweeps a pass";
      EXPECT_EQ(problem.pressure(), reference.p) << sweeps_per_pass << " sweeps a pass, " << sweeps << " more";
    }
  }
}

TYPED_TEST(HimenoCpu, GosaDoesNotDependOnTheThreadCount) {
  using T = TypeParam;
  const HimenoGrid grid{23, 29, 31};
  const auto arrays = himeno_random_arrays<T>(grid, 40);
  const int threads = omp_get_max_threads();
  std::vector<double> gosa;
  for (const int count : {1, 2, 3}) {
    omp_set_num_threads(count);
    HimenoProblem<T> problem(grid, arrays.fields(), {}, Backend::cpu);
    gosa.push_back(problem.iterate(4));
  }
  omp_set_num_threads(threads);
  EXPECT_EQ(gosa[0], gosa[1]);
  EXPECT_EQ(gosa[0], gosa[2]);
}

TYPED_TEST(HimenoCpu, BadArgumentsAreRefusedByName) {
  using T = TypeParam;
  EXPECT_CUNUM_ERROR(HimenoProblem<T>(HimenoGrid{2, 5, 5}, {}, Backend::cpu), ErrorCode::invalid_argument,
                     "grid.nx");
  EXPECT_CUNUM_ERROR(HimenoProblem<T>(HimenoGrid{5, 0, 5}, {}, Backend::cpu), ErrorCode::invalid_argument,
                     "grid.ny");
  EXPECT_CUNUM_ERROR(HimenoProblem<T>(HimenoGrid{5, 5, -4}, {}, Backend::cpu), ErrorCode::invalid_argument,
                     "grid.nz");
  EXPECT_CUNUM_ERROR(HimenoProblem<T>(HimenoGrid{std::int64_t{1} << 30, std::int64_t{1} << 30, 8}, {}, Backend::cpu),
                     ErrorCode::invalid_argument, "grid");
  EXPECT_CUNUM_ERROR(HimenoProblem<T>(HimenoGrid{3, std::int64_t{1} << 16, std::int64_t{1} << 15}, {}, Backend::cpu),
                     ErrorCode::invalid_argument, "ny * nz");
  cunum::HimenoOptions options;
  options.omega = std::numeric_limits<double>::quiet_NaN();
  EXPECT_CUNUM_ERROR(HimenoProblem<T>(HimenoGrid{5, 5, 5}, options, Backend::cpu), ErrorCode::invalid_argument,
                     "options.omega");
  options = {};
  options.sweeps_per_pass = 5;
  EXPECT_CUNUM_ERROR(HimenoProblem<T>(HimenoGrid{5, 5, 5}, options, Backend::cpu), ErrorCode::invalid_argument,
                     "options.sweeps_per_pass");
  options.sweeps_per_pass = -1;
  EXPECT_CUNUM_ERROR(HimenoProblem<T>(HimenoGrid{5, 5, 5}, options, Backend::cpu), ErrorCode::invalid_argument,
                     "options.sweeps_per_pass");

  const HimenoGrid grid{4, 5, 6};
  auto arrays = himeno_random_arrays<T>(grid, 7);
  auto fields = arrays.fields();
  fields.c[1] = nullptr;
  EXPECT_CUNUM_ERROR(HimenoProblem<T>(grid, fields, {}, Backend::cpu), ErrorCode::invalid_argument, "fields.c[1]");
  arrays.a[3][17] = std::numeric_limits<T>::infinity();
  EXPECT_CUNUM_ERROR(HimenoProblem<T>(grid, arrays.fields(), {}, Backend::cpu), ErrorCode::invalid_argument,
                     "fields.a[3]");
  arrays = himeno_random_arrays<T>(grid, 7);
  arrays.p[3] = std::numeric_limits<T>::quiet_NaN();
  EXPECT_CUNUM_ERROR(HimenoProblem<T>(grid, arrays.fields(), {}, Backend::cpu), ErrorCode::invalid_argument,
                     "fields.pressure");

  HimenoProblem<T> problem(grid, {}, Backend::cpu);
  EXPECT_CUNUM_ERROR(problem.iterate(0), ErrorCode::invalid_argument, "sweeps");
  EXPECT_CUNUM_ERROR(cunum::himeno_grid(static_cast<cunum::HimenoSize>(9)), ErrorCode::invalid_argument, "size");
}

// A moved-from problem has no state: every member refuses it by name instead of
// dereferencing it.
TYPED_TEST(HimenoCpu, MovedFromProblemIsRefusedByEveryMember) {
  using T = TypeParam;
  HimenoProblem<T> problem(HimenoGrid{5, 6, 7}, {}, Backend::cpu);
  HimenoProblem<T> moved(std::move(problem));
  EXPECT_EQ(moved.grid().nz, 7);
  EXPECT_CUNUM_ERROR(problem.iterate(1), ErrorCode::invalid_argument, "'this'");
  EXPECT_CUNUM_ERROR(problem.pressure(), ErrorCode::invalid_argument, "'this'");
  EXPECT_CUNUM_ERROR(problem.grid(), ErrorCode::invalid_argument, "'this'");
  EXPECT_CUNUM_ERROR(problem.options(), ErrorCode::invalid_argument, "'this'");
  EXPECT_CUNUM_ERROR(problem.backend(), ErrorCode::invalid_argument, "'this'");
  EXPECT_CUNUM_ERROR(problem.placement(), ErrorCode::invalid_argument, "'this'");
  EXPECT_CUNUM_ERROR(problem.sweeps_per_pass(), ErrorCode::invalid_argument, "'this'");
  EXPECT_CUNUM_ERROR(problem.field_bytes(), ErrorCode::invalid_argument, "'this'");
  EXPECT_CUNUM_ERROR(problem.iterate(1), ErrorCode::invalid_argument, "moved-from HimenoProblem");
  // Assigned from, too; and assigning to it makes it whole again.
  HimenoProblem<T> other(HimenoGrid{5, 5, 5}, {}, Backend::cpu);
  problem = std::move(other);
  EXPECT_CUNUM_ERROR(other.grid(), ErrorCode::invalid_argument, "'this'");
  EXPECT_EQ(problem.grid().nz, 5);
  EXPECT_GT(problem.iterate(1), 0.0);
}

// Several devices are a placement: its devices are checked by resolve_placement, and
// against the slabs the grid can be cut into, all named 'placement.devices'.
TEST(HimenoCpu, PlacementDevicesAreCheckedByName) {
  const HimenoGrid grid{5, 5, 5};
  cunum::Placement four;
  four.devices = {0, 0, 0, 0};
  EXPECT_CUNUM_ERROR(HimenoProblem<float>(grid, {}, four), ErrorCode::invalid_argument,
                     "'placement.devices' lists 4 devices, more than the grid's 3 interior planes (nx - 2)");
  cunum::Placement on_the_host(Backend::cpu);
  on_the_host.devices = {0, 0};
  EXPECT_CUNUM_ERROR(HimenoProblem<float>(grid, {}, on_the_host), ErrorCode::invalid_argument,
                     "'placement.devices' lists devices, but the CPU backend runs on the host");
  EXPECT_CUNUM_ERROR(HimenoProblem<float>(grid, {}, static_cast<Backend>(7)), ErrorCode::invalid_argument,
                     "'placement.backend'");
  cunum::Placement two;
  two.devices = {0, 0};
  cunum::Placement negative(Backend::cuda);
  negative.devices = {0, -1};
  if (cunum::device_count() == 0) {
    // Without a GPU: no_device, whatever ordinals are listed.
    EXPECT_CUNUM_ERROR(HimenoProblem<float>(grid, {}, two), ErrorCode::no_device,
                       "cunum::HimenoProblem: 'placement.devices' lists devices but there is no CUDA device");
    EXPECT_CUNUM_ERROR(HimenoProblem<float>(grid, {}, negative), ErrorCode::no_device, "no CUDA device");
  } else {
    EXPECT_CUNUM_ERROR(HimenoProblem<float>(grid, {}, negative), ErrorCode::invalid_argument,
                       "'placement.devices' lists device -1, not a device here");
    cunum::Placement off_the_machine;
    off_the_machine.devices = {0, cunum::device_count()};
    EXPECT_CUNUM_ERROR(HimenoProblem<float>(grid, {}, off_the_machine), ErrorCode::invalid_argument,
                       "'placement.devices' lists device");
  }
}

// A CPU problem resolves to the host: no devices, stream or resources.
TYPED_TEST(HimenoCpu, PlacementOfACpuProblemIsTheHost) {
  using T = TypeParam;
  const HimenoProblem<T> problem(HimenoGrid{5, 6, 7}, {}, Backend::cpu);
  const cunum::Placement& resolved = problem.placement();
  EXPECT_EQ(resolved.backend, Backend::cpu);
  EXPECT_TRUE(resolved.devices.empty());
  EXPECT_EQ(resolved.stream, nullptr);
  EXPECT_EQ(resolved.device_memory, nullptr);
  EXPECT_EQ(resolved.pinned_memory, nullptr);
  EXPECT_EQ(problem.backend(), Backend::cpu);
  EXPECT_EQ(problem.sweeps_per_pass(), 1);
}

TEST(HimenoCpu, CudaWithoutADeviceIsRefused) {
  if (cunum::device_count() > 0) GTEST_SKIP() << "a CUDA device is present: the refusal cannot be shown here";
  EXPECT_CUNUM_ERROR(HimenoProblem<float>(HimenoGrid{5, 5, 5}, {}, Backend::cuda), ErrorCode::no_device, "");
}

}  // namespace

// Grids whose 14 field arrays no machine holds are refused at construction with
// out_of_memory and the bytes, before anything is allocated (the test completing at
// once is the evidence); a small grid still constructs.
TEST(HimenoCpu, GridsPastMemoryAreRefusedBeforeAllocating) {
  const auto started = std::chrono::steady_clock::now();
  // 2^40 x 4 x 4 floats: 2^44 points x 14 arrays x 4 bytes.
  EXPECT_CUNUM_ERROR(HimenoProblem<float>(HimenoGrid{std::int64_t{1} << 40, 4, 4}, {}, Backend::cpu),
                     ErrorCode::out_of_memory, "cunum::HimenoProblem: needs 985162418487296 bytes");
  // 4096^3 floats: 2^36 points x 56 bytes.
  EXPECT_CUNUM_ERROR(HimenoProblem<float>(HimenoGrid{4096, 4096, 4096}, {}, Backend::cpu), ErrorCode::out_of_memory,
                     "cunum::HimenoProblem: needs 3848290697216 bytes");
  EXPECT_CUNUM_ERROR(HimenoProblem<double>(HimenoGrid{4096, 4096, 4096}, {}, Backend::cpu), ErrorCode::out_of_memory,
                     "needs 7696581394432 bytes");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 1.0);
  const HimenoProblem<float> small(HimenoGrid{9, 9, 17}, {}, Backend::cpu);
  EXPECT_EQ(small.grid().nz, 17);
}
