// The tuning sweep at one sweep a pass (himeno_tuning.hpp); one file per group so that
// they compile in parallel.

#include "himeno_tuning.hpp"
#include "himeno_tuning_common.cuh"

namespace cunum::bench {

using detail::HimenoSweepPolicy;

template <class T>
void himeno_tuning_one_sweep(const BenchOptions& options, BenchReport& report, FailureLog& failures,
                             StreamHandle stream) {
  tuning_rows<T, HimenoSweepPolicy<1, 8, 64, 256, 4, 1>,
                      HimenoSweepPolicy<1, 8, 64, 256, 4, 2>,
                      HimenoSweepPolicy<1, 16, 64, 256, 3, 2>,
                      HimenoSweepPolicy<1, 8, 64, 256, 3, 2>>(options, report, failures, stream);
}

template void himeno_tuning_one_sweep<float>(const BenchOptions&, BenchReport&, FailureLog&, StreamHandle);
template void himeno_tuning_one_sweep<double>(const BenchOptions&, BenchReport&, FailureLog&, StreamHandle);

}  // namespace cunum::bench
