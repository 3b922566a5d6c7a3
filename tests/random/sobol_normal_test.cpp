// The float inverse normal CDF of the Sobol fills (cunum::device::sobol_normal_float,
// cunum/device/detail/float_normal_quantile.hpp) on the host, in float ulps of the true
// normal Phi^-1((x + 1/2) 2^-32): a long double reference (one Halley step on erfl or
// erfcl from the double quantile, device::sobol_normal) for every word of both extreme
// tails, around the end of the centre polynomial, within 2^20 of one half, and a stride
// of 1021 over the rest, both halves. The GPU's logarithm is the lg2.approx instruction
// (within 2^-22 on [1, 2), the CUDA programming guide's bound): the same sweep with the
// logarithm off by 2^-22 either way bounds the GPU's error. Also: the reference against
// mpmath, exact symmetry about one half, and the extremes. The double quantile
// (device::sobol_normal, sobol_normal_double; cunum/device/detail/double_normal_quantile.hpp)
// in double ulps of the same reference, for 32-bit and 53-bit uniforms.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "cunum/device/sobol.hpp"
#include "sobol_normal_reference.hpp"

namespace {

namespace quantile = cunum::detail::float_normal_quantile;
using cunum::testing::double_ulps;
using cunum::testing::float_ulps;
using cunum::testing::reference_normal;
using cunum::testing::reference_normal_double;

// The host's logarithm off by `offset`, as the GPU's may be.
struct OffsetLog2 {
  float offset;
  float operator()(float m) const { return quantile::log2_mantissa(m) + offset; }
};

// The largest error of a sweep (and where), and their mean.
struct Tally {
  double ulps = 0;
  std::uint64_t word = 0;
  double sum = 0;
  std::uint64_t count = 0;
  void take(double e, std::uint64_t at) {
    if (!(e <= ulps)) {
      ulps = e;
      word = at;
    }
    sum += e;
    ++count;
  }
  double mean() const { return sum / static_cast<double>(count); }
  unsigned long long worst_word() const { return static_cast<unsigned long long>(word); }
  unsigned long long words() const { return static_cast<unsigned long long>(count); }
  // Prints the sweep's worst and mean errors: what, then the name of the worst argument.
  void report(const char* what, const char* argument) const {
    std::printf("[ cunum    ] %s, %llu words: within %.3f ulps (%s %llu), %.3f on average\n", what, words(), ulps,
                argument, worst_word(), mean());
  }
};

TEST(RandomSobolNormalFloat, WithinAFewUlpsOfTheTrueNormalOnTheCpuAndTheGpusBound) {
  Tally host, gpu_bound;
  const auto check = [&](std::uint32_t word) {
    const long double truth = reference_normal(word);
    host.take(float_ulps(cunum::device::sobol_normal_float(word), truth), word);
    for (const float offset : {0x1p-22f, -0x1p-22f}) {
      gpu_bound.take(float_ulps(quantile::normal_of_word(word, OffsetLog2{offset}), truth), word);
    }
  };
  const auto both_halves = [&](std::uint32_t word) {
    check(word);
    check(0xFFFFFFFFu - word);
  };
  // The centre ends at w = -log2(4u(1 - u)) = 9.5: u = 3.4527e-4, word 1482918.
  constexpr std::uint32_t kCentreEnd = 1482918;
  for (std::uint32_t word = 0; word < (1u << 20); ++word) both_halves(word);
  for (std::uint32_t word = kCentreEnd - (1u << 16); word < kCentreEnd + (1u << 16); ++word) both_halves(word);
  for (std::uint32_t word = 0x80000000u - (1u << 20); word < 0x80000000u; ++word) both_halves(word);
  for (std::uint64_t word = 0; word < 0x80000000u; word += 1021) both_halves(static_cast<std::uint32_t>(word));
  std::printf("[ cunum    ] Sobol float normal, %llu words: CPU within %.3f ulps (word %llu), %.3f on average; "
              "with the GPU's logarithm's error, within %.3f (word %llu)\n",
              host.words(), host.ulps, host.worst_word(), host.mean(), gpu_bound.ulps, gpu_bound.worst_word());
  EXPECT_LE(host.ulps, 2.75);  // 2.70 over all 2^32 words, measured once
  EXPECT_LE(host.mean(), 0.5);
  EXPECT_LE(gpu_bound.ulps, 3.5);  // 3.29 over every 7th word
}

// The upper half mirrors the lower: word and 2^32 - 1 - word give k alike, so z and -z
// to the bit, the centre's and both tails'.
TEST(RandomSobolNormalFloat, OddAboutOneHalfToTheBit) {
  for (std::uint64_t word = 0; word < 0x80000000u; word += 65537) {
    const auto w = static_cast<std::uint32_t>(word);
    EXPECT_EQ(cunum::device::sobol_normal_float(w), -cunum::device::sobol_normal_float(0xFFFFFFFFu - w)) << w;
  }
  EXPECT_LT(cunum::device::sobol_normal_float(0x7FFFFFFFu), 0.0f);
  EXPECT_GT(cunum::device::sobol_normal_float(0x80000000u), 0.0f);
}

// The reference against mpmath (40 digits: sqrt(2) erfinv(2u - 1)) at both ends of the
// range, the end of the centre polynomial, u = 1/4, and next to one half.
TEST(RandomSobolNormalFloat, ReferenceAgreesWithMpmath) {
  const struct {
    std::uint32_t word;
    long double normal;
  } known[] = {{0u, -6.337957754553789252493251L},
               {1u, -6.166429517819750246995799L},
               {1482918u, -3.393308690466544843772494L},
               {0x40000000u, -0.6744897498297384321480251L},
               {0x7FFFFFFFu, -2.918099372916622672289773e-10L}};
  for (const auto& k : known) {
    EXPECT_LE(std::fabs(reference_normal(k.word) / k.normal - 1.0L), 1e-17L) << k.word;
  }
}

// The extremes: u = 2^-33 and 1 - 2^-33 give -+6.3380 (the tail), u = 1/2 -+ 2^-33 give
// -+2.918e-10 (the centre, k = 1).
TEST(RandomSobolNormalFloat, Extremes) {
  for (const std::uint32_t word : {0u, 1u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu}) {
    EXPECT_LE(float_ulps(cunum::device::sobol_normal_float(word), reference_normal(word)), 1.0) << word;
  }
  EXPECT_NEAR(cunum::device::sobol_normal_float(0), -6.33796, 1e-5);
  EXPECT_NEAR(cunum::device::sobol_normal_float(0x80000000u), 2.9181e-10, 1e-14);
}

// The double quantile of a 32-bit word (sobol32's and scrambled_sobol32's double
// normals): every word of both extreme tails' first 2^18, around the end of the centre
// polynomial (W = 13 at u = 3.7600e-4, word 1614912), within 2^18 of one half, and a
// stride of 4093 over the rest, both halves; in double ulps, relative however small z.
TEST(RandomSobolNormalDouble, ThirtyTwoBitWordsWithinAFewUlpsOfTheTrueNormal) {
  Tally tally;
  const auto both_halves = [&](std::uint32_t word) {
    for (const std::uint32_t w : {word, 0xFFFFFFFFu - word}) {
      tally.take(double_ulps(cunum::device::sobol_normal(w), reference_normal(w)), w);
    }
  };
  constexpr std::uint32_t kCentreEnd = 1614912;
  for (std::uint32_t word = 0; word < (1u << 18); ++word) both_halves(word);
  for (std::uint32_t word = kCentreEnd - (1u << 16); word < kCentreEnd + (1u << 16); ++word) both_halves(word);
  for (std::uint32_t word = 0x80000000u - (1u << 18); word < 0x80000000u; ++word) both_halves(word);
  for (std::uint64_t word = 0; word < 0x80000000u; word += 4093) both_halves(static_cast<std::uint32_t>(word));
  tally.report("Sobol double normal of 32-bit words", "word");
  EXPECT_LE(tally.ulps, 3.25);  // 2.92 measured
  EXPECT_LE(tally.mean(), 0.5);
}

// The double quantile of a 64-bit word (sobol64's and scrambled_sobol64's double
// normals, u = y 2^-53 + 2^-54): y's first and last 2^17, within 2^17 of one half,
// around the centre's end, a geometric sweep of u from 2^-53 to 1/2, and 2^21 words of
// a xorshift generator.
TEST(RandomSobolNormalDouble, FiftyThreeBitWordsWithinAFewUlpsOfTheTrueNormal) {
  Tally tally;
  const auto check = [&](std::uint64_t y) {
    const std::uint64_t word = y << 11;
    tally.take(double_ulps(cunum::device::sobol_normal_double(word), reference_normal_double(word)), y);
  };
  constexpr std::uint64_t kHalf = std::uint64_t{1} << 52, kLast = (std::uint64_t{1} << 53) - 1;
  constexpr std::uint64_t kCentreEnd = 3386717504395;  // u = 3.7600e-4
  for (std::uint64_t y = 0; y < (1u << 17); ++y) {
    check(y);
    check(kLast - y);
  }
  for (std::uint64_t y = kHalf - (1u << 17); y < kHalf + (1u << 17); ++y) check(y);
  for (std::uint64_t y = kCentreEnd - (1u << 16); y < kCentreEnd + (1u << 16); ++y) check(y);
  for (double u = 0x1p-53; u < 0.5; u *= 1.0001) check(static_cast<std::uint64_t>(std::ldexp(u, 53)));
  std::uint64_t state = 88172645463325252ull;
  for (int i = 0; i < (1 << 21); ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    check(state >> 11);
  }
  tally.report("Sobol double normal of 53-bit uniforms", "y");
  EXPECT_LE(tally.ulps, 3.25);  // 2.86 measured
  EXPECT_LE(tally.mean(), 0.5);
}

// Both double quantiles are odd about one half to the bit: a word and its mirror give
// the same distance a = |2u - 1|.
TEST(RandomSobolNormalDouble, OddAboutOneHalfToTheBit) {
  for (std::uint64_t word = 0; word < 0x80000000u; word += 65537) {
    const auto w = static_cast<std::uint32_t>(word);
    EXPECT_EQ(cunum::device::sobol_normal(w), -cunum::device::sobol_normal(0xFFFFFFFFu - w)) << w;
  }
  constexpr std::uint64_t kLast = (std::uint64_t{1} << 53) - 1;
  for (std::uint64_t y = 0; y < (std::uint64_t{1} << 52); y += (std::uint64_t{1} << 52) / 4099) {
    EXPECT_EQ(cunum::device::sobol_normal_double(y << 11), -cunum::device::sobol_normal_double((kLast - y) << 11)) << y;
  }
  EXPECT_LT(cunum::device::sobol_normal(0x7FFFFFFFu), 0.0);
  EXPECT_GT(cunum::device::sobol_normal(0x80000000u), 0.0);
}

}  // namespace
