#pragma once
/// @file
/// Random sources shared by cunum's modules: the Sobol sequences of cuRAND
/// (cunum::SobolSequence), and cunum::RandomGenerator, a host-API generator of
/// uniform and normal floats and doubles with the identical stream on the CPU and
/// the GPU backend. The device-side API for callers' own kernels is
/// `cunum/device/philox.hpp`.

#include <cstdint>
#include <vector>

#include "cunum/core/backend.hpp"
#include "cunum/core/enum.hpp"
#include "cunum/core/stream.hpp"

namespace cunum {

/// The Sobol quasi-random sequences of cuRAND (cunum::SobolSequence), with its
/// direction vectors for up to 20,000 dimensions (Joe and Kuo) and, for the
/// scrambled ones, its scrambling constants.
/// - `sobol32`: 32-bit direction vectors (CURAND_RNG_QUASI_SOBOL32).
/// - `scrambled_sobol32`: as sobol32, each dimension XOR-scrambled (CURAND_RNG_QUASI_SCRAMBLED_SOBOL32).
/// - `sobol64`: 64-bit direction vectors (CURAND_RNG_QUASI_SOBOL64).
/// - `scrambled_sobol64`: as sobol64, scrambled (CURAND_RNG_QUASI_SCRAMBLED_SOBOL64).
///
/// to_string() gives the enumerator's name; is_valid() is false for any other value.
#define CUNUM_SOBOL_SEQUENCES(X)                \
  X(sobol32, "sobol32")                         \
  X(scrambled_sobol32, "scrambled_sobol32")     \
  X(sobol64, "sobol64")                         \
  X(scrambled_sobol64, "scrambled_sobol64")
CUNUM_ENUM(SobolSequence, CUNUM_SOBOL_SEQUENCES)

/// The pseudo-random generators of cunum::RandomGenerator.
/// - `philox4x32_10`: Philox4x32-10 (Salmon et al., SC11), counter-based; the
///   stream of cuRAND's CURAND_RNG_PSEUDO_PHILOX4_32_10 (see RandomGenerator).
///
/// to_string() gives the enumerator's name; is_valid() is false for any other value.
#define CUNUM_RANDOM_GENERATOR_KINDS(X) X(philox4x32_10, "philox4x32_10")
CUNUM_ENUM(RandomGeneratorKind, CUNUM_RANDOM_GENERATOR_KINDS)

/// A host-API pseudo-random generator: fills an array with uniform or normal
/// floats or doubles, on the CPU (OpenMP) or the GPU, with the same stream on both.
///
/// Stream (docs/random.md): the generator's position is a word offset into the
/// Philox4x32-10 stream with key = `seed` and subsequence 0 (cunum/device/philox.hpp
/// defines word k). A call consumes words from the current offset and advances it:
/// - uniform float: 1 word each, x 2^-32 + 2^-33 in float, in (0, 1];
/// - uniform double: 2 words (x, y) each, (x XOR y << 21) 2^-53 + 2^-54, in (0, 1];
/// - normal float: Box-Muller on 2 uniform floats per pair of outputs;
/// - normal double: Box-Muller on 2 uniform doubles (4 words) per pair of outputs;
///   an odd `n` consumes a whole last pair and writes its first value.
///
/// Determinism: the words and the uniforms are bit-identical on the CPU and the GPU,
/// whatever the thread count, launch shape or block split of the calls (one call of
/// n = a + b gives the numbers of a call of a followed by a call of b, when a is a
/// whole number of pairs for normals). Normals use the platform's log, sin and cos
/// (libm or the CUDA math library), so CPU and GPU normals agree to a few ulps; each
/// backend is bit-reproducible run to run.
class RandomGenerator {
 public:
  /// @param kind     the generator (a valid cunum::RandomGeneratorKind)
  /// @param seed     the 64-bit key
  /// @param backend  where fills run (automatic: the GPU when there is one)
  /// @throws Error ErrorCode::invalid_argument naming `kind` or `backend`;
  ///         ErrorCode::no_device for Backend::cuda without a device
  explicit RandomGenerator(RandomGeneratorKind kind = RandomGeneratorKind::philox4x32_10, std::uint64_t seed = 0,
                           Backend backend = Backend::automatic);

  /// Restarts the stream of `seed` at offset 0.
  void set_seed(std::uint64_t seed);
  /// Moves to word `offset` of the stream (skip-ahead is O(1): Philox is counter-based).
  void set_offset(std::uint64_t offset);
  /// @return the seed
  std::uint64_t seed() const { return seed_; }
  /// @return the next word of the stream a fill will consume
  std::uint64_t offset() const { return offset_; }
  /// @return the resolved backend (cpu or cuda)
  Backend backend() const { return backend_; }
  /// @return the generator
  RandomGeneratorKind kind() const { return kind_; }

  /// Fills `out` with `n` uniform values in (0, 1].
  /// @param n       number of values, >= 0
  /// @param out     `n` values in memory the backend can write (CUDA: device-accessible)
  /// @param stream  CUDA backend: asynchronous on it; CPU backend: ignored
  /// @throws Error ErrorCode::invalid_argument naming `n` or `out`; nothing is written
  ///         and the offset is unchanged on error
  template <class T>
  void uniform(std::int64_t n, T* out, StreamHandle stream = nullptr);

  /// Fills `out` with `n` normal values of mean `mean` and standard deviation
  /// `stddev` (mean + stddev z, z standard normal by Box-Muller).
  /// @param n       number of values, >= 0
  /// @param out     `n` values in memory the backend can write
  /// @param mean    finite
  /// @param stddev  finite, >= 0
  /// @param stream  CUDA backend: asynchronous on it; CPU backend: ignored
  /// @throws Error ErrorCode::invalid_argument naming `n`, `out`, `mean` or `stddev`
  template <class T>
  void normal(std::int64_t n, T* out, T mean, T stddev, StreamHandle stream = nullptr);

  /// uniform() into a host vector (copied through the device on the CUDA backend).
  template <class T>
  std::vector<T> uniform(std::int64_t n);
  /// normal() into a host vector (copied through the device on the CUDA backend).
  template <class T>
  std::vector<T> normal(std::int64_t n, T mean, T stddev);

 private:
  template <class T>
  void fill(std::int64_t n, T* out, bool normal, T mean, T stddev, StreamHandle stream, const char* routine);

  RandomGeneratorKind kind_;
  std::uint64_t seed_;
  std::uint64_t offset_ = 0;
  Backend backend_;
  int device_ = -1;
  int multiprocessor_count_ = 0;
};

}  // namespace cunum
