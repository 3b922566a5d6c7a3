#pragma once
// Internal: the scalar Black-Scholes-Merton mathematics shared by the CPU backend
// and the CUDA kernels (CUNUM_HOST_DEVICE), templated on float and double. The
// normal tails are N(-|d|) = phi(d) m(|d|), m(a) = N(-a) / phi(a) the Mills ratio,
// accurate however far out, from minimax approximations (mills_ratios) for the prices
// and the implied-volatility inversion alike.
// The invalid-element policy and the accuracy bound implemented here are stated in
// include/cunum/black_scholes.hpp.

#include <cmath>
#include <limits>
#include <type_traits>

#include "cunum/device/detail/double_normal_math.hpp"
#include "cunum/device/detail/host_device.hpp"
#include "cunum/device/sobol.hpp"

namespace cunum::detail::bs {

// Elementary functions by precision, the same on the host and the device: NAME_(x)
// calls the device's FLOAT_NAME or NAME, or std::NAME on the host.
#if defined(__CUDA_ARCH__)
#define CUNUM_BS_UNARY(name, float_name)                                         \
  template <class T>                                                             \
  CUNUM_HOST_DEVICE inline T name##_(T x) {                                      \
    if constexpr (std::is_same_v<T, float>) return ::float_name(x); else return ::name(x); \
  }
#else
#define CUNUM_BS_UNARY(name, float_name) \
  template <class T>                     \
  CUNUM_HOST_DEVICE inline T name##_(T x) { \
    return std::name(x);                 \
  }
#endif
CUNUM_BS_UNARY(erf, erff)
CUNUM_BS_UNARY(expm1, expm1f)
CUNUM_BS_UNARY(sinh, sinhf)
CUNUM_BS_UNARY(exp, expf)
CUNUM_BS_UNARY(log, logf)
CUNUM_BS_UNARY(sqrt, sqrtf)
CUNUM_BS_UNARY(fabs, fabsf)
CUNUM_BS_UNARY(cbrt, cbrtf)
#undef CUNUM_BS_UNARY

// e^x for x not NaN (+inf gives +inf, -inf 0), ln y for y >= 0, and e^x - 1 for
// |x| < 1: the exponentials and logarithms of the prices' common path, and the
// logarithm of the moneyness that evaluate() and implied_volatility() both form. On
// the device in double the functions of double_normal_math.hpp (exp_saturated,
// log_normal where y is a normal number, expm1_within_one): written for exactly such
// arguments, with their coefficients in constant memory, each a third to a half of the
// library's instructions (the double price kernels are bound by instruction issue);
// within 1.15, 0.86 and 1.81 ulps. Elsewhere (float, the host) the library's.
template <class T>
CUNUM_HOST_DEVICE inline T exp_not_nan_(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, double>) return normal_math::exp_saturated(x);
#endif
  return exp_(x);
}
template <class T>
CUNUM_HOST_DEVICE inline T log_nonnegative_(T y) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, double>) {
    if (y >= std::numeric_limits<double>::min() && y <= std::numeric_limits<double>::max()) {
      return normal_math::log_normal(y);
    }
  }
#endif
  return log_(y);
}
template <class T>
CUNUM_HOST_DEVICE inline T expm1_within_one_(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, double>) return normal_math::expm1_within_one(x);
#endif
  return expm1_(x);
}

// a / b for the Greeks' quotients. On the device in float: __fdividef, 2 ulps without
// the range checks of a full division (a divisor beyond 2^126 gives 0); elsewhere the
// plain division.
template <class T>
CUNUM_HOST_DEVICE inline T divide_(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) return __fdividef(a, b); else return a / b;
#else
  return a / b;
#endif
}

// Elementary operations on normal numbers, for the common path of evaluate() and the
// Mills ratios, whose operands are known to be normal: on the device they drop the
// scaling and the slow paths that sqrt_ and divide_ keep for denormal operands. Float
// takes the same approximate instructions as those (MUFU.RCP, MUFU.SQRT), so the same
// values wherever the operand is normal; double refines the approximate instructions to
// within rounding (normal_math::Reciprocal, normal_math::refine_sqrt). The host: 1 / y
// and std::sqrt. Operands below 2^-126 (float), 2^-1022 (double) give 0 or inf or NaN,
// never the general result: evaluate() sends them to its other path.
template <class T>
constexpr T kMinNormal = std::numeric_limits<T>::min();
// 1 / y for kMinNormal <= y <= 1 / kMinNormal. Beyond, a result below kMinNormal flushes
// to 0 (the Mills ratios' arguments 1 + 0.3 a go there only where m(a) multiplies a
// density that is 0 already).
template <class T>
CUNUM_HOST_DEVICE inline T reciprocal_normal_(T y) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(y));
    return r;
  } else {
    return normal_math::Reciprocal{}(y);
  }
#else
  return T(1) / y;
#endif
}
// sqrt(y) for y >= kMinNormal (finite): 0 for a float denormal, NaN for a double one.
template <class T>
CUNUM_HOST_DEVICE inline T sqrt_normal_(T y) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    float r;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(y));
    return r;
  } else {
    double r0;
    asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(r0) : "d"(y));
    return normal_math::refine_sqrt(y, r0);
  }
#else
  return std::sqrt(y);
#endif
}

// S / K on the common path of evaluate() (K normal): in float S times reciprocal_normal_(K),
// the value divide_ gives there; in double the correctly rounded quotient, the one
// implied_volatility() forms: near the money an ulp of ln(S/K) is a relative error of
// about 1 / (sigma sqrt T) ulps in a price, so a price and its inversion must agree on it.
template <class T>
CUNUM_HOST_DEVICE inline T moneyness_ratio(T s, T k) {
  if constexpr (std::is_same_v<T, float>) {
    return s * reciprocal_normal_(k);
  } else {
    return s / k;
  }
}

template <class T>
CUNUM_HOST_DEVICE inline bool isfinite_(T x) {
  // x - x is 0 for finite x and NaN for infinities and NaN.
  return x - x == T(0);
}
template <class T>
CUNUM_HOST_DEVICE inline T quiet_nan() {
  return std::numeric_limits<T>::quiet_NaN();
}
template <class T>
CUNUM_HOST_DEVICE inline T infinity() {
  return std::numeric_limits<T>::infinity();
}

template <class T> constexpr T kInvSqrt2 = T(0.70710678118654752440084436210484903928L);
template <class T> constexpr T kInvSqrt2Pi = T(0.39894228040143267793994605993438186848L);

// Standard normal density, x not NaN.
template <class T>
CUNUM_HOST_DEVICE inline T norm_pdf(T x) {
  return kInvSqrt2Pi<T> * exp_not_nan_(T(-0.5) * x * x);
}

// N(d) and N(-d) from the tail N(-|d|): the tail, accurate however small, and its
// complement, which is at least 1/2 and so loses nothing. At d == 0 exactly 1/2 (the
// tail's product phi(0) m(0) is an ulp off in double).
template <class T>
struct NormalCdfPair {
  T at, at_minus;  // N(d), N(-d)
};
template <class T>
CUNUM_HOST_DEVICE inline NormalCdfPair<T> norm_cdf_pair(T d, T tail) {
  if (d == T(0)) return {T(0.5), T(0.5)};
  return d < T(0) ? NormalCdfPair<T>{tail, T(1) - tail} : NormalCdfPair<T>{T(1) - tail, tail};
}

// Below this total volatility sigma sqrt(T), near-the-money prices are formed without
// the cancellation of S e^{-qT} N(d1) and K e^{-rT} N(d2); above it the cancellation
// costs at most about 1 / (0.4 x 1/16) = 40 ulps, and the plain form is cheaper. Out
// of the money, below it, mills_difference sums a series instead of subtracting.
template <class T> constexpr T kSmallTotalVolatility = T(0.0625);

// The Mills ratio m(a) = N(-a) / phi(a), a >= 0 (m(inf) = 0): the normal tail without
// its Gaussian factor, N(-|d|) = phi(d) m(|d|), so that a tail's Gaussian factor can be
// shared (with the other tail of a price) instead of each erfc carrying the argument
// error of its own exp(-d^2/2). The prices and the implied-volatility inversion take it
// from the minimax approximations below (mills_ratios).

// m(a) in float, a >= 0, as t P(t) with t = 1 / (1 + 0.3 a) in (0, 1] and P of degree
// 10, fitted to the relative error of m over all of [0, inf) by Lawson's iteration of
// weighted least squares in mpmath (tests/black_scholes/oracle/fit_mills_ratio.py):
// 2.2e-8 (0.37 u) before rounding. P(0) = 0.3, so t P(t) ~ 1/a keeps its relative
// accuracy in the tail, and m(inf) = 0 (t = 0). The coefficients are at most 0.3 in
// magnitude and t <= 1, so Horner's rule adds about an ulp. One reciprocal and eleven
// fused multiply-adds, the same for every a (no branch for a warp to diverge on).
CUNUM_HOST_DEVICE inline float mills_ratio_minimax(float a) {
  const float t = reciprocal_normal_(1.0f + 0.3f * a);
  float p = -0.026972627620702515123f;  // t^10
  p = p * t + 0.097276477179467702701f;
  p = p * t - 0.075732717089650037856f;
  p = p * t - 0.082562406584084077797f;
  p = p * t + 0.059060140735482139733f;
  p = p * t + 0.038882903915922627852f;
  p = p * t + 0.15224754569088320603f;
  p = p * t + 0.21805330723580214573f;
  p = p * t + 0.27306307008079342851f;
  p = p * t + 0.29999841025600987129f;
  p = p * t + 0.30000000647035369368f;
  return t * p;
}

// m(a) in double, a >= 0, after Shepherd and Laframboise's erfcx (Math. Comp. 36 (1981)
// 249-253; docs/black_scholes.md): (1 + sqrt(2) a) m(a) is a smooth function of
// y = (a - k) / (a + k), k = 4 sqrt 2, approximated on a in [0, 45] (y in [-1, 0.7767])
// by a polynomial of degree 22 fitted as mills_ratio_minimax's (fit_mills_ratio.py
// --double): 1.7e-17 (0.15 u) before rounding; its coefficients are at most 1.6 and
// |y| <= 1. From 45 on, the asymptotic series m(a) = (1/a) sum_n (-1)^n (2n-1)!! a^{-2n}
// to n = 7 (the next term is below 1e-19). Two ratios share one division: with
// p = (a + k)(1 + sqrt(2) a) for each, 1 / (p_1 p_2) gives both 1 / p, from which
// y = (a - k)(1 + sqrt(2) a) / p and m = Q(y) (a + k) / p (four divisions in the plain form).
template <class T>
struct MillsRatios {
  T first, second;
};
constexpr double kMinimaxMillsCore = 45.0;
// The coefficients of mills_minimax_core, y^22 first. On the device they live in constant
// memory: a double literal whose low word is not zero costs two moves into registers at
// each use inside the loop, a constant none (an operand of the multiply-add).
struct MillsCoreCoefficients {
  double c[23];
};
inline constexpr MillsCoreCoefficients kMillsCore = {{
    -1.651958274767331810010876e-9, -1.526322291840826798642136e-8, -9.658668660860046865585792e-9,
    0.0000001398065871677236382724191, 7.570816038370964889836502e-8, -0.000001041767567970357347077784,
    0.0000003822610375008379199371664, 0.00000716365024585552373205849, -0.00001407159138599050786595173,
    -0.00003058409415683810869551177, 0.0001887784457822820362591958, -0.0002497298224121261320666447,
    -0.0009497284211452065104246834, 0.006306638822993258995634693, -0.02030084902898166486816764,
    0.04658257270718678947602958, -0.08313278521031445320459033, 0.1174766872317591547043243,
    -0.1266336898842640395040458, 0.0853470008070174780167838, 0.01927553540720410485844835,
    -0.1749891196040568931818937, 1.545330213414407249400317,
}};
CUNUM_CONSTANT_TABLE(MillsCoreCoefficients, kMillsCore, mills_core_coefficients)
CUNUM_HOST_DEVICE inline double mills_minimax_core(double y) {
  const double* c = mills_core_coefficients().c;
  double q = c[0];
  CUNUM_UNROLL
  for (int j = 1; j < 23; ++j) q = q * y + c[j];
  return q;
}
CUNUM_HOST_DEVICE inline double mills_asymptotic(double a) {
  const double inverse = 1.0 / a, z = inverse * inverse;
  double series = -135135.0;
  series = series * z + 10395.0;
  series = series * z - 945.0;
  series = series * z + 105.0;
  series = series * z - 15.0;
  series = series * z + 3.0;
  series = series * z - 1.0;
  return inverse * (series * z + 1.0);
}
CUNUM_HOST_DEVICE inline MillsRatios<double> mills_ratios_minimax(double a1, double a2) {
  constexpr double k = 5.6568542494923801952;       // 4 sqrt 2
  constexpr double sqrt2 = 1.4142135623730950488;
  // Beyond the core the series serves; the core's arithmetic then runs on 45 (no overflow).
  // NaN stays NaN.
  const double core1 = a1 >= kMinimaxMillsCore ? kMinimaxMillsCore : a1;
  const double core2 = a2 >= kMinimaxMillsCore ? kMinimaxMillsCore : a2;
  const double plus1 = core1 + k, linear1 = 1.0 + sqrt2 * core1;
  const double plus2 = core2 + k, linear2 = 1.0 + sqrt2 * core2;
  const double p1 = plus1 * linear1, p2 = plus2 * linear2;
  const double inverse_both = reciprocal_normal_(p1 * p2);
  const double inverse1 = p2 * inverse_both, inverse2 = p1 * inverse_both;
  MillsRatios<double> m;
  m.first = mills_minimax_core((core1 - k) * linear1 * inverse1) * plus1 * inverse1;
  m.second = mills_minimax_core((core2 - k) * linear2 * inverse2) * plus2 * inverse2;
  // Rare (sigma sqrt(T) or |ln(F/K)| beyond about 45 sigma sqrt(T)): one branch per warp.
  if (a1 >= kMinimaxMillsCore) m.first = mills_asymptotic(a1);
  if (a2 >= kMinimaxMillsCore) m.second = mills_asymptotic(a2);
  return m;
}

// m(a1) and m(a2) for the prices (evaluate()): the minimax ratios, float's one
// reciprocal each, double's two sharing one division.
template <class T>
CUNUM_HOST_DEVICE inline MillsRatios<T> mills_ratios(T a1, T a2) {
  if constexpr (std::is_same_v<T, float>) {
    return {mills_ratio_minimax(a1), mills_ratio_minimax(a2)};
  } else {
    return mills_ratios_minimax(a1, a2);
  }
}

// m(a) - m(b) for 0 <= a <= b, given m_a = m(a) and m_b = m(b), w = b - a. Out of the
// money a price is K D phi(d2) (m(|d_near|) - m(|d_far|)), |d_far| - |d_near| = sigma sqrt T.
//  - w below kSmallTotalVolatility with b w < 2: the Taylor series of m about b,
//        m(a) - m(b) = sum_{k>=1} M_k w^k / k!,   M_k = (-1)^k m^(k)(b) > 0,
//    from M_0 = m_b, M_1 = 1 - b M_0, M_(k+1) = k M_(k-1) - b M_k (the derivatives of
//    Y(z) = m(-z) at -b: Y' = 1 + z Y). Every term is positive, so the sum cancels
//    nothing however small w. The recurrence loses about b^2 ulps of M_1 (1 - b M_0 is
//    about 1/b^2), which the price's condition number covers (it is at least about
//    h^2 there), and b w < 2 keeps the later terms' errors below that. Terms to M_11
//    (double) or M_6 (float): what is left out is below u/50 for every w < 1/16.
//  - otherwise the difference itself, which loses about m_a / (m_a - m_b) <= 2 + b / w
//    ulps: within the condition number (|h| / (sigma sqrt T) and more) again.
// b below 64 for the series: beyond it exp(-b^2/2) underflows in both precisions, so the
// price is 0 either way, and the recurrence's terms (which grow like b^k) stay finite.
template <class T>
CUNUM_HOST_DEVICE inline T mills_difference(T m_a, T m_b, T b, T w) {
  if (w < kSmallTotalVolatility<T> && b * w < T(2) && b < T(64)) {
    constexpr int kLastTerm = std::is_same_v<T, float> ? 6 : 11;
    T before = m_b;                    // M_(k-1)
    T derivative = T(1) - b * before;  // M_k, from k = 1
    T power = w;                       // w^k / k!
    T sum = derivative * w;
    for (int k = 1; k < kLastTerm; ++k) {
      const T next = T(k) * before - b * derivative;
      before = derivative;
      derivative = next;
      power *= w * (T(1) / T(k + 1));  // a constant after unrolling: no division
      sum += next * power;
    }
    return sum;
  }
  return m_a - m_b;
}

// Every output of one option; the kernels and the CPU loop store the requested ones.
template <class T>
struct Values {
  T call, put, delta_call, delta_put, gamma, vega, theta_call, theta_put, rho_call, rho_put, forward, discount;
};

// Whether the in-the-money partner's intrinsic value D (F - K) is K D expm1(x), from the
// x that implied_volatility() forms too (while |x| < 1 and sigma sqrt(T) <
// kSmallTotalVolatility), or S e^{-qT} - K D. The difference rounds both terms, about
// u (S e^{-qT} + K D), which is at most about 2 u kappa of the price, within its bound.
// Double holds the implied-volatility round trip too, a price and its inversion to the
// same x near the money: there the difference lost up to 1e-10 of the price at
// sigma sqrt(T) = 1e-5, while from 1/16 on the partner's time value is at least about
// 0.025 K D and the difference costs at most some 60 u of it (within the round trip's
// 128 u (1 + 1/nu)), so double takes expm1 below 1/16 only. Float has no round trip to
// keep: the difference, one subtraction, throughout.
template <class T>
constexpr bool kIntrinsicFromMoneyness = std::is_same_v<T, double>;

// One option: spot s, strike k, expiry t (years), rate r, dividend yield q, volatility v.
// With kPricesOnly only the prices and the discount factor are formed (the other
// members are left unset): the kernels for prices alone skip the density and the forward.
// Policy (documented in the public header):
//  - any input NaN or infinite, or s, k, t, v negative: every output NaN;
//  - v sqrt(t) == 0: d1 = d2 = +inf, -inf or 0 as F > K, F < K or F == K, which gives
//    the discounted intrinsic value of the forward, a step delta (half at F == K),
//    gamma and vega 0 away from F == K; at F == K gamma is +inf, vega is
//    S e^{-qT} sqrt(T) / sqrt(2 pi) (its limit as v -> 0), and the theta decay term is
//    -inf when t == 0 < v, else 0;
//  - s == 0 (K > 0): d = -inf (call 0, put K e^{-rT}); k == 0: d = +inf; s == k == 0:
//    d = +inf; gamma and the theta decay term are 0 wherever the density at d1 is 0.
// The common case (below) is one test; the rest (invalid inputs, the limits, magnitudes
// beyond the normal numbers) branches off there, and so do the rare forms of the prices
// further down: a warp none of whose options needs them runs none of their code. The
// prices take one of four forms, by where the option lies (h = ln(F/K) / (v sqrt t),
// half = v sqrt(t) / 2, d1 = h + half, d2 = h - half), every tail from the minimax Mills
// ratios (mills_ratios) and one exponential, phi(d2), shared by both tails
// (S e^{-qT} phi(d1) = K D phi(d2)):
//  - one side out of the money (d1 < 0: the call; d2 > 0: the put): its price is
//    K D phi(d2) (m(|d_near|) - m(|d_far|)) (mills_difference), the other's by put-call
//    parity. There S e^{-qT} N(d1) and K D N(d2) are two tails each off by the argument
//    error of its own exponential (about d^2 ulps), and their difference is smaller
//    than either by up to |h| / half: that product was the loss of the textbook form.
//    Theta of the out-of-the-money option has the same common factor, K D phi(d2)
//    (-v / (2 sqrt t) + r m - q m').
//  - between (d2 <= 0 <= d1): S e^{-qT} - K D phi(d2) (m(d1) + m(-d2)) and K D - the
//    same (no phi(d1) for prices alone). These two forms differ only in the sign of the
//    second Mills ratio, in a bound and in selects: the options of a warp, wherever
//    they lie, run the same instructions;
//  - below kSmallTotalVolatility: between, the erf form; out of the money, the Taylor
//    series of mills_difference where it applies (one rare branch for both);
//  - at the limits (d1, d2 infinite, or 0 with v sqrt(t) == 0): the textbook form.
template <class T, bool kPricesOnly = false>
CUNUM_HOST_DEVICE inline Values<T> evaluate(T s, T k, T t, T r, T q, T v) {
  Values<T> out;
  // NaN r or q make every output NaN below, whatever these hold.
  const T discount = exp_not_nan_(-r * t);
  T carry = T(1);  // e^{-qT}; a batch without dividends skips it
  if (q != T(0)) carry = exp_not_nan_(-q * t);
  const T s_carry = s * carry;
  const T k_discount = k * discount;
  // d1 and d2 from x = ln(F/K) (given S/K) and h = x / (v sqrt t) (given the quotient
  // by v sqrt t), finite unless a quotient overflows; or the limits.
  T d1, d2, x = T(0);
  const auto from_moneyness = [&](T ratio, T vol_sqrt_t, auto over_total_volatility) {
    x = log_nonnegative_(ratio) + (r - q) * t;
    const T h = over_total_volatility(x), half = T(0.5) * vol_sqrt_t;
    d1 = h + half;
    d2 = h - half;
  };
  // The common case, one test: s positive and finite, r and q finite, k and v sqrt(t)
  // normal numbers at most 1 / kMinNormal (so t and v are finite, t normal too:
  // sqrt_normal_ gives 0 or NaN below), whose quotients reciprocal_normal_ forms. The
  // rest (invalid inputs, the limits, extreme magnitudes) branches off here, once per
  // warp where no lane needs it. (x * 0 is 0 for finite x and NaN for infinities and
  // NaN; a kernel with a scalar market tests r and q once.)
  T sqrt_t = sqrt_normal_(t);
  T vol_sqrt_t = v * sqrt_t;
  bool finite_d = r * T(0) + q * T(0) == T(0) && s > T(0) && s <= std::numeric_limits<T>::max() &&
                  k >= kMinNormal<T> && k <= T(1) / kMinNormal<T> && vol_sqrt_t >= kMinNormal<T> &&
                  vol_sqrt_t <= T(1) / kMinNormal<T>;
  if (finite_d) {
    const T inverse = reciprocal_normal_(vol_sqrt_t);
    from_moneyness(moneyness_ratio(s, k), vol_sqrt_t, [inverse](T a) { return a * inverse; });
  } else {
    const bool finite = (r * T(0) + q * T(0) + v * T(0) + s * T(0) + k * T(0) + t * T(0)) == T(0);
    if (!(finite && s >= T(0) && k >= T(0) && t >= T(0) && v >= T(0))) {
      const T nan = quiet_nan<T>();
      out = {nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan};
      return out;
    }
    sqrt_t = sqrt_(t);
    vol_sqrt_t = v * sqrt_t;
    finite_d = s > T(0) && k > T(0) && vol_sqrt_t > T(0);
    if (finite_d) {  // k or v sqrt(t) beyond the normal numbers: full-range divisions
      from_moneyness(s / k, vol_sqrt_t, [vol_sqrt_t](T a) { return a / vol_sqrt_t; });
    } else if (k == T(0)) {
      d1 = d2 = infinity<T>();
    } else if (s == T(0)) {
      d1 = d2 = -infinity<T>();
    } else {  // v sqrt(t) == 0
      const T forward = s * exp_((r - q) * t);
      d1 = d2 = forward > k ? infinity<T>() : (forward < k ? -infinity<T>() : T(0));
    }
  }
  // The normal tails N(-|d|) = phi(d) m(|d|), from the Mills ratios (0 where d is infinite).
  const T abs_d1 = fabs_(d1), abs_d2 = fabs_(d2);
  const MillsRatios<T> mills = mills_ratios(abs_d1, abs_d2);
  const T mills1 = mills.first, mills2 = mills.second;
  const T density2 = norm_pdf(d2);
  const T scale = k_discount * density2;  // = S e^{-qT} phi(d1)
  const bool put_out = d2 > T(0);         // the put out of the money
  const bool out_of_the_money = d1 < T(0) || put_out;
  // |d2| < |d1| = |d2| + sigma sqrt(T) where the put is out, the reverse elsewhere.
  const T mills_near = put_out ? mills2 : mills1, mills_far = put_out ? mills1 : mills2;
  // The other option by parity, with the intrinsic value D (F - K) from the terms where
  // |x| >= 1 (they no longer cancel, and expm1 could overflow) or sigma sqrt(T) >= 1/16
  // (kIntrinsicFromMoneyness).
  const bool small_total_volatility = vol_sqrt_t < kSmallTotalVolatility<T>;
  T intrinsic = s_carry - k_discount;
  if constexpr (kIntrinsicFromMoneyness<T>) {
    if (small_total_volatility && x < T(1) && x > T(-1)) intrinsic = k_discount * expm1_within_one_(x);
  }
  // The prices from the spread of the Mills ratios, out of the money m(|d_near|) -
  // m(|d_far|) (then tails is the option's price), between m(d1) + m(-d2) (then tails
  // is S e^{-qT} N(-d1) + K D N(d2)).
  const auto prices_from = [&](T spread) {
    const T tails = scale * spread;
    // Each price is a bound plus or minus tails: between S e^{-qT} - tails and K D - tails;
    // out of the money the option tails itself and its partner tails +- intrinsic.
    const T call_bound = out_of_the_money ? (put_out ? intrinsic : T(0)) : s_carry;
    const T put_bound = out_of_the_money ? (put_out ? T(0) : -intrinsic) : k_discount;
    const T sign = out_of_the_money ? T(1) : T(-1);
    out.call = call_bound + sign * tails;
    out.put = put_bound + sign * tails;
  };
  prices_from(out_of_the_money ? mills_near - mills_far : mills_near + mills_far);
  // The density at d1 and N(+-d1), N(+-d2): for the Greeks, and for the rare forms of the
  // prices, which replace those above: the limits, and below kSmallTotalVolatility the
  // series of mills_difference and the erf form (for prices alone the common path forms
  // none of it).
  T density1 = T(0);
  NormalCdfPair<T> n1{}, n2{};
  if (!kPricesOnly || !finite_d || small_total_volatility) {
    density1 = norm_pdf(d1);
    n1 = norm_cdf_pair(d1, density1 * mills1);
    n2 = norm_cdf_pair(d2, density2 * mills2);
    if (!finite_d) {
      out.call = s_carry * n1.at - k_discount * n2.at;
      out.put = k_discount * n2.at_minus - s_carry * n1.at_minus;
    } else if (small_total_volatility && out_of_the_money) {
      prices_from(mills_difference(mills_near, mills_far, put_out ? abs_d1 : abs_d2, vol_sqrt_t));
    } else if (small_total_volatility) {
      // Near the money (|ln(F/K)| < sigma^2 T / 2) with a small sigma sqrt(T),
      // S e^{-qT} N(d1) - K D N(d2) would cancel to about sigma sqrt(T) of its terms.
      // Instead, with F - K = K expm1(x),
      //   call = K D [(N(d1) - N(d2)) + expm1(x) N(d1)],  put = K D [(N(d1) - N(d2)) - expm1(x) N(-d1)],
      // N(d1) - N(d2) = (erf(d1/sqrt 2) + erf(-d2/sqrt 2)) / 2 a sum of positive terms, and
      // the expm1 terms smaller than it by a factor of about sigma sqrt(T).
      const T between = T(0.5) * (erf_(d1 * kInvSqrt2<T>) + erf_(-d2 * kInvSqrt2<T>));
      const T moneyness = expm1_(x);
      out.call = k_discount * (between + moneyness * n1.at);
      out.put = k_discount * (between - moneyness * n1.at_minus);
    }
  }
  if constexpr (!kPricesOnly) {
    if (finite_d && out_of_the_money) {
      const T rates = put_out ? r * mills_near - q * mills_far : q * mills_near - r * mills_far;
      const T theta = scale * (rates - divide_(v, T(2) * sqrt_t));
      const T carry_theta = q * s_carry - r * k_discount;  // -d/dT (S e^{-qT} - K D), parity
      out.theta_call = put_out ? theta + carry_theta : theta;
      out.theta_put = put_out ? theta : theta - carry_theta;
    } else {
      const T decay = (density1 == T(0) || v == T(0)) ? T(0) : divide_(-s_carry * density1 * v, T(2) * sqrt_t);
      out.theta_call = decay - r * k_discount * n2.at + q * s_carry * n1.at;
      out.theta_put = decay + r * k_discount * n2.at_minus - q * s_carry * n1.at_minus;
    }
  }
  out.discount = discount;
  if constexpr (!kPricesOnly) {
    out.forward = s * exp_((r - q) * t);
    out.delta_call = carry * n1.at;
    out.delta_put = -carry * n1.at_minus;
    out.gamma = density1 == T(0) ? T(0) : divide_(carry * density1, s * vol_sqrt_t);
    out.vega = s_carry * density1 * sqrt_t;
    out.rho_call = k_discount * t * n2.at;
    out.rho_put = -k_discount * t * n2.at_minus;
  }
  return out;
}

// ---- Implied volatility -------------------------------------------------------------
//
// After P. Jaeckel, "Let's Be Rational", Wilmott Magazine, January 2015
// (docs/black_scholes.md [3]): the normalised price, rational initial guesses per
// region, and a fixed number of third-order Householder steps (quartic convergence).
//
// Normalised Black price of an out-of-the-money call, x = ln(F/K) <= 0, s = sigma sqrt(T):
//     b(x, s) = e^{x/2} N(x/s + s/2) - e^{-x/2} N(x/s - s/2),   0 < b < e^{x/2},
// strictly increasing in s with db/ds = phi(x/s + s/2) e^{x/2} = exp(-(h^2 + u^2)/2)/sqrt(2 pi)
// (h = x/s, u = s/2). With phi0 = exp(-(h^2 + u^2)/2) / sqrt(2 pi), the common Gaussian
// factor of both terms (e^{x/2} phi(h + u) = e^{-x/2} phi(h - u) = phi0), it is formed
// as the prices are (evaluate()):
//  - out of the money (h + u <= 0): b = phi0 (m(-h - u) - m(u - h)), the Mills ratios'
//    difference from mills_difference, which cancels nothing for small s and loses at
//    most about 2 + |h| / s ulps otherwise, within the inversion's conditioning
//    (d ln b / d ln s ~ h^2 in the tail);
//  - near the money (h + u > 0, i.e. |x| < s^2/2) with s below kSmallTotalVolatility,
//        b = e^{x/2} (N(h + u) - N(h - u)) + 2 sinh(x/2) N(h - u),
//    with N(h + u) - N(h - u) a sum of two positive erf terms and the second term smaller
//    than the first by a factor of about s, so that b keeps its relative accuracy when s
//    is small instead of losing log10(1/s) digits to the cancellation of the two N terms;
//  - near the money above s = 1/16, b = e^{x/2} - phi0 (m(h + u) + m(u - h)), the
//    textbook difference e^{x/2} N(h + u) - e^{-x/2} N(h - u) (its loss is then at most
//    about 20 ulps), and there e^{x/2} - b = phi0 (m(h + u) + m(u - h)) with no loss.
// N(h - u) = e^{x/2} phi0 m(u - h). The factors that depend on x alone are computed once
// per option, not per step.

// b at one s, with e^{x/2} - b (each formed where it does not cancel, the other as the
// difference, which then loses at most a bit), db/ds, and the ratios of the next two
// derivatives to it: b''/b' = x^2/s^3 - s/4 (the derivative of the exponent of b') and
// b'''/b' = (b''/b')^2 + d(b''/b')/ds = (b''/b')^2 - 3 x^2/s^4 - 1/4.
template <class T>
struct NormalisedBlackValues {
  T price, complement, vega, curvature, third;
};

// Near the money b takes the erf form below this s: in double below kSmallTotalVolatility,
// as the prices do; in float below 1, where the textbook difference above it loses at
// most about 1 / (0.4 s) = 2.5 ulps (a float's near-the-money inversion would otherwise
// carry up to 40 ulps of that loss into s).
template <class T>
constexpr T kInversionErfFormBelow = std::is_same_v<T, float> ? T(1) : kSmallTotalVolatility<T>;

template <class T>
class NormalisedOtmCall {
 public:
  CUNUM_HOST_DEVICE explicit NormalisedOtmCall(T x) : NormalisedOtmCall(x, exp_(T(0.5) * x)) {}
  // half_exp: e^{x/2}, when the caller has it.
  CUNUM_HOST_DEVICE NormalisedOtmCall(T x, T half_exp) : x_(x), half_exp_(half_exp) {}
  CUNUM_HOST_DEVICE T x() const { return x_; }
  CUNUM_HOST_DEVICE NormalisedBlackValues<T> at(T s) const {
    const T inverse = T(1) / s, h = x_ * inverse, u = T(0.5) * s;
    const T d1 = h + u, far = u - h;  // far = -d2 >= 0, as x <= 0
    const MillsRatios<T> mills = mills_ratios(d1 < T(0) ? -d1 : d1, far);
    const T mills1 = mills.first, mills2 = mills.second;
    const T phi0 = kInvSqrt2Pi<T> * exp_(T(-0.5) * (h * h + u * u));
    NormalisedBlackValues<T> v;
    v.vega = phi0;
    const T h_over_s = h * inverse;  // x / s^2
    v.curvature = h * h_over_s - T(0.5) * u;
    v.third = v.curvature * v.curvature - T(3) * h_over_s * h_over_s - T(0.25);
    if (!(d1 > T(0))) {
      v.price = phi0 * mills_difference(mills1, mills2, far, s);
      v.complement = half_exp_ - v.price;
    } else if (s < kInversionErfFormBelow<T>) {
      const T between = T(0.5) * (erf_(d1 * kInvSqrt2<T>) + erf_(far * kInvSqrt2<T>));
      v.price = half_exp_ * (between + T(2) * sinh_(T(0.5) * x_) * phi0 * mills2);
      v.complement = half_exp_ - v.price;
    } else {
      v.complement = phi0 * (mills1 + mills2);
      v.price = half_exp_ - v.complement;
    }
    return v;
  }
  CUNUM_HOST_DEVICE T operator()(T s) const { return at(s).price; }
  // The upper bound e^{x/2}.
  CUNUM_HOST_DEVICE T upper() const { return half_exp_; }

 private:
  T x_, half_exp_;
};
CUNUM_HOST_DEVICE inline double normalised_otm_call(double x, double s) { return NormalisedOtmCall<double>(x)(s); }

// The rational cubic of Delbourgo and Gregory on [left, right]: through (left, y_left)
// and (right, y_right) with slopes d_left and d_right, shaped by r (r = 3 is the cubic
// Hermite interpolant; as r grows it tends to the straight line). With t the position
// in [0, 1]:
//   (y_r t^3 + (r y_r - w d_r) t^2 (1-t) + (r y_l + w d_l) t (1-t)^2 + y_l (1-t)^3) / (1 + (r-3) t (1-t)).
template <class T>
struct RationalCubic {
  T left, right, y_left, y_right, d_left, d_right;
  // r giving the second derivative `second` at the right end (at_right) or the left end
  // (solved from the second derivative of the form above at t = 1 or 0), kept at least
  // at (d_l + d_r) / slope, where monotone data give a monotone interpolant, and at most
  // 1e6 (a straight line to within the guess's needs).
  CUNUM_HOST_DEVICE T control(T second, bool at_right) const {
    const T width = right - left, slope = (y_right - y_left) / width;
    const T fitted = (T(0.5) * width * second + (d_right - d_left)) / (at_right ? d_right - slope : slope - d_left);
    const T monotone = (d_left + d_right) / slope;
    const T lowest = monotone > T(0) ? monotone : T(0);
    const T r = fitted > lowest ? fitted : lowest;  // NaN: the lowest
    return r < T(1e6) ? r : T(1e6);
  }
  CUNUM_HOST_DEVICE T operator()(T at, T r) const {
    const T width = right - left;
    const T t = (at - left) / width, m = T(1) - t;
    const T numerator = y_right * t * t * t + (r * y_right - width * d_right) * t * t * m +
                        (r * y_left + width * d_left) * t * m * m + y_left * m * m * m;
    return numerator / (T(1) + (r - T(3)) * t * m);
  }
};

// Third-order Householder steps taken after the initial guess: the guess is within 0.1
// relative wherever the price carries sigma (tests/black_scholes), and each step takes
// the error to about its fourth power, so double takes two and float one: every option
// takes the same number of steps, so a warp's lanes never wait for each other (double
// mostly takes float's step and one of its own instead: implied_total_vol_in).
template <class T>
constexpr int kHouseholderSteps = std::is_same_v<T, float> ? 1 : 2;

// Which function of b a region's steps are taken on (Let's Be Rational, section 4):
// below b_l the tail, where b is about exponential in -1/s^2, so 1/ln b is nearly
// linear in s; above b_u, ln(e^{x/2} - b), the approach to the upper bound; between,
// b itself.
enum class InversionRegion { lower, middle, upper };

// The lower map's cube root p = (f / (k |x|))^{1/3} is formed from f scaled up by 2^(3 e)
// and back by 2^-e, so that a price near the bottom of T's range does not underflow in
// the quotient: e = 67 in double, 20 in float (whose solve takes prices from
// kFloatSolveFloor up).
template <class T>
constexpr T kCubeRootScaleUp = T(0x1p201);
template <>
constexpr float kCubeRootScaleUp<float> = 0x1p60f;
template <class T>
constexpr T kCubeRootScaleDown = T(0x1p-67);
template <>
constexpr float kCubeRootScaleDown<float> = 0x1p-20f;

// Total volatility s = sigma sqrt(T) > 0 with b(x, s) = beta, for x <= 0 and
// 0 < beta < e^{x/2}, after Let's Be Rational: the tangent of b at its inflection
// point s_c = sqrt(2|x|) meets 0 at s_l and e^{x/2} at s_u, which split beta into
// four regions, each with its rational cubic guess:
//  - beta < b(s_l): a rational cubic in beta of the lower map f(s) = 2 pi |x| / sqrt(27)
//    Phi(z)^3, z = x / (sqrt(3) s) (equal to b to leading order as s -> 0, so the
//    cubic runs from (0, 0) with slope 1), inverted as s = x / (sqrt(3) Phi^{-1}(p)),
//    p = (sqrt(27) f / (2 pi |x|))^{1/3};
//  - b(s_l) <= beta < b(s_c) and b(s_c) <= beta <= b(s_u): rational cubics of s itself,
//    with slopes 1/b' and the second derivative 0 at s_c (b's inflection);
//  - beta > b(s_u): the upper map f(s) = Phi(-s/2), a rational cubic in beta down to
//    (e^{x/2}, 0) with slope -1/2 (e^{x/2} - b ~ 2 Phi(-s/2) as s grows), inverted as
//    s = -2 Phi^{-1}(f).
// The maps' cubics match the map's second derivative at b(s_l) or b(s_u). Only one of
// b(s_l) and b(s_u) is evaluated (the side of b(s_c) beta lies on decides which), and
// Phi^{-1} is Acklam's approximation (cunum/device/sobol.hpp), 1.2e-9 relative: a guess
// needs no more. Then `steps` Householder steps of order 3 on the region's function,
// each from b, b', b''/b' and b'''/b' at s:
//   s += nu (1 + gamma nu / 2) / (1 + nu (gamma + delta nu / 6)),
// nu the Newton step, gamma and delta the function's second and third derivatives over
// its first. A step to s <= 0 halves s instead; a step that is not finite (a price at
// the edge of T's range) is not taken. Every operation in T.
template <class T>
struct InitialGuess {
  T s;
  InversionRegion region;
};
template <class T>
CUNUM_HOST_DEVICE inline InitialGuess<T> initial_guess(const NormalisedOtmCall<T>& price, T beta) {
  const T x = price.x(), upper = price.upper();
  const T s_c = sqrt_(T(-2) * x);
  const T b_c = x < T(0) ? price(s_c) : T(0);  // b(0, 0) = 0
  const T v_c = kInvSqrt2Pi<T> * upper;        // b'(s_c): h^2 + u^2 = |x| there
  const bool lower_side = beta < b_c;
  const T s_side = lower_side ? s_c - b_c / v_c : s_c + (upper - b_c) / v_c;
  const NormalisedBlackValues<T> side = price.at(s_side);
  const T curvature_side = side.curvature;
  // The regions: below b(s_l) and above b(s_u) a map's cubic, between a cubic of s. Each
  // pair is one piece of code on selected operands, so that a warp runs at most two.
  const bool lower = lower_side && beta < side.price, upper_map = !lower_side && beta > side.price;
  const InversionRegion region =
      lower ? InversionRegion::lower : (upper_map ? InversionRegion::upper : InversionRegion::middle);
  T s;
  if (region != InversionRegion::middle) {
    // The map f and its derivatives in s, then in beta, from the normal tail N(-a) at
    // a = -z (lower: f = k |x| N(z)^3, z = x / (sqrt(3) s), dz/ds = -z/s, d2z/ds2 = 2z/s^2)
    // or a = s/2 (upper: f = N(-s/2), df/ds = -phi(s/2)/2, d2f/ds2 = s phi(s/2)/8). The
    // tail's Mills ratio is float's minimax one (2.2e-8 relative, a dozen instructions
    // where the device's double erfcx takes some two hundred): a guess needs no more.
    constexpr T k = T(1.2091995761561452);  // 2 pi / sqrt(27)
    constexpr T inv_sqrt3 = T(0.57735026918962576451);
    const T z = x * inv_sqrt3 / s_side;
    const T a = lower ? -z : T(0.5) * s_side;
    const T density = norm_pdf(a);
    const T cdf = density * static_cast<T>(mills_ratio_minimax(static_cast<float>(a)));
    T f, f_s, f_ss;
    if (lower) {
      const T scale = T(3) * k * -x * cdf * density;
      f = k * -x * cdf * cdf * cdf;
      f_s = scale * cdf * (-z / s_side);
      f_ss = scale * (z / (s_side * s_side)) * ((T(2) * density - z * cdf) * z + T(2) * cdf);
    } else {
      f = cdf;
      f_s = T(-0.5) * density;
      f_ss = T(0.125) * s_side * density;
    }
    const T inverse_vega = T(1) / side.vega;
    const T f_beta = f_s * inverse_vega;
    const T f_beta2 = (f_ss - f_s * curvature_side) * inverse_vega * inverse_vega;
    // Lower: from (0, 0) with slope 1 to b(s_l); upper: from b(s_u) to (e^{x/2}, 0) with
    // slope -1/2; the map's second derivative matched at b(s_l) or b(s_u).
    const RationalCubic<T> cubic = lower ? RationalCubic<T>{T(0), side.price, T(0), f, T(1), f_beta}
                                         : RationalCubic<T>{side.price, upper, f, T(0), f_beta, T(-0.5)};
    const T guess_f = cubic(beta, cubic.control(f_beta2, lower));
    // Lower: p = (f / (k |x|))^{1/3} (scaled: kCubeRootScaleUp), then
    // s = x / (sqrt(3) N^{-1}(p)); upper: s = -2 N^{-1}(f).
    const T p = lower ? cbrt_(guess_f * kCubeRootScaleUp<T> / (k * -x)) * kCubeRootScaleDown<T> : guess_f;
    const T quantile = device::normal_quantile_lower_approximate(p < T(0.5) ? p : T(0.5));
    s = lower ? x * inv_sqrt3 / quantile : T(-2) * quantile;
  } else {
    // From b(s_l) to b(s_c) or from b(s_c) to b(s_u), slopes 1/b', b'' = 0 at s_c.
    const RationalCubic<T> cubic =
        lower_side ? RationalCubic<T>{side.price, b_c, s_side, s_c, T(1) / side.vega, T(1) / v_c}
                   : RationalCubic<T>{b_c, side.price, s_c, s_side, T(1) / v_c, T(1) / side.vega};
    s = cubic(beta, cubic.control(T(0), lower_side));
  }
  // Where |x| is negligible against s (below about 1e-100, where s_l rounds to 0 or
  // below and the lower map saturates), the option is at the money to within rounding,
  // b ~ s / sqrt(2 pi).
  if (!(s > T(0) && s < infinity<T>())) s = beta * T(2.5066282746310002);
  return {s, region};
}

// `steps` Householder steps from s on the function of `region` (implied_total_vol).
template <class T>
CUNUM_HOST_DEVICE inline T householder_steps(const NormalisedOtmCall<T>& price, T beta, T s, InversionRegion region,
                                             int steps) {
  const T log_beta = log_(beta), complement_beta = price.upper() - beta;
  for (int step = 0; step < steps; ++step) {
    const NormalisedBlackValues<T> v = price.at(s);
    const T curvature = v.curvature, third = v.third;
    T newton, gamma, delta;  // the Newton step; g''/g' and g'''/g' of the function g stepped on
    if (region == InversionRegion::lower) {
      // g = 1/ln b - 1/ln beta; with w = b'/b and L = ln b:
      // g' = -w / L^2, g''/g' = curvature - w (1 + 2/L),
      // g'''/g' = third - 3 curvature w (1 + 2/L) + w^2 (2 + 6/L + 6/L^2).
      // ln beta - L rounds to about u |L| absolute, a relative error of about u |L| / nu
      // in s (nu = s w): at most about u / 2 here, where nu ~ h^2 and L ~ -h^2 / 2.
      const T log_b = log_(v.price), w = v.vega / v.price, inverse_log = T(1) / log_b;
      newton = (log_beta - log_b) * log_b / (log_beta * w);
      const T tilt = w * (T(1) + T(2) * inverse_log);
      gamma = curvature - tilt;
      delta = third - T(3) * curvature * tilt + w * w * (T(2) + T(6) * inverse_log * (T(1) + inverse_log));
    } else if (region == InversionRegion::upper) {
      // g = ln(e^{x/2} - beta) - ln(e^{x/2} - b); with w = b' / (e^{x/2} - b):
      // g' = w, g''/g' = curvature + w, g'''/g' = third + 3 curvature w + 2 w^2.
      const T w = v.vega / v.complement;
      newton = log_(v.complement / complement_beta) / w;
      gamma = curvature + w;
      delta = third + T(3) * curvature * w + T(2) * w * w;
    } else {
      newton = (beta - v.price) / v.vega;  // g = b - beta
      gamma = curvature;
      delta = third;
    }
    const T next = s + newton * (T(1) + T(0.5) * gamma * newton) / (T(1) + newton * (gamma + delta * newton / T(6)));
    if (isfinite_(next)) s = next > T(0) ? next : T(0.5) * s;
  }
  return s;
}
template <class T>
CUNUM_HOST_DEVICE inline T implied_total_vol(const NormalisedOtmCall<T>& price, T beta, int steps) {
  const InitialGuess<T> guess = initial_guess(price, beta);
  return householder_steps(price, beta, guess.s, guess.region, steps);
}
CUNUM_HOST_DEVICE inline double implied_total_vol(double x, double beta, int steps) {
  return implied_total_vol(NormalisedOtmCall<double>(x), beta, steps);
}

// The smallest normalised time value that float's solve takes (2^-100): down to it every
// intermediate of the float inversion (b's Gaussian factor, the lower map's cube root,
// ln b) stays a normal float. Below it the solve runs in double.
constexpr double kFloatSolveFloor = 0x1p-100;
// Double starts from float's solve only where e^{x/2} - beta keeps this much of the upper
// bound (2^-12): then beta rounded to a float still leaves that difference, which the
// upper region steps on, 12 bits.
constexpr double kFloatStartComplementFloor = 0x1p-12;

// The total volatility of the out-of-the-money normalised call at x <= 0 whose price is
// beta (0 < beta < upper = e^{x/2}). Float: the guess and one Householder step in float,
// whose operations cost about half of double's on the device and leave a float's
// accuracy. Double: the same float solve (within about 1e-5 relative), then one
// Householder step in double, which takes that to double's rounding (quartic
// convergence). Where float cannot hold the price (below kFloatSolveFloor; in double
// also above 1 - kFloatStartComplementFloor of the upper bound) the whole solve runs in
// double, two steps from the double guess.
template <class T>
CUNUM_HOST_DEVICE inline double implied_total_vol_in(double x, double upper, double beta) {
  const NormalisedOtmCall<double> in_double(x, upper);
  const bool float_start = beta >= kFloatSolveFloor &&
                           (std::is_same_v<T, float> || upper - beta >= kFloatStartComplementFloor * upper);
  if (float_start) {
    const NormalisedOtmCall<float> in_float(static_cast<float>(x), static_cast<float>(upper));
    const float beta_float = static_cast<float>(beta);
    const InitialGuess<float> guess = initial_guess(in_float, beta_float);
    const float s = householder_steps(in_float, beta_float, guess.s, guess.region, kHouseholderSteps<float>);
    if constexpr (std::is_same_v<T, float>) {
      return s;
    } else {
      return householder_steps(in_double, beta, static_cast<double>(s), guess.region, 1);
    }
  }
  return implied_total_vol(in_double, beta, kHouseholderSteps<T>);
}

// Implied volatility of a call (is_call) or put price p with spot, strike, expiry,
// rate r and dividend yield q, in double. NaN when an input is invalid (as evaluate())
// or p is outside the no-arbitrage bounds [intrinsic, upper]; *rejected is set to
// true when the price is outside the bounds (or not a finite number), false otherwise.
// A price within 8e-16 x the upper bound of the intrinsic value gives 0 (at the
// money that is a price of 0). T: the caller's precision, whose solve it takes
// (implied_total_vol_in).
template <class T>
CUNUM_HOST_DEVICE inline double implied_volatility(double p, double s, double k, double t, double r, double q,
                                                   bool is_call, bool* rejected) {
  *rejected = false;
  const bool valid = isfinite_(s) && isfinite_(k) && isfinite_(t) && isfinite_(r) && isfinite_(q) && s > 0.0 &&
                     k > 0.0 && t > 0.0;
  if (!valid) return quiet_nan<double>();
  if (!isfinite_(p)) {
    *rejected = true;
    return quiet_nan<double>();
  }
  const double discount = exp_(-r * t);
  const double forward = s * exp_((r - q) * t);
  // ln(F/K) as evaluate() forms it: near the money an absolute error of one ulp in x
  // is a relative error of about 1/s ulps in the price, so the two must agree.
  const double x = log_nonnegative_(s / k) + (r - q) * t;
  // Undiscounted, normalised by sqrt(F K): b in (intrinsic, upper).
  const double scale = 1.0 / (discount * sqrt_(forward * k));
  double beta = p * scale;
  const double half = exp_(0.5 * x), inv_half = 1.0 / half;
  // Reduce to the out-of-the-money call at -|x|: a put at x is a call at -x; an
  // in-the-money option loses its intrinsic part.
  const bool call_side = is_call;
  const double xx = call_side ? x : -x;  // the option as a call on log-moneyness xx
  const double e_plus = call_side ? half : inv_half, e_minus = call_side ? inv_half : half;
  // The intrinsic value e^{xx/2} - e^{-xx/2} = 2 sinh(xx/2): that difference where
  // y = xx/2 >= 1 (it loses under a bit there), below it the Taylor series of 2 sinh(y)
  // to y^19 (what it leaves out is below 1e-18 of it): within 2.1 u of 2 sinh(y) for
  // every y, and no lane calls sinh (some hundred instructions on the device).
  const double y = 0.5 * xx, y2 = y * y;
  double series = 1.0 / 121645100408832000.0;  // 1/19!
  series = series * y2 + 1.0 / 355687428096000.0;
  series = series * y2 + 1.0 / 1307674368000.0;
  series = series * y2 + 1.0 / 6227020800.0;
  series = series * y2 + 1.0 / 39916800.0;
  series = series * y2 + 1.0 / 362880.0;
  series = series * y2 + 1.0 / 5040.0;
  series = series * y2 + 1.0 / 120.0;
  series = series * y2 + 1.0 / 6.0;
  const double twice_sinh = y >= 1.0 ? e_plus - e_minus : 2.0 * y * (series * y2 + 1.0);
  const double intrinsic = xx > 0.0 ? twice_sinh : 0.0;
  const double upper = e_plus;
  // A price within rounding of the intrinsic value (relative to the upper bound, the
  // scale of the normalisation) counts as the intrinsic value.
  const double rounding = 8e-16 * upper;
  if (!(beta >= intrinsic - rounding) || !(beta < upper)) {
    *rejected = true;
    return quiet_nan<double>();
  }
  beta -= intrinsic;  // time value, which equals the out-of-the-money call at -|xx|
  if (beta <= 0.0) return 0.0;
  const double x_otm = xx > 0.0 ? -xx : xx;
  const double otm_upper = half < inv_half ? half : inv_half;  // e^{x_otm / 2} = e^{-|x| / 2}
  if (!(beta < otm_upper)) {
    *rejected = true;
    return quiet_nan<double>();
  }
  return implied_total_vol_in<T>(x_otm, otm_upper, beta) / sqrt_(t);
}

}  // namespace cunum::detail::bs
