// The tuning sweep at two sweeps a pass (himeno_tuning.hpp); one file per group so that
// they compile in parallel.

#include "himeno_tuning.hpp"
#include "himeno_tuning_common.cuh"

namespace cunum::bench {

using detail::HimenoSweepPolicy;

template <class T>
void himeno_tuning_two_sweeps(const BenchOptions& options, BenchReport& report, FailureLog& failures,
                              StreamHandle stream) {
  tuning_rows<T, HimenoSweepPolicy<2, 8, 64, 256, 4, 2>,
                      HimenoSweepPolicy<2, 16, 64, 256, 2, 3>,
                      HimenoSweepPolicy<2, 16, 64, 256, 3, 2>,
                      HimenoSweepPolicy<2, 8, 64, 256, 3, 3>,
                      HimenoSweepPolicy<2, 16, 32, 256, 4, 2>,
                      HimenoSweepPolicy<2, 8, 64, 128, 8, 2>>(options, report, failures, stream);
}

template void himeno_tuning_two_sweeps<float>(const BenchOptions&, BenchReport&, FailureLog&, StreamHandle);
template void himeno_tuning_two_sweeps<double>(const BenchOptions&, BenchReport&, FailureLog&, StreamHandle);

}  // namespace cunum::bench
