#pragma once
// Shared test helpers: loud GPU skips, error assertions and fresh random inputs.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "cunum/core/device.hpp"
#include "cunum/core/error.hpp"

// A GPU test on a machine without a device skips with the reason; it never passes.
#define CUNUM_REQUIRE_GPU()                                                              \
  do {                                                                                   \
    if (::cunum::device_count() == 0) {                                                  \
      GTEST_SKIP() << "SKIPPED: no CUDA device on this machine; this GPU test proves "   \
                      "nothing here and must be run on a GPU (scripts/device-check)";    \
    }                                                                                    \
  } while (0)

// Expects `statement` to throw cunum::Error with `expected_code` and a message
// containing `fragment` (the argument's name, say).
#define EXPECT_CUNUM_ERROR(statement, expected_code, fragment)                           \
  do {                                                                                   \
    try {                                                                                \
      statement;                                                                         \
      ADD_FAILURE() << "expected cunum::Error from: " #statement;                        \
    } catch (const ::cunum::Error& error) {                                              \
      EXPECT_EQ(error.code(), expected_code) << error.what();                            \
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos)             \
          << "message does not name '" << fragment << "': " << error.what();             \
    }                                                                                    \
  } while (0)

namespace cunum::testing {

// A fresh seed per test run (std::random_device), printed so that a failure can be replayed.
inline std::uint64_t fresh_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
    std::printf("[ cunum    ] random seed %llu\n", static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

// Random values of T: floats in [-1, 1), integers in [-1000, 1000].
template <class T>
std::vector<T> random_vector(std::size_t n, std::uint64_t stream_id) {
  std::mt19937_64 engine(fresh_seed() ^ (stream_id * 0x9E3779B97F4A7C15ull));
  std::vector<T> values(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> distribution(T(-1), T(1));
    for (auto& v : values) v = distribution(engine);
  } else {
    std::uniform_int_distribution<long long> distribution(-1000, 1000);
    for (auto& v : values) v = static_cast<T>(distribution(engine));
  }
  return values;
}

// Sizes that catch indexing and tail bugs: 1, primes, around block and vector multiples.
inline std::vector<std::int64_t> awkward_sizes() {
  return {1, 2, 3, 5, 7, 31, 33, 127, 255, 256, 257, 1000, 1021, 4093, 65537, 262147, 1048573,
          4194304 + 3};
}

}  // namespace cunum::testing
