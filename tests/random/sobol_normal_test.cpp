// The float inverse normal CDF of the Sobol fills (cunum::device::sobol_normal_float,
// cunum/device/detail/float_normal_quantile.hpp) on the host, in float ulps of the true
// normal Phi^-1((x + 1/2) 2^-32): a long double reference (one Halley step on erfl or
// erfcl from the double quantile, device::sobol_normal) for every word of both extreme
// tails, around the end of the centre polynomial, within 2^20 of one half, and a stride
// of 1021 over the rest, both halves. The GPU's logarithm is the lg2.approx instruction
// (within 2^-22 on [1, 2), the CUDA programming guide's bound): the same sweep with the
// logarithm off by 2^-22 either way bounds the GPU's error. Also: the reference against
// mpmath, exact symmetry about one half, and the extremes.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "cunum/device/sobol.hpp"
#include "sobol_normal_reference.hpp"

namespace {

namespace quantile = cunum::detail::float_normal_quantile;
using cunum::testing::float_ulps;
using cunum::testing::reference_normal;

// The host's logarithm off by `offset`, as the GPU's may be.
struct OffsetLog2 {
  float offset;
  float operator()(float m) const { return quantile::log2_mantissa(m) + offset; }
};

struct Worst {
  double ulps = 0;
  std::uint32_t word = 0;
  void take(double e, std::uint32_t at) {
    if (!(e <= ulps)) {
      ulps = e;
      word = at;
    }
  }
};

TEST(RandomSobolNormalFloat, WithinAFewUlpsOfTheTrueNormalOnTheCpuAndTheGpusBound) {
  Worst host, gpu_bound;
  double sum = 0;
  std::uint64_t count = 0;
  const auto check = [&](std::uint32_t word) {
    const long double truth = reference_normal(word);
    const double e = float_ulps(cunum::device::sobol_normal_float(word), truth);
    host.take(e, word);
    sum += e;
    ++count;
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
  std::printf("[ cunum    ] Sobol float normal, %llu words: CPU within %.3f ulps (word %u), %.3f on average; "
              "with the GPU's logarithm's error, within %.3f (word %u)\n",
              static_cast<unsigned long long>(count), host.ulps, host.word, sum / static_cast<double>(count),
              gpu_bound.ulps, gpu_bound.word);
  EXPECT_LE(host.ulps, 2.75);  // 2.70 over all 2^32 words, measured once
  EXPECT_LE(sum / static_cast<double>(count), 0.5);
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

}  // namespace
