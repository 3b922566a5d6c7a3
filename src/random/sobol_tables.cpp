#include "src/random/sobol_tables.hpp"

#include "src/core/check_curand.hpp"
#include "src/core/enum_functions.hpp"

namespace cunum {

CUNUM_DEFINE_ENUM_FUNCTIONS(SobolSequence, CUNUM_SOBOL_SEQUENCES)

}  // namespace cunum

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

bool is_64_bit(SobolSequence sequence) noexcept {
  return sequence == SobolSequence::sobol64 || sequence == SobolSequence::scrambled_sobol64;
}

namespace {

// The first `dimensions` dimensions of cuRAND's tables; `constants` is null for an
// unscrambled sequence.
template <class Word, class CurandWord>
SobolTables<Word> copy_tables(const CurandWord* vectors, const CurandWord* constants, std::int64_t dimensions) {
  static_assert(sizeof(Word) == sizeof(CurandWord), "cuRAND's words and ours differ in size");
  constexpr int bits = sizeof(Word) * 8;
  SobolTables<Word> tables;
  tables.direction_vectors.assign(vectors, vectors + dimensions * bits);
  tables.scramble.assign(static_cast<std::size_t>(dimensions), Word{0});
  if (constants != nullptr) tables.scramble.assign(constants, constants + dimensions);
  return tables;
}

}  // namespace

template <>
SobolTables<std::uint32_t> sobol_tables(SobolSequence sequence, std::int64_t dimensions) {
  curandDirectionVectors32_t* vectors = nullptr;
  CUNUM_CHECK(curandGetDirectionVectors32(
      &vectors, is_scrambled(sequence) ? CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6
                                       : CURAND_DIRECTION_VECTORS_32_JOEKUO6));
  unsigned int* constants = nullptr;
  if (is_scrambled(sequence)) CUNUM_CHECK(curandGetScrambleConstants32(&constants));
  return copy_tables<std::uint32_t>(&vectors[0][0], constants, dimensions);
}

template <>
SobolTables<std::uint64_t> sobol_tables(SobolSequence sequence, std::int64_t dimensions) {
  curandDirectionVectors64_t* vectors = nullptr;
  CUNUM_CHECK(curandGetDirectionVectors64(
      &vectors, is_scrambled(sequence) ? CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6
                                       : CURAND_DIRECTION_VECTORS_64_JOEKUO6));
  unsigned long long* constants = nullptr;
  if (is_scrambled(sequence)) CUNUM_CHECK(curandGetScrambleConstants64(&constants));
  return copy_tables<std::uint64_t>(&vectors[0][0], constants, dimensions);
}

}  // namespace cunum::detail
