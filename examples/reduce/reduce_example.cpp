// cunum::Reducer on data that already lives on the device: the plan owns its
// workspace, each reduce() is one kernel launch, asynchronous on your stream.
// Without a GPU the same code runs on the OpenMP backend with host data.

#include <cstdio>
#include <random>
#include <vector>

#include "cunum/core.hpp"
#include "cunum/reduce.hpp"

int main() {
  const std::int64_t n = 10'000'019;
  std::vector<float> prices(static_cast<std::size_t>(n));
  std::mt19937 engine(42);
  std::lognormal_distribution<float> lognormal(0.0f, 0.25f);
  for (float& p : prices) p = 100.0f * lognormal(engine);

  const cunum::Backend backend = cunum::resolve_backend(cunum::Backend::automatic);
  cunum::Reducer<float> reducer(backend);
  float sum = 0, sum_of_squares = 0, low = 0, high = 0;

  if (backend == cunum::Backend::cuda) {
    cunum::Stream stream;
    const auto device_prices = cunum::DeviceBuffer<float>::from_host(prices, stream);
    cunum::DeviceBuffer<float> results(4, stream);
    reducer.reduce(cunum::ReduceOp::sum, device_prices.data(), n, results.data() + 0, stream);
    reducer.reduce(cunum::ReduceOp::sum_of_squares, device_prices.data(), n, results.data() + 1, stream);
    reducer.reduce(cunum::ReduceOp::min, device_prices.data(), n, results.data() + 2, stream);
    reducer.reduce(cunum::ReduceOp::max, device_prices.data(), n, results.data() + 3, stream);
    const std::vector<float> host = results.to_host();  // waits for the stream
    sum = host[0], sum_of_squares = host[1], low = host[2], high = host[3];
  } else {
    reducer.reduce(cunum::ReduceOp::sum, prices.data(), n, &sum);
    reducer.reduce(cunum::ReduceOp::sum_of_squares, prices.data(), n, &sum_of_squares);
    reducer.reduce(cunum::ReduceOp::min, prices.data(), n, &low);
    reducer.reduce(cunum::ReduceOp::max, prices.data(), n, &high);
  }

  const double mean = double(sum) / n;
  const double variance = double(sum_of_squares) / n - mean * mean;
  std::printf("backend %s, %lld simulated prices\n", cunum::to_string(backend), static_cast<long long>(n));
  std::printf("mean %.4f  variance %.4f  min %.4f  max %.4f\n", mean, variance, low, high);
  return 0;
}
