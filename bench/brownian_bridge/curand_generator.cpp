#include "curand_generator.hpp"

#include <utility>

#include "src/core/curand_check.hpp"

namespace cunum::bench {

CurandGenerator CurandGenerator::on_device(curandRngType_t type, StreamHandle stream) {
  curandGenerator_t handle = nullptr;
  CUNUM_CURAND_CHECK(curandCreateGenerator(&handle, type));
  CurandGenerator generator(handle);
  CUNUM_CURAND_CHECK(curandSetStream(handle, stream));
  return generator;
}

CurandGenerator CurandGenerator::on_host(curandRngType_t type) {
  curandGenerator_t handle = nullptr;
  CUNUM_CURAND_CHECK(curandCreateGeneratorHost(&handle, type));
  return CurandGenerator(handle);
}

CurandGenerator::~CurandGenerator() {
  if (generator_ != nullptr) curandDestroyGenerator(generator_);
}

CurandGenerator::CurandGenerator(CurandGenerator&& other) noexcept
    : generator_(std::exchange(other.generator_, nullptr)) {}

CurandGenerator& CurandGenerator::operator=(CurandGenerator&& other) noexcept {
  if (this != &other) {
    if (generator_ != nullptr) curandDestroyGenerator(generator_);
    generator_ = std::exchange(other.generator_, nullptr);
  }
  return *this;
}

void CurandGenerator::set_seed(unsigned long long seed) {
  CUNUM_CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(generator_, seed));
}

void CurandGenerator::set_quasi_dimensions(unsigned dimensions) {
  CUNUM_CURAND_CHECK(curandSetQuasiRandomGeneratorDimensions(generator_, dimensions));
}

void CurandGenerator::set_offset(unsigned long long offset) {
  CUNUM_CURAND_CHECK(curandSetGeneratorOffset(generator_, offset));
}

void CurandGenerator::normals(float* data, std::size_t count) {
  CUNUM_CURAND_CHECK(curandGenerateNormal(generator_, data, count, 0.0f, 1.0f));
}

void CurandGenerator::normals(double* data, std::size_t count) {
  CUNUM_CURAND_CHECK(curandGenerateNormalDouble(generator_, data, count, 0.0, 1.0));
}

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

template std::vector<float> philox_normals(std::size_t, unsigned long long, const Stream*);
template std::vector<double> philox_normals(std::size_t, unsigned long long, const Stream*);

CurandGenerator sobol_generator(SobolSequence sequence, unsigned dimensions, unsigned long long offset,
                                StreamHandle stream) {
  curandRngType_t type = CURAND_RNG_QUASI_SCRAMBLED_SOBOL32;
  switch (sequence) {
    case SobolSequence::sobol32: type = CURAND_RNG_QUASI_SOBOL32; break;
    case SobolSequence::scrambled_sobol32: type = CURAND_RNG_QUASI_SCRAMBLED_SOBOL32; break;
    case SobolSequence::sobol64: type = CURAND_RNG_QUASI_SOBOL64; break;
    case SobolSequence::scrambled_sobol64: type = CURAND_RNG_QUASI_SCRAMBLED_SOBOL64; break;
  }
  CurandGenerator generator = CurandGenerator::on_device(type, stream);
  generator.set_quasi_dimensions(dimensions);
  generator.set_offset(offset);
  return generator;
}

}  // namespace cunum::bench
