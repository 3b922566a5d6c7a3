#pragma once
// Internal: the double standard normal quantile behind cunum::device::sobol_normal and
// sobol_normal_double (the double Sobol normals), one function for the CPU and the GPU.
//
// The argument is a = |2u - 1| for the Sobol word's uniform u, exact (an odd integer
// times a power of two), the result |z| for z = Phi^-1(u). In the form of Giles's erfinv
// ("Approximating the erfinv function", GPU Computing Gems Jade, 2011) and of the float
// quantile (float_normal_quantile.hpp), with W = -2 ln(4u(1 - u)) = -2 ln(1 - a^2):
//
// - the centre, W < 13 (|z| < 3.37, all but 0.07% of the points): |z| = (a / 2) C(W),
//   C a polynomial of degree 24 in W - 4: one fma for 1 - a^2, one logarithm
//   (minus_two_log of double_normal_math.hpp: integer operations and a polynomial), no
//   division, no square root;
// - the tail, W >= 13: |z| = T(sqrt W), T of degree 24 in sqrt(W) - 6, up to W = 72.08
//   (u = 2^-54, the smallest uniform of a 53-bit word). 32 consecutive Sobol points put
//   one point in each 1/32 of (0, 1), so a warp meets the tail for one or two of its
//   points about once in 45.
//
// Until this version the double normals took Acklam's approximation and a Halley step
// on erfc and exp (normal_quantile_lower in cunum/device/sobol.hpp), in double: about
// twice the instructions of cuRAND's fill (0.37-0.49x cuRAND on an H100, 2026-11-27).
//
// Every multiply-add is an explicit fma and every other product an explicit
// round-to-nearest operation, so the CPU and the GPU round alike but for the logarithm's
// reciprocal and the tail's square root (double_normal_math.hpp: the GPU refines the
// approximate instructions to within rounding). The polynomials are minimax fits in
// relative error (tests/random/oracle/fit_sobol_normal_double.py): C within 0.03 x 2^-53
// before its coefficients are rounded to double, 1.37 x 2^-53 after, Horner's rule
// included; T 0.20 and 2.4. tests/random/sobol_normal_test.cpp holds the whole function
// to the true normal.

#include <cmath>

#include "cunum/device/detail/double_normal_math.hpp"
#include "cunum/device/detail/host_device.hpp"

namespace cunum::detail::double_normal_quantile {

struct Coefficients {
  double centre[25];  // C, from the constant term up
  double tail[25];    // T, from the constant term up
};

inline constexpr Coefficients kCoefficients = {
    {0x1.f29aec2be3e76p+1, 0x1.69b3eab04ee4fp-2, -0x1.6cd293ae810d2p-10, -0x1.39a9bdc7b5790p-11,
     0x1.403765916cf6ap-15, 0x1.67c4b06a4a59cp-21, -0x1.ce9e28d8af721p-23, 0x1.e147212f7e05cp-28,
     0x1.a37bc9d239fbbp-31, -0x1.39528582cba89p-34, -0x1.8e92f4f598073p-41, 0x1.c9063c2aeb01dp-42,
     -0x1.0829e054d4acep-46, -0x1.aed370c5d0f7cp-50, 0x1.50ae2096e830cp-53, 0x1.a203f68f6a6d1p-60,
     -0x1.f6fd2f8c9df02p-61, 0x1.2a86a35c4234ep-65, 0x1.d8141232f1a7ap-69, -0x1.8cadb08a5f8f0p-72,
     0x1.d7dfa8acce0cdp-80, 0x1.e360153cf8b05p-80, -0x1.27b439bf25d28p-83, 0x1.3e3607a45c944p-88,
     -0x1.152013b5f4953p-94},
    {0x1.71b68a5cb890cp+2, 0x1.028d4257c6d13p+0, 0x1.0cdb9dd72dbfcp-11, -0x1.409f9d3b7f19ap-12,
     0x1.36eb4c9d37c47p-14, -0x1.ea15aa58fc705p-17, 0x1.5ae52b992ea42p-19, -0x1.bde560e5600a2p-22,
     0x1.e0e20d442ecebp-25, -0x1.f444b2f8ce208p-29, -0x1.87b4b16a80ed5p-30, 0x1.cd03be79bb277p-31,
     -0x1.2e454d301ef47p-32, 0x1.13c3974f8bb0bp-34, -0x1.1860bfd2306adp-37, -0x1.cd3e18da951b7p-41,
     0x1.a45db8512b855p-41, -0x1.d49643ebe7c5ap-43, 0x1.53256c563da5ep-45, -0x1.d7e9f56a7e42dp-49,
     -0x1.13339976dbe25p-49, 0x1.064a7536c7025p-50, -0x1.77e9f5eaba6a4p-54, -0x1.c0aa883984947p-56,
     0x1.3534156b3df66p-58}};

CUNUM_CONSTANT_TABLE(Coefficients, kCoefficients, coefficients)

// W at which the tail takes over, and the polynomials' shifts.
constexpr double kCentreEnd = 13.0;
constexpr double kCentreShift = 4.0;
constexpr double kTailShift = 6.0;

// |z| = |Phi^-1(u)| for a = |2u - 1| in [0, 1 - 2^-53].
CUNUM_HOST_DEVICE inline double normal_of_distance(double a) {
  const double w = normal_math::minus_two_log(fma(-a, a, 1.0));  // 1 - a^2 >= 2^-52
  if (w < kCentreEnd) {
    const double(&c)[25] = coefficients().centre;
    double p = c[24];
    const double t = normal_math::add_rn(w, -kCentreShift);
    CUNUM_UNROLL
    for (int i = 23; i >= 0; --i) p = fma(p, t, c[i]);
    return normal_math::mul_rn(normal_math::mul_rn(a, 0.5), p);
  }
  const double(&c)[25] = coefficients().tail;
  double p = c[24];
  const double r = normal_math::add_rn(normal_math::sqrt_radius(w), -kTailShift);
  CUNUM_UNROLL
  for (int i = 23; i >= 0; --i) p = fma(p, r, c[i]);
  return p;
}

}  // namespace cunum::detail::double_normal_quantile
