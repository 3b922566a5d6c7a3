#pragma once
// Internal: cuRAND's description of each SobolSequence, shared by the CPU route
// (host generator) and the fused kernel (direction vectors, scrambling constants).

#include <curand.h>

#include <cstdint>
#include <vector>

#include "cunum/random.hpp"

namespace cunum::detail {

curandRngType_t curand_rng_type(SobolSequence sequence) noexcept;
bool is_scrambled(SobolSequence sequence) noexcept;
// 64-bit words (sobol64, scrambled_sobol64) rather than 32-bit ones.
bool is_64_bit(SobolSequence sequence) noexcept;

// Direction vectors of dimensions [0, dimensions), `Word`-bit (32 or 64) each,
// dimension-major (dimension k's vectors at [k * bits, (k + 1) * bits)), and the
// scrambling constant of each dimension (zeros when the sequence is not scrambled).
template <class Word>
struct SobolTables {
  std::vector<Word> direction_vectors;
  std::vector<Word> scramble;
};

template <class Word>
SobolTables<Word> sobol_tables(SobolSequence sequence, std::int64_t dimensions);

}  // namespace cunum::detail
