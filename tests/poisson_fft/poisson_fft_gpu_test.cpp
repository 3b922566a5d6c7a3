// PoissonSolver's CUDA backend against its CPU (FFTW) backend, to rounding: every
// boundary combination at both centrings, every wall transform at every power-of-two
// length, both discretizations, screening, batches, both gauges, at
// awkward sizes (1 x 1, axes of one point, primes 7 x 11 x 13, 1000 x 1500, 243 x 343),
// fresh random inputs, poisoned outputs, the right-hand side left unchanged, in place,
// misaligned arrays, the reject rule, non-finite right-hand sides and host pointers
// refused at the boundary.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "cunum/core/device_buffer.hpp"
#include "cunum/core/value_types.hpp"
#include "cunum/poisson_fft.hpp"
#include "poisson_reference.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::DeviceBuffer;
using cunum::ErrorCode;
using cunum::PoissonBoundary;
using cunum::PoissonCentring;
using cunum::PoissonCompatibility;
using cunum::PoissonDiscretization;
using cunum::PoissonGauge;
using cunum::PoissonGrid;
using cunum::PoissonOptions;
using cunum::PoissonSolver;

using cunum::testing::poisson::AxisConditions;
using cunum::testing::poisson::boundary_combinations;
using cunum::testing::poisson::condition_combinations;
using cunum::testing::poisson::describe;

constexpr PoissonBoundary kPeriodic = PoissonBoundary::periodic;
constexpr PoissonBoundary kDirichlet = PoissonBoundary::dirichlet;
constexpr PoissonBoundary kNeumann = PoissonBoundary::neumann;
constexpr PoissonCentring kCell = PoissonCentring::cell;

// The boundaries of the suites written before the centrings and the mixed axes (at
// their default centrings); EveryPlacementMatchesTheCpu and the WallTransformsAtEveryLength
// tests take the others.
const std::vector<PoissonBoundary> kServedBoundaries{kPeriodic, kDirichlet, kNeumann};

// The option sets the sweeps below share: the second-order finite-difference Laplacian;
// screening 3 with the zero_at_origin gauge; that gauge alone.
PoissonOptions finite_difference_options() {
  PoissonOptions options;
  options.discretization = PoissonDiscretization::finite_difference;
  return options;
}

PoissonOptions screened_at_origin_options() {
  PoissonOptions options;
  options.screening = 3;
  options.gauge = PoissonGauge::zero_at_origin;
  return options;
}

PoissonOptions zero_at_origin_options() {
  PoissonOptions options;
  options.gauge = PoissonGauge::zero_at_origin;
  return options;
}

template <class T>
using PoissonGpu = ::testing::Test;
using RealTypes = ::testing::Types<CUNUM_REAL_TYPES>;
TYPED_TEST_SUITE(PoissonGpu, RealTypes);

// CUDA and FFTW round differently; the solution is compared relative to its largest value.
template <class T>
double tolerance() {
  return std::is_same_v<T, float> ? 2e-5 : 1e-12;
}

// Solves f on both backends, the CUDA output poisoned first, and compares; also checks
// that an out-of-place solve leaves the device rhs as it was.
template <class T>
void compare_backends(const PoissonGrid& grid, const PoissonOptions& options, std::uint64_t stream_id) {
  PoissonSolver<T> cpu(grid, options, Backend::cpu);
  PoissonSolver<T> cuda(grid, options, Backend::cuda);
  const auto n = static_cast<std::size_t>(cpu.size());
  std::vector<T> f = cunum::testing::random_vector<T>(n, stream_id);
  const std::vector<T> expected = cpu.solve(f);
  auto rhs = DeviceBuffer<T>::from_host(f);
  DeviceBuffer<T> solution(n);
  solution.fill_bytes_async(0xFF);
  cuda.solve(rhs.data(), solution.data());
  const std::vector<T> actual = solution.to_host();
  EXPECT_EQ(rhs.to_host(), f) << "the out-of-place solve changed rhs";
  double scale = 0, worst = 0;
  for (std::size_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(static_cast<double>(expected[i])));
  for (std::size_t i = 0; i < n; ++i) {
    const double error = std::abs(static_cast<double>(actual[i]) - static_cast<double>(expected[i]));
    worst = std::isnan(error) ? INFINITY : std::max(worst, error);
  }
  std::string shape;
  for (auto extent : grid.shape) shape += std::to_string(extent) + " ";
  EXPECT_LE(worst, tolerance<T>() * std::max(scale, 1e-30))
      << "shape " << shape << describe(grid.boundaries, grid.centrings) << " batch " << grid.batch;
  // In place gives the same as out of place.
  cuda.solve(rhs.data(), rhs.data());
  const std::vector<T> in_place = rhs.to_host();
  EXPECT_EQ(in_place, actual);
}

TYPED_TEST(PoissonGpu, EveryBoundary2DAndBothDiscretizations) {
  CUNUM_REQUIRE_GPU();
  std::uint64_t stream = 0;
  for (const auto& boundaries : boundary_combinations(2, kServedBoundaries)) {
    for (PoissonDiscretization discretization : cunum::PoissonDiscretizationValues::all) {
      PoissonOptions options;
      options.discretization = discretization;
      compare_backends<TypeParam>({{37, 20}, {1.0, 2.0}, boundaries}, options, ++stream);
      options.gauge = PoissonGauge::zero_at_origin;
      options.screening = 2.0;
      compare_backends<TypeParam>({{1, 1}, {1.0, 1.0}, boundaries}, options, ++stream);
      options.screening = 0;
      compare_backends<TypeParam>({{2, 3}, {1.0, 1.0}, boundaries, 2}, options, ++stream);
      compare_backends<TypeParam>({{1, 7}, {1.0, 1.0}, boundaries}, options, ++stream);
      compare_backends<TypeParam>({{5, 1}, {1.0, 1.0}, boundaries}, options, ++stream);
    }
  }
}

TYPED_TEST(PoissonGpu, EveryBoundary3DAtPrimeSizes) {
  CUNUM_REQUIRE_GPU();
  std::uint64_t stream = 100;
  for (const auto& boundaries : boundary_combinations(3, kServedBoundaries)) {
    PoissonOptions options;
    options.discretization = stream % 2 ? PoissonDiscretization::spectral : PoissonDiscretization::finite_difference;
    options.gauge = stream % 3 ? PoissonGauge::zero_mean : PoissonGauge::zero_at_origin;
    compare_backends<TypeParam>({{7, 11, 13}, {1.0, 0.5, 2.0}, boundaries}, options, ++stream);
  }
}

// Under compute-sanitizer (scripts/device-check names the tool in CUNUM_SANITIZER) the
// kernels and cuFFT's planning run some hundred times slower: the suites of the wall
// placements take every third 2-D and every thirteenth 3-D combination and four
// lengths there; the plain run covers the rest.
bool under_sanitizer() { return std::getenv("CUNUM_SANITIZER") != nullptr; }

// Every boundary and centring on every axis, 2-D and 3-D, as the CPU backend solves it.
TYPED_TEST(PoissonGpu, EveryPlacementMatchesTheCpu) {
  CUNUM_REQUIRE_GPU();
  std::uint64_t stream = 500;
  for (int rank : {2, 3}) {
    const std::vector<AxisConditions> all = condition_combinations(rank);
    const std::size_t step = !under_sanitizer() ? 1 : rank == 2 ? 3 : 13;
    for (std::size_t c = 0; c < all.size(); c += step) {
      const AxisConditions& conditions = all[c];
      PoissonGrid grid{rank == 2 ? std::vector<std::int64_t>{9, 16} : std::vector<std::int64_t>{5, 8, 7},
                       std::vector<double>(static_cast<std::size_t>(rank), 1.0), conditions.boundaries};
      grid.centrings = conditions.centrings;
      PoissonOptions options;
      options.discretization = stream % 2 ? PoissonDiscretization::spectral : PoissonDiscretization::finite_difference;
      options.gauge = stream % 3 ? PoissonGauge::zero_mean : PoissonGauge::zero_at_origin;
      compare_backends<TypeParam>(grid, options, ++stream);
    }
  }
}

// Large grids and batches, three tests so that the sanitizers' shards split them and
// time each. The 1000 x 1500 periodic grid is over nine tenths of the points the three
// solve: under compute-sanitizer it is 200 x 600, a twelfth of the points (its rows of
// 301 modes still take a division warp more than one pass, as 751 do, and cuFFT
// still mixes radices); the plain run covers 1000 x 1500.
TYPED_TEST(PoissonGpu, LargeAndBatchedPeriodic) {
  CUNUM_REQUIRE_GPU();
  const std::vector<std::int64_t> shape = under_sanitizer() ? std::vector<std::int64_t>{200, 600}
                                                            : std::vector<std::int64_t>{1000, 1500};
  compare_backends<TypeParam>({shape, {1.0, 1.5}, {kPeriodic, kPeriodic}}, {}, 200);
}

// 3^5 cells by 7^3 vertices: Makhoul's DCT-II at 243 across tiles, DST-I by an R2C of
// 2 x 344 = 2^4 x 43 turning around on its lines. Under compute-sanitizer, where this
// grid ran past 290 s alone under memcheck on an H200, 3^4 cells by 2^4 x 3 vertices
// take the same passes: the DCT-II at 81 still spans tiles, the DST-I an R2C of
// 2 x 49 = 2 x 7^2.
TYPED_TEST(PoissonGpu, LargeAndBatchedWalls) {
  CUNUM_REQUIRE_GPU();
  const std::vector<std::int64_t> shape = under_sanitizer() ? std::vector<std::int64_t>{81, 48}
                                                            : std::vector<std::int64_t>{243, 343};
  compare_backends<TypeParam>({shape, {1.0, 1.0}, {kNeumann, kDirichlet}}, {}, 201);
}

TYPED_TEST(PoissonGpu, LargeAndBatchedBatches) {
  CUNUM_REQUIRE_GPU();
  PoissonOptions screened;
  screened.screening = 10;
  compare_backends<TypeParam>({{31, 64}, {1.0, 1.0}, {kPeriodic, kNeumann}, 5}, screened, 202);
  compare_backends<TypeParam>({{16, 9, 12}, {1.0, 1.0, 1.0}, {kPeriodic, kPeriodic, kPeriodic}, 3}, screened, 203);
  compare_backends<TypeParam>({{1, 9, 1}, {1.0, 1.0, 1.0}, {kPeriodic, kDirichlet, kPeriodic}, 2}, screened, 204);
}

// Lines longer than the staged line kernels hold (64 KB; 20000 values along the
// contiguous axis) take the along case of lines_from_grid_kernel and
// grid_from_lines_kernel: Makhoul's DCT-II at cells, and the DST-I at vertices, whose
// half spectra are longer still.
TYPED_TEST(PoissonGpu, LinesLongerThanTheStagedKernelsHold) {
  CUNUM_REQUIRE_GPU();
  compare_backends<TypeParam>({{3, 20000}, {1.0, 1.0}, {kDirichlet, kNeumann}}, {}, 205);
  compare_backends<TypeParam>({{3, 20000}, {1.0, 1.0}, {kNeumann, kDirichlet}}, {}, 206);
}

// The pencil kernels at every slow-axis length n of `lengths`: n x m with the slow
// axis's boundary on both axes, and a batch of two n x 2m with `other` on the fast
// axis, finite-difference.
template <class T>
void compare_at_slow_axis_lengths(const std::vector<std::int64_t>& lengths, PoissonBoundary slow,
                                  PoissonBoundary other, std::uint64_t& stream) {
  const PoissonOptions finite_difference = finite_difference_options();
  for (const std::int64_t n : lengths) {
    const std::int64_t m = n <= 64 ? 37 : 3 + 1024 / n;
    compare_backends<T>({{n, m}, {1.0, 2.0}, {slow, slow}}, {}, ++stream);
    compare_backends<T>({{n, 2 * m}, {1.0, 1.0}, {slow, other}, 2}, finite_difference, ++stream);
  }
}

// The wall transforms added with the centrings, each on the slow axis at every
// power-of-two length from 2 to 8192 (one more for Neumann at vertices, whose DCT-I is
// a DFT of 2(n - 1)): beside itself (the line turnaround; after a DCT-III forward, its
// line divided in place), beside a periodic axis (the periodic R2C after it) on
// either side, beside Neumann at cells; odd and awkward sizes, 3-D, batches, both
// discretizations, screening and the zero_at_origin gauge.
//   dirichlet at cells        DST-II / DST-III: the cosine pass with (-1)^i (pencils too)
//   neumann at vertices       DCT-I: the even extension
//   mixed at vertices         DCT-III forward, DCT-II back (reversed for dirichlet_neumann);
//                             neumann_dirichlet along pencils without periodic axes
//   mixed at cells            DCT-IV (DST-IV with (-1)^i): a C2C of n / 2 pre-twiddled pairs
//                             (odd n and n = 2: Makhoul at 2n); without periodic axes the
//                             slow and middle axes along pencils (quarter_pencil_kernel), an
//                             even contiguous one folded into a 2-D grid's turnaround
template <class T>
void compare_wall_at_every_length(PoissonBoundary boundary, PoissonCentring centring, std::uint64_t& stream) {
  const PoissonOptions finite_difference = finite_difference_options();
  const PoissonOptions screened_origin = screened_at_origin_options();
  const auto placed = [centring](PoissonGrid grid) {
    for (std::size_t a = 0; a < grid.shape.size(); ++a) {
      grid.centrings.push_back(grid.boundaries[a] == kNeumann && grid.boundaries[a] != grid.boundaries[0] ? kCell
                                                                                                          : centring);
    }
    return grid;
  };
  const std::int64_t shift = boundary == kNeumann && centring == PoissonCentring::vertex ? 1 : 0;
  SCOPED_TRACE(describe({boundary}, {centring}));
  const std::vector<std::int64_t> powers = under_sanitizer() ? std::vector<std::int64_t>{2, 32, 512, 8192}
                                                             : std::vector<std::int64_t>{2, 4, 8, 16, 32, 64, 128, 256,
                                                                                         512, 1024, 2048, 4096, 8192};
  for (const std::int64_t power : powers) {
    const std::int64_t n = power + shift;
    const std::int64_t m = n <= 64 ? 37 : 3 + 1024 / n;
    compare_backends<T>(placed({{n, m}, {1.0, 2.0}, {boundary, boundary}}), {}, ++stream);
    // An even contiguous axis: a mixed one at cells folds into the slow axis's turnaround.
    compare_backends<T>(placed({{n, 2 * m}, {1.0, 1.0}, {boundary, boundary}, 2}), finite_difference, ++stream);
    compare_backends<T>(placed({{n, 2 * m}, {1.0, 1.0}, {boundary, kPeriodic}, 2}), finite_difference, ++stream);
    compare_backends<T>(placed({{m, n}, {1.0, 1.0}, {kPeriodic, boundary}}), screened_origin, ++stream);
    // A periodic axis of a pencil length: a wall at cells beside it folds into its turnaround.
    compare_backends<T>(placed({{64, n}, {1.0, 1.0}, {kPeriodic, boundary}, 2}), finite_difference, ++stream);
    compare_backends<T>(placed({{n, m}, {1.0, 1.0}, {boundary, kNeumann}}), finite_difference, ++stream);
  }
  for (const std::int64_t n : under_sanitizer() ? std::vector<std::int64_t>{3, 31}
                                                : std::vector<std::int64_t>{1, 2, 3, 5, 7, 31, 243, 1000}) {
    if (n + shift < 2) continue;
    compare_backends<T>(placed({{n + shift, 9}, {1.0, 1.0}, {boundary, boundary}}), {}, ++stream);
    compare_backends<T>(placed({{9, n + shift}, {1.0, 1.0}, {kNeumann, boundary}, 3}), screened_origin, ++stream);
  }
  compare_backends<T>(placed({{16, 5, 7}, {1.0, 1.0, 2.0}, {boundary, boundary, boundary}}), {}, ++stream);
  // Along pencils (Dirichlet at cells: cosine_pencil_kernel with its signs; the mixed
  // axes at cells: quarter_pencil_kernel): the slow axis turning around, the middle one
  // forward and back, the contiguous one by cuFFT.
  compare_backends<T>(placed({{16, 32, 8}, {1.0, 1.0, 1.0}, {boundary, boundary, boundary}, 2}), finite_difference,
                      ++stream);
  compare_backends<T>(placed({{8, 16, 33}, {1.0, 2.0, 1.0}, {kNeumann, boundary, kPeriodic}, 2}), finite_difference,
                      ++stream);
  compare_backends<T>(placed({{32, 16, 9}, {1.0, 1.0, 1.0}, {kPeriodic, kPeriodic, boundary}}), screened_origin,
                      ++stream);
  compare_backends<T>(placed({{65, 12, 10}, {1.0, 1.0, 1.0}, {boundary, kPeriodic, kPeriodic}, 2}), {}, ++stream);
  // Beside Dirichlet at vertices (DST-I, its sine pencils) and Neumann at cells (cosine pencils).
  PoissonGrid beside{{31, 16, 64}, {1.0, 1.0, 1.0}, {kDirichlet, boundary, kNeumann}};
  beside.centrings = {PoissonCentring::vertex, centring, kCell};
  compare_backends<T>(beside, {}, ++stream);
  beside = {{64, 17, 15}, {1.0, 1.0, 1.0}, {kNeumann, boundary, kDirichlet}};
  beside.centrings = {kCell, centring, PoissonCentring::vertex};
  compare_backends<T>(beside, finite_difference, ++stream);
}

// One test a transform, so that the sanitizers' shards split them and time each
// (together, under memcheck or racecheck beside seven other sanitizer processes on one
// GPU, they outlasted 500 s); a transform draws fewer than 100 inputs.
constexpr PoissonBoundary kDirichletNeumann = PoissonBoundary::dirichlet_neumann;
constexpr PoissonBoundary kNeumannDirichlet = PoissonBoundary::neumann_dirichlet;
constexpr PoissonCentring kVertex = PoissonCentring::vertex;

#define CUNUM_WALL_TRANSFORM_TEST(name, boundary, centring, first_stream)  \
  TYPED_TEST(PoissonGpu, WallTransformsAtEveryLength##name) {              \
    CUNUM_REQUIRE_GPU();                                                   \
    std::uint64_t stream = first_stream;                                   \
    compare_wall_at_every_length<TypeParam>(boundary, centring, stream);   \
  }
CUNUM_WALL_TRANSFORM_TEST(DirichletCell, kDirichlet, kCell, 700)
CUNUM_WALL_TRANSFORM_TEST(NeumannVertex, kNeumann, kVertex, 800)
CUNUM_WALL_TRANSFORM_TEST(DirichletNeumannVertex, kDirichletNeumann, kVertex, 900)
CUNUM_WALL_TRANSFORM_TEST(NeumannDirichletVertex, kNeumannDirichlet, kVertex, 1000)
CUNUM_WALL_TRANSFORM_TEST(DirichletNeumannCell, kDirichletNeumann, kCell, 1100)
CUNUM_WALL_TRANSFORM_TEST(NeumannDirichletCell, kNeumannDirichlet, kCell, 1200)
#undef CUNUM_WALL_TRANSFORM_TEST

// The reject rule's sums on an axis with Neumann walls at vertices count its wall points
// half (the weighted mean), as the CPU backend's do: a right-hand side of weighted mean
// zero is solved, one of plain mean zero is refused.
TYPED_TEST(PoissonGpu, RejectWeighsVertexNeumannWallsHalf) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  PoissonGrid grid{{6, 9}, {1.0, 2.0}, {kNeumann, kPeriodic}, 2};
  grid.centrings = {PoissonCentring::vertex, PoissonCentring::vertex};
  PoissonOptions reject;
  reject.compatibility = PoissonCompatibility::reject;
  PoissonSolver<T> cpu(grid, reject, Backend::cpu);
  PoissonSolver<T> cuda(grid, reject, Backend::cuda);
  std::vector<T> f = cunum::testing::random_vector<T>(108, 31);
  for (int b = 0; b < 2; ++b) {
    double sum = 0, weights = 0;
    for (int i = 0; i < 54; ++i) {
      const double w = i / 9 == 0 || i / 9 == 5 ? 0.5 : 1.0;
      sum += w * f[b * 54 + i];
      weights += w;
    }
    for (int i = 0; i < 54; ++i) f[b * 54 + i] -= static_cast<T>(sum / weights);
  }
  const std::vector<T> expected = cpu.solve(f);
  const std::vector<T> actual = cuda.solve(f);
  double worst = 0, scale = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    worst = std::max(worst, std::abs(static_cast<double>(actual[i]) - static_cast<double>(expected[i])));
    scale = std::max(scale, std::abs(static_cast<double>(expected[i])));
  }
  EXPECT_LE(worst, tolerance<T>() * scale);
  std::vector<T> plain = f;
  const T plain_mean = std::accumulate(f.begin(), f.begin() + 54, T(0)) / T(54);
  for (int i = 0; i < 54; ++i) plain[i] -= plain_mean;
  EXPECT_CUNUM_ERROR(cuda.solve(plain), ErrorCode::invalid_argument, "'rhs' has mean");
}

// The pencil turnaround (the slowest Fourier axis of power-of-two length, FFT'd, divided
// and FFT'd back in one kernel): every length from 2 to 8192, tiles cut short at the
// end of a problem, batches, an axis of one point between, the pencil axis after a wall
// axis or behind it, both discretizations, screening and both gauges.
TYPED_TEST(PoissonGpu, PencilTurnaroundAtEveryLength) {
  CUNUM_REQUIRE_GPU();
  std::uint64_t stream = 400;
  compare_at_slow_axis_lengths<TypeParam>({2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}, kPeriodic,
                                          kPeriodic, stream);
  const PoissonOptions screened_origin = screened_at_origin_options();
  const PoissonOptions origin = zero_at_origin_options();
  compare_backends<TypeParam>({{32, 8, 10}, {1.0, 1.0, 2.0}, {kPeriodic, kPeriodic, kPeriodic}}, {}, ++stream);
  compare_backends<TypeParam>({{64, 5, 9}, {1.0, 1.0, 1.0}, {kPeriodic, kPeriodic, kPeriodic}, 3}, origin, ++stream);
  compare_backends<TypeParam>({{8, 1, 6}, {1.0, 1.0, 1.0}, {kPeriodic, kPeriodic, kPeriodic}, 2}, screened_origin,
                              ++stream);
  compare_backends<TypeParam>({{9, 16, 12}, {1.0, 1.0, 1.0}, {kDirichlet, kPeriodic, kPeriodic}}, {}, ++stream);
  compare_backends<TypeParam>({{16, 7, 8}, {1.0, 1.0, 1.0}, {kPeriodic, kNeumann, kPeriodic}, 2}, screened_origin,
                              ++stream);
  compare_backends<TypeParam>({{128, 128}, {1.0, 1.0}, {kPeriodic, kPeriodic}}, origin, ++stream);
}

// The cosine pencil turnaround (a grid without periodic axes whose slowest axis is
// Neumann of power-of-two length: DCT-II, division and DCT-III of two real pencils at
// once, after the other wall passes, a middle Neumann axis's along pencils too): every
// length from 2 to 8192, an odd number of pencils (the last pair half empty), Dirichlet
// and Neumann beside it, 3-D, batches, both discretizations, screening and both gauges.
TYPED_TEST(PoissonGpu, CosinePencilTurnaroundAtEveryLength) {
  CUNUM_REQUIRE_GPU();
  std::uint64_t stream = 500;
  const PoissonOptions finite_difference = finite_difference_options();
  const PoissonOptions screened_origin = screened_at_origin_options();
  compare_at_slow_axis_lengths<TypeParam>({2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}, kNeumann,
                                          kDirichlet, stream);
  compare_backends<TypeParam>({{16, 5, 7}, {1.0, 1.0, 2.0}, {kNeumann, kDirichlet, kNeumann}}, screened_origin, ++stream);
  compare_backends<TypeParam>({{64, 3, 4}, {1.0, 1.0, 1.0}, {kNeumann, kNeumann, kNeumann}, 3}, {}, ++stream);
  compare_backends<TypeParam>({{32, 1, 6}, {1.0, 1.0, 1.0}, {kNeumann, kNeumann, kDirichlet}, 2}, finite_difference,
                              ++stream);
  const PoissonOptions origin = zero_at_origin_options();
  compare_backends<TypeParam>({{128, 96}, {1.0, 1.0}, {kNeumann, kNeumann}}, origin, ++stream);
  // 3-D: the middle Neumann axis along pencils too (forward and inverse passes), the
  // contiguous one and Dirichlet ones through cuFFT, in every mix.
  compare_backends<TypeParam>({{16, 8, 4}, {1.0, 1.0, 1.0}, {kNeumann, kNeumann, kNeumann}}, {}, ++stream);
  compare_backends<TypeParam>({{8, 16, 32}, {1.0, 2.0, 1.0}, {kNeumann, kNeumann, kNeumann}, 2}, finite_difference,
                              ++stream);
  compare_backends<TypeParam>({{32, 16, 7}, {1.0, 1.0, 1.0}, {kNeumann, kNeumann, kDirichlet}}, screened_origin,
                              ++stream);
  compare_backends<TypeParam>({{16, 32, 8}, {1.0, 1.0, 1.0}, {kNeumann, kDirichlet, kNeumann}}, {}, ++stream);
  compare_backends<TypeParam>({{4, 64, 2}, {1.0, 1.0, 1.0}, {kNeumann, kNeumann, kNeumann}, 3}, origin, ++stream);
  compare_backends<TypeParam>({{2, 2, 2}, {1.0, 1.0, 1.0}, {kNeumann, kNeumann, kNeumann}}, {}, ++stream);
}

// The sine pencil kernels (a grid without periodic axes whose slowest axis is Dirichlet
// with 2(n + 1) a power of two: DST-I, division and DST-I of two real pencils at once;
// a middle Dirichlet axis's DST-I along pencils too): every length from n = 1 to 4095,
// odd pencil counts, Neumann beside it, 3-D mixes, batches, both discretizations and
// screening.
TYPED_TEST(PoissonGpu, SinePencilsAtEveryLength) {
  CUNUM_REQUIRE_GPU();
  std::uint64_t stream = 600;
  const PoissonOptions finite_difference = finite_difference_options();
  PoissonOptions screened;
  screened.screening = 3;
  compare_at_slow_axis_lengths<TypeParam>({1, 3, 7, 15, 31, 63, 127, 255, 511, 1023, 2047, 4095}, kDirichlet,
                                          kNeumann, stream);
  compare_backends<TypeParam>({{7, 15, 5}, {1.0, 1.0, 2.0}, {kDirichlet, kDirichlet, kDirichlet}}, {}, ++stream);
  compare_backends<TypeParam>({{15, 8, 31}, {1.0, 1.0, 1.0}, {kDirichlet, kNeumann, kDirichlet}, 2}, screened,
                              ++stream);
  compare_backends<TypeParam>({{31, 3, 7}, {1.0, 1.0, 1.0}, {kDirichlet, kDirichlet, kNeumann}}, finite_difference,
                              ++stream);
  compare_backends<TypeParam>({{8, 31, 6}, {1.0, 1.0, 1.0}, {kNeumann, kDirichlet, kDirichlet}, 3}, {}, ++stream);
}

// A grid of unit spacing with the given boundaries and centrings.
PoissonGrid centred_grid(const std::vector<std::int64_t>& shape, const std::vector<PoissonBoundary>& boundaries,
                         const std::vector<PoissonCentring>& centrings, std::int64_t batch = 1) {
  PoissonGrid grid{shape, std::vector<double>(shape.size(), 1.0), boundaries, batch};
  grid.centrings = centrings;
  return grid;
}

// The DCT-I pencils (extension_pencil_kernel's even extension: a grid without periodic
// axes whose slowest axis is Neumann at vertices with 2(n - 1) a power of two; every such
// length on that axis is in WallTransformsAtEveryLengthNeumannVertex): a middle axis of
// that kind forward and back, odd pencil counts, beside Dirichlet at vertices (sine
// pencils) and Neumann at cells (the contiguous axis folded in), the smallest lengths
// (DFTs of 2 and 4), batches, both discretizations, screening and both gauges.
TYPED_TEST(PoissonGpu, CosineVertexPencils) {
  CUNUM_REQUIRE_GPU();
  std::uint64_t stream = 1500;
  const PoissonOptions finite_difference = finite_difference_options();
  const PoissonOptions screened_origin = screened_at_origin_options();
  const PoissonOptions origin = zero_at_origin_options();
  compare_backends<TypeParam>(centred_grid({17, 33, 9}, {kNeumann, kNeumann, kNeumann}, {kVertex, kVertex, kVertex}),
                              {}, ++stream);
  compare_backends<TypeParam>(centred_grid({33, 17, 6}, {kNeumann, kNeumann, kNeumann}, {kVertex, kVertex, kVertex}, 2),
                              finite_difference, ++stream);
  compare_backends<TypeParam>(centred_grid({65, 9, 16}, {kNeumann, kNeumann, kNeumann}, {kVertex, kVertex, kCell}),
                              screened_origin, ++stream);
  compare_backends<TypeParam>(
      centred_grid({9, 31, 7}, {kNeumann, kDirichlet, kNeumann}, {kVertex, kVertex, kVertex}, 3), {}, ++stream);
  compare_backends<TypeParam>(
      centred_grid({15, 17, 5}, {kDirichlet, kNeumann, kDirichlet}, {kVertex, kVertex, kVertex}), origin, ++stream);
  compare_backends<TypeParam>(centred_grid({2, 3, 5}, {kNeumann, kNeumann, kNeumann}, {kVertex, kVertex, kVertex}), {},
                              ++stream);
  compare_backends<TypeParam>(centred_grid({3, 2, 4}, {kNeumann, kNeumann, kNeumann}, {kVertex, kVertex, kCell}, 2),
                              finite_difference, ++stream);
  compare_backends<TypeParam>(centred_grid({129, 128}, {kNeumann, kNeumann}, {kVertex, kCell}), origin, ++stream);
}

// A contiguous wall axis at vertices folded into the first wall pencil kernel (its
// extension's R2C and the C2R back in place in the complex array; the pencil kernel turns
// two modes into a pair of coefficients and back): Dirichlet (DST-I) and Neumann (DCT-I),
// odd and even lengths of that axis from the smallest, lengths whose extension is no
// power of two, beside sine, cosine and DCT-I pencils, with every other wall on pencils
// (the pairs kept in the complex array) or one of them by line passes (the pairs in the
// coefficient array), batches, both discretizations, screening and the gauges.
TYPED_TEST(PoissonGpu, FoldedVertexAxis) {
  CUNUM_REQUIRE_GPU();
  std::uint64_t stream = 1600;
  const PoissonOptions finite_difference = finite_difference_options();
  const PoissonOptions screened_origin = screened_at_origin_options();
  const PoissonOptions origin = zero_at_origin_options();
  using Sizes = std::vector<std::pair<std::int64_t, std::int64_t>>;
  const Sizes dirichlet = {{3, 1}, {3, 2}, {15, 6}, {255, 255}, {63, 1000}, {7, 4096}, {4095, 5}, {1, 9}};
  const Sizes neumann = {{3, 2}, {5, 3}, {17, 6}, {257, 257}, {65, 1000}, {9, 4097}, {4097, 5}, {2, 9}};
  for (const auto& [boundary, sizes] : {std::pair{kDirichlet, dirichlet}, std::pair{kNeumann, neumann}}) {
    for (const auto& [slow, contiguous] : sizes) {
      compare_backends<TypeParam>(centred_grid({slow, contiguous}, {boundary, boundary}, {kVertex, kVertex}),
                                  boundary == kNeumann ? origin : PoissonOptions{}, ++stream);
      compare_backends<TypeParam>(centred_grid({slow, contiguous}, {boundary, boundary}, {kVertex, kVertex}, 2),
                                  finite_difference, ++stream);
    }
  }
  compare_backends<TypeParam>(centred_grid({16, 7}, {kNeumann, kDirichlet}, {kCell, kVertex}), screened_origin,
                              ++stream);
  compare_backends<TypeParam>(centred_grid({17, 10}, {kNeumann, kDirichlet}, {kVertex, kVertex}, 3), {}, ++stream);
  compare_backends<TypeParam>(centred_grid({15, 10}, {kDirichlet, kNeumann}, {kVertex, kVertex}, 2), {}, ++stream);
  compare_backends<TypeParam>(centred_grid({32, 9}, {kNeumann, kNeumann}, {kCell, kVertex}), screened_origin,
                              ++stream);
  compare_backends<TypeParam>(
      centred_grid({15, 31, 2}, {kDirichlet, kDirichlet, kDirichlet}, {kVertex, kVertex, kVertex}), {}, ++stream);
  compare_backends<TypeParam>(
      centred_grid({7, 3, 1000}, {kDirichlet, kDirichlet, kDirichlet}, {kVertex, kVertex, kVertex}, 2),
      finite_difference, ++stream);
  compare_backends<TypeParam>(
      centred_grid({9, 3, 1000}, {kNeumann, kNeumann, kNeumann}, {kVertex, kVertex, kVertex}, 2), finite_difference,
      ++stream);
  compare_backends<TypeParam>(centred_grid({16, 7, 9}, {kNeumann, kDirichlet, kDirichlet}, {kCell, kVertex, kVertex}),
                              screened_origin, ++stream);
  compare_backends<TypeParam>(centred_grid({16, 9, 7}, {kNeumann, kNeumann, kNeumann}, {kCell, kVertex, kVertex}),
                              origin, ++stream);
  compare_backends<TypeParam>(
      centred_grid({33, 17, 4}, {kNeumann, kNeumann, kDirichlet}, {kVertex, kVertex, kVertex}, 2), {}, ++stream);
  compare_backends<TypeParam>(
      centred_grid({15, 17, 6}, {kDirichlet, kNeumann, kNeumann}, {kVertex, kVertex, kVertex}), screened_origin,
      ++stream);
  compare_backends<TypeParam>(
      centred_grid({15, 6, 9}, {kDirichlet, kDirichletNeumann, kDirichlet}, {kVertex, kVertex, kVertex}),
      finite_difference, ++stream);
  compare_backends<TypeParam>(
      centred_grid({17, 6, 9}, {kNeumann, kNeumannDirichlet, kNeumann}, {kVertex, kVertex, kVertex}, 2), origin,
      ++stream);
  compare_backends<TypeParam>(
      centred_grid({31, 5, 8}, {kDirichlet, kDirichlet, kDirichlet}, {kVertex, kCell, kVertex}, 2), {}, ++stream);
}

// The periodic turnaround with a wall at cells folded in (a periodic slow axis of
// power-of-two length, the contiguous axis Neumann, Dirichlet or mixed at cells, every
// other axis of one point): every length from 2 to 8192, even and odd wall lengths (modes
// 0 and n / 2 carry one coefficient each), batches, both discretizations, screening and
// both gauges.
TYPED_TEST(PoissonGpu, FoldedPeriodicTurnaroundAtEveryLength) {
  CUNUM_REQUIRE_GPU();
  std::uint64_t stream = 1300;
  const PoissonOptions finite_difference = finite_difference_options();
  const PoissonOptions screened_origin = screened_at_origin_options();
  const auto at_cells = [](PoissonGrid grid) {
    grid.centrings.assign(grid.shape.size(), kCell);
    return grid;
  };
  const std::vector<std::int64_t> lengths = under_sanitizer()
                                                ? std::vector<std::int64_t>{2, 32, 512, 8192}
                                                : std::vector<std::int64_t>{2,   4,   8,    16,   32,   64,  128,
                                                                            256, 512, 1024, 2048, 4096, 8192};
  for (const std::int64_t n : lengths) {
    const std::int64_t m = n <= 64 ? 37 : 3 + 1024 / n;
    compare_backends<TypeParam>(at_cells({{n, m}, {1.0, 2.0}, {kPeriodic, kNeumann}}), {}, ++stream);
    compare_backends<TypeParam>(at_cells({{n, m + 1}, {1.0, 1.0}, {kPeriodic, kDirichlet}, 2}), finite_difference,
                                ++stream);
    compare_backends<TypeParam>(at_cells({{n, 2}, {1.0, 1.0}, {kPeriodic, kNeumann}}), screened_origin, ++stream);
    // The mixed axes at cells of even length fold by their pairs (quarter_pairs).
    compare_backends<TypeParam>(at_cells({{n, 2 * m}, {1.0, 1.0}, {kPeriodic, kDirichletNeumann}, 2}),
                                finite_difference, ++stream);
    compare_backends<TypeParam>(at_cells({{n, 2 * m + 2}, {1.0, 2.0}, {kPeriodic, kNeumannDirichlet}}),
                                screened_origin, ++stream);
  }
  compare_backends<TypeParam>(at_cells({{16, 1, 9}, {1.0, 1.0, 1.0}, {kPeriodic, kPeriodic, kNeumann}, 3}),
                              screened_origin, ++stream);
  compare_backends<TypeParam>(at_cells({{32, 10, 1}, {1.0, 1.0, 1.0}, {kPeriodic, kDirichlet, kPeriodic}}), {},
                              ++stream);
}

// Wall passes whose lines span several 32 x 32 tiles, partial ones at every edge, in
// every position of the axis order (contiguous lines, and lines transposed through
// shared memory with lanes on either other axis), batched and mixed with periodic axes.
// One grid a test, so that the sanitizers' shards (scripts/device-check) can split them.
TYPED_TEST(PoissonGpu, WallPassesAcrossManyTilesWallsOnEveryAxisBatched) {
  CUNUM_REQUIRE_GPU();
  compare_backends<TypeParam>({{70, 33, 45}, {1.0, 1.0, 1.0}, {kDirichlet, kNeumann, kDirichlet}, 2}, {}, 300);
}

TYPED_TEST(PoissonGpu, WallPassesAcrossManyTilesPeriodicFirstAxis) {
  CUNUM_REQUIRE_GPU();
  compare_backends<TypeParam>({{40, 37, 66}, {1.0, 2.0, 1.0}, {kPeriodic, kDirichlet, kNeumann}}, {}, 301);
}

TYPED_TEST(PoissonGpu, WallPassesAcrossManyTilesPeriodicMiddleAxis) {
  CUNUM_REQUIRE_GPU();
  compare_backends<TypeParam>({{33, 40, 70}, {1.0, 1.0, 3.0}, {kNeumann, kPeriodic, kDirichlet}}, {}, 302);
}

TYPED_TEST(PoissonGpu, WallPassesAcrossManyTilesUnitMiddleAxisBatched) {
  CUNUM_REQUIRE_GPU();
  compare_backends<TypeParam>({{97, 1, 65}, {1.0, 1.0, 1.0}, {kDirichlet, kPeriodic, kNeumann}, 3}, {}, 303);
}

TYPED_TEST(PoissonGpu, WallPassesAcrossManyTiles2DBatched) {
  CUNUM_REQUIRE_GPU();
  compare_backends<TypeParam>({{257, 129}, {1.0, 1.0}, {kDirichlet, kPeriodic}, 2}, {}, 304);
}

// Arrays one element into an allocation are not aligned as cuFFT requires: the
// periodic solver stages them through its own array and gets the same answer.
TYPED_TEST(PoissonGpu, MisalignedArrays) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  // The second grid's slow axis turns around in the pencil kernel; the third's, the
  // fourth's and the fifth's too, their contiguous wall axis folded in (no coefficient
  // array: no staging either).
  for (const PoissonGrid& grid : {PoissonGrid{{30, 17}, {1.0, 1.0}, {kPeriodic, kPeriodic}},
                                  PoissonGrid{{32, 17}, {1.0, 1.0}, {kPeriodic, kPeriodic}},
                                  PoissonGrid{{32, 17}, {1.0, 1.0}, {kNeumann, kNeumann}},
                                  PoissonGrid{{32, 17}, {1.0, 1.0}, {kPeriodic, kNeumann}},
                                  PoissonGrid{{16, 8, 6}, {1.0, 1.0, 1.0}, {kNeumann, kNeumann, kNeumann}}}) {
    PoissonSolver<T> solver(grid, {}, Backend::cuda);
    const auto n = static_cast<std::size_t>(solver.size());
    const std::vector<T> f = cunum::testing::random_vector<T>(n, 300 + n);
    const std::vector<T> expected = PoissonSolver<T>(grid, {}, Backend::cpu).solve(f);
    DeviceBuffer<T> aligned(n + 1), misaligned(n + 1), output(n + 1);
    ASSERT_EQ(cudaMemcpy(aligned.data(), f.data(), n * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(misaligned.data() + 1, f.data(), n * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    for (const bool misaligned_rhs : {true, false}) {
      output.fill_bytes_async(0xFF);
      T* solution = misaligned_rhs ? output.data() : output.data() + 1;
      solver.solve(misaligned_rhs ? misaligned.data() + 1 : aligned.data(), solution);
      std::vector<T> actual(n);
      ASSERT_EQ(cudaMemcpy(actual.data(), solution, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
      double scale = 0, worst = 0;
      for (std::size_t i = 0; i < n; ++i) {
        scale = std::max(scale, std::abs(static_cast<double>(expected[i])));
        const double error = std::abs(static_cast<double>(actual[i]) - static_cast<double>(expected[i]));
        worst = std::isnan(error) ? INFINITY : std::max(worst, error);
      }
      EXPECT_LE(worst, tolerance<T>() * scale)
          << (misaligned_rhs ? "misaligned rhs" : "misaligned solution") << ", " << n << " points";
    }
  }
}

TYPED_TEST(PoissonGpu, RejectsIncompatibleRhsWithoutWriting) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  PoissonOptions options;
  options.compatibility = PoissonCompatibility::reject;
  const PoissonGrid grid{{12, 10}, {1.0, 1.0}, {kNeumann, kPeriodic}, 2};
  PoissonSolver<T> solver(grid, options, Backend::cuda);
  std::vector<T> f(240, T(0));
  f[3] = T(1);
  f[7] = T(-1);
  f[120 + 5] = T(0.5);  // the second problem's mean is not zero
  auto rhs = DeviceBuffer<T>::from_host(f);
  DeviceBuffer<T> solution(240);
  solution.fill_bytes_async(0x7F);
  const std::vector<T> poisoned = solution.to_host();
  EXPECT_CUNUM_ERROR(solver.solve(rhs.data(), solution.data()), ErrorCode::invalid_argument, "problem 1");
  EXPECT_EQ(solution.to_host(), poisoned);
  f[120 + 6] = T(-0.5);
  rhs.copy_from_host(f.data(), f.size());
  EXPECT_NO_THROW(solver.solve(rhs.data(), solution.data()));
}

// Non-finite right-hand sides get what the header says on the CUDA backend too: under
// `reject` on a singular problem, refused from the sums it already computes, nothing
// written; in every other mode no check, and the bad problem's solution non-finite
// while the other problems of the batch come out bit for bit as without it (on the
// periodic pencil turnaround, the wall pencils and the line passes).
TYPED_TEST(PoissonGpu, NonFiniteRhs) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  using namespace cunum::testing::poisson;
  PoissonOptions reject;
  reject.compatibility = PoissonCompatibility::reject;
  std::uint64_t stream = 700;
  for (const PoissonGrid& grid : {PoissonGrid{{16, 16}, {1.0, 1.0}, {kPeriodic, kPeriodic}, 3},
                                  PoissonGrid{{16, 8}, {1.0, 1.0}, {kNeumann, kNeumann}, 3}}) {
    PoissonSolver<T> solver(grid, reject, Backend::cuda);
    const std::int64_t points = solver.size() / grid.batch;
    const std::vector<T> clean = compatible_rhs<T>(grid.batch, points, ++stream);
    for (const NonFiniteValue& bad : kNonFiniteValues) {
      for (const Position where : kPositions) {
        SCOPED_TRACE(describe(grid.boundaries) + ", " + bad.name + " at element " +
                     std::to_string(flat_index(where, points)));
        std::vector<T> f = clean;
        f[static_cast<std::size_t>(flat_index(where, points))] = static_cast<T>(bad.value);
        auto rhs = DeviceBuffer<T>::from_host(f);
        DeviceBuffer<T> solution(f.size());
        solution.fill_bytes_async(0x7F);
        const std::vector<T> poisoned = solution.to_host();
        EXPECT_CUNUM_ERROR(solver.solve(rhs.data(), solution.data()), ErrorCode::invalid_argument,
                           "non-finite value in problem " + std::to_string(where.problem));
        EXPECT_TRUE(same_bits(solution.to_host(), poisoned)) << "a refused call wrote its output";
        EXPECT_CUNUM_ERROR(solver.solve(rhs.data(), rhs.data()), ErrorCode::invalid_argument, "'rhs'");
        EXPECT_TRUE(same_bits(rhs.to_host(), f)) << "a refused in-place call wrote its array";
      }
    }
  }
  const PoissonOptions origin = zero_at_origin_options();
  const std::pair<PoissonGrid, PoissonOptions> propagating[] = {
      {{{32, 17}, {1.0, 1.0}, {kPeriodic, kPeriodic}, 3}, {}},
      {{{16, 8}, {1.0, 1.0}, {kNeumann, kNeumann}, 3}, origin},
      {{{7, 12}, {1.0, 1.0}, {kDirichlet, kPeriodic}, 3}, reject},
      {{{5, 6, 7}, {1.0, 2.0, 0.5}, {kNeumann, kPeriodic, kNeumann}, 3}, origin},
  };
  for (const auto& [grid, options] : propagating) {
    PoissonSolver<T> solver(grid, options, Backend::cuda);
    const std::int64_t points = solver.size() / grid.batch;
    const std::vector<T> clean = cunum::testing::random_vector<T>(static_cast<std::size_t>(solver.size()), ++stream);
    const std::vector<T> clean_solution = solver.solve(clean);
    for (const NonFiniteValue& bad : kNonFiniteValues) {
      for (const Position where : kPositions) {
        SCOPED_TRACE(describe(grid.boundaries) + ", " + bad.name + " at element " +
                     std::to_string(flat_index(where, points)));
        std::vector<T> f = clean;
        f[static_cast<std::size_t>(flat_index(where, points))] = static_cast<T>(bad.value);
        std::vector<T> u;
        ASSERT_NO_THROW(u = solver.solve(f));
        for (std::int64_t b = 0; b < grid.batch; ++b) {
          const auto first = static_cast<std::size_t>(b * points), last = first + static_cast<std::size_t>(points);
          if (b == where.problem) {
            for (std::size_t i = first; i < last; ++i) EXPECT_FALSE(std::isfinite(u[i])) << "element " << i;
          } else {
            EXPECT_TRUE(std::equal(u.begin() + first, u.begin() + last, clean_solution.begin() + first))
                << "problem " << b << " changed";
          }
        }
      }
    }
  }
}

TYPED_TEST(PoissonGpu, HostPointersRefusedAndHostVectorsCopied) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  const PoissonGrid grid{{8, 8}, {1.0, 1.0}, {kDirichlet, kDirichlet}};
  PoissonSolver<T> solver(grid, {}, Backend::cuda);
  EXPECT_EQ(solver.backend(), Backend::cuda);
  EXPECT_GT(solver.workspace_bytes(), 0u);
  std::vector<T> host(64, T(1));
  DeviceBuffer<T> device(64);
  if (!cunum::device_properties(cunum::current_device()).pageable_memory_access) {
    EXPECT_CUNUM_ERROR(solver.solve(host.data(), device.data()), ErrorCode::invalid_argument, "'rhs'");
    EXPECT_CUNUM_ERROR(solver.solve(device.data(), host.data()), ErrorCode::invalid_argument, "'solution'");
  }
  const std::vector<T> expected = PoissonSolver<T>(grid, {}, Backend::cpu).solve(host);
  const std::vector<T> actual = solver.solve(host);
  for (std::size_t i = 0; i < 64; ++i) EXPECT_NEAR(actual[i], expected[i], tolerance<T>() * 1.0);
}

// The plan-object contract: every device allocation (work areas, cuFFT's, the host
// convenience's copy) comes from the placement's resource and goes back to it.
TYPED_TEST(PoissonGpu, AllocatesFromThePlacementsResource) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  cunum::Stream stream;
  cunum::testing::CountingResource resource;
  cunum::Placement placement(Backend::cuda, stream);
  placement.device_memory = &resource;
  const PoissonGrid grid{{16, 12}, {1.0, 1.0}, {kDirichlet, kPeriodic}};
  {
    PoissonSolver<T> solver(grid, {}, placement);
    const int made = resource.allocations.load();
    EXPECT_GT(made, 0);
    EXPECT_EQ(solver.placement().device_memory, &resource);
    EXPECT_EQ(solver.placement().devices, std::vector<int>{cunum::current_device()});
    const std::vector<T> f = cunum::testing::random_vector<T>(16 * 12, 5);
    const std::vector<T> expected = PoissonSolver<T>(grid, {}, Backend::cpu).solve(f);
    const std::vector<T> actual = solver.solve(f);
    EXPECT_GT(resource.allocations.load(), made);  // the convenience's copy
    for (std::size_t i = 0; i < f.size(); ++i) EXPECT_NEAR(actual[i], expected[i], tolerance<T>() * 1.0);
  }
  cunum::synchronize(stream);
  EXPECT_EQ(resource.deallocations.load(), resource.allocations.load());
}

// Every device allocation, refused in turn by an exhausted placement.device_memory:
// the solver's set-up and the host-vector solves are out_of_memory naming the
// routine, give back what they were served, and leave the caller's vector as it was.
TYPED_TEST(PoissonGpu, AnExhaustedResourceIsOutOfMemoryNamingTheRoutine) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  using cunum::testing::cuda_placement;
  using cunum::testing::ExhaustibleResource;
  cunum::Stream stream;
  const PoissonGrid grid{{16, 12}, {1.0, 1.0}, {kDirichlet, kPeriodic}};
  cunum::testing::expect_out_of_memory_at_each_allocation("cunum::PoissonSolver", [&](ExhaustibleResource* resource) {
    resource->arm();
    const PoissonSolver<T> solver(grid, {}, cuda_placement(stream, resource));
  });
  const std::vector<T> f = cunum::testing::random_vector<T>(16 * 12, 7);
  std::vector<T> in_place = f;
  cunum::testing::expect_out_of_memory_at_each_allocation(
      "cunum::PoissonSolver::solve",
      [&](ExhaustibleResource* resource) {
        PoissonSolver<T> solver(grid, {}, cuda_placement(stream, resource));
        resource->arm();
        solver.solve_in_place(in_place);
        in_place = f;
      },
      [&] { EXPECT_EQ(in_place, f) << "the refused solve changed the caller's vector"; });
  cunum::testing::expect_out_of_memory_at_each_allocation(
      "cunum::PoissonSolver::solve", [&](ExhaustibleResource* resource) {
        PoissonSolver<T> solver(grid, {}, cuda_placement(stream, resource));
        resource->arm();
        solver.solve(f);
      });
}

// A solver made on device 0 refuses a solve made with device 1 current, writing nothing.
TYPED_TEST(PoissonGpu, ASolveWithAnotherDeviceCurrentIsRefused) {
  CUNUM_REQUIRE_GPUS(2);
  using T = TypeParam;
  const cunum::testing::ScopedCurrentDevice on_device_0(0);
  PoissonSolver<T> solver(PoissonGrid{{16, 12}, {1.0, 1.0}, {kDirichlet, kPeriodic}}, {}, Backend::cuda);
  const auto rhs = DeviceBuffer<T>::from_host(cunum::testing::random_vector<T>(16 * 12, 8));
  DeviceBuffer<T> solution(16 * 12);
  solution.fill_bytes_async(0xFF);
  {
    const cunum::testing::ScopedCurrentDevice on_device_1(1);
    EXPECT_CUNUM_ERROR(solver.solve(rhs.data(), solution.data()), ErrorCode::invalid_argument,
                       std::string("cunum::PoissonSolver::solve: ") + cunum::testing::kMadeForDevice0);
    // The host-vector solves too, whatever they stage first; the caller's vector unchanged.
    const std::vector<T> f = cunum::testing::random_vector<T>(16 * 12, 9);
    std::vector<T> in_place = f;
    EXPECT_CUNUM_ERROR(solver.solve(f), ErrorCode::invalid_argument, cunum::testing::kMadeForDevice0);
    EXPECT_CUNUM_ERROR(solver.solve_in_place(in_place), ErrorCode::invalid_argument, cunum::testing::kMadeForDevice0);
    EXPECT_EQ(in_place, f);
  }
  for (const T value : solution.to_host()) ASSERT_TRUE(std::isnan(value)) << "the refused solve wrote its output";
}

// Captures `solver.solve(rhs, solution, stream)` in each capture mode and holds every
// replay to the direct solve's output, bit for bit, the output poisoned first.
template <class T>
void expect_solve_replays(PoissonSolver<T>& solver, const T* rhs, T* solution, cunum::StreamHandle stream,
                          const std::string& what) {
  const auto n = static_cast<std::size_t>(solver.size());
  const auto poison = [&] { ASSERT_EQ(cudaMemsetAsync(solution, 0xFF, n * sizeof(T), stream), cudaSuccess); };
  const auto read = [&] {
    std::vector<T> values(n);
    EXPECT_EQ(cudaMemcpyAsync(values.data(), solution, n * sizeof(T), cudaMemcpyDeviceToHost, stream), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    return values;
  };
  poison();
  solver.solve(rhs, solution, stream);
  const std::vector<T> direct = read();
  for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
    SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
    cunum::testing::CapturedGraph graph(stream, mode, [&] { solver.solve(rhs, solution, stream); });
    ASSERT_TRUE(graph.ok()) << what;
    for (int replay = 0; replay < 2; ++replay) {
      poison();
      graph.launch();
      cunum::testing::expect_same_bits(read(), direct, what + ", replay " + std::to_string(replay));
    }
  }
}

// The graph-capture contract: solve() is captured (cuFFT plans and the module's own
// kernels alike) on every path: the periodic pencil turnaround and cuFFT's division,
// line passes, cosine and sine pencils (a wall folded in), and the zero_at_origin shift.
TYPED_TEST(PoissonGpu, SolveReplaysFromACapturedGraph) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  const PoissonOptions origin = zero_at_origin_options();
  const std::vector<std::pair<PoissonGrid, PoissonOptions>> cases = {
      {{{128, 128}, {1.0, 1.0}, {kPeriodic, kPeriodic}}, {}},
      {{{30, 17, 9}, {1.0, 1.0, 1.0}, {kPeriodic, kPeriodic, kPeriodic}, 2}, {}},
      {{{70, 33, 45}, {1.0, 1.0, 1.0}, {kDirichlet, kNeumann, kDirichlet}, 2}, {}},
      {{{64, 3, 4}, {1.0, 1.0, 1.0}, {kNeumann, kNeumann, kNeumann}, 3}, {}},
      {{{64, 40}, {1.0, 1.0}, {kNeumann, kNeumann}, 2}, {}},
      {{{32, 40}, {1.0, 1.0}, {kPeriodic, kNeumann}, 2}, {}},
      {{{16, 8, 6}, {1.0, 1.0, 1.0}, {kNeumann, kNeumann, kNeumann}, 2}, {}},
      {{{15, 8, 31}, {1.0, 1.0, 1.0}, {kDirichlet, kNeumann, kDirichlet}, 2}, {}},
      {{{9, 16, 12}, {1.0, 1.0, 1.0}, {kDirichlet, kPeriodic, kPeriodic}}, origin},
  };
  cunum::Stream stream;
  std::uint64_t stream_id = 800;
  for (const auto& [grid, options] : cases) {
    PoissonSolver<T> solver(grid, options, {Backend::cuda, stream});
    const auto n = static_cast<std::size_t>(solver.size());
    const auto rhs = DeviceBuffer<T>::from_host(cunum::testing::random_vector<T>(n, ++stream_id), stream);
    DeviceBuffer<T> solution(n, stream);
    std::string shape;
    for (auto extent : grid.shape) shape += std::to_string(extent) + " ";
    expect_solve_replays(solver, rhs.data(), solution.data(), stream, "shape " + shape + describe(grid.boundaries));
  }
}

// What solve() cannot capture it refuses before enqueuing anything: the reject rule
// (it waits for its sums), and the first solve of a periodic solver with an array
// cuFFT cannot take (it allocates the staging array on the stream); once a direct
// solve has made that array, such solves capture too. The host-vector solve (it waits)
// and the constructor (its setup would belong to the graph) refuse a capturing
// placement.stream.
TYPED_TEST(PoissonGpu, RefusesWhatACapturedGraphCannotHold) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  cunum::Stream stream;
  const PoissonGrid periodic{{30, 17}, {1.0, 1.0}, {kPeriodic, kPeriodic}};
  PoissonOptions reject;
  reject.compatibility = PoissonCompatibility::reject;
  const PoissonGrid singular{{12, 10}, {1.0, 1.0}, {kNeumann, kPeriodic}};
  PoissonSolver<T> rejecting(singular, reject, {Backend::cuda, stream});
  PoissonSolver<T> solver(periodic, {}, {Backend::cuda, stream});
  const auto n = static_cast<std::size_t>(solver.size());
  DeviceBuffer<T> rhs(n + 1, stream), solution(n + 1, stream);
  const std::vector<T> f = cunum::testing::random_vector<T>(n, 900);
  ASSERT_EQ(cudaMemcpyAsync(rhs.data() + 1, f.data(), n * sizeof(T), cudaMemcpyHostToDevice, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
    SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
    cunum::testing::expect_capture_refused(stream, mode,
                                           [&] { PoissonSolver<T>(periodic, {}, {Backend::cuda, stream}); });
    cunum::testing::expect_capture_refused(stream, mode,
                                           [&] { rejecting.solve(rhs.data(), solution.data(), stream); });
    cunum::testing::expect_capture_refused(stream, mode,
                                           [&] { solver.solve(rhs.data() + 1, solution.data(), stream); });
    cunum::testing::expect_capture_refused(stream, mode, [&] { solver.solve(f); });
  }
  EXPECT_EQ(solver.workspace_bytes(), PoissonSolver<T>(periodic, {}, Backend::cuda).workspace_bytes())
      << "a refused solve allocated";
  expect_solve_replays(solver, rhs.data() + 1, solution.data(), stream, "misaligned rhs, staging array made");
}

}  // namespace
