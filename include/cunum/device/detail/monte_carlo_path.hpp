#pragma once
// Part of cunum's device API for callers' own Monte Carlo payoffs
// (cunum/device/monte_carlo_payoff.cuh); not a stable interface of its own. What a
// group of paths shares with the library's payoffs: the per-option constants, the
// normals of a date (Philox4x32-10 blocks or MRG32k3a substreams, Box-Muller), the
// statistics a chunk sums, and the walk of a caller's functor. The library's own
// payoffs (src/monte_carlo/monte_carlo_path.hpp) run on the same pieces.

#include <cmath>
#include <cstdint>

#include "cunum/device/detail/double_normal_math.hpp"
#include "cunum/device/detail/float_normal_math.hpp"
#include "cunum/device/mrg32k3a.hpp"
#include "cunum/device/philox.hpp"
#include "cunum/monte_carlo.hpp"
#include "cunum/device/detail/host_device.hpp"

namespace cunum::detail {

// The path code's multiply-adds, one rounding each. Its kernels are compiled without
// contraction (src/monte_carlo/sources.cmake), so these are its only fused operations:
// the kernels that inline it sum a chunk to the same bits, and so does the CPU.
using float_normal_math::fma_rn;
// The tests' sample recorder keeps its samples in long double (host only).
inline long double fma_rn(long double a, long double b, long double c) { return std::fma(a, b, c); }

// sum += a b, rounded once: a chunk's sums of squares and products. (The tests' sample
// recorder, whose sums are no numbers, has its own, found by argument lookup.)
template <class A>
CUNUM_HOST_DEVICE inline void add_product(A& sum, A a, A b) {
  sum = fma_rn(a, b, sum);
}

// Paths a Philox block feeds (the lanes of a group): 4 floats or 2 doubles.
template <class T>
constexpr int kPathLanes = sizeof(T) == 4 ? 4 : 2;

// Per-option constants, formed once by load() in double and rounded to T, so both
// backends walk with the same numbers.
template <class T>
struct OptionSetup {
  T spot;
  T strike;
  T log2_drift;      // (r - q - sigma^2 / 2) dt log2(e): the mean step of log2 S
  T log2_diffusion;  // sigma sqrt(dt) log2(e): the step per unit normal
  T log2_barrier;    // log2(B / S0) (barriers only)
  T sqrt_dt;         // sqrt(dt), for the Brownian increment of the Greeks
  T sigma_dt;        // sigma dt, so that W_k - sigma t_k advances by sqrt(dt) z - sigma dt
  T greek_scale;     // likelihood-ratio payoffs: 1 / (S0 sigma dt); others: 1 / S0
  T weight;          // multi-asset: the asset's weight in the payoff's control (basket: in the payoff)
  double discount;       // e^{-rT}
  double control_mean;   // the control's expectation (undiscounted; multi-asset: the option's, in asset 0)
  double volatility;     // sigma (likelihood-ratio vega)
  // The samples of the option's zero path (every normal 0), which load() forms with
  // the path code itself: each sample is summed less its reference (the control less
  // its expectation), so that a sum of squares is of the samples' spread, not of
  // their mean (add_sample). 0 for custom payoffs, whose functor load() does not see.
  // Multi-asset: the option's payoff and parallel Greeks in its first asset's
  // constants, and each asset's own Greeks in its asset_* references.
  double payoff_reference;
  double delta_reference;
  double vega_reference;
  double asset_delta_reference;
  double asset_vega_reference;
  std::uint32_t stream;  // the option's stream id
  device::Mrg32k3aState mrg_stream;  // MRG32k3a: substream stream x 2^32 of the seed's state (its group 0)
};

// The statistics of a chunk, in the order of the partial sums: payoff y, y^2, the
// centred control x, x^2, x y, delta d, d^2, vega v, v^2. A plain chunk (no control,
// no Greeks) has the first two. A multi-asset chunk with Greeks appends each asset's
// d, d^2, v, v^2 (kAssetSum* from kSumCount + asset * kAssetSumCount); its d and v are
// the parallel Greeks, the sums over the assets.
enum SumIndex { kSumY, kSumYY, kSumX, kSumXX, kSumXY, kSumD, kSumDD, kSumV, kSumVV, kSumCount };
enum AssetSumIndex { kAssetSumD, kAssetSumDD, kAssetSumV, kAssetSumVV, kAssetSumCount };
constexpr int kPlainSumCount = 2;

// The most assets a multi-asset option may have (a path's normals live in registers).
constexpr int kMaxAssets = 16;
constexpr int kMaxSumCount = kSumCount + kAssetSumCount * kMaxAssets;

// A chunk's sums in A (T or double), room for N of them.
template <class A, int N>
struct ChunkSums {
  using value_type = A;
  static constexpr int capacity = N;
  A s[N];
  // Sum `which` (AssetSumIndex) of asset j's Greeks (N = kMaxSumCount).
  CUNUM_HOST_DEVICE A& asset_sum(int j, int which) { return s[kSumCount + j * kAssetSumCount + which]; }
};

// One path's outcome: payoff, control (centred later), delta and vega samples.
template <class T>
struct PathSample {
  T payoff, control, delta, vega;
};

// What add_sample subtracts from an option's samples: its references and its
// control's expectation, rounded to T as the samples are (the estimates add back
// exactly these values).
template <class T>
CUNUM_HOST_DEVICE inline PathSample<T> sample_centre(const OptionSetup<T>& o) {
  return {static_cast<T>(o.payoff_reference), static_cast<T>(o.control_mean), static_cast<T>(o.delta_reference),
          static_cast<T>(o.vega_reference)};
}

// Box-Muller on two uniforms. Float: the GPU takes the fast intrinsics (MUFU; within
// a few ulps of libm over the uniforms' range), the CPU libm. Double: both take the
// branch-free functions of double_normal_math.hpp, written for exactly these
// arguments. The two backends agree to rounding.
CUNUM_HOST_DEVICE inline void monte_carlo_box_muller(float u1, float u2, float& z0, float& z1) {
#if defined(__CUDA_ARCH__)
  const float radius = sqrtf(-2.0f * __logf(u1));  // approximate: the file builds with -prec-sqrt=false
  float sine, cosine;
  __sincosf(6.2831853071795865f * u2, &sine, &cosine);
#else
  const float radius = std::sqrt(-2.0f * std::log(u1));
  const float sine = std::sin(6.2831853071795865f * u2), cosine = std::cos(6.2831853071795865f * u2);
#endif
  z0 = radius * sine;
  z1 = radius * cosine;
}

CUNUM_HOST_DEVICE inline void monte_carlo_box_muller(double u1, double u2, double& z0, double& z1) {
  const double radius = normal_math::sqrt_radius(normal_math::minus_two_log(u1));
  double sine, cosine;
  normal_math::sincos_two_pi(u2, sine, cosine);
  z0 = normal_math::mul_rn(radius, sine);
  z1 = normal_math::mul_rn(radius, cosine);
}

// The kPathLanes<T> normals of date `step` of group `group` of a stream.
template <class T>
CUNUM_HOST_DEVICE inline void group_normals(std::uint32_t key0, std::uint32_t key1, std::uint32_t step,
                                            std::uint64_t group, std::uint32_t stream, T (&z)[kPathLanes<T>]) {
  const device::PhiloxWords counter{
      {step, static_cast<std::uint32_t>(group), static_cast<std::uint32_t>(group >> 32), stream}};
  const device::PhiloxWords words = device::philox4x32(counter, key0, key1);
  if constexpr (sizeof(T) == 4) {
    monte_carlo_box_muller(device::uniform_float(words.w[0]), device::uniform_float(words.w[1]), z[0], z[1]);
    monte_carlo_box_muller(device::uniform_float(words.w[2]), device::uniform_float(words.w[3]), z[2], z[3]);
  } else {
    monte_carlo_box_muller(device::uniform_double(words.w[0], words.w[1]),
                           device::uniform_double(words.w[2], words.w[3]), z[0], z[1]);
  }
}

// The normals of one group, draw after draw (a date of a one-asset walk, a block of a
// multi-asset path's normals). Philox: counter (draw, group, stream), random access.
template <class T>
struct PhiloxDraws {
  std::uint32_t key0, key1, stream;
  std::uint64_t group;
  CUNUM_HOST_DEVICE void operator()(int draw, T (&z)[kPathLanes<T>]) const {
    group_normals<T>(key0, key1, static_cast<std::uint32_t>(draw), group, stream, z);
  }
};

// MRG32k3a: the group's own substream, kPathLanes<T> outputs (one uniform each) per draw,
// Box-Muller on consecutive pairs.
template <class T>
struct MrgDraws {
  device::Mrg32k3aState state;  // the group's substream, at its next output
  CUNUM_HOST_DEVICE void operator()(int, T (&z)[kPathLanes<T>]) {
    for (int pair = 0; pair < kPathLanes<T> / 2; ++pair) {
      const T u1 = static_cast<T>(device::mrg32k3a_next_uniform(state));
      const T u2 = static_cast<T>(device::mrg32k3a_next_uniform(state));
      monte_carlo_box_muller(u1, u2, z[2 * pair], z[2 * pair + 1]);
    }
  }
};

CUNUM_HOST_DEVICE inline float fast_exp2(float x) {
#if defined(__CUDA_ARCH__)
  return exp2f(x);
#else
  return std::exp2(x);
#endif
}
CUNUM_HOST_DEVICE inline double fast_exp2(double x) { return normal_math::exp2_saturated(x); }

// The settings a group needs, as the kernels and the CPU loop receive them.
struct GroupShape {
  std::int64_t paths;       // per option
  int assets;               // multi-asset payoffs: the assets of an option (its constants are consecutive)
  std::uint64_t groups;     // per option
  int last_group_lanes;     // lanes with a path in the last group
  int dates;                // steps walked (1 for european and digital)
  bool is_call;
  bool antithetic;
  bool control;             // control variate requested
  bool asset_greeks;        // multi-asset: each asset's Greeks asked for (their sums kept)
  std::uint32_t key0, key1; // the seed
};

// Adds one sample, `scale` times `sample` less `centre` (sample_centre: the option's
// references), to a chunk's sums (kFull: all of them); `scale` is 1, or 1/2 for an
// antithetic pair's sum (exact, so the product and the difference round once). Sums
// of shifted values are additive like plain ones, so chunks combine as before, and a
// variance formed from them (sum of squares - sum^2 / n) cancels only the shift's
// distance from the mean, not the mean itself: it keeps its digits when the mean is
// far larger than the spread.
template <bool kFull, class Sums, class T>
CUNUM_HOST_DEVICE inline void add_sample(Sums& sums, const PathSample<T>& sample, const PathSample<T>& centre,
                                          T scale) {
  using A = typename Sums::value_type;
  const A y = fma_rn(A(scale), A(sample.payoff), -A(centre.payoff));
  sums.s[kSumY] += y;
  add_product(sums.s[kSumYY], y, y);
  if constexpr (kFull) {
    const A x = fma_rn(A(scale), A(sample.control), -A(centre.control));
    sums.s[kSumX] += x;
    add_product(sums.s[kSumXX], x, x);
    add_product(sums.s[kSumXY], x, y);
    const A d = fma_rn(A(scale), A(sample.delta), -A(centre.delta));
    const A v = fma_rn(A(scale), A(sample.vega), -A(centre.vega));
    sums.s[kSumD] += d;
    add_product(sums.s[kSumDD], d, d);
    sums.s[kSumV] += v;
    add_product(sums.s[kSumVV], v, v);
  }
}

// A group of the caller's `custom` payoff (cunum/device/monte_carlo_payoff.cuh): the
// one-asset walk of the library's payoffs, the functor's state per lane (and mirror) observing
// S at each date, its value the payoff; the control is the terminal asset.
template <class T, bool kFull, class Payoff, class Draws, class Sums>
CUNUM_HOST_DEVICE inline void simulate_custom_group(const OptionSetup<T>& o, const GroupShape& shape,
                                                    std::int64_t option, const Payoff& payoff, std::uint64_t group,
                                                    Draws& draws, Sums& sums) {
  constexpr int lanes = kPathLanes<T>;
  using State = typename Payoff::State;
  const MonteCarloPathView<T> view{o.spot, o.strike, shape.dates, shape.is_call, option};
  const int active = group + 1 < shape.groups ? lanes : shape.last_group_lanes;
  T log2_s[lanes], mirrored_log2_s[lanes];
  State states[lanes], mirrored[lanes];
  for (int lane = 0; lane < lanes; ++lane) {
    log2_s[lane] = mirrored_log2_s[lane] = T(-0.0);
    states[lane] = mirrored[lane] = payoff.start(view);
  }
  for (int date = 0; date < shape.dates; ++date) {
    T z[lanes];
    draws(date, z);
    for (int lane = 0; lane < lanes; ++lane) {
      log2_s[lane] += fma_rn(o.log2_diffusion, z[lane], o.log2_drift);
      payoff.observe(states[lane], o.spot * fast_exp2(log2_s[lane]), date, view);
      if (shape.antithetic) {
        mirrored_log2_s[lane] += fma_rn(-o.log2_diffusion, z[lane], o.log2_drift);
        payoff.observe(mirrored[lane], o.spot * fast_exp2(mirrored_log2_s[lane]), date, view);
      }
    }
  }
  const PathSample<T> centre = sample_centre(o);
  for (int lane = 0; lane < lanes; ++lane) {
    if (lane >= active) break;
    PathSample<T> sample{payoff.value(states[lane], view), o.spot * fast_exp2(log2_s[lane]), T(0), T(0)};
    if (shape.antithetic) {  // the pair's sum, halved by add_sample
      sample.payoff += payoff.value(mirrored[lane], view);
      sample.control += o.spot * fast_exp2(mirrored_log2_s[lane]);
    }
    add_sample<kFull>(sums, sample, centre, shape.antithetic ? T(0.5) : T(1));
  }
}


}  // namespace cunum::detail
