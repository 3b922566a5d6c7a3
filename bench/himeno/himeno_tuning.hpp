#pragma once
// The bench's tuning sweep: the library's CUDA backend (src/himeno/himeno_cuda.hpp)
// run with other policies (tile, threads, resident blocks, batch, lag) at L, each against
// the two-kernel port, so that the policy the library ships is the measured best.

#include "bench_harness.hpp"

namespace cunum::bench {

// Rows "tuning: ..." at L, one per policy, the library's marked "(shipped)"; one
// sweeps-per-pass group per file (himeno_tuning_<n>.cu).
template <class T>
void himeno_tuning_one_sweep(const BenchOptions& options, BenchReport& report, FailureLog& failures,
                             StreamHandle stream);
template <class T>
void himeno_tuning_two_sweeps(const BenchOptions& options, BenchReport& report, FailureLog& failures,
                              StreamHandle stream);
template <class T>
void himeno_tuning_more_sweeps(const BenchOptions& options, BenchReport& report, FailureLog& failures,
                               StreamHandle stream);
// Section "deep": two to four sweeps a pass, the shipped policies against the
// wavefront skewed by two and wider tiles (issue 32: three and four sweeps a pass
// that pay).
template <class T>
void himeno_tuning_deep(const BenchOptions& options, BenchReport& report, FailureLog& failures, StreamHandle stream);

}  // namespace cunum::bench
