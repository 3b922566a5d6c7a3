// A payoff of your own on cunum's Monte Carlo paths (compiled by nvcc): a capped
// cliquet, the sum over 12 monthly dates of each month's return, floored at 0 and
// capped at 2%, paid on a notional of 100. The paths, random numbers, control variate
// and estimates are the library's; the functor below is all the code the payoff needs.

#include <cstdio>
#include <vector>

#include "cunum/device/monte_carlo_payoff.cuh"

namespace {

struct CappedCliquet {
  float cap;
  struct State {
    float previous;
    float sum;
  };
  __host__ __device__ State start(const cunum::MonteCarloPathView<float>& path) const { return {path.spot, 0.0f}; }
  __host__ __device__ void observe(State& state, float s, int, const cunum::MonteCarloPathView<float>&) const {
    const float month = s / state.previous - 1.0f;
    state.sum += month < 0.0f ? 0.0f : (month > cap ? cap : month);
    state.previous = s;
  }
  __host__ __device__ float value(const State& state, const cunum::MonteCarloPathView<float>&) const {
    return 100.0f * state.sum;
  }
};

}  // namespace

int main() {
  try {
    cunum::MonteCarloSettings settings;
    settings.payoff = cunum::MonteCarloPayoff::custom;
    settings.time_steps = 12;
    settings.paths = std::int64_t{1} << 22;
    settings.antithetic = true;
    settings.control_variate = true;  // the terminal asset
    settings.seed = 7;
    const cunum::MonteCarloPricer<float> pricer(settings);
    // Strike unused by this payoff; one year, r = 3%, sigma = 20% and 35%.
    const std::vector<cunum::MonteCarloOption<float>> options = {{100.0f, 0.0f, 1.0f, 0.03f, 0.0f, 0.20f, 0.0f},
                                                                 {100.0f, 0.0f, 1.0f, 0.03f, 0.0f, 0.35f, 0.0f}};
    const cunum::MonteCarloBatch<float> batch = pricer.load(options);
    std::vector<cunum::MonteCarloEstimate<float>> estimates(options.size());
    const CappedCliquet payoff{0.02f};
    if (pricer.backend() == cunum::Backend::cuda) {
      cunum::DeviceBuffer<cunum::MonteCarloEstimate<float>> results(options.size());
      cunum::price_with_payoff(pricer, batch, payoff, results.data());
      estimates = results.to_host();
    } else {
      cunum::price_with_payoff(pricer, batch, payoff, estimates.data());
    }
    std::printf("capped cliquet (12 months, cap 2%%), backend %s, %lld paths\n",
                cunum::to_string(pricer.backend()), static_cast<long long>(settings.paths));
    for (std::size_t i = 0; i < options.size(); ++i) {
      std::printf("  sigma %.2f: %.5f +- %.5f\n", options[i].volatility, estimates[i].price,
                  estimates[i].standard_error);
    }
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
