#pragma once
/// @file
/// Random sources shared by cunum's modules.

#include "cunum/core/enum.hpp"

namespace cunum {

/// The Sobol sequences of cuRAND: its direction vectors for up to 20,000
/// dimensions (Joe and Kuo), and for the scrambled ones its scrambling constants.
#define CUNUM_SOBOL_SEQUENCES(X)                \
  X(sobol32, "sobol32")                         \
  X(scrambled_sobol32, "scrambled_sobol32")     \
  X(sobol64, "sobol64")                         \
  X(scrambled_sobol64, "scrambled_sobol64")
CUNUM_ENUM(SobolSequence, CUNUM_SOBOL_SEQUENCES)

}  // namespace cunum
