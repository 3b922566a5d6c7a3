#pragma once
// Internal: the launchers of cunum::RandomGenerator's CUDA fills
// (kernels/random/random.cu), called by the CUDA backend (src/random/random_cuda.cpp).
// Plain C++. Device-accessible pointers, asynchronous on `stream`; `arch` (compute
// capability x 100) picks the policy (src/random/random_policy.hpp). A fill of no
// values launches nothing.

#include <cstdint>

#include "cunum/core/stream.hpp"
#include "src/random/random_fill.hpp"

namespace cunum::detail {

// Philox4x32-10: one thread per Philox block of the fill in a grid-stride loop sized
// from the multiprocessor count.
template <class T>
void launch_philox_fill(const RandomFillArgs<T>& args, int arch, int multiprocessor_count, StreamHandle stream);

// MRG32k3a: one thread per lane from its own start.
template <class T>
void launch_mrg_fill(const MrgFillArgs<T>& args, int arch, StreamHandle stream);

// Sobol: a 2-D grid, y the dimension, each warp a run of the dimension's groups of
// points, each lane one group in 32 of it; args.tables in device memory.
template <class T, class Word>
void launch_sobol_fill(const SobolFillArgs<T, Word>& args, int arch, int multiprocessor_count,
                       StreamHandle stream);

}  // namespace cunum::detail
