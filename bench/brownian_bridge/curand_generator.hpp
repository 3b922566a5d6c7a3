#pragma once
// cuRAND for the bridge bench: the library's RAII generator (src/random), the
// Philox normals that drive the bridge, and the Sobol generator of the two-step
// quasi-random route that the fused kernel is measured against.

#include <cstddef>
#include <vector>

#include "cunum/core.hpp"
#include "src/random/random_internal.hpp"

namespace cunum::bench {

using detail::CurandGenerator;

// `count` standard normals from Philox with `seed`: drawn on the device and copied
// back when `stream` is given, by cuRAND's host generator otherwise.
template <class T>
std::vector<T> philox_normals(std::size_t count, unsigned long long seed, const Stream* stream);

// The device generator of the two-step route: `sequence` in `dimensions`
// dimensions, starting at point `offset`, on `stream`.
inline CurandGenerator sobol_generator(SobolSequence sequence, unsigned dimensions, unsigned long long offset,
                                       StreamHandle stream) {
  return detail::sobol_generator(sequence, dimensions, offset, stream);
}

}  // namespace cunum::bench
