#pragma once
// What the sections of cunum-bench-black-scholes share: the books of options they
// price, the context of a run and the checks against the CPU backend.

#include <cstdint>
#include <string>
#include <vector>

#include "bench_harness.hpp"
#include "cunum/black_scholes.hpp"

namespace cunum::bench::black_scholes {

inline constexpr const char* kModule = "black_scholes";

constexpr std::int64_t pow2(int exponent) { return std::int64_t{1} << exponent; }

// A book of options in host memory, with a per-option market beside the scalar one.
template <class T>
struct Book {
  std::vector<T> spot, strike, expiry, rate, dividend, volatility;
  T scalar_rate = 0, scalar_volatility = 0;  // the reference work's one rate and volatility, no dividend
  std::int64_t size() const { return static_cast<std::int64_t>(spot.size()); }
};

// The reference work's book: S in [5, 30], K in [1, 100], T in [0.25, 10] years, r = 0.02,
// sigma = 0.30; the per-option market draws r in [0, 0.05], q in [0, 0.03] and sigma in
// [0.10, 0.50]. Fixed seed.
template <class T>
Book<T> reference_book(std::int64_t n);

// A book for implied volatility: S in [50, 150], T in [1/52, 5], sigma in [0.05, 1],
// r = 0.02, q = 0.01, strikes within 3 standard deviations of the forward
// (ln(K/F) = z sigma sqrt(T), z in [-3, 3]: every price carries its volatility); the
// prices are its calls, priced by the CPU backend.
template <class T>
struct ImpliedVolBook {
  Book<T> options;
  std::vector<T> call_price;
  static constexpr double kRate = 0.02, kDividend = 0.01;
  BlackScholesRates<T> rates() const { return {T(kRate), T(kDividend), nullptr, nullptr}; }
};
template <class T>
ImpliedVolBook<T> implied_vol_book(std::int64_t n);

// Everything one run shares.
struct Context {
  const BenchOptions& options;
  const BenchEnvironment& environment;
  BenchReport& report;
  FailureLog& failures;
};

// Counts the elements where `values` and `reference` differ by more than
// tolerance x max(1, |reference|) (NaN must meet NaN); reports the first of them.
template <class T>
void check_close(FailureLog& failures, const std::string& what, const std::vector<T>& values,
                 const std::vector<T>& reference, double tolerance);

// The tolerances of a GPU result against the CPU backend: the device's erfc, exp
// and log may differ from the host's in the last bits.
template <class T>
double device_tolerance();

// "G options/s" (or "M options/s" below 1 G) of n options in `ms`.
std::string options_per_second(std::int64_t n, double ms, const char* unit = "options");

// The CPU figures a section measures with fewer runs (a CPU run takes 100x longer).
BenchOptions cpu_options(const BenchOptions& options);

// The sections, in the order the bench runs them.
void pricing_section(Context& context);
void curve_section(Context& context);
void implied_volatility_section(Context& context);
void transfer_section(Context& context);
void cpu_section(Context& context);

}  // namespace cunum::bench::black_scholes
