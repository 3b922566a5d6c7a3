// The tuning sweep at one sweep a pass (himeno_tuning.hpp).

#include "himeno_tuning.hpp"
#include "himeno_tuning_common.cuh"

namespace cunum::bench {

template <class T>
void himeno_tuning_one_sweep(const BenchOptions& options, BenchReport& report, FailureLog& failures, StreamHandle stream) {
  HimenoPeer<T> port(HimenoPeerDesign::two_kernel_port, himeno_grid(HimenoSize::l), stream);
  const double port_gosa = port.iterate(kTuningSweepsPerCall, stream);
  using detail::HimenoSweepPolicy;
  tuning_row<T, HimenoSweepPolicy<1, 8, 64, 256, 4, 1>>(options, report, failures, stream, port, port_gosa);
  tuning_row<T, HimenoSweepPolicy<1, 8, 64, 256, 4, 2>>(options, report, failures, stream, port, port_gosa);
  tuning_row<T, HimenoSweepPolicy<1, 16, 64, 256, 3, 2>>(options, report, failures, stream, port, port_gosa);
  tuning_row<T, HimenoSweepPolicy<1, 8, 64, 256, 3, 2>>(options, report, failures, stream, port, port_gosa);
}

template void himeno_tuning_one_sweep<float>(const BenchOptions&, BenchReport&, FailureLog&, StreamHandle);
template void himeno_tuning_one_sweep<double>(const BenchOptions&, BenchReport&, FailureLog&, StreamHandle);

}  // namespace cunum::bench
