#pragma once
/// @file
/// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, SC11) as `__host__ __device__`
/// functions: the one implementation behind cunum::RandomGenerator's CPU backend and
/// its CUDA kernels, and the device-side API for callers' own kernels.
///
/// Without nvcc the functions are plain host functions, so this header also compiles
/// with g++; in a `.cu` file compiled by nvcc they are callable from device code.
///
/// Stream definition (the convention of cuRAND's device API `curand_init(seed,
/// subsequence, offset, &state)`): key = (low, high 32 bits of `seed`); the block
/// with counter (c0, c1, c2, c3) = (low, high 32 bits of a 64-bit block index b,
/// low, high 32 bits of `subsequence`) yields 4 words, and word k of the stream is
/// word (k mod 4) of block b = k / 4. `offset` skips that many words.

#include <cstdint>

#include "cunum/device/detail/wide_product.hpp"

#if defined(__CUDACC__)
#define CUNUM_PHILOX_QUALIFIERS __host__ __device__ inline
#else
#define CUNUM_PHILOX_QUALIFIERS inline
#endif

namespace cunum::device {

/// Four 32-bit words: a Philox counter, a block of output, or four uniforms' sources.
struct PhiloxWords {
  std::uint32_t w[4];
};

/// The Weyl sequence that advances Philox4x32's key after each round.
constexpr std::uint32_t kPhiloxWeyl0 = 0x9E3779B9u;  // golden ratio
constexpr std::uint32_t kPhiloxWeyl1 = 0xBB67AE85u;  // sqrt(3) - 1

/// One round of the Philox4x32 block function under the round's key (key0, key1).
CUNUM_PHILOX_QUALIFIERS PhiloxWords philox_round(const PhiloxWords& counter, std::uint32_t key0, std::uint32_t key1) {
  const std::uint64_t product0 = ::cunum::detail::wide_product(0xD2511F53u, counter.w[0]);
  const std::uint64_t product1 = ::cunum::detail::wide_product(0xCD9E8D57u, counter.w[2]);
  const auto hi0 = static_cast<std::uint32_t>(product0 >> 32), lo0 = static_cast<std::uint32_t>(product0);
  const auto hi1 = static_cast<std::uint32_t>(product1 >> 32), lo1 = static_cast<std::uint32_t>(product1);
  return PhiloxWords{{hi1 ^ counter.w[1] ^ key0, lo1, hi0 ^ counter.w[3] ^ key1, lo0}};
}

/// Philox4x32 with `rounds` rounds of the block function on `counter` under the
/// 64-bit key (key0, key1). rounds = 10 is Philox4x32-10.
CUNUM_PHILOX_QUALIFIERS PhiloxWords philox4x32(PhiloxWords counter, std::uint32_t key0, std::uint32_t key1,
                                               int rounds = 10) {
  for (int round = 0; round < rounds; ++round) {
    counter = philox_round(counter, key0, key1);
    key0 += kPhiloxWeyl0;
    key1 += kPhiloxWeyl1;
  }
  return counter;
}

/// The ten round keys of Philox4x32-10 under `seed`'s key (low, high 32 bits): formed
/// once where many blocks share a seed, so that a block costs its rounds only (a fill's
/// kernel reads them from its parameters).
struct PhiloxRoundKeys {
  std::uint32_t key[10][2];
};

CUNUM_PHILOX_QUALIFIERS PhiloxRoundKeys philox_round_keys(std::uint64_t seed) {
  PhiloxRoundKeys keys{};
  std::uint32_t key0 = static_cast<std::uint32_t>(seed), key1 = static_cast<std::uint32_t>(seed >> 32);
  for (auto& round : keys.key) {
    round[0] = key0;
    round[1] = key1;
    key0 += kPhiloxWeyl0;
    key1 += kPhiloxWeyl1;
  }
  return keys;
}

/// Philox4x32-10 on `counter` under precomputed round keys: philox4x32(counter, low,
/// high 32 bits of the seed).
CUNUM_PHILOX_QUALIFIERS PhiloxWords philox4x32_10(PhiloxWords counter, const PhiloxRoundKeys& keys) {
  for (const auto& round : keys.key) counter = philox_round(counter, round[0], round[1]);
  return counter;
}

/// A position in a Philox4x32-10 stream: (seed, subsequence, word offset).
struct PhiloxState {
  std::uint64_t seed;
  std::uint64_t subsequence;
  std::uint64_t offset;  ///< next word of the stream
};

/// The state at word `offset` of subsequence `subsequence` under `seed` (see the file
/// comment); O(1), no skip-ahead loop.
CUNUM_PHILOX_QUALIFIERS PhiloxState philox_state(std::uint64_t seed, std::uint64_t subsequence, std::uint64_t offset) {
  return PhiloxState{seed, subsequence, offset};
}

/// The 4-word block with 64-bit index `block` of the state's subsequence.
CUNUM_PHILOX_QUALIFIERS PhiloxWords philox_block(const PhiloxState& state, std::uint64_t block) {
  const PhiloxWords counter{{static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32),
                             static_cast<std::uint32_t>(state.subsequence),
                             static_cast<std::uint32_t>(state.subsequence >> 32)}};
  return philox4x32(counter, static_cast<std::uint32_t>(state.seed), static_cast<std::uint32_t>(state.seed >> 32));
}

/// Word `index` of the state's subsequence (absolute, not relative to the offset).
CUNUM_PHILOX_QUALIFIERS std::uint32_t philox_word(const PhiloxState& state, std::uint64_t index) {
  return philox_block(state, index / 4).w[index % 4];
}

/// The number of subsequences the generator stream interleaves.
constexpr std::uint64_t kGeneratorSubsequences = 65536;

/// Block `block` of the stream of cunum::RandomGenerator: block block / 65536 of
/// subsequence block mod 65536. This is the order of cuRAND's host API for
/// CURAND_RNG_PSEUDO_PHILOX4_32_10 (curandGenerate and its float uniform and normal
/// fills), as measured against it on an H100: 65536 interleaved subsequences, an
/// offset of w words starting at block w / 4.
CUNUM_PHILOX_QUALIFIERS PhiloxWords generator_block(const PhiloxRoundKeys& keys, std::uint64_t block) {
  const std::uint64_t counter = block / kGeneratorSubsequences, subsequence = block % kGeneratorSubsequences;
  return philox4x32_10(PhiloxWords{{static_cast<std::uint32_t>(counter), static_cast<std::uint32_t>(counter >> 32),
                                    static_cast<std::uint32_t>(subsequence), 0u}},
                       keys);
}

/// generator_block with the round keys of `seed`.
CUNUM_PHILOX_QUALIFIERS PhiloxWords generator_block(std::uint64_t seed, std::uint64_t block) {
  return generator_block(philox_round_keys(seed), block);
}

/// Word `word` of the stream of cunum::RandomGenerator (see generator_block).
CUNUM_PHILOX_QUALIFIERS std::uint32_t generator_word(std::uint64_t seed, std::uint64_t word) {
  return generator_block(seed, word / 4).w[word % 4];
}

/// The next 4 words, advancing the state by 4 (one block when the offset is a
/// multiple of 4, else the words straddle two blocks, as in cuRAND).
CUNUM_PHILOX_QUALIFIERS PhiloxWords next4(PhiloxState& state) {
  PhiloxWords out;
  if (state.offset % 4 == 0) {
    out = philox_block(state, state.offset / 4);
  } else {
    for (int k = 0; k < 4; ++k) out.w[k] = philox_word(state, state.offset + static_cast<std::uint64_t>(k));
  }
  state.offset += 4;
  return out;
}

/// A word as a float in (0, 1]: x 2^-32 + 2^-33 rounded to float (cuRAND's
/// curand_uniform: the same rounding steps, so the same bits).
CUNUM_PHILOX_QUALIFIERS float uniform_float(std::uint32_t word) {
  return static_cast<float>(word) * 2.3283064365386963e-10f + 1.1641532182693481e-10f;
}

/// Two words as a double in (0, 1] with 53 random bits: z = x XOR (y << 21),
/// z 2^-53 + 2^-54 (cuRAND's curand_uniform2_double pairing).
CUNUM_PHILOX_QUALIFIERS double uniform_double(std::uint32_t x, std::uint32_t y) {
  const std::uint64_t z = static_cast<std::uint64_t>(x) ^ (static_cast<std::uint64_t>(y) << 21);
  return static_cast<double>(z) * 1.1102230246251565e-16 + 5.5511151231257827e-17;
}

/// The next 4 uniform floats in (0, 1].
CUNUM_PHILOX_QUALIFIERS void uniform4(PhiloxState& state, float out[4]) {
  const PhiloxWords words = next4(state);
  for (int k = 0; k < 4; ++k) out[k] = uniform_float(words.w[k]);
}

/// The next 2 uniform doubles in (0, 1] (4 words).
CUNUM_PHILOX_QUALIFIERS void uniform2_double(PhiloxState& state, double out[2]) {
  const PhiloxWords words = next4(state);
  out[0] = uniform_double(words.w[0], words.w[1]);
  out[1] = uniform_double(words.w[2], words.w[3]);
}

}  // namespace cunum::device

#include <cmath>

#include "cunum/device/detail/double_normal_math.hpp"
#include "cunum/device/detail/float_normal_math.hpp"

namespace cunum::device {

#if !defined(__CUDA_ARCH__)
/// The host's sin(pi x) and cos(pi x), x in [0, 2]: x less its nearest half-integer
/// q / 2 (exact), a quarter turn at most, through libm's sine and cosine, then turned
/// by q quarters; so the result is within an ulp or two of the exact values, as the
/// device's sincos_two_pi is, even where they are near zero.
inline void host_sincospi(double x, double& sine, double& cosine) {
  const double quarters = std::nearbyint(2.0 * x);
  const double angle = 3.141592653589793 * (x - 0.5 * quarters);
  const double s = std::sin(angle), c = std::cos(angle);
  switch (static_cast<int>(quarters) & 3) {
    case 0: sine = s; cosine = c; break;
    case 1: sine = c; cosine = -s; break;
    case 2: sine = -s; cosine = -c; break;
    default: sine = -c; cosine = s; break;
  }
}
#endif

/// Box-Muller on one pair of uniforms u1, u2 in (0, 1] (u1 a normal float, as every
/// uniform float of this header and of cunum/device/mrg32k3a.hpp is): r = sqrt(-2 ln u1),
/// (r sin(2 pi u2), r cos(2 pi u2)), two independent standard normals. The logarithm and
/// the sine and cosine (the angle exact: no rounded 2 pi u2) are the branch-free
/// functions of cunum/device/detail/float_normal_math.hpp, the square root IEEE's, every
/// operation rounded alike on the host and the device: the same bits on both, within a
/// few ulps of the exact values (2.50 measured over 2 x 10^7 pairs; docs/random.md).
CUNUM_PHILOX_QUALIFIERS void box_muller(float u1, float u2, float out[2]) {
  namespace math = ::cunum::detail::float_normal_math;
  const float radius = ::sqrtf(math::minus_two_log(u1));
  float sine, cosine;
  math::sincos_two_pi(u2, sine, cosine);
  out[0] = math::mul_rn(radius, sine);
  out[1] = math::mul_rn(radius, cosine);
}

/// Box-Muller in double (see the float overload), u1 in [2^-54, 1] (every uniform double
/// of this header and of cunum/device/mrg32k3a.hpp). On the device the logarithm, the
/// square root and the sine and cosine of 2 pi u2 are the branch-free functions of
/// cunum/device/detail/double_normal_math.hpp (written for these uniforms, within an
/// ulp of the exact values; fewer instructions than the CUDA math library's, which
/// cover every double); on the host libm's, faster there. The two agree to a few ulps.
CUNUM_PHILOX_QUALIFIERS void box_muller(double u1, double u2, double out[2]) {
#if defined(__CUDA_ARCH__)
  namespace math = ::cunum::detail::normal_math;
  const double radius = math::sqrt_radius(math::minus_two_log(u1));
  double sine, cosine;
  math::sincos_two_pi(u2, sine, cosine);
#else
  const double radius = ::sqrt(-2.0 * ::log(u1));
  double sine, cosine;
  host_sincospi(2.0 * u2, sine, cosine);
#endif
  out[0] = radius * sine;
  out[1] = radius * cosine;
}

/// The next 2 standard normal floats (Box-Muller on words 0 and 1 of the next 4;
/// words 2 and 3 are consumed too, so that a stream of normal2 calls stays aligned
/// on blocks: use normal4 to use them).
CUNUM_PHILOX_QUALIFIERS void normal2(PhiloxState& state, float out[2]) {
  const PhiloxWords words = next4(state);
  box_muller(uniform_float(words.w[0]), uniform_float(words.w[1]), out);
}

/// The next 4 standard normal floats: Box-Muller on words (0, 1) and (2, 3).
CUNUM_PHILOX_QUALIFIERS void normal4(PhiloxState& state, float out[4]) {
  const PhiloxWords words = next4(state);
  box_muller(uniform_float(words.w[0]), uniform_float(words.w[1]), out);
  box_muller(uniform_float(words.w[2]), uniform_float(words.w[3]), out + 2);
}

/// The next 2 standard normal doubles: Box-Muller on the 2 uniform doubles of the
/// next 4 words.
CUNUM_PHILOX_QUALIFIERS void normal2_double(PhiloxState& state, double out[2]) {
  double uniforms[2];
  uniform2_double(state, uniforms);
  box_muller(uniforms[0], uniforms[1], out);
}

}  // namespace cunum::device
