#pragma once
// Internal: the sine and cosine transforms of a wall axis built on one real DFT, as the
// CUDA backend computes them (cuFFT has no real-to-real transforms). Each function is
// the per-sample step of a pre- or post-processing pass, shared by the kernels and by
// the host test that checks them against FFTW's RODFT00, REDFT10 and REDFT01.
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

}  // namespace cunum::detail
