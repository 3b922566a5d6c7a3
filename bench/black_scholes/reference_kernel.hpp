#pragma once
// The reference work's Black-Scholes kernel, written again as the baseline peer of the bench:
// NVIDIA's CUDA technical training (vol. II, 2008) / SDK BlackScholes sample design,
// one thread per option in a grid-stride loop over a fixed <<<128, 256>>> grid, the
// normal CDF by the 5-term polynomial of Abramowitz and Stegun 26.2.17 (Hull), one
// rate and one volatility for the batch, no dividend, call and put written.

#include "cunum/core/stream.hpp"

namespace cunum::bench {

template <class T>
struct ReferenceBlackScholesBatch {
  T* call;
  T* put;
  const T* spot;
  const T* strike;
  const T* expiry;
  T rate;
  T volatility;
  int n;  // the reference work counts options in an int
};

// Enqueues the reference kernel on `stream`; checks the launch.
template <class T>
void reference_black_scholes(const ReferenceBlackScholesBatch<T>& batch, StreamHandle stream);

}  // namespace cunum::bench
