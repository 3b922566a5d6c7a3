#pragma once
/// @file
/// Black-Scholes-Merton European options in batches: call and put prices, their
/// first-order Greeks, the forward and the discount factor, all in one pass over the
/// inputs (cunum::BlackScholesPricer::price), and implied volatility
/// (cunum::BlackScholesPricer::implied_volatility). float and double.
///
/// Formulas, per option with spot S, strike K, expiry T (years), continuously
/// compounded rate r, dividend yield q and volatility sigma:
///     F = S e^{(r-q)T},  D = e^{-rT},  d1 = (ln(S/K) + (r - q)T) / (sigma sqrt T) + sigma sqrt(T) / 2,
///     d2 = d1 - sigma sqrt T,
///     call = S e^{-qT} N(d1) - K D N(d2),          put = K D N(-d2) - S e^{-qT} N(-d1),
///     delta_call = e^{-qT} N(d1),                  delta_put = -e^{-qT} N(-d1),
///     gamma = e^{-qT} phi(d1) / (S sigma sqrt T),  vega = S e^{-qT} phi(d1) sqrt T,
///     theta_call = -S e^{-qT} phi(d1) sigma / (2 sqrt T) - r K D N(d2) + q S e^{-qT} N(d1),
///     theta_put  = -S e^{-qT} phi(d1) sigma / (2 sqrt T) + r K D N(-d2) - q S e^{-qT} N(-d1),
///     rho_call = K T D N(d2),                      rho_put = -K T D N(-d2),
/// with N the standard normal distribution and phi its density. Theta is per year (the
/// derivative with respect to calendar time, i.e. -d/dT), vega and rho per unit of
/// sigma and r. The prices are not formed as written where that would cancel:
/// - out of the money (d1 < 0 for the call, d2 > 0 for the put) that option is
///   K D phi(d2) (m(|d_near|) - m(|d_far|)), m(a) = N(-a) / phi(a) the Mills ratio
///   (a minimax approximation in each precision) and d_near, d_far the one of d1, d2
///   nearer to and farther from 0 (a series of positive terms in place of the difference
///   when sigma sqrt(T) < 1/16), and the other option is its parity partner, with the
///   intrinsic value S e^{-qT} - K D, or in double K D expm1(x), x = ln(S/K) + (r - q)T,
///   while |x| < 1 and sigma sqrt(T) < 1/16;
/// - near the money (d2 < 0 < d1) with sigma sqrt(T) < 1/16 they are
///   K D [(N(d1) - N(d2)) + expm1(x) N(d1)] and K D [(N(d1) - N(d2)) - expm1(x) N(-d1)],
///   N(d1) - N(d2) a sum of two erf terms;
/// - near the money above that, S e^{-qT} - K D phi(d2) (m(d1) + m(-d2)) and
///   K D - K D phi(d2) (m(d1) + m(-d2)) (S e^{-qT} phi(d1) = K D phi(d2): one
///   exponential for both tails).
///
/// Accuracy (the CPU and CUDA suites check it against a 2181-option mpmath oracle,
/// tests/black_scholes/oracle/: expiries 1 hour to 30 years, volatilities 0.1% to 300%,
/// strikes 1% to 50x spot, negative rates and dividend yields): every output f of price()
/// is within 32 u (1 + kappa) |f| + lambda of the exact value, in double and in float,
/// where u is the unit roundoff of T (2^-53, 2^-24), kappa the relative condition number
/// of f in the six inputs, sum |x df/dx| / |f| over S, K, T, r, q and sigma (what
/// rounding the inputs alone would cost), and lambda the smallest normal number of T
/// (gradual underflow). Measured on the CPU: 3.7 u (1 + kappa) in double, 2.8 in float.
/// implied_volatility() of a double price() round-trips to within 1e-13 relative
/// wherever the relative vega nu = sigma/p dp/dsigma is at least 1e-2 (a price rounded
/// to a double alone moves sigma by u / nu), and to within 128 u (1 + 1/nu) wherever
/// nu >= 1e-8 (measured: 2.4e-14, and 43 u (1 + 1/nu)). Against an mpmath oracle of
/// implied volatilities (tests/black_scholes/oracle/, ln(F/K) in [-30, 30], sigma sqrt(T)
/// in [1e-6, 30]) each is within 128 u (1 + kappa), kappa the condition number of sigma
/// in the price, S, K, T, r and q, and in double within 1e-13 wherever kappa <= 100
/// (measured on the CPU: 2.8 u (1 + kappa) and 5.0e-15 in double; 30 u (1 + kappa) in
/// float, which takes one Householder step where double takes one more of its own).
///
/// Invalid elements (never an exception; each option is handled alone):
/// - any input NaN or infinite, or S, K, T or sigma negative: every output of that
///   option is NaN;
/// - sigma sqrt(T) == 0 (T = 0 or sigma = 0): the limits. d1 = d2 = +inf, -inf or 0 as
///   F > K, F < K or F == K, so call = D max(F - K, 0), put = D max(K - F, 0), delta a
///   step (half the carry at F == K), gamma = vega = 0 away from F == K; at F == K
///   gamma is +inf, vega is S e^{-qT} sqrt(T) / sqrt(2 pi) (its limit as sigma -> 0)
///   and the first theta term is -inf when T == 0 < sigma, else 0;
/// - S == 0 (K > 0): d1 = d2 = -inf (call 0, put K D, delta_call 0); K == 0:
///   d1 = d2 = +inf (call S e^{-qT}, put 0); S == K == 0 as K == 0. Gamma and the first
///   theta term are 0 wherever phi(d1) is 0.
///
/// Determinism: every option is computed independently by the same scalar code, so
/// results are bit-identical run to run on a given backend and device, whatever the
/// thread count or launch shape. CPU and CUDA results may differ in the last bits
/// (the device's erf, expm1, exp and log, in double cunum's own exp, log and expm1 on
/// the common path, and its fused multiply-adds; the float kernels
/// divide and take square roots to within 2 ulps; implied volatility: also the device's
/// cbrt and sinh). Float implied volatilities, solved in float, carry those differences
/// times the inversion's conditioning: up to about 1e-5 relative between the backends
/// on options within 3 standard deviations of the forward.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <vector>

#include "cunum/core/backend.hpp"
#include "cunum/core/enum.hpp"
#include "cunum/core/error.hpp"
#include "cunum/core/placement.hpp"
#include "cunum/core/stream.hpp"
#include "cunum/finance.hpp"

namespace cunum {

/// The outputs price() can write (cunum::BlackScholesOutput): prices, Greeks (theta
/// per year), the forward F = S e^{(r-q)T} and the discount factor e^{-rT}.
#define CUNUM_BLACK_SCHOLES_OUTPUTS(X) \
  X(call, "call")                      \
  X(put, "put")                        \
  X(delta_call, "delta_call")          \
  X(delta_put, "delta_put")            \
  X(gamma, "gamma")                    \
  X(vega, "vega")                      \
  X(theta_call, "theta_call")          \
  X(theta_put, "theta_put")            \
  X(rho_call, "rho_call")              \
  X(rho_put, "rho_put")                \
  X(forward, "forward")                \
  X(discount, "discount")
CUNUM_ENUM(BlackScholesOutput, CUNUM_BLACK_SCHOLES_OUTPUTS)


/// A set of BlackScholesOutput values, as a bit set (bit i is the i-th enumerator).
struct BlackScholesOutputs {
  std::uint32_t bits = 0;
  /// The empty set.
  constexpr BlackScholesOutputs() = default;
  /// The set of the listed outputs.
  BlackScholesOutputs(std::initializer_list<BlackScholesOutput> outputs) {
    for (BlackScholesOutput output : outputs) bits |= bit(output);
  }
  /// @return whether `output` is in the set
  constexpr bool contains(BlackScholesOutput output) const { return (bits & bit(output)) != 0; }
  /// @return the bit of `output`
  static constexpr std::uint32_t bit(BlackScholesOutput output) {
    return std::uint32_t{1} << static_cast<unsigned>(output);
  }
  /// @return every output
  static BlackScholesOutputs all() {
    BlackScholesOutputs set;
    for (BlackScholesOutput output : BlackScholesOutputValues::all) set.bits |= bit(output);
    return set;
  }
};

namespace detail {
// The member for `output` of a results struct whose members are named after the
// CUNUM_BLACK_SCHOLES_OUTPUTS list (BlackScholesResults, BlackScholesHostResults).
template <class Results>
auto& black_scholes_member(Results& results, BlackScholesOutput output) {
  using Plain = std::remove_const_t<Results>;
  using Member = decltype(&Plain::call);
  static constexpr Member members[] = {
#define CUNUM_BS_RESULTS_MEMBER(name, text) &Plain::name,
      CUNUM_BLACK_SCHOLES_OUTPUTS(CUNUM_BS_RESULTS_MEMBER)
#undef CUNUM_BS_RESULTS_MEMBER
  };
  return results.*members[static_cast<int>(output)];
}
}  // namespace detail

/// Rate and dividend yield: one scalar for the batch, or an array of n values (a
/// non-null pointer, in memory the backend can read, replaces its scalar).
template <class T>
struct BlackScholesRates {
  T rate = 0;                    ///< continuously compounded rate r, used when `rates` is null
  T dividend = 0;                ///< continuous dividend yield q, used when `dividends` is null
  const T* rates = nullptr;      ///< per-option r, or null
  const T* dividends = nullptr;  ///< per-option q, or null
};

/// The market of a batch: rates and volatility, each a scalar or an array of n values.
template <class T>
struct BlackScholesMarket {
  BlackScholesRates<T> rates;         ///< r and q
  T volatility = 0;                   ///< sigma, used when `volatilities` is null
  const T* volatilities = nullptr;    ///< per-option sigma, or null
};

/// Output arrays of price(), each n values in memory the backend can write. Those
/// requested from the pricer must be non-null when n > 0 and are all written; the
/// others are ignored (never read or written, may be null).
template <class T>
struct BlackScholesResults {
  T* call = nullptr;        ///< call price
  T* put = nullptr;         ///< put price
  T* delta_call = nullptr;  ///< dC/dS
  T* delta_put = nullptr;   ///< dP/dS
  T* gamma = nullptr;       ///< d2C/dS2 (= d2P/dS2)
  T* vega = nullptr;        ///< dC/dsigma (= dP/dsigma)
  T* theta_call = nullptr;  ///< -dC/dT, per year
  T* theta_put = nullptr;   ///< -dP/dT, per year
  T* rho_call = nullptr;    ///< dC/dr
  T* rho_put = nullptr;     ///< dP/dr
  T* forward = nullptr;     ///< F = S e^{(r-q)T}
  T* discount = nullptr;    ///< e^{-rT}

  /// @return the array of `output` (a valid enumerator), for loops over
  ///         cunum::BlackScholesOutputValues::all
  T*& operator[](BlackScholesOutput output) { return detail::black_scholes_member(*this, output); }
  /// @return the array of `output` (a valid enumerator)
  T* operator[](BlackScholesOutput output) const { return detail::black_scholes_member(*this, output); }
};

/// Host-vector results of the convenience overloads: requested outputs have n values,
/// the others are empty.
template <class T>
struct BlackScholesHostResults {
  std::vector<T> call, put, delta_call, delta_put, gamma, vega, theta_call, theta_put, rho_call, rho_put,
      forward, discount;

  /// @return the values of `output` (a valid enumerator), for loops over
  ///         cunum::BlackScholesOutputValues::all
  std::vector<T>& operator[](BlackScholesOutput output) { return detail::black_scholes_member(*this, output); }
  /// @return the values of `output` (a valid enumerator)
  const std::vector<T>& operator[](BlackScholesOutput output) const {
    return detail::black_scholes_member(*this, output);
  }
};

/// Implied volatilities with the count of prices outside the no-arbitrage bounds.
template <class T>
struct ImpliedVolatilities {
  std::vector<T> volatility;  ///< one per price (NaN where rejected or invalid)
  std::int64_t rejected = 0;  ///< prices outside [intrinsic, upper bound], or NaN/infinite
};

/// A Black-Scholes pricer for T (float or double) and a fixed set of outputs. For the
/// CUDA backend it holds the device it was made on (calls with another device
/// current throw) and its multiprocessor count; the pricer allocates nothing, and
/// its host-vector conveniences copy through device memory from its placement's
/// device_memory. Movable, not copyable.
///
/// - Streams: CUDA calls are enqueued on the caller's stream and return at once; all
///   pointers must stay valid until the stream reaches the call. CPU calls return when
///   done (OpenMP over the options); `stream` is ignored. The host-vector
///   conveniences run on the placement's stream.
/// - Threads: calls on one pricer may come from several threads (it holds no mutable state).
/// - Aliasing: both calls are element-wise (option i's inputs are read before its
///   outputs are written, by the same thread), so an output array may be an input array
///   itself: in place, with the numbers of the out-of-place call. Inputs may share
///   memory freely. Any other overlap (an output shifted over an input, two outputs
///   sharing memory, `rejected` inside any array) is refused with
///   ErrorCode::invalid_argument naming the output, before anything is written.
/// - CUDA graphs: price() and implied_volatility() may be captured into a CUDA graph
///   (docs/black_scholes.md); each replay computes from the arrays as they are then.
template <class T>
class BlackScholesPricer {
 public:
  /// Makes the pricer; it sets nothing up on the device, so nothing is enqueued.
  /// @param outputs   what price() writes; may be empty (price() then only validates)
  /// @param placement where it runs (cunum/core/placement.hpp): the backend, one
  ///                  device at most, and for the host-vector conveniences the stream
  ///                  they run on and the resource their device copies come from
  /// @throws Error ErrorCode::invalid_argument naming 'outputs' for bits outside the
  ///         list, or 'placement.backend' or 'placement.devices'; ErrorCode::no_device
  ///         for CUDA without a device.
  explicit BlackScholesPricer(BlackScholesOutputs outputs, const Placement& placement = {});
  ~BlackScholesPricer();
  /// Takes another pricer; price(), implied_volatility(), backend(), placement() and
  /// outputs() on the moved-from pricer throw ErrorCode::invalid_argument ("moved-from").
  BlackScholesPricer(BlackScholesPricer&&) noexcept;
  /// @return *this
  BlackScholesPricer& operator=(BlackScholesPricer&&) noexcept;

  /// @return the resolved backend: Backend::cpu or Backend::cuda
  /// @throws Error ErrorCode::invalid_argument for a moved-from pricer
  Backend backend() const;
  /// @return the resolved placement (see Placement)
  /// @throws Error ErrorCode::invalid_argument for a moved-from pricer
  const Placement& placement() const;
  /// @return the outputs price() writes
  /// @throws Error ErrorCode::invalid_argument for a moved-from pricer
  BlackScholesOutputs outputs() const;

  /// Prices n options, writing every requested output in one pass.
  /// @param n       number of options, >= 0
  /// @param spot    S, n values (CUDA: device-accessible memory; CPU: host or managed)
  /// @param strike  K, n values
  /// @param expiry  T in years, n values
  /// @param market  r, q, sigma: finite scalars, or per-option arrays of n values
  /// @param results the output arrays; the requested ones non-null when n > 0; each may
  ///                be an input array (in place) but overlaps nothing else ("Aliasing")
  /// @param stream  CUDA: the stream to enqueue on; CPU: ignored
  /// @throws Error ErrorCode::invalid_argument naming the argument ('n', 'spot',
  ///         'strike', 'expiry', 'market.rates.rate', 'market.rates.dividend',
  ///         'market.volatility', 'market.rates.rates', 'market.rates.dividends',
  ///         'market.volatilities', 'results.call' and the like) for a negative n, a
  ///         non-finite scalar, a null pointer with n > 0, memory the backend cannot
  ///         reach or an output overlapping an array it is not ("Aliasing" above), or
  ///         naming 'this' for a moved-from pricer or when another CUDA device is current;
  ///         ErrorCode::cuda_failure when the launch fails. Nothing is written then.
  /// CUDA graphs: captures (one kernel); each replay writes what a direct call would.
  void price(std::int64_t n, const T* spot, const T* strike, const T* expiry, const BlackScholesMarket<T>& market,
             const BlackScholesResults<T>& results, StreamHandle stream = nullptr) const;

  /// Host-vector convenience: prices spot.size() options (strike and expiry must have
  /// as many); the CUDA backend copies through device memory from the placement's
  /// device_memory, prices on the placement's stream and waits for it (CUDA graphs:
  /// refused with ErrorCode::not_supported while that stream is being captured).
  /// @param spot, strike, expiry  one value per option
  /// @param market  scalars, or pointers to host arrays of spot.size() values
  /// @return the requested outputs
  /// @throws Error as price(), and naming 'strike' or 'expiry' for a size mismatch
  BlackScholesHostResults<T> price(const std::vector<T>& spot, const std::vector<T>& strike,
                                   const std::vector<T>& expiry, const BlackScholesMarket<T>& market) const;

  /// Implied volatility: the sigma >= 0 at which the model price of each option
  /// equals prices[i]. The price is normalised (undiscounted, divided by sqrt(F K)) and
  /// reduced to an out-of-the-money call in double for both T, then inverted after
  /// Jaeckel's "Let's Be Rational": a rational initial guess per region of the price
  /// and one third-order Householder step in float, then, for double, one more step in
  /// double (where a float cannot hold the normalised price, the guess and two steps in
  /// double), the same for every option (docs/black_scholes.md has the method and its
  /// measured accuracy).
  /// Element policy: S, K, T not positive, or any of S, K, T, r, q not finite: NaN,
  /// not counted. A price NaN, infinite, below the intrinsic value D max(F - K, 0)
  /// (calls; D max(K - F, 0) puts) or not below the upper bound (S e^{-qT} calls,
  /// K D puts): NaN, counted in *rejected. A price equal to the intrinsic value, to
  /// within 8e-16 of the upper bound after normalisation: 0.
  /// @param n          number of options, >= 0
  /// @param prices     option prices, n values
  /// @param spot       S, n values
  /// @param strike     K, n values
  /// @param expiry     T in years, n values
  /// @param rates      r and q, scalars or per-option arrays
  /// @param type       OptionType::call or OptionType::put, for the whole batch
  /// @param volatility output, n values; may be `prices` or another input array (in place)
  /// @param rejected   null, or one int64 in memory the backend can write: set to the
  ///                   number of rejected prices (CUDA: when the stream reaches the call);
  ///                   it must not overlap any of the arrays
  /// @param stream     CUDA: the stream to enqueue on; CPU: ignored
  /// @throws Error ErrorCode::invalid_argument naming the argument, as price()
  ///         ('type' for an OptionType off the list, 'volatility', 'rejected').
  /// CUDA graphs: captures (the zeroing of *rejected and one kernel); each replay
  /// writes what a direct call would.
  void implied_volatility(std::int64_t n, const T* prices, const T* spot, const T* strike, const T* expiry,
                          const BlackScholesRates<T>& rates, OptionType type, T* volatility,
                          std::int64_t* rejected = nullptr, StreamHandle stream = nullptr) const;

  /// Host-vector convenience of implied_volatility(); the CUDA backend copies through
  /// device memory from the placement's device_memory, runs on the placement's stream
  /// and waits for it (CUDA graphs: refused while that stream is being captured).
  /// @param prices, spot, strike, expiry  one value per option, equal sizes
  /// @param rates  scalars, or pointers to host arrays of prices.size() values
  /// @param type   call or put
  /// @return the volatilities and the rejected count
  /// @throws Error as implied_volatility(), and for a size mismatch
  ImpliedVolatilities<T> implied_volatility(const std::vector<T>& prices, const std::vector<T>& spot,
                                            const std::vector<T>& strike, const std::vector<T>& expiry,
                                            const BlackScholesRates<T>& rates, OptionType type) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cunum
