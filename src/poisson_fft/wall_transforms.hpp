#pragma once
// Internal: the sine and cosine transforms of a wall axis built on one real DFT, as the
// CUDA backend computes them (cuFFT has no real-to-real transforms). Each function is
// the per-sample step of a pre- or post-processing pass, shared by the kernels and by
// the host test that checks them against FFTW's real-to-real kinds (RODFT00, REDFT00,
// REDFT10, REDFT01, RODFT10, RODFT01, REDFT11, RODFT11).
//
// All three are unnormalised as FFTW defines them, on a line x_0 .. x_{n-1}:
//   DST-I   (RODFT00): Y_k = 2 sum_j x_j sin(pi (j + 1)(k + 1) / (n + 1))
//   DCT-II  (REDFT10): Y_k = 2 sum_j x_j cos(pi k (2j + 1) / (2n))
//   DCT-III (REDFT01): Y_k = X_0 + 2 sum_{j>=1} X_j cos(pi j (2k + 1) / (2n))
//
// DCT-II and DCT-III (J. Makhoul, "A fast cosine transform in one and two dimensions",
// IEEE Trans. ASSP 28(1), 1980): one real DFT of the same length n.
//   forward  v_j = x_{p(j)} with p(j) = 2j (2j < n), 2(n - j) - 1 (otherwise), then
//            V = DFT(v) (R2C, modes 0 .. n/2), Y_k = 2 Re(exp(-i pi k / 2n) V_k), where
//            V_k = conj(V_{n-k}) for k > n/2;
//   inverse  Z_k = exp(i pi k / 2n) (X_k - i X_{n-k}), k = 0 .. n/2 (X_n = 0), a
//            Hermitian half spectrum; v = C2R(Z) (unnormalised), y_{p(j)} = v_j.
// DST-I: the DFT of the odd extension of length 2(n + 1), u_0 = u_{n+1} = 0,
//   u_{j+1} = x_j, u_{2n+1-j} = -x_j, has U_m = -2i sum_j x_j sin(pi (j + 1) m / (n + 1)),
//   so Y_k = -Im U_{k+1}: one R2C of length 2(n + 1) per line, along this axis only.

//
// The other transforms reduce to these, or to the same steps at another length:
// - DCT-I (REDFT00, Neumann walls at vertices): the DFT of the even extension of length
//   2(n - 1), u_e = x_e for e <= n - 1 and x_{2(n-1)-e} beyond, whose modes are real:
//   Y_k = Re U_k.
// - DST-II and DST-III (RODFT10, RODFT01) by alternating signs and reversal, with
//   s_j = (-1)^j: RODFT10(x)_k = REDFT10(s x)_{n-1-k} and RODFT01(X) = s REDFT01(X
//   reversed). So a Dirichlet axis at cells is a Neumann one whose grid samples are
//   multiplied by s on the way in and out, its coefficients in reverse order.
// - DCT-IV (REDFT11), n even (n >= 4): one complex DFT of n / 2 points (the usual
//   algorithm; e.g. H. S. Malvar, "Signal Processing with Lapped Transforms", Artech
//   House, 1992). The pairs z_j = (x_{2j} + i x_{n-1-2j}) exp(-i pi (4j + 1) / 4n),
//   j < n / 2, their DFT Z, and w_m = Z_m exp(-i pi m / n) give Y_{2m} = 2 Re w_m and
//   Y_{n-1-2m} = -2 Im w_m: coefficients 2m and n - 1 - 2m come from mode m alone, and
//   the inverse (DCT-IV again) takes them as the same pair. Odd n and n = 2 (whose C2C
//   would be of one point): the odd outputs of the DCT-II of length 2n of x padded with
//   n zeros, Y_k = REDFT10_2n(x, 0)_{2k+1} (Makhoul's steps at length 2n, twice the
//   data). DST-IV (RODFT11) is RODFT11(x)_k = REDFT11(s x)_{n-1-k}, the same signs and
//   reversal.
// - The mixed axes at vertices: DCT-III forward and DCT-II back (neumann_dirichlet), and
//   RODFT01(x) = s REDFT01(x reversed), RODFT10(c) = REDFT10(s c) reversed
//   (dirichlet_neumann: the signs cancel between the two, the reversals stay).

#include <cstdint>

#include "cunum/device/detail/host_device.hpp"

namespace cunum::detail {

// Makhoul's permutation p: the grid point that sample j of the shuffled line holds.
CUNUM_HOST_DEVICE inline std::int64_t cosine_shuffle_source(std::int64_t n, std::int64_t j) {
  return 2 * j < n ? 2 * j : 2 * (n - j) - 1;
}

// p's inverse: the sample of the shuffled line that holds grid point i.
CUNUM_HOST_DEVICE inline std::int64_t cosine_shuffle_position(std::int64_t n, std::int64_t i) {
  return i % 2 == 0 ? i / 2 : n - (i + 1) / 2;
}

// Where DCT-II coefficient k finds its DFT mode in the half spectrum (modes 0 .. n/2);
// modes above n/2 are the conjugates of these.
CUNUM_HOST_DEVICE inline std::int64_t cosine_spectrum_index(std::int64_t n, std::int64_t k) {
  return 2 * k <= n ? k : n - k;
}

// DCT-II coefficient k from the half-spectrum value (re, im) at cosine_spectrum_index,
// with (cos, sin)(pi k / 2n).
template <class T>
CUNUM_HOST_DEVICE inline T cosine_coefficient(std::int64_t n, std::int64_t k, T cos_twiddle, T sin_twiddle, T re,
                                              T im) {
  const T imaginary = 2 * k <= n ? im : -im;
  return 2 * (cos_twiddle * re + sin_twiddle * imaginary);
}

template <class T>
struct HalfSpectrumValue {
  T re;
  T im;
};

// Mode k (0 .. n/2) of the half spectrum whose C2R is the shuffled DCT-III, from the
// coefficients X_k (`coefficient`) and X_{n-k} (`mirror`, 0 for k = 0), with
// (cos, sin)(pi k / 2n).
template <class T>
CUNUM_HOST_DEVICE inline HalfSpectrumValue<T> cosine_inverse_mode(T cos_twiddle, T sin_twiddle, T coefficient,
                                                                  T mirror) {
  return {cos_twiddle * coefficient + sin_twiddle * mirror, sin_twiddle * coefficient - cos_twiddle * mirror};
}

// Sample e of a line's odd extension (length 2(n + 1)): grid point `source` times
// `sign`, or 0 (sign 0) at the walls.
struct OddExtensionSource {
  std::int64_t source;
  int sign;
};

CUNUM_HOST_DEVICE inline OddExtensionSource odd_extension_source(std::int64_t n, std::int64_t e) {
  if (e == 0 || e == n + 1) return {0, 0};
  if (e <= n) return {e - 1, 1};
  return {2 * n + 1 - e, -1};
}

// The DFT mode of the odd extension whose imaginary part, negated, is DST-I coefficient k.
CUNUM_HOST_DEVICE inline std::int64_t sine_spectrum_index(std::int64_t k) { return k + 1; }

// The grid point that sample e of a line's even extension (length 2(n - 1), n >= 2)
// holds; its DFT mode k, real, is DCT-I coefficient k.
CUNUM_HOST_DEVICE inline std::int64_t even_extension_source(std::int64_t n, std::int64_t e) {
  return e <= n - 1 ? e : 2 * (n - 1) - e;
}

// s_i = (-1)^i, the sign that turns the cosine transforms of types II, III and IV into
// the sine ones (with reversal, above).
CUNUM_HOST_DEVICE inline int alternating_sign(std::int64_t i) { return i % 2 == 0 ? 1 : -1; }

// Sample j of the shuffled line of length 2n whose Makhoul DCT-II gives DCT-IV: grid
// point cosine_shuffle_source(2n, j) where it is one (< n), else 0 (the padding);
// `source` is -1 for the padding.
CUNUM_HOST_DEVICE inline std::int64_t quarter_shuffle_source(std::int64_t n, std::int64_t j) {
  const std::int64_t i = cosine_shuffle_source(2 * n, j);
  return i < n ? i : -1;
}

// DCT-IV by pairs: the mode m < n / 2 that coefficient k comes from (k = 2m or
// n - 1 - 2m), which is also the pair the inverse's sample m takes.
CUNUM_HOST_DEVICE inline std::int64_t quarter_pair_mode(std::int64_t n, std::int64_t k) {
  return k % 2 == 0 ? k / 2 : (n - 1 - k) / 2;
}

// DCT-IV coefficient k from its mode Z_m = (re, im) and (cos, sin)(pi m / n),
// m = quarter_pair_mode(n, k): 2 Re w_m (k even) or -2 Im w_m (k odd), w_m = Z_m e^{-i pi m / n}.
template <class T>
CUNUM_HOST_DEVICE inline T quarter_pair_coefficient(std::int64_t k, T cos_twiddle, T sin_twiddle, T re, T im) {
  return k % 2 == 0 ? 2 * (cos_twiddle * re + sin_twiddle * im) : 2 * (sin_twiddle * re - cos_twiddle * im);
}

// Sample j of the complex line whose DFT of n / 2 points gives DCT-IV: (even + i odd)
// exp(-i pi (4j + 1) / 4n), from even = x_{2j}, odd = x_{n-1-2j} and that angle's
// (cos, sin).
template <class T>
CUNUM_HOST_DEVICE inline HalfSpectrumValue<T> quarter_pair_sample(T even, T odd, T cos_twiddle, T sin_twiddle) {
  return {even * cos_twiddle + odd * sin_twiddle, odd * cos_twiddle - even * sin_twiddle};
}

// --- a wall pass, as the CUDA backend composes the steps above ---

// How a wall pass makes its R2C input and reads its coefficients.
enum class WallLine {
  odd_extension,   // DST-I: the R2C of the odd extension, 2(n + 1); its own inverse
  even_extension,  // DCT-I: the R2C of the even extension, 2(n - 1); its own inverse
  cosine,          // Makhoul: DCT-II by an R2C of n, DCT-III by a C2R of n
  quarter_cosine,  // DCT-IV, odd n and n = 2: Makhoul's DCT-II of the line padded with n zeros, an R2C of 2n; its own inverse
  quarter_pairs,   // DCT-IV, even n >= 4: the complex DFT of n / 2 pre-twiddled pairs (a C2C); its own inverse
};

// What a pass does to its axis's grid samples, on the way in and on the way out (never
// to its coefficients): read or write sample i as sample n - 1 - i (`reversed`), times
// (-1)^i (`alternating`). These turn the cosine transforms into the sine ones.
struct GridSide {
  bool alternating;
  bool reversed;
};

// A sample as a pass takes it: value `source` times `sign` (sign 0: a zero sample).
struct PassSample {
  std::int64_t source;
  int sign;
};

// Sample e of the R2C input `line` makes of a line's n values (a cosine line padded
// beyond n with zeros, for an R2C in place). Not for quarter_pairs, whose samples are
// complex (quarter_pair_sample).
CUNUM_HOST_DEVICE inline PassSample line_sample(WallLine line, std::int64_t n, std::int64_t e) {
  switch (line) {
    case WallLine::odd_extension: {
      if (e >= 2 * (n + 1)) return {0, 0};  // past the extension: padding (an R2C in place)
      const OddExtensionSource source = odd_extension_source(n, e);
      return {source.source, source.sign};
    }
    case WallLine::even_extension:
      if (e >= 2 * (n - 1)) return {0, 0};  // past the extension: padding (an R2C in place)
      return {even_extension_source(n, e), 1};
    case WallLine::quarter_cosine: {
      const std::int64_t i = quarter_shuffle_source(n, e);
      return {i < 0 ? 0 : i, i < 0 ? 0 : 1};
    }
    default: return e < n ? PassSample{cosine_shuffle_source(n, e), 1} : PassSample{0, 0};  // past n: padding
  }
}

// Grid point i of the axis as a pass with `side` reads or writes it: value `source` of
// its line (a sample on the way in, a coefficient on the way out) times `sign`.
CUNUM_HOST_DEVICE inline PassSample grid_side_sample(GridSide side, std::int64_t n, std::int64_t i) {
  return {side.reversed ? n - 1 - i : i, side.alternating ? alternating_sign(i) : 1};
}

// The R2C mode that real coefficient k of `line` is read from.
CUNUM_HOST_DEVICE inline std::int64_t line_coefficient_mode(WallLine line, std::int64_t n, std::int64_t k) {
  switch (line) {
    case WallLine::odd_extension: return sine_spectrum_index(k);
    case WallLine::even_extension: return k;
    case WallLine::quarter_cosine: return cosine_spectrum_index(2 * n, 2 * k + 1);
    case WallLine::quarter_pairs: return quarter_pair_mode(n, k);
    default: return cosine_spectrum_index(n, k);
  }
}

// Real coefficient k of `line` from its mode (re, im) and the pass's twiddle k
// (line_twiddle_angle; unused by the extensions).
template <class T>
CUNUM_HOST_DEVICE inline T line_coefficient(WallLine line, std::int64_t n, std::int64_t k, T cos_twiddle,
                                            T sin_twiddle, T re, T im) {
  switch (line) {
    case WallLine::odd_extension: return -im;
    case WallLine::even_extension: return re;
    case WallLine::quarter_cosine: return cosine_coefficient(2 * n, 2 * k + 1, cos_twiddle, sin_twiddle, re, im);
    case WallLine::quarter_pairs: return quarter_pair_coefficient(k, cos_twiddle, sin_twiddle, re, im);
    default: return cosine_coefficient(n, k, cos_twiddle, sin_twiddle, re, im);
  }
}

// Whether `line` is one of the extensions (a transform that is its own inverse, at
// vertices: DST-I, DCT-I).
CUNUM_HOST_DEVICE constexpr bool is_extension(WallLine line) {
  return line == WallLine::odd_extension || line == WallLine::even_extension;
}

// Whether a pass of `line` takes twiddles, how many, and the angle of twiddle k:
// coefficient k's, k < n: pi k / 2n (cosine), pi (2k + 1) / 4n (quarter_cosine),
// pi quarter_pair_mode(n, k) / n (quarter_pairs); then, for quarter_pairs only, sample
// j's at k = n + j, j < n / 2: pi (4j + 1) / 4n.
inline bool line_has_twiddles(WallLine line) {
  return line == WallLine::cosine || line == WallLine::quarter_cosine || line == WallLine::quarter_pairs;
}
inline std::int64_t line_twiddle_count(WallLine line, std::int64_t n) {
  return line == WallLine::quarter_pairs ? n + n / 2 : n;
}
inline double line_twiddle_angle(WallLine line, std::int64_t n, std::int64_t k) {
  constexpr double kPi = 3.14159265358979323846;
  const double size = static_cast<double>(n);
  switch (line) {
    case WallLine::quarter_cosine: return kPi * static_cast<double>(2 * k + 1) / (4.0 * size);
    case WallLine::quarter_pairs:
      return k < n ? kPi * static_cast<double>(quarter_pair_mode(n, k)) / size
                   : kPi * static_cast<double>(4 * (k - n) + 1) / (4.0 * size);
    default: return kPi * static_cast<double>(k) / (2.0 * size);
  }
}

// The element of a C2R's output line that holds grid point i of `line`'s transform:
// Makhoul's unshuffle (cosine: DCT-III of n), sample i + 1 of the odd extension
// (odd_extension: DST-I as the C2R of an imaginary half spectrum of 2(n + 1)) or sample
// i of the even extension (even_extension: DCT-I as the C2R of a real one of 2(n - 1)).
CUNUM_HOST_DEVICE inline std::int64_t c2r_line_position(WallLine line, std::int64_t n, std::int64_t i) {
  switch (line) {
    case WallLine::odd_extension: return i + 1;
    case WallLine::even_extension: return i;
    default: return cosine_shuffle_position(n, i);
  }
}

}  // namespace cunum::detail
