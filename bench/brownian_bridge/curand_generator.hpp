#pragma once
// cuRAND for the bridge bench, every call checked (cunum::Error on failure): the
// Philox normals that drive the bridge, and the Sobol generator of the two-step
// quasi-random route that the fused kernel is measured against.

#include <curand.h>

#include <cstddef>
#include <vector>

#include "cunum/brownian_bridge.hpp"
#include "cunum/core.hpp"

namespace cunum::bench {

// Owns one cuRAND generator. Movable, not copyable.
class CurandGenerator {
 public:
  // A device generator whose work is enqueued on `stream`.
  static CurandGenerator on_device(curandRngType_t type, StreamHandle stream);
  // cuRAND's host generator: needs no device.
  static CurandGenerator on_host(curandRngType_t type);
  ~CurandGenerator();
  CurandGenerator(CurandGenerator&& other) noexcept;
  CurandGenerator& operator=(CurandGenerator&& other) noexcept;
  CurandGenerator(const CurandGenerator&) = delete;
  CurandGenerator& operator=(const CurandGenerator&) = delete;

  void set_seed(unsigned long long seed);
  void set_quasi_dimensions(unsigned dimensions);
  void set_offset(unsigned long long offset);
  // `count` standard normals (mean 0, standard deviation 1) into memory of the
  // generator's side. A quasi generator moves on by count / dimensions points.
  void normals(float* data, std::size_t count);
  void normals(double* data, std::size_t count);

 private:
  explicit CurandGenerator(curandGenerator_t generator) noexcept : generator_(generator) {}
  curandGenerator_t generator_ = nullptr;
};

// `count` standard normals from Philox with `seed`: drawn on the device and copied
// back when `stream` is given, by cuRAND's host generator otherwise.
template <class T>
std::vector<T> philox_normals(std::size_t count, unsigned long long seed, const Stream* stream);

// The device generator of the two-step route: `sequence` in `dimensions`
// dimensions, starting at point `offset`, on `stream`.
CurandGenerator sobol_generator(SobolSequence sequence, unsigned dimensions, unsigned long long offset,
                                StreamHandle stream);

}  // namespace cunum::bench
