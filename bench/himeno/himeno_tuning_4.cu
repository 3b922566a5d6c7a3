// The tuning sweep's deep group (himeno_tuning.hpp): two to four sweeps a pass, the
// shipped policies beside the same tiles with the wavefront skewed by two (Lag 2: one
// barrier a step) and wider tiles, whose recomputed borders are narrower, for more
// shared memory a block. A file of its own so that it compiles in parallel.

#include <type_traits>

#include "himeno_tuning.hpp"
#include "himeno_tuning_common.cuh"

namespace cunum::bench {

using detail::HimenoSweepPolicy;

template <class T>
void himeno_tuning_deep(const BenchOptions& options, BenchReport& report, FailureLog& failures, StreamHandle stream) {
  tuning_rows<T, HimenoSweepPolicy<2, 8, 64, 256, 3, 3, 1>,
                 HimenoSweepPolicy<2, 8, 64, 256, 3, 3, 2>,
                 HimenoSweepPolicy<2, 16, 64, 256, 2, 3, 2>,
                 HimenoSweepPolicy<3, 8, 64, 256, 3, 2, 1>,
                 HimenoSweepPolicy<3, 8, 64, 256, 3, 2, 2>,
                 HimenoSweepPolicy<3, 8, 64, 256, 3, 1, 2>,
                 HimenoSweepPolicy<3, 16, 64, 256, 2, 2, 1>,
                 HimenoSweepPolicy<3, 16, 64, 256, 2, 2, 2>,
                 HimenoSweepPolicy<3, 16, 64, 512, 1, 2, 2>,
                 HimenoSweepPolicy<4, 16, 64, 256, 2, 2, 1>,
                 HimenoSweepPolicy<4, 16, 64, 256, 2, 2, 2>,
                 HimenoSweepPolicy<4, 8, 64, 256, 3, 2, 2>,
                 HimenoSweepPolicy<4, 16, 64, 256, 2, 1, 2>>(options, report, failures, stream);
  // Tiles of 32 x 64 or 16 x 128, 512 threads: up to 209 KB of rings a block in float
  // (four sweeps, 16 x 128), more than a multiprocessor holds in double.
  if constexpr (std::is_same_v<T, float>) {
    tuning_rows<T, HimenoSweepPolicy<4, 32, 64, 512, 1, 2, 2>,
                   HimenoSweepPolicy<3, 32, 64, 512, 1, 2, 2>,
                   HimenoSweepPolicy<4, 16, 128, 512, 1, 2, 2>,
                   HimenoSweepPolicy<3, 16, 128, 512, 1, 2, 2>>(options, report, failures, stream);
  }
}

template void himeno_tuning_deep<float>(const BenchOptions&, BenchReport&, FailureLog&, StreamHandle);
template void himeno_tuning_deep<double>(const BenchOptions&, BenchReport&, FailureLog&, StreamHandle);

}  // namespace cunum::bench
