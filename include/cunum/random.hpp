#pragma once
/// @file
/// Random sources shared by cunum's modules: the Sobol sequences of cuRAND
/// (cunum::SobolSequence), and cunum::RandomGenerator, a host-API generator of
/// uniform and normal floats and doubles with the identical stream on the CPU and
/// the GPU backend (Philox4x32-10, MRG32k3a and cuRAND's four Sobol sequences).
/// The device-side API for callers' own kernels is `cunum/device/philox.hpp`,
/// `cunum/device/mrg32k3a.hpp` and `cunum/device/sobol.hpp`.

#include <cstdint>
#include <memory>
#include <vector>

#include "cunum/core/backend.hpp"
#include "cunum/core/enum.hpp"
#include "cunum/core/error.hpp"
#include "cunum/core/placement.hpp"
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

/// The generators of cunum::RandomGenerator, each the stream of the cuRAND host-API
/// generator named (see RandomGenerator and docs/random.md):
/// - `philox4x32_10`: Philox4x32-10 (Salmon et al., SC11), counter-based;
///   CURAND_RNG_PSEUDO_PHILOX4_32_10.
/// - `mrg32k3a`: L'Ecuyer's MRG32k3a; CURAND_RNG_PSEUDO_MRG32K3A.
/// - `sobol32`, `scrambled_sobol32`, `sobol64`, `scrambled_sobol64`: the quasi-random
///   sequences of cunum::SobolSequence; CURAND_RNG_QUASI_SOBOL32 and so on.
///
/// to_string() gives the enumerator's name; is_valid() is false for any other value.
#define CUNUM_RANDOM_GENERATOR_KINDS(X)     \
  X(philox4x32_10, "philox4x32_10")         \
  X(mrg32k3a, "mrg32k3a")                   \
  X(sobol32, "sobol32")                     \
  X(scrambled_sobol32, "scrambled_sobol32") \
  X(sobol64, "sobol64")                     \
  X(scrambled_sobol64, "scrambled_sobol64")
CUNUM_ENUM(RandomGeneratorKind, CUNUM_RANDOM_GENERATOR_KINDS)

/// True for the four Sobol kinds (quasi-random: dimensions, no seed).
bool is_quasi_random(RandomGeneratorKind kind) noexcept;

/// A host-API random generator: fills an array with uniform or normal floats or
/// doubles, on the CPU (OpenMP) or the GPU, with the same stream on both.
///
/// Stream (docs/random.md). The generator's position, offset(), is in the units of
/// cuRAND's curandSetGeneratorOffset for the kind; a fill starts there and moves it on.
///
/// Philox4x32-10: the offset is a word offset into the Philox4x32-10 stream with key
/// = `seed` (cunum/device/philox.hpp defines word k). A call consumes words:
/// - uniform float: 1 word each, x 2^-32 + 2^-33 in float, in (0, 1];
/// - uniform double: 2 words (x, y) each, (x XOR y << 21) 2^-53 + 2^-54, in (0, 1];
/// - normal float: Box-Muller on 2 uniform floats per pair of outputs;
/// - normal double: Box-Muller on 2 uniform doubles (4 words) per pair of outputs;
///   an odd `n` consumes a whole last pair and writes its first value.
///
/// MRG32k3a: raw output k of the stream of `seed` is output k / 81920 of subsequence
/// k mod 81920 (subsequences 2^76 apart, cuRAND's seeding: see
/// device::mrg32k3a_curand_seeded_state); the offset counts raw outputs. Uniforms
/// (float and double) take one output r each, r / m1 in (0, 1] (float: rounded from
/// the double). Normals are Box-Muller on two consecutive outputs of one
/// subsequence; the fill's pair q comes from subsequence (offset + q mod 81920) mod
/// 81920. A fill of u values or pairs moves the offset by 81920 (u / 81920) x (1 or
/// 2 draws a unit) + u mod 81920, as cuRAND does; so, as in cuRAND, a normal fill
/// split into two calls equals one call only when the first call's pairs are a
/// multiple of 81920, and such split calls may reuse outputs.
///
/// Sobol: a fill of n values in d = dimensions() dimensions writes n / d points from
/// point offset(), dimension k's points contiguous at [k n / d, (k + 1) n / d)
/// (cuRAND's layout); the offset counts points. Uniforms map a word as cuRAND
/// (device::sobol_uniform_float and _double), normals by the inverse normal CDF of
/// that uniform (device::sobol_normal_float, device::sobol_normal_double), one normal
/// per value.
///
/// End of the stream. The offset is a 64-bit count and a fill never wraps to the
/// stream's start. A 32-bit Sobol kind (sobol32, scrambled_sobol32) has 2^32 points
/// a dimension, 0 to 2^32 - 1, so its offset runs from 0 to 2^32: set_offset refuses
/// a larger one (naming `offset`). Every other kind's stream has at least the 2^64
/// positions a 64-bit offset counts (the 64-bit Sobol kinds exactly, Philox and
/// MRG32k3a more), and ends at the largest offset, 2^64 - 1: a fill reads positions
/// up to 2^64 - 2 and leaves the offset at 2^64 - 1 at most (the 64-bit Sobol kinds:
/// points 0 to 2^64 - 2). A fill that would read a position at or past the end is
/// refused (naming `n`): Philox counts the words above (1 to 4 a value or pair);
/// MRG32k3a the raw outputs it reads, which for a normal fill whose last round of
/// 81920 pairs is partial reach 81920 past the offset it leaves; Sobol n / d points.
/// The offset is then unchanged and nothing is written.
///
/// Determinism: the uniforms are bit-identical on the CPU and the GPU, whatever the
/// thread count or launch shape, and equal cuRAND's host generator of the kind (one
/// call of n = a + b uniforms gives the numbers of a call of a then a call of b;
/// Sobol: a and b multiples of d). Normals use the platform's log, sin, cos, exp and
/// erfc (libm or the CUDA math library), so CPU and GPU normals agree to a few ulps
/// and cuRAND's to about the same; each backend is bit-reproducible run to run.
///
/// Device memory (CUDA). The fills are cunum's own kernels: the generator makes no
/// cuRAND generator, so every device allocation it makes comes from its placement's
/// device_memory: a Sobol kind's tables (direction vectors and scrambling constants,
/// uploaded by the constructor and set_dimensions on the placement's stream, which
/// they wait for, so the tables are complete when they return) and the host-vector
/// fills' buffers. The tables are freed on the placement's stream when replaced or
/// when the generator is destroyed: fills on other streams that read them must have
/// completed by then. A copy shares its original's tables.
///
/// CUDA graphs (docs/random.md): uniform() and normal() may be captured into a CUDA
/// graph. The capture takes the offset then and moves it on, as a direct call does;
/// every replay writes the numbers of that offset again (replays do not move the
/// generator). A Sobol kind's replays read its direction tables: keep the generator
/// alive, and its dimensions unchanged, while such a graph may run.
class RandomGenerator {
 public:
  /// @param kind      the generator (a valid cunum::RandomGeneratorKind)
  /// @param seed      the 64-bit seed (ignored by the Sobol kinds)
  /// @param placement where fills run (cunum/core/placement.hpp): the backend, one
  ///                  device at most, and for CUDA the stream and the resource of its
  ///                  Sobol tables and host-vector fills ("Device memory" above)
  /// @throws Error ErrorCode::invalid_argument naming `kind`, 'placement.backend' or
  ///         'placement.devices'; ErrorCode::no_device for CUDA without a device;
  ///         ErrorCode::out_of_memory or ErrorCode::cuda_failure from a Sobol kind's
  ///         tables
  /// A Sobol kind starts in 1 dimension.
  explicit RandomGenerator(RandomGeneratorKind kind = RandomGeneratorKind::philox4x32_10, std::uint64_t seed = 0,
                           const Placement& placement = {});
  /// A copy continues the same stream from the same offset, independently of the
  /// original (the Sobol tables are shared, read-only).
  RandomGenerator(const RandomGenerator& other);
  RandomGenerator& operator=(const RandomGenerator& other);
  /// A moved-from generator is left empty: any member but assignment and the
  /// destructor then throws Error ErrorCode::invalid_argument naming `this`.
  RandomGenerator(RandomGenerator&& other) noexcept;
  RandomGenerator& operator=(RandomGenerator&& other) noexcept;
  ~RandomGenerator();

  /// Restarts the stream of `seed` at offset 0 (Sobol kinds: only the offset moves).
  void set_seed(std::uint64_t seed);
  /// Moves to position `offset` of the stream, in the kind's units (Philox: words;
  /// MRG32k3a: raw outputs; Sobol: points). Skip-ahead is O(1) for Philox and Sobol
  /// (random access) and O(log offset) matrix products a fill for MRG32k3a.
  /// @param offset  any value; 0 to 2^32 for sobol32 and scrambled_sobol32 (the end
  ///                of the stream, above: 2^32 itself admits only empty fills)
  /// @throws Error ErrorCode::invalid_argument naming `offset` past the end of a
  ///         32-bit Sobol sequence; the offset is unchanged on error
  void set_offset(std::uint64_t offset);
  /// Sets the number of dimensions of a Sobol kind (cuRAND's
  /// curandSetQuasiRandomGeneratorDimensions); keeps the offset. CUDA: uploads the
  /// new tables on the placement's stream and waits for it ("Device memory" above).
  /// @param dimensions  1 to 20,000
  /// @throws Error ErrorCode::invalid_argument naming `dimensions`: out of range, or
  ///         the kind is not a Sobol kind; ErrorCode::not_supported (CUDA) when the
  ///         placement's stream is being captured into a CUDA graph (the upload waits);
  ///         the generator is unchanged on error
  void set_dimensions(int dimensions);
  /// @return the seed
  std::uint64_t seed() const;
  /// @return the next position of the stream a fill will consume (see set_offset)
  std::uint64_t offset() const;
  /// @return the Sobol dimensions (1 for the pseudo-random kinds)
  int dimensions() const;
  /// @return the resolved backend (cpu or cuda)
  Backend backend() const;
  /// @return the resolved placement (see Placement)
  const Placement& placement() const;
  /// @return the generator
  RandomGeneratorKind kind() const;

  /// Fills `out` with `n` uniform values in (0, 1].
  /// @param n       number of values, >= 0
  /// @param out     `n` values in memory the backend can write (CUDA: device-accessible)
  /// @param stream  CUDA backend: asynchronous on it; CPU backend: ignored
  /// @throws Error ErrorCode::invalid_argument naming `n` (negative, not a multiple
  ///         of dimensions() for a Sobol kind, or reading past the end of the stream
  ///         from the offset: 2^64 - 1 positions, 2^32 points a dimension for the
  ///         32-bit Sobol kinds; see "End of the stream" above) or `out`; nothing is
  ///         written and the offset is unchanged on error
  /// CUDA graphs: captures (one kernel); every replay writes the numbers of the offset
  /// at the capture.
  template <class T>
  void uniform(std::int64_t n, T* out, StreamHandle stream = nullptr);

  /// Fills `out` with `n` normal values of mean `mean` and standard deviation
  /// `stddev` (mean + stddev z, z standard normal: Box-Muller for the pseudo-random
  /// kinds, the inverse normal CDF for Sobol).
  /// @param n       number of values, >= 0
  /// @param out     `n` values in memory the backend can write
  /// @param mean    finite
  /// @param stddev  finite, >= 0
  /// @param stream  CUDA backend: asynchronous on it; CPU backend: ignored
  /// @throws Error ErrorCode::invalid_argument naming `n` (as uniform()), `out`,
  ///         `mean` or `stddev`; nothing is written and the offset is unchanged on error
  /// CUDA graphs: as uniform().
  template <class T>
  void normal(std::int64_t n, T* out, T mean, T stddev, StreamHandle stream = nullptr);

  /// uniform() into a host vector (CUDA: filled on the placement's stream into a buffer
  /// from its device_memory and copied back; returns when done).
  /// @throws Error as uniform(), and ErrorCode::out_of_memory "needs N bytes", before
  ///         anything is allocated, when n values exceed the machine's physical memory
  ///         (or, CUDA, the device's total memory); ErrorCode::not_supported (CUDA) when
  ///         the placement's stream is being captured into a CUDA graph (it waits)
  template <class T>
  std::vector<T> uniform(std::int64_t n);
  /// normal() into a host vector (CUDA: as the host-vector uniform()).
  /// @throws Error as normal(), and ErrorCode::out_of_memory as the host uniform()
  template <class T>
  std::vector<T> normal(std::int64_t n, T mean, T stddev);

 private:
  // The validated state (kind, seed, offset, dimensions) and the backend object made
  // at construction (src/random/random.cpp); null once moved from.
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cunum
