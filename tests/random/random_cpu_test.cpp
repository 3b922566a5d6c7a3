// cunum::RandomGenerator on the CPU backend, and the Philox4x32-10 device header on
// the host: Random123's known-answer vectors, the stream definition, skip-ahead,
// block splits, ranges, moments and validation.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "cunum/core/value_types.hpp"
#include "cunum/device/mrg32k3a.hpp"
#include "cunum/device/philox.hpp"
#include "cunum/random.hpp"
#include "random_reference.hpp"
#include "src/random/random_backends.hpp"
#include "src/random/random_fill.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::ErrorCode;
using cunum::RandomGenerator;
using cunum::RandomGeneratorKind;
using cunum::device::PhiloxWords;

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Random123's kat_vectors for philox4x32 with 10 rounds: counter, key, output.
TEST(Philox, KnownAnswerVectors) {
  struct Case {
    PhiloxWords counter;
    std::uint32_t key[2];
    PhiloxWords expected;
  };
  const Case cases[] = {
      {{{0, 0, 0, 0}}, {0, 0}, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       {0xffffffff, 0xffffffff},
       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       {0xa4093822, 0x299f31d0},
       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const Case& c : cases) {
    const PhiloxWords out = cunum::device::philox4x32(c.counter, c.key[0], c.key[1]);
    // The fills' form: the round keys of the 64-bit seed whose halves are the key.
    const PhiloxWords scheduled = cunum::device::philox4x32_10(
        c.counter, cunum::device::philox_round_keys(c.key[0] | (std::uint64_t{c.key[1]} << 32)));
    for (int k = 0; k < 4; ++k) {
      EXPECT_EQ(out.w[k], c.expected.w[k]) << "word " << k;
      EXPECT_EQ(scheduled.w[k], c.expected.w[k]) << "word " << k;
    }
  }
}

// Block b of the generator stream is block b / 65536 of subsequence b mod 65536.
TEST(Philox, GeneratorBlockInterleavesSubsequences) {
  const std::uint64_t seed = 0x299f31d0a4093822ull;
  for (std::uint64_t block : {0ull, 1ull, 65535ull, 65536ull, 65537ull, (1ull << 40) + 12345, ~0ull >> 2}) {
    const PhiloxWords expected = cunum::device::philox_block(
        cunum::device::philox_state(seed, block % 65536, 0), block / 65536);
    const PhiloxWords out = cunum::device::generator_block(seed, block);
    for (int k = 0; k < 4; ++k) EXPECT_EQ(out.w[k], expected.w[k]) << "block " << block << " word " << k;
  }
}

TEST(Philox, StateMapsSeedSubsequenceAndOffsetToKeyAndCounter) {
  // The pi-digits vector with seed = key and subsequence = counter words 2 and 3; the
  // block index (words 0 and 1) is taken below 2^62 so that 4 x block is a word offset.
  const std::uint64_t seed = 0x299f31d0a4093822ull;
  const std::uint64_t subsequence = 0x0370734413198a2eull;
  const std::uint64_t block = 0x05a308d3243f6a88ull;
  const PhiloxWords expected = cunum::device::philox4x32({{0x243f6a88, 0x05a308d3, 0x13198a2e, 0x03707344}},
                                                         0xa4093822, 0x299f31d0);
  cunum::device::PhiloxState state = cunum::device::philox_state(seed, subsequence, 4 * block);
  const PhiloxWords out = cunum::device::next4(state);
  for (int k = 0; k < 4; ++k) EXPECT_EQ(out.w[k], expected.w[k]);
  EXPECT_EQ(state.offset, 4 * block + 4);
  // Seed 0, subsequence 0, offset 0 is the all-zero known answer.
  cunum::device::PhiloxState zero = cunum::device::philox_state(0, 0, 0);
  EXPECT_EQ(cunum::device::next4(zero).w[0], 0x6627e8d5u);
  // An unaligned offset straddles two blocks, word by word.
  cunum::device::PhiloxState unaligned = cunum::device::philox_state(seed, subsequence, 4 * block + 3);
  const PhiloxWords straddling = cunum::device::next4(unaligned);
  EXPECT_EQ(straddling.w[0], expected.w[3]);
  EXPECT_EQ(straddling.w[1], cunum::device::philox_word(unaligned, 4 * block + 4));
}

TEST(Philox, UniformMappingsAreInHalfOpenUnitInterval) {
  EXPECT_GT(cunum::device::uniform_float(0), 0.0f);
  EXPECT_EQ(cunum::device::uniform_float(0xffffffffu), 1.0f);
  EXPECT_EQ(cunum::device::uniform_float(0x80000000u), 0.5f);  // 0.5 + 2^-33 rounds to 0.5 in float
  EXPECT_GT(cunum::device::uniform_double(0, 0), 0.0);
  EXPECT_EQ(cunum::device::uniform_double(0, 0), std::ldexp(1.0, -54));
  EXPECT_LE(cunum::device::uniform_double(0xffffffffu, 0xffffffffu), 1.0);
}

// L'Ecuyer's MRG32k3a from the default seed (all six words 12345): its first outputs
// as his reference implementation prints them.
TEST(Mrg32k3a, FirstOutputsFromTheDefaultSeed) {
  cunum::device::Mrg32k3aState state = cunum::device::mrg32k3a_default_state();
  EXPECT_EQ(cunum::device::mrg32k3a_next_uniform(state), 0.12701112204657714);
  EXPECT_EQ(cunum::device::mrg32k3a_next_uniform(state), 0.3185275653967945);
  EXPECT_EQ(cunum::device::mrg32k3a_next_uniform(state), 0.30918601558327008);
}

TEST(Mrg32k3a, SkipAheadEqualsDrawingAndComposes) {
  cunum::device::Mrg32k3aState drawn = cunum::device::mrg32k3a_default_state();
  for (int i = 0; i < 1237; ++i) cunum::device::mrg32k3a_next_uniform(drawn);
  cunum::device::Mrg32k3aState skipped = cunum::device::mrg32k3a_default_state();
  cunum::device::mrg32k3a_skip_ahead(skipped, 1237);
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(cunum::device::mrg32k3a_next_uniform(skipped), cunum::device::mrg32k3a_next_uniform(drawn)) << i;
  }
  // 2^40 + 3 steps at once, and as 2^40 then 3 draws.
  cunum::device::Mrg32k3aState once = cunum::device::mrg32k3a_default_state();
  cunum::device::mrg32k3a_skip_ahead(once, (std::uint64_t{1} << 40) + 3);
  cunum::device::Mrg32k3aState twice = cunum::device::mrg32k3a_default_state();
  cunum::device::mrg32k3a_skip_ahead(twice, std::uint64_t{1} << 40);
  for (int i = 0; i < 3; ++i) cunum::device::mrg32k3a_next_uniform(twice);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(once.x1[k], twice.x1[k]);
    EXPECT_EQ(once.x2[k], twice.x2[k]);
  }
}

template <class T>
class RandomCpu : public ::testing::Test {};
using RealTypes = ::testing::Types<CUNUM_REAL_TYPES>;
TYPED_TEST_SUITE(RandomCpu, RealTypes);

TYPED_TEST(RandomCpu, UniformsFollowTheStreamDefinitionAtAwkwardSizesAndOffsets) {
  using T = TypeParam;
  const std::uint64_t seed = cunum::testing::fresh_seed();
  for (std::uint64_t offset : {0ull, 1ull, 2ull, 3ull, 5ull, (1ull << 33) + 7}) {
    for (std::int64_t n : {1, 2, 3, 7, 33, 1021, 65537}) {
      RandomGenerator generator(RandomGeneratorKind::philox4x32_10, seed, Backend::cpu);
      generator.set_offset(offset);
      std::vector<T> values(static_cast<std::size_t>(n), std::numeric_limits<T>::quiet_NaN());
      generator.uniform(n, values.data());
      ASSERT_TRUE(same_bits(values, cunum::testing::reference_uniforms<T>(seed, offset, n)))
          << "offset " << offset << " n " << n;
      EXPECT_EQ(generator.offset(), offset + (sizeof(T) == 4 ? 1 : 2) * static_cast<std::uint64_t>(n));
    }
  }
}

// A fill may end at the stream's last position (2^64 - 1 words): its blocks are
// counted from the offset's block, with no wrap past 2^64.
TYPED_TEST(RandomCpu, FillsEndingAtTheLastPositionFollowTheStreamDefinition) {
  using T = TypeParam;
  const std::uint64_t seed = cunum::testing::fresh_seed();
  const std::uint64_t per_value = sizeof(T) == 4 ? 1 : 2;
  for (std::int64_t n : {1, 2, 3, 4, 5, 9}) {
    const std::uint64_t uniform_offset = ~0ull - per_value * static_cast<std::uint64_t>(n);
    RandomGenerator uniform(RandomGeneratorKind::philox4x32_10, seed, Backend::cpu);
    uniform.set_offset(uniform_offset);
    ASSERT_TRUE(same_bits(uniform.uniform<T>(n), cunum::testing::reference_uniforms<T>(seed, uniform_offset, n)))
        << "n " << n;
    const std::uint64_t normal_offset = ~0ull - 2 * per_value * static_cast<std::uint64_t>((n + 1) / 2);
    RandomGenerator normal(RandomGeneratorKind::philox4x32_10, seed, Backend::cpu);
    normal.set_offset(normal_offset);
    ASSERT_TRUE(same_bits(normal.normal<T>(n, T(1.5), T(0.25)),
                          cunum::testing::reference_normals<T>(seed, normal_offset, n, T(1.5), T(0.25))))
        << "n " << n;
  }
}

TYPED_TEST(RandomCpu, NormalsFollowTheStreamDefinition) {
  using T = TypeParam;
  const std::uint64_t seed = cunum::testing::fresh_seed();
  for (std::uint64_t offset : {0ull, 1ull, 3ull}) {
    for (std::int64_t n : {1, 2, 3, 31, 4093}) {
      RandomGenerator generator(RandomGeneratorKind::philox4x32_10, seed, Backend::cpu);
      generator.set_offset(offset);
      const std::vector<T> values = generator.normal<T>(n, T(1.5), T(0.25));
      ASSERT_TRUE(same_bits(values, cunum::testing::reference_normals<T>(seed, offset, n, T(1.5), T(0.25))))
          << "offset " << offset << " n " << n;
    }
  }
}

TYPED_TEST(RandomCpu, SkipAheadEqualsDrawingAndDiscarding) {
  using T = TypeParam;
  const std::uint64_t seed = cunum::testing::fresh_seed();
  RandomGenerator drawn(RandomGeneratorKind::philox4x32_10, seed, Backend::cpu);
  const std::vector<T> all = drawn.uniform<T>(1000);
  RandomGenerator skipped(RandomGeneratorKind::philox4x32_10, seed, Backend::cpu);
  skipped.set_offset(drawn.offset() / 1000 * 357);
  const std::vector<T> tail = skipped.uniform<T>(1000 - 357);
  EXPECT_TRUE(same_bits(tail, std::vector<T>(all.begin() + 357, all.end())));
}

TYPED_TEST(RandomCpu, AnyBlockSplitGivesTheSameNumbers) {
  using T = TypeParam;
  const std::uint64_t seed = cunum::testing::fresh_seed();
  RandomGenerator whole(RandomGeneratorKind::philox4x32_10, seed, Backend::cpu);
  const std::vector<T> uniforms = whole.uniform<T>(10007);
  const std::vector<T> normals = whole.normal<T>(10000, T(0), T(1));
  for (std::int64_t first : {1, 3, 4, 5, 4096, 9999}) {
    RandomGenerator split(RandomGeneratorKind::philox4x32_10, seed, Backend::cpu);
    std::vector<T> pieces = split.uniform<T>(first);
    const std::vector<T> rest = split.uniform<T>(10007 - first);
    pieces.insert(pieces.end(), rest.begin(), rest.end());
    EXPECT_TRUE(same_bits(pieces, uniforms)) << "split at " << first;
    const std::int64_t even = first & ~std::int64_t{1};
    std::vector<T> normal_pieces = split.normal<T>(even, T(0), T(1));
    const std::vector<T> normal_rest = split.normal<T>(10000 - even, T(0), T(1));
    normal_pieces.insert(normal_pieces.end(), normal_rest.begin(), normal_rest.end());
    EXPECT_TRUE(same_bits(normal_pieces, normals)) << "normal split at " << even;
  }
}

TYPED_TEST(RandomCpu, UniformMomentsAndRange) {
  using T = TypeParam;
  RandomGenerator generator(RandomGeneratorKind::philox4x32_10, 20261123, Backend::cpu);
  const std::int64_t n = 1 << 20;
  const std::vector<T> values = generator.uniform<T>(n);
  double sum = 0, sum_squares = 0;
  for (T v : values) {
    ASSERT_GT(v, T(0));
    ASSERT_LE(v, T(1));
    sum += v;
    sum_squares += double(v) * v;
  }
  const double mean = sum / n, variance = sum_squares / n - mean * mean;
  // Standard errors: sqrt(1/12 / n) = 2.8e-4 for the mean.
  EXPECT_NEAR(mean, 0.5, 5 * 2.9e-4);
  EXPECT_NEAR(variance, 1.0 / 12, 5 * 2.7e-4);
}

TYPED_TEST(RandomCpu, NormalMomentsWithinStatisticalTolerance) {
  using T = TypeParam;
  RandomGenerator generator(RandomGeneratorKind::philox4x32_10, 42, Backend::cpu);
  const std::int64_t n = 1 << 20;
  const std::vector<T> values = generator.normal<T>(n, T(2), T(3));
  double moments[5] = {};
  for (T v : values) {
    ASSERT_TRUE(std::isfinite(v));
    const double z = (double(v) - 2) / 3;
    double power = 1;
    for (double& m : moments) {
      m += power;
      power *= z;
    }
  }
  for (double& m : moments) m /= n;
  // Standard errors of the sample moments of N(0,1): sqrt(Var z^k / n) for k = 1..4.
  const double standard_error = 1 / std::sqrt(double(n));
  EXPECT_NEAR(moments[1], 0.0, 5 * standard_error);
  EXPECT_NEAR(moments[2], 1.0, 5 * std::sqrt(2.0) * standard_error);
  EXPECT_NEAR(moments[3], 0.0, 5 * std::sqrt(15.0) * standard_error);
  EXPECT_NEAR(moments[4], 3.0, 5 * std::sqrt(96.0) * standard_error);
}

TEST(RandomGeneratorTest, SeedRestartsTheStream) {
  RandomGenerator generator(RandomGeneratorKind::philox4x32_10, 7, Backend::cpu);
  const std::vector<float> first = generator.uniform<float>(5);
  generator.set_seed(7);
  EXPECT_EQ(generator.offset(), 0u);
  EXPECT_TRUE(same_bits(generator.uniform<float>(5), first));
  generator.set_seed(8);
  EXPECT_FALSE(same_bits(generator.uniform<float>(5), first));
}

TEST(RandomGeneratorTest, ValidationNamesTheArgumentAndLeavesTheOffset) {
  RandomGenerator generator(RandomGeneratorKind::philox4x32_10, 1, Backend::cpu);
  float value = 0;
  EXPECT_CUNUM_ERROR(generator.uniform<float>(-1, &value), ErrorCode::invalid_argument, "n");
  EXPECT_CUNUM_ERROR(generator.uniform<float>(3, nullptr), ErrorCode::invalid_argument, "out");
  EXPECT_CUNUM_ERROR(generator.normal<float>(1, &value, std::numeric_limits<float>::quiet_NaN(), 1.0f),
                     ErrorCode::invalid_argument, "mean");
  EXPECT_CUNUM_ERROR(generator.normal<double>(1, nullptr, 0.0, -1.0), ErrorCode::invalid_argument, "out");
  double slot = 0;
  EXPECT_CUNUM_ERROR(generator.normal<double>(1, &slot, 0.0, -1.0), ErrorCode::invalid_argument, "stddev");
  EXPECT_CUNUM_ERROR(generator.normal<double>(1, &slot, 0.0, std::numeric_limits<double>::infinity()),
                     ErrorCode::invalid_argument, "stddev");
  EXPECT_CUNUM_ERROR(generator.uniform<double>(-5), ErrorCode::invalid_argument, "n");
  EXPECT_CUNUM_ERROR(RandomGenerator(static_cast<RandomGeneratorKind>(9), 1, Backend::cpu),
                     ErrorCode::invalid_argument, "kind");
  EXPECT_EQ(value, 0.0f);
  EXPECT_EQ(slot, 0.0);
  EXPECT_EQ(generator.offset(), 0u);
  generator.uniform<float>(0, nullptr);
  EXPECT_EQ(generator.offset(), 0u);
  EXPECT_EQ(cunum::to_string(RandomGeneratorKind::philox4x32_10), std::string("philox4x32_10"));
}

// The end of the stream (issue: a Philox fill from offset 2^64 - 3 wrapped, wrote
// words of the stream's start and left the offset at 5). The offset is a 64-bit
// count, so the pseudo-random streams end at offset 2^64 - 1: a fill whose words
// would run past it is refused naming 'n', before anything is written, offset kept.
TEST(RandomGeneratorTest, FillsPastTheEndOfTheStreamAreRefused) {
  constexpr std::uint64_t last = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t seed = cunum::testing::fresh_seed();
  std::vector<float> floats(16, -1.0f);
  std::vector<double> doubles(16, -1.0);
  const auto untouched = [&] {
    for (float v : floats) EXPECT_EQ(v, -1.0f);
    for (double v : doubles) EXPECT_EQ(v, -1.0);
  };
  // Refused from `offset`, the offset kept and nothing written.
  const auto refused = [&](RandomGenerator& generator, std::uint64_t offset, auto&& fill) {
    generator.set_offset(offset);
    EXPECT_CUNUM_ERROR(fill(), ErrorCode::invalid_argument, "'n'");
    EXPECT_EQ(generator.offset(), offset);
    untouched();
  };

  RandomGenerator philox(RandomGeneratorKind::philox4x32_10, seed, Backend::cpu);
  // The reproducer, through the vector and the pointer overloads.
  refused(philox, last - 2, [&] { philox.uniform<float>(8); });
  refused(philox, last - 2, [&] { philox.uniform<float>(8, floats.data()); });
  // Each fill's words: 1 a uniform float, 2 a uniform double, 2 a pair of normal
  // floats, 4 a pair of normal doubles (an odd n takes a whole last pair).
  refused(philox, last - 2, [&] { philox.uniform<float>(3, floats.data()); });
  refused(philox, last - 3, [&] { philox.uniform<double>(2, doubles.data()); });
  refused(philox, last - 3, [&] { philox.normal<float>(3, floats.data(), 0.0f, 1.0f); });
  refused(philox, last - 3, [&] { philox.normal<double>(1, doubles.data(), 0.0, 1.0); });
  refused(philox, last, [&] { philox.uniform<float>(1, floats.data()); });
  // Counts whose words would wrap a 64-bit sum with the offset.
  refused(philox, last - (std::uint64_t{1} << 59), [&] { philox.uniform<float>(std::int64_t{1} << 60, floats.data()); });
  refused(philox, last - 7, [&] { philox.normal<double>(std::int64_t{1} << 59, doubles.data(), 0.0, 1.0); });
  // Fills that end exactly at the end are the stream's.
  philox.set_offset(last - 3);
  EXPECT_TRUE(same_bits(philox.uniform<float>(3), cunum::testing::reference_uniforms<float>(seed, last - 3, 3)));
  EXPECT_EQ(philox.offset(), last);
  philox.uniform<double>(0, nullptr);
  EXPECT_EQ(philox.offset(), last);
  philox.set_offset(last - 4);
  philox.normal<double>(1, doubles.data() + 8, 0.0, 1.0);
  EXPECT_EQ(philox.offset(), last);
  doubles[8] = -1.0;

  RandomGenerator mrg(RandomGeneratorKind::mrg32k3a, seed, Backend::cpu);
  constexpr std::uint64_t lanes = 81920;
  refused(mrg, last - 2, [&] { mrg.uniform<float>(8); });
  refused(mrg, last - 2, [&] { mrg.uniform<double>(3, doubles.data()); });
  // A normal fill of a partial round reads a second output one round (81920 raw
  // outputs) on from its first: refused where it would read past the end even
  // though the offset would move on by one only.
  refused(mrg, last - lanes, [&] { mrg.normal<float>(2, floats.data(), 0.0f, 1.0f); });
  refused(mrg, last - lanes, [&] { mrg.normal<double>(1, doubles.data(), 0.0, 1.0); });
  refused(mrg, last - (std::uint64_t{1} << 59), [&] { mrg.uniform<float>(std::int64_t{1} << 60, floats.data()); });
  // Fills ending at the end: the uniforms are the stream's raw outputs there.
  std::vector<cunum::device::MrgMatrix> tables(2 * cunum::device::kMrgSubstreamTables);
  cunum::device::mrg32k3a_substream_tables(tables.data());
  mrg.set_offset(last - 3);
  const std::vector<double> tail = mrg.uniform<double>(3);
  EXPECT_EQ(mrg.offset(), last);
  for (std::uint64_t k = 0; k < 3; ++k) {
    const std::uint64_t raw = last - 3 + k;
    cunum::device::Mrg32k3aState state = cunum::device::mrg32k3a_curand_state(seed, raw % lanes, raw / lanes, tables.data());
    EXPECT_EQ(tail[k], cunum::device::mrg32k3a_curand_uniform_double(cunum::device::mrg32k3a_next(state))) << k;
  }
  mrg.set_offset(last - lanes - 1);
  mrg.normal<float>(2, floats.data() + 8, 0.0f, 1.0f);
  EXPECT_EQ(mrg.offset(), last - lanes);
  floats[8] = floats[9] = -1.0f;
  untouched();
}

// A 32-bit Sobol sequence has 2^32 points a dimension (issue: set_offset(2^40) then
// gave the points of offset 0). set_offset refuses an offset past the end naming
// 'offset', the generator unchanged; a fill past the end is refused naming 'n'.
TEST(RandomGeneratorTest, SobolOffsetsAndFillsPastTheSequenceAreRefused) {
  constexpr std::uint64_t last = std::numeric_limits<std::uint64_t>::max();
  constexpr std::uint64_t points32 = std::uint64_t{1} << 32;
  for (const RandomGeneratorKind kind : {RandomGeneratorKind::sobol32, RandomGeneratorKind::scrambled_sobol32}) {
    RandomGenerator sobol(kind, 0, Backend::cpu);
    const std::vector<float> first = sobol.uniform<float>(4);
    sobol.set_offset(0);
    EXPECT_CUNUM_ERROR(sobol.set_offset(std::uint64_t{1} << 40), ErrorCode::invalid_argument, "'offset'");
    EXPECT_CUNUM_ERROR(sobol.set_offset(points32 + 1), ErrorCode::invalid_argument, "'offset'");
    EXPECT_CUNUM_ERROR(sobol.set_offset(last), ErrorCode::invalid_argument, "'offset'");
    EXPECT_EQ(sobol.offset(), 0u) << cunum::to_string(kind);
    EXPECT_TRUE(same_bits(sobol.uniform<float>(4), first)) << cunum::to_string(kind);
    // Offset 2^32, the end, is a position: the empty fill only.
    sobol.set_offset(points32);
    float value = -1.0f;
    EXPECT_CUNUM_ERROR(sobol.uniform<float>(1, &value), ErrorCode::invalid_argument, "'n'");
    EXPECT_CUNUM_ERROR(sobol.normal<double>(1, 0.0, 1.0), ErrorCode::invalid_argument, "'n'");
    sobol.uniform<float>(0, nullptr);
    EXPECT_EQ(sobol.offset(), points32);
    EXPECT_EQ(value, -1.0f);
    // Dimensions keep the offset, and the end counts points of each dimension.
    sobol.set_dimensions(5);
    sobol.set_offset(points32 - 2);
    std::vector<double> values(15, -1.0);
    EXPECT_CUNUM_ERROR(sobol.uniform<double>(15, values.data()), ErrorCode::invalid_argument, "'n'");
    for (double v : values) EXPECT_EQ(v, -1.0);
    sobol.normal<double>(10, values.data(), 0.0, 1.0);
    EXPECT_EQ(sobol.offset(), points32);
  }
  // The 64-bit kinds count points to the largest offset.
  for (const RandomGeneratorKind kind : {RandomGeneratorKind::sobol64, RandomGeneratorKind::scrambled_sobol64}) {
    RandomGenerator sobol(kind, 0, Backend::cpu);
    sobol.set_offset(std::uint64_t{1} << 40);
    EXPECT_EQ(sobol.uniform<double>(2).size(), 2u);
    sobol.set_offset(last - 1);
    sobol.uniform<double>(1);
    EXPECT_EQ(sobol.offset(), last);
    double value = -1.0;
    EXPECT_CUNUM_ERROR(sobol.uniform<double>(1, &value), ErrorCode::invalid_argument, "'n'");
    EXPECT_EQ(sobol.offset(), last);
    EXPECT_EQ(value, -1.0);
  }
}

TEST(RandomGeneratorTest, MovedFromGeneratorIsInvalidArgument) {
  RandomGenerator generator(RandomGeneratorKind::sobol32, 0, Backend::cpu);
  generator.set_dimensions(2);
  const RandomGenerator moved_to = std::move(generator);
  EXPECT_EQ(moved_to.dimensions(), 2);
  constexpr const char* moved = "is a moved-from RandomGenerator";
  float value[2] = {};
  EXPECT_CUNUM_ERROR(generator.uniform<float>(2, value), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(generator.normal<double>(2, 0.0, 1.0), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(generator.set_dimensions(3), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(generator.set_seed(1), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(generator.set_offset(1), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(generator.offset(), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(generator.seed(), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(generator.dimensions(), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(generator.backend(), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(generator.placement(), ErrorCode::invalid_argument, moved);
  EXPECT_CUNUM_ERROR(generator.kind(), ErrorCode::invalid_argument, moved);
  EXPECT_EQ(value[0], 0.0f);
  // Assigned to again, it is a generator like any other.
  generator = RandomGenerator(RandomGeneratorKind::philox4x32_10, 7, Backend::cpu);
  EXPECT_EQ(generator.uniform<float>(3).size(), 3u);
}

// The plan-object contract (cunum/core/placement.hpp) on the CPU backend.
TEST(RandomGeneratorTest, TheCpuPlacementTakesNoDevices) {
  const RandomGenerator generator(RandomGeneratorKind::sobol32, 0, Backend::cpu);
  EXPECT_EQ(generator.placement().backend, Backend::cpu);
  EXPECT_TRUE(generator.placement().devices.empty());
  cunum::Placement on_device(Backend::cpu);
  on_device.devices = {0};
  EXPECT_CUNUM_ERROR(RandomGenerator(RandomGeneratorKind::sobol32, 0, on_device), ErrorCode::invalid_argument,
                     "cunum::RandomGenerator: argument 'placement.devices'");
  EXPECT_CUNUM_ERROR(RandomGenerator(RandomGeneratorKind::philox4x32_10, 0, static_cast<Backend>(5)),
                     ErrorCode::invalid_argument, "'placement.backend'");
}

TEST(RandomGeneratorTest, CopyContinuesTheStreamIndependently) {
  for (const RandomGeneratorKind kind : {RandomGeneratorKind::philox4x32_10, RandomGeneratorKind::mrg32k3a,
                                         RandomGeneratorKind::scrambled_sobol64}) {
    RandomGenerator original(kind, 11, Backend::cpu);
    if (cunum::is_quasi_random(kind)) original.set_dimensions(3);
    original.uniform<double>(6);
    RandomGenerator copy = original;
    EXPECT_EQ(copy.offset(), original.offset());
    const std::vector<double> from_copy = copy.normal<double>(12, 0.0, 1.0);
    EXPECT_TRUE(same_bits(original.normal<double>(12, 0.0, 1.0), from_copy)) << cunum::to_string(kind);
    RandomGenerator assigned(RandomGeneratorKind::philox4x32_10, 1, Backend::cpu);
    assigned = copy;
    EXPECT_EQ(assigned.kind(), kind);
    EXPECT_TRUE(same_bits(assigned.uniform<double>(9), copy.uniform<double>(9))) << cunum::to_string(kind);
  }
}

// The CUDA kernel's share-out of a Sobol fill, run on the host: fill_sobol_lane for every
// thread of the kernel's grid and fill_sobol_edges once a dimension write every value
// of the fill once, the CPU backend's bits, and nothing beside it; lanes of one group
// and of several, fills from offsets and to ends inside a group, a fill inside one.
template <class T, class Word>
std::vector<T> sobol_gpu_share_out(cunum::SobolSequence sequence, int dimensions, std::int64_t points,
                                   std::uint64_t offset, std::int64_t groups_per_lane, bool normal) {
  constexpr std::int64_t guard = 4;
  const std::int64_t n = points * dimensions;
  std::vector<T> out(static_cast<std::size_t>(n + 2 * guard), std::numeric_limits<T>::quiet_NaN());
  const std::vector<Word> tables = cunum::detail::interleaved_sobol_tables<Word>(sequence, dimensions);
  const cunum::detail::SobolFillArgs<T, Word> args{tables.data(), offset,      points, n, out.data() + guard,
                                                   normal,        T(-1.0), T(1.5)};
  constexpr std::int64_t table_words = sizeof(Word) * 8 + 1;
  const std::int64_t threads = (args.whole_groups() + groups_per_lane - 1) / groups_per_lane + 64;
  for (std::int64_t dimension = 0; dimension < dimensions; ++dimension) {
    const Word* directions = tables.data() + dimension * table_words;
    cunum::detail::dispatch_normal(normal, [&](auto is_normal) {
      for (std::int64_t thread = 0; thread < threads; ++thread) {
        cunum::detail::fill_sobol_lane<decltype(is_normal)::value>(args, directions, dimension, thread,
                                                                   groups_per_lane);
      }
      cunum::detail::fill_sobol_edges<decltype(is_normal)::value>(args, directions, dimension);
    });
  }
  for (std::int64_t i = 0; i < guard; ++i) {
    EXPECT_TRUE(std::isnan(out[static_cast<std::size_t>(i)])) << "before, i " << i;
    EXPECT_TRUE(std::isnan(out[static_cast<std::size_t>(guard + n + i)])) << "after, i " << i;
  }
  return std::vector<T>(out.begin() + guard, out.end() - guard);
}

TYPED_TEST(RandomCpu, SobolGpuShareOutWritesTheCpuBackendsValues) {
  using T = TypeParam;
  for (cunum::SobolSequence sequence : {cunum::SobolSequence::sobol32, cunum::SobolSequence::scrambled_sobol64}) {
    const bool wide = sequence == cunum::SobolSequence::scrambled_sobol64;
    const RandomGeneratorKind kind = wide ? RandomGeneratorKind::scrambled_sobol64 : RandomGeneratorKind::sobol32;
    for (int dimensions : {1, 3}) {
      for (std::int64_t points : {1, 2, 3, 5, 9, 1021, 70001}) {
        for (std::uint64_t offset : {0ull, 1ull, 2ull, 3ull, 1000003ull}) {
          for (bool normal : {false, true}) {
            RandomGenerator generator(kind, 0, Backend::cpu);
            generator.set_dimensions(dimensions);
            generator.set_offset(offset);
            const std::int64_t n = points * dimensions;
            const std::vector<T> expected =
                normal ? generator.normal<T>(n, T(-1.0), T(1.5)) : generator.uniform<T>(n);
            for (std::int64_t groups_per_lane : {1, 3}) {
              const std::vector<T> shared_out =
                  wide ? sobol_gpu_share_out<T, std::uint64_t>(sequence, dimensions, points, offset, groups_per_lane,
                                                               normal)
                       : sobol_gpu_share_out<T, std::uint32_t>(sequence, dimensions, points, offset, groups_per_lane,
                                                               normal);
              ASSERT_TRUE(same_bits(shared_out, expected))
                  << cunum::to_string(kind) << " d " << dimensions << " points " << points << " offset " << offset
                  << " groups a lane " << groups_per_lane << (normal ? " normal" : " uniform");
            }
          }
        }
      }
    }
  }
}

}  // namespace

// The host-vector fills allocate their n values: a count the stream serves but no
// memory holds is refused with out_of_memory and the bytes, before anything is
// allocated and with the offset unchanged (std::length_error or std::bad_alloc
// escaped before).
TEST(RandomGeneratorTest, HostVectorFillsPastMemoryAreRefusedBeforeAllocating) {
  RandomGenerator philox(RandomGeneratorKind::philox4x32_10, 0, Backend::cpu);
  philox.set_offset(7);
  EXPECT_CUNUM_ERROR(philox.uniform<float>(std::int64_t{1} << 60), ErrorCode::out_of_memory,
                     "cunum::RandomGenerator::uniform: needs 4611686018427387904 bytes for the host vector of 'n' values");
  EXPECT_CUNUM_ERROR(philox.normal<double>(std::int64_t{1} << 59, 0.0, 1.0), ErrorCode::out_of_memory,
                     "cunum::RandomGenerator::normal: needs 4611686018427387904 bytes");
  EXPECT_EQ(philox.offset(), 7u);
  RandomGenerator sobol(RandomGeneratorKind::sobol64, 0, Backend::cpu);
  EXPECT_CUNUM_ERROR(sobol.uniform<double>(std::int64_t{1} << 58), ErrorCode::out_of_memory, "needs");
  EXPECT_EQ(sobol.offset(), 0u);
  EXPECT_EQ(philox.uniform<float>(5).size(), 5u);
}

// Backend::cuda without a device is no_device naming the constructor, never a CPU fallback.
TEST(RandomGeneratorTest, CudaWithoutADeviceIsNoDevice) {
  if (cunum::device_count() > 0) GTEST_SKIP() << "a CUDA device is present: the refusal cannot be shown here";
  EXPECT_CUNUM_ERROR(RandomGenerator(RandomGeneratorKind::philox4x32_10, 0, Backend::cuda), ErrorCode::no_device,
                     "cunum::RandomGenerator");
}
