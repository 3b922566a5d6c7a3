// cunum::RandomGenerator's MRG32k3a and Sobol kinds on the CPU backend against
// cuRAND's host generator of the same kind (curandCreateGeneratorHost: it runs on
// the CPU, no GPU needed): uniforms bit for bit at awkward sizes and offsets and
// over successive calls, normals to a stated tolerance; thread counts, skip-ahead,
// moments and validation.

#include <curand.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "cunum/core/value_types.hpp"
#include "cunum/device/mrg32k3a.hpp"
#include "cunum/random.hpp"
#include "curand_kind.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::ErrorCode;
using cunum::RandomGenerator;
using cunum::RandomGeneratorKind;
using cunum::testing::curand_type;

constexpr RandomGeneratorKind kSobolKinds[] = {RandomGeneratorKind::sobol32, RandomGeneratorKind::scrambled_sobol32,
                                               RandomGeneratorKind::sobol64, RandomGeneratorKind::scrambled_sobol64};

// cuRAND's host generator of `kind`, seeded (pseudo) or in `dimensions` (quasi), at `offset`.
class HostCurand {
 public:
  HostCurand(RandomGeneratorKind kind, std::uint64_t seed, int dimensions, std::uint64_t offset) {
    EXPECT_EQ(curandCreateGeneratorHost(&generator_, curand_type(kind)), CURAND_STATUS_SUCCESS);
    if (cunum::is_quasi_random(kind)) {
      EXPECT_EQ(curandSetQuasiRandomGeneratorDimensions(generator_, static_cast<unsigned>(dimensions)),
                CURAND_STATUS_SUCCESS);
    } else {
      EXPECT_EQ(curandSetPseudoRandomGeneratorSeed(generator_, seed), CURAND_STATUS_SUCCESS);
    }
    EXPECT_EQ(curandSetGeneratorOffset(generator_, offset), CURAND_STATUS_SUCCESS);
  }
  ~HostCurand() { curandDestroyGenerator(generator_); }
  HostCurand(const HostCurand&) = delete;
  HostCurand& operator=(const HostCurand&) = delete;

  template <class T>
  std::vector<T> uniform(std::int64_t n) {
    std::vector<T> values(static_cast<std::size_t>(n));
    if constexpr (sizeof(T) == sizeof(float)) {
      EXPECT_EQ(curandGenerateUniform(generator_, values.data(), values.size()), CURAND_STATUS_SUCCESS);
    } else {
      EXPECT_EQ(curandGenerateUniformDouble(generator_, values.data(), values.size()), CURAND_STATUS_SUCCESS);
    }
    return values;
  }
  template <class T>
  std::vector<T> normal(std::int64_t n, T mean, T stddev) {
    std::vector<T> values(static_cast<std::size_t>(n));
    if constexpr (sizeof(T) == sizeof(float)) {
      EXPECT_EQ(curandGenerateNormal(generator_, values.data(), values.size(), mean, stddev), CURAND_STATUS_SUCCESS);
    } else {
      EXPECT_EQ(curandGenerateNormalDouble(generator_, values.data(), values.size(), mean, stddev),
                CURAND_STATUS_SUCCESS);
    }
    return values;
  }

 private:
  curandGenerator_t generator_ = nullptr;
};

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// The largest |a - b| / max(1, |b|).
template <class T>
double worst_difference(const std::vector<T>& a, const std::vector<T>& b) {
  double worst = a.size() == b.size() ? 0.0 : std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const double difference = std::abs(double(a[i]) - double(b[i])) / std::max(1.0, std::abs(double(b[i])));
    if (!(difference <= worst)) worst = std::isnan(difference) ? std::numeric_limits<double>::infinity() : difference;
  }
  return worst;
}

// Normals against cuRAND's host generator: libm on both sides, but they round
// differently. cuRAND's float Box-Muller takes the sine of 2 pi u2 rounded to float,
// ours the exact sinpi(2 u2): they differ by up to r ulp(2 pi u2) / 2 <= 6.7 x 2.4e-7
// (measured 1.6e-6); the inverse CDF measured 1.2e-7 (float) and 2e-15 (double),
// relative to max(1, |z|).
template <class T>
double normal_tolerance() {
  return sizeof(T) == sizeof(float) ? 3e-6 : 1e-13;
}

template <class T>
class RandomCurandCpu : public ::testing::Test {};
using RealTypes = ::testing::Types<CUNUM_REAL_TYPES>;
TYPED_TEST_SUITE(RandomCurandCpu, RealTypes);

constexpr unsigned long long kMrgLanes = 81920;

TYPED_TEST(RandomCurandCpu, Mrg32k3aUniformsEqualCurandHostAtAwkwardSizesAndOffsets) {
  using T = TypeParam;
  const std::uint64_t seed = cunum::testing::fresh_seed();
  for (std::uint64_t offset : {0ull, 5ull, kMrgLanes + 3, (1ull << 40) + 17}) {
    for (std::int64_t n : {1, 7, 81921, 200003}) {
      RandomGenerator generator(RandomGeneratorKind::mrg32k3a, seed, Backend::cpu);
      generator.set_offset(offset);
      HostCurand curand(RandomGeneratorKind::mrg32k3a, seed, 1, offset);
      ASSERT_TRUE(same_bits(generator.uniform<T>(n), curand.uniform<T>(n))) << "offset " << offset << " n " << n;
      EXPECT_EQ(generator.offset(), offset + static_cast<std::uint64_t>(n));
    }
  }
}

TYPED_TEST(RandomCurandCpu, Mrg32k3aSuccessiveCallsEqualCurandsSuccessiveCalls) {
  using T = TypeParam;
  const std::uint64_t seed = cunum::testing::fresh_seed();
  RandomGenerator generator(RandomGeneratorKind::mrg32k3a, seed, Backend::cpu);
  generator.set_offset(3);
  HostCurand curand(RandomGeneratorKind::mrg32k3a, seed, 1, 3);
  // Uniforms, then normals (81923 pairs: not a whole round of lanes). Calls after a
  // normal call are not compared: cuRAND's differ there (docs/random.md).
  for (std::int64_t n : {5, 81925, 17}) ASSERT_TRUE(same_bits(generator.uniform<T>(n), curand.uniform<T>(n))) << n;
  EXPECT_LE(worst_difference(generator.normal<T>(163846, T(1), T(2)), curand.normal<T>(163846, T(1), T(2))),
            normal_tolerance<T>() * 2);
  // One call of a + b uniforms is a call of a then a call of b.
  RandomGenerator whole(RandomGeneratorKind::mrg32k3a, seed, Backend::cpu);
  RandomGenerator split(RandomGeneratorKind::mrg32k3a, seed, Backend::cpu);
  std::vector<T> pieces = split.uniform<T>(81923);
  const std::vector<T> rest = split.uniform<T>(90000);
  pieces.insert(pieces.end(), rest.begin(), rest.end());
  EXPECT_TRUE(same_bits(pieces, whole.uniform<T>(81923 + 90000)));
}

TYPED_TEST(RandomCurandCpu, Mrg32k3aNormalsAgreeWithCurandHost) {
  using T = TypeParam;
  const std::uint64_t seed = cunum::testing::fresh_seed();
  for (std::uint64_t offset : {1ull, kMrgLanes + 5, (1ull << 35) + 1}) {
    for (std::int64_t n : {10, 163848}) {
      RandomGenerator generator(RandomGeneratorKind::mrg32k3a, seed, Backend::cpu);
      generator.set_offset(offset);
      HostCurand curand(RandomGeneratorKind::mrg32k3a, seed, 1, offset);
      EXPECT_LE(worst_difference(generator.normal<T>(n, T(0), T(1)), curand.normal<T>(n, T(0), T(1))),
                normal_tolerance<T>())
          << "offset " << offset << " n " << n;
    }
  }
  // An odd n writes the first value of the last pair (cuRAND refuses odd n).
  RandomGenerator odd(RandomGeneratorKind::mrg32k3a, seed, Backend::cpu);
  RandomGenerator even(RandomGeneratorKind::mrg32k3a, seed, Backend::cpu);
  const std::vector<T> three = odd.normal<T>(3, T(0), T(1));
  const std::vector<T> four = even.normal<T>(4, T(0), T(1));
  EXPECT_TRUE(same_bits(three, std::vector<T>(four.begin(), four.begin() + 3)));
  EXPECT_EQ(odd.offset(), even.offset());
}

TYPED_TEST(RandomCurandCpu, SobolUniformsEqualCurandHostAtAwkwardSizesAndOffsets) {
  using T = TypeParam;
  for (RandomGeneratorKind kind : kSobolKinds) {
    for (int dimensions : {1, 3, 7, 1000}) {
      for (std::uint64_t offset : {0ull, 1ull, 5ull, 1027ull, (1ull << 31) + 3}) {
        for (std::int64_t points : {1, 2, 13, 1021}) {
          const std::int64_t n = points * dimensions;
          RandomGenerator generator(kind, 0, Backend::cpu);
          generator.set_dimensions(dimensions);
          generator.set_offset(offset);
          HostCurand curand(kind, 0, dimensions, offset);
          // Two successive calls, as cuRAND's two successive calls.
          for (int call = 0; call < 2; ++call) {
            ASSERT_TRUE(same_bits(generator.uniform<T>(n), curand.uniform<T>(n)))
                << cunum::to_string(kind) << " d " << dimensions << " offset " << offset << " points " << points
                << " call " << call;
          }
          EXPECT_EQ(generator.offset(), offset + 2 * static_cast<std::uint64_t>(points));
        }
      }
    }
  }
}

TYPED_TEST(RandomCurandCpu, SobolNormalsAgreeWithCurandHost) {
  using T = TypeParam;
  for (RandomGeneratorKind kind : kSobolKinds) {
    for (int dimensions : {1, 5}) {
      for (std::uint64_t offset : {0ull, 3ull, (1ull << 20) + 1}) {
        const std::int64_t n = 40009 * dimensions;
        RandomGenerator generator(kind, 0, Backend::cpu);
        generator.set_dimensions(dimensions);
        generator.set_offset(offset);
        HostCurand curand(kind, 0, dimensions, offset);
        EXPECT_LE(worst_difference(generator.normal<T>(n, T(0.5), T(3)), curand.normal<T>(n, T(0.5), T(3))),
                  3 * normal_tolerance<T>())
            << cunum::to_string(kind) << " d " << dimensions << " offset " << offset;
      }
    }
  }
}

TYPED_TEST(RandomCurandCpu, AnyThreadCountGivesTheSameNumbers) {
  using T = TypeParam;
  const std::uint64_t seed = cunum::testing::fresh_seed();
  for (RandomGeneratorKind kind : {RandomGeneratorKind::mrg32k3a, RandomGeneratorKind::scrambled_sobol64}) {
    std::vector<std::vector<T>> fills;
    const int threads_before = omp_get_max_threads();
    for (int threads : {1, 2, 3}) {
      omp_set_num_threads(threads);
      RandomGenerator generator(kind, seed, Backend::cpu);
      generator.set_offset(11);
      std::vector<T> values = generator.uniform<T>(100003);
      const std::vector<T> normals = generator.normal<T>(100002, T(0), T(1));
      values.insert(values.end(), normals.begin(), normals.end());
      fills.push_back(values);
    }
    omp_set_num_threads(threads_before);
    EXPECT_TRUE(same_bits(fills[0], fills[1]) && same_bits(fills[0], fills[2])) << cunum::to_string(kind);
  }
}

TYPED_TEST(RandomCurandCpu, SkipAheadEqualsDrawingAndDiscarding) {
  using T = TypeParam;
  const std::uint64_t seed = cunum::testing::fresh_seed();
  for (RandomGeneratorKind kind : {RandomGeneratorKind::mrg32k3a, RandomGeneratorKind::sobol32}) {
    RandomGenerator drawn(kind, seed, Backend::cpu);
    const std::vector<T> all = drawn.uniform<T>(200000);
    RandomGenerator skipped(kind, seed, Backend::cpu);
    skipped.set_offset(123457);
    EXPECT_TRUE(same_bits(skipped.uniform<T>(200000 - 123457), std::vector<T>(all.begin() + 123457, all.end())))
        << cunum::to_string(kind);
  }
}

TYPED_TEST(RandomCurandCpu, MomentsAndRange) {
  using T = TypeParam;
  const std::int64_t n = 1 << 20;
  for (RandomGeneratorKind kind : {RandomGeneratorKind::mrg32k3a, RandomGeneratorKind::scrambled_sobol32}) {
    RandomGenerator generator(kind, 20261123, Backend::cpu);
    const std::vector<T> uniforms = generator.uniform<T>(n);
    const std::vector<T> normals = generator.normal<T>(n, T(0), T(1));
    double sum = 0, sum_squares = 0, normal_sum = 0, normal_squares = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      ASSERT_GT(uniforms[i], T(0));
      ASSERT_LE(uniforms[i], T(1));
      ASSERT_TRUE(std::isfinite(normals[i]));
      sum += uniforms[i];
      sum_squares += double(uniforms[i]) * uniforms[i];
      normal_sum += normals[i];
      normal_squares += double(normals[i]) * normals[i];
    }
    const double mean = sum / n, variance = sum_squares / n - mean * mean;
    // Standard errors of a pseudo-random sample (a quasi-random one is far closer).
    EXPECT_NEAR(mean, 0.5, 5 * 2.9e-4) << cunum::to_string(kind);
    EXPECT_NEAR(variance, 1.0 / 12, 5 * 2.7e-4) << cunum::to_string(kind);
    EXPECT_NEAR(normal_sum / n, 0.0, 5 / std::sqrt(double(n))) << cunum::to_string(kind);
    EXPECT_NEAR(normal_squares / n, 1.0, 5 * std::sqrt(2.0 / n)) << cunum::to_string(kind);
  }
}

TEST(RandomCurandCpuDevice, CurandConventionStateMatchesTheGenerator) {
  // Subsequence 1, output 2 of cuRAND's device-API state is raw output 2 x 81920 + 1
  // of the host-API stream.
  std::vector<cunum::device::MrgMatrix> tables(2 * cunum::device::kMrgSubstreamTables);
  cunum::device::mrg32k3a_substream_tables(tables.data());
  cunum::device::Mrg32k3aState state = cunum::device::mrg32k3a_curand_state(77, 1, 2, tables.data());
  RandomGenerator generator(RandomGeneratorKind::mrg32k3a, 77, Backend::cpu);
  generator.set_offset(2 * kMrgLanes + 1);
  EXPECT_EQ(generator.uniform<double>(1)[0],
            cunum::device::mrg32k3a_curand_uniform_double(cunum::device::mrg32k3a_next(state)));
}

TEST(RandomCurandCpuValidation, ErrorsNameTheArgumentAndLeaveTheOffset) {
  RandomGenerator sobol(RandomGeneratorKind::sobol32, 0, Backend::cpu);
  sobol.set_dimensions(3);
  sobol.set_offset(5);
  float value = -1;
  EXPECT_CUNUM_ERROR(sobol.uniform<float>(4, &value), ErrorCode::invalid_argument, "n");
  EXPECT_CUNUM_ERROR(sobol.set_dimensions(0), ErrorCode::invalid_argument, "dimensions");
  EXPECT_CUNUM_ERROR(sobol.set_dimensions(20001), ErrorCode::invalid_argument, "dimensions");
  EXPECT_EQ(sobol.dimensions(), 3);
  sobol.set_offset((1ull << 32) - 1);
  std::vector<float> values(6, -1.0f);
  EXPECT_CUNUM_ERROR(sobol.uniform<float>(6, values.data()), ErrorCode::invalid_argument, "n");
  EXPECT_EQ(sobol.offset(), (1ull << 32) - 1);
  sobol.uniform<float>(3, values.data());  // the last point of sobol32
  EXPECT_EQ(sobol.offset(), 1ull << 32);

  RandomGenerator mrg(RandomGeneratorKind::mrg32k3a, 1, Backend::cpu);
  EXPECT_CUNUM_ERROR(mrg.set_dimensions(2), ErrorCode::invalid_argument, "dimensions");
  EXPECT_EQ(mrg.dimensions(), 1);
  mrg.set_offset(std::numeric_limits<std::uint64_t>::max() - 2);
  EXPECT_CUNUM_ERROR(mrg.uniform<float>(4, values.data()), ErrorCode::invalid_argument, "n");
  EXPECT_CUNUM_ERROR(mrg.normal<double>(1, nullptr, 0.0, 1.0), ErrorCode::invalid_argument, "out");
  EXPECT_EQ(mrg.offset(), std::numeric_limits<std::uint64_t>::max() - 2);
  EXPECT_EQ(value, -1.0f);
  for (std::size_t i = 3; i < values.size(); ++i) EXPECT_EQ(values[i], -1.0f);
  EXPECT_CUNUM_ERROR(RandomGenerator(RandomGeneratorKind::philox4x32_10, 1, Backend::cpu).set_dimensions(1),
                     ErrorCode::invalid_argument, "dimensions");
  EXPECT_EQ(cunum::to_string(RandomGeneratorKind::scrambled_sobol64), std::string("scrambled_sobol64"));
}

}  // namespace
