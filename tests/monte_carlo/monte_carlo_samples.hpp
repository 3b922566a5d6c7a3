#pragma once
// The samples behind an estimate, for the suites that check how the estimates are
// formed: every sample of an option as the CPU backend sums it (the library's own
// path code, less the option's references), the estimate recomputed from them in
// long double by two passes (no cancellation), and the bound on the rounding of an
// estimate that a backend forms from the samples' double sums.
//
// The bound (docs/monte_carlo.md, "How the estimates are formed"). A backend adds,
// for an option of n samples, each sample less its reference (payoff y, control x,
// delta d, vega v), their squares and their products, in double, in some fixed order,
// then forms centred sums C_ab = sum ab - sum a sum b / n. Any order of adding n terms
// errs by at most (n - 1) u of the sum of their magnitudes (Higham, Accuracy and
// Stability of Numerical Algorithms, 2nd ed., 2002, section 4.2; u = 2^-53), and a summand
// is at most three roundings from exact (the shifts and the product), so with
// S_a = sum a^2 (Cauchy-Schwarz: sum |ab| <= sqrt(S_a S_b), |sum a| <= sqrt(n S_a)):
//   sum a    within (n + 1) u sqrt(n S_a),
//   C_ab     within e_ab = 3 (n + 2) u sqrt(S_a S_b).
// Then, to first order in u (and a few u of the result for the last operations):
// - a mean reference + sum a / n: (n + 1) u sqrt(S_a / n);
// - a standard error sqrt(C_aa / (n (n - 1))): at most sqrt(e_aa / (n (n - 1))), as
//   |sqrt(p) - sqrt(q)| <= sqrt(|p - q|), and, when e_aa < C_aa, at most e_aa / C_aa
//   of itself, as |sqrt(p) - sqrt(q)| <= |p - q| / sqrt(q);
// - with a control variate, the residual C_yy - C_xy^2 / C_xx moves by at most
//   e_yy + 2 |beta| e_xy + beta^2 e_xx = 3 (n + 2) u (sqrt(S_y) + |beta| sqrt(S_x))^2,
//   whatever the residual: the resolution of its standard error, as above with n - 2;
//   beta = C_xy / C_xx by (e_xy + |beta| e_xx) / C_xx, which moves the price by that
//   times the control's mean deviation.
// Centring on references near the mean keeps S_a near C_aa; the naive formula, on
// sums of the samples themselves, has S_a = C_aa + n mean^2 instead.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cunum/brownian_bridge.hpp"
#include "cunum/monte_carlo.hpp"
#include "src/monte_carlo/monte_carlo_backends.hpp"
#include "src/monte_carlo/monte_carlo_path.hpp"

namespace cunum::testing {

// A sum type for the path code (its value_type and slots) that keeps each sample of
// the payoff, control, delta and vega, and of each asset's delta and vega, instead
// of adding them; the squares and products are dropped.
struct SampleRecorder {
  struct Slot {
    std::vector<long double>* kept = nullptr;
    void operator+=(long double value) {
      if (kept != nullptr) kept->push_back(value);
    }
  };
  using value_type = long double;
  static constexpr int capacity = detail::kMaxSumCount;
  Slot s[detail::kMaxSumCount];
  Slot& asset_sum(int j, int which) { return s[detail::kSumCount + j * detail::kAssetSumCount + which]; }
};

// The path code's sums of squares and products (detail::add_product): not recorded.
inline void add_product(SampleRecorder::Slot&, long double, long double) {}

// One option's samples, less their references (the control less its expectation
// rounded to T), with what the estimates add back.
struct OptionSamples {
  std::vector<long double> y, x, d, v;
  std::vector<std::vector<long double>> asset_d, asset_v;
  long double payoff_reference = 0, delta_reference = 0, vega_reference = 0;
  long double control_reference = 0;  // the control's expectation rounded to T, as subtracted
  long double control_offset = 0;     // the expectation less control_reference
  std::vector<long double> asset_delta_reference, asset_vega_reference;
  long double discount = 1;

  // A recorder that keeps the payoff's samples, the control's with `control`, the
  // Greeks' with `greeks` and each of `assets` assets' Greeks with `asset_greeks`.
  SampleRecorder recorder(bool control, bool greeks, int assets) {
    SampleRecorder r;
    r.s[detail::kSumY].kept = &y;
    if (control) r.s[detail::kSumX].kept = &x;
    if (greeks) {
      r.s[detail::kSumD].kept = &d;
      r.s[detail::kSumV].kept = &v;
    }
    asset_d.resize(static_cast<std::size_t>(assets));
    asset_v.resize(static_cast<std::size_t>(assets));
    for (int j = 0; j < assets; ++j) {
      r.asset_sum(j, detail::kAssetSumD).kept = &asset_d[static_cast<std::size_t>(j)];
      r.asset_sum(j, detail::kAssetSumV).kept = &asset_v[static_cast<std::size_t>(j)];
    }
    return r;
  }
};

// Calls f(std::integral_constant<MonteCarloPayoff, P>) for the library payoff P = payoff.
template <class F>
void with_library_payoff(MonteCarloPayoff payoff, const F& f) {
  switch (payoff) {
#define CUNUM_TEST_PAYOFF_CASE(name, text)                                      \
  case MonteCarloPayoff::name:                                                  \
    f(std::integral_constant<MonteCarloPayoff, MonteCarloPayoff::name>{});      \
    break;
    CUNUM_MONTE_CARLO_PAYOFFS(CUNUM_TEST_PAYOFF_CASE)
#undef CUNUM_TEST_PAYOFF_CASE
  }
}

// Every option's samples of `batch` priced by `pricer` (CPU backend, a library
// payoff), through the path code the CPU backend runs: pseudo-random chunk by chunk,
// quasi-random on the bridge's paths. Options in parallel (OpenMP).
template <class T>
std::vector<OptionSamples> cpu_samples(const MonteCarloPricer<T>& pricer, const MonteCarloBatch<T>& batch) {
  const MonteCarloSettings& settings = pricer.settings();
  EXPECT_EQ(pricer.backend(), Backend::cpu);
  EXPECT_NE(settings.payoff, MonteCarloPayoff::custom) << "a custom payoff's functor is not the library's";
  std::vector<MonteCarloEstimate<T>> unused(static_cast<std::size_t>(batch.size()));
  std::vector<MonteCarloAssetGreeks<T>> unused_greeks(static_cast<std::size_t>(batch.size() * settings.assets));
  const detail::MonteCarloArgs<T> a = detail::MonteCarloAccess::args(pricer, batch, unused.data(), unused_greeks.data());
  std::vector<OptionSamples> out(static_cast<std::size_t>(a.options));
  const bool quasi = settings.source == MonteCarloSource::sobol_bridge;
  std::vector<T> w;
  if (quasi) {
    const BrownianBridge bridge = detail::monte_carlo_unit_bridge(a.shape.dates, Backend::cpu);
    w.resize(static_cast<std::size_t>(settings.paths * bridge.output_records()));
    bridge.generate_sobol_paths<T>(settings.paths, w.data());
  }
  with_library_payoff(settings.payoff, [&](auto tag) {
    constexpr MonteCarloPayoff P = decltype(tag)::value;
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t option = 0; option < a.options; ++option) {
      OptionSamples& samples = out[static_cast<std::size_t>(option)];
      const detail::OptionSetup<T>* o = detail::option_setup_of(a, option);
      const detail::PathSample<T> centre = detail::sample_centre(*o);
      samples.payoff_reference = centre.payoff;
      samples.control_reference = centre.control;
      samples.control_offset = (long double)(o->control_mean) - centre.control;
      samples.delta_reference = centre.delta;
      samples.vega_reference = centre.vega;
      for (int j = 0; j < a.shape.assets; ++j) {
        samples.asset_delta_reference.push_back(static_cast<T>(o[j].asset_delta_reference));
        samples.asset_vega_reference.push_back(static_cast<T>(o[j].asset_vega_reference));
      }
      samples.discount = o->discount;
      const bool asset_greeks = settings.greeks && detail::is_multi_asset(settings.payoff);
      SampleRecorder recorder =
          samples.recorder(settings.control_variate, settings.greeks, asset_greeks ? a.shape.assets : 0);
      if (quasi) {
        const T step_scale = static_cast<T>(std::sqrt(double(a.shape.dates)));
        for (std::int64_t path = 0; path < settings.paths; ++path) {
          detail::simulate_quasi_path<T, P, true>(*o, a.shape, w.data() + path, settings.paths, step_scale, recorder);
        }
      } else {
        for (std::int64_t chunk = 0; chunk < a.chunks.chunks; ++chunk) {
          const std::int64_t id = option * a.chunks.chunks + chunk;
          a.mrg_tables != nullptr
              ? detail::sum_chunk<T, true, true>(a, detail::LibraryPayoff<P>{}, id, 0, 0, recorder)
              : detail::sum_chunk<T, true, false>(a, detail::LibraryPayoff<P>{}, id, 0, 0, recorder);
        }
      }
    }
  });
  return out;
}

// A mean and its standard error, as the estimates form them, from the truth of the
// samples in long double, with the bounds on an estimate's distance from them.
struct MeanAndError {
  long double mean = 0, error = 0, mean_bound = 0, error_bound = 0;
};

// What the samples give, in long double by two passes (the truth an estimate formed
// from them is held to), and the bound on an estimate's distance from it: the
// rounding of the file comment, plus the change that samples off by at most
// `sample_difference` relative (another backend's paths, which differ by rounding)
// would make, where a payoff's sample is also off by that of `path_scale` (the
// values it is a difference of, as A - K).
struct SampleStatistics {
  MeanAndError payoff, delta, vega;  // payoff: the price with the control variate if used
  long double control_coefficient = 0, control_coefficient_bound = 0;
  std::vector<MeanAndError> asset_delta, asset_vega;
};

inline long double mean_of(const std::vector<long double>& a) {
  long double sum = 0;
  for (long double value : a) sum += value;
  return sum / static_cast<long double>(a.size());
}

inline long double sum_of_squares(const std::vector<long double>& a) {
  long double sum = 0;
  for (long double value : a) sum += value * value;
  return sum;
}

// sum (a - mean a)(b - mean b), by two passes.
inline long double centred_of(const std::vector<long double>& a, const std::vector<long double>& b) {
  const long double ma = mean_of(a), mb = mean_of(b);
  long double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (a[i] - ma) * (b[i] - mb);
  return sum;
}

// A bound on the norm of the samples' differences between backends, over
// sample_difference: each sample (`reference` added back) is off by that of its own
// size, of the samples' root mean square (the size of the values it is computed
// from, where it cancels) and of `scale` (what it is a difference of, as A - K).
inline long double perturbation_norm(const std::vector<long double>& a, long double reference, long double scale) {
  long double sum = 0;
  for (long double value : a) sum += (value + reference) * (value + reference);
  return 2 * std::sqrt(sum) + std::sqrt(static_cast<long double>(a.size())) * scale;
}

constexpr long double kUnitRoundoff = 0x1p-53L;
// The GPU sums a float option's samples in float, per thread, when it has neither a
// control nor Greeks (docs/monte_carlo.md): the same bounds with float's u.
constexpr long double kFloatUnitRoundoff = 0x1p-24L;

// A sample mean (less `reference`) and its standard error, discounted, with their
// bounds for sums added with unit roundoff `sums_roundoff`.
inline MeanAndError mean_and_error(const std::vector<long double>& a, long double reference, long double discount,
                                   long double sample_difference, long double scale,
                                   long double sums_roundoff = kUnitRoundoff) {
  const long double n = a.size(), u = kUnitRoundoff, us = sums_roundoff;
  const long double centred = centred_of(a, a), squares = sum_of_squares(a);
  MeanAndError out;
  out.mean = discount * (reference + mean_of(a));
  out.error = discount * std::sqrt(centred / (n * (n - 1)));
  const long double e = 3 * (n + 2) * us * squares;
  const long double moved = sample_difference * perturbation_norm(a, reference, scale);
  out.mean_bound = discount * ((n + 1) * us * std::sqrt(squares / n) + moved / std::sqrt(n)) + 4 * u * std::fabs(out.mean);
  out.error_bound = std::min(discount * std::sqrt(e / (n * (n - 1))), e < centred ? e / centred * out.error : INFINITY) +
                    discount * moved / std::sqrt(n * (n - 1)) + 4 * u * out.error;
  return out;
}

// The statistics of one option's samples (file comment); `control`: the control
// variate is used.
// `sums_roundoff`: the unit roundoff of the sums of a plain estimate (no control, no
// Greeks); the others are summed in double.
inline SampleStatistics statistics_of(const OptionSamples& s, bool control, long double sample_difference = 0,
                                      long double path_scale = 0, long double sums_roundoff = kUnitRoundoff) {
  SampleStatistics out;
  const long double n = s.y.size(), u = kUnitRoundoff, discount = s.discount;
  const bool plain = !control && s.d.empty();
  out.payoff = mean_and_error(s.y, s.payoff_reference, discount, sample_difference, path_scale,
                              plain ? sums_roundoff : kUnitRoundoff);
  if (control) {
    const long double cxx = centred_of(s.x, s.x), cxy = centred_of(s.x, s.y), cyy = centred_of(s.y, s.y);
    const long double beta = cxx > 0 ? cxy / cxx : 0, b = std::fabs(beta);
    const long double my = mean_of(s.y), mx = mean_of(s.x), mean_x = mx - s.control_offset;
    long double residual = 0;
    for (std::size_t i = 0; i < s.y.size(); ++i) {
      const long double r = (s.y[i] - my) - beta * (s.x[i] - mx);
      residual += r * r;
    }
    const long double sy = std::sqrt(sum_of_squares(s.y)), sx = std::sqrt(sum_of_squares(s.x));
    const long double e = 3 * (n + 2) * u * (sy + b * sx) * (sy + b * sx);
    // The other backend's samples: |dy| and |dx| bound the norms of their differences.
    // The residual's root moves by at most |dy| + |beta| |dx| (it is the least
    // ||y - beta x - c|| over beta and c), beta by the changes of C_xy and C_xx.
    const long double dy = sample_difference * perturbation_norm(s.y, s.payoff_reference, path_scale);
    const long double dx = sample_difference * perturbation_norm(s.x, s.control_reference, 0);
    const long double beta_moved = cxx > 0 ? (dy + dx * (2 * b + std::sqrt(cyy / cxx))) / std::sqrt(cxx) : 0;
    out.control_coefficient = beta;
    out.control_coefficient_bound = (cxx > 0 ? 3 * (n + 2) * u * sx * (sy + b * sx) / cxx : 0) + beta_moved;
    out.payoff.mean = discount * (s.payoff_reference + my - beta * mean_x);
    out.payoff.mean_bound = discount * ((n + 1) * u * (sy + b * sx) / std::sqrt(n) +
                                        out.control_coefficient_bound * std::fabs(mean_x) + (dy + b * dx) / std::sqrt(n) +
                                        4 * u * (std::fabs(s.payoff_reference + my) + std::fabs(beta * mean_x)));
    out.payoff.error = discount * std::sqrt(residual / (n * (n - 2)));
    out.payoff.error_bound =
        std::min(discount * std::sqrt(e / (n * (n - 2))), e < residual ? e / residual * out.payoff.error : INFINITY) +
        discount * (dy + b * dx) / std::sqrt(n * (n - 2)) + 4 * u * out.payoff.error;
  }
  if (!s.d.empty()) {
    out.delta = mean_and_error(s.d, s.delta_reference, discount, sample_difference, 0);
    out.vega = mean_and_error(s.v, s.vega_reference, discount, sample_difference, 0);
  }
  for (std::size_t j = 0; j < s.asset_d.size() && !s.asset_d[j].empty(); ++j) {
    out.asset_delta.push_back(mean_and_error(s.asset_d[j], s.asset_delta_reference[j], discount, sample_difference, 0));
    out.asset_vega.push_back(mean_and_error(s.asset_v[j], s.asset_vega_reference[j], discount, sample_difference, 0));
  }
  return out;
}

// The standard error the naive formula gives, sum y^2 - n mean^2 on double sums of the
// samples themselves (not centred), as cunum did before it centred them: its rounding
// grows with the squared mean, not with the spread.
inline double naive_standard_error(const OptionSamples& s, bool control) {
  const double n = static_cast<double>(s.y.size());
  double sy = 0, syy = 0, sx = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < s.y.size(); ++i) {
    const double y = static_cast<double>(s.y[i] + s.payoff_reference);
    const double x = static_cast<double>(s.x[i] + s.control_offset);
    sy += y;
    syy += y * y;
    sx += x;
    sxx += x * x;
    sxy += x * y;
  }
  const double mean_y = sy / n, mean_x = sx / n;
  const double cyy = syy - n * mean_y * mean_y;
  double variance = cyy / (n - 1);
  if (control) {
    const double cxx = sxx - n * mean_x * mean_x, cxy = sxy - n * mean_x * mean_y;
    variance = (cyy - cxy / cxx * cxy) / (n - 2);
  }
  return static_cast<double>(s.discount) * std::sqrt(std::max(variance, 0.0) / n);
}

// Expects `value` (an estimate's field, rounded to T once formed) within `bound` of
// `exact` (a field of SampleStatistics) and that last rounding.
template <class T>
void expect_within(T value, long double exact, long double bound, const std::string& what) {
  const long double rounded = bound + std::numeric_limits<T>::epsilon() / 2 * std::fabs(exact);
  EXPECT_LE(std::fabs((long double)value - exact), rounded)
      << what << " " << double(value) << ", from the samples " << double(exact) << ", bound " << double(rounded);
}

// Expects the estimate `e` within the bounds of `truth` (statistics_of its samples).
template <class T>
void expect_formed_from(const MonteCarloEstimate<T>& e, const SampleStatistics& truth, const std::string& what) {
  expect_within(e.price, truth.payoff.mean, truth.payoff.mean_bound, what + ": price");
  expect_within(e.standard_error, truth.payoff.error, truth.payoff.error_bound, what + ": standard error");
  if (!std::isnan(double(e.control_coefficient))) {
    expect_within(e.control_coefficient, truth.control_coefficient, truth.control_coefficient_bound,
                  what + ": control coefficient");
  }
  if (!std::isnan(double(e.delta))) {
    expect_within(e.delta, truth.delta.mean, truth.delta.mean_bound, what + ": delta");
    expect_within(e.delta_standard_error, truth.delta.error, truth.delta.error_bound, what + ": delta standard error");
    expect_within(e.vega, truth.vega.mean, truth.vega.mean_bound, what + ": vega");
    expect_within(e.vega_standard_error, truth.vega.error, truth.vega.error_bound, what + ": vega standard error");
  }
}

}  // namespace cunum::testing
