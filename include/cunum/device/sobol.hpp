#pragma once
/// @file
/// cuRAND's Sobol sequences as `__host__ __device__` functions: random access to a
/// point's word, Gray-code steps from a point's word to the word 2^k points on
/// (SobolStride), cuRAND's maps of a word to a uniform float or double, and the
/// inverse normal CDF behind cunum::RandomGenerator's quasi-random normals. One
/// implementation serves the CPU backend, the CUDA kernels and callers' own kernels.
///
/// Point i of dimension k is x = c_k XOR (XOR of v_k[b] over the set bits b of the
/// Gray code i ^ (i >> 1)), v_k the dimension's direction vectors (32 or 64 bits, as
/// cuRAND's curandGetDirectionVectors32/64 give them) and c_k its scrambling
/// constant (0 for an unscrambled sequence).

#include <cmath>
#include <cstdint>

#include "cunum/device/detail/double_normal_quantile.hpp"
#include "cunum/device/detail/float_normal_quantile.hpp"

#if defined(__CUDACC__)
#define CUNUM_SOBOL_QUALIFIERS __host__ __device__ inline
#else
#define CUNUM_SOBOL_QUALIFIERS inline
#endif

namespace cunum::device {

/// The word of point `index` of one dimension: `directions` are its 32 (Word =
/// uint32_t) or 64 (uint64_t) direction vectors, `scramble` its constant (0 if
/// unscrambled). Random access: one step per bit of the index, so any offset and any
/// split of a fill give the same words. `index` must be below 2^32 for 32-bit words.
template <class Word>
CUNUM_SOBOL_QUALIFIERS Word sobol_word(const Word* directions, Word scramble, std::uint64_t index) {
  Word word = scramble;
  int bit = 0;
  for (std::uint64_t gray = index ^ (index >> 1); gray != 0; gray >>= 1, ++bit) {
    if ((gray & 1u) != 0) word ^= directions[bit];
  }
  return word;
}

/// The position of the lowest set bit of a nonzero word.
template <class Word>
CUNUM_SOBOL_QUALIFIERS int sobol_lowest_set_bit(Word word) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(Word) == sizeof(std::uint32_t)) {
    return __ffs(static_cast<int>(word)) - 1;
  } else {
    return __ffsll(static_cast<long long>(word)) - 1;
  }
#else
  if constexpr (sizeof(Word) == sizeof(std::uint32_t)) {
    return __builtin_ctz(word);
  } else {
    return __builtin_ctzll(word);
  }
#endif
}

/// Gray-code stepping of one dimension by a power-of-two stride 2^k: the word of
/// point i + 2^k is the word of point i XOR step(directions, i). With g(i) = i ^ (i
/// >> 1), adding 2^k to i clears i's run of ones from bit k up and sets the zero bit
/// m that ends it, so g(i + 2^k) ^ g(i) has exactly the bits k - 1 (for k > 0) and
/// m: two direction vectors a step, whatever the stride. k = 0 is the classic
/// one-point step. i + 2^k must be representable in Word.
template <class Word>
struct SobolStride {
  Word low_bits;   ///< 2^k - 1
  Word below;      ///< direction vector k - 1, or 0 for k = 0

  CUNUM_SOBOL_QUALIFIERS SobolStride(const Word* directions, int stride_log2)
      : low_bits(static_cast<Word>((Word{1} << stride_log2) - 1)),
        below(stride_log2 > 0 ? directions[stride_log2 - 1] : Word{0}) {}

  /// The XOR that takes point `index`'s word to point index + 2^k's.
  CUNUM_SOBOL_QUALIFIERS Word step(const Word* directions, Word index) const {
    return step_from_complement(directions, static_cast<Word>(~(index | low_bits)));
  }

  /// The same from c = ~(index | (2^k - 1)), whose lowest set bit is m. The next
  /// point's c is c - 2^k (index | (2^k - 1) grows by 2^k), so a run of points can
  /// carry c instead of the index.
  CUNUM_SOBOL_QUALIFIERS Word step_from_complement(const Word* directions, Word complement) const {
    return below ^ directions[sobol_lowest_set_bit(complement)];
  }
};

/// cuRAND's uniform float of a 32-bit word: x 2^-32 + 2^-33 rounded to float, in (0, 1].
CUNUM_SOBOL_QUALIFIERS float sobol_uniform_float(std::uint32_t word) {
  return static_cast<float>(word) * 2.3283064365386963e-10f + 1.1641532182693481e-10f;
}

/// cuRAND's uniform float of a 64-bit word: its high 32 bits as sobol_uniform_float.
CUNUM_SOBOL_QUALIFIERS float sobol_uniform_float(std::uint64_t word) {
  return sobol_uniform_float(static_cast<std::uint32_t>(word >> 32));
}

/// cuRAND's uniform double of a 32-bit word: x 2^-32 + 2^-32, in (0, 1].
CUNUM_SOBOL_QUALIFIERS double sobol_uniform_double(std::uint32_t word) {
  return static_cast<double>(word) * 2.3283064365386963e-10 + 2.3283064365386963e-10;
}

/// cuRAND's uniform double of a 64-bit word: its high 53 bits y, y 2^-53 + 2^-54.
CUNUM_SOBOL_QUALIFIERS double sobol_uniform_double(std::uint64_t word) {
  return static_cast<double>(word >> 11) * 1.1102230246251565e-16 + 5.5511151231257827e-17;
}

/// The standard normal quantile of p in (0, 0.5] by Acklam's rational approximation
/// alone: relative error below 1.2e-9, far inside a float's rounding.
CUNUM_SOBOL_QUALIFIERS double normal_quantile_lower_approximate(double p) {
  constexpr double a[6] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                           1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  constexpr double b[5] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                           6.680131188771972e+01,  -1.328068155288572e+01};
  constexpr double c[6] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                           -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  constexpr double d[4] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                           3.754408661907416e+00};
  double x;
  if (p < 0.02425) {
    const double q = ::sqrt(-2.0 * ::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
  }
  return x;
}

/// The standard normal quantile of p in (0, 0.5]: Acklam's approximation refined by
/// one Halley step on erfc, which leaves about double precision (for p <= 0.5, where
/// erfc has no cancellation: mirror the upper half). Any p; the Sobol fills take the
/// cheaper sobol_normal and sobol_normal_double, whose uniforms are known exactly.
CUNUM_SOBOL_QUALIFIERS double normal_quantile_lower(double p) {
  const double x = normal_quantile_lower_approximate(p);
  // Halley on Phi(x) - p with Phi(x) = erfc(-x / sqrt 2) / 2 and Phi' = exp(-x^2 / 2) / sqrt(2 pi).
  const double error = 0.5 * ::erfc(-x * 0.70710678118654752) - p;
  const double step = error * 2.5066282746310002 * ::exp(0.5 * x * x);
  return x - step / (1.0 + 0.5 * x * step);
}

/// cuRAND's quasi-random normal of a 32-bit word, in double: z = Phi^-1(u) for
/// u = (x + 1/2) 2^-32, from a = |2u - 1| = |2x + 1 - 2^32| 2^-32, exact
/// (detail/double_normal_quantile.hpp; a word below one half gives a negative normal).
CUNUM_SOBOL_QUALIFIERS double sobol_normal(std::uint32_t word) {
  const std::int64_t twice_offset = 2 * std::int64_t{word} + 1 - (std::int64_t{1} << 32);  // (2u - 1) 2^32
  const double z = ::cunum::detail::double_normal_quantile::normal_of_distance(
      static_cast<double>(twice_offset < 0 ? -twice_offset : twice_offset) * 0x1p-32);
  return twice_offset < 0 ? -z : z;
}

/// cuRAND's quasi-random normal of a 32-bit word for a float: z = Phi^-1(u), u = (x +
/// 1/2) 2^-32 (as sobol_normal), computed in float (a double tail for |z| > 3.4, which
/// a warp meets rarely): within 2.70 ulps of the true normal on the CPU, and by the
/// bound of the GPU's approximate lg2 instruction, its logarithm, within 3.29 there.
/// cunum/device/detail/float_normal_quantile.hpp says how.
CUNUM_SOBOL_QUALIFIERS float sobol_normal_float(std::uint32_t word) {
  namespace quantile = ::cunum::detail::float_normal_quantile;
  return quantile::normal_of_word(word, quantile::Log2Mantissa{});
}

/// cuRAND's quasi-random normal of a 64-bit word for a double: its high 53 bits y,
/// u = y 2^-53 + 2^-54, z = Phi^-1(u) from a = |2u - 1| = |2y + 1 - 2^53| 2^-53, exact.
CUNUM_SOBOL_QUALIFIERS double sobol_normal_double(std::uint64_t word) {
  const std::int64_t twice_offset = 2 * static_cast<std::int64_t>(word >> 11) + 1 - (std::int64_t{1} << 53);
  const double z = ::cunum::detail::double_normal_quantile::normal_of_distance(
      static_cast<double>(twice_offset < 0 ? -twice_offset : twice_offset) * 0x1p-53);
  return twice_offset < 0 ? -z : z;
}

}  // namespace cunum::device
