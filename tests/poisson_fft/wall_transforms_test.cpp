// The CUDA backend's wall transforms (src/poisson_fft/wall_transforms.hpp), run on the
// host around FFTW's real DFTs exactly as the kernels run them around cuFFT's, against
// FFTW's own real-to-real transforms: DST-I (RODFT00), DCT-I (REDFT00), DCT-II
// (REDFT10), DCT-III (REDFT01), DST-II and DST-III (RODFT10, RODFT01) by signs and
// reversal, DCT-IV (REDFT11) by Makhoul's steps at 2n and by a complex DFT of n / 2
// pre-twiddled pairs, DST-IV (RODFT11), at even, odd,
// prime and badly factored lengths; and every wall pass as the CUDA backend composes it
// (wall_pass_kind and the per-sample steps its kernels call) around a division, against
// FFTW's pair of kinds for that boundary and centring. This proves the pre- and
// post-processing algebra without a device. Also the backend's axis orders: its
// division's rows run along an axis of more than one point.

#include <fftw3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "poisson_reference.hpp"
#include "src/poisson_fft/poisson_layout.hpp"
#include "src/poisson_fft/wall_passes.hpp"
#include "src/poisson_fft/wall_transforms.hpp"
#include "test_support.hpp"

namespace {

using cunum::detail::AxisOrder;
using cunum::detail::AxisTransform;
using cunum::detail::GridSide;
using cunum::detail::PassSample;
using cunum::detail::WallLine;
using cunum::detail::WallPassKind;
using cunum::detail::alternating_sign;
using cunum::detail::grid_side_sample;
using cunum::detail::line_coefficient;
using cunum::detail::line_coefficient_mode;
using cunum::detail::line_sample;
using cunum::detail::line_twiddle_angle;
using cunum::detail::wall_pass_kind;
using cunum::detail::cosine_coefficient;
using cunum::detail::cosine_inverse_mode;
using cunum::detail::cosine_shuffle_position;
using cunum::detail::cosine_shuffle_source;
using cunum::detail::cosine_spectrum_index;
using cunum::detail::even_extension_source;
using cunum::detail::odd_extension_source;
using cunum::detail::quarter_pair_coefficient;
using cunum::detail::quarter_pair_mode;
using cunum::detail::quarter_pair_sample;
using cunum::detail::quarter_shuffle_source;
using cunum::detail::sine_spectrum_index;

constexpr double kPi = 3.14159265358979323846;
const std::vector<std::int64_t> kLengths = {1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 31, 64, 100, 241, 1000, 1023};

std::vector<double> fftw_real_to_real(const std::vector<double>& x, fftw_r2r_kind kind) {
  std::vector<double> in = x, out(x.size());
  fftw_plan plan = fftw_plan_r2r_1d(static_cast<int>(x.size()), in.data(), out.data(), kind, FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return out;
}

std::vector<std::complex<double>> fftw_forward(std::vector<double> v) {
  std::vector<std::complex<double>> spectrum(v.size() / 2 + 1);
  fftw_plan plan = fftw_plan_dft_r2c_1d(static_cast<int>(v.size()), v.data(),
                                        reinterpret_cast<fftw_complex*>(spectrum.data()), FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return spectrum;
}

std::vector<double> fftw_inverse(std::vector<std::complex<double>> spectrum, std::int64_t n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  fftw_plan plan = fftw_plan_dft_c2r_1d(static_cast<int>(n), reinterpret_cast<fftw_complex*>(spectrum.data()),
                                        v.data(), FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return v;
}

// (cos, sin)(pi k / 2n), as the CUDA backend tabulates them.
std::vector<std::complex<double>> fftw_complex_forward(std::vector<std::complex<double>> v) {
  std::vector<std::complex<double>> spectrum(v.size());
  fftw_plan plan = fftw_plan_dft_1d(static_cast<int>(v.size()), reinterpret_cast<fftw_complex*>(v.data()),
                                    reinterpret_cast<fftw_complex*>(spectrum.data()), FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return spectrum;
}

// The DFT of n / 2 of DCT-IV's pairs (quarter_pair_sample) of the values value(i), as
// the quarter_pairs pass forms them (its twiddles from line_twiddle_angle).
template <class Value>
std::vector<std::complex<double>> quarter_pairs_spectrum(std::int64_t n, const Value& value) {
  std::vector<std::complex<double>> pairs(static_cast<std::size_t>(n / 2));
  for (std::int64_t j = 0; j < n / 2; ++j) {
    const double angle = line_twiddle_angle(WallLine::quarter_pairs, n, n + j);
    const auto z = quarter_pair_sample(value(2 * j), value(n - 1 - 2 * j), std::cos(angle), std::sin(angle));
    pairs[j] = {z.re, z.im};
  }
  return fftw_complex_forward(pairs);
}

std::complex<double> twiddle(std::int64_t n, std::int64_t k) {
  const double angle = kPi * static_cast<double>(k) / (2.0 * static_cast<double>(n));
  return {std::cos(angle), std::sin(angle)};
}

std::vector<double> sine_by_odd_extension(const std::vector<double>& x) {
  const auto n = static_cast<std::int64_t>(x.size());
  std::vector<double> extension(static_cast<std::size_t>(2 * (n + 1)));
  for (std::int64_t e = 0; e < 2 * (n + 1); ++e) {
    const auto s = odd_extension_source(n, e);
    extension[e] = s.sign == 0 ? 0.0 : s.sign * x[s.source];
  }
  const auto spectrum = fftw_forward(extension);
  std::vector<double> y(x.size());
  for (std::int64_t k = 0; k < n; ++k) y[k] = -spectrum[sine_spectrum_index(k)].imag();
  return y;
}

std::vector<double> cosine_by_makhoul(const std::vector<double>& x) {
  const auto n = static_cast<std::int64_t>(x.size());
  std::vector<double> shuffled(x.size());
  for (std::int64_t j = 0; j < n; ++j) shuffled[j] = x[cosine_shuffle_source(n, j)];
  const auto spectrum = fftw_forward(shuffled);
  std::vector<double> y(x.size());
  for (std::int64_t k = 0; k < n; ++k) {
    const std::complex<double> w = twiddle(n, k), v = spectrum[cosine_spectrum_index(n, k)];
    y[k] = cosine_coefficient(n, k, w.real(), w.imag(), v.real(), v.imag());
  }
  return y;
}

std::vector<double> inverse_cosine_by_makhoul(const std::vector<double>& coefficients) {
  const auto n = static_cast<std::int64_t>(coefficients.size());
  std::vector<std::complex<double>> spectrum(static_cast<std::size_t>(n / 2 + 1));
  for (std::int64_t m = 0; m <= n / 2; ++m) {
    const std::complex<double> w = twiddle(n, m);
    const auto z = cosine_inverse_mode(w.real(), w.imag(), coefficients[m], m == 0 ? 0.0 : coefficients[n - m]);
    spectrum[m] = {z.re, z.im};
  }
  const std::vector<double> shuffled = fftw_inverse(spectrum, n);
  std::vector<double> y(coefficients.size());
  for (std::int64_t i = 0; i < n; ++i) y[i] = shuffled[cosine_shuffle_position(n, i)];
  return y;
}

std::vector<double> cosine_by_even_extension(const std::vector<double>& x) {
  const auto n = static_cast<std::int64_t>(x.size());
  std::vector<double> extension(static_cast<std::size_t>(2 * (n - 1)));
  for (std::int64_t e = 0; e < 2 * (n - 1); ++e) extension[e] = x[even_extension_source(n, e)];
  const auto spectrum = fftw_forward(extension);
  std::vector<double> y(x.size());
  for (std::int64_t k = 0; k < n; ++k) y[k] = spectrum[k].real();
  return y;
}

// DCT-IV: Makhoul's DCT-II at length 2n of the zero-padded line, its odd outputs.
std::vector<double> quarter_cosine_by_makhoul(const std::vector<double>& x) {
  const auto n = static_cast<std::int64_t>(x.size());
  std::vector<double> shuffled(static_cast<std::size_t>(2 * n));
  for (std::int64_t j = 0; j < 2 * n; ++j) {
    const std::int64_t i = quarter_shuffle_source(n, j);
    shuffled[j] = i < 0 ? 0.0 : x[i];
  }
  const auto spectrum = fftw_forward(shuffled);
  std::vector<double> y(x.size());
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t odd = 2 * k + 1;
    const std::complex<double> w = twiddle(2 * n, odd), v = spectrum[cosine_spectrum_index(2 * n, odd)];
    y[k] = cosine_coefficient(2 * n, odd, w.real(), w.imag(), v.real(), v.imag());
  }
  return y;
}

// DCT-IV by pairs, n even: coefficient k from mode quarter_pair_mode(n, k) of the
// pairs' DFT.
std::vector<double> quarter_cosine_by_pairs(const std::vector<double>& x) {
  const auto n = static_cast<std::int64_t>(x.size());
  const auto spectrum = quarter_pairs_spectrum(n, [&](std::int64_t i) { return x[i]; });
  std::vector<double> y(x.size());
  for (std::int64_t k = 0; k < n; ++k) {
    const double angle = line_twiddle_angle(WallLine::quarter_pairs, n, k);
    const std::complex<double> mode = spectrum[quarter_pair_mode(n, k)];
    y[k] = quarter_pair_coefficient(k, std::cos(angle), std::sin(angle), mode.real(), mode.imag());
  }
  return y;
}

std::vector<double> alternated(std::vector<double> x) {
  for (std::size_t i = 0; i < x.size(); ++i) x[i] *= alternating_sign(static_cast<std::int64_t>(i));
  return x;
}

std::vector<double> reversed(std::vector<double> x) {
  std::reverse(x.begin(), x.end());
  return x;
}

double relative_difference(const std::vector<double>& actual, const std::vector<double>& expected) {
  double worst = 0, scale = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    worst = std::max(worst, std::abs(actual[i] - expected[i]));
    scale = std::max(scale, std::abs(expected[i]));
  }
  return worst / scale;
}

TEST(PoissonWallTransforms, ShuffleIsAPermutationAndPositionItsInverse) {
  for (std::int64_t n : kLengths) {
    std::vector<int> hits(static_cast<std::size_t>(n), 0);
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t i = cosine_shuffle_source(n, j);
      ASSERT_GE(i, 0);
      ASSERT_LT(i, n);
      ++hits[i];
      EXPECT_EQ(cosine_shuffle_position(n, i), j) << "n = " << n;
    }
    EXPECT_TRUE(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; })) << "n = " << n;
  }
}

TEST(PoissonWallTransforms, SineByOddExtensionIsRodft00) {
  for (std::int64_t n : kLengths) {
    const auto x = cunum::testing::random_vector<double>(static_cast<std::size_t>(n), 10 + n);
    EXPECT_LE(relative_difference(sine_by_odd_extension(x), fftw_real_to_real(x, FFTW_RODFT00)), 1e-13)
        << "n = " << n;
  }
}

TEST(PoissonWallTransforms, CosineByMakhoulIsRedft10) {
  for (std::int64_t n : kLengths) {
    const auto x = cunum::testing::random_vector<double>(static_cast<std::size_t>(n), 20 + n);
    EXPECT_LE(relative_difference(cosine_by_makhoul(x), fftw_real_to_real(x, FFTW_REDFT10)), 1e-13) << "n = " << n;
  }
}

TEST(PoissonWallTransforms, InverseCosineByMakhoulIsRedft01) {
  for (std::int64_t n : kLengths) {
    const auto x = cunum::testing::random_vector<double>(static_cast<std::size_t>(n), 30 + n);
    EXPECT_LE(relative_difference(inverse_cosine_by_makhoul(x), fftw_real_to_real(x, FFTW_REDFT01)), 1e-13)
        << "n = " << n;
  }
}

TEST(PoissonWallTransforms, CosineByEvenExtensionIsRedft00) {
  for (std::int64_t n : kLengths) {
    if (n < 2) continue;  // DCT-I needs both end points
    const auto x = cunum::testing::random_vector<double>(static_cast<std::size_t>(n), 50 + n);
    EXPECT_LE(relative_difference(cosine_by_even_extension(x), fftw_real_to_real(x, FFTW_REDFT00)), 1e-13)
        << "n = " << n;
  }
}

// Dirichlet walls at cells (DST-II forward, DST-III back) and the sine halves of the
// mixed axes at vertices, through the cosine transforms.
TEST(PoissonWallTransforms, SinesOfTypesTwoAndThreeBySignsAndReversal) {
  for (std::int64_t n : kLengths) {
    const auto x = cunum::testing::random_vector<double>(static_cast<std::size_t>(n), 60 + n);
    EXPECT_LE(relative_difference(reversed(cosine_by_makhoul(alternated(x))), fftw_real_to_real(x, FFTW_RODFT10)),
              1e-13)
        << "n = " << n;
    EXPECT_LE(relative_difference(alternated(inverse_cosine_by_makhoul(reversed(x))),
                                  fftw_real_to_real(x, FFTW_RODFT01)),
              1e-13)
        << "n = " << n;
  }
}

TEST(PoissonWallTransforms, QuarterWaveTransformsByMakhoulAtTwiceTheLength) {
  for (std::int64_t n : kLengths) {
    const auto x = cunum::testing::random_vector<double>(static_cast<std::size_t>(n), 70 + n);
    EXPECT_LE(relative_difference(quarter_cosine_by_makhoul(x), fftw_real_to_real(x, FFTW_REDFT11)), 1e-13)
        << "n = " << n;
    EXPECT_LE(relative_difference(reversed(quarter_cosine_by_makhoul(alternated(x))),
                                  fftw_real_to_real(x, FFTW_RODFT11)),
              1e-13)
        << "n = " << n;
  }
}

TEST(PoissonWallTransforms, QuarterWaveTransformsByPairsAtTheSameLength) {
  for (std::int64_t n : kLengths) {
    if (n % 2 != 0) continue;
    const auto x = cunum::testing::random_vector<double>(static_cast<std::size_t>(n), 75 + n);
    EXPECT_LE(relative_difference(quarter_cosine_by_pairs(x), fftw_real_to_real(x, FFTW_REDFT11)), 1e-13)
        << "n = " << n;
    EXPECT_LE(relative_difference(reversed(quarter_cosine_by_pairs(alternated(x))), fftw_real_to_real(x, FFTW_RODFT11)),
              1e-13)
        << "n = " << n;
    std::vector<double> twice = quarter_cosine_by_pairs(quarter_cosine_by_pairs(x));
    for (auto& v : twice) v /= static_cast<double>(2 * n);
    EXPECT_LE(relative_difference(twice, x), 1e-13) << "n = " << n;
  }
}

// The solve's sine passes keep their coefficients in the cosine pass's order (reversed)
// and apply the signs on the grid side only: f -> s, cosine forward, divide by the
// reversed eigenvalues, cosine back, -> s is the sine solve (cell: DST-II/III, and
// DST-IV); the mixed vertex axis reverses on the grid side and its signs cancel.
TEST(PoissonWallTransforms, SineSolvesAreCosineSolvesWithGridSideSignsOrReversal) {
  for (std::int64_t n : kLengths) {
    const auto f = cunum::testing::random_vector<double>(static_cast<std::size_t>(n), 80 + n);
    std::vector<double> eigenvalues(f.size());
    for (std::int64_t k = 0; k < n; ++k) eigenvalues[k] = -1.0 - 0.37 * static_cast<double>(k * k);
    const auto divided = [&](std::vector<double> c, bool reverse_table) {
      for (std::int64_t k = 0; k < n; ++k) c[k] /= eigenvalues[reverse_table ? n - 1 - k : k];
      return c;
    };
    // Dirichlet at cells.
    const auto expected_cell = fftw_real_to_real(divided(fftw_real_to_real(f, FFTW_RODFT10), false), FFTW_RODFT01);
    const auto cell = alternated(inverse_cosine_by_makhoul(divided(cosine_by_makhoul(alternated(f)), true)));
    EXPECT_LE(relative_difference(cell, expected_cell), 1e-13) << "n = " << n;
    // dirichlet_neumann at cells (DST-IV both ways).
    const auto expected_quarter = fftw_real_to_real(divided(fftw_real_to_real(f, FFTW_RODFT11), false), FFTW_RODFT11);
    const auto quarter = alternated(quarter_cosine_by_makhoul(divided(quarter_cosine_by_makhoul(alternated(f)), true)));
    EXPECT_LE(relative_difference(quarter, expected_quarter), 1e-13) << "n = " << n;
    // dirichlet_neumann at vertices (DST-III forward, DST-II back).
    const auto expected_vertex = fftw_real_to_real(divided(fftw_real_to_real(f, FFTW_RODFT01), false), FFTW_RODFT10);
    const auto vertex = reversed(cosine_by_makhoul(divided(inverse_cosine_by_makhoul(reversed(f)), false)));
    EXPECT_LE(relative_difference(vertex, expected_vertex), 1e-13) << "n = " << n;
  }
}

// --- every wall pass as the CUDA backend runs it ---

// The line of a pass whose forward is the DCT-III, as transform_lines leaves it: the
// C2R of the half spectrum made of the grid's values f (the shuffled coefficients).
std::vector<double> dct3_forward_line(const WallPassKind& kind, const std::vector<double>& f) {
  const auto n = static_cast<std::int64_t>(f.size());
  const auto on_grid = [&](std::int64_t i) {
    const PassSample at = grid_side_sample(kind.grid_side, n, i);
    return at.sign * f[at.source];
  };
  std::vector<std::complex<double>> spectrum(static_cast<std::size_t>(n / 2 + 1));
  for (std::int64_t k = 0; k <= n / 2; ++k) {
    const std::complex<double> w = twiddle(n, k);
    const auto z = cosine_inverse_mode(w.real(), w.imag(), on_grid(k), k == 0 ? 0.0 : on_grid(n - k));
    spectrum[k] = {z.re, z.im};
  }
  return fftw_inverse(spectrum, n);
}

// A pass's forward DFT of the values value(i) (make_lines, forward_lines): the R2C of
// its line, or quarter_pairs' C2C of its pairs.
template <class Value>
std::vector<std::complex<double>> forward_spectrum(const WallPassKind& kind, std::int64_t n, const Value& value) {
  if (kind.line == WallLine::quarter_pairs) return quarter_pairs_spectrum(n, value);
  std::vector<double> line(static_cast<std::size_t>(kind.length));
  for (std::int64_t e = 0; e < kind.length; ++e) {
    const PassSample sample = line_sample(kind.line, n, e);
    line[e] = sample.sign == 0 ? 0.0 : sample.sign * value(sample.source);
  }
  return fftw_forward(line);
}

// The pass's forward, as transform_lines and store_coefficients run it: the grid's
// values f to the coefficients.
std::vector<double> pass_forward(const WallPassKind& kind, const std::vector<double>& f) {
  const auto n = static_cast<std::int64_t>(f.size());
  const auto on_grid = [&](std::int64_t i) {
    const PassSample at = grid_side_sample(kind.grid_side, n, i);
    return at.sign * f[at.source];
  };
  std::vector<double> c(f.size());
  if (kind.dct3_forward) {
    const std::vector<double> shuffled = dct3_forward_line(kind, f);
    for (std::int64_t i = 0; i < n; ++i) c[i] = shuffled[cosine_shuffle_position(n, i)];
    return c;
  }
  const auto spectrum = forward_spectrum(kind, n, on_grid);
  for (std::int64_t k = 0; k < n; ++k) {
    const double angle = line_twiddle_angle(kind.line, n, k);
    const std::complex<double> mode = spectrum[line_coefficient_mode(kind.line, n, k)];
    c[k] = line_coefficient(kind.line, n, k, std::cos(angle), std::sin(angle), mode.real(), mode.imag());
  }
  return c;
}

// The end of a pass's inverse from the spectrum of the lines it made: the coefficients
// written to the grid's n values (inverse_transform_lines).
std::vector<double> inverse_from_spectrum(const WallPassKind& kind, std::int64_t n,
                                          const std::vector<std::complex<double>>& spectrum) {
  std::vector<double> u(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const PassSample at = grid_side_sample(kind.grid_side, n, i);
    const std::int64_t k = at.source;
    const double angle = line_twiddle_angle(kind.line, n, k);
    const std::complex<double> mode = spectrum[line_coefficient_mode(kind.line, n, k)];
    u[i] = at.sign * line_coefficient(kind.line, n, k, std::cos(angle), std::sin(angle), mode.real(), mode.imag());
  }
  return u;
}

// The same from the R2C input `line` it made.
std::vector<double> inverse_from_line(const WallPassKind& kind, std::int64_t n, const std::vector<double>& line) {
  return inverse_from_spectrum(kind, n, fftw_forward(line));
}

// The pass's inverse, as load_inverse_lines and inverse_transform_lines run it: the
// coefficients c to the grid's values.
std::vector<double> pass_inverse(const WallPassKind& kind, const std::vector<double>& c) {
  const auto n = static_cast<std::int64_t>(c.size());
  std::vector<double> u(c.size());
  if (kind.line == WallLine::cosine && !kind.dct3_forward) {
    const std::vector<double> shuffled = [&] {
      std::vector<std::complex<double>> spectrum(static_cast<std::size_t>(n / 2 + 1));
      for (std::int64_t k = 0; k <= n / 2; ++k) {
        const std::complex<double> w = twiddle(n, k);
        const auto z = cosine_inverse_mode(w.real(), w.imag(), c[k], k == 0 ? 0.0 : c[n - k]);
        spectrum[k] = {z.re, z.im};
      }
      return fftw_inverse(spectrum, n);
    }();
    for (std::int64_t i = 0; i < n; ++i) {
      const PassSample at = grid_side_sample(kind.grid_side, n, i);
      u[i] = at.sign * shuffled[cosine_shuffle_position(n, at.source)];
    }
    return u;
  }
  return inverse_from_spectrum(kind, n, forward_spectrum(kind, n, [&](std::int64_t k) { return c[k]; }));
}

// FFTW's kinds for each wall transform (docs/poisson_fft.md's table), independent of the
// backends' own tables.
struct FftwPair {
  AxisTransform transform;
  fftw_r2r_kind forward, inverse;
  const char* name;
};
const FftwPair kFftwPairs[] = {
    {AxisTransform::sine_vertex, FFTW_RODFT00, FFTW_RODFT00, "dirichlet at vertices"},
    {AxisTransform::cosine_vertex, FFTW_REDFT00, FFTW_REDFT00, "neumann at vertices"},
    {AxisTransform::sine_cell, FFTW_RODFT10, FFTW_RODFT01, "dirichlet at cells"},
    {AxisTransform::cosine_cell, FFTW_REDFT10, FFTW_REDFT01, "neumann at cells"},
    {AxisTransform::sine_quarter_vertex, FFTW_RODFT01, FFTW_RODFT10, "dirichlet_neumann at vertices"},
    {AxisTransform::cosine_quarter_vertex, FFTW_REDFT01, FFTW_REDFT10, "neumann_dirichlet at vertices"},
    {AxisTransform::sine_quarter_cell, FFTW_RODFT11, FFTW_RODFT11, "dirichlet_neumann at cells"},
    {AxisTransform::cosine_quarter_cell, FFTW_REDFT11, FFTW_REDFT11, "neumann_dirichlet at cells"},
};

// A solve along one wall axis: forward, each coefficient divided by its eigenvalue (the
// backend's table reversed where the pass keeps its coefficients reversed), inverse;
// against FFTW's forward kind, the division, FFTW's inverse kind (both unnormalised).
TEST(PoissonWallTransforms, EveryWallPassSolvesAsFftwsKinds) {
  for (const FftwPair& pair : kFftwPairs) {
    for (std::int64_t n : kLengths) {
      if (pair.transform == AxisTransform::cosine_vertex && n < 2) continue;
      const WallPassKind kind = wall_pass_kind(pair.transform, n);
      const auto f = cunum::testing::random_vector<double>(static_cast<std::size_t>(n), 90 + n);
      std::vector<double> eigenvalues(f.size());
      for (std::int64_t k = 0; k < n; ++k) eigenvalues[k] = -1.0 - 0.37 * static_cast<double>(k * k);
      const auto divided = [&](std::vector<double> c, bool reverse_table) {
        for (std::int64_t k = 0; k < n; ++k) c[k] /= eigenvalues[reverse_table ? n - 1 - k : k];
        return c;
      };
      const auto expected =
          fftw_real_to_real(divided(fftw_real_to_real(f, pair.forward), false), pair.inverse);
      const auto actual = pass_inverse(kind, divided(pass_forward(kind, f), kind.reversed_coefficients));
      EXPECT_LE(relative_difference(actual, expected), 1e-12) << pair.name << ", n = " << n;
      // Where the pass neither reverses nor signs the grid's samples, its forward is FFTW's.
      if (!kind.grid_side.alternating && !kind.grid_side.reversed) {
        EXPECT_LE(relative_difference(pass_forward(kind, f), fftw_real_to_real(f, pair.forward)), 1e-13)
            << pair.name << ", n = " << n;
      }
    }
  }
}

// The last wall axis of a grid without periodic axes turns around on its lines; where
// its forward is the DCT-III (the mixed axes at vertices), turnaround_kernel divides the
// forward's line in place, sample e by the eigenvalue of coefficient
// cosine_shuffle_source(n, e), and the inverse's R2C takes that line: bit for bit the
// solve that stores the coefficients, divides them and reads them back (which
// EveryWallPassSolvesAsFftwsKinds holds to FFTW's pair).
TEST(PoissonWallTransforms, DctThreeForwardTurnsAroundOnItsLine) {
  for (const AxisTransform transform : {AxisTransform::sine_quarter_vertex, AxisTransform::cosine_quarter_vertex}) {
    for (std::int64_t n : kLengths) {
      const WallPassKind kind = wall_pass_kind(transform, n);
      ASSERT_TRUE(kind.dct3_forward);
      const auto f = cunum::testing::random_vector<double>(static_cast<std::size_t>(n), 110 + n);
      std::vector<double> eigenvalues(f.size());
      for (std::int64_t k = 0; k < n; ++k) eigenvalues[k] = -1.0 - 0.37 * static_cast<double>(k * k);
      std::vector<double> line = dct3_forward_line(kind, f);
      for (std::int64_t e = 0; e < n; ++e) line[e] /= eigenvalues[cosine_shuffle_source(n, e)];
      std::vector<double> coefficients = pass_forward(kind, f);
      for (std::int64_t k = 0; k < n; ++k) coefficients[k] /= eigenvalues[k];
      EXPECT_EQ(inverse_from_line(kind, n, line), pass_inverse(kind, coefficients)) << "n = " << n;
    }
  }
}

TEST(PoissonWallTransforms, PairsMultiplyByTheExtensionLength) {
  for (std::int64_t n : kLengths) {
    const auto x = cunum::testing::random_vector<double>(static_cast<std::size_t>(n), 40 + n);
    std::vector<double> sine_twice = sine_by_odd_extension(sine_by_odd_extension(x));
    std::vector<double> cosine_pair = inverse_cosine_by_makhoul(cosine_by_makhoul(x));
    std::vector<double> quarter_twice = quarter_cosine_by_makhoul(quarter_cosine_by_makhoul(x));
    for (auto& v : sine_twice) v /= static_cast<double>(2 * (n + 1));
    for (auto& v : cosine_pair) v /= static_cast<double>(2 * n);
    for (auto& v : quarter_twice) v /= static_cast<double>(2 * n);
    EXPECT_LE(relative_difference(sine_twice, x), 1e-13) << "n = " << n;
    EXPECT_LE(relative_difference(cosine_pair, x), 1e-13) << "n = " << n;
    EXPECT_LE(relative_difference(quarter_twice, x), 1e-13) << "n = " << n;
    if (n >= 2) {
      std::vector<double> even_twice = cosine_by_even_extension(cosine_by_even_extension(x));
      for (auto& v : even_twice) v /= static_cast<double>(2 * (n - 1));
      EXPECT_LE(relative_difference(even_twice, x), 1e-13) << "n = " << n;
    }
  }
}

// The division's rows (division_order) on every boundary and centring, with axes of one
// point anywhere: the same axes as the coefficient array's, those of more than one point
// in the array's order (so the rows read the array's layout unchanged), and the inner
// axis of more than one point wherever an axis has. A 2-D grid of two wall axes was
// divided as n0 n1 rows of one mode (its periodic leading axis of one point last).
TEST(PoissonWallTransforms, DivisionRowsRunAlongAnAxisOfMoreThanOnePoint) {
  using cunum::PoissonGrid;
  const std::vector<std::vector<std::int64_t>> shapes{{9, 16}, {1, 7}, {5, 1}, {5, 8, 7}, {5, 1, 7}, {6, 7, 1}, {1, 1, 4}};
  for (const auto& shape : shapes) {
    const int rank = static_cast<int>(shape.size());
    for (const auto& conditions : cunum::testing::poisson::condition_combinations(rank)) {
      PoissonGrid grid{shape, std::vector<double>(shape.size(), 1.0), conditions.boundaries};
      grid.centrings = conditions.centrings;
      bool too_short = false;  // DCT-I needs two points
      for (int a = 0; a < rank; ++a) {
        too_short |= shape[a] < 2 && conditions.boundaries[a] == cunum::PoissonBoundary::neumann &&
                     conditions.centrings[a] == cunum::PoissonCentring::vertex;
      }
      if (too_short) continue;
      const auto layout = cunum::detail::make_poisson_layout<double>(grid, {});
      const AxisOrder order = cunum::detail::coefficient_order(layout);
      const AxisOrder rows = cunum::detail::division_order(layout, order);
      const std::string where = cunum::testing::poisson::describe(conditions.boundaries, conditions.centrings);
      EXPECT_TRUE(std::is_permutation(rows.begin(), rows.end(), order.begin())) << where;
      std::vector<int> wide_in_order, wide_in_rows;
      for (int a : order) {
        if (layout.shape[a] > 1) wide_in_order.push_back(a);
      }
      for (int a : rows) {
        if (layout.shape[a] > 1) wide_in_rows.push_back(a);
      }
      EXPECT_EQ(wide_in_rows, wide_in_order) << where;
      if (!wide_in_rows.empty()) {
        EXPECT_GT(layout.shape[rows[2]], 1) << where;
      }
    }
  }
  // The case measured at 27x the periodic solve: neumann_dirichlet at vertices on both
  // axes of 4096^2 is now 4096 rows of 4096 modes, not 16,777,216 rows of one.
  PoissonGrid mixed{{4096, 4096}, {1.0, 1.0}, {cunum::PoissonBoundary::neumann_dirichlet,
                                               cunum::PoissonBoundary::neumann_dirichlet}};
  mixed.centrings = {cunum::PoissonCentring::vertex, cunum::PoissonCentring::vertex};
  const auto layout = cunum::detail::make_poisson_layout<float>(mixed, {});
  const AxisOrder order = cunum::detail::coefficient_order(layout);
  EXPECT_EQ(order, (AxisOrder{1, 2, 0}));
  EXPECT_EQ(cunum::detail::division_order(layout, order), (AxisOrder{0, 1, 2}));
}

}  // namespace
