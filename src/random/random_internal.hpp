#pragma once
// Internal interface of the random module to the other modules: exactly what they may
// use of random's internals, and nothing else of src/random/ is theirs to include
// (issue 28's rule: a module reaches another through its public header or through an
// internal interface the other module owns and names as such). Today the Brownian
// bridge's fused Sobol route and its CPU route use it, as do the benches and tests
// that take cuRAND as a peer:
// - cuRAND's Sobol direction vectors and scrambling constants (sobol_tables) and the
//   word size of a sequence (is_64_bit);
// - CurandGenerator, one RAII cuRAND generator, every call checked (cunum::Error on
//   failure), and sobol_generator, one set up for a SobolSequence.
// Defined in src/random/sobol_tables.cpp and src/random/curand_generator.cpp.

#include <curand.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cunum/core/stream.hpp"
#include "cunum/random.hpp"

namespace cunum::detail {

// cuRAND's direction-vector tables hold this many Sobol dimensions.
constexpr std::int64_t kMaxSobolDimensions = 20000;

// 64-bit words (sobol64, scrambled_sobol64) rather than 32-bit ones.
bool is_64_bit(SobolSequence sequence) noexcept;

// Direction vectors of dimensions [0, dimensions), `Word`-bit (32 or 64) each,
// dimension-major (dimension k's vectors at [k * bits, (k + 1) * bits)), and the
// scrambling constant of each dimension (zeros when the sequence is not scrambled):
// cuRAND's description of the sequence (Joe and Kuo).
template <class Word>
struct SobolTables {
  std::vector<Word> direction_vectors;
  std::vector<Word> scramble;
};

template <class Word>
SobolTables<Word> sobol_tables(SobolSequence sequence, std::int64_t dimensions);

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
