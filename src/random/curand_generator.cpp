#include "src/random/random_internal.hpp"

#include <utility>

#include "src/core/check_libraries.hpp"
#include "src/random/sobol_tables.hpp"

namespace cunum::detail {

CurandGenerator CurandGenerator::on_device(curandRngType_t type, StreamHandle stream) {
  curandGenerator_t handle = nullptr;
  CUNUM_CHECK(curandCreateGenerator(&handle, type));
  CurandGenerator generator(handle);
  CUNUM_CHECK(curandSetStream(handle, stream));
  return generator;
}

CurandGenerator CurandGenerator::on_host(curandRngType_t type) {
  curandGenerator_t handle = nullptr;
  CUNUM_CHECK(curandCreateGeneratorHost(&handle, type));
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
  CUNUM_CHECK(curandSetPseudoRandomGeneratorSeed(generator_, seed));
}

void CurandGenerator::set_quasi_dimensions(unsigned dimensions) {
  CUNUM_CHECK(curandSetQuasiRandomGeneratorDimensions(generator_, dimensions));
}

void CurandGenerator::set_offset(unsigned long long offset) {
  CUNUM_CHECK(curandSetGeneratorOffset(generator_, offset));
}

void CurandGenerator::normals(float* data, std::size_t count) {
  CUNUM_CHECK(curandGenerateNormal(generator_, data, count, 0.0f, 1.0f));
}

void CurandGenerator::normals(double* data, std::size_t count) {
  CUNUM_CHECK(curandGenerateNormalDouble(generator_, data, count, 0.0, 1.0));
}

CurandGenerator sobol_generator(SobolSequence sequence, unsigned dimensions, unsigned long long offset,
                                StreamHandle stream, bool on_host) {
  CurandGenerator generator = on_host ? CurandGenerator::on_host(curand_rng_type(sequence))
                                      : CurandGenerator::on_device(curand_rng_type(sequence), stream);
  generator.set_quasi_dimensions(dimensions);
  generator.set_offset(offset);
  return generator;
}

}  // namespace cunum::detail
