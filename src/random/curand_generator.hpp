#pragma once
// Internal: one RAII cuRAND generator, every call checked (cunum::Error on failure),
// for the library's host routes and the benches and tests that use cuRAND as a peer.

#include <curand.h>

#include <cstddef>

#include "cunum/core/stream.hpp"
#include "cunum/random.hpp"

namespace cunum::detail {

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

// A generator of `sequence` in `dimensions` dimensions starting at point `offset`:
// on the device, enqueued on `stream`, or cuRAND's host generator when on_host.
CurandGenerator sobol_generator(SobolSequence sequence, unsigned dimensions, unsigned long long offset,
                                StreamHandle stream, bool on_host = false);

}  // namespace cunum::detail
