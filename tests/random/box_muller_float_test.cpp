// The float Box-Muller of cunum::device::box_muller (cunum/device/philox.hpp), the
// function behind the float normals of the Philox and MRG32k3a fills on the CPU and the
// GPU, and its logarithm and sine and cosine (cunum/device/detail/float_normal_math.hpp),
// in float ulps of long double truths: -2 logl(u), and sinl and cosl of the exactly
// reduced angle. Every float u of the top half of (0, 1], where the values that vanish
// (at u = 1/2, 3/4 and 1; the logarithm at 1) test the relative accuracy, and a stride
// of 61 floats down to 2^-33 (Philox's smallest uniform, below MRG32k3a's); then the
// normal pair over random words.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>

#include "cunum/device/philox.hpp"
#include "sobol_normal_reference.hpp"

namespace {

namespace math = cunum::detail::float_normal_math;
using cunum::testing::float_ulps;

// Every float from `low` up to 1 with the given stride (in floats).
template <class Check>
void for_floats(float low, std::uint32_t stride, Check check) {
  for (std::uint32_t bits = math::bits_of(low); bits <= math::bits_of(1.0f); bits += stride) {
    check(math::float_of(bits));
  }
}

// |value - truth| in ulps, exact where the truth is zero.
double ulps_or_zero(float value, long double truth) {
  if (truth == 0) return value == 0 ? 0.0 : INFINITY;
  return float_ulps(value, truth);
}

// sin(2 pi u) and cos(2 pi u) in long double: 4u less its nearest integer n (exact), a
// quarter turn at most through sinl and cosl, turned by n quarters.
void true_sincos(float u, long double& sine, long double& cosine) {
  const long double quarters = 4.0L * u;
  const long double n = std::nearbyint(quarters);
  const long double angle = 1.570796326794896619231321691639751442L * (quarters - n);
  const long double s = std::sin(angle), c = std::cos(angle);
  switch (static_cast<int>(n) & 3) {
    case 0: sine = s; cosine = c; break;
    case 1: sine = c; cosine = -s; break;
    case 2: sine = -s; cosine = -c; break;
    default: sine = -c; cosine = s; break;
  }
}

struct Worst {
  double ulps = 0;
  float at = 0;
  double sum = 0;
  std::uint64_t count = 0;
  void take(double e, float u) {
    if (!(e <= ulps)) {
      ulps = e;
      at = u;
    }
    sum += e;
    ++count;
  }
  double mean() const { return sum / static_cast<double>(count); }
};

TEST(RandomBoxMullerFloat, SineAndCosineWithinAnUlpOfTheTrueValues) {
  Worst sine, cosine;
  const auto check = [&](float u) {
    float s, c;
    math::sincos_two_pi(u, s, c);
    long double true_sine, true_cosine;
    true_sincos(u, true_sine, true_cosine);
    sine.take(ulps_or_zero(s, true_sine), u);
    cosine.take(ulps_or_zero(c, true_cosine), u);
  };
  for_floats(0.5f, 1, check);
  for_floats(0x1p-33f, 61, check);
  std::printf("[ cunum    ] float sin(2 pi u), %llu values: within %.3f ulps (u = %a), %.3f on average; "
              "cos within %.3f (u = %a), %.3f on average\n",
              static_cast<unsigned long long>(sine.count), sine.ulps, sine.at, sine.mean(), cosine.ulps, cosine.at,
              cosine.mean());
  EXPECT_LE(sine.ulps, 0.9);  // 0.871 and 0.874 over every float of [2^-33, 1], measured once
  EXPECT_LE(cosine.ulps, 0.9);
  EXPECT_LE(sine.mean(), 0.3);
  EXPECT_LE(cosine.mean(), 0.3);
}

// Exact zeros and ones at the quarter turns (the true values), the eighth turn's
// sqrt(1/2) within half an ulp.
TEST(RandomBoxMullerFloat, QuarterTurnsExact) {
  const struct {
    float u, sine, cosine;
  } quarters[] = {
      {0.0f, 0.0f, 1.0f}, {0.25f, 1.0f, 0.0f}, {0.5f, 0.0f, -1.0f}, {0.75f, -1.0f, 0.0f}, {1.0f, 0.0f, 1.0f}};
  for (const auto& q : quarters) {
    float s, c;
    math::sincos_two_pi(q.u, s, c);
    EXPECT_EQ(s, q.sine) << q.u;
    EXPECT_EQ(c, q.cosine) << q.u;
  }
  float s, c;
  math::sincos_two_pi(0.125f, s, c);
  EXPECT_LE(float_ulps(s, std::sqrt(0.5L)), 0.5);
  EXPECT_LE(float_ulps(c, std::sqrt(0.5L)), 0.5);
}

TEST(RandomBoxMullerFloat, MinusTwoLogWithinAnUlpOfTheTrueValue) {
  Worst log;
  const auto check = [&](float u) {
    log.take(ulps_or_zero(math::minus_two_log(u), -2.0L * std::log(static_cast<long double>(u))), u);
  };
  for_floats(0.5f, 1, check);
  for_floats(0x1p-33f, 61, check);
  std::printf("[ cunum    ] float -2 ln u, %llu values: within %.3f ulps (u = %a), %.3f on average\n",
              static_cast<unsigned long long>(log.count), log.ulps, log.at, log.mean());
  EXPECT_LE(log.ulps, 0.95);  // 0.915 over every float of [2^-33, 1], measured once
  EXPECT_LE(log.mean(), 0.3);
  EXPECT_EQ(math::minus_two_log(1.0f), 0.0f);
}

// The pair from random words through the uniform map, against sqrtl(-2 logl u1) times
// the true sine and cosine: the radius's error, the sine's and the product's rounding.
TEST(RandomBoxMullerFloat, NormalPairWithinAFewUlpsOfTheTrueValues) {
  std::mt19937_64 words(20261126);
  Worst normal;
  for (int k = 0; k < (1 << 21); ++k) {
    const std::uint64_t two_words = words();
    const float u1 = cunum::device::uniform_float(static_cast<std::uint32_t>(two_words));
    const float u2 = cunum::device::uniform_float(static_cast<std::uint32_t>(two_words >> 32));
    float z[2];
    cunum::device::box_muller(u1, u2, z);
    const long double radius = std::sqrt(-2.0L * std::log(static_cast<long double>(u1)));
    long double sine, cosine;
    true_sincos(u2, sine, cosine);
    normal.take(ulps_or_zero(z[0], radius * sine), u1);
    normal.take(ulps_or_zero(z[1], radius * cosine), u1);
  }
  std::printf("[ cunum    ] float Box-Muller, %llu normals: within %.3f ulps (u1 = %a), %.3f on average\n",
              static_cast<unsigned long long>(normal.count), normal.ulps, normal.at, normal.mean());
  // 2.50 measured over 2 x 10^7 pairs. The parts' errors bound it by about 4.2: the
  // radius within 0.97 ulp (measured: the logarithm's error halved, and the root's
  // rounding), the sine and cosine within 0.874, so the product within 1.85 x 2^-23
  // relative before its rounding.
  EXPECT_LE(normal.ulps, 3.0);
  EXPECT_LE(normal.mean(), 0.5);
}

}  // namespace
