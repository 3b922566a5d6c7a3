#pragma once
// Internal: the library's own payoffs on one group of paths, the same code for the
// OpenMP loop and the CUDA kernels: the walk of each path in log2 space (PathWalk),
// the payoff, the control and the Greeks, the multi-asset and quasi-random paths, and
// the estimates from a chunk's sums. The normals, the per-option constants and the
// sums come from cunum/device/detail/monte_carlo_path.hpp, which callers' payoff
// kernels share; the glue between these payoffs and the chunk walkers
// (LibraryPayoff) is at the end.

#include <cmath>
#include <cstdint>

#include "cunum/device/detail/monte_carlo_args.hpp"
#include "cunum/device/detail/monte_carlo_path.hpp"
#include "cunum/monte_carlo.hpp"

namespace cunum::detail {

// max(gain, 0), +0 for any gain <= 0. In double on the device, the sign bit as a mask:
// two integer instructions where the comparison and select compile to a NaN-aware
// maximum of six (a gain is never NaN here). The host's select gives the same bits.
CUNUM_HOST_DEVICE inline float positive_part(float gain) { return gain > 0.0f ? gain : 0.0f; }
CUNUM_HOST_DEVICE inline double positive_part(double gain) {
#if defined(__CUDA_ARCH__)
  const long long bits = __double_as_longlong(gain);
  return __longlong_as_double(bits & ~(bits >> 63));
#else
  return gain > 0.0 ? gain : 0.0;
#endif
}

// The payoffs that jump (digital, barriers) take likelihood-ratio Greeks: the payoff
// times the score of the path's density, d ln p / dS0 = W_{t_1} / (S0 sigma dt) (only
// the first date's density depends on S0) and d ln p / dsigma = sum_k (z_k^2 - 1) /
// sigma - W_T; the others take pathwise Greeks.
CUNUM_HOST_DEVICE constexpr bool has_likelihood_ratio_greeks(MonteCarloPayoff payoff) {
  return payoff == MonteCarloPayoff::digital || payoff == MonteCarloPayoff::up_and_out ||
         payoff == MonteCarloPayoff::down_and_out;
}

// The state of one path along its dates, in log2(S / S0) units. kFull: also the
// control and the Greeks (a plain walk keeps only what the payoff needs).
template <class T, MonteCarloPayoff P, bool kFull>
struct PathWalk {
  static constexpr bool kLikelihoodRatio = kFull && has_likelihood_ratio_greeks(P);
  T log2_s = -0.0;    // log2(S_t / S0); -0 + x is x exactly, so the first step folds to one FMA
  T sum = 0;          // arithmetic Asian: sum S_t / S0; geometric: sum log2(S_t / S0)
  T log_sum = 0;      // arithmetic Asian with a control: sum log2(S_t / S0)
  T extreme = 0;      // lookback: min (call) or max (put) of log2(S_t / S0), S0 included
  T drift_w = 0;      // W_t - sigma t
  T vega_sum = 0;     // arithmetic Asian: sum S_t/S0 (W_t - sigma t); geometric: sum (W_t - sigma t)
  T extreme_w = 0;    // lookback: W_t - sigma t at the extremum
  T first_w = 0;          // likelihood ratio: W at the first date
  T normal_squares = 0;   // likelihood ratio: sum z_k^2
  bool alive = true;      // barriers: not knocked out
  bool at_start = true;   // likelihood ratio: no date walked yet

  CUNUM_HOST_DEVICE void step(T z, const OptionSetup<T>& o, bool is_call) {
    log2_s += fma_rn(o.log2_diffusion, z, o.log2_drift);
    if constexpr (kLikelihoodRatio) {
      if (at_start) first_w = o.sqrt_dt * z;
      at_start = false;
      normal_squares = fma_rn(z, z, normal_squares);
    }
    if constexpr (kFull) drift_w += fma_rn(o.sqrt_dt, z, -o.sigma_dt);
    if constexpr (P == MonteCarloPayoff::asian_arithmetic) {
      const T relative = fast_exp2(log2_s);
      sum += relative;
      if constexpr (kFull) {
        log_sum += log2_s;
        vega_sum = fma_rn(relative, drift_w, vega_sum);
      }
    } else if constexpr (P == MonteCarloPayoff::asian_geometric) {
      sum += log2_s;
      if constexpr (kFull) vega_sum += drift_w;
    } else if constexpr (P == MonteCarloPayoff::up_and_out) {
      alive = alive && log2_s < o.log2_barrier;
    } else if constexpr (P == MonteCarloPayoff::down_and_out) {
      alive = alive && log2_s > o.log2_barrier;
    } else if constexpr (P == MonteCarloPayoff::lookback) {
      const bool beyond = is_call ? log2_s < extreme : log2_s > extreme;
      if (beyond) {
        extreme = log2_s;
        if constexpr (kFull) extreme_w = drift_w;
      }
    }
  }

  // S0 r - K for a call, K - S0 r for a put (r: S / S0), rounded once: one fma whose
  // operands the type selects (outside a path loop), not two predicated ones.
  CUNUM_HOST_DEVICE static T strike_gain(const OptionSetup<T>& o, T r, bool is_call) {
    return fma_rn(is_call ? o.spot : -o.spot, r, is_call ? -o.strike : o.strike);
  }

  // The payoff, and with kFull the control, delta and vega samples, after `dates` steps.
  CUNUM_HOST_DEVICE PathSample<T> finish(const OptionSetup<T>& o, bool is_call, int dates) const {
    PathSample<T> out{0, 0, 0, 0};
    const T relative = fast_exp2(log2_s);  // S_T / S0
    const T s_t = o.spot * relative;
    if constexpr (P == MonteCarloPayoff::lookback) {
      const T extreme_relative = fast_exp2(extreme);
      const T extremum = o.spot * extreme_relative;
      // S0 (S_T / S0 - m / S0): never below 0, where fma(S0, S_T / S0, -m) with m
      // rounded is m's rounding error, negative as often as not, when S_T is the
      // extremum (a fuzzed lookback priced -0.000000 from such paths).
      out.payoff = o.spot * (is_call ? relative - extreme_relative : extreme_relative - relative);
      if constexpr (kFull) {
        out.control = s_t;
        out.delta = out.payoff * o.greek_scale;
        const T vega = fma_rn(s_t, drift_w, -(extremum * extreme_w));
        out.vega = is_call ? vega : -vega;
      }
      return out;
    }
    T underlying = s_t;  // what the strike is compared with
    T gain = strike_gain(o, relative, is_call);
    if constexpr (P == MonteCarloPayoff::asian_arithmetic || P == MonteCarloPayoff::asian_geometric) {
      const T mean = sum / T(dates);
      const T average_relative = P == MonteCarloPayoff::asian_arithmetic ? mean : fast_exp2(mean);  // A / S0
      underlying = o.spot * average_relative;
      gain = strike_gain(o, average_relative, is_call);
    }
    const bool in_the_money = gain > T(0);
    if constexpr (P == MonteCarloPayoff::digital) {
      out.payoff = in_the_money ? T(1) : T(0);
    } else {
      out.payoff = positive_part(gain);
    }
    if constexpr (P == MonteCarloPayoff::up_and_out || P == MonteCarloPayoff::down_and_out) {
      if (!alive) out.payoff = T(0);
    }
    if constexpr (kFull) {
      out.control = s_t;
      const T sign = is_call ? T(1) : T(-1);
      if constexpr (P == MonteCarloPayoff::asian_arithmetic) {
        out.control = positive_part(strike_gain(o, fast_exp2(log_sum / T(dates)), is_call));
        out.delta = in_the_money ? sign * underlying * o.greek_scale : T(0);
        out.vega = in_the_money ? sign * o.spot * vega_sum / T(dates) : T(0);
      } else if constexpr (P == MonteCarloPayoff::asian_geometric) {
        out.delta = in_the_money ? sign * underlying * o.greek_scale : T(0);
        out.vega = in_the_money ? sign * underlying * vega_sum / T(dates) : T(0);
      } else if constexpr (P == MonteCarloPayoff::european) {
        out.delta = in_the_money ? sign * s_t * o.greek_scale : T(0);
        out.vega = in_the_money ? sign * s_t * drift_w : T(0);
      } else if constexpr (kLikelihoodRatio) {
        const T w_t = fma_rn(T(dates), o.sigma_dt, drift_w);
        out.delta = out.payoff * first_w * o.greek_scale;
        out.vega = out.payoff * ((normal_squares - T(dates)) / static_cast<T>(o.volatility) - w_t);
      }
    }
    return out;
  }
};

// Simulates group `group` of option `o` with the group's normals `draws` (one draw a
// date) and adds its samples to `sums`: the kPathLanes<T> paths (pairs with
// antithetic variates) from path group x G, where G = lanes (x 2 antithetic); paths at
// or beyond shape.paths are not simulated.
template <class T, MonteCarloPayoff P, bool kFull, class Draws, class Sums>
CUNUM_HOST_DEVICE inline void simulate_group(const OptionSetup<T>& o, const GroupShape& shape, std::uint64_t group,
                                             Draws& draws, Sums& sums) {
  constexpr int lanes = kPathLanes<T>;
  // Lanes whose path exists: all of them but in the last group of an option.
  const int active = group + 1 < shape.groups ? lanes : shape.last_group_lanes;
  PathWalk<T, P, kFull> walks[lanes];
  PathWalk<T, P, kFull> mirrored[lanes];
  // European and digital payoffs are one step: a constant lets the compiler drop the loop.
  constexpr bool kOneDate = P == MonteCarloPayoff::european || P == MonteCarloPayoff::digital;
  const int dates = kOneDate ? 1 : shape.dates;
  // In float, their mirrors step where their samples are formed, behind the antithetic
  // branch: stepped in the loop, the compiler predicated them into every group (moves and
  // fmas issued without antithetic variates too; a float group 137 -> 132 instructions).
  // In double that order measured 10% slower on an H100 (its loop grew from 272 to 298
  // instructions), so there they step in the loop.
  constexpr bool kMirrorsWhereSampled = kOneDate && sizeof(T) == sizeof(float);
  T z[lanes];  // after the loop, the last date's normals
  for (int date = 0; date < dates; ++date) {
    draws(date, z);
CUNUM_UNROLL
    for (int lane = 0; lane < lanes; ++lane) {
      walks[lane].step(z[lane], o, shape.is_call);
      if (!kMirrorsWhereSampled && shape.antithetic) mirrored[lane].step(-z[lane], o, shape.is_call);
    }
  }
  const PathSample<T> centre = sample_centre(o);
  const T weight = shape.antithetic ? T(0.5) : T(1);
  const auto with_mirror = [&](int lane, const PathSample<T>& sample) {  // the pair's sum, halved by add_sample
    if constexpr (kMirrorsWhereSampled) mirrored[lane].step(-z[lane], o, shape.is_call);
    const PathSample<T> mirror = mirrored[lane].finish(o, shape.is_call, dates);
    return PathSample<T>{sample.payoff + mirror.payoff, sample.control + mirror.control, sample.delta + mirror.delta,
                         sample.vega + mirror.vega};
  };
  // Every lane's sample, then the sums in lane order (the same bits): the samples'
  // chains (exponential, payoff) overlap with no branch between them; H100, 2^31
  // European paths: float 2%, double 8% faster. Float with the full sums runs 3%
  // slower so and keeps one lane after another.
  if constexpr (kFull && sizeof(T) == sizeof(float)) {
CUNUM_UNROLL
    for (int lane = 0; lane < lanes; ++lane) {
      if (lane >= active) break;
      PathSample<T> sample = walks[lane].finish(o, shape.is_call, dates);
      if (shape.antithetic) sample = with_mirror(lane, sample);
      add_sample<kFull>(sums, sample, centre, weight);
    }
  } else {
    PathSample<T> samples[lanes];
CUNUM_UNROLL
    for (int lane = 0; lane < lanes; ++lane) samples[lane] = walks[lane].finish(o, shape.is_call, dates);
    if (shape.antithetic) {
CUNUM_UNROLL
      for (int lane = 0; lane < lanes; ++lane) samples[lane] = with_mirror(lane, samples[lane]);
    }
CUNUM_UNROLL
    for (int lane = 0; lane < lanes; ++lane) {
      if (lane < active) add_sample<kFull>(sums, samples[lane], centre, weight);
    }
  }
}

// One quasi-random path of option `o` and its sample added to `sums`. `w` holds the
// path's standard Brownian motion on [0, 1] at the bridge's records, `stride` apart:
// W(k / dates), k = 1..dates, or for one date W(1/2), W(1) (a bridge has an interior point). A step's normal
// is its increment over sqrt of its length, so the walk is the pseudo-random one.
template <class T, MonteCarloPayoff P, bool kFull, class Sums>
CUNUM_HOST_DEVICE inline void simulate_quasi_path(const OptionSetup<T>& o, const GroupShape& shape, const T* w,
                                                  std::int64_t stride, T step_scale, Sums& sums) {
  PathWalk<T, P, kFull> walk;
  if (shape.dates == 1) {
    walk.step(w[stride], o, shape.is_call);  // W(1) is standard normal
    add_sample<kFull>(sums, walk.finish(o, shape.is_call, 1), sample_centre(o), T(1));
  } else {
    T previous = 0;
    for (int date = 0; date < shape.dates; ++date) {
      const T current = w[date * stride];
      walk.step((current - previous) * step_scale, o, shape.is_call);
      previous = current;
    }
    add_sample<kFull>(sums, walk.finish(o, shape.is_call, shape.dates), sample_centre(o), T(1));
  }
}

CUNUM_HOST_DEVICE constexpr bool is_multi_asset(MonteCarloPayoff payoff) {
  return payoff == MonteCarloPayoff::basket || payoff == MonteCarloPayoff::best_of ||
         payoff == MonteCarloPayoff::worst_of;
}

// One multi-asset path (and its mirror with antithetic variates) of the option whose
// assets' constants start at `o`, correlated by the lower-triangular `factor`
// (assets x assets, row-major); its sample added to `sums`. Group g is path g (the
// pair 2g, 2g + 1 with antithetic variates); its normals are the group's draws
// b = 0, 1, ... (Philox blocks (b, g, stream), or its MRG32k3a substream).
// Pathwise Greeks: S_T^j = S0^j exp((r - q_j - sigma_j^2 / 2) T + sigma_j W_j), so
// dS_T^j / dS0^j = S_T^j / S0^j and dS_T^j / dsigma_j = S_T^j (W_j - sigma_j T); the
// payoff passes them on through the basket's weights, or through the chosen asset of
// best_of and worst_of, where it is in the money. The parallel Greeks are running
// sums; each asset's (kAssetGreeks: `sums` has room for them) are formed once the
// payoff is known: best_of and worst_of from the chosen asset's, a basket by walking
// its assets again (recomputing beats keeping the terminal values in local memory).
template <class T>
struct AssetTerminal {
  T s_t;  // S_T^j
  T w;    // W_j - sigma_j T
};

template <class T>
CUNUM_HOST_DEVICE inline AssetTerminal<T> asset_terminal(const OptionSetup<T>& o, const T* factor, const T* z,
                                                         int assets, int j, T sign) {
  T correlated = 0;
  for (int k = 0; k <= j; ++k) correlated = fma_rn(factor[j * assets + k], z[k], correlated);
  correlated *= sign;
  return {o.spot * fast_exp2(fma_rn(o.log2_diffusion, correlated, o.log2_drift)),
          fma_rn(o.sqrt_dt, correlated, -o.sigma_dt)};
}

template <class T, MonteCarloPayoff P, bool kFull, class Draws, class Sums>
CUNUM_HOST_DEVICE inline void simulate_basket_group(const OptionSetup<T>* o, const GroupShape& shape,
                                                    const T* factor, Draws& draws, Sums& sums) {
  constexpr bool kAssetGreeks = kFull && Sums::capacity >= kMaxSumCount;
  constexpr int kKept = kAssetGreeks ? kMaxAssets : 1;  // per-asset arrays, only where used
  constexpr int lanes = kPathLanes<T>;
  const int assets = shape.assets;
  T z[kMaxAssets + lanes];
  for (int block = 0; block * lanes < assets; ++block) {
    T drawn[lanes];
    draws(block, drawn);
    for (int lane = 0; lane < lanes; ++lane) z[block * lanes + lane] = drawn[lane];
  }
  PathSample<T> sample{0, 0, 0, 0};
  T asset_delta[kKept] = {};  // each asset's Greeks, summed over the mirrors
  T asset_vega[kKept] = {};
  const T direction = shape.is_call ? T(1) : T(-1);
  const int mirrors = shape.antithetic ? 2 : 1;
  for (int mirror = 0; mirror < mirrors; ++mirror) {
    const T sign = mirror == 0 ? T(1) : T(-1);
    T combined = P == MonteCarloPayoff::worst_of ? T(INFINITY) : T(0);  // sum, max or min
    T control = 0;
    T delta = 0, vega = 0;  // d combined / dh for the parallel moves
    int chosen = 0;         // best_of, worst_of: the asset that is `combined`
    for (int j = 0; j < assets; ++j) {
      const AssetTerminal<T> terminal = asset_terminal(o[j], factor, z, assets, j, sign);
      const T s_t = terminal.s_t, w_j = terminal.w;
      if constexpr (kFull) control = fma_rn(o[j].weight, s_t, control);
      if constexpr (P == MonteCarloPayoff::basket) {
        combined = fma_rn(o[j].weight, s_t, combined);
        if constexpr (kFull) {
          delta = fma_rn(o[j].weight * s_t, o[j].greek_scale, delta);
          vega = fma_rn(o[j].weight * s_t, w_j, vega);
        }
      } else {
        const bool beyond = P == MonteCarloPayoff::best_of ? s_t > combined : s_t < combined;
        if (beyond) {
          combined = s_t;
          chosen = j;
          if constexpr (kFull) {
            delta = s_t * o[j].greek_scale;
            vega = s_t * w_j;
          }
        }
      }
    }
    const T gain = direction * (combined - o[0].strike);
    const bool in_the_money = gain > T(0);
    sample.payoff += positive_part(gain);
    if constexpr (kFull) {
      sample.control += control;
      if (in_the_money) {
        sample.delta = fma_rn(direction, delta, sample.delta);
        sample.vega = fma_rn(direction, vega, sample.vega);
      }
    }
    if constexpr (kAssetGreeks) {
      if (in_the_money && P == MonteCarloPayoff::basket) {
        for (int j = 0; j < assets; ++j) {
          const AssetTerminal<T> terminal = asset_terminal(o[j], factor, z, assets, j, sign);
          const T exposure = direction * o[j].weight;
          asset_delta[j] = fma_rn(exposure * terminal.s_t, o[j].greek_scale, asset_delta[j]);
          asset_vega[j] = fma_rn(exposure * terminal.s_t, terminal.w, asset_vega[j]);
        }
      } else if (in_the_money) {
        asset_delta[chosen] = fma_rn(direction, delta, asset_delta[chosen]);
        asset_vega[chosen] = fma_rn(direction, vega, asset_vega[chosen]);
      }
    }
  }
  const T mean = shape.antithetic ? T(0.5) : T(1);
  add_sample<kFull>(sums, sample, sample_centre(o[0]), mean);
  if constexpr (kAssetGreeks) {
    using A = typename Sums::value_type;
    for (int j = 0; j < assets; ++j) {  // less each asset's references, as add_sample
      const A d = fma_rn(A(mean), A(asset_delta[j]), -A(static_cast<T>(o[j].asset_delta_reference)));
      const A v = fma_rn(A(mean), A(asset_vega[j]), -A(static_cast<T>(o[j].asset_vega_reference)));
      sums.asset_sum(j, kAssetSumD) += d;
      add_product(sums.asset_sum(j, kAssetSumDD), d, d);
      sums.asset_sum(j, kAssetSumV) += v;
      add_product(sums.asset_sum(j, kAssetSumVV), v, v);
    }
  }
}

// The estimates come from sums of samples less their references (add_sample), in
// double. A centred sum of products, sum (a - mean a)(b - mean b), is formed as
// sum ab - (sum a)(sum b) / n. Its rounding, relative to the summed squares
// sqrt(sum a^2 sum b^2): a summand is at most three roundings from exact (the shifts
// and the product), and any order of adding n terms errs by at most (n - 1) u of
// the sum of their magnitudes (Higham, Accuracy and Stability of Numerical
// Algorithms, 2nd ed., 2002, section 4.2; u = 2^-53), so sum ab is within (n + 2) u,
// and (sum a)(sum b) / n within 2 (n + 2) u by Cauchy-Schwarz.
CUNUM_HOST_DEVICE inline double centred_sum_rounding(double n) { return 3 * (n + 2) * 0x1p-53; }

CUNUM_HOST_DEVICE inline double centred_sum(double sum_ab, double sum_a, double sum_b, double n) {
  return sum_ab - sum_a * (sum_b / n);
}

// A Greek's discounted mean and standard error from the sums of its n samples less
// `reference` and of their squares.
CUNUM_HOST_DEVICE inline void greek_from_sums(double sum, double squares, double reference, double n,
                                              double discount, double& value, double& error) {
  const double variance = centred_sum(squares, sum, sum, n) / (n - 1);
  value = discount * (reference + sum / n);
  error = discount * sqrt((variance > 0 ? variance : 0.0) / n);
}

// The estimate of option `o` from its summed statistics: `samples` independent
// samples (paths, or pairs with antithetic variates), summed less sample_centre(o).
// `payoffs_non_negative`: every sample is >= 0 (a library payoff), so their mean is,
// and a price without a control variate below 0 by no more than the rounding of its
// sums is 0. That happens: when the centre pays and no sample does, the mean of the
// samples less it rounds to a little more or less than its negative.
// With a control variate, the residual variance syy - beta sxy is what the control
// leaves of the payoff's: a difference of nearly equal terms when the control is
// nearly perfect, so its absolute error is the centred sums' rounding,
// centred_sum_rounding(n) (sqrt(sum y^2) + |beta| sqrt(sum x^2))^2 with the sums of
// the shifted samples, whatever the residual (docs/monte_carlo.md).
template <class T>
CUNUM_HOST_DEVICE inline MonteCarloEstimate<T> estimate_from_sums(const double* s, bool full, bool control,
                                                                   bool greeks, std::int64_t samples,
                                                                   std::int64_t paths, const OptionSetup<T>& o,
                                                                   bool payoffs_non_negative) {
  const double nan = NAN;
  const double n = static_cast<double>(samples);
  const PathSample<T> centre = sample_centre(o);
  const double syy = centred_sum(s[kSumYY], s[kSumY], s[kSumY], n);
  double price = double(centre.payoff) + s[kSumY] / n, variance = syy / (n - 1), beta = nan;
  if (full && control) {
    // The samples' x are the controls less control_mean rounded to T: the control's
    // deviation from its expectation is their mean less the rounding.
    const double mean_x = s[kSumX] / n - (o.control_mean - double(centre.control));
    const double sxx = centred_sum(s[kSumXX], s[kSumX], s[kSumX], n);
    const double sxy = centred_sum(s[kSumXY], s[kSumX], s[kSumY], n);
    // A control whose spread is within the rounding of its sums is a constant, which
    // removes no variance.
    beta = sxx > centred_sum_rounding(n) * s[kSumXX] ? sxy / sxx : 0.0;
    price -= beta * mean_x;
    variance = (syy - beta * sxy) / (n - 2);
  } else if (payoffs_non_negative && price < 0) {
    // Any order of adding the n shifted samples errs by at most n u of the sum of their
    // magnitudes, n u sqrt(n syy) by Cauchy-Schwarz (u of T: the GPU's plain sums round
    // in float for float); dividing by n and adding the centre, a few u more.
    const double u = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
    const double rounding = (n + 2) * u * (sqrt(s[kSumYY] / n) + fabs(double(centre.payoff)));
    if (-price <= rounding) price = 0.0;
  }
  variance = variance > 0 ? variance : 0.0;
  const double discount = o.discount;
  const double error = discount * sqrt(variance / n);
  MonteCarloEstimate<T> e;
  e.price = static_cast<T>(discount * price);
  e.standard_error = static_cast<T>(error);
  e.confidence_low = static_cast<T>(discount * price - 1.959963984540054 * error);
  e.confidence_high = static_cast<T>(discount * price + 1.959963984540054 * error);
  e.delta = e.delta_standard_error = e.vega = e.vega_standard_error = static_cast<T>(nan);
  if (full && greeks) {
    double value, value_error;
    greek_from_sums(s[kSumD], s[kSumDD], double(centre.delta), n, discount, value, value_error);
    e.delta = static_cast<T>(value);
    e.delta_standard_error = static_cast<T>(value_error);
    greek_from_sums(s[kSumV], s[kSumVV], double(centre.vega), n, discount, value, value_error);
    e.vega = static_cast<T>(value);
    e.vega_standard_error = static_cast<T>(value_error);
  }
  e.control_coefficient = static_cast<T>(beta);
  e.paths = paths;
  return e;
}

// Each asset's Greeks of one multi-asset option (its assets' constants from `o`)
// from its summed statistics, into out[0 .. assets).
template <class T>
CUNUM_HOST_DEVICE inline void asset_greeks_from_sums(const double* s, int assets, std::int64_t samples,
                                                     const OptionSetup<T>* o, MonteCarloAssetGreeks<T>* out) {
  const double n = static_cast<double>(samples);
  const double discount = o[0].discount;
  for (int j = 0; j < assets; ++j) {
    const double* asset_sums = s + kSumCount + j * kAssetSumCount;
    const double delta_reference = static_cast<T>(o[j].asset_delta_reference);  // as simulate_basket_group subtracts
    const double vega_reference = static_cast<T>(o[j].asset_vega_reference);
    double delta, delta_error, vega, vega_error;
    greek_from_sums(asset_sums[kAssetSumD], asset_sums[kAssetSumDD], delta_reference, n, discount, delta,
                    delta_error);
    greek_from_sums(asset_sums[kAssetSumV], asset_sums[kAssetSumVV], vega_reference, n, discount, vega, vega_error);
    out[j] = {static_cast<T>(delta), static_cast<T>(delta_error), static_cast<T>(vega), static_cast<T>(vega_error)};
  }
}

// Writes the estimate of option `option` (and each of its assets' Greeks when they
// are asked for) from its summed statistics: both backends' last step.
template <class T>
CUNUM_HOST_DEVICE inline void write_estimates(const MonteCarloArgs<T>& a, std::int64_t option, const double* totals) {
  const OptionSetup<T>* o = option_setup_of(a, option);
  a.results[option] =
      estimate_from_sums<T>(totals, a.full, a.shape.control, a.greeks, a.chunks.samples, a.shape.paths, *o,
                            a.payoff != MonteCarloPayoff::custom);
  if (a.asset_greeks != nullptr) {
    asset_greeks_from_sums(totals, a.shape.assets, a.chunks.samples, o, a.asset_greeks + option * a.shape.assets);
  }
}

// Sums group `group` of option `option` with its normals `draws`: the one-asset walk
// on a copy of its constants (`setup`, in registers on the GPU), or the multi-asset one.
template <class T, MonteCarloPayoff P, bool kFull, class Draws, class Sums>
CUNUM_HOST_DEVICE inline void sum_group(const MonteCarloArgs<T>& a, const OptionSetup<T>& setup, std::int64_t option,
                                        std::uint64_t group, Draws& draws, Sums& sums) {
  if constexpr (is_multi_asset(P)) {
    simulate_basket_group<T, P, kFull>(option_setup_of(a, option), a.shape, a.factor, draws, sums);
  } else {
    simulate_group<T, P, kFull>(setup, a.shape, group, draws, sums);
  }
}

// The library's payoff P, as the payoff argument of the chunk code (a caller's
// functor takes its place for MonteCarloPayoff::custom); kAssetGreeks: a multi-asset
// payoff whose chunks also sum each asset's Greeks.
template <MonteCarloPayoff P, bool kAssetGreeks = false>
struct LibraryPayoff {};

// One group with the library's payoff P: the overload of the chunk walker's
// sum_payoff_group (cunum/device/detail/monte_carlo_args.hpp) for LibraryPayoff.
template <class T, bool kFull, MonteCarloPayoff P, bool kAssetGreeks, class Draws, class Sums>
CUNUM_HOST_DEVICE inline void sum_payoff_group(const MonteCarloArgs<T>& a, const OptionSetup<T>& setup,
                                               std::int64_t option, LibraryPayoff<P, kAssetGreeks>, std::uint64_t group,
                                               Draws& draws, Sums& sums) {
  sum_group<T, P, kFull>(a, setup, option, group, draws, sums);
}

// The normals of a multi-asset option's zero path: every draw 0.
template <class T>
struct ZeroDraws {
  CUNUM_HOST_DEVICE void operator()(int, T (&z)[kPathLanes<T>]) const {
    for (int lane = 0; lane < kPathLanes<T>; ++lane) z[lane] = T(0);
  }
};

// load()'s references (OptionSetup::payoff_reference and the others) of option `o`
// (its assets' constants from `o` for a multi-asset payoff): the samples of its zero
// path (one path, every normal 0), walked by the path code of payoff P with every
// Greek, a one-asset path as a quasi-random path on W = 0 and a multi-asset one on
// zero draws. `shape` is the pricer's. The references must be 0 before: the sums
// then hold the sample itself. A custom payoff's functor is not known at load: its
// references stay 0.
template <class T, MonteCarloPayoff P>
CUNUM_HOST_DEVICE inline void set_zero_path_references(GroupShape shape, OptionSetup<T>* o, const T* factor) {
  if constexpr (P != MonteCarloPayoff::custom) {
    shape.antithetic = false;
    ChunkSums<double, kMaxSumCount> sample{};
    if constexpr (is_multi_asset(P)) {
      ZeroDraws<T> zero;
      simulate_basket_group<T, P, true>(o, shape, factor, zero, sample);
      for (int j = 0; j < shape.assets; ++j) {
        o[j].asset_delta_reference = sample.asset_sum(j, kAssetSumD);
        o[j].asset_vega_reference = sample.asset_sum(j, kAssetSumV);
      }
    } else {
      const T brownian = 0;  // every record of the path, stride 0
      simulate_quasi_path<T, P, true>(*o, shape, &brownian, 0, T(1), sample);
    }
    o->payoff_reference = sample.s[kSumY];
    o->delta_reference = sample.s[kSumD];
    o->vega_reference = sample.s[kSumV];
  }
}

// A multi-asset payoff with each asset's Greeks keeps the full set and every asset's.
template <MonteCarloPayoff P, bool kFull>
constexpr int kSumCapacity<LibraryPayoff<P, true>, kFull> = kFull ? kMaxSumCount : kPlainSumCount;

}  // namespace cunum::detail
