// The double functions of the Monte Carlo path code and the Black-Scholes prices
// (cunum/device/detail/double_normal_math.hpp) against long double (x86's 64-bit
// significand: 11 bits beyond double): -2 ln u and ln u, the radius's square root, sin
// and cos of 2 pi u, exp2, exp, expm1 and the Box-Muller normals they make, over
// millions of random arguments of their domains (Philox's grid of uniforms and generic
// doubles, fresh each run) and their edges. Each test prints its measured maximum
// error; the asserted bounds are those measurements with a small margin (the header's
// comments quote the measurements). The device's seeds (the approximate reciprocal and
// reciprocal square root instructions, MUFU.RCP64H and MUFU.RSQ64H, measured on an H100
// within 2^-20.0 relative of the exact values over a whole binade pair) are emulated
// with relative errors up to 2^-19, so that the device's path through refine_reciprocal
// and refine_sqrt is measured here too.

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cunum/device/detail/double_normal_math.hpp"
#include "cunum/device/detail/monte_carlo_path.hpp"
#include "cunum/device/philox.hpp"
#include "test_support.hpp"

namespace {

namespace nm = cunum::detail::normal_math;
using Long = long double;

static_assert(LDBL_MANT_DIG >= 64, "the references need x86's 80-bit long double");

constexpr int kRandomArguments = 2'000'000;
const Long kHalfPi = 1.5707963267948966192313216916397514L;

// |x - exact| in units of the last place of the exact value rounded to double
// (denormals: 2^-1074).
double ulps(double x, Long exact) {
  if (exact == 0) return x == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  const int e = std::ilogb(exact);
  const Long ulp = std::ldexp(Long(1), (e < -1022 ? -1022 : e) - 52);
  return static_cast<double>(std::fabs(Long(x) - exact) / ulp);
}

// Tracks the largest error and the argument where it happened.
struct MaxError {
  double value = 0;
  double at = 0;
  void add(double error, double argument) {
    if (!(error <= value)) {  // NaN errors win too
      value = error;
      at = argument;
    }
  }
  void report(const char* what) const { std::printf("[ measured ] %s: max %.3f ulp at %a\n", what, value, at); }
};

// A saturating exponential's errors: normal results, denormal ones (rounded twice), and
// overflow within 1 ulp of the threshold (DBL_MAX where the exact value rounds up to inf).
struct ExponentialErrors {
  MaxError normal, denormal;
  void add(double got, Long exact, double x) {
    const double expected = static_cast<double>(exact);  // rounded once
    if (std::isinf(expected)) {
      if (exact < std::ldexp(Long(1), 1024)) {
        EXPECT_GE(got, DBL_MAX) << x;
      } else {
        EXPECT_EQ(got, expected) << x;
      }
    } else {
      (expected < DBL_MIN ? denormal : normal).add(ulps(got, exact), x);
    }
  }
};

std::mt19937_64 engine(int stream) { return std::mt19937_64(cunum::testing::fresh_seed() ^ (0x9E3779B97F4A7C15ull * stream)); }

// Philox's uniforms: z 2^-53 + 2^-54 from two random words (cuRAND's pairing).
double philox_uniform(std::mt19937_64& rng) {
  const std::uint64_t bits = rng();
  return cunum::device::uniform_double(static_cast<std::uint32_t>(bits), static_cast<std::uint32_t>(bits >> 32));
}

// A generic double in (0, 1): random significand, exponent -1 .. -60 (MRG32k3a's uniforms
// are not on Philox's grid).
double generic_uniform(std::mt19937_64& rng) {
  const std::uint64_t bits = rng();
  const double significand = 1.0 + static_cast<double>(bits >> 12) * 0x1p-52;
  return std::ldexp(significand, -1 - static_cast<int>(bits % 60));
}

// The uniforms at the edges of -2 ln u's domain and of its fold.
std::vector<double> log_edges() {
  std::vector<double> u = {0x1p-54, 1.0, std::nextafter(1.0, 0.0), 0.5, std::nextafter(0.5, 1.0),
                           std::nextafter(0.5, 0.0), 0.75, 2.3283064365386963e-10, 1.0 - 2.3283064365386963e-10,
                           cunum::device::uniform_double(0xffffffffu, 0xffffffffu),
                           cunum::device::uniform_double(0u, 0u), cunum::device::uniform_double(1u, 0u)};
  for (int k = 0; k <= 54; ++k) {
    const double p = std::ldexp(1.0, -k);
    u.push_back(p);
    if (k > 0) u.push_back(std::nextafter(p, 1.0));
    if (k < 54) u.push_back(std::nextafter(p, 0.0));
    // Both sides of the fold at m = sqrt(2) (cut at high word mantissa 0x6a09e).
    for (std::int32_t low : {0, -1}) {
      for (std::int32_t mantissa : {0x6a09d, 0x6a09e, 0x6a09f}) {
        const double m = nm::from_words(0x3ff00000 + mantissa, low);
        if (m * p < 1.0 && m * p >= 0x1p-54) u.push_back(m * p);
      }
    }
  }
  return u;
}

TEST(MonteCarloDoubleMath, MinusTwoLogIsWithinAnUlpOverPhiloxAndGenericUniforms) {
  // The device's reciprocal: a seed of relative error up to 2^-19, high word only.
  const auto seeded = [](double t) {
    const double seed = static_cast<double>((1.0L / t) * (1.0L + 0x1p-19L * std::sin(1e3 * t)));
    return nm::refine_reciprocal(t, nm::from_words(nm::high_word(seed), 0));
  };
  MaxError host, device;
  const auto check = [&](double u) {
    const Long exact = -2 * std::log(Long(u));
    host.add(ulps(nm::minus_two_log(u), exact), u);
    device.add(ulps(nm::minus_two_log(u, seeded), exact), u);
  };
  auto rng = engine(1);
  for (int i = 0; i < kRandomArguments; ++i) check(philox_uniform(rng));
  for (int i = 0; i < kRandomArguments; ++i) check(generic_uniform(rng));
  for (double u : log_edges()) check(u);
  host.report("-2 ln u (host)");
  device.report("-2 ln u (device reciprocal emulated)");
  EXPECT_LE(host.value, 0.9) << "at " << host.at;
  EXPECT_LE(device.value, 0.9) << "at " << device.at;
  EXPECT_EQ(nm::minus_two_log(1.0), 0.0);
  EXPECT_EQ(nm::minus_two_log(0.5), static_cast<double>(2 * std::log(2.0L)));
}

TEST(MonteCarloDoubleMath, RefinedSquareRootIsWithinHalfAnUlpFromRoughSeeds) {
  // The device path of sqrt_radius: y's high word raised to 2^-1022's for the seed,
  // the seed 1/sqrt(y) with a relative error up to 2^-19, high word only.
  const auto device_sqrt = [](double y, Long error) {
    const double seed_argument = nm::from_words(std::max(nm::high_word(y), 0x00100000), 0);
    const double seed = static_cast<double>((1 / std::sqrt(Long(seed_argument))) * (1 + error));
    return nm::refine_sqrt(y, nm::from_words(nm::high_word(seed), 0));
  };
  auto rng = engine(2);
  std::uniform_real_distribution<double> radius_squared(0.0, 75.0);
  std::uniform_real_distribution<double> seed_error(-0x1p-19, 0x1p-19);
  long mismatches = 0;
  MaxError error;
  const auto check = [&](double y, Long seed_error_value) {
    const double root = device_sqrt(y, seed_error_value);
    if (root != std::sqrt(y)) ++mismatches;
    error.add(ulps(root, std::sqrt(Long(y))), y);
  };
  for (int i = 0; i < kRandomArguments; ++i) {
    const double y = i % 2 == 0 ? radius_squared(rng) : nm::minus_two_log(philox_uniform(rng));
    check(y, seed_error(rng));
  }
  for (double u : log_edges()) {
    for (Long e : {-0x1p-19L, 0.0L, 0x1p-19L}) check(nm::minus_two_log(u), e);
  }
  for (Long e : {-0x1p-19L, 0.0L, 0x1p-19L}) {
    EXPECT_EQ(device_sqrt(0.0, e), 0.0);
    check(74.86, e);
  }
  error.report("sqrt (device seed emulated)");
  // Correctly rounded but where the root is within about 2^-20 ulp of a midpoint (the
  // refinement's error from these seeds is about 2^-74 relative): one argument in a
  // million or so, then 0.5 ulp and a hair away.
  std::printf("[ measured ] sqrt: %ld of %d differ from std::sqrt\n", mismatches, kRandomArguments);
  EXPECT_LE(mismatches, 20);
  EXPECT_LE(error.value, 0.5 + 0x1p-16) << "at " << error.at;
  EXPECT_EQ(nm::sqrt_radius(0.0), 0.0);
}

// sin and cos of 2 pi u: the exact reduction (4 u in quarter turns, less its nearest
// integer) then sinl and cosl of a quarter turn at most, turned back.
void exact_sincos(double u, Long& sine, Long& cosine) {
  const Long x = 4 * Long(u);
  const Long q = std::nearbyint(x);
  const Long angle = (x - q) * kHalfPi;
  // sin(pi/2 (q + f)) for q = 0, 1, 2, 3; the cosine is a quarter turn ahead.
  const Long turned[4] = {std::sin(angle), std::cos(angle), -std::sin(angle), -std::cos(angle)};
  const long quarter = static_cast<long>(q);
  sine = turned[quarter & 3];
  cosine = turned[(quarter + 1) & 3];
}

TEST(MonteCarloDoubleMath, SinCosTwoPiAreWithinAnUlpIncludingQuadrantEdges) {
  MaxError sine_error, cosine_error;
  const auto check = [&](double u) {
    Long exact_sine, exact_cosine;
    exact_sincos(u, exact_sine, exact_cosine);
    double sine, cosine;
    nm::sincos_two_pi(u, sine, cosine);
    sine_error.add(ulps(sine, exact_sine), u);
    cosine_error.add(ulps(cosine, exact_cosine), u);
  };
  auto rng = engine(3);
  for (int i = 0; i < kRandomArguments; ++i) check(philox_uniform(rng));
  for (int i = 0; i < kRandomArguments; ++i) check(generic_uniform(rng));
  std::uniform_real_distribution<double> anywhere(0.0, 1.0);
  for (int i = 0; i < kRandomArguments; ++i) check(anywhere(rng));
  // Quadrant and octant edges k / 8 and their neighbours (Philox's 2^-54 grid and ulps).
  for (int k = 0; k <= 8; ++k) {
    const double u = k / 8.0;
    for (double d : {0.0, 0x1p-54, -0x1p-54, 0x1p-53, -0x1p-53, 3 * 0x1p-54, -3 * 0x1p-54}) {
      if (u + d >= 0 && u + d <= 1) check(u + d);
    }
    if (k > 0) check(std::nextafter(u, 0.0));
    if (k < 8) check(std::nextafter(u, 1.0));
  }
  check(0x1p-54);
  check(0x1p-1074);
  sine_error.report("sin 2 pi u");
  cosine_error.report("cos 2 pi u");
  EXPECT_LE(sine_error.value, 1.05) << "at " << sine_error.at;
  EXPECT_LE(cosine_error.value, 1.05) << "at " << cosine_error.at;
  // Exact at the quarter turns.
  const double expected[5][2] = {{0, 1}, {1, 0}, {0, -1}, {-1, 0}, {0, 1}};
  for (int k = 0; k <= 4; ++k) {
    double sine, cosine;
    nm::sincos_two_pi(k / 4.0, sine, cosine);
    EXPECT_EQ(sine, expected[k][0]) << k;
    EXPECT_EQ(cosine, expected[k][1]) << k;
  }
  // Against the plain long double functions away from their zeros.
  for (int i = 0; i < 10000; ++i) {
    const double u = anywhere(rng);
    double sine, cosine;
    nm::sincos_two_pi(u, sine, cosine);
    const Long angle = 4 * kHalfPi * Long(u);
    EXPECT_NEAR(sine, static_cast<double>(std::sin(angle)), 1e-15) << u;
    EXPECT_NEAR(cosine, static_cast<double>(std::cos(angle)), 1e-15) << u;
  }
}

TEST(MonteCarloDoubleMath, Exp2IsWithinAnUlpAndSaturates) {
  ExponentialErrors errors;
  const auto check = [&](double x) { errors.add(nm::exp2_saturated(x), std::exp2(Long(x)), x); };
  auto rng = engine(4);
  std::uniform_real_distribution<double> walk(-1.0, 1.0), wide(-60.0, 60.0), whole(-1080.0, 1030.0);
  for (int i = 0; i < kRandomArguments; ++i) check(walk(rng));
  for (int i = 0; i < kRandomArguments; ++i) check(wide(rng));
  for (int i = 0; i < kRandomArguments; ++i) check(whole(rng));
  for (int n = -1080; n <= 1030; ++n) {
    for (double d : {0.0, 0.5, -0.5, 0.25, 1e-12, -1e-12}) check(n + d);
    check(std::nextafter(double(n), 1e9));
    check(std::nextafter(double(n), -1e9));
  }
  errors.normal.report("exp2");
  errors.denormal.report("exp2, denormal results");
  EXPECT_LE(errors.normal.value, 1.0) << "at " << errors.normal.at;
  EXPECT_LE(errors.denormal.value, 1.0) << "at " << errors.denormal.at;
  for (int n = -1074; n <= 1023; ++n) EXPECT_EQ(nm::exp2_saturated(n), std::ldexp(1.0, n)) << n;
  const double infinity = std::numeric_limits<double>::infinity();
  for (double x : {1024.0, 1100.0, 5000.0, 1e300, DBL_MAX, infinity}) EXPECT_EQ(nm::exp2_saturated(x), infinity) << x;
  for (double x : {-1075.0, -1100.0, -5000.0, -1e300, -DBL_MAX, -infinity}) EXPECT_EQ(nm::exp2_saturated(x), 0.0) << x;
  EXPECT_LE(ulps(nm::exp2_saturated(1023.5), std::exp2(1023.5L)), 1.0);  // finite: n = 1024, r = -1/2
  EXPECT_EQ(nm::exp2_saturated(-0.0), 1.0);
  EXPECT_EQ(cunum::detail::fast_exp2(3.0), 8.0);
}

TEST(MonteCarloDoubleMath, LogOfEveryNormalDoubleIsWithinAnUlp) {
  MaxError host;
  const auto check = [&](double u) { host.add(ulps(nm::log_normal(u), std::log(Long(u))), u); };
  auto rng = engine(6);
  for (int i = 0; i < kRandomArguments; ++i) {
    const std::uint64_t bits = rng();
    const double significand = 1.0 + static_cast<double>(bits >> 12) * 0x1p-52;
    check(std::ldexp(significand, static_cast<int>(bits % 2046) - 1022));
  }
  std::uniform_real_distribution<double> moneyness(0.05, 20.0);
  for (int i = 0; i < kRandomArguments; ++i) check(moneyness(rng));
  for (double u : {DBL_MIN, DBL_MAX, 1.0, std::nextafter(1.0, 2.0), std::nextafter(1.0, 0.0), 2.0, 0.5}) check(u);
  host.report("ln u");
  EXPECT_LE(host.value, 0.9) << "at " << host.at;
  EXPECT_EQ(nm::log_normal(1.0), 0.0);
}

TEST(MonteCarloDoubleMath, ExpIsWithinAnUlpAndSaturates) {
  ExponentialErrors errors;
  const auto check = [&](double x) { errors.add(nm::exp_saturated(x), std::exp(Long(x)), x); };
  auto rng = engine(7);
  std::uniform_real_distribution<double> rates(-1.0, 1.0), wide(-60.0, 60.0), whole(-760.0, 720.0);
  for (int i = 0; i < kRandomArguments; ++i) check(rates(rng));
  for (int i = 0; i < kRandomArguments; ++i) check(wide(rng));
  for (int i = 0; i < kRandomArguments; ++i) check(whole(rng));
  const double ln2 = 0.69314718055994530942;
  for (int n = -1080; n <= 1030; ++n) {
    for (double d : {0.0, 0.5, -0.5, 1e-9}) check((n + d) * ln2);
  }
  errors.normal.report("exp");
  errors.denormal.report("exp, denormal results");
  EXPECT_LE(errors.normal.value, 1.2) << "at " << errors.normal.at;
  EXPECT_LE(errors.denormal.value, 1.0) << "at " << errors.denormal.at;
  const double infinity = std::numeric_limits<double>::infinity();
  for (double x : {709.79, 710.0, 800.0, 1e300, infinity}) EXPECT_EQ(nm::exp_saturated(x), infinity) << x;
  for (double x : {-745.2, -800.0, -1e300, -infinity}) EXPECT_EQ(nm::exp_saturated(x), 0.0) << x;
  EXPECT_EQ(nm::exp_saturated(0.0), 1.0);
  EXPECT_EQ(nm::exp_saturated(-0.0), 1.0);
}

TEST(MonteCarloDoubleMath, Expm1WithinOneIsRelativelyAccurate) {
  MaxError error;
  const auto check = [&](double x) { error.add(ulps(nm::expm1_within_one(x), std::expm1(Long(x))), x); };
  auto rng = engine(8);
  std::uniform_real_distribution<double> within(-1.0, 1.0);
  for (int i = 0; i < kRandomArguments; ++i) check(within(rng));
  for (int i = 0; i < kRandomArguments; ++i) {  // every magnitude down to the denormals
    const std::uint64_t bits = rng();
    const double significand = 1.0 + static_cast<double>(bits >> 12) * 0x1p-52;
    const double x = std::ldexp(significand, -1 - static_cast<int>(bits % 1074));
    check((bits >> 11) % 2 == 0 ? x : -x);
  }
  // Both sides of each reduction's edge, x log2(e) = +-1/2, and of the domain's.
  for (double edge : {0.34657359027997264, -0.34657359027997264, 1.0, -1.0}) {
    double below = edge, above = edge;
    for (int i = 0; i < 64; ++i) {
      below = std::nextafter(below, 0.0);
      above = std::nextafter(above, 2 * edge);
      check(below);
      if (std::fabs(above) < 1.0) check(above);
    }
  }
  error.report("expm1 (|x| < 1)");
  EXPECT_LE(error.value, 1.9) << "at " << error.at;
  EXPECT_EQ(nm::expm1_within_one(0.0), 0.0);
  EXPECT_EQ(nm::expm1_within_one(0x1p-1074), 0x1p-1074);
}

TEST(MonteCarloDoubleMath, BoxMullerNormalsAreWithinAFewUlps) {
  MaxError error;
  auto rng = engine(5);
  const auto check = [&](double u1, double u2) {
    Long exact_sine, exact_cosine;
    exact_sincos(u2, exact_sine, exact_cosine);
    const Long radius = std::sqrt(-2 * std::log(Long(u1)));
    double z0, z1;
    cunum::detail::monte_carlo_box_muller(u1, u2, z0, z1);
    error.add(ulps(z0, radius * exact_sine), u1);
    error.add(ulps(z1, radius * exact_cosine), u1);
  };
  for (int i = 0; i < kRandomArguments; ++i) check(philox_uniform(rng), philox_uniform(rng));
  for (int i = 0; i < kRandomArguments / 4; ++i) check(generic_uniform(rng), generic_uniform(rng));
  for (double u1 : log_edges()) check(u1, philox_uniform(rng));
  error.report("Box-Muller normals");
  EXPECT_LE(error.value, 3.0) << "at u1 " << error.at;
  double z0, z1;
  cunum::detail::monte_carlo_box_muller(1.0, 0.3, z0, z1);
  EXPECT_EQ(z0, 0.0);
  EXPECT_EQ(z1, 0.0);
}

}  // namespace
