#pragma once
// The true quantile of a Sobol word's uniform in long double, and float and double ulps
// against it: the reference of the Sobol normal tests (CPU and GPU).

#include <cmath>
#include <cstdint>

#include "cunum/device/sobol.hpp"

namespace cunum::testing {

// Phi^-1(u) in long double for an exact u, from `start` (a double quantile, within a few
// ulps) and one Halley step on Phi(z) - u, Phi from erfl within a quarter of one half
// (no cancellation: u - 1/2 is exact) and from erfcl of the nearer tail beyond.
inline long double reference_normal_of_uniform(long double u, long double start) {
  const long double half_distance = u - 0.5L;  // exact
  const long double scaled = start * 0.707106781186547524400844362104849039L;
  long double error;  // Phi(start) - u
  if (std::fabs(half_distance) < 0.25L) {
    error = 0.5L * std::erf(scaled) - half_distance;
  } else if (half_distance < 0) {
    error = 0.5L * std::erfc(-scaled) - u;
  } else {
    error = (1.0L - u) - 0.5L * std::erfc(scaled);
  }
  const long double step = error * 2.506628274631000502415765284811045253L * std::exp(0.5L * start * start);
  return start - step / (1.0L + 0.5L * start * step);
}

// Phi^-1(u) for a 32-bit word's u = (word + 1/2) 2^-32, exact in long double.
inline long double reference_normal(std::uint32_t word) {
  return reference_normal_of_uniform((static_cast<long double>(word) + 0.5L) * 0x1p-32L,
                                     cunum::device::sobol_normal(word));
}

// Phi^-1(u) for a 64-bit word's u = y 2^-53 + 2^-54 (y its high 53 bits), exact in long
// double (54 bits).
inline long double reference_normal_double(std::uint64_t word) {
  return reference_normal_of_uniform(static_cast<long double>(2 * (word >> 11) + 1) * 0x1p-54L,
                                     cunum::device::sobol_normal_double(word));
}

// |value - truth| in units of the float ulp of truth's binade.
inline double float_ulps(float value, long double truth) {
  int exponent = 0;
  std::frexp(truth, &exponent);  // |truth| in [2^(exponent - 1), 2^exponent)
  return static_cast<double>(std::fabs(static_cast<long double>(value) - truth) / std::ldexp(1.0L, exponent - 24));
}

// |value - truth| in units of the double ulp of truth's binade.
inline double double_ulps(double value, long double truth) {
  int exponent = 0;
  std::frexp(truth, &exponent);
  return static_cast<double>(std::fabs(static_cast<long double>(value) - truth) / std::ldexp(1.0L, exponent - 53));
}

}  // namespace cunum::testing
