// The Himeno CUDA backend with the library's policy chains (himeno_cuda.hpp).

#include "src/himeno/himeno_cuda.hpp"

#include "src/core/instantiate.hpp"

namespace cunum::detail {

template <class T>
std::unique_ptr<HimenoBackend<T>> make_himeno_cuda(const HimenoBox& box, const HimenoFieldSource<T>& source,
                                                   double omega, StreamHandle stream,
                                                   DeviceMemoryResource* memory) {
  return std::make_unique<HimenoCuda<T, HimenoPolicies<T>>>(box, source, omega, stream, memory);
}

#define CUNUM_INSTANTIATE_MAKE_HIMENO_CUDA(T)                                                             \
  template std::unique_ptr<HimenoBackend<T>> make_himeno_cuda(const HimenoBox&, const HimenoFieldSource<T>&, \
                                                              double, StreamHandle, DeviceMemoryResource*);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MAKE_HIMENO_CUDA, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
