#pragma once
// Internal to the random module: cuRAND's name and scrambling of each SobolSequence.
// What other modules may use of the Sobol tables (sobol_tables, is_64_bit) is
// declared in src/random/random_internal.hpp.

#include <curand.h>

#include "cunum/random.hpp"
#include "src/random/random_internal.hpp"

namespace cunum::detail {

curandRngType_t curand_rng_type(SobolSequence sequence) noexcept;
bool is_scrambled(SobolSequence sequence) noexcept;

}  // namespace cunum::detail
