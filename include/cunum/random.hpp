#pragma once
/// @file
/// Random sources shared by cunum's modules.

#include "cunum/core/enum.hpp"

namespace cunum {

/// The Sobol quasi-random sequences of cuRAND (cunum::SobolSequence), with its
/// direction vectors for up to 20,000 dimensions (Joe and Kuo) and, for the
/// scrambled ones, its scrambling constants.
/// - `sobol32`: 32-bit direction vectors (CURAND_RNG_QUASI_SOBOL32).
/// - `scrambled_sobol32`: as sobol32, each dimension XOR-scrambled (CURAND_RNG_QUASI_SCRAMBLED_SOBOL32).
/// - `sobol64`: 64-bit direction vectors (CURAND_RNG_QUASI_SOBOL64).
/// - `scrambled_sobol64`: as sobol64, scrambled (CURAND_RNG_QUASI_SCRAMBLED_SOBOL64).
///
/// to_string() gives the enumerator's name; is_valid() is false for any other value.
#define CUNUM_SOBOL_SEQUENCES(X)                \
  X(sobol32, "sobol32")                         \
  X(scrambled_sobol32, "scrambled_sobol32")     \
  X(sobol64, "sobol64")                         \
  X(scrambled_sobol64, "scrambled_sobol64")
CUNUM_ENUM(SobolSequence, CUNUM_SOBOL_SEQUENCES)

}  // namespace cunum
