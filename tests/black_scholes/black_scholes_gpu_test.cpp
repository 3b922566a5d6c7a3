// CUDA backend of BlackScholesPricer against the CPU backend: fresh random inputs at
// awkward sizes, poisoned outputs, only requested outputs written, implied
// volatility with its rejected count (and over its whole domain against mpmath and the
// CPU backend), and pointer kinds refused at the boundary.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "black_scholes_grid.hpp"
#include "black_scholes_oracle.hpp"
#include "implied_volatility_oracle.hpp"
#include "cunum/black_scholes.hpp"
#include "cunum/core/device_buffer.hpp"
#include "cunum/core/stream.hpp"
#include "cunum/core/value_types.hpp"
#include "test_support.hpp"

namespace {

using namespace cunum::testing::black_scholes_names;
using cunum::DeviceBuffer;

// The device's erfc/exp/log may differ from the host's in the last bits; outputs are
// compared relative to max(1, |value|) (spot and strike are 50 to 150).
template <class T>
double tolerance() {
  return std::is_same_v<T, float> ? 1e-4 : 1e-12;
}

template <class T>
bool close(T gpu, T cpu) {
  if (std::isnan(cpu)) return std::isnan(gpu);
  if (std::isinf(cpu)) return gpu == cpu;
  const double scale = std::max(1.0, std::fabs(static_cast<double>(cpu)));
  return std::fabs(static_cast<double>(gpu) - static_cast<double>(cpu)) <= tolerance<T>() * scale;
}

template <class T>
struct Inputs {
  std::vector<T> s, k, t, r, q, v;
};

template <class T>
Inputs<T> random_inputs(std::int64_t n, std::uint64_t stream_id) {
  std::mt19937_64 engine(cunum::testing::fresh_seed() ^ (stream_id * 0x9E3779B97F4A7C15ull));
  std::uniform_real_distribution<double> u(0, 1);
  Inputs<T> in;
  for (std::int64_t i = 0; i < n; ++i) {
    in.s.push_back(static_cast<T>(50 + 100 * u(engine)));
    in.k.push_back(static_cast<T>(50 + 100 * u(engine)));
    in.t.push_back(static_cast<T>(1.0 / 365 + 10 * u(engine)));
    in.r.push_back(static_cast<T>(-0.02 + 0.12 * u(engine)));
    in.q.push_back(static_cast<T>(-0.02 + 0.12 * u(engine)));
    in.v.push_back(static_cast<T>(0.01 + 2 * u(engine)));
  }
  if (n > 3) {  // a few invalid elements and limits
    in.s[1] = static_cast<T>(-1);
    in.t[2] = 0;
    in.v[3] = std::numeric_limits<T>::quiet_NaN();
  }
  return in;
}

template <class T>
class BlackScholesGpu : public ::testing::Test {};
TYPED_TEST_SUITE(BlackScholesGpu, ::testing::Types<CUNUM_REAL_TYPES>);

TYPED_TEST(BlackScholesGpu, PricesMatchCpuBackendAtAwkwardSizes) {
  using T = TypeParam;
  CUNUM_REQUIRE_GPU();
  const BlackScholesOutputs wanted{BlackScholesOutput::call,     BlackScholesOutput::put,
                                   BlackScholesOutput::delta_call, BlackScholesOutput::gamma,
                                   BlackScholesOutput::vega,     BlackScholesOutput::theta_put,
                                   BlackScholesOutput::rho_call, BlackScholesOutput::forward};
  const BlackScholesPricer<T> gpu(wanted, Backend::cuda);
  const BlackScholesPricer<T> cpu(wanted, Backend::cpu);
  for (std::int64_t n : cunum::testing::awkward_sizes()) {
    if (n > 262147) continue;
    for (bool per_option : {false, true}) {
      const Inputs<T> in = random_inputs<T>(n, static_cast<std::uint64_t>(n) * 2 + per_option);
      BlackScholesMarket<T> host_market, device_market;
      host_market.rates.rate = device_market.rates.rate = static_cast<T>(0.03);
      host_market.rates.dividend = device_market.rates.dividend = static_cast<T>(0.01);
      host_market.volatility = device_market.volatility = static_cast<T>(0.25);
      const auto ds = DeviceBuffer<T>::from_host(in.s), dk = DeviceBuffer<T>::from_host(in.k),
                 dt = DeviceBuffer<T>::from_host(in.t), dr = DeviceBuffer<T>::from_host(in.r),
                 dq = DeviceBuffer<T>::from_host(in.q), dv = DeviceBuffer<T>::from_host(in.v);
      if (per_option) {
        host_market.rates.rates = in.r.data();
        host_market.rates.dividends = in.q.data();
        host_market.volatilities = in.v.data();
        device_market.rates.rates = dr.data();
        device_market.rates.dividends = dq.data();
        device_market.volatilities = dv.data();
      }
      std::vector<DeviceBuffer<T>> outputs;
      BlackScholesResults<T> results;
      for (BlackScholesOutput output : cunum::BlackScholesOutputValues::all) {
        outputs.emplace_back(static_cast<std::size_t>(n + 1));
        outputs.back().fill_bytes_async(0xFF);  // NaN pattern: a forgotten element fails
        results[output] = outputs.back().data();
      }
      gpu.price(n, ds.data(), dk.data(), dt.data(), device_market, results);
      const auto reference = cpu.price(in.s, in.k, in.t, host_market);
      for (BlackScholesOutput output : cunum::BlackScholesOutputValues::all) {
        const std::vector<T> got = outputs[static_cast<int>(output)].to_host();
        const std::vector<T>& expected = reference[output];
        for (std::int64_t i = 0; i < n; ++i) {
          if (wanted.contains(output)) {
            ASSERT_TRUE(close(got[i], expected[i]))
                << to_string(output) << " n " << n << " i " << i << ": " << got[i] << " vs " << expected[i];
          } else {
            unsigned char bytes[sizeof(T)];
            std::memcpy(bytes, &got[i], sizeof(T));
            for (unsigned char b : bytes) ASSERT_EQ(b, 0xFF) << "unrequested output written";
          }
        }
        unsigned char tail[sizeof(T)];
        std::memcpy(tail, &got[n], sizeof(T));
        for (unsigned char b : tail) ASSERT_EQ(b, 0xFF) << "written past the end";
      }
    }
  }
}

// Both price kernels against the CPU backend: subsets of {call, put, discount} (the
// prices-only kernel) and subsets with Greeks (the kernel of every output); a scalar
// market without dividends (q the constant 0 on the device), with dividends, and
// per-option; awkward sizes (the last options after whole vectors, one by one); every
// array aligned (float: four options a vector load and store) and every array one
// element past alignment (one by one throughout). Outputs poisoned first: nothing
// unrequested, before or past the options is written.
TYPED_TEST(BlackScholesGpu, PricesAndGreeksMatchCpuBackendForEveryMarketAndAlignment) {
  using T = TypeParam;
  CUNUM_REQUIRE_GPU();
  const BlackScholesOutputs subsets[] = {
      {BlackScholesOutput::call, BlackScholesOutput::put},
      {BlackScholesOutput::call},
      {BlackScholesOutput::put, BlackScholesOutput::discount},
      {BlackScholesOutput::call, BlackScholesOutput::put, BlackScholesOutput::discount},
      {BlackScholesOutput::delta_put, BlackScholesOutput::gamma, BlackScholesOutput::theta_call,
       BlackScholesOutput::rho_put, BlackScholesOutput::forward},
      BlackScholesOutputs::all()};
  enum class Market { no_dividend, dividend, per_option };
  int subset_index = 0;
  for (const BlackScholesOutputs& wanted : subsets) {
    const BlackScholesPricer<T> gpu(wanted, Backend::cuda);
    const BlackScholesPricer<T> cpu(wanted, Backend::cpu);
    for (std::int64_t n : {1, 3, 4, 5, 7, 1021, 65537}) {
      for (Market kind : {Market::no_dividend, Market::dividend, Market::per_option}) {
        for (std::int64_t offset : {0, 1}) {
          const Inputs<T> in = random_inputs<T>(n, static_cast<std::uint64_t>(n) * 8 + subset_index * 2 + offset);
          BlackScholesMarket<T> host_market;
          host_market.rates.rate = static_cast<T>(0.03);
          host_market.rates.dividend = static_cast<T>(kind == Market::no_dividend ? 0.0 : 0.01);
          host_market.volatility = static_cast<T>(0.25);
          // Every array offset elements into its buffer.
          const auto device = [&](const std::vector<T>& host) {
            std::vector<T> shifted(static_cast<std::size_t>(offset), T(0));
            shifted.insert(shifted.end(), host.begin(), host.end());
            return DeviceBuffer<T>::from_host(shifted);
          };
          const auto ds = device(in.s), dk = device(in.k), dt = device(in.t), dr = device(in.r), dq = device(in.q),
                     dv = device(in.v);
          BlackScholesMarket<T> device_market = host_market;
          if (kind == Market::per_option) {
            host_market.rates.rates = in.r.data();
            host_market.rates.dividends = in.q.data();
            host_market.volatilities = in.v.data();
            device_market.rates.rates = dr.data() + offset;
            device_market.rates.dividends = dq.data() + offset;
            device_market.volatilities = dv.data() + offset;
          }
          std::vector<DeviceBuffer<T>> outputs;
          BlackScholesResults<T> results;
          for (BlackScholesOutput output : cunum::BlackScholesOutputValues::all) {
            outputs.emplace_back(static_cast<std::size_t>(offset + n + 1));
            outputs.back().fill_bytes_async(0xFF);
            results[output] = outputs.back().data() + offset;
          }
          gpu.price(n, ds.data() + offset, dk.data() + offset, dt.data() + offset, device_market, results);
          const auto reference = cpu.price(in.s, in.k, in.t, host_market);
          for (BlackScholesOutput output : cunum::BlackScholesOutputValues::all) {
            const std::vector<T> got = outputs[static_cast<int>(output)].to_host();
            for (std::int64_t j = 0; j < offset + n + 1; ++j) {
              const std::int64_t i = j - offset;
              if (wanted.contains(output) && i >= 0 && i < n) {
                ASSERT_TRUE(close(got[j], reference[output][i]))
                    << to_string(output) << " n " << n << " offset " << offset << " market " << static_cast<int>(kind)
                    << " i " << i << ": " << got[j] << " vs " << reference[output][i];
              } else {
                unsigned char bytes[sizeof(T)];
                std::memcpy(bytes, &got[j], sizeof(T));
                for (unsigned char b : bytes) {
                  ASSERT_EQ(b, 0xFF) << to_string(output) << " n " << n << " offset " << offset << " element " << j
                                     << " written";
                }
              }
            }
          }
        }
      }
    }
    ++subset_index;
  }
}

// Options whose magnitudes leave the normal numbers (the kernels' other path: a
// subnormal or huge strike or spot, a subnormal expiry or total volatility) against the
// CPU backend, prices and every Greek, each output relative to its own size.
TYPED_TEST(BlackScholesGpu, ExtremeMagnitudesMatchCpuBackend) {
  using T = TypeParam;
  CUNUM_REQUIRE_GPU();
  const std::vector<cunum::testing::BlackScholesExtremeCase<T>> cases = cunum::testing::black_scholes_extreme_cases<T>();
  Inputs<T> in;
  for (const auto& c : cases) {
    in.s.push_back(c.spot);
    in.k.push_back(c.strike);
    in.t.push_back(c.expiry);
    in.r.push_back(c.rate);
    in.q.push_back(c.dividend);
    in.v.push_back(c.volatility);
  }
  const auto n = static_cast<std::int64_t>(cases.size());
  BlackScholesMarket<T> host_market;
  host_market.rates.rates = in.r.data();
  host_market.rates.dividends = in.q.data();
  host_market.volatilities = in.v.data();
  for (const BlackScholesOutputs wanted :
       {BlackScholesOutputs::all(),
        BlackScholesOutputs{BlackScholesOutput::call, BlackScholesOutput::put, BlackScholesOutput::discount}}) {
    const auto expected = BlackScholesPricer<T>(wanted, Backend::cpu).price(in.s, in.k, in.t, host_market);
    BlackScholesMarket<T> device_market;
    const auto dr = DeviceBuffer<T>::from_host(in.r), dq = DeviceBuffer<T>::from_host(in.q),
               dv = DeviceBuffer<T>::from_host(in.v);
    device_market.rates.rates = dr.data();
    device_market.rates.dividends = dq.data();
    device_market.volatilities = dv.data();
    const auto ds = DeviceBuffer<T>::from_host(in.s), dk = DeviceBuffer<T>::from_host(in.k),
               dt = DeviceBuffer<T>::from_host(in.t);
    std::vector<DeviceBuffer<T>> outputs;
    BlackScholesResults<T> results;
    for (BlackScholesOutput output : cunum::BlackScholesOutputValues::all) {
      if (!wanted.contains(output)) continue;
      outputs.emplace_back(static_cast<std::size_t>(n));
      results[output] = outputs.back().data();
    }
    BlackScholesPricer<T>(wanted, Backend::cuda).price(n, ds.data(), dk.data(), dt.data(), device_market, results);
    std::size_t buffer = 0;
    for (BlackScholesOutput output : cunum::BlackScholesOutputValues::all) {
      if (!wanted.contains(output)) continue;
      const std::vector<T> got = outputs[buffer++].to_host();
      for (std::int64_t i = 0; i < n; ++i) {
        const double g = got[i], e = expected[output][i];
        const double allowed = 1e3 * std::numeric_limits<T>::epsilon() * std::fabs(e) + std::numeric_limits<T>::min();
        EXPECT_TRUE((std::isnan(g) && std::isnan(e)) || g == e || std::fabs(g - e) <= allowed)
            << to_string(output) << " " << cases[i].name << ": " << g << " vs " << e;
      }
    }
  }
}

// Calls on random inputs whose prices sit away from the no-arbitrage bounds, so that no
// element sits within a rounding of a bound where the two backends' last bits could
// classify it apart (strikes at or above spot, T in [0.05, 2.05], sigma in
// [0.05, 1.05]); elements 1-3 stay invalid and element 5, if any, is priced below its
// intrinsic value (rejected).
template <class T>
struct ImpliedVolCase {
  Inputs<T> in;
  BlackScholesMarket<T> market;
  std::vector<T> prices, vega;
};

template <class T>
ImpliedVolCase<T> implied_vol_case(std::int64_t n, std::uint64_t stream_id) {
  ImpliedVolCase<T> c{random_inputs<T>(n, stream_id), {}, {}, {}};
  Inputs<T>& in = c.in;
  for (std::int64_t i = 4; i < n; ++i) {
    in.k[i] = in.s[i] * static_cast<T>(1 + std::fmod(static_cast<double>(in.k[i]), 1.0));
    in.t[i] = static_cast<T>(0.05 + std::fmod(static_cast<double>(in.t[i]), 2.0));
    in.v[i] = static_cast<T>(0.05 + std::fmod(static_cast<double>(in.v[i]), 1.0));
  }
  c.market.rates.rates = in.r.data();
  c.market.rates.dividends = in.q.data();
  c.market.volatilities = in.v.data();
  const BlackScholesPricer<T> cpu({BlackScholesOutput::call, BlackScholesOutput::vega}, Backend::cpu);
  const auto priced = cpu.price(in.s, in.k, in.t, c.market);
  c.prices = priced.call;
  c.vega = priced.vega;
  if (n > 5) c.prices[5] = static_cast<T>(-1);
  return c;
}

// sigma moves by p / (sigma vega) times the price's rounding: compares where that
// factor is at most 100 (relative) and the price has its full precision (a subnormal
// price, deep out of the money, carries no volatility), and NaN-ness everywhere.
template <class T>
void expect_implied_vols_match(const ImpliedVolCase<T>& c, const std::vector<T>& got,
                               const std::vector<T>& expected) {
  const double relative = std::is_same_v<T, float> ? 1e-4 : 1e-11;
  const T smallest_full_precision = std::numeric_limits<T>::min() / std::numeric_limits<T>::epsilon();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(std::isnan(got[i]), std::isnan(expected[i])) << "n " << expected.size() << " i " << i;
    const double sigma = expected[i];
    if (std::isnan(sigma) || !(c.vega[i] * sigma >= 1e-2 * c.prices[i]) ||
        !(c.prices[i] >= smallest_full_precision)) {
      continue;
    }
    ASSERT_NEAR(got[i], sigma, relative * sigma) << "n " << expected.size() << " i " << i << ": " << got[i]
                                                 << " vs " << sigma;
  }
}

// Every output against the mpmath oracle, and the implied volatility round trip on its
// options, held to the CPU backend's bounds (black_scholes_oracle.hpp).
TYPED_TEST(BlackScholesGpu, EveryOutputMatchesTheOracle) {
  CUNUM_REQUIRE_GPU();
  cunum::testing::expect_pricer_matches_oracle<TypeParam>(Backend::cuda, "cuda");
}

TEST(BlackScholesGpuOracle, ImpliedVolatilityRoundTrip) {
  CUNUM_REQUIRE_GPU();
  cunum::testing::expect_implied_volatility_round_trip(Backend::cuda, "cuda");
}

TYPED_TEST(BlackScholesGpu, ImpliedVolatilityMatchesCpuBackend) {
  using T = TypeParam;
  CUNUM_REQUIRE_GPU();
  const BlackScholesPricer<T> gpu(BlackScholesOutputs{}, Backend::cuda);
  const BlackScholesPricer<T> cpu(BlackScholesOutputs{}, Backend::cpu);
  for (std::int64_t n : {1, 31, 1021, 65537}) {
    const ImpliedVolCase<T> c = implied_vol_case<T>(n, static_cast<std::uint64_t>(n) + 17);
    const auto expected = cpu.implied_volatility(c.prices, c.in.s, c.in.k, c.in.t, c.market.rates, OptionType::call);
    const auto got = gpu.implied_volatility(c.prices, c.in.s, c.in.k, c.in.t, c.market.rates, OptionType::call);
    EXPECT_EQ(got.rejected, expected.rejected) << "n " << n;
    expect_implied_vols_match(c, got.volatility, expected.volatility);
  }
}

// Implied volatilities over the whole domain against mpmath (implied_volatility_oracle.hpp).
TYPED_TEST(BlackScholesGpu, ImpliedVolatilityMatchesTheOracle) {
  CUNUM_REQUIRE_GPU();
  cunum::testing::expect_implied_volatility_matches_oracle<TypeParam>(Backend::cuda, "cuda");
}

// The oracle's options (every region of the initial guess, calls and puts, in and out of
// the money) repeated in a scrambled order to awkward sizes, so that every warp mixes
// regions and the last warp is partial: the CUDA backend against the CPU backend, option
// by option, where the price carries sigma (kappa u <= 1e-3), within 64 u (1 + kappa)
// (the device's exp, log and erf differ from the host's in the last bits).
TYPED_TEST(BlackScholesGpu, ImpliedVolatilityOverTheWholeDomainMatchesCpuBackendAtAwkwardSizes) {
  using T = TypeParam;
  CUNUM_REQUIRE_GPU();
  const std::vector<cunum::testing::ImpliedOracleRow> rows = cunum::testing::read_implied_volatility_oracle();
  const BlackScholesPricer<T> gpu(BlackScholesOutputs{}, Backend::cuda);
  const BlackScholesPricer<T> cpu(BlackScholesOutputs{}, Backend::cpu);
  const double u = std::numeric_limits<T>::epsilon() / 2;
  for (OptionType type : {OptionType::call, OptionType::put}) {
    const auto oracle = cunum::testing::implied_oracle_batch<T>(rows, type);
    const std::size_t m = oracle.rows.size();
    ASSERT_GT(m, 0u);
    for (std::int64_t n : {1, 33, 1021, 65537}) {
      cunum::testing::ImpliedOracleBatch<T> b;
      for (std::int64_t i = 0; i < n; ++i) {
        const std::size_t j = static_cast<std::size_t>(i * 7919) % m;  // 7919 is prime: every row, scrambled
        b.rows.push_back(oracle.rows[j]);
        b.price.push_back(oracle.price[j]);
        b.spot.push_back(oracle.spot[j]);
        b.strike.push_back(oracle.strike[j]);
        b.expiry.push_back(oracle.expiry[j]);
        b.rate.push_back(oracle.rate[j]);
        b.dividend.push_back(oracle.dividend[j]);
      }
      const auto expected = cpu.implied_volatility(b.price, b.spot, b.strike, b.expiry, b.rates(), type);
      const auto got = gpu.implied_volatility(b.price, b.spot, b.strike, b.expiry, b.rates(), type);
      ASSERT_EQ(got.volatility.size(), static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        const auto& row = *b.rows[i];
        if (std::isnan(row.volatility) || !(row.kappa * u <= 1e-3)) continue;
        const double c = expected.volatility[i], g = got.volatility[i];
        ASSERT_LE(std::fabs(g - c), 64 * u * (1 + row.kappa) * c)
            << to_string(type) << " n " << n << " i " << i << ": S " << row.spot << " K " << row.strike << " T "
            << row.expiry << " price " << row.price << ": cuda " << g << " cpu " << c;
      }
    }
  }
}

// Past one wave of the kernel's threads, each thread inverts several options in turn:
// every option must be written, poisoned output first.
TYPED_TEST(BlackScholesGpu, ImpliedVolatilityWritesEveryOptionOfLargeBatches) {
  using T = TypeParam;
  CUNUM_REQUIRE_GPU();
  const BlackScholesPricer<T> gpu(BlackScholesOutputs{}, Backend::cuda);
  const BlackScholesPricer<T> cpu(BlackScholesOutputs{}, Backend::cpu);
  for (std::int64_t n : {300007, 1048583}) {
    const ImpliedVolCase<T> c = implied_vol_case<T>(n, static_cast<std::uint64_t>(n) + 29);
    const auto expected = cpu.implied_volatility(c.prices, c.in.s, c.in.k, c.in.t, c.market.rates, OptionType::call);
    const auto size = static_cast<std::size_t>(n);
    const auto prices = DeviceBuffer<T>::from_host(c.prices), s = DeviceBuffer<T>::from_host(c.in.s),
               k = DeviceBuffer<T>::from_host(c.in.k), t = DeviceBuffer<T>::from_host(c.in.t),
               r = DeviceBuffer<T>::from_host(c.in.r), q = DeviceBuffer<T>::from_host(c.in.q);
    DeviceBuffer<T> volatility(size);
    DeviceBuffer<std::int64_t> rejected(1);
    volatility.fill_bytes_async(0x7E);  // a finite value no solution takes
    rejected.fill_bytes_async(0x7E);
    const cunum::BlackScholesRates<T> rates{T(0), T(0), r.data(), q.data()};
    gpu.implied_volatility(n, prices.data(), s.data(), k.data(), t.data(), rates, OptionType::call,
                           volatility.data(), rejected.data());
    const std::vector<T> got = volatility.to_host();
    T poison;
    std::memset(&poison, 0x7E, sizeof poison);
    for (std::size_t i = 0; i < size; ++i) ASSERT_NE(got[i], poison) << "n " << n << ": option " << i << " unwritten";
    std::int64_t device_rejected = 0;
    rejected.copy_to_host(&device_rejected, 1);
    EXPECT_EQ(device_rejected, expected.rejected) << "n " << n;
    expect_implied_vols_match(c, got, expected.volatility);
  }
}

// The plan-object contract (cunum/core/placement.hpp): a CUDA pricer allocates
// nothing itself; its host-vector conveniences copy through memory from the
// placement's resource, on the placement's stream, and give it all back.
TEST(BlackScholesGpuBoundary, HostConveniencesAllocateFromThePlacementsResource) {
  CUNUM_REQUIRE_GPU();
  cunum::Stream stream;
  cunum::testing::CountingResource resource;
  cunum::Placement placement(Backend::cuda, stream);
  placement.device_memory = &resource;
  const std::vector<double> spot{90.0, 100.0, 110.0}, strike(3, 100.0), expiry(3, 1.0);
  BlackScholesMarket<double> market;
  market.rates.rate = 0.03;
  market.volatility = 0.2;
  const BlackScholesOutputs outputs{BlackScholesOutput::call, BlackScholesOutput::put};
  const auto expected = BlackScholesPricer<double>(outputs, Backend::cpu).price(spot, strike, expiry, market);
  {
    const BlackScholesPricer<double> gpu(outputs, placement);
    EXPECT_EQ(resource.allocations.load(), 0) << "the pricer itself allocates nothing";
    const cunum::Placement& resolved = gpu.placement();
    EXPECT_EQ(resolved.backend, Backend::cuda);
    EXPECT_EQ(resolved.devices, std::vector<int>{cunum::current_device()});
    EXPECT_EQ(resolved.stream, stream.get());
    EXPECT_EQ(resolved.device_memory, &resource);

    const auto got = gpu.price(spot, strike, expiry, market);
    const int priced = resource.allocations.load();
    EXPECT_GT(priced, 0) << "the price convenience's copies";
    for (std::size_t i = 0; i < spot.size(); ++i) {
      EXPECT_NEAR(got.call[i], expected.call[i], 1e-12 * expected.call[i]);
      EXPECT_NEAR(got.put[i], expected.put[i], 1e-12 * expected.put[i]);
    }
    const auto implied = gpu.implied_volatility(expected.call, spot, strike, expiry, market.rates, OptionType::call);
    EXPECT_GT(resource.allocations.load(), priced) << "the implied_volatility convenience's copies";
    EXPECT_EQ(implied.rejected, 0);
    for (double volatility : implied.volatility) EXPECT_NEAR(volatility, 0.2, 1e-8);
  }
  cunum::synchronize(stream);
  EXPECT_EQ(resource.deallocations.load(), resource.allocations.load());
}

// Every device allocation of the host-vector conveniences, refused in turn by an
// exhausted placement.device_memory: out_of_memory naming the routine, everything
// served given back. Per-option market arrays are staged too.
TEST(BlackScholesGpuBoundary, AnExhaustedResourceIsOutOfMemoryNamingTheRoutine) {
  CUNUM_REQUIRE_GPU();
  using cunum::testing::cuda_placement;
  using cunum::testing::ExhaustibleResource;
  cunum::Stream stream;
  const std::vector<double> spot{90.0, 100.0, 110.0}, strike(3, 100.0), expiry(3, 1.0), rates{0.01, 0.02, 0.03};
  BlackScholesMarket<double> market;
  market.rates.rates = rates.data();
  market.volatility = 0.2;
  const BlackScholesOutputs outputs{BlackScholesOutput::call, BlackScholesOutput::put, BlackScholesOutput::vega};
  const auto calls = BlackScholesPricer<double>(outputs, Backend::cpu).price(spot, strike, expiry, market).call;
  cunum::testing::expect_out_of_memory_at_each_allocation(
      "cunum::BlackScholesPricer::price", [&](ExhaustibleResource* resource) {
        const BlackScholesPricer<double> gpu(outputs, cuda_placement(stream, resource));
        resource->arm();
        gpu.price(spot, strike, expiry, market);
      });
  cunum::testing::expect_out_of_memory_at_each_allocation(
      "cunum::BlackScholesPricer::implied_volatility", [&](ExhaustibleResource* resource) {
        const BlackScholesPricer<double> gpu(outputs, cuda_placement(stream, resource));
        resource->arm();
        gpu.implied_volatility(calls, spot, strike, expiry, market.rates, OptionType::call);
      });
}

// A pricer made on device 0 refuses calls made with device 1 current, writing nothing.
TEST(BlackScholesGpuBoundary, CallsWithAnotherDeviceCurrentAreRefused) {
  CUNUM_REQUIRE_GPUS(2);
  const cunum::testing::ScopedCurrentDevice on_device_0(0);
  const BlackScholesPricer<double> gpu({BlackScholesOutput::call}, Backend::cuda);
  const auto spot = DeviceBuffer<double>::from_host({100.0}), strike = DeviceBuffer<double>::from_host({100.0});
  const auto expiry = DeviceBuffer<double>::from_host({1.0}), price = DeviceBuffer<double>::from_host({10.0});
  DeviceBuffer<double> out(1);
  DeviceBuffer<std::int64_t> rejected(1);
  out.fill_bytes_async(0xFF);
  rejected.fill_bytes_async(0xFF);
  BlackScholesMarket<double> market;
  market.volatility = 0.2;
  BlackScholesResults<double> results;
  results.call = out.data();
  {
    const cunum::testing::ScopedCurrentDevice on_device_1(1);
    EXPECT_CUNUM_ERROR(gpu.price(1, spot.data(), strike.data(), expiry.data(), market, results),
                       cunum::ErrorCode::invalid_argument,
                       std::string("cunum::BlackScholesPricer::price: ") + cunum::testing::kMadeForDevice0);
    EXPECT_CUNUM_ERROR(gpu.implied_volatility(1, price.data(), spot.data(), strike.data(), expiry.data(), market.rates,
                                              OptionType::call, out.data(), rejected.data()),
                       cunum::ErrorCode::invalid_argument,
                       std::string("cunum::BlackScholesPricer::implied_volatility: ") +
                           cunum::testing::kMadeForDevice0);
    // The host-vector overloads too, whatever they stage first.
    EXPECT_CUNUM_ERROR(gpu.price({100.0}, {100.0}, {1.0}, market), cunum::ErrorCode::invalid_argument,
                       cunum::testing::kMadeForDevice0);
    EXPECT_CUNUM_ERROR(gpu.implied_volatility({10.0}, {100.0}, {100.0}, {1.0}, market.rates, OptionType::call),
                       cunum::ErrorCode::invalid_argument, cunum::testing::kMadeForDevice0);
  }
  EXPECT_TRUE(std::isnan(out.to_host()[0])) << "the refused call wrote its output";
  EXPECT_EQ(rejected.to_host()[0], -1) << "the refused call wrote its count";
}

// The graph-capture contract: price() and implied_volatility() are captured, and each
// replay writes what the direct calls write, bit for bit (every output, the
// volatilities and the rejected count), into outputs poisoned first.
TYPED_TEST(BlackScholesGpu, PriceAndImpliedVolatilityReplayFromACapturedGraph) {
  using T = TypeParam;
  CUNUM_REQUIRE_GPU();
  const std::int64_t n = 1021;
  const auto size = static_cast<std::size_t>(n);
  const BlackScholesPricer<T> gpu(BlackScholesOutputs::all(), Backend::cuda);
  const ImpliedVolCase<T> c = implied_vol_case<T>(n, 43);
  cunum::Stream stream;
  const auto s = DeviceBuffer<T>::from_host(c.in.s, stream), k = DeviceBuffer<T>::from_host(c.in.k, stream),
             t = DeviceBuffer<T>::from_host(c.in.t, stream), r = DeviceBuffer<T>::from_host(c.in.r, stream),
             q = DeviceBuffer<T>::from_host(c.in.q, stream), v = DeviceBuffer<T>::from_host(c.in.v, stream),
             prices = DeviceBuffer<T>::from_host(c.prices, stream);
  BlackScholesMarket<T> market;
  market.rates.rates = r.data();
  market.rates.dividends = q.data();
  market.volatilities = v.data();
  std::vector<DeviceBuffer<T>> outputs;
  BlackScholesResults<T> results;
  for (BlackScholesOutput output : cunum::BlackScholesOutputValues::all) {
    outputs.emplace_back(size, stream);
    results[output] = outputs.back().data();
  }
  outputs.emplace_back(size, stream);  // the volatilities
  T* volatility = outputs.back().data();
  DeviceBuffer<std::int64_t> rejected(1, stream);
  const auto enqueue = [&] {
    gpu.price(n, s.data(), k.data(), t.data(), market, results, stream);
    gpu.implied_volatility(n, prices.data(), s.data(), k.data(), t.data(), market.rates, OptionType::call, volatility,
                           rejected.data(), stream);
  };
  const auto poison = [&] {
    for (DeviceBuffer<T>& output : outputs) output.fill_bytes_async(0xFF);
    rejected.fill_bytes_async(0xFF);
  };
  const auto read_rejected = [&] {
    std::int64_t count = 0;
    rejected.copy_to_host(&count, 1);
    return count;
  };
  poison();
  enqueue();
  std::vector<std::vector<T>> direct;
  for (const DeviceBuffer<T>& output : outputs) direct.push_back(output.to_host());
  const std::int64_t direct_rejected = read_rejected();
  for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
    SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
    cunum::testing::CapturedGraph graph(stream, mode, enqueue);
    ASSERT_TRUE(graph.ok());
    for (int replay = 0; replay < 2; ++replay) {
      poison();
      graph.launch();
      for (std::size_t o = 0; o < outputs.size(); ++o) {
        cunum::testing::expect_same_bits(outputs[o].to_host(), direct[o],
                                         "output " + std::to_string(o) + ", replay " + std::to_string(replay));
      }
      EXPECT_EQ(read_rejected(), direct_rejected) << "replay " << replay;
    }
  }
}

// The host-vector conveniences copy and wait on the placement's stream, and a pricer
// is made outside captures: each refuses that stream while it is captured.
TEST(BlackScholesGpuBoundary, HostConveniencesRefuseACapturingPlacementStream) {
  CUNUM_REQUIRE_GPU();
  cunum::Stream stream;
  const BlackScholesOutputs outputs{BlackScholesOutput::call};
  const BlackScholesPricer<double> gpu(outputs, {Backend::cuda, stream});
  const std::vector<double> spot{90.0, 100.0}, strike(2, 100.0), expiry(2, 1.0), prices(2, 10.0);
  BlackScholesMarket<double> market;
  market.volatility = 0.2;
  for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
    SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
    cunum::testing::expect_capture_refused(stream, mode,
                                           [&] { BlackScholesPricer<double>(outputs, {Backend::cuda, stream}); });
    cunum::testing::expect_capture_refused(stream, mode, [&] { gpu.price(spot, strike, expiry, market); });
    cunum::testing::expect_capture_refused(
        stream, mode, [&] { gpu.implied_volatility(prices, spot, strike, expiry, market.rates, OptionType::call); });
  }
}

TEST(BlackScholesGpuBoundary, HostPointerRefusedByCudaBackend) {
  CUNUM_REQUIRE_GPU();
  const BlackScholesPricer<double> gpu({BlackScholesOutput::call}, Backend::cuda);
  if (cunum::device_properties().pageable_memory_access) GTEST_SKIP() << "device reads pageable memory";
  std::vector<double> host(8, 1.0);
  DeviceBuffer<double> device(8);
  BlackScholesMarket<double> market;
  market.volatility = 0.2;
  BlackScholesResults<double> results;
  results.call = device.data();
  EXPECT_CUNUM_ERROR(gpu.price(8, host.data(), device.data(), device.data(), market, results),
                     cunum::ErrorCode::invalid_argument, "spot");
  results.call = host.data();
  EXPECT_CUNUM_ERROR(gpu.price(8, device.data(), device.data(), device.data(), market, results),
                     cunum::ErrorCode::invalid_argument, "results.call");
}

// In place on the device: an output over an input array gives the numbers of the
// out-of-place call bit for bit (each thread reads option i before writing it), for
// price() and implied_volatility(); overlap otherwise is refused as on the CPU.
TEST(BlackScholesGpuBoundary, InPlaceEqualsOutOfPlace) {
  CUNUM_REQUIRE_GPU();
  const BlackScholesPricer<double> gpu({BlackScholesOutput::call, BlackScholesOutput::vega}, Backend::cuda);
  const std::int64_t n = 1000;
  std::vector<double> spot(n), strike(n, 100.0), expiry(n, 1.0);
  for (std::int64_t i = 0; i < n; ++i) spot[i] = 50.0 + 0.1 * static_cast<double>(i);
  BlackScholesMarket<double> market;
  market.rates.rate = 0.02;
  market.volatility = 0.3;
  const auto device_spot = DeviceBuffer<double>::from_host(spot), device_strike = DeviceBuffer<double>::from_host(strike);
  const auto device_expiry = DeviceBuffer<double>::from_host(expiry);
  DeviceBuffer<double> call(n), vega(n);
  BlackScholesResults<double> apart;
  apart.call = call.data();
  apart.vega = vega.data();
  gpu.price(n, device_spot.data(), device_strike.data(), device_expiry.data(), market, apart);
  auto s = DeviceBuffer<double>::from_host(spot), t = DeviceBuffer<double>::from_host(expiry);
  BlackScholesResults<double> in_place;
  in_place.call = s.data();
  in_place.vega = t.data();
  gpu.price(n, s.data(), device_strike.data(), t.data(), market, in_place);
  EXPECT_EQ(s.to_host(), call.to_host());
  EXPECT_EQ(t.to_host(), vega.to_host());
  DeviceBuffer<double> volatility(n);
  gpu.implied_volatility(n, call.data(), device_spot.data(), device_strike.data(), device_expiry.data(), market.rates,
                         cunum::OptionType::call, volatility.data());
  gpu.implied_volatility(n, call.data(), device_spot.data(), device_strike.data(), device_expiry.data(), market.rates,
                         cunum::OptionType::call, call.data());
  EXPECT_EQ(call.to_host(), volatility.to_host());
  in_place.call = s.data() + 1;
  EXPECT_CUNUM_ERROR(gpu.price(n - 1, s.data(), device_strike.data(), t.data(), market, in_place),
                     cunum::ErrorCode::invalid_argument, "'results.call' overlaps 'spot'");
}

}  // namespace
