#pragma once
/// @file
/// MRG32k3a (L'Ecuyer, Operations Research 47(1), 1999) as `__host__ __device__`
/// functions, with skip-ahead by powers of its transition matrices and substreams of
/// 2^76 outputs. cunum::MonteCarloPricer draws from it in its kernel
/// (MonteCarloSource::mrg32k3a); cunum::RandomGenerator does not fill with it yet.
///
/// Recurrences: x1[n] = (1403580 x1[n-2] - 810728 x1[n-3]) mod m1, m1 = 2^32 - 209;
/// x2[n] = (527612 x2[n-1] - 1370589 x2[n-3]) mod m2, m2 = 2^32 - 22853; output
/// u[n] = ((x1[n] - x2[n]) mod m1) / (m1 + 1), with m1 / (m1 + 1) for a zero
/// difference: in (0, 1). The state (x[n-3], x[n-2], x[n-1]) of each component
/// advances by a 3x3 matrix A, so k steps are A^k, formed by repeated squaring.
/// L'Ecuyer's default seed is all six words 12345.

#include <cstdint>

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
/// 2^32 = c (mod m), two folds of the high word, hi c + lo, leave less than 2m, and
/// one subtraction finishes. Exact, and far cheaper on a GPU than a 64-bit `%`.
CUNUM_MRG_QUALIFIERS std::uint64_t mrg_reduce(std::uint64_t x, std::uint64_t m) {
  const std::uint64_t c = (std::uint64_t{1} << 32) - m;
  x = (x >> 32) * c + (x & 0xFFFFFFFFu);  // < 2^47 + 2^32
  x = (x >> 32) * c + (x & 0xFFFFFFFFu);  // < 2^32 + 2^30 < 2m
  return x >= m ? x - m : x;
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

/// The next output as a double in (0, 1), advancing the state by one step.
CUNUM_MRG_QUALIFIERS double mrg32k3a_next_uniform(Mrg32k3aState& state) {
  const std::uint64_t* x1 = state.x1;
  const std::uint64_t* x2 = state.x2;
  const std::uint64_t next1 = mrg_add_mod(mrg_multiply_mod(1403580u, x1[1], kMrgModulus1),
                                          mrg_multiply_mod(kMrgModulus1 - 810728u, x1[0], kMrgModulus1), kMrgModulus1);
  const std::uint64_t next2 = mrg_add_mod(mrg_multiply_mod(527612u, x2[2], kMrgModulus2),
                                          mrg_multiply_mod(kMrgModulus2 - 1370589u, x2[0], kMrgModulus2), kMrgModulus2);
  state.x1[0] = x1[1];
  state.x1[1] = x1[2];
  state.x1[2] = next1;
  state.x2[0] = x2[1];
  state.x2[1] = x2[2];
  state.x2[2] = next2;
  const std::uint64_t difference = next1 > next2 ? next1 - next2 : next1 + kMrgModulus1 - next2;
  constexpr double normalisation = 1.0 / 4294967088.0;  // 1 / (m1 + 1)
  return static_cast<double>(difference) * normalisation;
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

/// Advances the state by `substreams` x 2^76 outputs with the tables of
/// mrg32k3a_substream_tables (at most 64 matrix-vector products a component).
CUNUM_MRG_QUALIFIERS void mrg32k3a_skip_substreams(Mrg32k3aState& state, std::uint64_t substreams,
                                                   const MrgMatrix* tables) {
  for (int k = 0; substreams != 0; ++k, substreams >>= 1) {
    if ((substreams & 1u) == 0) continue;
    mrg_apply(tables[k], state.x1, kMrgModulus1);
    mrg_apply(tables[kMrgSubstreamTables + k], state.x2, kMrgModulus2);
  }
}

}  // namespace cunum::device
