// The tuning sweep at three and four sweeps a pass (himeno_tuning.hpp); one file per group so that
// they compile in parallel.

#include "himeno_tuning.hpp"
#include "himeno_tuning_common.cuh"

namespace cunum::bench {

using detail::HimenoSweepPolicy;

template <class T>
void himeno_tuning_more_sweeps(const BenchOptions& options, BenchReport& report, FailureLog& failures,
                               StreamHandle stream) {
  tuning_rows<T, HimenoSweepPolicy<3, 8, 64, 256, 4, 2>,
                      HimenoSweepPolicy<3, 8, 64, 256, 3, 2>,
                      HimenoSweepPolicy<3, 16, 64, 256, 2, 2>,
                      HimenoSweepPolicy<4, 8, 64, 256, 3, 2>,
                      HimenoSweepPolicy<4, 16, 64, 256, 2, 2>>(options, report, failures, stream);
}

template void himeno_tuning_more_sweeps<float>(const BenchOptions&, BenchReport&, FailureLog&, StreamHandle);
template void himeno_tuning_more_sweeps<double>(const BenchOptions&, BenchReport&, FailureLog&, StreamHandle);

}  // namespace cunum::bench
