#include "brownian_bridge/sobol_sequence.hpp"

#include "core/curand_check.hpp"

namespace cunum::detail {

curandRngType_t curand_rng_type(SobolSequence sequence) noexcept {
  switch (sequence) {
    case SobolSequence::sobol32: return CURAND_RNG_QUASI_SOBOL32;
    case SobolSequence::scrambled_sobol32: return CURAND_RNG_QUASI_SCRAMBLED_SOBOL32;
    case SobolSequence::sobol64: return CURAND_RNG_QUASI_SOBOL64;
    case SobolSequence::scrambled_sobol64: return CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;
  }
  return CURAND_RNG_QUASI_SCRAMBLED_SOBOL32;
}

bool is_scrambled(SobolSequence sequence) noexcept {
  return sequence == SobolSequence::scrambled_sobol32 || sequence == SobolSequence::scrambled_sobol64;
}

template <>
SobolTables<std::uint32_t> sobol_tables(SobolSequence sequence, std::int64_t dimensions) {
  constexpr int bits = 32;
  curandDirectionVectors32_t* vectors = nullptr;
  CUNUM_CURAND_CHECK(curandGetDirectionVectors32(
      &vectors, is_scrambled(sequence) ? CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6
                                       : CURAND_DIRECTION_VECTORS_32_JOEKUO6));
  SobolTables<std::uint32_t> tables;
  tables.direction_vectors.assign(&vectors[0][0], &vectors[0][0] + dimensions * bits);
  tables.scramble.assign(static_cast<std::size_t>(dimensions), 0u);
  if (is_scrambled(sequence)) {
    unsigned int* constants = nullptr;
    CUNUM_CURAND_CHECK(curandGetScrambleConstants32(&constants));
    tables.scramble.assign(constants, constants + dimensions);
  }
  return tables;
}

template <>
SobolTables<std::uint64_t> sobol_tables(SobolSequence sequence, std::int64_t dimensions) {
  constexpr int bits = 64;
  curandDirectionVectors64_t* vectors = nullptr;
  CUNUM_CURAND_CHECK(curandGetDirectionVectors64(
      &vectors, is_scrambled(sequence) ? CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6
                                       : CURAND_DIRECTION_VECTORS_64_JOEKUO6));
  SobolTables<std::uint64_t> tables;
  tables.direction_vectors.assign(&vectors[0][0], &vectors[0][0] + dimensions * bits);
  tables.scramble.assign(static_cast<std::size_t>(dimensions), 0u);
  if (is_scrambled(sequence)) {
    unsigned long long* constants = nullptr;
    CUNUM_CURAND_CHECK(curandGetScrambleConstants64(&constants));
    tables.scramble.assign(constants, constants + dimensions);
  }
  return tables;
}

}  // namespace cunum::detail
