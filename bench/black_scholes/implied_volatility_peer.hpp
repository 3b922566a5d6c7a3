#pragma once
// The implied-volatility kernel with the options dealt through a warp queue
// (cunum/device/divergence.cuh) instead of one option per thread, as the comparison
// line of the implied-volatility rows: the same solver, only the assignment of options
// to threads differs (docs/divergence.md).

#include "cunum/core/stream.hpp"
#include "src/black_scholes/black_scholes_backends.hpp"

namespace cunum::bench::black_scholes {

// Enqueues the kernel on `stream` for validated arguments; checks the launch.
template <class T>
void implied_volatility_warp_queue(const detail::ImpliedVolArgs<T>& args, int multiprocessor_count,
                                   StreamHandle stream);

}  // namespace cunum::bench::black_scholes
