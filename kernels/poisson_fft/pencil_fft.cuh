#pragma once
// Internal: complex FFTs of power-of-two length along the slowest Fourier axis of a
// spectrum, done by one thread block on a tile of neighbouring lines ("pencils") held
// in registers and shared memory. The Poisson solver turns around in the middle of
// them: forward FFT, divide by the eigenvalues, inverse FFT, in one pass over the
// spectrum, so that cuFFT need transform only the faster axes (docs/poisson_fft.md).
//
// The passes are Stockham's autosort radix-R steps (radix 16, the remainder first):
// with Ns the product of the radices before it, butterfly j reads elements
// j + r N / R (r < R), turns input r by w^(r (j mod Ns)), w = e^(-2 pi i / (Ns R)),
// takes an R-point DFT in registers and writes output r to element
// (j / Ns) Ns R + (j mod Ns) + r Ns. Thread t of a pencil owns butterflies
// j = t + q N / E (q < E / R) of every pass, E = PencilPolicy::items, so it always
// reads elements t + m N / E (m = q + r E / R, its register m) and the last pass
// leaves element t + m N / E in register m: the first pass loads straight from the
// spectrum, the last stores straight to it, and the forward transform's output is
// the inverse's input without an exchange.

#include <cstdint>

#include "kernels/poisson_fft/poisson_fft_launch.hpp"
#include "src/poisson_fft/poisson_fft_policy.hpp"
#include "src/poisson_fft/wall_transforms.hpp"

namespace cunum::detail {

// A complex value in registers (cuFFT's types are plain structs without arithmetic).
template <class T>
struct alignas(2 * sizeof(T)) PencilValue {
  T re, im;
  __device__ PencilValue operator+(PencilValue o) const { return {re + o.re, im + o.im}; }
  __device__ PencilValue operator-(PencilValue o) const { return {re - o.re, im - o.im}; }
  // this x (c + i s), or x (c - i s) for the inverse direction's conjugate twiddle.
  template <bool kConjugate>
  __device__ PencilValue turned(T c, T s) const {
    const T sine = kConjugate ? -s : s;
    return {re * c - im * sine, re * sine + im * c};
  }
};

// cos(2 pi k / 16), folded to a constant where k is one.
__host__ __device__ constexpr double root16_cosine(int k) {
  constexpr double c1 = 0.92387953251128675613, c2 = 0.70710678118654752440, c3 = 0.38268343236508977173;
  switch (k % 16) {
    case 0: return 1.0;
    case 1: case 15: return c1;
    case 2: case 14: return c2;
    case 3: case 13: return c3;
    case 4: case 12: return 0.0;
    case 5: case 11: return -c3;
    case 6: case 10: return -c2;
    case 7: case 9: return -c1;
    default: return -1.0;
  }
}

// x e^(-+2 pi i k / N), N <= 16, k a constant after unrolling: the trivial turns by
// 1 and -+i cost nothing.
template <int N, bool kInverse, class T>
__device__ __forceinline__ PencilValue<T> root_turn(int k, PencilValue<T> x) {
  if (k == 0) return x;
  if (4 * k == N) return kInverse ? PencilValue<T>{-x.im, x.re} : PencilValue<T>{x.im, -x.re};
  const int index = k * (16 / N);
  const T c = static_cast<T>(root16_cosine(index));
  const T s = static_cast<T>(-root16_cosine(index + 12));  // -sin(theta) = -cos(theta - pi / 2)
  return x.template turned<kInverse>(c, s);
}

// out[k] = sum_j in[j S] e^(-+2 pi i j k / N), in natural order: radix 2 recursion,
// unrolled to constants.
template <int N, int S, bool kInverse, class T>
__device__ __forceinline__ void register_dft(const PencilValue<T>* in, PencilValue<T>* out) {
  if constexpr (N == 1) {
    out[0] = in[0];
  } else {
    PencilValue<T> even[N / 2], odd[N / 2];
    register_dft<N / 2, 2 * S, kInverse>(in, even);
    register_dft<N / 2, 2 * S, kInverse>(in + S, odd);
#pragma unroll
    for (int k = 0; k < N / 2; ++k) {
      const PencilValue<T> turned = root_turn<N, kInverse>(k, odd[k]);
      out[k] = even[k] + turned;
      out[k + N / 2] = even[k] - turned;
    }
  }
}

// The FFT of the tile's pencils, each thread's register m holding element
// t + m N / E of its pencil on entry and element t + m N / E of the transform on
// exit (module comment). `twiddles` is the length's table (pencil_twiddle_offset); `tile` the
// block's shared memory; every thread of the block calls it.
template <class Policy, bool kInverse>
struct PencilFft {
  using T = typename Policy::Value;
  static constexpr int kLength = Policy::length;
  static constexpr int E = Policy::items;
  static constexpr int kStride = kLength / E;  // between a thread's elements

  __device__ static void run(PencilValue<T> (&v)[E], int t, int pencil, const PencilValue<T>* twiddles,
                             PencilValue<T>* tile) {
    pass<Policy::first_radix, 1>(v, t, pencil, twiddles, tile);
  }

 private:
  // in[r] *= w^(r b), r < 16 (conjugated for the inverse), w = e^(-2 pi i / L), from the
  // pass's run of the twiddle table (pencil_twiddle_offset): w^(r_low b) and
  // w^(4 r_high b) for r = r_low + 4 r_high, 6 loads and 9 products (one more rounding)
  // instead of 15 loads, which were what a long pencil's warps waited on most (Nsight
  // Compute, docs/poisson_fft.md).
  template <int L>
  __device__ static void turn_inputs(PencilValue<T> (&in)[16], int b, const PencilValue<T>* twiddles) {
    const PencilValue<T>* low_powers = twiddles + pencil_twiddle_offset(kLength, L);
    const PencilValue<T>* high_powers = low_powers + pencil_twiddle_run(L);
    PencilValue<T> low[4], high[4];
#pragma unroll
    for (int r = 1; r < 4; ++r) {
      low[r] = low_powers[r * b];
      high[r] = high_powers[r * b];
    }
#pragma unroll
    for (int r = 1; r < 16; ++r) {
      const int r_low = r % 4, r_high = r / 4;
      const PencilValue<T> w = r_high == 0  ? low[r_low]
                               : r_low == 0 ? high[r_high]
                                            : low[r_low].template turned<false>(high[r_high].re, high[r_high].im);
      in[r] = in[r].template turned<kInverse>(w.re, w.im);
    }
  }

  template <int R, int Ns>
  __device__ static void pass(PencilValue<T> (&v)[E], int t, int pencil, const PencilValue<T>* twiddles,
                              PencilValue<T>* tile) {
    constexpr bool kLast = Ns * R == kLength;
    constexpr int kButterflies = E / R;  // a thread's butterflies in this pass
    PencilValue<T> outputs[E];
#pragma unroll
    for (int q = 0; q < kButterflies; ++q) {
      const int j = t + q * kStride;
      PencilValue<T> in[R];
#pragma unroll
      for (int r = 0; r < R; ++r) in[r] = v[q + r * kButterflies];
      if constexpr (Ns > 1) {
        static_assert(R == 16, "every pass after the first is radix 16");
        turn_inputs<Ns * R>(in, j % Ns, twiddles);
      }
      PencilValue<T> out[R];
      register_dft<R, 1, kInverse>(in, out);
#pragma unroll
      for (int r = 0; r < R; ++r) outputs[q + r * kButterflies] = out[r];
    }
    if constexpr (kLast) {
#pragma unroll
      for (int m = 0; m < E; ++m) v[m] = outputs[m];
    } else {
      // Exchange through shared memory: output r of butterfly j goes to element
      // (j / Ns) Ns R + j mod Ns + r Ns; then each thread reads its next inputs.
#pragma unroll
      for (int q = 0; q < kButterflies; ++q) {
        const int j = t + q * kStride;
        const int first = (j / Ns) * Ns * R + j % Ns;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          tile[Policy::padded((first + r * Ns) * Policy::pencils + pencil)] = outputs[q + r * kButterflies];
        }
      }
      __syncthreads();
#pragma unroll
      for (int m = 0; m < E; ++m) v[m] = tile[Policy::padded((t + m * kStride) * Policy::pencils + pencil)];
      __syncthreads();  // every read done before the next pass writes
      pass<(Ns * R * 16 <= kLength ? 16 : kLength / (Ns * R)), Ns * R>(v, t, pencil, twiddles, tile);
    }
  }
};

// The division's factors along one pencil: the two indices other than the pencil's
// mode, split once.
template <class Division>
struct PencilFactors {
  const Division& division;
  bool pencil_is_outer;
  std::int64_t fixed, inner;

  __device__ PencilFactors(const Division& d, const PencilShape& shape, std::int64_t problem, std::int64_t pencil)
      : division(d),
        pencil_is_outer(shape.pencil_is_outer),
        fixed(shape.pencil_is_outer ? pencil / shape.inner : problem % shape.outer),
        inner(shape.pencil_is_outer ? pencil - fixed * shape.inner : pencil) {}

  // The factor of the pencil's mode k.
  __device__ auto operator()(std::int64_t k) const {
    return pencil_is_outer ? division.factor(k, fixed, inner) : division.factor(fixed, k, inner);
  }
};

// Where a thread of a pencil kernel works: unit `unit` of problem `problem`, its
// pencil slot in the tile and its rank t among that pencil's threads.
struct PencilPlace {
  int pencil, t;
  std::int64_t problem, unit;
};

template <class Policy>
__device__ PencilPlace pencil_place(const PencilShape& shape) {
  PencilPlace place;
  place.pencil = threadIdx.x % Policy::pencils;
  place.t = threadIdx.x / Policy::pencils;
  place.problem = blockIdx.x / shape.tiles;
  place.unit = (blockIdx.x - place.problem * shape.tiles) * Policy::pencils + place.pencil;
  return place;
}

// The wall kernels' two real pencils as the real and imaginary parts of one complex
// pencil (unit u's): columns `first` and `second` of the real array (row_stride values a
// row), 2u and 2u + 1. With a fold (PencilFold), the folded axis (its points n, the
// array's contiguous axis) has `modes` slots a line, and unit u stands for a pair of its
// coefficients on line l, columns l n + k: a cosine wall at cells, unit c of the line
// (c <= n / 2), coefficients c and n - c, both from mode c of its half spectrum by
// Makhoul's post-processing and both making it again by his pre-processing
// (src/poisson_fft/wall_transforms.hpp; c = 0, and c = n / 2 for even n, make one); a
// wall at vertices, unit j of the line (j < (n + 1) / 2), coefficients j and n - 1 - j,
// each a real part of its own mode of the extension's spectrum (the negated imaginary
// part of mode k + 1 for DST-I, the real part of mode k for DCT-I; j = (n - 1) / 2 for
// odd n makes one); a mixed axis at cells by pairs (quarter_pairs, n even; the
// periodic fold only), unit j of the line (j < n / 2), coefficients 2j and n - 1 - 2j,
// both from mode j of its pairs' C2C (quarter_pair_coefficient) and both making it
// again (quarter_pair_sample). The fold's `slots` keep the pair in the slot of the first
// mode instead of the real array. Either coefficient may be absent: past the last, or
// none.
struct WallPencilPair {
  std::int64_t first, second;
  std::int64_t mode;  // the fold's mode of the first coefficient
  std::int64_t slot;  // its slot in a row (an extension's second mode: extension_mirror_slot)
  std::int64_t row0;  // the problem's first row: problem x the points on the pencil axis
  bool has_first, has_second;
};

template <class T>
__device__ bool folded(const PencilFold<T>& fold) {
  return fold.reads || fold.writes || fold.slots;
}

// The fold's slots a row: `modes` for each line of the folded axis in a row.
template <class T>
__device__ std::int64_t slots_a_row(const PencilFold<T>& fold, const PencilShape& shape) {
  return shape.row_stride / fold.points * fold.modes;
}

// kQuarterFold: the fold is a mixed axis's pairs (folded_pencil_turnaround_kernel alone;
// a template argument, so that the other kernels carry none of its code).
template <bool kQuarterFold = false, class T>
__device__ WallPencilPair wall_pencil_pair(const PencilPlace& place, const PencilShape& shape,
                                           std::int64_t points_on_axis, const PencilFold<T>& fold) {
  WallPencilPair pair;
  const std::int64_t u = place.unit, n = shape.row_stride;
  pair.row0 = place.problem * points_on_axis;
  if (!folded(fold)) {
    pair.mode = pair.slot = 0;
    pair.first = 2 * u;
    pair.second = 2 * u + 1;
    pair.has_first = pair.first < n;
    pair.has_second = pair.second < n;
    return pair;
  }
  const std::int64_t points = fold.points, units = fold_units(fold.line, points);
  const std::int64_t line = u / units, j = u - line * units;
  pair.has_first = u < n / points * units;
  if constexpr (kQuarterFold) {  // mode j of the pairs' C2C: coefficients 2j and points - 1 - 2j
    pair.mode = j;
    pair.slot = line * fold.modes + j;
    pair.first = line * points + 2 * j;
    pair.second = line * points + points - 1 - 2 * j;
    pair.has_second = pair.has_first;
    return pair;
  }
  if (fold.line != WallLine::cosine) {
    pair.mode = j + (fold.line == WallLine::odd_extension ? 1 : 0);
    pair.slot = line * fold.modes + pair.mode;
    pair.first = line * points + j;
    pair.has_second = pair.has_first && 2 * j != points - 1;
    pair.second = line * points + (pair.has_second ? points - 1 - j : j);
    return pair;
  }
  pair.mode = j;
  pair.slot = line * fold.modes + j;
  pair.first = line * points + j;
  pair.has_second = pair.has_first && j > 0 && 2 * j < points;
  pair.second = line * points + (pair.has_second ? points - j : j);
  return pair;
}

// An extension fold's slot of the pair's second coefficient: as far from the first's
// slot as the coefficients are apart (derived rather than kept: the pair lives through
// the transforms, where registers are short).
__device__ inline std::int64_t extension_mirror_slot(const WallPencilPair& pair) {
  return pair.slot + (pair.second - pair.first);
}

// v[m] = element row(m) of the pair times sign(m) (sign 0: a zero, nothing read), for
// each of the thread's registers: from the fold's spectrum where it reads one (Makhoul's
// post-processing, or an extension's real coefficients), else from the fold's slots, else
// from the pair's columns of `source`. The branches are outside the loops, so that no
// path's registers add to another's. kQuarterFold as for wall_pencil_pair.
template <class Policy, bool kQuarterFold = false, class Row, class Sign>
__device__ void load_wall_pencil_pair(PencilValue<typename Policy::Value> (&v)[Policy::items],
                                      const WallPencilPair& pair, const PencilShape& shape,
                                      const PencilFold<typename Policy::Value>& fold,
                                      const typename Policy::Value* source, const Row& row, const Sign& sign) {
  using T = typename Policy::Value;
  if (fold.reads || fold.slots) {
    const std::int64_t slots = slots_a_row(fold, shape);
    const PoissonComplex<T>* rows = fold.spectrum + pair.row0 * slots;
    if constexpr (kQuarterFold) {
      const std::int64_t even = 2 * pair.mode, odd = fold.points - 1 - even;
      const PoissonComplex<T> w = pair.has_first ? fold.twiddles[even] : PoissonComplex<T>{};
#pragma unroll
      for (int m = 0; m < Policy::items; ++m) {
        const T s = sign(m);
        if (s == T(0) || !pair.has_first) {
          v[m] = {T(0), T(0)};
          continue;
        }
        const PoissonComplex<T> z = rows[row(m) * slots + pair.slot];
        v[m] = {s * quarter_pair_coefficient<T>(even, w.re, w.im, z.re, z.im),
                s * quarter_pair_coefficient<T>(odd, w.re, w.im, z.re, z.im)};
      }
      return;
    } else if (fold.reads && fold.line != WallLine::cosine) {
      const bool odd = fold.line == WallLine::odd_extension;
      const auto coefficient = [odd](PoissonComplex<T> mode) { return odd ? -mode.im : mode.re; };
      const std::int64_t mirror = extension_mirror_slot(pair);
#pragma unroll
      for (int m = 0; m < Policy::items; ++m) {
        const T s = sign(m);
        const PoissonComplex<T>* at = rows + row(m) * slots;
        v[m] = {s != T(0) && pair.has_first ? s * coefficient(at[pair.slot]) : T(0),
                s != T(0) && pair.has_second ? s * coefficient(at[mirror]) : T(0)};
      }
      return;
    }
    const std::int64_t n = fold.points, c = pair.mode;
    PoissonComplex<T> first_twiddle{}, second_twiddle{};
    if (fold.reads && pair.has_first) first_twiddle = fold.twiddles[c];
    if (fold.reads && pair.has_second) second_twiddle = fold.twiddles[n - c];
#pragma unroll
    for (int m = 0; m < Policy::items; ++m) {
      const T s = sign(m);
      if (s == T(0) || !pair.has_first) {
        v[m] = {T(0), T(0)};
        continue;
      }
      const PoissonComplex<T> slot = rows[row(m) * slots + pair.slot];
      const T re = s * slot.re, im = s * slot.im;
      if (!fold.reads) {
        v[m] = {re, pair.has_second ? im : T(0)};
        continue;
      }
      v[m] = {cosine_coefficient(n, c, first_twiddle.re, first_twiddle.im, re, im),
              pair.has_second ? cosine_coefficient(n, n - c, second_twiddle.re, second_twiddle.im, re, im) : T(0)};
    }
    return;
  }
  const std::int64_t n = shape.row_stride;
  const T* rows = source + pair.row0 * n;
#pragma unroll
  for (int m = 0; m < Policy::items; ++m) {
    const T s = sign(m);
    const T* at = rows + row(m) * n;
    v[m] = {s != T(0) && pair.has_first ? s * at[pair.first] : T(0),
            s != T(0) && pair.has_second ? s * at[pair.second] : T(0)};
  }
}

// Element row(m) of the pair = v[m] times sign(m), for each of the thread's registers
// whose row(m) is not negative: into the fold's spectrum where it writes one (Makhoul's
// pre-processing, or an extension's modes), else into the
// fold's slots, else into the pair's columns of `target`. kQuarterFold as for
// wall_pencil_pair.
template <class Policy, bool kQuarterFold = false, class Row, class Sign>
__device__ void store_wall_pencil_pair(const PencilValue<typename Policy::Value> (&v)[Policy::items],
                                       const WallPencilPair& pair, const PencilShape& shape,
                                       const PencilFold<typename Policy::Value>& fold, typename Policy::Value* target,
                                       const Row& row, const Sign& sign) {
  using T = typename Policy::Value;
  if (!pair.has_first) return;
  if (fold.writes || fold.slots) {
    const std::int64_t slots = slots_a_row(fold, shape);
    PoissonComplex<T>* rows = fold.spectrum + pair.row0 * slots;
    if constexpr (kQuarterFold) {  // the pair as the inverse's DFT takes it
      const PoissonComplex<T> w = fold.twiddles[fold.points + pair.mode];
#pragma unroll
      for (int m = 0; m < Policy::items; ++m) {
        if (row(m) < 0) continue;
        const T s = sign(m);
        const HalfSpectrumValue<T> sample = quarter_pair_sample(s * v[m].re, s * v[m].im, w.re, w.im);
        rows[row(m) * slots + pair.slot] = {sample.re, sample.im};
      }
      return;
    } else if (fold.writes && fold.line != WallLine::cosine) {
      // The C2R of -i x (x real) is the odd extension of DST-I of x, and that of x the
      // even extension of DCT-I of x.
      const bool odd = fold.line == WallLine::odd_extension;
      const auto mode_of = [odd](T x) { return odd ? PoissonComplex<T>{T(0), -x} : PoissonComplex<T>{x, T(0)}; };
      const std::int64_t mirror = extension_mirror_slot(pair);
#pragma unroll
      for (int m = 0; m < Policy::items; ++m) {
        if (row(m) < 0) continue;
        const T s = sign(m);
        PoissonComplex<T>* at = rows + row(m) * slots;
        at[pair.slot] = mode_of(s * v[m].re);
        if (pair.has_second) at[mirror] = mode_of(s * v[m].im);
        if (odd && pair.mode == 1) {  // DST-I's modes 0 and n + 1
          at[pair.slot - 1] = {T(0), T(0)};
          at[pair.slot + fold.points] = {T(0), T(0)};
        }
      }
      return;
    }
    const PoissonComplex<T> twiddle = fold.writes ? fold.twiddles[pair.mode] : PoissonComplex<T>{};
#pragma unroll
    for (int m = 0; m < Policy::items; ++m) {
      if (row(m) < 0) continue;
      const T s = sign(m), re = s * v[m].re, im = pair.has_second ? s * v[m].im : T(0);
      if (!fold.writes) {
        rows[row(m) * slots + pair.slot] = {re, im};
        continue;
      }
      const T mirror = pair.has_second ? im : pair.mode == 0 ? T(0) : re;  // X_n = 0; X_{n - c} = X_c at c = n / 2
      const HalfSpectrumValue<T> mode = cosine_inverse_mode(twiddle.re, twiddle.im, re, mirror);
      rows[row(m) * slots + pair.slot] = {mode.re, mode.im};
    }
    return;
  }
  const std::int64_t n = shape.row_stride;
  T* rows = target + pair.row0 * n;
#pragma unroll
  for (int m = 0; m < Policy::items; ++m) {
    if (row(m) < 0) continue;
    const T s = sign(m);
    T* at = rows + row(m) * n;
    at[pair.first] = s * v[m].re;
    if (pair.has_second) at[pair.second] = s * v[m].im;
  }
}

// Element e of both real pencils times the division's factor of coefficient
// coefficient_of(e), 0 where that is negative (no coefficient) or a pencil is absent.
template <class Policy, class Division, class CoefficientOf>
__device__ void divide_real_pencil_pair(PencilValue<typename Policy::Value> (&v)[Policy::items],
                                        const Division& division, const PencilShape& shape,
                                        const PencilPlace& place, const WallPencilPair& pair,
                                        const CoefficientOf& coefficient_of) {
  using T = typename Policy::Value;
  const PencilFactors<Division> first_factors(division, shape, place.problem, pair.first);
  const PencilFactors<Division> second_factors(division, shape, place.problem, pair.second);
#pragma unroll
  for (int m = 0; m < Policy::items; ++m) {
    const std::int64_t k = coefficient_of(place.t + m * (Policy::length / Policy::items));
    const bool coefficient = k >= 0;
    v[m] = {coefficient && pair.has_first ? v[m].re * first_factors(k) : T(0),
            coefficient && pair.has_second ? v[m].im * second_factors(k) : T(0)};
  }
}

// The block's dynamic shared memory as the tile of PencilFft's exchanges.
template <class T>
__device__ inline PencilValue<T>* pencil_tile() {
  extern __shared__ __align__(16) unsigned char pencil_shared[];
  return reinterpret_cast<PencilValue<T>*>(pencil_shared);
}

// v[m] = combine(k, v[m], element (length - k) mod length) for each of the thread's
// elements k = t + m length / E: the mirror is another thread's, read through shared
// memory.
template <class Policy, class Combine>
__device__ void combine_with_mirrors(PencilValue<typename Policy::Value> (&v)[Policy::items], const PencilPlace& place,
                                     PencilValue<typename Policy::Value>* tile, const Combine& combine) {
  constexpr int kStride = Policy::length / Policy::items;
#pragma unroll
  for (int m = 0; m < Policy::items; ++m) {
    tile[Policy::padded((place.t + m * kStride) * Policy::pencils + place.pencil)] = v[m];
  }
  __syncthreads();
#pragma unroll
  for (int m = 0; m < Policy::items; ++m) {
    const int k = place.t + m * kStride;
    v[m] = combine(k, v[m], tile[Policy::padded(((Policy::length - k) & (Policy::length - 1)) * Policy::pencils +
                                                place.pencil)]);
  }
  __syncthreads();
}

// The periodic turnaround in one pass over the spectrum: each block loads a tile of
// complex pencils, FFTs them, multiplies mode (outer, middle, inner) by
// division.factor(...), FFTs back and stores. `twiddles`: the length's pencil twiddle
// table (pencil_twiddle_offset, src/poisson_fft/poisson_fft_policy.hpp).
template <class Policy, class Division>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks)
    pencil_turnaround_kernel(Division division, PencilShape shape, const PencilValue<typename Policy::Value>* twiddles,
                             PencilValue<typename Policy::Value>* spectrum) {
  using T = typename Policy::Value;
  constexpr int E = Policy::items;
  constexpr int kStride = Policy::length / E;
  PencilValue<T>* tile = pencil_tile<T>();
  const PencilPlace place = pencil_place<Policy>(shape);
  const bool active = place.unit < shape.pencils;  // the last tile of a problem may be short
  PencilValue<T>* line = spectrum + place.problem * Policy::length * shape.row_stride + place.unit;
  PencilValue<T> v[E];
#pragma unroll
  for (int m = 0; m < E; ++m) {
    v[m] = active ? line[(place.t + m * kStride) * shape.row_stride] : PencilValue<T>{T(0), T(0)};
  }
  PencilFft<Policy, false>::run(v, place.t, place.pencil, twiddles, tile);
  const PencilFactors<Division> factors(division, shape, place.problem, place.unit);
#pragma unroll
  for (int m = 0; m < E; ++m) {
    const T factor = active ? factors(place.t + m * kStride) : T(0);
    v[m] = {v[m].re * factor, v[m].im * factor};
  }
  PencilFft<Policy, true>::run(v, place.t, place.pencil, twiddles, tile);
  if (!active) return;
#pragma unroll
  for (int m = 0; m < E; ++m) line[(place.t + m * kStride) * shape.row_stride] = v[m];
}

// The cosine transforms of a Neumann axis, along pencils, by Makhoul's algorithm
// (src/poisson_fft/wall_transforms.hpp) on two real pencils at once: real pencils 2c and
// 2c + 1 are the real and imaginary parts of complex pencil c (unit c; row_stride = the
// real pencils), whose DFT Z gives both: with V_a = (Z_k + conj Z_{n-k}) / 2 and
// V_b = (Z_k - conj Z_{n-k}) / 2i, Y_k = 2 Re(e^(-i pi k / 2n) V_k); and back,
// Z_k = e^(i pi k / 2n) (X_k - i X_{n-k}) of each, their sum with i before the second.
// Reads `source`, writes `target` (may be the same array): grid samples in Makhoul's
// shuffled order, coefficients in natural order; with `fold`, the folded axis's
// spectrum in place of the grid samples (WallPencilPair). `quarter_twiddles` holds
// (cos, sin)(pi k / 2n), k < n. Division: used by the turnaround only. With
// `alternating` (Dirichlet walls at cells: DST-II / DST-III, src/poisson_fft/
// wall_transforms.hpp) grid point i is taken and given times (-1)^i, and the division's
// table for this axis is the reversed one. With kDct3First, the turnaround of a mixed
// axis at vertices, whose analysis is the DCT-III and synthesis the DCT-II: grid samples
// in natural order on both sides, the DCT-III, the division of element e by the factor
// of coefficient cosine_shuffle_source(n, e) (where the DCT-III leaves it), the DCT-II.
// (Such an axis's forward and inverse stages are this kernel's inverse and forward ones.)
// With `reversed` (dirichlet_neumann at vertices: DST-III / DST-II, the signs cancelling
// between the two) such an axis's grid samples, its rows in natural order, are read and
// written as row n - 1 - e.
template <class Policy, WallStage kStage, class Division, bool kDct3First = false>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks)
    cosine_pencil_kernel(Division division, PencilShape shape, const PencilValue<typename Policy::Value>* twiddles,
                         const PencilValue<typename Policy::Value>* quarter_twiddles, GridSide grid_side,
                         PencilFold<typename Policy::Value> fold, const typename Policy::Value* source,
                         typename Policy::Value* target) {
  using T = typename Policy::Value;
  constexpr int E = Policy::items;
  constexpr int n = Policy::length;
  constexpr int kStride = n / E;
  constexpr bool kFromGrid = kStage != WallStage::inverse, kToGrid = kStage != WallStage::forward;
  PencilValue<T>* tile = pencil_tile<T>();
  const PencilPlace place = pencil_place<Policy>(shape);
  const WallPencilPair pair = wall_pencil_pair(place, shape, n, fold);
  // Element e of the thread's pencil (its register m, e = t + m n / E) sits at this row:
  // Makhoul's shuffled order on the grid's side, natural on the coefficients' (and on
  // both sides of the DCT-III-first turnaround; reversed where the grid's side is).
  const auto row_of = [&](int m, bool shuffled) {
    const int e = place.t + m * kStride;
    if (shuffled) return cosine_shuffle_source(n, e);
    return grid_side.reversed ? std::int64_t{n - 1 - e} : std::int64_t{e};
  };
  constexpr bool kLoadShuffled = kFromGrid && !kDct3First, kStoreShuffled = kToGrid && !kDct3First;
  // The sign of the grid point a row holds, on the grid's side (alternating).
  const auto grid_sign = [&](std::int64_t row, bool grid) {
    return grid && grid_side.alternating && alternating_sign(row) < 0 ? T(-1) : T(1);
  };
  // Makhoul's post-processing of the DCT-II (DFT Z of the shuffled pencils to their
  // coefficients) and pre-processing of the DCT-III (coefficients to the DFT's input).
  const auto dct2_from_dft = [&](int k, PencilValue<T> z, PencilValue<T> mirror) {
    const PencilValue<T> w = quarter_twiddles[k];
    const T sum_re = z.re + mirror.re, sum_im = z.im - mirror.im;                // 2 V_a
    const T difference_re = z.re - mirror.re, difference_im = z.im + mirror.im;  // 2i V_b
    return PencilValue<T>{w.re * sum_re + w.im * sum_im, w.re * difference_im - w.im * difference_re};
  };
  const auto dft_for_dct3 = [&](int k, PencilValue<T> x, PencilValue<T> mirror) {
    const PencilValue<T> w = quarter_twiddles[k];
    const PencilValue<T> opposite = k == 0 ? PencilValue<T>{T(0), T(0)} : mirror;  // X_n = 0
    const T re = x.re + opposite.im, im = x.im - opposite.re;
    return PencilValue<T>{w.re * re - w.im * im, w.im * re + w.re * im};
  };
  PencilValue<T> v[E];
  load_wall_pencil_pair<Policy>(
      v, pair, shape, fold, source, [&](int m) { return row_of(m, kLoadShuffled); },
      [&](int m) { return grid_sign(row_of(m, kLoadShuffled), kFromGrid); });
  if constexpr (kDct3First) {
    // DCT-III, division, DCT-II (the mixed axes at vertices): the DCT-III leaves element e
    // holding coefficient cosine_shuffle_source(n, e), the order the DCT-II takes.
    static_assert(kStage == WallStage::turnaround, "a DCT-III first is the turnaround alone");
    combine_with_mirrors<Policy>(v, place, tile, dft_for_dct3);
    PencilFft<Policy, true>::run(v, place.t, place.pencil, twiddles, tile);
    divide_real_pencil_pair<Policy>(v, division, shape, place, pair,
                                    [](int e) { return cosine_shuffle_source(n, e); });
    PencilFft<Policy, false>::run(v, place.t, place.pencil, twiddles, tile);
    combine_with_mirrors<Policy>(v, place, tile, dct2_from_dft);
  } else {
    if constexpr (kStage != WallStage::inverse) {
      PencilFft<Policy, false>::run(v, place.t, place.pencil, twiddles, tile);
      combine_with_mirrors<Policy>(v, place, tile, dct2_from_dft);
    }
    if constexpr (kStage == WallStage::turnaround) {
      divide_real_pencil_pair<Policy>(v, division, shape, place, pair, [](int e) { return std::int64_t{e}; });
    }
    if constexpr (kStage != WallStage::forward) {
      combine_with_mirrors<Policy>(v, place, tile, dft_for_dct3);
      PencilFft<Policy, true>::run(v, place.t, place.pencil, twiddles, tile);
    }
  }
  store_wall_pencil_pair<Policy>(
      v, pair, shape, fold, target, [&](int m) { return row_of(m, kStoreShuffled); },
      [&](int m) { return grid_sign(row_of(m, kStoreShuffled), kToGrid); });
}

// A thread's share of the DCT-IV by pairs of real pencils of n = 2 Policy::length
// points (quarter_pencil_kernel, folded_quarter_pencil_turnaround_kernel).
template <class Policy>
struct QuarterPencil {
  using T = typename Policy::Value;
  static constexpr int E = Policy::items;
  static constexpr int n = 2 * Policy::length;
  static constexpr int kStride = Policy::length / E;
  const PencilValue<T>* quarter_twiddles;  // the pass's table (line_twiddle_angle)
  const PencilValue<T>* twiddles;          // the pencil FFT's
  PencilPlace place;

  // The thread's register m holds element (pair, mode) j = t + m n / 2E.
  __device__ int element(int m) const { return place.t + m * kStride; }
  // Pair j's DFT input from points 2j and n - 1 - 2j.
  __device__ PencilValue<T> pair(int j, T even, T odd) const {
    const PencilValue<T> w = quarter_twiddles[n + j];
    const HalfSpectrumValue<T> sample = quarter_pair_sample(even, odd, w.re, w.im);
    return {sample.re, sample.im};
  }
  // The DCT-IV of the pencil whose pairs v holds: v[m] becomes coefficients 2j and
  // n - 1 - 2j, j = element(m).
  __device__ void transform(PencilValue<T> (&v)[E], PencilValue<T>* tile) const {
    PencilFft<Policy, false>::run(v, place.t, place.pencil, twiddles, tile);
#pragma unroll
    for (int m = 0; m < E; ++m) {
      const int j = element(m);
      const PencilValue<T> w = quarter_twiddles[2 * j];
      v[m] = {quarter_pair_coefficient<T>(2 * j, w.re, w.im, v[m].re, v[m].im),
              quarter_pair_coefficient<T>(n - 1 - 2 * j, w.re, w.im, v[m].re, v[m].im)};
    }
  }
  // Each coefficient times its factor, as the next transform's pairs, and that transform.
  template <class Factors>
  __device__ void divide_and_transform(PencilValue<T> (&v)[E], bool active, const Factors& factors,
                                       PencilValue<T>* tile) const {
#pragma unroll
    for (int m = 0; m < E; ++m) {
      const int j = element(m);
      v[m] = active ? pair(j, v[m].re * factors(2 * j), v[m].im * factors(n - 1 - 2 * j)) : PencilValue<T>{T(0), T(0)};
    }
    transform(v, tile);
  }
};

// The quarter-wave transforms of a mixed axis at cells along pencils: DCT-IV, or DST-IV
// with `alternating` (grid point i taken and given times (-1)^i; the division's table
// for this axis reversed), each real pencil by one complex DFT of n / 2 pre-twiddled
// pairs (quarter_pair_sample, quarter_pair_coefficient: src/poisson_fft/wall_transforms.hpp).
// Complex pencil u (Policy::length = n / 2) is real pencil u (unit u; row_stride = the
// real pencils), its element j the pair of points 2j and n - 1 - 2j. Mode m gives
// coefficients 2m and n - 1 - 2m, the very pair the next transform's element m takes,
// so the turnaround divides and transforms again in registers; and since DCT-IV is its
// own inverse, every stage is the one transform, with the grid's signs where it reads
// or writes the grid. Reads `source`, writes `target` (may be the same array).
// `quarter_twiddles`: the pass's table (line_twiddle_angle: coefficient k's, then pair
// j's at n + j).
template <class Policy, WallStage kStage, class Division>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks)
    quarter_pencil_kernel(Division division, PencilShape shape, const PencilValue<typename Policy::Value>* twiddles,
                          const PencilValue<typename Policy::Value>* quarter_twiddles, bool alternating,
                          const typename Policy::Value* source, typename Policy::Value* target) {
  using T = typename Policy::Value;
  constexpr int E = Policy::items;
  constexpr int n = 2 * Policy::length;
  constexpr bool kFromGrid = kStage != WallStage::inverse, kToGrid = kStage != WallStage::forward;
  PencilValue<T>* tile = pencil_tile<T>();
  const QuarterPencil<Policy> quarter{quarter_twiddles, twiddles, pencil_place<Policy>(shape)};
  const PencilPlace& place = quarter.place;
  const bool active = place.unit < shape.pencils;  // the last tile of a problem may be short
  const std::int64_t first = place.problem * n * shape.row_stride + place.unit;
  const auto sign = [&](bool grid, int i) { return grid && alternating && alternating_sign(i) < 0 ? T(-1) : T(1); };
  PencilValue<T> v[E];
#pragma unroll
  for (int m = 0; m < E; ++m) {
    const int j = quarter.element(m), even = 2 * j, odd = n - 1 - 2 * j;
    v[m] = active ? quarter.pair(j, sign(kFromGrid, even) * source[first + even * shape.row_stride],
                                 sign(kFromGrid, odd) * source[first + odd * shape.row_stride])
                  : PencilValue<T>{T(0), T(0)};
  }
  quarter.transform(v, tile);
  if constexpr (kStage == WallStage::turnaround) {
    quarter.divide_and_transform(v, active, PencilFactors<Division>(division, shape, place.problem, place.unit), tile);
  }
  if (!active) return;
#pragma unroll
  for (int m = 0; m < E; ++m) {
    const int j = quarter.element(m), even = 2 * j, odd = n - 1 - 2 * j;
    target[first + even * shape.row_stride] = sign(kToGrid, even) * v[m].re;
    target[first + odd * shape.row_stride] = sign(kToGrid, odd) * v[m].im;
  }
}

// quarter_pencil_kernel's turnaround with the contiguous axis folded in, itself a mixed
// axis at cells of `fold.points` points (even) by pairs, its lines' C2C in place in
// `fold.spectrum` (`fold.modes` = points / 2 a line, PencilFold): unit u is mode
// c = u mod modes of line u / modes, which holds that axis's coefficients 2c and
// points - 1 - 2c (quarter_pair_coefficient), so a unit is two real pencils of this
// axis, transformed one after the other; on the way out the divided pair goes back into
// mode c as that axis's inverse takes it (quarter_pair_sample). In place.
template <class Policy, class Division>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks)
    folded_quarter_pencil_turnaround_kernel(Division division, PencilShape shape,
                                            const PencilValue<typename Policy::Value>* twiddles,
                                            const PencilValue<typename Policy::Value>* quarter_twiddles,
                                            bool alternating, PencilFold<typename Policy::Value> fold) {
  using T = typename Policy::Value;
  constexpr int E = Policy::items;
  constexpr int n = 2 * Policy::length;
  PencilValue<T>* tile = pencil_tile<T>();
  const QuarterPencil<Policy> quarter{quarter_twiddles, twiddles, pencil_place<Policy>(shape)};
  const PencilPlace& place = quarter.place;
  const bool active = place.unit < shape.pencils;
  const std::int64_t line = place.unit / fold.modes, c = place.unit - line * fold.modes;
  const std::int64_t even_column = line * fold.points + 2 * c;
  const std::int64_t odd_column = line * fold.points + fold.points - 1 - 2 * c;
  const std::int64_t slots = slots_a_row(fold, shape);
  PoissonComplex<T>* modes = fold.spectrum + place.problem * n * slots + line * fold.modes + c;
  const PoissonComplex<T> coefficient_twiddle = active ? fold.twiddles[2 * c] : PoissonComplex<T>{};
  const PoissonComplex<T> pair_twiddle = active ? fold.twiddles[fold.points + c] : PoissonComplex<T>{};
  const auto sign = [&](int i) { return alternating && alternating_sign(i) < 0 ? T(-1) : T(1); };
  // The folded axis's coefficients (2c, points - 1 - 2c) at row r of this axis.
  const auto coefficients_at = [&](int r) {
    const PoissonComplex<T> z = modes[r * slots];
    const T s = sign(r), w_re = coefficient_twiddle.re, w_im = coefficient_twiddle.im;
    return PencilValue<T>{s * quarter_pair_coefficient<T>(2 * c, w_re, w_im, z.re, z.im),
                          s * quarter_pair_coefficient<T>(fold.points - 1 - 2 * c, w_re, w_im, z.re, z.im)};
  };
  PencilValue<T> a[E], b[E];  // the real pencils of columns even_column and odd_column
#pragma unroll
  for (int m = 0; m < E; ++m) {
    const int j = quarter.element(m);
    const PencilValue<T> even = active ? coefficients_at(2 * j) : PencilValue<T>{T(0), T(0)};
    const PencilValue<T> odd = active ? coefficients_at(n - 1 - 2 * j) : PencilValue<T>{T(0), T(0)};
    a[m] = quarter.pair(j, even.re, odd.re);
    b[m] = quarter.pair(j, even.im, odd.im);
  }
  quarter.transform(a, tile);
  quarter.divide_and_transform(a, active, PencilFactors<Division>(division, shape, place.problem, even_column), tile);
  quarter.transform(b, tile);
  quarter.divide_and_transform(b, active, PencilFactors<Division>(division, shape, place.problem, odd_column), tile);
  if (!active) return;
#pragma unroll
  for (int m = 0; m < E; ++m) {
    const int j = quarter.element(m), even = 2 * j, odd = n - 1 - 2 * j;
    const HalfSpectrumValue<T> even_mode =
        quarter_pair_sample(sign(even) * a[m].re, sign(even) * b[m].re, pair_twiddle.re, pair_twiddle.im);
    const HalfSpectrumValue<T> odd_mode =
        quarter_pair_sample(sign(odd) * a[m].im, sign(odd) * b[m].im, pair_twiddle.re, pair_twiddle.im);
    modes[even * slots] = {even_mode.re, even_mode.im};
    modes[odd * slots] = {odd_mode.re, odd_mode.im};
  }
}

// A periodic axis's turnaround along pencils with the contiguous wall axis at cells
// folded in (PencilFold, WallPencilPair: that axis's coefficients c and n - c, or with
// kQuarterFold, a mixed axis by pairs, 2c and n - 1 - 2c, as the real and imaginary parts
// of pencil c, the periodic axis in natural order). The pencil's DFT Z holds both real
// pencils' DFTs, A_m = (Z_m + conj Z_-m) / 2 and B_m = (Z_m - conj Z_-m) / 2i, each
// divided by its own factor f_a, f_b (the first coefficient's and the second's), and
// A'_m + i B'_m = ((f_a + f_b) / 2) Z_m + ((f_a - f_b) / 2) conj Z_-m, the mirror read
// through shared memory; then the inverse DFT. In place in the fold's spectrum.
template <class Policy, bool kQuarterFold, class Division>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks)
    folded_pencil_turnaround_kernel(Division division, PencilShape shape,
                                    const PencilValue<typename Policy::Value>* twiddles,
                                    PencilFold<typename Policy::Value> fold) {
  using T = typename Policy::Value;
  constexpr int E = Policy::items;
  constexpr int kStride = Policy::length / E;
  PencilValue<T>* tile = pencil_tile<T>();
  const PencilPlace place = pencil_place<Policy>(shape);
  const WallPencilPair pair = wall_pencil_pair<kQuarterFold>(place, shape, Policy::length, fold);
  const auto row = [&](int m) { return std::int64_t{place.t + m * kStride}; };
  const auto unsigned_sample = [](int) { return T(1); };
  PencilValue<T> v[E];
  load_wall_pencil_pair<Policy, kQuarterFold>(v, pair, shape, fold, nullptr, row, unsigned_sample);
  PencilFft<Policy, false>::run(v, place.t, place.pencil, twiddles, tile);
  const PencilFactors<Division> first_factors(division, shape, place.problem, pair.first);
  const PencilFactors<Division> second_factors(division, shape, place.problem, pair.second);
  combine_with_mirrors<Policy>(v, place, tile, [&](int k, PencilValue<T> z, PencilValue<T> mirror) {
    const T first = pair.has_first ? first_factors(k) : T(0);
    const T second = pair.has_second ? second_factors(k) : T(0);
    const T sum = (first + second) / 2, difference = (first - second) / 2;
    return PencilValue<T>{sum * z.re + difference * mirror.re, sum * z.im - difference * mirror.im};
  });
  PencilFft<Policy, true>::run(v, place.t, place.pencil, twiddles, tile);
  store_wall_pencil_pair<Policy, kQuarterFold>(v, pair, shape, fold, nullptr, row, unsigned_sample);
}

// Two real pencils' DST-I coefficients from their complex pencil's DFT of their odd
// extensions, in place: (-Im, Re) (extension_pencil_kernel).
template <class T, int E>
__device__ void separate_odd_extension_spectra(PencilValue<T> (&v)[E]) {
#pragma unroll
  for (int m = 0; m < E; ++m) v[m] = {-v[m].im, v[m].re};
}

// The extension transforms of a wall axis along pencils, each its own inverse (any stage
// but the turnaround is the one transform): DST-I of a Dirichlet axis at vertices
// (kLine odd_extension, n = L / 2 - 1 points) or DCT-I of a Neumann axis at vertices
// (even_extension, n = L / 2 + 1), one DFT of length L (Policy::length) of the line's
// extension (src/poisson_fft/wall_transforms.hpp), two real pencils at once as the real
// and imaginary parts of one complex pencil. An extension's spectrum is imaginary (odd)
// or real (even), so U = U_a + i U_b separates without a mirror: DST-I coefficient k is
// Y_a[k] = -Im U[k + 1], Y_b[k] = Re U[k + 1]; DCT-I coefficient k is Y_a[k] = Re U[k],
// Y_b[k] = Im U[k]. The turnaround extends the divided coefficients in registers
// (element e past the line is the mirror's, element L - e, negated for the odd
// extension) and transforms again. Reads `source`, writes `target` (may be the same
// array); with `fold`, the folded axis's spectrum in place of either (WallPencilPair).
template <class Policy, WallStage kStage, WallLine kLine, class Division>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks)
    extension_pencil_kernel(Division division, PencilShape shape, const PencilValue<typename Policy::Value>* twiddles,
                            PencilFold<typename Policy::Value> fold, const typename Policy::Value* source,
                            typename Policy::Value* target) {
  static_assert(is_extension(kLine));
  using T = typename Policy::Value;
  constexpr bool kOdd = kLine == WallLine::odd_extension;
  constexpr int E = Policy::items;
  constexpr int kLength = Policy::length;
  constexpr int n = kOdd ? kLength / 2 - 1 : kLength / 2 + 1;
  constexpr int kFirst = kOdd ? 1 : 0;  // the element of coefficient 0
  constexpr int kStride = kLength / E;
  PencilValue<T>* tile = pencil_tile<T>();
  const PencilPlace place = pencil_place<Policy>(shape);
  const WallPencilPair pair = wall_pencil_pair(place, shape, n, fold);
  PencilValue<T> v[E];
  load_wall_pencil_pair<Policy>(
      v, pair, shape, fold, source,
      [&](int m) {
        const int e = place.t + m * kStride;
        return kOdd ? odd_extension_source(n, e).source : even_extension_source(n, e);
      },
      [&](int m) { return kOdd ? static_cast<T>(odd_extension_source(n, place.t + m * kStride).sign) : T(1); });
  PencilFft<Policy, false>::run(v, place.t, place.pencil, twiddles, tile);
  if constexpr (kOdd) separate_odd_extension_spectra(v);
  if constexpr (kStage == WallStage::turnaround) {
    divide_real_pencil_pair<Policy>(v, division, shape, place, pair, [](int e) {
      return e >= kFirst && e < n + kFirst ? std::int64_t{e - kFirst} : std::int64_t{-1};
    });
    // The divided coefficients' extension: element e holds coefficient e - kFirst on the
    // line; past it, the mirror's (element L - e), negated for the odd extension; 0 at
    // the odd extension's elements 0 and n + 1.
    combine_with_mirrors<Policy>(v, place, tile, [&](int e, PencilValue<T> own, PencilValue<T> mirror) {
      if (e >= kFirst && e < n + kFirst) return own;
      if constexpr (kOdd) {
        if (e >= n + 2) return PencilValue<T>{-mirror.re, -mirror.im};
        return PencilValue<T>{T(0), T(0)};
      } else {
        return mirror;
      }
    });
    PencilFft<Policy, false>::run(v, place.t, place.pencil, twiddles, tile);
    if constexpr (kOdd) separate_odd_extension_spectra(v);
  }
  // Coefficient (or sample) e - kFirst from element e.
  store_wall_pencil_pair<Policy>(
      v, pair, shape, fold, target,
      [&](int m) {
        const int e = place.t + m * kStride;
        return e >= kFirst && e < n + kFirst ? std::int64_t{e - kFirst} : std::int64_t{-1};
      },
      [](int) { return T(1); });
}

}  // namespace cunum::detail
