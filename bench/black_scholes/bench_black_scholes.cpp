// cunum-bench-black-scholes: the Black-Scholes pricer against the copy bandwidth and
// the reference kernel (NVIDIA CUDA technical training, vol. II, 2008: the SDK
// BlackScholes sample), the options/s curve, implied volatility, the reference transfer
// measurement, and the CPU backend beside QuantLib. Every case is checked against
// the CPU backend (or QuantLib) outside the timed runs; a mismatch fails the bench.

#include "black_scholes_bench.hpp"

int main(int argc, char** argv) {
  using namespace cunum::bench;
  FailureLog failures;
  return bench_main(argc, argv, "cunum-bench-black-scholes",
                    "Black-Scholes prices, Greeks and implied volatility: % of copy bandwidth, vs the reference kernel "
                    "and QuantLib",
                    failures, [&](const BenchOptions& options) {
                      const BenchEnvironment environment = measure_environment(options);
                      const auto section = [&](const char* title, void (*run)(black_scholes::Context&)) {
                        if (!section_selected(options, title)) return;
                        BenchReport report(environment, options, title);
                        black_scholes::Context context{options, environment, report, failures};
                        run(context);
                      };
                      if (environment.backend == cunum::Backend::cuda) {
                        section("Pricing: the reference case, every Greek, a per-option market",
                                black_scholes::pricing_section);
                        section("Options/s from 2^10 to 2^26 options (reference case)", black_scholes::curve_section);
                        section("Implied volatility", black_scholes::implied_volatility_section);
                        section("Transfers: host-resident options, end to end", black_scholes::transfer_section);
                      }
                      section("CPU backend (all threads) and QuantLib", black_scholes::cpu_section);
                    });
}
