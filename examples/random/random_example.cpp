// Draws normals with Philox4x32-10 on the GPU when there is one (else on the CPU),
// estimates a Black-Scholes call from them, and shows that skipping ahead on a second
// generator reproduces the tail of the first one's stream.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "cunum/random.hpp"

int main() {
  using namespace cunum;
  RandomGenerator generator(RandomGeneratorKind::philox4x32_10, 1234, Backend::automatic);
  const std::int64_t paths = 1 << 20;
  const std::vector<double> z = generator.normal<double>(paths, 0.0, 1.0);

  // S_T = S exp((r - sigma^2/2) T + sigma sqrt(T) z), call payoff discounted.
  const double spot = 100, strike = 100, rate = 0.03, sigma = 0.2, expiry = 1.0;
  double sum = 0, sum_squares = 0;
  for (double normal : z) {
    const double terminal = spot * std::exp((rate - 0.5 * sigma * sigma) * expiry + sigma * std::sqrt(expiry) * normal);
    const double payoff = std::exp(-rate * expiry) * std::max(terminal - strike, 0.0);
    sum += payoff;
    sum_squares += payoff * payoff;
  }
  const double mean = sum / paths;
  const double standard_error = std::sqrt((sum_squares / paths - mean * mean) / paths);
  std::printf("backend %s: call %.4f +- %.4f (Black-Scholes 9.4134)\n", to_string(generator.backend()), mean,
              standard_error);

  // Skip-ahead: a second generator moved past the first 1000 pairs' words continues the stream.
  RandomGenerator skipped(RandomGeneratorKind::philox4x32_10, 1234, generator.backend());
  skipped.set_offset(1000 * 4);  // a pair of double normals consumes 4 words
  const std::vector<double> tail = skipped.normal<double>(2, 0.0, 1.0);
  std::printf("z[2000] = %.17g, skipped generator's first = %.17g: %s\n", z[2000], tail[0],
              z[2000] == tail[0] ? "equal" : "DIFFERENT");
  return z[2000] == tail[0] ? 0 : 1;
}
