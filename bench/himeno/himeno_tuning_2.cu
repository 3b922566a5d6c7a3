// The tuning sweep at two sweeps a pass (himeno_tuning.hpp).

#include "himeno_tuning.hpp"
#include "himeno_tuning_common.cuh"

namespace cunum::bench {

template <class T>
void himeno_tuning_two_sweeps(const BenchOptions& options, BenchReport& report, FailureLog& failures, StreamHandle stream) {
  HimenoPeer<T> port(HimenoPeerDesign::two_kernel_port, himeno_grid(HimenoSize::l), stream);
  const double port_gosa = port.iterate(kTuningSweepsPerCall, stream);
  using detail::HimenoSweepPolicy;
  tuning_row<T, HimenoSweepPolicy<2, 8, 64, 256, 4, 2>>(options, report, failures, stream, port, port_gosa);
  tuning_row<T, HimenoSweepPolicy<2, 16, 64, 256, 2, 3>>(options, report, failures, stream, port, port_gosa);
  tuning_row<T, HimenoSweepPolicy<2, 16, 64, 256, 3, 2>>(options, report, failures, stream, port, port_gosa);
  tuning_row<T, HimenoSweepPolicy<2, 8, 64, 256, 3, 3>>(options, report, failures, stream, port, port_gosa);
  tuning_row<T, HimenoSweepPolicy<2, 16, 32, 256, 4, 2>>(options, report, failures, stream, port, port_gosa);
  tuning_row<T, HimenoSweepPolicy<2, 8, 64, 128, 8, 2>>(options, report, failures, stream, port, port_gosa);
}

template void himeno_tuning_two_sweeps<float>(const BenchOptions&, BenchReport&, FailureLog&, StreamHandle);
template void himeno_tuning_two_sweeps<double>(const BenchOptions&, BenchReport&, FailureLog&, StreamHandle);

}  // namespace cunum::bench
