#pragma once
// The cuRAND generator type of each cunum::RandomGeneratorKind, for the tests that
// compare a kind with cuRAND's host or device generator.

#include <curand.h>

#include "cunum/random.hpp"

namespace cunum::testing {

inline curandRngType_t curand_type(RandomGeneratorKind kind) {
  switch (kind) {
    case RandomGeneratorKind::mrg32k3a: return CURAND_RNG_PSEUDO_MRG32K3A;
    case RandomGeneratorKind::sobol32: return CURAND_RNG_QUASI_SOBOL32;
    case RandomGeneratorKind::scrambled_sobol32: return CURAND_RNG_QUASI_SCRAMBLED_SOBOL32;
    case RandomGeneratorKind::sobol64: return CURAND_RNG_QUASI_SOBOL64;
    case RandomGeneratorKind::scrambled_sobol64: return CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;
    default: return CURAND_RNG_PSEUDO_PHILOX4_32_10;
  }
}

}  // namespace cunum::testing
