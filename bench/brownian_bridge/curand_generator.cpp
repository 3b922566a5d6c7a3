#include "curand_generator.hpp"

#include "src/core/instantiate.hpp"

namespace cunum::bench {

template <class T>
std::vector<T> philox_normals(std::size_t count, unsigned long long seed, const Stream* stream) {
  // cuRAND's pseudo-random normals come in Box-Muller pairs: it takes even counts only.
  const std::size_t even_count = count + count % 2;
  std::vector<T> host(even_count);
  if (stream != nullptr) {
    CurandGenerator generator = CurandGenerator::on_device(CURAND_RNG_PSEUDO_PHILOX4_32_10, *stream);
    generator.set_seed(seed);
    DeviceBuffer<T> device(even_count, *stream);
    generator.normals(device.data(), even_count);
    device.copy_to_host(host.data(), even_count);
  } else {
    CurandGenerator generator = CurandGenerator::on_host(CURAND_RNG_PSEUDO_PHILOX4_32_10);
    generator.set_seed(seed);
    generator.normals(host.data(), even_count);
  }
  host.resize(count);
  return host;
}

#define CUNUM_INSTANTIATE_PHILOX_NORMALS(T) \
  template std::vector<T> philox_normals(std::size_t, unsigned long long, const Stream*);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_PHILOX_NORMALS, CUNUM_REAL_TYPES)

}  // namespace cunum::bench
