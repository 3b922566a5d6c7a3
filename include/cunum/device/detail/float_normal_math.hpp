#pragma once
// Internal: single-precision arithmetic that rounds alike on the CPU and the GPU, and the
// float Box-Muller's logarithm and sine and cosine (cunum::device::box_muller) written in
// it, so that a float normal pair is the same bits on both.
//
// Why not the math library: the float normal fills are bound by instruction issue, and
// the CUDA library's logf and sincospif are written for every float (denormals,
// infinities, NaNs, large arguments: special-case code and selects around it), and the
// host's libm rounds otherwise. These take exactly the arguments the Box-Muller feeds
// them: a reduction done with integer operations on the bits or an exact rounding
// shift, one polynomial, no branch. Every multiply-add is an explicit fmaf and every
// other product or sum an explicit round-to-nearest operation that the compiler may not
// fuse (mul_rn, add_rn), so the host and the device give the same bits.
//
// The polynomials are minimax fits in relative error, rounded to float one coefficient at
// a time with the rest refitted (tests/random/oracle/fit_box_muller_float.py); the
// errors named below are what tests/random/box_muller_float_test.cpp measures against
// long double.

#include <cmath>
#include <cstdint>
#include <cstring>

#include "cunum/device/detail/host_device.hpp"

namespace cunum::detail::float_normal_math {

// Sums and products rounded once, never fused with a neighbour; a float's bits.
#if defined(__CUDA_ARCH__)
CUNUM_HOST_DEVICE inline float add_rn(float a, float b) { return __fadd_rn(a, b); }
CUNUM_HOST_DEVICE inline float mul_rn(float a, float b) { return __fmul_rn(a, b); }
CUNUM_HOST_DEVICE inline std::uint32_t bits_of(float x) { return __float_as_uint(x); }
CUNUM_HOST_DEVICE inline float float_of(std::uint32_t bits) { return __uint_as_float(bits); }
#else
CUNUM_HOST_DEVICE inline float add_rn(float a, float b) { return a + b; }
CUNUM_HOST_DEVICE inline float mul_rn(float a, float b) { return a * b; }
CUNUM_HOST_DEVICE inline std::uint32_t bits_of(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  return bits;
}
CUNUM_HOST_DEVICE inline float float_of(std::uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof(x));
  return x;
}
#endif
CUNUM_HOST_DEVICE inline float fma_rn(float a, float b, float c) { return ::fmaf(a, b, c); }
CUNUM_HOST_DEVICE inline double fma_rn(double a, double b, double c) { return ::fma(a, b, c); }

// c[N - 1] x^(N - 1) + ... + c[0] by Horner's rule, one fma a step.
template <class T, int N>
CUNUM_HOST_DEVICE inline T horner(T x, const T (&c)[N]) {
  T p = c[N - 1];
CUNUM_UNROLL
  for (int i = N - 2; i >= 0; --i) p = fma_rn(p, x, c[i]);
  return p;
}

/// -2 ln u for u a normal float in (0, 1] (every uniform float of cunum/device/philox.hpp
/// and cunum/device/mrg32k3a.hpp: 2^-33 and up), the Box-Muller radius squared; not for
/// 0, denormals, negative, infinite or NaN u. Method: u = 2^k m with m in [2/3, 4/3),
/// both by integer operations on the bits (subtracting 2/3's bits carries into the
/// exponent field exactly where m would reach 4/3), f = m - 1 (exact), then
/// -2 ln(1 + f) = -2 f + f^2 Q(f) (the leading term exact, Q of degree 8: within
/// 0.08 x 2^-24 relative) plus k (-2 ln 2), k 2^23 taken exactly from the exponent field
/// and -2 ln 2 rounded to float (3e-9 relative). u = 1 gives exactly 0. Measured over
/// every float of [2^-33, 1]: within 0.915 ulp.
CUNUM_HOST_DEVICE inline float minus_two_log(float u) {
  constexpr float Q[9] = {0x1.000000p+0f,  -0x1.555506p-1f, 0x1.fffefcp-2f,  -0x1.99d044p-2f, 0x1.559c46p-2f,
                          -0x1.1ed662p-2f, 0x1.f332a6p-3f,  -0x1.1e678cp-2f, 0x1.07c964p-2f};
  constexpr float kMinusTwoLn2Over2To23 = -0x1.62e430p-23f;
  const std::uint32_t bits = bits_of(u);
  const std::uint32_t exponent_field = (bits - 0x3f2aaaabu) & 0xff800000u;  // k 2^23, two's complement
  const float f = add_rn(float_of(bits - exponent_field), -1.0f);
  const auto k_times_2_to_23 = static_cast<float>(static_cast<std::int32_t>(exponent_field));  // exact
  const float log_m = fma_rn(mul_rn(f, horner(f, Q)), f, mul_rn(f, -2.0f));
  return fma_rn(k_times_2_to_23, kMinusTwoLn2Over2To23, log_m);
}

/// sin(2 pi u) and cos(2 pi u) for u a float in [0, 1] (any: MRG32k3a's uniforms are not
/// on Philox's grid). Method: x = 4 u (exact) in quarter turns, n = its nearest integer
/// by the rounding shift 1.5 2^23 (which also leaves n in the low bits of the sum),
/// f = x - n (exact, |f| <= 1/2), z = f^2, sin(pi/2 f) = f (pi/2 + z P(z)) with pi/2 in
/// two floats (rounded to one it would cost 0.47 x 2^-24) and P of degree 2 (within
/// 0.07 x 2^-24 relative), cos(pi/2 f) = 1 + z C(z) with C of degree 3 (within
/// 0.01 x 2^-24), then turned by n quarters with a select and sign flips (no branch).
/// Relative to the true values everywhere, their zeros included: exact zeros and ones
/// at u = k/4. Measured over every float of [2^-33, 1]: within 0.874 ulp.
CUNUM_HOST_DEVICE inline void sincos_two_pi(float u, float& sine, float& cosine) {
  constexpr float kHalfPiHigh = 0x1.921fb6p+0f;
  constexpr float P[4] = {-0x1.777a5cp-25f, -0x1.4abbbep-1f, 0x1.465facp-4f, -0x1.2db5cep-8f};  // P[0]: pi/2's rest
  constexpr float C[4] = {-0x1.3bd3ccp+0f, 0x1.03c1b0p-2f, -0x1.55b2b6p-6f, 0x1.d4f7eep-11f};
  constexpr float kRoundingShift = 0x1.8p23f;
  const float shifted = fma_rn(u, 4.0f, kRoundingShift);
  const float f = fma_rn(u, 4.0f, -add_rn(shifted, -kRoundingShift));
  const std::uint32_t n = bits_of(shifted);  // its low bits
  const float z = mul_rn(f, f);
  const float s = fma_rn(f, kHalfPiHigh, mul_rn(f, horner(z, P)));
  const float c = fma_rn(z, horner(z, C), 1.0f);
  const bool odd = (n & 1u) != 0;
  // Quarter n: the sine is -sine(n - 2) (bit 1 of n), the cosine -cosine(n - 2) (bit 1 of n + 1).
  sine = float_of(bits_of(odd ? c : s) ^ ((n & 2u) << 30));
  cosine = float_of(bits_of(odd ? s : c) ^ (((n + 1u) & 2u) << 30));
}

}  // namespace cunum::detail::float_normal_math
