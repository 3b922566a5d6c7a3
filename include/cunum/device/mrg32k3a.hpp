#pragma once
/// @file
/// MRG32k3a (L'Ecuyer, Operations Research 47(1), 1999) as `__host__ __device__`
/// functions, with skip-ahead by powers of its transition matrices and substreams of
/// 2^76 outputs. cunum::MonteCarloPricer draws from it in its kernel
/// (MonteCarloSource::mrg32k3a, cunum's seeding: mrg32k3a_seeded_state);
/// cunum::RandomGenerator fills with it (RandomGeneratorKind::mrg32k3a, cuRAND's
/// seeding: mrg32k3a_curand_seeded_state), and callers' kernels may draw cuRAND's
/// device-API stream with mrg32k3a_curand_state and mrg32k3a_next.
///
/// Recurrences: x1[n] = (1403580 x1[n-2] - 810728 x1[n-3]) mod m1, m1 = 2^32 - 209;
/// x2[n] = (527612 x2[n-1] - 1370589 x2[n-3]) mod m2, m2 = 2^32 - 22853; output
/// u[n] = ((x1[n] - x2[n]) mod m1) / (m1 + 1), with m1 / (m1 + 1) for a zero
/// difference: in (0, 1). The state (x[n-3], x[n-2], x[n-1]) of each component
/// advances by a 3x3 matrix A, so k steps are A^k, formed by repeated squaring.
/// L'Ecuyer's default seed is all six words 12345.

#include <cstdint>

#include "cunum/device/detail/wide_product.hpp"

#if defined(__CUDACC__)
#define CUNUM_MRG_QUALIFIERS __host__ __device__ inline
#else
#define CUNUM_MRG_QUALIFIERS inline
#endif

namespace cunum::device {

/// The moduli of the two components.
constexpr std::uint64_t kMrgModulus1 = 4294967087u;
constexpr std::uint64_t kMrgModulus2 = 4294944443u;

/// The six words of an MRG32k3a state: component 1 then 2, oldest first, each below
/// its modulus and each component not all zero.
struct Mrg32k3aState {
  std::uint64_t x1[3];
  std::uint64_t x2[3];
};

/// A 3x3 matrix modulo one of the moduli, row-major.
struct MrgMatrix {
  std::uint64_t a[9];
};

/// x mod m for any 64-bit x and m = 2^32 - c with c < 2^15 (both moduli): since
/// 2^32 = c (mod m), folding the high word, hi c + lo, leaves y < 2^47 + 2^32 (one
/// 32 x 32 -> 64-bit multiply-add); folding y's leaves less than 2^32 + 2^30, which
/// 32-bit arithmetic forms wrapped past 2^32 at most once: then it is t + c (mod m), t
/// below 2^30, else one subtraction finishes. Exact, and far cheaper on a GPU than a
/// 64-bit `%`.
CUNUM_MRG_QUALIFIERS std::uint64_t mrg_reduce(std::uint64_t x, std::uint64_t m) {
  using ::cunum::detail::wide_product;
  const auto c = static_cast<std::uint32_t>((std::uint64_t{1} << 32) - m);
  const std::uint64_t y = wide_product(static_cast<std::uint32_t>(x >> 32), c) + static_cast<std::uint32_t>(x);
  const auto low = static_cast<std::uint32_t>(y);
  const std::uint32_t t = low + static_cast<std::uint32_t>(y >> 32) * c;
  if (t < low) return t + c;  // wrapped
  return t >= m ? t - m : t;
}

/// (a + b) mod m for a, b < m.
CUNUM_MRG_QUALIFIERS std::uint64_t mrg_add_mod(std::uint64_t a, std::uint64_t b, std::uint64_t m) {
  const std::uint64_t sum = a + b;
  return sum >= m ? sum - m : sum;
}

/// (a b) mod m for a, b < m < 2^32 (the product fits in 64 bits).
CUNUM_MRG_QUALIFIERS std::uint64_t mrg_multiply_mod(std::uint64_t a, std::uint64_t b, std::uint64_t m) {
  return mrg_reduce(a * b, m);
}

/// The product l r modulo m.
CUNUM_MRG_QUALIFIERS MrgMatrix mrg_matrix_product(const MrgMatrix& l, const MrgMatrix& r, std::uint64_t m) {
  MrgMatrix p{};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      std::uint64_t sum = 0;
      for (int k = 0; k < 3; ++k) sum = mrg_add_mod(sum, mrg_multiply_mod(l.a[3 * i + k], r.a[3 * k + j], m), m);
      p.a[3 * i + j] = sum;
    }
  }
  return p;
}

/// The state vector x replaced by A x modulo m.
CUNUM_MRG_QUALIFIERS void mrg_apply(const MrgMatrix& a, std::uint64_t x[3], std::uint64_t m) {
  std::uint64_t y[3];
  for (int i = 0; i < 3; ++i) {
    std::uint64_t sum = 0;
    for (int k = 0; k < 3; ++k) sum = mrg_add_mod(sum, mrg_multiply_mod(a.a[3 * i + k], x[k], m), m);
    y[i] = sum;
  }
  for (int i = 0; i < 3; ++i) x[i] = y[i];
}

/// The one-step matrices of the two components (negative coefficients as m - c).
CUNUM_MRG_QUALIFIERS MrgMatrix mrg_step_matrix1() {
  return MrgMatrix{{0, 1, 0, 0, 0, 1, kMrgModulus1 - 810728u, 1403580u, 0}};
}
CUNUM_MRG_QUALIFIERS MrgMatrix mrg_step_matrix2() {
  return MrgMatrix{{0, 1, 0, 0, 0, 1, kMrgModulus2 - 1370589u, 0, 527612u}};
}

/// The transition of both components over a fixed number of steps.
struct Mrg32k3aJump {
  MrgMatrix component1;
  MrgMatrix component2;
};

/// The transition over `steps` outputs (A^steps of each component), in O(log steps)
/// matrix products.
CUNUM_MRG_QUALIFIERS Mrg32k3aJump mrg32k3a_jump(std::uint64_t steps) {
  Mrg32k3aJump jump{{{1, 0, 0, 0, 1, 0, 0, 0, 1}}, {{1, 0, 0, 0, 1, 0, 0, 0, 1}}};
  MrgMatrix power1 = mrg_step_matrix1(), power2 = mrg_step_matrix2();
  while (steps != 0) {
    if ((steps & 1u) != 0) {
      jump.component1 = mrg_matrix_product(power1, jump.component1, kMrgModulus1);
      jump.component2 = mrg_matrix_product(power2, jump.component2, kMrgModulus2);
    }
    steps >>= 1;
    if (steps != 0) {
      power1 = mrg_matrix_product(power1, power1, kMrgModulus1);
      power2 = mrg_matrix_product(power2, power2, kMrgModulus2);
    }
  }
  return jump;
}

/// Applies a transition of mrg32k3a_jump to the state.
CUNUM_MRG_QUALIFIERS void mrg32k3a_apply(const Mrg32k3aJump& jump, Mrg32k3aState& state) {
  mrg_apply(jump.component1, state.x1, kMrgModulus1);
  mrg_apply(jump.component2, state.x2, kMrgModulus2);
}

/// Advances the state by `steps` outputs in O(log steps) matrix products.
CUNUM_MRG_QUALIFIERS void mrg32k3a_skip_ahead(Mrg32k3aState& state, std::uint64_t steps) {
  MrgMatrix power1 = mrg_step_matrix1(), power2 = mrg_step_matrix2();
  while (steps != 0) {
    if ((steps & 1u) != 0) {
      mrg_apply(power1, state.x1, kMrgModulus1);
      mrg_apply(power2, state.x2, kMrgModulus2);
    }
    steps >>= 1;
    if (steps != 0) {
      power1 = mrg_matrix_product(power1, power1, kMrgModulus1);
      power2 = mrg_matrix_product(power2, power2, kMrgModulus2);
    }
  }
}

/// The next output as an integer in [1, m1], advancing the state by one step:
/// (x1[n] - x2[n]) mod m1, with m1 for a zero difference (cuRAND's curand_MRG32k3a).
CUNUM_MRG_QUALIFIERS std::uint64_t mrg32k3a_next(Mrg32k3aState& state) {
  const std::uint64_t* x1 = state.x1;
  const std::uint64_t* x2 = state.x2;
  // Each component's recurrence as one sum below 2^54 (coefficients below 2^21, the
  // negative one applied to m - x in [1, m]) and one reduction: the same residue as
  // reducing each product, with half the reductions.
  // Every word is below 2^32: as 32-bit values the products are 32 x 32 -> 64-bit
  // multiply-adds and the rest 32-bit arithmetic (64-bit words would cost a GPU the
  // products of their zero high halves).
  using ::cunum::detail::wide_product;
  const auto word = [](std::uint64_t x) { return static_cast<std::uint32_t>(x); };
  const auto next1 = word(mrg_reduce(
      wide_product(1403580u, word(x1[1])) + wide_product(810728u, word(kMrgModulus1 - x1[0])), kMrgModulus1));
  const auto next2 = word(mrg_reduce(
      wide_product(527612u, word(x2[2])) + wide_product(1370589u, word(kMrgModulus2 - x2[0])), kMrgModulus2));
  state.x1[0] = x1[1];
  state.x1[1] = x1[2];
  state.x1[2] = next1;
  state.x2[0] = x2[1];
  state.x2[1] = x2[2];
  state.x2[2] = next2;
  // (next1 - next2) mod m1 in [1, m1]: below 2^32, so the 32-bit difference wraps to it.
  return next1 - next2 + (next1 > next2 ? 0u : word(kMrgModulus1));
}

/// The next output as a double in (0, 1), advancing the state by one step: L'Ecuyer's
/// normalisation, mrg32k3a_next / (m1 + 1) (cuRAND's maps are mrg32k3a_curand_uniform).
CUNUM_MRG_QUALIFIERS double mrg32k3a_next_uniform(Mrg32k3aState& state) {
  constexpr double normalisation = 1.0 / 4294967088.0;  // 1 / (m1 + 1)
  return static_cast<double>(mrg32k3a_next(state)) * normalisation;
}

/// cuRAND's uniform double of an output r of mrg32k3a_next: r MRG32K3A_NORM (= 1/m1
/// rounded), in (0, 1] (curand_uniform_double).
CUNUM_MRG_QUALIFIERS double mrg32k3a_curand_uniform_double(std::uint64_t output) {
  // output <= m1 < 2^32: the 32-bit conversion is exact and the cheaper one on a GPU.
  return static_cast<double>(static_cast<std::uint32_t>(output)) * 2.3283065498378288e-10;
}

/// cuRAND's uniform float: the double of mrg32k3a_curand_uniform_double rounded to
/// float (curand_uniform), in (0, 1].
CUNUM_MRG_QUALIFIERS float mrg32k3a_curand_uniform_float(std::uint64_t output) {
  return static_cast<float>(mrg32k3a_curand_uniform_double(output));
}

/// L'Ecuyer's default state (all six words 12345).
CUNUM_MRG_QUALIFIERS Mrg32k3aState mrg32k3a_default_state() {
  return Mrg32k3aState{{12345, 12345, 12345}, {12345, 12345, 12345}};
}

/// The state of 64-bit `seed` (cunum's convention): with s0 = low 32 bits XOR
/// 0x55555555 and s1 = high 32 bits XOR 0xAAAAAAAA, component 1 is (s0, s1, s0) mod m1
/// and component 2 is (s1, s0, s1) mod m2; a component that would be all zero takes
/// L'Ecuyer's 12345s.
CUNUM_MRG_QUALIFIERS Mrg32k3aState mrg32k3a_seeded_state(std::uint64_t seed) {
  const std::uint64_t s0 = (seed & 0xFFFFFFFFu) ^ 0x55555555u, s1 = (seed >> 32) ^ 0xAAAAAAAAu;
  Mrg32k3aState state{{s0 % kMrgModulus1, s1 % kMrgModulus1, s0 % kMrgModulus1},
                      {s1 % kMrgModulus2, s0 % kMrgModulus2, s1 % kMrgModulus2}};
  if (state.x1[0] == 0 && state.x1[1] == 0) state.x1[0] = state.x1[1] = state.x1[2] = 12345;
  if (state.x2[0] == 0 && state.x2[1] == 0) state.x2[0] = state.x2[1] = state.x2[2] = 12345;
  return state;
}

/// Substreams are 2^76 outputs apart (L'Ecuyer, Simard, Chen and Kelton's RngStreams).
/// Table k (k = 0..63) holds A^(2^(76 + k)) of component 1 at [k] and of component 2 at
/// [64 + k]: skipping u substreams applies the tables of u's set bits.
constexpr int kMrgSubstreamTables = 64;

/// The 128 skip matrices of mrg32k3a_skip_substreams, by repeated squaring.
inline void mrg32k3a_substream_tables(MrgMatrix tables[2 * kMrgSubstreamTables]) {
  MrgMatrix power1 = mrg_step_matrix1(), power2 = mrg_step_matrix2();
  for (int squaring = 0; squaring < 76; ++squaring) {
    power1 = mrg_matrix_product(power1, power1, kMrgModulus1);
    power2 = mrg_matrix_product(power2, power2, kMrgModulus2);
  }
  for (int k = 0; k < kMrgSubstreamTables; ++k) {
    tables[k] = power1;
    tables[kMrgSubstreamTables + k] = power2;
    power1 = mrg_matrix_product(power1, power1, kMrgModulus1);
    power2 = mrg_matrix_product(power2, power2, kMrgModulus2);
  }
}

/// Advances the state by `substreams` x 2^76 outputs with tables1[k] and tables2[k]
/// = A^(2^(76 + k)) of each component for the set bits k of `substreams` (which
/// must have no bit at or above the tables' length).
CUNUM_MRG_QUALIFIERS void mrg32k3a_skip_substreams(Mrg32k3aState& state, std::uint64_t substreams,
                                                   const MrgMatrix* tables1, const MrgMatrix* tables2) {
  for (int k = 0; substreams != 0; ++k, substreams >>= 1) {
    if ((substreams & 1u) == 0) continue;
    mrg_apply(tables1[k], state.x1, kMrgModulus1);
    mrg_apply(tables2[k], state.x2, kMrgModulus2);
  }
}

/// Advances the state by `substreams` x 2^76 outputs with the tables of
/// mrg32k3a_substream_tables (at most 64 matrix-vector products a component).
CUNUM_MRG_QUALIFIERS void mrg32k3a_skip_substreams(Mrg32k3aState& state, std::uint64_t substreams,
                                                   const MrgMatrix* tables) {
  mrg32k3a_skip_substreams(state, substreams, tables, tables + kMrgSubstreamTables);
}

/// The state of cuRAND's MRG32k3a for `seed` at subsequence 0, offset 0 (the seeding
/// of cuRAND's device API curand_init and of its host generator
/// CURAND_RNG_PSEUDO_MRG32K3A): with x1 = low 32 bits of seed XOR 0x55555555 and
/// x2 = high 32 bits XOR 0xAAAAAAAA, component 1 is 12345 (x1, x2, x1) and component 2
/// is 12345 (x2, x1, x2), each word modulo its modulus; seed 0 keeps the 12345s.
CUNUM_MRG_QUALIFIERS Mrg32k3aState mrg32k3a_curand_seeded_state(std::uint64_t seed) {
  Mrg32k3aState state = mrg32k3a_default_state();
  if (seed == 0) return state;
  const std::uint64_t x1 = (seed & 0xFFFFFFFFu) ^ 0x55555555u, x2 = (seed >> 32) ^ 0xAAAAAAAAu;
  const std::uint64_t words1[3] = {x1, x2, x1}, words2[3] = {x2, x1, x2};
  for (int k = 0; k < 3; ++k) {
    state.x1[k] = mrg_multiply_mod(mrg_reduce(words1[k], kMrgModulus1), 12345u, kMrgModulus1);
    state.x2[k] = mrg_multiply_mod(mrg_reduce(words2[k], kMrgModulus2), 12345u, kMrgModulus2);
  }
  return state;
}

/// The state of cuRAND's `curand_init(seed, subsequence, offset, &state)` for
/// curandStateMRG32k3a_t: mrg32k3a_curand_seeded_state, `subsequence` substreams of
/// 2^76 outputs on (tables of mrg32k3a_substream_tables), then `offset` outputs on.
/// Draw with mrg32k3a_next and map with mrg32k3a_curand_uniform_float / _double.
CUNUM_MRG_QUALIFIERS Mrg32k3aState mrg32k3a_curand_state(std::uint64_t seed, std::uint64_t subsequence,
                                                         std::uint64_t offset, const MrgMatrix* tables) {
  Mrg32k3aState state = mrg32k3a_curand_seeded_state(seed);
  mrg32k3a_skip_substreams(state, subsequence, tables);
  mrg32k3a_skip_ahead(state, offset);
  return state;
}

}  // namespace cunum::device
