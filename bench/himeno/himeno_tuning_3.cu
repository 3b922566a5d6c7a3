// The tuning sweep at three and four sweeps a pass (himeno_tuning.hpp).

#include "himeno_tuning.hpp"
#include "himeno_tuning_common.cuh"

namespace cunum::bench {

template <class T>
void himeno_tuning_more_sweeps(const BenchOptions& options, BenchReport& report, FailureLog& failures, StreamHandle stream) {
  HimenoPeer<T> port(HimenoPeerDesign::two_kernel_port, himeno_grid(HimenoSize::l), stream);
  const double port_gosa = port.iterate(kTuningSweepsPerCall, stream);
  using detail::HimenoSweepPolicy;
  tuning_row<T, HimenoSweepPolicy<3, 8, 64, 256, 4, 2>>(options, report, failures, stream, port, port_gosa);
  tuning_row<T, HimenoSweepPolicy<3, 8, 64, 256, 3, 2>>(options, report, failures, stream, port, port_gosa);
  tuning_row<T, HimenoSweepPolicy<3, 16, 64, 256, 2, 2>>(options, report, failures, stream, port, port_gosa);
  tuning_row<T, HimenoSweepPolicy<4, 8, 64, 256, 3, 2>>(options, report, failures, stream, port, port_gosa);
  tuning_row<T, HimenoSweepPolicy<4, 16, 64, 256, 2, 2>>(options, report, failures, stream, port, port_gosa);
}

template void himeno_tuning_more_sweeps<float>(const BenchOptions&, BenchReport&, FailureLog&, StreamHandle);
template void himeno_tuning_more_sweeps<double>(const BenchOptions&, BenchReport&, FailureLog&, StreamHandle);

}  // namespace cunum::bench
