// Sweep policies beyond the library's chain (a lag of two planes, wider tiles, a batch
// of one) against the CPU backend, bit for bit: the bench's tuning sweep times them,
// this checks them, and puts them under memcheck and racecheck with the rest of the
// suite. Each runs passes over a whole box and over a slab's planes with ghost planes
// as deep as its sweeps (the deep-halo sequence's call, HimenoBackend::sweep): both
// backends keep the planes outside the pass's reach as they were.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cunum/core/stream.hpp"
#include "cunum/core/value_types.hpp"
#include "cunum/himeno.hpp"
#include "himeno_reference.hpp"
#include "kernels/himeno/himeno_launch.cuh"
#include "src/himeno/himeno_cuda.hpp"
#include "test_support.hpp"

namespace {

using cunum::HimenoGrid;
using cunum::detail::HimenoSweepPolicy;

template <class T, class Policy>
void expect_the_cpus_pressure(const HimenoGrid& grid, std::int64_t begin, std::int64_t end) {
  const auto arrays = cunum::testing::himeno_random_arrays<T>(grid, 700);
  const cunum::HimenoFields<T> fields = arrays.fields();
  const cunum::detail::HimenoBox box{grid.nx, grid.ny, grid.nz, 0, grid.nx};
  cunum::Stream stream;
  cunum::detail::HimenoCuda<T, cunum::detail::HimenoSinglePolicy<Policy>> gpu(
      box, {&fields, 0}, 0.8, stream.get(), cunum::current_device_resource());
  const auto cpu = cunum::detail::make_himeno_cpu<T>(box, {&fields, 0}, 0.8);
  for (int pass = 0; pass < 3; ++pass) {
    gpu.sweep(Policy::sweeps, begin, end, 0, stream.get());
    gpu.swap();
    cpu->sweep(Policy::sweeps, begin, end, 0, nullptr);
    cpu->swap();
  }
  const double gosa = gpu.gosa(1, stream.get());
  const double expected = cpu->gosa(1, nullptr);
  std::vector<T> on_gpu(static_cast<std::size_t>(grid.points()));
  std::vector<T> on_cpu(on_gpu.size());
  gpu.copy_pressure(on_gpu.data(), stream.get());
  cpu->copy_pressure(on_cpu.data(), nullptr);
  EXPECT_TRUE(on_gpu == on_cpu) << Policy::sweeps << " sweeps a pass, tile " << Policy::tile_j << "x"
                                << Policy::tile_k << ", lag " << Policy::lag << ", planes [" << begin << ", " << end
                                << ")";
  EXPECT_NEAR(gosa, expected, 1e-12 * expected);
}

// Over the whole box and over a slab's planes, on a grid whose (j, k) interior no tile
// divides (17 x 131).
template <class T, class Policy>
void expect_the_cpus_pressure() {
  const HimenoGrid grid{23, 19, 133};
  expect_the_cpus_pressure<T, Policy>(grid, 1, grid.nx - 1);
  expect_the_cpus_pressure<T, Policy>(grid, Policy::sweeps, grid.nx - Policy::sweeps);
}

template <class T>
class HimenoPolicyGpu : public ::testing::Test {};
using RealTypes = ::testing::Types<CUNUM_REAL_TYPES>;
TYPED_TEST_SUITE(HimenoPolicyGpu, RealTypes);

TYPED_TEST(HimenoPolicyGpu, LagTwoAndWiderTilesGiveTheCpusPressure) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  expect_the_cpus_pressure<T, HimenoSweepPolicy<2, 8, 64, 256, 3, 3, 2>>();
  expect_the_cpus_pressure<T, HimenoSweepPolicy<3, 8, 64, 256, 3, 2, 2>>();
  expect_the_cpus_pressure<T, HimenoSweepPolicy<4, 16, 64, 256, 2, 2, 2>>();
  expect_the_cpus_pressure<T, HimenoSweepPolicy<4, 8, 64, 256, 3, 1, 1>>();
}

// Rings of more than 114 KB a block: float only (double's would not fit).
TEST(HimenoPolicyGpu, WideTilesGiveTheCpusPressure) {
  CUNUM_REQUIRE_GPU();
  expect_the_cpus_pressure<float, HimenoSweepPolicy<3, 16, 128, 512, 1, 2, 2>>();
  expect_the_cpus_pressure<float, HimenoSweepPolicy<4, 32, 64, 512, 1, 2, 2>>();
}

}  // namespace
