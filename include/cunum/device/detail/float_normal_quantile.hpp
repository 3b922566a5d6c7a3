#pragma once
// Internal: the float standard normal quantile behind cunum::device::sobol_normal_float,
// one function for the CPU and the GPU.
//
// The argument is a 32-bit word x, the uniform u = (x + 1/2) 2^-32, the result
// z = Phi^-1(u) in float: cuRAND's quasi-random normal of the word. Everything comes from
// two exact integers: k = |2x + 1 - 2^32| (odd; |u - 1/2| = k 2^-33) and
// 2^64 - 1 - k^2 (within one of 2^64 4u(1 - u)), rounded once to float. After the form
// of Giles's single-precision erfinv ("Approximating the erfinv function", GPU
// Computing Gems Jade, 2011), with w = -log2(4u(1 - u)) in [0, 31]:
//
// - the centre, w < 9.5 (|z| < 3.4, all but 0.07% of the words): |z| = k 2^-33 C(w),
//   C a polynomial of degree 10 in w - 2, in float: one logarithm, no division, no
//   square root. The logarithm is of the mantissa m in [1, 2) of 2^64 4u(1 - u): on the
//   GPU the approximate lg2.approx instruction (MUFU.LG2, within 2^-22 absolute on
//   [0.5, 2]: the CUDA programming guide's bound for __log2f), on the CPU the double
//   log2 rounded to float. The instruction takes the place of a polynomial logarithm's
//   ten or so operations, in a fill loop of 37.75 sm_90 instructions a point (cuRAND's:
//   48), and is the one step that differs between the two;
// - the tail, w >= 9.5: |z| = T(sqrt w), T of degree 9, in double. A warp takes it for a
//   few of its 32 Sobol points at most (32 consecutive points have one point in each
//   1/32 of (0, 1)), so it costs little, and double leaves only the last rounding.
//
// Every multiply-add is an explicit fma and every other product or sum an explicit
// round-to-nearest operation that the compiler may not fuse, so the CPU and the GPU
// round alike but for the logarithm and the tail's square root (sqrt_radius of
// double_normal_math.hpp: IEEE's on the CPU, a refined approximate reciprocal square
// root on the GPU, the same but for about one argument in a million).
//
// Accuracy, against a long double reference: the CPU within 2.70 ulps of the true
// normal over all 2^32 words (0.45 on average); with the logarithm off by 2^-22 either
// way, as the GPU's may be, within 3.29 (every 7th word). tests/random/
// sobol_normal_test.cpp checks a sweep of its own (both extreme tails, the centre's
// end, around one half, every 1021st word). The polynomials are minimax fits in relative error, C's rounded to float
// one coefficient at a time with the rest refitted
// (tests/random/oracle/fit_sobol_normal_float.py): C within 0.29 x 2^-24, T 0.01 x 2^-24.
//
// The range: the largest |z|, at words 0 and 2^32 - 1 (u = 2^-33 and 1 - 2^-33), is
// 6.3380; the smallest, at words 2^31 - 1 and 2^31, is 2.918e-10.

#include <cmath>
#include <cstdint>

#include "cunum/device/detail/double_normal_math.hpp"
#include "cunum/device/detail/float_normal_math.hpp"
#include "cunum/device/detail/host_device.hpp"

namespace cunum::detail::float_normal_quantile {

// Rounded alike on the CPU and the GPU (float_normal_math.hpp).
using float_normal_math::add_rn;
using float_normal_math::bits_of;
using float_normal_math::float_of;
using float_normal_math::fma_rn;
using float_normal_math::horner;
using float_normal_math::mul_rn;

// log2(m) for m in [1, 2): the GPU's lg2.approx (within 2^-22), the CPU's double log2
// rounded to float.
CUNUM_HOST_DEVICE inline float log2_mantissa(float m) {
#if defined(__CUDA_ARCH__)
  float log2_m;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(log2_m) : "f"(m));
  return log2_m;
#else
  return static_cast<float>(std::log2(static_cast<double>(m)));
#endif
}

// The centre ends at w = 9.5: t = w - 2 below kCentreEnd.
constexpr float kCentreEnd = 9.5f - 2.0f;

// |z| = k 2^-33 C(w) for t = w - 2 < kCentreEnd: C of degree 10 in t, within 0.29 x 2^-24
// relative, its coefficients times 2^-33.
CUNUM_HOST_DEVICE inline float centre_normal(float t, std::uint32_t k) {
  constexpr float c[11] = {0x1.bafe90p-32f, 0x1.f60d9cp-35f, 0x1.1e3b14p-42f, -0x1.0be90ep-42f,
                           0x1.bf7a5cp-47f, 0x1.994fd4p-50f, -0x1.c11ff8p-53f, -0x1.298000p-58f,
                           0x1.669742p-59f, -0x1.ccdc2cp-63f, 0x1.9d1fd2p-68f};
  return mul_rn(static_cast<float>(k), horner(t, c));
}

// |z| = T(sqrt w) for w in [9.5, 31], in double: degree 9 in sqrt(w) - 4.325, within
// 0.01 x 2^-24 relative.
CUNUM_HOST_DEVICE inline float tail_normal(double w) {
  constexpr double c[10] = {0x1.37162f1eec8d1p+2,  0x1.2fd3ed2d70638p+0,  0x1.50d6d59bbf165p-9,
                            -0x1.3f1639ed0860fp-10, 0x1.75eed040c381fp-12, -0x1.6760689549313p-14,
                            0x1.1e1071d7ebccap-16,  -0x1.8aa9ca5ccc0fbp-20, -0x1.7f7d2ffeb37bap-20,
                            0x1.54c382c849750p-21};
  return static_cast<float>(horner(normal_math::sqrt_radius(w) - 4.325, c));
}

// Phi^-1((word + 1/2) 2^-32), the sign bit set below one half, from the logarithm of
// the mantissa that log2_mantissa gives (a parameter so that the tests can perturb it).
template <class Log2Mantissa>
CUNUM_HOST_DEVICE inline float normal_of_word(std::uint32_t word, Log2Mantissa log2_of) {
  const std::uint32_t below_half = (word >> 31) - 1u;  // all ones below one half, else zero
  // k = |2x + 1 - 2^32|: below one half 2^32 - 1 - 2x, the complement of 2x mod 2^32;
  // above, 2x + 1 - 2^32, 2x mod 2^32 plus one.
  const std::uint32_t k = (word << 1) ^ (below_half | 1u);
  // 2^64 - 1 - k^2 rounded to float is 2^e m, m in [1, 2), e = (bits >> 23) - 127 in
  // [33, 64]; w - 2 = 62 - e - log2 m.
  const std::uint32_t bits = bits_of(static_cast<float>(~(std::uint64_t{k} * k)));
  const float log2_m = log2_of(float_of((bits & 0x007FFFFFu) | 0x3F800000u));
  const float t = add_rn(static_cast<float>(189 - static_cast<std::int32_t>(bits >> 23)), -log2_m);
  const float z = t < kCentreEnd ? centre_normal(t, k) : tail_normal(static_cast<double>(t) + 2.0);
  return float_of(bits_of(z) | (below_half & 0x80000000u));
}

struct Log2Mantissa {
  CUNUM_HOST_DEVICE float operator()(float m) const { return log2_mantissa(m); }
};

}  // namespace cunum::detail::float_normal_quantile
