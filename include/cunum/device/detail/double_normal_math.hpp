#pragma once
// Internal: the double-precision functions of the Monte Carlo path code (its
// Box-Muller normals and its walk's exp2) and of the Black-Scholes prices' common path
// (exp, ln and expm1 of known arguments), the same code on the CPU and the GPU.
//
// Why not the math library: the double path and price kernels are bound by instruction
// issue, and the CUDA library's log, sqrt, sincospi, exp, exp2 and expm1 are written
// for every double (each with special-case code for denormals, infinities and NaNs, and
// a branch around it, and their coefficients moved into registers at each use). These
// take exactly the arguments their callers feed them, so none of that is needed: a
// reduction done with integer operations on the bits, one polynomial, and no branch.
// Every multiply-add is an explicit fma() and every other product or sum an explicit
// round-to-nearest operation that the compiler may not fuse (mul_rn, add_rn), so the
// host and the device round alike; they differ only where the device takes the
// approximate reciprocal and reciprocal square root instructions (MUFU.RCP64H,
// MUFU.RSQ64H: measured within 2^-20.0 relative on an H100) and Newton steps where the
// host divides and calls std::sqrt. Both are within rounding of the exact values, and
// the normals agree to an ulp or so, mostly to the bit.
//
// The polynomial coefficients are minimax fits (discrete Remez in 50-digit
// arithmetic; expm1's the Taylor series) rounded to double; the errors named below are
// the largest that the tests (tests/monte_carlo/double_normal_math_test.cpp) measured
// against long double over millions of arguments in several runs, and they assert them
// with a margin.
//
// On the device the coefficients live in constant memory: a double literal whose low
// word is not zero costs two moves each time the compiler has no register to keep it
// in, a constant one load, or none while it stays in a uniform register.

#include <cmath>
#include <cstdint>
#include <cstring>

#include "cunum/device/detail/host_device.hpp"

namespace cunum::detail::normal_math {

// Each polynomial's leading (highest-degree) coefficients are rounded to 21 bits, with
// the others refitted around them (same maximum error), so that an FMA takes them as
// immediates (a double whose low word is zero); the rest live in Coefficients.
struct Coefficients {
  // -2 ln(1 + f) = f^2 - 2 f - s (f^2 + z P(z)), s = f / (2 + f), z = s^2 <= 0.02944:
  // P(z) = 4 (atanh(s) / s - 1) / z, degree 6 (p0..p3 here, p4..p6 immediates),
  // |z P(z) - exact| < 2^-57.
  double log[4];
  // sin(pi/2 f) = f (pi/2 + z S(z)), z = f^2 <= 1/4: pi/2 as kHalfPiHigh (an immediate)
  // plus sin[0]; S of degree 5 (s1..s4 here, s5, s6 immediates); within 2^-56
  // relative.
  double sin[5];
  // cos(pi/2 f) = 1 + z C(z): degree 6 (c4..c6 immediates), within 2^-56 absolute.
  double cos[4];
  // 2^r = 1 + r E(r), |r| <= 1/2: degree 10 (e7..e10 immediates), within 2^-55
  // relative (the rounding of e0 = ln 2; 2^-58 before it).
  double exp2[7];
  // -2 ln 2 = kMinusTwoLn2High (21 bits, an immediate) + this.
  double minus_two_ln2_low;
  // log2(e), and -ln 2 = kMinusLn2High (21 bits, an immediate) + minus_ln2_low: exp's
  // reduction.
  double log2_e;
  double minus_ln2_low;
  // e^r - 1 = r + r^2 M(r), |r| <= ln 2 / 2: M the Taylor series to r^11 / 13! (what it
  // leaves out is below 2^-56 of the result), 1/3! .. 1/9! here, 1/2 and 1/10! .. 1/13!
  // (rounded to 21 bits: within 2^-60 of the result) immediates.
  double expm1[7];
};

inline constexpr Coefficients kCoefficients = {
    {0x1.5555555555599p+0, 0x1.999999997f113p-1, 0x1.24924942336b7p-1, 0x1.c71c51f6d77e1p-2},
    {0x1.5110b4611a626p-22, -0x1.4abbce625be49p-1, 0x1.466bc67758f4dp-4, -0x1.32d2cce342707p-8,
     0x1.5078301e37188p-13},
    {-0x1.3bd3cc9be45e2p+0, 0x1.03c1f081b5ce1p-2, -0x1.55d3c7e3e3e41p-6, 0x1.e1f506938cf65p-11},
    {0x1.62e42fefa39f0p-1, 0x1.ebfbdff82c5cep-3, 0x1.c6b08d7049ec6p-5, 0x1.3b2ab6fb9beb3p-7, 0x1.5d87fe78e171fp-10,
     0x1.4309131620d19p-13, 0x1.ffcbfb8feeddfp-17},
    0x1.05c610ca86c39p-28,
    0x1.71547652b82fep+0,
    0x1.05c610ca86c39p-29,
    {0x1.5555555555555p-3, 0x1.5555555555555p-5, 0x1.1111111111111p-7, 0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-13,
     0x1.a01a01a01a01ap-16, 0x1.71de3a556c734p-19}};

CUNUM_CONSTANT_TABLE(Coefficients, kCoefficients, coefficients)

// 1.5 2^52: x + it rounds x (|x| < 2^51) to an integer whose two's complement is the
// sum's low word.
constexpr double kRoundingShift = 0x1.8p52;
constexpr double kMinusTwoLn2High = -0x1.62e43p+0;
constexpr double kMinusLn2High = -0x1.62e43p-1;
constexpr double kHalfPiHigh = 0x1.921fbp+0;

// Products and sums the compiler may not fuse, and a double's 32-bit halves.
#if defined(__CUDA_ARCH__)
CUNUM_HOST_DEVICE inline double mul_rn(double a, double b) { return __dmul_rn(a, b); }
CUNUM_HOST_DEVICE inline double add_rn(double a, double b) { return __dadd_rn(a, b); }
CUNUM_HOST_DEVICE inline std::int32_t high_word(double x) { return __double2hiint(x); }
CUNUM_HOST_DEVICE inline std::int32_t low_word(double x) { return __double2loint(x); }
CUNUM_HOST_DEVICE inline double from_words(std::int32_t high, std::int32_t low) { return __hiloint2double(high, low); }
#else
CUNUM_HOST_DEVICE inline double mul_rn(double a, double b) { return a * b; }
CUNUM_HOST_DEVICE inline double add_rn(double a, double b) { return a + b; }
CUNUM_HOST_DEVICE inline std::uint64_t bits_of(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  return bits;
}
CUNUM_HOST_DEVICE inline std::int32_t high_word(double x) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(bits_of(x) >> 32));
}
CUNUM_HOST_DEVICE inline std::int32_t low_word(double x) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(bits_of(x)));
}
CUNUM_HOST_DEVICE inline double from_words(std::int32_t high, std::int32_t low) {
  const std::uint64_t bits = (std::uint64_t{static_cast<std::uint32_t>(high)} << 32) | static_cast<std::uint32_t>(low);
  double x;
  std::memcpy(&x, &bits, sizeof(x));
  return x;
}
#endif

// Horner's rule continued through c[N - 1] .. c[0]: p x^N + c[N - 1] x^(N - 1) + ... + c[0].
template <int N>
CUNUM_HOST_DEVICE inline double horner(double p, double x, const double (&c)[N]) {
CUNUM_UNROLL
  for (int i = N - 1; i >= 0; --i) p = fma(p, x, c[i]);
  return p;
}

// 1/t from a seed r0 of relative error e0 (the device's: |e0| <= 2^-20): e = 1 - t r0,
// r0 (1 + e + e^2) = (1 - e^3) / t, within rounding of 1/t.
CUNUM_HOST_DEVICE inline double refine_reciprocal(double t, double r0) {
  double e = fma(-t, r0, 1.0);
  e = fma(e, e, e);
  return fma(r0, e, r0);
}

// sqrt(y), y >= 0, from a seed r0 of 1/sqrt(y) of relative error e0 (the device's:
// |e0| <= 2^-20): one Goldschmidt step (s ~ sqrt(y), h ~ 1/(2 sqrt(y)), error 1.5 e0^2),
// then the Newton correction s + h (y - s^2) (error about 2 e0^4 before its rounding).
CUNUM_HOST_DEVICE inline double refine_sqrt(double y, double r0) {
  double s = mul_rn(y, r0);
  double h = from_words(high_word(r0) - 0x00100000, low_word(r0));  // r0 / 2
  const double e = fma(-s, h, 0.5);
  s = fma(s, e, s);
  h = fma(h, e, h);
  return fma(fma(-s, s, y), h, s);
}

// The platform's 1/t: the device's approximate reciprocal (high word) refined; the
// host's division.
struct Reciprocal {
  CUNUM_HOST_DEVICE double operator()(double t) const {
#if defined(__CUDA_ARCH__)
    double r0;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r0) : "d"(t));
    return refine_reciprocal(t, r0);
#else
    return 1.0 / t;
#endif
  }
};

/// -2 ln u for any positive normal double u (no 0, denormal, infinity or NaN): the
/// Box-Muller radius squared, whose uniforms are Philox's z 2^-53 + 2^-54 (z < 2^53) and
/// MRG32k3a's k 2^-32 roughly (1 <= k < 2^32), so normal doubles in [2^-54, 1], and
/// u = 1 (Philox's largest, rounded up) gives exactly 0; and ln of a normal S / K
/// (log_normal).
/// Method: u = 2^k m, m folded into [0.7071, 1.4142) with integer operations on the high
/// word, f = m - 1 (exact), s = f / (2 + f) through a reciprocal (no division), then
/// -2 ln(1 + f) = f^2 - 2 f - s (f^2 + z P(z)) (the split of FreeBSD's and Sun's
/// fdlibm log, which keeps s's error away from the leading terms) plus k (-2 ln 2)
/// in two parts (a 21-bit immediate and a constant). Measured: within 0.86 ulp.
template <class ReciprocalOf = Reciprocal>
CUNUM_HOST_DEVICE inline double minus_two_log(double u, ReciprocalOf reciprocal = {}) {
  // Adding 1 - 0.7071 to the mantissa carries into the exponent exactly where
  // m >= sqrt(2) (to 20 bits), which then takes the half: m in [0.70710564, 1.41421223].
  const std::int32_t high = high_word(u) + (0x3ff00000 - 0x3fe6a09e);
  const double k = static_cast<double>((high >> 20) - 0x3ff);
  const double m = from_words((high & 0x000fffff) + 0x3fe6a09e, low_word(u));
  const double f = add_rn(m, -1.0);
  const double s = mul_rn(f, reciprocal(add_rn(m, 1.0)));
  const double z = mul_rn(s, s);
  const double f2 = mul_rn(f, f);
  const double p = horner(fma(fma(0x1.2f062p-2, z, 0x1.39a1bp-2), z, 0x1.74664p-2), z, coefficients().log);
  const double a = fma(z, p, f2);  // f^2 + z P(z)
  // The small terms first, then -2 f, then k (-2 ln 2): two roundings at the result's scale.
  const double small = fma(k, coefficients().minus_two_ln2_low, fma(-s, a, f2));
  return fma(k, kMinusTwoLn2High, fma(f, -2.0, small));
}

/// ln u for any positive normal double u: -minus_two_log(u) / 2 (the halving is exact).
/// Measured: within 0.86 ulp.
template <class ReciprocalOf = Reciprocal>
CUNUM_HOST_DEVICE inline double log_normal(double u, ReciprocalOf reciprocal = {}) {
  return mul_rn(minus_two_log(u, reciprocal), -0.5);
}

/// sqrt(y) for y in [0, 75] (the Box-Muller radius from minus_two_log: 0 <= y <=
/// -2 ln 2^-54 = 74.9): the host's std::sqrt; on the device refine_sqrt from the
/// approximate reciprocal square root instruction, y's high word raised to 2^-1022's
/// for the seed so that y = 0 gives 0 (s = 0 throughout) instead of 0 x inf. Measured
/// (on the host, from seeds of relative error up to 2^-19): the correctly rounded root
/// but for about one argument in a million, within 2^-20 ulp of a midpoint, which
/// rounds the other way.
CUNUM_HOST_DEVICE inline double sqrt_radius(double y) {
#if defined(__CUDA_ARCH__)
  const std::int32_t high = high_word(y);
  double r0;
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(r0) : "d"(from_words(high > 0x00100000 ? high : 0x00100000, 0)));
  return refine_sqrt(y, r0);
#else
  return std::sqrt(y);
#endif
}

/// sin(2 pi u) and cos(2 pi u) for u in [0, 1] (any double there: MRG32k3a's uniforms
/// are not on Philox's 2^-54 grid). Method: x = 4 u (exact) in quarter turns, q = its
/// nearest integer (the rounding shift, which also leaves q in the low word), f = x - q
/// (exact, |f| <= 1/2), z = f^2, sin(pi/2 f) = f (pi/2 + z S(z)) with pi/2 in two parts
/// (its rounding would cost a third of an ulp) and cos(pi/2 f) = 1 + z C(z), then turned
/// by q quarters with integer selects and sign flips (no branch). Exact zeros and ones
/// at u = k/4. Measured: within 0.97 ulp (both; the largest errors are the cosine
/// polynomial's near f = 1/2, where its value is 0.71).
CUNUM_HOST_DEVICE inline void sincos_two_pi(double u, double& sine, double& cosine) {
  const double shifted = fma(u, 4.0, kRoundingShift);
  const double f = fma(u, 4.0, -add_rn(shifted, -kRoundingShift));
  const std::int32_t q = low_word(shifted);
  const double z = mul_rn(f, f);
  const double s = fma(f, kHalfPiHigh, mul_rn(f, horner(fma(0x1.e3ff2p-25, z, -0x1.e300ap-19), z, coefficients().sin)));
  const double c = fma(z, horner(fma(fma(-0x1.b26ffp-28, z, 0x1.f9cc7p-22), z, -0x1.a6d1fp-16), z, coefficients().cos),
                       1.0);
  const bool odd = (q & 1) != 0;
  const double turned_sine = odd ? c : s;
  const double turned_cosine = odd ? s : c;
  // Quarter q: sine is -sine(q - 2) (bit 1 of q), cosine is -cosine(q - 2) (bit 1 of q + 1).
  sine = from_words(high_word(turned_sine) ^ static_cast<std::int32_t>((static_cast<std::uint32_t>(q) & 2u) << 30),
                    low_word(turned_sine));
  cosine = from_words(
      high_word(turned_cosine) ^ static_cast<std::int32_t>((static_cast<std::uint32_t>(q + 1) & 2u) << 30),
      low_word(turned_cosine));
}

// E(r) = (2^r - 1) / r for |r| <= 1/2 (a little beyond, for exp's reduction):
// degree 10, e7..e10 immediates; 2^r = 1 + r E(r) within 2^-55 relative (the rounding
// of e0 = ln 2; 2^-58 before it).
CUNUM_HOST_DEVICE inline double exp2_quotient(double r) {
  const double e7 = fma(fma(fma(0x1.e79bbp-32, r, 0x1.e61b5p-28), r, 0x1.b5268p-24), r, 0x1.62bfcp-20);
  return horner(e7, r, coefficients().exp2);
}

// p 2^n for p in [0.7071, 1.4143] and |n| <= 1100, as IEEE would round it: 2^(n/2)
// added to p's exponent field (the product stays normal), then a multiplication by
// 2^(n - n/2), which rounds to inf, a denormal or 0 as IEEE does.
CUNUM_HOST_DEVICE inline double times_power_of_two(double p, std::int32_t n) {
  const std::int32_t n1 = n >> 1;  // |n1|, |n - n1| <= 550
  const double scaled = from_words(high_word(p) + static_cast<std::int32_t>(static_cast<std::uint32_t>(n1) << 20),
                                   low_word(p));
  return mul_rn(scaled, from_words(static_cast<std::int32_t>(static_cast<std::uint32_t>(n - n1 + 0x3ff) << 20), 0));
}

// x with |x| capped at the double whose high word is `cap` (a positive double's), with
// two integer minimums on the high word: +-inf saturate, and so does a NaN, to +cap or
// -cap by its sign bit. A negative x beyond -cap (-inf too) has a high word above
// -cap's as unsigned, a positive one beyond cap (+inf too) above cap's as signed.
CUNUM_HOST_DEVICE inline double capped_magnitude(double x, std::int32_t cap) {
  const std::uint32_t negative_cap = static_cast<std::uint32_t>(cap) | 0x80000000u;
  const std::uint32_t capped_below = static_cast<std::uint32_t>(high_word(x)) < negative_cap
                                         ? static_cast<std::uint32_t>(high_word(x))
                                         : negative_cap;
  const std::int32_t capped = static_cast<std::int32_t>(capped_below) < cap ? static_cast<std::int32_t>(capped_below)
                                                                            : cap;
  return from_words(capped, low_word(x));
}

/// 2^x for any double x, saturated: +inf for x >= 1024, 0 below the denormals
/// (x <= -1075.x), denormal results rounded once. Domain: the walk's log2 S_t / S0 and
/// the payoffs' sums of them, finite, or +-inf when an absurd volatility or expiry
/// overflows the drift; a NaN argument (which finite parameters do not make) comes
/// out as +inf or 0 by its sign bit. Method: |x| capped near 1100 (capped_magnitude;
/// this keeps the rounding shift exact), x = n + r with n the nearest integer (rounding
/// shift) and |r| <= 1/2, 2^r = 1 + r E(r), then times 2^n (times_power_of_two).
/// Measured: within 0.94 ulp for normal results, 0.89 ulp for denormal ones, DBL_MAX
/// instead of +inf within an ulp of the overflow threshold.
CUNUM_HOST_DEVICE inline double exp2_saturated(double x) {
  const double clamped = capped_magnitude(x, 0x40913000);  // 1100
  const double shifted = add_rn(clamped, kRoundingShift);
  const double r = add_rn(clamped, -add_rn(shifted, -kRoundingShift));
  return times_power_of_two(fma(r, exp2_quotient(r), 1.0), low_word(shifted));  // n = low word, |n| <= 1100
}

// x = n ln 2 + r with n the nearest integer to x log2(e) (rounding shift; |x| <= 762)
// and |r| <= ln 2 / 2 (a little beyond), ln 2 in two parts, the first of 21 bits, so
// that n times it and x - n ln2_high are exact (Cody and Waite's reduction).
struct Ln2Reduction {
  double r;
  std::int32_t n;
};
CUNUM_HOST_DEVICE inline Ln2Reduction reduce_by_ln2(double x) {
  const double shifted = fma(x, coefficients().log2_e, kRoundingShift);
  const double n = add_rn(shifted, -kRoundingShift);
  return {fma(n, coefficients().minus_ln2_low, fma(n, kMinusLn2High, x)), low_word(shifted)};
}

/// e^x for any double x but NaN, saturated: +inf above ln DBL_MAX (709.78), 0 below the
/// denormals (x < -745.13), denormal results rounded once; a NaN comes out as +inf or 0
/// by its sign bit. Method: |x| capped at 762 (1100 ln 2), x = n ln 2 + r
/// (reduce_by_ln2), then 2^t with t = r log2(e), |t| <= 1/2 (exp2's polynomial), times
/// 2^n. t's rounding adds at most 0.17 ulp to exp2's. Measured: within 1.15 ulp.
CUNUM_HOST_DEVICE inline double exp_saturated(double x) {
  const Ln2Reduction reduced = reduce_by_ln2(capped_magnitude(x, 0x4087d000));  // 762
  const double t = mul_rn(reduced.r, coefficients().log2_e);
  return times_power_of_two(fma(t, exp2_quotient(t), 1.0), reduced.n);
}

/// e^x - 1 for |x| < 1, relative to itself however small x (x = +-0 gives +0). Method:
/// x = n ln 2 + r (reduce_by_ln2) with n in {-1, 0, 1}, q = e^r - 1 = r + r^2 M(r)
/// (whose second term is at most a sixth of the first, so that its rounding weighs
/// little), then 2^n q + (2^n - 1), whose second term is exact and cancels at most
/// half of the first (n = 1: 1 + 2q, q down to -0.29). Measured: within 1.81 ulp.
CUNUM_HOST_DEVICE inline double expm1_within_one(double x) {
  const Ln2Reduction reduced = reduce_by_ln2(x);
  const double r = reduced.r;
  const double m8 = fma(fma(fma(0x1.6124600000000p-33, r, 0x1.1eed900000000p-29), r, 0x1.ae64500000000p-26), r,
                        0x1.27e5000000000p-22);  // 1/13! .. 1/10!
  const double q = fma(mul_rn(r, r), fma(horner(m8, r, coefficients().expm1), r, 0.5), r);
  const std::int32_t n_bits = static_cast<std::int32_t>(static_cast<std::uint32_t>(reduced.n) << 20);
  const double power = from_words(0x3ff00000 + n_bits, 0);  // 2^n
  return fma(power, q, add_rn(power, -1.0));
}

}  // namespace cunum::detail::normal_math
