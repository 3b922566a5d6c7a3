// The Himeno CUDA backend with the library's policies (himeno_cuda.cuh).

#include "kernels/himeno/himeno_cuda.cuh"

namespace cunum::detail {

template <class T>
std::unique_ptr<HimenoBackend<T>> make_himeno_cuda(const HimenoBox& box, const HimenoFieldSource<T>& source,
                                                   double omega, StreamHandle stream) {
  return std::make_unique<HimenoCuda<T, HimenoPolicies<T>>>(box, source, omega, stream);
}

template std::unique_ptr<HimenoBackend<float>> make_himeno_cuda(const HimenoBox&, const HimenoFieldSource<float>&,
                                                                double, StreamHandle);
template std::unique_ptr<HimenoBackend<double>> make_himeno_cuda(const HimenoBox&, const HimenoFieldSource<double>&,
                                                                 double, StreamHandle);

}  // namespace cunum::detail
