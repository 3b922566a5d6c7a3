// MonteCarloPricer, CUDA backend against the CPU backend on fresh seeds: the same
// stream, so every payoff and variant agrees to rounding (double: both estimates
// within the derived rounding bound of the CPU's samples' statistics; float: within
// what float paths differ by); at awkward path and option counts with the results
// poisoned first; bit-identical run to run and under batch splits; streams and
// argument checks of the device path.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cunum/core/device_buffer.hpp"
#include "cunum/core/stream.hpp"
#include "cunum/monte_carlo.hpp"
#include "monte_carlo_cases.hpp"
#include "monte_carlo_samples.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::DeviceBuffer;
using cunum::ErrorCode;
using cunum::MonteCarloEstimate;
using cunum::MonteCarloOption;
using cunum::MonteCarloPayoff;
using cunum::MonteCarloPricer;
using cunum::MonteCarloSettings;
using cunum::OptionType;

template <class T>
std::vector<MonteCarloOption<T>> options_for(MonteCarloPayoff payoff, std::size_t count) {
  std::vector<MonteCarloOption<T>> out;
  const auto grid = cunum::testing::option_grid<T>();
  for (std::size_t i = 0; i < count; ++i) {
    MonteCarloOption<T> o = grid[i % grid.size()];
    o.barrier = payoff == MonteCarloPayoff::up_and_out ? T(135) : T(72);
    out.push_back(o);
  }
  return out;
}

// Prices on the device into results poisoned with NaN bytes; every estimate must be written.
template <class T>
std::vector<MonteCarloEstimate<T>> device_price(const MonteCarloPricer<T>& pricer,
                                                const std::vector<MonteCarloOption<T>>& options,
                                                std::uint64_t first_stream = 0) {
  const auto batch = pricer.load(options, first_stream);
  DeviceBuffer<MonteCarloEstimate<T>> results(options.size());
  results.fill_bytes_async(0xFF);
  pricer.price(batch, results.data());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  auto host = results.to_host();
  for (std::size_t i = 0; i < host.size(); ++i) {
    EXPECT_FALSE(std::isnan(double(host[i].price))) << "estimate " << i << " not written";
    EXPECT_EQ(host[i].paths, pricer.settings().paths) << i;
  }
  return host;
}

// The CPU backend's estimates of a batch and the samples they are formed from.
template <class T>
struct CpuRun {
  std::vector<MonteCarloEstimate<T>> estimates;
  std::vector<cunum::testing::OptionSamples> samples;
  std::vector<cunum::MonteCarloAssetGreeks<T>> asset_greeks;  // with settings.greeks on a multi-asset payoff
};

template <class T, class Options>
CpuRun<T> cpu_run(const MonteCarloSettings& s, const Options& options) {
  const MonteCarloPricer<T> pricer(s, Backend::cpu);
  const auto batch = pricer.load(options);
  CpuRun<T> run;
  run.estimates.resize(options.size());
  if (s.greeks && s.assets > 1) {
    run.asset_greeks.resize(options.size() * static_cast<std::size_t>(s.assets));
    pricer.price(batch, run.estimates.data(), run.asset_greeks.data(), nullptr);
  } else {
    pricer.price(batch, run.estimates.data());
  }
  run.samples = cunum::testing::cpu_samples(pricer, batch);
  return run;
}

// Double: how far the backends' samples of one path may differ, relative. The path
// code is the same (double_normal_math_test holds its functions within an ulp of
// long double); the device contracts multiply-adds that the CPU loop keeps apart and
// seeds its reciprocals differently: an ulp or two an operation, some dozens of
// operations a date, at most 16 dates here, far below the 2^-40 (4,096 ulps) taken.
// A discontinuous sample (digital, barrier, a pathwise Greek at the strike) differs
// by its jump instead when its path falls that close to the kink: some 1e-12 of the
// paths, none of this suite's 10^7.
constexpr long double kDoubleSampleDifference = 0x1p-40L;

// GPU and CPU agree. Double: the CPU's estimate is its samples' statistics within the
// rounding bound of its sums (tests/monte_carlo/monte_carlo_samples.hpp), and the
// GPU's too, widened by what samples differing by kDoubleSampleDifference move
// (`path_scale`: the values a payoff is a difference of, spot and strike).
// Float: paths that fall within rounding of a kink or a barrier may flip, so float
// allows a few paths' worth, and 1e-4 of the price: a deep out-of-the-money option
// with a control variate has an error of 1e-5 of its price, all of it float rounding
// of its few paying paths.
// Likelihood-ratio Greeks (digital, barriers) weigh a path's payoff by its score, which
// is large in the tails: one float path that rounds across the strike or a barrier on
// one of its dates moves them by up to about 0.08 standard errors at these path
// counts (estimated: a sample 5 standard deviations out, over 4,093 pairs), so float
// allows 0.3 (a few such paths) where pathwise Greeks allow 0.1.
constexpr double kLikelihoodRatioGreekShare = 0.3;
// Each asset's Greeks of a best-of or worst-of pass a path's sample to the asset that
// is best (worst): a float path on which two of 16 assets round into the other order,
// or that rounds across the strike, moves two assets' Greeks by its whole sample / n.
// Measured on two H200s over 24 seeds: up to 0.15 standard errors (vega, 16 assets);
// float allows 0.3.
constexpr double kAssetGreekShare = 0.3;

template <class T>
void expect_agree(const MonteCarloEstimate<T>& gpu, const MonteCarloEstimate<T>& cpu,
                  const cunum::testing::OptionSamples& samples, bool control, double path_scale,
                  const std::string& what, double float_greek_share = 0.1) {
  const auto truth = cunum::testing::statistics_of(samples, control);
  cunum::testing::expect_formed_from(cpu, truth, what + " (CPU)");
  if constexpr (sizeof(T) == 8) {
    cunum::testing::expect_formed_from(
        gpu, cunum::testing::statistics_of(samples, control, kDoubleSampleDifference, path_scale), what + " (GPU)");
  } else {
    // The GPU's plain float sums round in float: their bounds are float's.
    const auto float_sums = cunum::testing::statistics_of(samples, control, 0, 0, cunum::testing::kFloatUnitRoundoff);
    const double price = std::abs(double(cpu.price));
    const double tolerance = 2e-3 * double(cpu.standard_error) + 1e-4 * price;
    EXPECT_NEAR(gpu.price, cpu.price, tolerance + double(float_sums.payoff.mean_bound)) << what;
    EXPECT_NEAR(gpu.standard_error, cpu.standard_error,
                1e-2 * double(cpu.standard_error) + 1e-5 * price + 2 * double(float_sums.payoff.error_bound))
        << what;
    if (!std::isnan(double(cpu.delta))) {
      // A pathwise Greek jumps where a path crosses the strike: a float path that
      // rounds across it moves the Greek by its whole sample / n, so float allows a
      // tenth of the standard error by default (a few such paths at these path
      // counts; measured: 0.05).
      EXPECT_NEAR(gpu.delta, cpu.delta,
                  10 * tolerance / double(cpu.price + 1) + float_greek_share * double(cpu.delta_standard_error))
          << what;
      EXPECT_NEAR(gpu.vega, cpu.vega,
                  float_greek_share * double(cpu.vega_standard_error) + 1e-4 * std::abs(double(cpu.vega)))
          << what;
    } else {
      EXPECT_TRUE(std::isnan(double(gpu.delta))) << what;
    }
  }
}

// The spot plus the strike of a one-asset option: what its payoff is a difference of.
template <class T>
double path_scale(const MonteCarloOption<T>& o) {
  return double(o.spot) + double(o.strike);
}

template <class T>
class MonteCarloGpu : public ::testing::Test {};
TYPED_TEST_SUITE(MonteCarloGpu, cunum::testing::RealTypes);

TYPED_TEST(MonteCarloGpu, EveryPayoffAndVariantMatchesTheCpuBackend) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  for (MonteCarloPayoff payoff : cunum::MonteCarloPayoffValues::all) {
    if (!cunum::testing::one_asset_library_payoff(payoff)) continue;  // multi-asset and custom: their own tests
    for (int variant = 0; variant < 4; ++variant) {
      MonteCarloSettings s;
      s.payoff = payoff;
      s.type = variant % 2 == 0 ? OptionType::call : OptionType::put;
      s.paths = 2 * 4093;
      s.time_steps = 7;
      s.seed = cunum::testing::fresh_seed() + static_cast<std::uint64_t>(variant);
      s.antithetic = variant >= 2;
      s.control_variate = variant == 1 || variant == 3;
      s.greeks = variant >= 1;
      const auto options = options_for<T>(payoff, 13);
      const auto gpu = device_price(MonteCarloPricer<T>(s, Backend::cuda), options);
      const CpuRun<T> cpu = cpu_run<T>(s, options);
      const bool likelihood_ratio = payoff == MonteCarloPayoff::digital || payoff == MonteCarloPayoff::up_and_out ||
                                    payoff == MonteCarloPayoff::down_and_out;
      for (std::size_t i = 0; i < options.size(); ++i) {
        expect_agree(gpu[i], cpu.estimates[i], cpu.samples[i], s.control_variate, path_scale(options[i]),
                     std::string(to_string(payoff)) + " variant " + std::to_string(variant) + " option " +
                         std::to_string(i),
                     likelihood_ratio ? kLikelihoodRatioGreekShare : 0.1);
      }
    }
  }
}

TYPED_TEST(MonteCarloGpu, MultiAssetPayoffsMatchTheCpuBackend) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  for (int assets : {3, 5, 16}) {  // 16: each asset's Greek sums take more than the default 48 KB of shared memory
    for (MonteCarloPayoff payoff : {MonteCarloPayoff::basket, MonteCarloPayoff::best_of, MonteCarloPayoff::worst_of}) {
      for (int variant = 0; variant < 2; ++variant) {
        MonteCarloSettings s;
        s.payoff = payoff;
        s.type = variant == 0 ? OptionType::call : OptionType::put;
        s.assets = assets;
        s.correlation.assign(static_cast<std::size_t>(assets * assets), 0.25);
        for (int j = 0; j < assets; ++j) s.correlation[static_cast<std::size_t>(j * assets + j)] = 1.0;
        s.paths = 20011 * 2;
        s.antithetic = s.control_variate = s.greeks = variant == 1;
        s.seed = cunum::testing::fresh_seed() + static_cast<std::uint64_t>(assets);
        std::vector<cunum::MonteCarloBasketOption<T>> options;
        for (int i = 0; i < 6; ++i) {
          cunum::MonteCarloBasketOption<T> o;
          for (int j = 0; j < assets; ++j) {
            o.assets.push_back({T(90 + 5 * j), T(0.01 * j), T(0.15 + 0.05 * j), T(1.0 / assets)});
          }
          o.strike = T(80 + 8 * i);
          o.expiry = T(0.5 + 0.25 * i);
          o.rate = T(0.02);
          options.push_back(o);
        }
        const MonteCarloPricer<T> gpu_pricer(s, Backend::cuda);
        const auto batch = gpu_pricer.load(options);
        DeviceBuffer<MonteCarloEstimate<T>> results(options.size());
        DeviceBuffer<cunum::MonteCarloAssetGreeks<T>> greeks(options.size() * static_cast<std::size_t>(assets));
        results.fill_bytes_async(0xFF);
        greeks.fill_bytes_async(0xFF);
        gpu_pricer.price(batch, results.data(), s.greeks ? greeks.data() : nullptr, nullptr);
        const auto gpu = results.to_host();
        const auto gpu_greeks = greeks.to_host();
        const CpuRun<T> cpu = cpu_run<T>(s, options);
        for (std::size_t i = 0; i < options.size(); ++i) {
          const std::string what = std::string(to_string(payoff)) + " on " + std::to_string(assets) +
                                   " assets, variant " + std::to_string(variant) + " option " + std::to_string(i);
          double scale = double(options[i].strike);
          for (const auto& asset : options[i].assets) scale += double(asset.spot);
          expect_agree(gpu[i], cpu.estimates[i], cpu.samples[i], s.control_variate, scale, what);
          const auto truth = cunum::testing::statistics_of(cpu.samples[i], s.control_variate);
          const auto moved = cunum::testing::statistics_of(cpu.samples[i], s.control_variate, kDoubleSampleDifference, scale);
          for (std::size_t j = 0; j < cpu.asset_greeks.size() / options.size(); ++j) {
            const auto& g = gpu_greeks[i * static_cast<std::size_t>(assets) + j];
            const auto& c = cpu.asset_greeks[i * static_cast<std::size_t>(assets) + j];
            const std::string asset = what + " asset " + std::to_string(j);
            cunum::testing::expect_within(c.delta, truth.asset_delta[j].mean, truth.asset_delta[j].mean_bound, asset);
            cunum::testing::expect_within(c.delta_standard_error, truth.asset_delta[j].error,
                                          truth.asset_delta[j].error_bound, asset);
            cunum::testing::expect_within(c.vega, truth.asset_vega[j].mean, truth.asset_vega[j].mean_bound, asset);
            cunum::testing::expect_within(c.vega_standard_error, truth.asset_vega[j].error,
                                          truth.asset_vega[j].error_bound, asset);
            if constexpr (sizeof(T) == 8) {
              cunum::testing::expect_within(g.delta, moved.asset_delta[j].mean, moved.asset_delta[j].mean_bound, asset);
              cunum::testing::expect_within(g.delta_standard_error, moved.asset_delta[j].error,
                                            moved.asset_delta[j].error_bound, asset);
              cunum::testing::expect_within(g.vega, moved.asset_vega[j].mean, moved.asset_vega[j].mean_bound, asset);
              cunum::testing::expect_within(g.vega_standard_error, moved.asset_vega[j].error,
                                            moved.asset_vega[j].error_bound, asset);
            } else {
              EXPECT_NEAR(g.delta, c.delta,
                          kAssetGreekShare * double(c.delta_standard_error) + 1e-6 * std::abs(double(c.delta)))
                  << asset;
              EXPECT_NEAR(g.vega, c.vega,
                          kAssetGreekShare * double(c.vega_standard_error) + 1e-4 * std::abs(double(c.vega)))
                  << asset;
              EXPECT_NEAR(g.delta_standard_error, c.delta_standard_error, 1e-2 * double(c.delta_standard_error) + 1e-12)
                  << asset;
            }
          }
        }
      }
    }
  }
}

TYPED_TEST(MonteCarloGpu, MrgMatchesTheCpuBackend) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  cunum::Placement shared_device(Backend::cuda);
  shared_device.devices = {cunum::current_device(), cunum::current_device()};
  for (MonteCarloPayoff payoff : {MonteCarloPayoff::european, MonteCarloPayoff::up_and_out, MonteCarloPayoff::basket}) {
    for (std::int64_t paths : {std::int64_t{5}, std::int64_t{4093}, std::int64_t{300001}}) {
      MonteCarloSettings s;
      s.payoff = payoff;
      s.time_steps = 6;
      s.paths = paths;
      s.seed = cunum::testing::fresh_seed();
      s.source = cunum::MonteCarloSource::mrg32k3a;
      s.control_variate = paths > 5;
      if (payoff == MonteCarloPayoff::basket) {
        s.assets = 3;
        s.correlation = {1.0, 0.4, 0.1, 0.4, 1.0, 0.2, 0.1, 0.2, 1.0};
      }
      std::vector<MonteCarloEstimate<T>> gpu, shared;
      CpuRun<T> cpu;
      std::vector<double> scales;
      if (payoff == MonteCarloPayoff::basket) {
        std::vector<cunum::MonteCarloBasketOption<T>> options(4);
        for (std::size_t i = 0; i < options.size(); ++i) {
          options[i].assets = {{T(100), T(0), T(0.2), T(0.5)}, {T(90), T(0.01), T(0.3), T(0.25)},
                               {T(110), T(0.02), T(0.25), T(0.25)}};
          options[i].strike = T(90 + 5 * i);
          options[i].expiry = T(1);
          options[i].rate = T(0.03);
        }
        gpu = MonteCarloPricer<T>(s, Backend::cuda).price(options);
        shared = MonteCarloPricer<T>(s, shared_device).price(options);
        cpu = cpu_run<T>(s, options);
        for (const auto& o : options) {
          double scale = double(o.strike);
          for (const auto& asset : o.assets) scale += double(asset.spot);
          scales.push_back(scale);
        }
      } else {
        const auto options = options_for<T>(payoff, 9);
        gpu = device_price(MonteCarloPricer<T>(s, Backend::cuda), options);
        shared = device_price(MonteCarloPricer<T>(s, shared_device), options);
        cpu = cpu_run<T>(s, options);
        for (const auto& o : options) scales.push_back(path_scale(o));
      }
      for (std::size_t i = 0; i < gpu.size(); ++i) {
        const std::string what = std::string("mrg32k3a ") + to_string(payoff) + ", " + std::to_string(paths) +
                                 " paths, option " + std::to_string(i);
        expect_agree(gpu[i], cpu.estimates[i], cpu.samples[i], s.control_variate, scales[i], what);
        EXPECT_TRUE(cunum::testing::bit_identical(gpu[i], shared[i])) << what;
      }
    }
  }
}

TYPED_TEST(MonteCarloGpu, SobolBridgeMatchesTheCpuBackend) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  for (MonteCarloPayoff payoff :
       {MonteCarloPayoff::european, MonteCarloPayoff::asian_arithmetic, MonteCarloPayoff::lookback}) {
    MonteCarloSettings s;
    s.payoff = payoff;
    s.time_steps = 12;
    s.paths = 50021;
    s.control_variate = s.greeks = payoff == MonteCarloPayoff::asian_arithmetic;
    s.source = cunum::MonteCarloSource::sobol_bridge;
    const auto options = options_for<T>(payoff, 5);
    const auto gpu = device_price(MonteCarloPricer<T>(s, Backend::cuda), options);
    const CpuRun<T> cpu = cpu_run<T>(s, options);
    for (std::size_t i = 0; i < options.size(); ++i) {
      expect_agree(gpu[i], cpu.estimates[i], cpu.samples[i], s.control_variate, path_scale(options[i]),
                   std::string("sobol_bridge ") + to_string(payoff) + " option " + std::to_string(i));
    }
  }
}

// A payoff affine in its control (deep in-the-money European calls: S_T - K on every
// path, the terminal asset as control): the residual is the payoffs' rounding alone,
// so both backends' standard errors are within the rounding bound of 0.
TYPED_TEST(MonteCarloGpu, PayoffAffineInItsControlLeavesOnlyRounding) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  MonteCarloSettings s;
  s.paths = 20011;
  s.seed = cunum::testing::fresh_seed();
  s.control_variate = true;
  const std::vector<MonteCarloOption<T>> options = {{T(100), T(1), T(1), T(0.03), T(0.01), T(0.2), T(0)},
                                                   {T(100), T(1), T(0.25), T(0.05), T(0.0), T(0.4), T(0)}};
  const auto gpu = device_price(MonteCarloPricer<T>(s, Backend::cuda), options);
  const CpuRun<T> cpu = cpu_run<T>(s, options);
  for (std::size_t i = 0; i < options.size(); ++i) {
    expect_agree(gpu[i], cpu.estimates[i], cpu.samples[i], true, path_scale(options[i]),
                 "affine option " + std::to_string(i));
  }
}

TYPED_TEST(MonteCarloGpu, AwkwardPathAndOptionCounts) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  // 1 group, part-filled groups and warps, one chunk, several chunks, and enough
  // chunks (2^21 paths) that the combining kernel folds them.
  for (std::int64_t paths : {std::int64_t{2}, std::int64_t{3}, std::int64_t{5}, std::int64_t{127}, std::int64_t{1021},
                             std::int64_t{65537}, std::int64_t{1} << 21}) {
    for (std::size_t count : {std::size_t{1}, std::size_t{3}, std::size_t{33}}) {
      if (paths == (std::int64_t{1} << 21) && count > 1) continue;
      MonteCarloSettings s;
      s.paths = paths;
      s.seed = cunum::testing::fresh_seed();
      const auto options = options_for<T>(MonteCarloPayoff::european, count);
      const auto gpu = device_price(MonteCarloPricer<T>(s, Backend::cuda), options);
      const CpuRun<T> cpu = cpu_run<T>(s, options);
      for (std::size_t i = 0; i < count; ++i) {
        expect_agree(gpu[i], cpu.estimates[i], cpu.samples[i], false, path_scale(options[i]),
                     "paths " + std::to_string(paths) + " option " + std::to_string(i));
      }
    }
  }
}

TYPED_TEST(MonteCarloGpu, BitIdenticalRunToRunAndUnderBatchSplits) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  MonteCarloSettings s;
  s.payoff = MonteCarloPayoff::asian_arithmetic;
  s.time_steps = 16;
  s.paths = 300000;
  s.control_variate = true;
  s.seed = cunum::testing::fresh_seed();
  const MonteCarloPricer<T> pricer(s, Backend::cuda);
  const auto options = options_for<T>(s.payoff, 18);
  const auto first = device_price(pricer, options);
  const auto again = device_price(pricer, options);
  const std::vector<MonteCarloOption<T>> tail(options.begin() + 11, options.end());
  const auto split = device_price(pricer, tail, 11);
  for (std::size_t i = 0; i < options.size(); ++i) {
    EXPECT_TRUE(cunum::testing::bit_identical(first[i], again[i])) << i;
    if (i >= 11) {
      EXPECT_TRUE(cunum::testing::bit_identical(first[i], split[i - 11])) << i;
    }
  }
}

TYPED_TEST(MonteCarloGpu, EuropeanOnTheDeviceMatchesBlackScholes) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  const auto grid = cunum::testing::option_grid<double>();
  const auto bs = cunum::testing::black_scholes_of(grid, {cunum::BlackScholesOutput::call});
  MonteCarloSettings s;
  s.paths = std::int64_t{1} << 22;
  s.seed = 20261124;
  const auto e = device_price(MonteCarloPricer<T>(s, Backend::cuda), cunum::testing::option_grid<T>());
  for (std::size_t i = 0; i < grid.size(); ++i) {
    cunum::testing::expect_within_errors(e[i].price, e[i].standard_error, bs.call[i], "price", int(i));
  }
}

// Several list entries on the test's device (and on two GPUs where the machine has
// them): the shares, the copies home and the combination; the prices must equal a
// one-device pricer's bit for bit (also for an option count that does not split evenly).
TYPED_TEST(MonteCarloGpu, MultiDeviceSharesAreBitIdenticalToOneDevice) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  const int device = cunum::current_device();
  for (MonteCarloPayoff payoff : {MonteCarloPayoff::european, MonteCarloPayoff::lookback}) {
    MonteCarloSettings s;
    s.payoff = payoff;
    s.time_steps = 9;
    s.paths = 100003;
    s.greeks = true;
    s.seed = cunum::testing::fresh_seed();
    const auto options = options_for<T>(payoff, 7);
    const auto one = device_price(MonteCarloPricer<T>(s, Backend::cuda), options);
    std::vector<std::vector<int>> lists = {{device, device}, {device, device, device}};
    if (cunum::device_count() >= 2) lists.push_back({device, (device + 1) % cunum::device_count()});  // two GPUs
    cunum::Placement several(Backend::cuda);
    for (const std::vector<int>& list : lists) {
      several.devices = list;
      const MonteCarloPricer<T> shared_pricer(s, several);
      EXPECT_EQ(shared_pricer.placement().devices, list);
      const auto shared = device_price(shared_pricer, options);
      for (std::size_t i = 0; i < options.size(); ++i) {
        EXPECT_TRUE(cunum::testing::bit_identical(one[i], shared[i])) << list.size() << " entries, option " << i;
      }
    }
    several.devices = {device, device};
    const auto one_device_batch = MonteCarloPricer<T>(s, Backend::cuda).load(options);
    EXPECT_CUNUM_ERROR(MonteCarloPricer<T>(s, several).price(one_device_batch, nullptr), ErrorCode::invalid_argument,
                       "batch");
  }
  cunum::Placement bad(Backend::cuda);
  bad.devices = {device, cunum::device_count()};
  EXPECT_CUNUM_ERROR(MonteCarloPricer<float>(MonteCarloSettings{}, bad), ErrorCode::invalid_argument,
                     "'placement.devices' lists device");
}

// The graph-capture contract: price() on one device is captured with every source
// (its temporaries become the graph's, allocated and freed at each replay: not the
// stream's kept workspace, which the replays could meet; with no zeroed counters, a
// call the direct route makes in one launch stays one launch only with one chunk an
// option, 1,024 paths, and runs the launch chain at 4,096), and with enough chunks
// that the sums are folded on the device; each replay writes what the direct call
// writes, bit for bit, also while direct calls run on another stream and on the
// capture's own stream between replays. A pricer on several devices refuses.
TYPED_TEST(MonteCarloGpu, PriceReplaysFromACapturedGraph) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  cunum::Stream stream;
  std::vector<std::pair<cunum::MonteCarloSource, std::int64_t>> cases;
  for (const cunum::MonteCarloSource source : cunum::MonteCarloSourceValues::all) {
    for (const std::int64_t paths : {std::int64_t{1024}, std::int64_t{4096}, std::int64_t{1} << 21}) {
      cases.emplace_back(source, paths);
    }
  }
  for (const auto& [source, paths] : cases) {
    SCOPED_TRACE(std::string(to_string(source)) + ", " + std::to_string(paths) + " paths");
    MonteCarloSettings s;
    s.payoff = MonteCarloPayoff::asian_arithmetic;
    s.time_steps = 8;
    s.paths = paths;
    s.control_variate = true;
    s.greeks = true;
    s.source = source;
    s.seed = cunum::testing::fresh_seed();
    const MonteCarloPricer<T> pricer(s, Backend::cuda);
    const auto options = options_for<T>(s.payoff, 3);
    const auto batch = pricer.load(options);
    DeviceBuffer<MonteCarloEstimate<T>> results(options.size(), stream);
    const auto price = [&] { pricer.price(batch, results.data(), stream); };
    results.fill_bytes_async(0xFF);
    price();
    const auto direct = results.to_host();
    const cunum::Stream other;
    DeviceBuffer<MonteCarloEstimate<T>> beside(options.size(), other), between(options.size(), stream);
    for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
      SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
      cunum::testing::CapturedGraph graph(stream, mode, price);
      ASSERT_TRUE(graph.ok());
      for (int replay = 0; replay < 2; ++replay) {
        results.fill_bytes_async(0xFF);
        pricer.price(batch, beside.data(), other);
        graph.launch();
        pricer.price(batch, between.data(), stream);
        const auto got = results.to_host(), got_beside = beside.to_host(), got_between = between.to_host();
        for (std::size_t i = 0; i < got.size(); ++i) {
          EXPECT_TRUE(cunum::testing::bit_identical(got[i], direct[i])) << "replay " << replay << ", option " << i;
          EXPECT_TRUE(cunum::testing::bit_identical(got_beside[i], direct[i])) << "beside replay " << replay << ", option " << i;
          EXPECT_TRUE(cunum::testing::bit_identical(got_between[i], direct[i])) << "after replay " << replay << ", option " << i;
        }
      }
    }
  }
  MonteCarloSettings shared;
  shared.paths = 4096;
  cunum::Placement two_shares(Backend::cuda);
  two_shares.devices = {cunum::current_device(), cunum::current_device()};
  const MonteCarloPricer<T> pricer(shared, two_shares);
  const auto batch = pricer.load(options_for<T>(MonteCarloPayoff::european, 2));
  DeviceBuffer<MonteCarloEstimate<T>> results(2, stream);
  // load() and the host-vector price() copy on placement.stream and wait; a pricer is
  // made outside captures.
  const MonteCarloPricer<T> on_stream(shared, {Backend::cuda, stream});
  const auto options = options_for<T>(MonteCarloPayoff::european, 2);
  for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
    SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
    cunum::testing::expect_capture_refused(stream, mode, [&] { pricer.price(batch, results.data(), stream); });
    cunum::testing::expect_capture_refused(stream, mode, [&] { on_stream.load(options); });
    cunum::testing::expect_capture_refused(stream, mode, [&] { on_stream.price(options); });
    cunum::testing::expect_capture_refused(stream, mode,
                                           [&] { MonteCarloPricer<T>(shared, {Backend::cuda, stream}); });
  }
}

TEST(MonteCarloGpuStreams, TwoStreamsTwoPricersAtOnce) {
  CUNUM_REQUIRE_GPU();
  cudaStream_t streams[2];
  for (auto& stream : streams) ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  MonteCarloSettings s;
  s.paths = 1 << 18;
  s.seed = cunum::testing::fresh_seed();
  const MonteCarloPricer<float> pricer(s, Backend::cuda);
  const auto batch = pricer.load(options_for<float>(MonteCarloPayoff::european, 40));
  {  // the buffers are released on their streams, before the streams go
    DeviceBuffer<MonteCarloEstimate<float>> a(40, streams[0]), b(40, streams[1]);
    pricer.price(batch, a.data(), streams[0]);
    pricer.price(batch, b.data(), streams[1]);
    const auto ha = a.to_host(), hb = b.to_host();
    for (std::size_t i = 0; i < ha.size(); ++i) EXPECT_TRUE(cunum::testing::bit_identical(ha[i], hb[i])) << i;
  }
  for (auto& stream : streams) ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  for (auto& stream : streams) cudaStreamDestroy(stream);
}

// Each stream's calls fold in a workspace of its own, so calls enqueued back to back
// on two streams at once, from one thread and from two (each on its own stream, or
// each on its per-thread default stream), overlap without meeting: every one of them
// writes the bits of a call made alone. Batches of 1 option of 2^20 paths (a folding
// level) and of 40 of 2^12.
TEST(MonteCarloGpuStreams, BackToBackCallsOnSeveralStreamsEachWriteTheirOwnPrices) {
  CUNUM_REQUIRE_GPU();
  MonteCarloSettings s;
  s.paths = 1 << 20;
  s.control_variate = true;
  s.seed = cunum::testing::fresh_seed();
  const MonteCarloPricer<float> large(s, Backend::cuda);
  s.paths = 1 << 12;
  const MonteCarloPricer<float> small(s, Backend::cuda);
  const auto options = options_for<float>(MonteCarloPayoff::european, 40);
  const std::vector<MonteCarloOption<float>> one_option(options.begin(), options.begin() + 1);
  const auto large_batch = large.load(one_option), small_batch = small.load(options);
  const auto expected_large = large.price(one_option), expected_small = small.price(options);
  constexpr int kCalls = 24;
  // kCalls calls on `stream`, alternating the two pricers, each into results of its own;
  // waits for them and checks each.
  const auto run = [&](cudaStream_t stream, const std::string& where) {
    std::vector<DeviceBuffer<MonteCarloEstimate<float>>> results;
    for (int call = 0; call < kCalls; ++call) {
      results.emplace_back(options.size(), stream);
      call % 2 == 0 ? large.price(large_batch, results.back().data(), stream)
                    : small.price(small_batch, results.back().data(), stream);
    }
    for (int call = 0; call < kCalls; ++call) {
      const auto got = results[static_cast<std::size_t>(call)].to_host();
      const auto& expected = call % 2 == 0 ? expected_large : expected_small;
      for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_TRUE(cunum::testing::bit_identical(got[i], expected[i])) << where << ", call " << call << ", option " << i;
      }
    }
  };
  const cunum::Stream first, second;
  {  // one thread, two streams: the calls are enqueued before any is waited for
    std::vector<DeviceBuffer<MonteCarloEstimate<float>>> a, b;
    for (int call = 0; call < kCalls; ++call) {
      a.emplace_back(options.size(), first);
      b.emplace_back(options.size(), second);
      large.price(large_batch, a.back().data(), first);
      large.price(large_batch, b.back().data(), second);
    }
    for (int call = 0; call < kCalls; ++call) {
      const auto got_a = a[static_cast<std::size_t>(call)].to_host(), got_b = b[static_cast<std::size_t>(call)].to_host();
      EXPECT_TRUE(cunum::testing::bit_identical(got_a[0], expected_large[0])) << "one thread, first stream, call " << call;
      EXPECT_TRUE(cunum::testing::bit_identical(got_b[0], expected_large[0])) << "one thread, second stream, call " << call;
    }
  }
  {
    std::thread on_first([&] { run(first.get(), "two threads, first stream"); });
    run(second.get(), "two threads, second stream");
    on_first.join();
  }
  {
    std::thread on_its_own([&] { run(cudaStreamPerThread, "per-thread default stream, second thread"); });
    run(cudaStreamPerThread, "per-thread default stream, first thread");
    on_its_own.join();
  }
}

TEST(MonteCarloGpuValidation, HostResultsAndCpuBatchesAreRefused) {
  CUNUM_REQUIRE_GPU();
  MonteCarloSettings s;
  s.paths = 64;
  const MonteCarloPricer<double> pricer(s, Backend::cuda);
  const auto batch = pricer.load(options_for<double>(MonteCarloPayoff::european, 2));
  std::vector<MonteCarloEstimate<double>> host(2);
  EXPECT_CUNUM_ERROR(pricer.price(batch, host.data()), ErrorCode::invalid_argument, "results");
  const auto cpu_batch = MonteCarloPricer<double>(s, Backend::cpu).load(options_for<double>(MonteCarloPayoff::european, 2));
  DeviceBuffer<MonteCarloEstimate<double>> results(2);
  EXPECT_CUNUM_ERROR(pricer.price(cpu_batch, results.data()), ErrorCode::invalid_argument, "batch");
}

// An empty batch prices nothing on every backend (the CUDA batch binds no device copy).
TEST(MonteCarloGpuValidation, AnEmptyBatchPricesNothing) {
  CUNUM_REQUIRE_GPU();
  MonteCarloSettings s;
  s.paths = 64;
  const MonteCarloPricer<double> pricer(s, Backend::cuda);
  EXPECT_TRUE(pricer.price(std::vector<cunum::MonteCarloOption<double>>{}).empty());
  const auto batch = pricer.load(std::vector<cunum::MonteCarloOption<double>>{});
  EXPECT_NO_THROW(pricer.price(batch, static_cast<MonteCarloEstimate<double>*>(nullptr)));
}

// The plan-object contract: every device allocation of the pricer (the loaded batch,
// one copy per device; each call's chunk sums, per device; the sobol_bridge paths and
// its BrownianBridge's strategy; the host convenience's results) comes from the
// placement's resource and goes back to it; placement() reports what was resolved.
// Prices equal the default placement's.
TEST(MonteCarloGpuPlacement, AllocatesFromItsResourceAndReportsWhatItResolved) {
  CUNUM_REQUIRE_GPU();
  const int device = cunum::current_device();
  const cunum::Stream stream;
  const auto options = options_for<float>(MonteCarloPayoff::asian_arithmetic, 5);
  struct Case {
    cunum::MonteCarloSource source;
    std::vector<int> devices;
  };
  const Case cases[] = {{cunum::MonteCarloSource::philox4x32_10, {}},
                        {cunum::MonteCarloSource::philox4x32_10, {device, device}},
                        {cunum::MonteCarloSource::sobol_bridge, {device}}};
  for (const Case& c : cases) {
    MonteCarloSettings s;
    s.payoff = MonteCarloPayoff::asian_arithmetic;
    s.time_steps = 8;
    s.paths = 1 << 16;
    s.seed = cunum::testing::fresh_seed();
    s.source = c.source;
    const auto expected = MonteCarloPricer<float>(s, Backend::cuda).price(options);
    cunum::testing::CountingResource resource;
    cunum::Placement placement(Backend::cuda, stream);
    placement.devices = c.devices;
    placement.device_memory = &resource;
    const std::string what = std::string(to_string(c.source)) + " on " + std::to_string(c.devices.size()) + " devices";
    {
      const MonteCarloPricer<float> pricer(s, placement);
      if (c.source == cunum::MonteCarloSource::sobol_bridge) {
        EXPECT_GT(resource.allocations.load(), 0) << what << ": the bridge's strategy";
      }
      const cunum::Placement& resolved = pricer.placement();
      EXPECT_EQ(pricer.backend(), Backend::cuda) << what;
      EXPECT_EQ(resolved.backend, Backend::cuda) << what;
      EXPECT_EQ(resolved.devices, c.devices.empty() ? std::vector<int>{device} : c.devices) << what;
      EXPECT_EQ(resolved.stream, stream.get()) << what;
      EXPECT_EQ(resolved.device_memory, &resource) << what;
      EXPECT_EQ(resolved.pinned_memory, cunum::pinned_memory_resource()) << what;
      const auto batch = pricer.load(options);
      DeviceBuffer<MonteCarloEstimate<float>> results(options.size(), stream);
      pricer.price(batch, results.data(), stream);
      const auto priced = results.to_host();
      const auto converted = pricer.price(options);  // the host convenience
      for (std::size_t i = 0; i < options.size(); ++i) {
        EXPECT_TRUE(cunum::testing::bit_identical(priced[i], expected[i])) << what << ", option " << i;
        EXPECT_TRUE(cunum::testing::bit_identical(converted[i], expected[i])) << what << ", option " << i;
      }
      EXPECT_GT(resource.allocations.load(), 0) << what;
    }
    cunum::synchronize(stream);
    EXPECT_EQ(resource.deallocations.load(), resource.allocations.load()) << what;
  }
}

// Every byte of `buffer` still 0xFF: a refused call wrote nothing there.
template <class T>
void expect_untouched(const DeviceBuffer<T>& buffer) {
  std::vector<unsigned char> bytes(buffer.bytes());
  cunum::memory::copy_device_to_host(bytes.data(), buffer.data(), bytes.size(), buffer.stream());
  for (std::size_t i = 0; i < bytes.size(); ++i) ASSERT_EQ(bytes[i], 0xFF) << "the refused call wrote byte " << i;
}

// A one-device call keeps its chunk sums in a workspace of its stream's: the first
// call on a stream allocates it (once: the sums, their folding levels and the fold's
// counters), later calls that fit allocate nothing, a call that needs more allocates
// once more and gives the old one back, and a second stream gets its own; all of it
// goes back to the resource with the pricer. With and without a folding level, two
// and nine sums a chunk; prices equal the default placement's.
TEST(MonteCarloGpuPlacement, PriceAllocatesOnlyWhenItsStreamFirstNeedsMore) {
  CUNUM_REQUIRE_GPU();
  const cunum::Stream stream, other;
  const auto few = options_for<float>(MonteCarloPayoff::european, 3);
  const auto more = options_for<float>(MonteCarloPayoff::european, 9);
  for (const std::int64_t paths : {std::int64_t{1} << 12, std::int64_t{1} << 21, std::int64_t{1} << 27}) {
    for (const bool control : {false, true}) {
      MonteCarloSettings s;
      s.paths = paths;
      s.control_variate = control;
      s.seed = cunum::testing::fresh_seed();
      const std::string what = std::to_string(paths) + " paths" + (control ? ", control variate" : "");
      const MonteCarloPricer<float> reference(s, Backend::cuda);
      const auto expected_few = reference.price(few), expected_more = reference.price(more);
      cunum::testing::CountingResource resource;
      {
        const MonteCarloPricer<float> pricer(s, cunum::testing::cuda_placement(stream, &resource));
        const auto few_batch = pricer.load(few), more_batch = pricer.load(more);
        DeviceBuffer<MonteCarloEstimate<float>> results(more.size(), stream), on_other(more.size(), other);
        const auto price_and_count = [&](const cunum::MonteCarloBatch<float>& batch, cunum::StreamHandle on,
                                         MonteCarloEstimate<float>* into, int allocations, int deallocations,
                                         const std::string& call) {
          const int allocated = resource.allocations.load(), freed = resource.deallocations.load();
          pricer.price(batch, into, on);
          EXPECT_EQ(resource.allocations.load() - allocated, allocations) << what << ", " << call;
          EXPECT_EQ(resource.deallocations.load() - freed, deallocations) << what << ", " << call;
        };
        const auto expect_prices = [&](const DeviceBuffer<MonteCarloEstimate<float>>& buffer,
                                       const std::vector<MonteCarloEstimate<float>>& expected, const std::string& call) {
          const auto priced = buffer.to_host();
          for (std::size_t i = 0; i < expected.size(); ++i) {
            EXPECT_TRUE(cunum::testing::bit_identical(priced[i], expected[i])) << what << ", " << call << ", option " << i;
          }
        };
        price_and_count(few_batch, stream, results.data(), 1, 0, "the stream's first call");
        expect_prices(results, expected_few, "the stream's first call");
        price_and_count(few_batch, stream, results.data(), 0, 0, "the same call again");
        expect_prices(results, expected_few, "the same call again");
        price_and_count(more_batch, stream, results.data(), 1, 1, "a call that needs more");
        expect_prices(results, expected_more, "a call that needs more");
        price_and_count(few_batch, stream, results.data(), 0, 0, "a smaller call after it");
        expect_prices(results, expected_few, "a smaller call after it");
        price_and_count(few_batch, other, on_other.data(), 1, 0, "another stream's first call");
        expect_prices(on_other, expected_few, "another stream's first call");
      }
      cunum::synchronize(stream);
      EXPECT_EQ(resource.deallocations.load(), resource.allocations.load()) << what;
    }
  }
}

// Every way of folding a call's chunk sums gives the same bits: a one-device call of
// at most 2^20 paths in all folds them in its path launch (the warp of an option's
// only chunk finishes it at once; else the last warp of each unit of 256 folds it),
// a larger one and a pricer with two entries on the same device through the folding
// and finishing kernels. In one launch: 5 options of 1,024 paths (one chunk each), 11
// of 20,002 (20 chunks, the last short: the MPI suite's case), 4 of 2^18 (128 to 256 chunks: no folding level) and one of 2^20 (512 or 1,024: one
// level); one of 2^26 after it; plain and full sums; and multi-asset options with
// each asset's Greeks (the other path kernel), one of 2^20 paths and 4 of 2^18.
TYPED_TEST(MonteCarloGpu, OneLaunchFoldsAsTheLaunchChainDoes) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  const int device = cunum::current_device();
  cunum::Placement chain(Backend::cuda);
  chain.devices = {device, device};
  struct Call {
    std::int64_t paths;
    std::size_t options;
  };
  for (const Call call : {Call{1024, 5}, Call{20002, 11}, Call{std::int64_t{1} << 18, 4},
                          Call{std::int64_t{1} << 20, 1}, Call{std::int64_t{1} << 26, 1}}) {
    for (const bool control : {false, true}) {
      MonteCarloSettings s;
      s.paths = call.paths;
      s.control_variate = control;
      s.greeks = control;
      s.seed = cunum::testing::fresh_seed();
      const auto options = options_for<T>(MonteCarloPayoff::european, call.options);
      const auto one = device_price(MonteCarloPricer<T>(s, Backend::cuda), options);
      const auto folded_apart = device_price(MonteCarloPricer<T>(s, chain), options);
      for (std::size_t i = 0; i < options.size(); ++i) {
        EXPECT_TRUE(cunum::testing::bit_identical(one[i], folded_apart[i]))
            << call.paths << " paths" << (control ? ", full sums" : "") << ", option " << i;
      }
    }
  }
  for (const Call call : {Call{std::int64_t{1} << 20, 1}, Call{std::int64_t{1} << 18, 4}}) {
    MonteCarloSettings s;
    s.payoff = MonteCarloPayoff::basket;
    s.assets = 3;
    s.paths = call.paths;
    s.greeks = true;
    s.seed = cunum::testing::fresh_seed();
    std::vector<cunum::MonteCarloBasketOption<T>> options(call.options);
    for (auto& o : options) {
      for (int j = 0; j < s.assets; ++j) o.assets.push_back({T(95 + 5 * j), T(0.01), T(0.2 + 0.05 * j), T(1.0 / 3)});
      o.strike = T(100);
      o.expiry = T(1);
      o.rate = T(0.03);
    }
    std::vector<cunum::MonteCarloAssetGreeks<T>> greeks_one, greeks_chain;
    const auto one = MonteCarloPricer<T>(s, Backend::cuda).price(options, greeks_one);
    const auto folded_apart = MonteCarloPricer<T>(s, chain).price(options, greeks_chain);
    for (std::size_t i = 0; i < options.size(); ++i) {
      EXPECT_TRUE(cunum::testing::bit_identical(one[i], folded_apart[i])) << call.paths << " paths, basket option " << i;
    }
    ASSERT_EQ(greeks_one.size(), greeks_chain.size());
    for (std::size_t i = 0; i < greeks_one.size(); ++i) {
      EXPECT_TRUE(cunum::testing::bit_identical(greeks_one[i], greeks_chain[i]))
          << call.paths << " paths, asset Greeks " << i;
    }
  }
}

// The chunk sums a call would keep are held to the home device's total memory, which
// the pricer asks for once, at construction: 63 options of 2^40 paths with a control
// variate (63 x 2^27 chunks of 9 sums) are refused with out_of_memory naming the
// device, before anything is allocated or written.
TEST(MonteCarloGpuValidation, ChunkSumsPastTheDeviceAreRefusedBeforeAllocating) {
  CUNUM_REQUIRE_GPU();
  const std::uint64_t need = 608811614208ULL;
  std::size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  if (total_bytes >= need) GTEST_SKIP() << "this device's " << total_bytes << " bytes would hold the chunk sums";
  MonteCarloSettings s;
  s.paths = std::int64_t{1} << 40;
  s.control_variate = true;
  const cunum::Stream stream;
  cunum::testing::CountingResource resource;
  const MonteCarloPricer<float> pricer(s, cunum::testing::cuda_placement(stream, &resource));
  const auto batch = pricer.load(options_for<float>(MonteCarloPayoff::european, 63));
  DeviceBuffer<MonteCarloEstimate<float>> results(63, stream);
  results.fill_bytes_async(0xFF);
  const int before = resource.allocations.load();
  EXPECT_CUNUM_ERROR(pricer.price(batch, results.data(), stream), ErrorCode::out_of_memory,
                     "cunum::MonteCarloPricer::price: needs 608811614208 bytes for the chunk sums of 63 options");
  EXPECT_CUNUM_ERROR(pricer.price(batch, results.data(), stream), ErrorCode::out_of_memory,
                     "of the total memory of CUDA device " + std::to_string(cunum::current_device()));
  EXPECT_EQ(resource.allocations.load(), before);
  expect_untouched(results);
}

// Every device allocation, refused in turn by an exhausted placement.device_memory:
// the constructor (sobol_bridge's bridge and tables), load(), price() into caller
// memory and the host-vector price() are out_of_memory naming the routine called,
// give back what they were served, and write no result.
TEST(MonteCarloGpuPlacement, AnExhaustedResourceIsOutOfMemoryNamingTheRoutine) {
  CUNUM_REQUIRE_GPU();
  using cunum::testing::cuda_placement;
  using cunum::testing::ExhaustibleResource;
  const cunum::Stream stream;
  const auto options = options_for<float>(MonteCarloPayoff::asian_arithmetic, 5);
  DeviceBuffer<MonteCarloEstimate<float>> results(options.size(), stream);
  for (const cunum::MonteCarloSource source : {cunum::MonteCarloSource::philox4x32_10, cunum::MonteCarloSource::sobol_bridge}) {
    SCOPED_TRACE(to_string(source));
    MonteCarloSettings s;
    s.payoff = MonteCarloPayoff::asian_arithmetic;
    s.time_steps = 8;
    s.paths = 1 << 16;
    s.source = source;
    if (source == cunum::MonteCarloSource::sobol_bridge) {
      cunum::testing::expect_out_of_memory_at_each_allocation(
          "cunum::MonteCarloPricer", [&](ExhaustibleResource* resource) {
            resource->arm();
            const MonteCarloPricer<float> pricer(s, cuda_placement(stream, resource));
          });
    }
    cunum::testing::expect_out_of_memory_at_each_allocation(
        "cunum::MonteCarloPricer::load", [&](ExhaustibleResource* resource) {
          const MonteCarloPricer<float> pricer(s, cuda_placement(stream, resource));
          resource->arm();
          pricer.load(options);
        });
    cunum::testing::expect_out_of_memory_at_each_allocation(
        "cunum::MonteCarloPricer::price",
        [&](ExhaustibleResource* resource) {
          const MonteCarloPricer<float> pricer(s, cuda_placement(stream, resource));
          const auto batch = pricer.load(options);
          results.fill_bytes_async(0xFF);
          resource->arm();
          pricer.price(batch, results.data(), stream);
        },
        [&] { expect_untouched(results); });
    cunum::testing::expect_out_of_memory_at_each_allocation(
        "cunum::MonteCarloPricer::price", [&](ExhaustibleResource* resource) {
          const MonteCarloPricer<float> pricer(s, cuda_placement(stream, resource));
          resource->arm();
          pricer.price(options);
        });
  }
}

// A pricer made on device 0 refuses load() and price() made with device 1 current,
// writing nothing.
TEST(MonteCarloGpuPlacement, CallsWithAnotherDeviceCurrentAreRefused) {
  CUNUM_REQUIRE_GPUS(2);
  const cunum::testing::ScopedCurrentDevice on_device_0(0);
  MonteCarloSettings s;
  s.payoff = MonteCarloPayoff::european;
  s.paths = 1 << 12;
  const MonteCarloPricer<double> pricer(s, Backend::cuda);
  const auto options = options_for<double>(MonteCarloPayoff::european, 3);
  const auto batch = pricer.load(options);
  DeviceBuffer<MonteCarloEstimate<double>> results(options.size());
  results.fill_bytes_async(0xFF);
  {
    const cunum::testing::ScopedCurrentDevice on_device_1(1);
    EXPECT_CUNUM_ERROR(pricer.load(options), ErrorCode::invalid_argument,
                       std::string("cunum::MonteCarloPricer::load: ") + cunum::testing::kMadeForDevice0);
    EXPECT_CUNUM_ERROR(pricer.price(batch, results.data()), ErrorCode::invalid_argument,
                       std::string("cunum::MonteCarloPricer::price: ") + cunum::testing::kMadeForDevice0);
    // The host-vector price too, whatever it stages first.
    EXPECT_CUNUM_ERROR(pricer.price(options), ErrorCode::invalid_argument, cunum::testing::kMadeForDevice0);
  }
  expect_untouched(results);
}

}  // namespace
