#pragma once
// The stream of cunum::RandomGenerator written element by element from the word
// definition (cunum/device/philox.hpp), independent of the backends' block logic.

#include <cmath>
#include <cstdint>
#include <vector>

#include "cunum/device/philox.hpp"

namespace cunum::testing {

inline std::uint32_t stream_word(std::uint64_t seed, std::uint64_t index) {
  return device::generator_word(seed, index);
}

template <class T>
T reference_uniform_at(std::uint64_t seed, std::uint64_t word) {
  if constexpr (sizeof(T) == sizeof(float)) {
    return device::uniform_float(stream_word(seed, word));
  } else {
    return device::uniform_double(stream_word(seed, word), stream_word(seed, word + 1));
  }
}

// n uniforms from word `offset`.
template <class T>
std::vector<T> reference_uniforms(std::uint64_t seed, std::uint64_t offset, std::int64_t n) {
  const std::uint64_t per_value = sizeof(T) == sizeof(float) ? 1 : 2;
  std::vector<T> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) values[i] = reference_uniform_at<T>(seed, offset + per_value * i);
  return values;
}

// n normals from word `offset`: Box-Muller on consecutive pairs of uniforms, each
// written as mean + stddev z rounded once (one fma).
template <class T>
std::vector<T> reference_normals(std::uint64_t seed, std::uint64_t offset, std::int64_t n, T mean, T stddev) {
  const std::uint64_t per_uniform = sizeof(T) == sizeof(float) ? 1 : 2;
  std::vector<T> values(static_cast<std::size_t>(n));
  for (std::int64_t pair = 0; 2 * pair < n; ++pair) {
    const std::uint64_t word = offset + 2 * per_uniform * pair;
    T z[2];
    device::box_muller(reference_uniform_at<T>(seed, word), reference_uniform_at<T>(seed, word + per_uniform), z);
    values[2 * pair] = std::fma(stddev, z[0], mean);
    if (2 * pair + 1 < n) values[2 * pair + 1] = std::fma(stddev, z[1], mean);
  }
  return values;
}

}  // namespace cunum::testing
