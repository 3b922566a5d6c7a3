// Monte Carlo front end: settings and batch validation at the API boundary, the
// per-option constants, the chunk shape, the placement resolved and the backend
// object made once per pricer (src/monte_carlo/monte_carlo_backends.hpp), and
// forwarding to it. No CUDA calls here: the CUDA backend is
// src/monte_carlo/monte_carlo_cuda.cpp.

#include <cmath>
#include <limits>
#include <string>

#include "cunum/core/device_buffer.hpp"
#include "cunum/core/error.hpp"
#include "src/core/cholesky.hpp"
#include "src/core/enum_functions.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/memory_need.hpp"
#include "src/core/placement.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"
#include "src/monte_carlo/monte_carlo_backends.hpp"
#include "src/monte_carlo/monte_carlo_path.hpp"
#include "src/monte_carlo/monte_carlo_policy.hpp"
#include "src/random/random_internal.hpp"

namespace cunum {

CUNUM_DEFINE_ENUM_FUNCTIONS(MonteCarloPayoff, CUNUM_MONTE_CARLO_PAYOFFS)
CUNUM_DEFINE_ENUM_FUNCTIONS(MonteCarloSource, CUNUM_MONTE_CARLO_SOURCES)

namespace {

constexpr const char* kPricerRoutine = "cunum::MonteCarloPricer";
constexpr const char* kLoadRoutine = "cunum::MonteCarloPricer::load";
constexpr const char* kPriceRoutine = "cunum::MonteCarloPricer::price";
constexpr const char* kSettingsRoutine = "cunum::MonteCarloPricer::settings";
constexpr const char* kBackendRoutine = "cunum::MonteCarloPricer::backend";
constexpr const char* kPlacementRoutine = "cunum::MonteCarloPricer::placement";
constexpr const char* kChunkPathsRoutine = "cunum::MonteCarloPricer::chunk_paths";
constexpr const char* kCustomRoutine = "cunum::price_with_payoff";
constexpr const char* kGeometricRoutine = "cunum::geometric_asian_price";
constexpr const char* kClassName = "MonteCarloPricer";
constexpr double kLog2E = 1.4426950408889634;

bool one_step(MonteCarloPayoff payoff) {
  return payoff == MonteCarloPayoff::european || payoff == MonteCarloPayoff::digital;
}

bool is_barrier(MonteCarloPayoff payoff) {
  return payoff == MonteCarloPayoff::up_and_out || payoff == MonteCarloPayoff::down_and_out;
}

int dates_of(const MonteCarloSettings& settings) {
  return one_step(settings.payoff) || detail::is_multi_asset(settings.payoff) ? 1 : settings.time_steps;
}

bool quasi(const MonteCarloSettings& settings) { return settings.source == MonteCarloSource::sobol_bridge; }

// Paths a Philox block feeds, times two with antithetic variates; a quasi-random
// path is a group of its own.
template <class T>
std::int64_t group_paths(const MonteCarloSettings& settings) {
  if (quasi(settings)) return 1;
  const std::int64_t mirrors = settings.antithetic ? 2 : 1;
  return detail::is_multi_asset(settings.payoff) ? mirrors : detail::kPathLanes<T> * mirrors;
}

template <class T>
detail::ChunkShape chunk_shape(const MonteCarloSettings& settings) {
  using Policy = detail::MonteCarloChunkPolicy;
  const std::int64_t groups = (settings.paths + group_paths<T>(settings) - 1) / group_paths<T>(settings);
  // MRG32k3a lanes reach their first substream by a skip-ahead of up to 64 table
  // products: its chunks take the most groups a thread, to amortise it.
  const std::int64_t least = settings.source == MonteCarloSource::mrg32k3a ? Policy::max_groups_per_thread
                                                                          : Policy::min_groups_per_thread;
  const std::int64_t groups_per_chunk = Policy::chunk_threads * detail::monte_carlo_groups_per_thread(groups, least);
  return {groups, groups_per_chunk, (groups + groups_per_chunk - 1) / groups_per_chunk,
          settings.antithetic ? settings.paths / 2 : settings.paths};
}

// A pricing call keeps every option's chunk sums at once (chunk-major: host memory on
// the CPU backend, the home device's on CUDA), and an option's chunks grow with its
// paths (2^40 paths make 2^27 chunks): sums past that memory (`capacity`: the
// pricer's, kept from its construction) are refused before anything is allocated or
// enqueued.
template <class T>
void require_chunk_sums_fit(const detail::MonteCarloArgs<T>& args, const detail::MemoryCapacity& capacity,
                            const char* routine) {
  const int sums = detail::sum_count(args);
  const std::int64_t chunks = args.options * args.chunks.chunks;
  detail::require_memory_need(detail::MemoryNeed{}.add(chunks, sums * sizeof(double)), capacity, routine, [&] {
    return "for the chunk sums of " + std::to_string(args.options) + " options (" + std::to_string(chunks) +
           " chunks of " + std::to_string(sums) + " sums each)";
  });
}

// What a group of paths needs of the settings (each asset's Greek sums kept or not).
template <class T>
detail::GroupShape group_shape(const MonteCarloSettings& settings, bool asset_greeks) {
  const detail::ChunkShape chunks = chunk_shape<T>(settings);
  const std::int64_t per_group = group_paths<T>(settings);
  const int last_group_lanes =
      static_cast<int>((settings.paths - (chunks.groups - 1) * per_group) / (settings.antithetic ? 2 : 1));
  return {settings.paths,
          settings.assets,
          static_cast<std::uint64_t>(chunks.groups),
          last_group_lanes,
          dates_of(settings),
          settings.type == OptionType::call,
          settings.antithetic,
          settings.control_variate,
          asset_greeks,
          static_cast<std::uint32_t>(settings.seed),
          static_cast<std::uint32_t>(settings.seed >> 32)};
}

std::string element(std::size_t index, const char* field) {
  return "options[" + std::to_string(index) + "]." + field;
}

void require_option_value(bool condition, std::size_t index, const char* field, const char* problem, double value) {
  if (!condition) {
    detail::throw_invalid_argument(kLoadRoutine, element(index, field).c_str(),
                                   std::string(problem) + ", got " + std::to_string(value));
  }
}

template <class T>
void validate_option(const MonteCarloOption<T>& option, std::size_t i, MonteCarloPayoff payoff) {
  const double values[] = {double(option.spot), double(option.strike), double(option.expiry), double(option.rate),
                           double(option.dividend), double(option.volatility), double(option.barrier)};
  const char* fields[] = {"spot", "strike", "expiry", "rate", "dividend", "volatility", "barrier"};
  for (int f = 0; f < 7; ++f) {
    if (f == 6 && !is_barrier(payoff)) continue;
    require_option_value(std::isfinite(values[f]), i, fields[f], "must be finite", values[f]);
  }
  require_option_value(option.spot > 0, i, "spot", "must be > 0", option.spot);
  if (payoff != MonteCarloPayoff::lookback && payoff != MonteCarloPayoff::custom) {
    require_option_value(option.strike > 0, i, "strike", "must be > 0", option.strike);
  }
  require_option_value(option.expiry > 0, i, "expiry", "must be > 0", option.expiry);
  require_option_value(option.volatility > 0, i, "volatility", "must be > 0", option.volatility);
  if (payoff == MonteCarloPayoff::up_and_out) {
    require_option_value(option.barrier > option.spot, i, "barrier", "must be above the spot for up_and_out",
                         option.barrier);
  } else if (payoff == MonteCarloPayoff::down_and_out) {
    require_option_value(option.barrier < option.spot && option.barrier > 0, i, "barrier",
                         "must be between 0 and the spot for down_and_out", option.barrier);
  }
}

// The geometric Asian's price in double, inputs validated.
double geometric_asian(double spot, double strike, double expiry, double rate, double dividend, double sigma,
                       bool is_call, int dates) {
  const double m = dates;
  const double mean = std::log(spot) + (rate - dividend - 0.5 * sigma * sigma) * expiry * (m + 1) / (2 * m);
  const double variance = sigma * sigma * expiry * (m + 1) * (2 * m + 1) / (6 * m * m);
  const double deviation = std::sqrt(variance);
  const double d1 = (mean - std::log(strike) + variance) / deviation, d2 = d1 - deviation;
  const auto cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  const double forward = std::exp(mean + 0.5 * variance);
  const double undiscounted = is_call ? forward * cdf(d1) - strike * cdf(d2) : strike * cdf(-d2) - forward * cdf(-d1);
  return std::exp(-rate * expiry) * undiscounted;
}

template <class T>
detail::OptionSetup<T> option_setup(const MonteCarloOption<T>& option, const MonteCarloSettings& settings,
                                    std::uint32_t stream) {
  const double spot = option.spot, expiry = option.expiry, rate = option.rate, dividend = option.dividend;
  const double sigma = option.volatility;
  const int dates = dates_of(settings);
  const double dt = expiry / dates;
  const double discount = std::exp(-rate * expiry);
  const double control_mean =
      settings.payoff == MonteCarloPayoff::asian_arithmetic
          ? geometric_asian(spot, option.strike, expiry, rate, dividend, sigma, settings.type == OptionType::call,
                            dates) / discount
          : spot * std::exp((rate - dividend) * expiry);
  const double greek_scale =
      detail::has_likelihood_ratio_greeks(settings.payoff) ? 1.0 / (spot * sigma * dt) : 1.0 / spot;
  detail::OptionSetup<T> setup{};
  setup.spot = option.spot;
  setup.strike = option.strike;
  setup.log2_drift = static_cast<T>((rate - dividend - 0.5 * sigma * sigma) * dt * kLog2E);
  setup.log2_diffusion = static_cast<T>(sigma * std::sqrt(dt) * kLog2E);
  setup.log2_barrier = is_barrier(settings.payoff) ? static_cast<T>(std::log2(double(option.barrier) / spot)) : T(0);
  setup.sqrt_dt = static_cast<T>(std::sqrt(dt));
  setup.sigma_dt = static_cast<T>(sigma * dt);
  setup.greek_scale = static_cast<T>(greek_scale);
  setup.discount = discount;
  setup.control_mean = control_mean;
  setup.volatility = sigma;
  setup.stream = stream;
  return setup;
}

// MRG32k3a's substream skip tables, formed once (128 products of 3x3 matrices).
const std::vector<device::MrgMatrix>& mrg_substream_tables() {
  static const std::vector<device::MrgMatrix> tables = [] {
    std::vector<device::MrgMatrix> t(2 * device::kMrgSubstreamTables);
    device::mrg32k3a_substream_tables(t.data());
    return t;
  }();
  return tables;
}

void require_streams(std::uint64_t first_stream, std::size_t size) {
  const std::uint64_t streams = std::uint64_t{1} << 32;
  detail::require(first_stream < streams && size <= streams - first_stream, kLoadRoutine, "first_stream",
                  [&] { return "+ the batch size must stay <= 2^32 (stream ids are 32-bit), got " + std::to_string(first_stream) +
                      " + " + std::to_string(size); });
}

template <class T>
void validate_basket_option(const MonteCarloBasketOption<T>& option, std::size_t i, int assets) {
  const std::string name = "options[" + std::to_string(i) + "]";
  detail::require(option.assets.size() == static_cast<std::size_t>(assets), kLoadRoutine, (name + ".assets").c_str(),
                  [&] { return "has " + std::to_string(option.assets.size()) + " assets, settings.assets is " +
                      std::to_string(assets); });
  const auto positive = [&](double value, const std::string& field) {
    detail::require(std::isfinite(value) && value > 0, kLoadRoutine, field.c_str(),
                    [&] { return "must be finite and > 0, got " + std::to_string(value); });
  };
  const auto finite = [&](double value, const std::string& field) {
    detail::require_finite(value, kLoadRoutine, field.c_str());
  };
  positive(option.strike, name + ".strike");
  positive(option.expiry, name + ".expiry");
  finite(option.rate, name + ".rate");
  for (std::size_t j = 0; j < option.assets.size(); ++j) {
    const std::string asset = name + ".assets[" + std::to_string(j) + "]";
    positive(option.assets[j].spot, asset + ".spot");
    positive(option.assets[j].volatility, asset + ".volatility");
    finite(option.assets[j].dividend, asset + ".dividend");
    finite(option.assets[j].weight, asset + ".weight");
  }
}

// One setup per asset; the option's control expectation in the first.
template <class T>
void append_basket_setups(const MonteCarloBasketOption<T>& option, const MonteCarloSettings& settings,
                          std::uint32_t stream, std::vector<detail::OptionSetup<T>>& setups) {
  const double expiry = option.expiry, rate = option.rate;
  const bool plain_mean = settings.payoff != MonteCarloPayoff::basket;  // best_of, worst_of: the mean
  double control_mean = 0;
  const std::size_t first = setups.size();
  for (const MonteCarloAsset<T>& asset : option.assets) {
    const double sigma = asset.volatility, weight = plain_mean ? 1.0 / double(option.assets.size()) : double(asset.weight);
    detail::OptionSetup<T> setup{};
    setup.spot = asset.spot;
    setup.strike = option.strike;
    setup.log2_drift = static_cast<T>((rate - asset.dividend - 0.5 * sigma * sigma) * expiry * kLog2E);
    setup.log2_diffusion = static_cast<T>(sigma * std::sqrt(expiry) * kLog2E);
    setup.sqrt_dt = static_cast<T>(std::sqrt(expiry));  // one step: dt = T
    setup.sigma_dt = static_cast<T>(sigma * expiry);
    setup.greek_scale = static_cast<T>(1.0 / double(asset.spot));
    setup.weight = static_cast<T>(weight);
    setup.discount = std::exp(-rate * expiry);
    setup.volatility = sigma;
    setup.stream = stream;
    setups.push_back(setup);
    control_mean += weight * double(asset.spot) * std::exp((rate - asset.dividend) * expiry);
  }
  setups[first].control_mean = control_mean;
}

// The lower Cholesky factor of the assets x assets correlation (identity when empty),
// validated by name.
std::vector<double> correlation_factor(const std::vector<double>& correlation, int assets) {
  const auto n = static_cast<std::size_t>(assets);
  std::vector<double> c = correlation;
  if (c.empty()) {
    c.assign(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) c[i * n + i] = 1.0;
  }
  detail::require(c.size() == n * n, kPricerRoutine, "settings.correlation",
                  [&] { return "has " + std::to_string(c.size()) + " values, expected assets^2 = " + std::to_string(n * n); });
  for (std::size_t i = 0; i < n; ++i) {
    detail::require(c[i * n + i] == 1.0, kPricerRoutine, "settings.correlation",
                    [&] { return "must have a unit diagonal (entry " + std::to_string(i) + " is " + std::to_string(c[i * n + i]) + ")"; });
    for (std::size_t j = 0; j < i; ++j) {
      const double a = c[i * n + j], b = c[j * n + i];
      detail::require(std::isfinite(a) && std::abs(a) <= 1 && std::abs(a - b) <= 1e-12, kPricerRoutine,
                      "settings.correlation",
                      [&] { return "must be symmetric with entries in [-1, 1] (entries (" + std::to_string(i) + ", " +
                          std::to_string(j) + ") and (" + std::to_string(j) + ", " + std::to_string(i) + "))"; });
    }
  }
  std::vector<double> factor;
  const std::ptrdiff_t refused = detail::cholesky_lower(c, n, factor);
  detail::require(refused < 0, kPricerRoutine, "settings.correlation",
                  [&] { return "is not positive definite (leading minor " + std::to_string(refused + 1) + ")"; });
  return factor;
}

}  // namespace

double geometric_asian_price(const MonteCarloOption<double>& option, OptionType type, int time_steps) {
  const detail::RoutineScope scope(kGeometricRoutine);
  detail::require_enum(type, kGeometricRoutine, "type", "OptionType");
  detail::require_at_least(time_steps, 1, kGeometricRoutine, "time_steps");
  const std::pair<const char*, double> checks[] = {{"option.spot", option.spot},       {"option.strike", option.strike},
                                                   {"option.expiry", option.expiry},   {"option.volatility", option.volatility}};
  for (const auto& [name, value] : checks) {
    // A copy for the message: C++17 lambdas may not capture a structured binding (clang++ holds to it).
    const double got = value;
    detail::require(std::isfinite(got) && got > 0, kGeometricRoutine, name,
                    [&] { return "must be finite and > 0, got " + std::to_string(got); });
  }
  detail::require_finite(option.rate, kGeometricRoutine, "option.rate");
  detail::require_finite(option.dividend, kGeometricRoutine, "option.dividend");
  return geometric_asian(option.spot, option.strike, option.expiry, option.rate, option.dividend, option.volatility,
                         type == OptionType::call, time_steps);
}

template <class T>
std::int64_t MonteCarloBatch<T>::size() const noexcept {
  return data_ ? data_->size : 0;
}

template <class T>
std::uint64_t MonteCarloBatch<T>::first_stream() const noexcept {
  return data_ ? data_->first_stream : 0;
}

namespace {

template <class T, class Impl>
MonteCarloBatch<T> make_batch(const Impl& impl, std::vector<detail::OptionSetup<T>> setups, std::int64_t size,
                              std::uint64_t first_stream) {
  const MonteCarloSettings& settings = impl.settings;
  const detail::ChunkShape shape = chunk_shape<T>(settings);
  // The CPU refuses the same batches as the path launch.
  if (!detail::monte_carlo_path_launch_fits(size, shape.chunks)) {
    throw Error(ErrorCode::not_supported, std::string(kLoadRoutine) + ": " + std::to_string(size) + " options x " +
                                              std::to_string(shape.chunks) +
                                              " chunks would exceed the grid limit; price fewer options a call");
  }
  auto data = std::make_shared<typename MonteCarloBatch<T>::Data>();
  data->size = size;
  data->first_stream = first_stream;
  data->backend = impl.placement.backend;
  data->device = impl.backend->device();
  data->payoff = settings.payoff;
  data->dates = dates_of(settings);
  data->host = std::move(setups);
  for (double value : impl.factor) data->host_factor.push_back(static_cast<T>(value));
  if (settings.source == MonteCarloSource::mrg32k3a) {
    data->host_mrg = mrg_substream_tables();
    // Each option's stream: substream stream x 2^32 of the seed's state.
    for (detail::OptionSetup<T>& setup : data->host) {
      setup.mrg_stream = device::mrg32k3a_seeded_state(settings.seed);
      device::mrg32k3a_skip_substreams(setup.mrg_stream, std::uint64_t{setup.stream} << 32, data->host_mrg.data());
    }
  }
  impl.backend->make_resident(*data, group_shape<T>(settings, true), kLoadRoutine);
  return detail::MonteCarloAccess::make_batch<T>(std::move(data));
}

// The host convenience's second half: price a loaded batch into host memory, waiting
// (with each asset's Greeks when asset_greeks is given); CUDA: on the placement's
// stream, into memory from its resource.
template <class T>
std::vector<MonteCarloEstimate<T>> price_loaded(const MonteCarloPricer<T>& pricer, const MonteCarloBatch<T>& batch,
                                                std::vector<MonteCarloAssetGreeks<T>>* asset_greeks = nullptr) {
  const MonteCarloSettings& settings = pricer.settings();
  const Placement& placement = pricer.placement();
  const auto options = static_cast<std::size_t>(batch.size());
  std::vector<MonteCarloEstimate<T>> host(options);
  const bool with_greeks = asset_greeks != nullptr;
  // One spare element, so that the pointer price() checks is never null when asked for.
  std::vector<MonteCarloAssetGreeks<T>> host_greeks(with_greeks ? options * settings.assets + 1 : 0);
  if (placement.backend == Backend::cpu || options == 0) {
    pricer.price(batch, host.data(), with_greeks ? host_greeks.data() : nullptr, nullptr);
  } else {
    DeviceBuffer<MonteCarloEstimate<T>> device(options, placement.stream, placement.device_memory);
    DeviceBuffer<MonteCarloAssetGreeks<T>> device_greeks(host_greeks.size(), placement.stream,
                                                         placement.device_memory);
    pricer.price(batch, device.data(), with_greeks ? device_greeks.data() : nullptr, placement.stream);
    device.copy_to_host(host.data(), host.size());
    device_greeks.copy_to_host(host_greeks.data(), host_greeks.size());
  }
  if (with_greeks) {
    host_greeks.pop_back();
    *asset_greeks = std::move(host_greeks);
  }
  return host;
}

}  // namespace

// The pricer's state: the validated settings, the resolved placement, its chunk shape,
// the correlation's Cholesky factor (multi-asset), the memory its chunk sums may take
// (the home device's total, or the machine's; asked once, not at every call) and the
// backend object made once.
template <class T>
struct MonteCarloPricer<T>::Impl {
  MonteCarloSettings settings;
  Placement placement;
  std::int64_t chunk_paths = 0;
  std::vector<double> factor;
  detail::MemoryCapacity capacity;
  std::unique_ptr<detail::MonteCarloBackend<T>> backend;
};

template <class T>
MonteCarloPricer<T>::MonteCarloPricer(const MonteCarloSettings& settings, const Placement& placement)
    : impl_(std::make_unique<Impl>()) {
  const detail::RoutineScope scope(kPricerRoutine);
  detail::require_enum(settings.payoff, kPricerRoutine, "settings.payoff", "MonteCarloPayoff");
  detail::require_enum(settings.type, kPricerRoutine, "settings.type", "OptionType");
  const std::int64_t paths = settings.paths;
  detail::require_at_least(paths, 2, kPricerRoutine, "settings.paths");
  detail::require(paths <= (std::int64_t{1} << 62), kPricerRoutine, "settings.paths",
                  [&] { return "must be <= 2^62, got " + std::to_string(paths); });
  if (settings.antithetic) {
    detail::require(paths % 2 == 0 && paths >= 4, kPricerRoutine, "settings.paths",
                    [&] { return "must be even and >= 4 with antithetic variates (pairs are the samples), got " +
                        std::to_string(paths); });
  }
  const std::int64_t samples = settings.antithetic ? paths / 2 : paths;
  if (settings.control_variate) {
    detail::require(samples >= 3, kPricerRoutine, "settings.paths",
                    [&] { return "gives " + std::to_string(samples) + " samples; a control variate needs at least 3"; });
  }
  detail::require(settings.time_steps >= 1, kPricerRoutine, "settings.time_steps",
                  [&] { return "must be >= 1, got " + std::to_string(settings.time_steps); });
  detail::require_enum(settings.source, kPricerRoutine, "settings.source", "MonteCarloSource");
  if (detail::is_multi_asset(settings.payoff)) {
    detail::require(settings.assets >= 1 && settings.assets <= detail::kMaxAssets, kPricerRoutine, "settings.assets",
                    [&] { return "must be in 1.." + std::to_string(detail::kMaxAssets) + ", got " + std::to_string(settings.assets); });
    detail::require(!quasi(settings), kPricerRoutine, "settings.source",
                    "sobol_bridge is for the one-asset payoffs");
    impl_->factor = correlation_factor(settings.correlation, settings.assets);
  } else {
    detail::require(settings.assets == 1, kPricerRoutine, "settings.assets",
                    [&] { return "must be 1 for a one-asset payoff, got " + std::to_string(settings.assets); });
    detail::require(settings.correlation.empty(), kPricerRoutine, "settings.correlation",
                    "is for the multi-asset payoffs");
  }
  if (settings.source == MonteCarloSource::mrg32k3a) {
    const std::int64_t groups = (paths + group_paths<T>(settings) - 1) / group_paths<T>(settings);
    detail::require(groups <= (std::int64_t{1} << 32), kPricerRoutine, "settings.paths",
                    [&] { return "gives " + std::to_string(groups) + " groups an option; mrg32k3a gives each its substream, at most 2^32"; });
  }
  if (quasi(settings)) {
    detail::require(!settings.antithetic, kPricerRoutine, "settings.antithetic",
                    "is for pseudo-random sources (sobol_bridge paths are not mirrored)");
    detail::require(placement.devices.size() <= 1, kPricerRoutine, "placement.devices", [&] {
      return "lists " + std::to_string(placement.devices.size()) + " devices, but sobol_bridge runs on one";
    });
    detail::require(paths <= (std::int64_t{1} << 32), kPricerRoutine, "settings.paths",
                    [&] { return "must be <= 2^32 with sobol_bridge (the points of Sobol32), got " + std::to_string(paths); });
    // The bridge draws one Sobol dimension a date: refused here, before the bridge and
    // its buffers are built, rather than by the bridge at price().
    const std::int64_t dates = dates_of(settings);
    if (dates > detail::kMaxSobolDimensions) {
      throw Error(ErrorCode::not_supported,
                  std::string(kPricerRoutine) + ": argument 'settings.time_steps' = " + std::to_string(dates) +
                      " needs " + std::to_string(dates) + " Sobol dimensions with sobol_bridge (one a date); " +
                      "cuRAND's direction vectors cover " + std::to_string(detail::kMaxSobolDimensions));
    }
  }
  impl_->settings = settings;
  impl_->chunk_paths = chunk_shape<T>(settings).groups_per_chunk * group_paths<T>(settings);
  impl_->placement = detail::resolve_placement(placement, detail::DeviceCount::several, kPricerRoutine);
  const detail::PlacementDeviceScope on_device(impl_->placement);
  impl_->capacity = detail::memory_capacity(impl_->placement.backend);
  impl_->backend = impl_->placement.backend == Backend::cuda
                       ? detail::make_monte_carlo_cuda<T>(settings, dates_of(settings), impl_->placement)
                       : detail::make_monte_carlo_cpu<T>(settings, dates_of(settings));
}

template <class T>
MonteCarloPricer<T>::~MonteCarloPricer() = default;
template <class T>
MonteCarloPricer<T>::MonteCarloPricer(MonteCarloPricer&&) noexcept = default;
template <class T>
MonteCarloPricer<T>& MonteCarloPricer<T>::operator=(MonteCarloPricer&&) noexcept = default;

template <class T>
const MonteCarloSettings& MonteCarloPricer<T>::settings() const {
  return detail::require_plan(impl_, kSettingsRoutine, kClassName).settings;
}

template <class T>
Backend MonteCarloPricer<T>::backend() const {
  return detail::require_plan(impl_, kBackendRoutine, kClassName).placement.backend;
}

template <class T>
const Placement& MonteCarloPricer<T>::placement() const {
  return detail::require_plan(impl_, kPlacementRoutine, kClassName).placement;
}

template <class T>
std::int64_t MonteCarloPricer<T>::chunk_paths() const {
  return detail::require_plan(impl_, kChunkPathsRoutine, kClassName).chunk_paths;
}

template <class T>
MonteCarloBatch<T> MonteCarloPricer<T>::load(const std::vector<MonteCarloOption<T>>& options,
                                             std::uint64_t first_stream) const {
  const detail::RoutineScope scope(kLoadRoutine);
  const Impl& impl = detail::require_plan(impl_, kLoadRoutine, kClassName);
  detail::require(!detail::is_multi_asset(impl.settings.payoff), kLoadRoutine, "settings.payoff",
                  "is a multi-asset payoff: load MonteCarloBasketOption values");
  require_streams(first_stream, options.size());
  for (std::size_t i = 0; i < options.size(); ++i) validate_option(options[i], i, impl.settings.payoff);
  std::vector<detail::OptionSetup<T>> setups;
  setups.reserve(options.size());
  for (std::size_t i = 0; i < options.size(); ++i) {
    setups.push_back(option_setup(options[i], impl.settings, static_cast<std::uint32_t>(first_stream + i)));
  }
  return make_batch(impl, std::move(setups), static_cast<std::int64_t>(options.size()), first_stream);
}

template <class T>
MonteCarloBatch<T> MonteCarloPricer<T>::load(const std::vector<MonteCarloBasketOption<T>>& options,
                                             std::uint64_t first_stream) const {
  const detail::RoutineScope scope(kLoadRoutine);
  const Impl& impl = detail::require_plan(impl_, kLoadRoutine, kClassName);
  detail::require(detail::is_multi_asset(impl.settings.payoff), kLoadRoutine, "settings.payoff",
                  "is a one-asset payoff: load MonteCarloOption values");
  require_streams(first_stream, options.size());
  std::vector<detail::OptionSetup<T>> setups;
  setups.reserve(options.size() * static_cast<std::size_t>(impl.settings.assets));
  for (std::size_t i = 0; i < options.size(); ++i) {
    validate_basket_option(options[i], i, impl.settings.assets);
    append_basket_setups(options[i], impl.settings, static_cast<std::uint32_t>(first_stream + i), setups);
  }
  return make_batch(impl, std::move(setups), static_cast<std::int64_t>(options.size()), first_stream);
}

template <class T>
void detail::MonteCarloAccess::check(const MonteCarloPricer<T>& pricer, const MonteCarloBatch<T>& batch,
                                     const MonteCarloEstimate<T>* results, const char* routine) {
  const auto& impl = MonteCarloAccess::impl(pricer, routine);
  const MonteCarloSettings& settings = impl.settings;
  const Backend backend = impl.placement.backend;
  const auto* data = batch.data_.get();
  require(data != nullptr, routine, "batch", "is empty (make it with load())");
  require(data->backend == backend && data->device == impl.backend->device(), routine, "batch",
          "was loaded for another backend or device");
  require(data->payoff == settings.payoff && data->dates == dates_of(settings), routine, "batch",
          "was loaded for another payoff or time grid");
  require(backend == Backend::cpu || data->size == 0 || data->resident.size() == impl.placement.devices.size(), routine, "batch",
          "was loaded for another list of devices");
  require_memory(results, data->size, backend, routine, "results");
  if (data->size > 0) impl.backend->require_current(routine);
}

template <class T>
detail::MonteCarloArgs<T> detail::MonteCarloAccess::args(const MonteCarloPricer<T>& pricer,
                                                         const MonteCarloBatch<T>& batch,
                                                         MonteCarloEstimate<T>* results,
                                                         MonteCarloAssetGreeks<T>* asset_greeks) {
  const MonteCarloSettings& settings = pricer.impl_->settings;
  const auto& data = *batch.data_;
  return {settings.payoff,
          settings.control_variate || settings.greeks,
          settings.greeks && settings.payoff != MonteCarloPayoff::custom,
          group_shape<T>(settings, asset_greeks != nullptr),
          chunk_shape<T>(settings),
          data.size,
          data.setups(),
          data.factor(),
          data.mrg_tables(),
          results,
          asset_greeks};
}

template <class T>
void MonteCarloPricer<T>::price(const MonteCarloBatch<T>& batch, MonteCarloEstimate<T>* results,
                                StreamHandle stream) const {
  price(batch, results, nullptr, stream);
}

template <class T>
void MonteCarloPricer<T>::price(const MonteCarloBatch<T>& batch, MonteCarloEstimate<T>* results,
                                MonteCarloAssetGreeks<T>* asset_greeks, StreamHandle stream) const {
  const detail::RoutineScope scope(kPriceRoutine);
  const Impl& impl = detail::require_plan(impl_, kPriceRoutine, kClassName);
  const MonteCarloSettings& settings = impl.settings;
  detail::require(settings.payoff != MonteCarloPayoff::custom, kPriceRoutine, "settings.payoff",
                  "is custom: price with cunum::price_with_payoff (cunum/device/monte_carlo_payoff.cuh)");
  detail::MonteCarloAccess::check(*this, batch, results, kPriceRoutine);
  const auto* data = batch.data_.get();
  if (asset_greeks != nullptr) {
    detail::require(detail::is_multi_asset(settings.payoff), kPriceRoutine, "asset_greeks",
                    "is for the multi-asset payoffs (basket, best_of, worst_of)");
    detail::require(settings.greeks, kPriceRoutine, "asset_greeks", "needs settings.greeks");
    detail::require_memory(asset_greeks, data->size * settings.assets, impl.placement.backend, kPriceRoutine,
                           "asset_greeks");
    detail::require_disjoint(asset_greeks,
                             static_cast<std::size_t>(data->size * settings.assets) * sizeof(MonteCarloAssetGreeks<T>),
                             results, static_cast<std::size_t>(data->size) * sizeof(MonteCarloEstimate<T>),
                             kPriceRoutine, "asset_greeks", "results");
  }
  if (data->size == 0) return;
  const detail::MonteCarloArgs<T> args = detail::MonteCarloAccess::args(*this, batch, results, asset_greeks);
  require_chunk_sums_fit(args, impl.capacity, kPriceRoutine);
  if (quasi(settings)) {
    impl.backend->price_quasi(args, settings.paths, stream);
  } else {
    impl.backend->price(args, *data, stream);
  }
}

namespace detail {

template <class T>
void price_custom_payoff(const MonteCarloPricer<T>& pricer, const MonteCarloBatch<T>& batch,
                         const CustomPayoffSums<T>& sums, MonteCarloEstimate<T>* results, StreamHandle stream) {
  const auto& impl = MonteCarloAccess::impl(pricer, kCustomRoutine);
  const MonteCarloSettings& settings = impl.settings;
  require(settings.payoff == MonteCarloPayoff::custom, kCustomRoutine, "pricer", "must have settings.payoff = custom");
  require(settings.source != MonteCarloSource::sobol_bridge, kCustomRoutine, "pricer",
          "must draw philox4x32_10 or mrg32k3a");
  require(impl.placement.devices.size() <= 1, kCustomRoutine, "pricer", "must have one device");
  MonteCarloAccess::check(pricer, batch, results, kCustomRoutine);
  if (batch.size() == 0) return;
  const MonteCarloArgs<T> args = MonteCarloAccess::args(pricer, batch, results);
  require_chunk_sums_fit(args, impl.capacity, kCustomRoutine);
  impl.backend->price_custom(args, sums, stream);
}

template <class T>
const typename MonteCarloPricer<T>::Impl& MonteCarloAccess::impl(const MonteCarloPricer<T>& pricer,
                                                                 const char* routine) {
  return require_plan(pricer.impl_, routine, kClassName);
}

template <class T>
const MonteCarloBackend<T>& MonteCarloAccess::backend(const MonteCarloPricer<T>& pricer, const char* routine) {
  return *impl(pricer, routine).backend;
}

}  // namespace detail

template <class T>
std::vector<MonteCarloEstimate<T>> MonteCarloPricer<T>::price(const std::vector<MonteCarloBasketOption<T>>& options,
                                                              std::uint64_t first_stream) const {
  const detail::RoutineScope scope(kPriceRoutine);  // what load() allocates is the call's
  return price_loaded(*this, load(options, first_stream));
}

template <class T>
std::vector<MonteCarloEstimate<T>> MonteCarloPricer<T>::price(const std::vector<MonteCarloBasketOption<T>>& options,
                                                              std::vector<MonteCarloAssetGreeks<T>>& asset_greeks,
                                                              std::uint64_t first_stream) const {
  const detail::RoutineScope scope(kPriceRoutine);  // what load() allocates is the call's
  return price_loaded(*this, load(options, first_stream), &asset_greeks);
}

template <class T>
std::vector<MonteCarloEstimate<T>> MonteCarloPricer<T>::price(const std::vector<MonteCarloOption<T>>& options,
                                                              std::uint64_t first_stream) const {
  const detail::RoutineScope scope(kPriceRoutine);  // what load() allocates is the call's
  return price_loaded(*this, load(options, first_stream));
}

#define CUNUM_INSTANTIATE_MONTE_CARLO(T)                                                                      \
  template class MonteCarloBatch<T>;                                                                          \
  template class MonteCarloPricer<T>;                                                                         \
  template void detail::MonteCarloAccess::check(const MonteCarloPricer<T>&, const MonteCarloBatch<T>&,         \
                                                const MonteCarloEstimate<T>*, const char*);                   \
  template detail::MonteCarloArgs<T> detail::MonteCarloAccess::args(const MonteCarloPricer<T>&,               \
                                                                    const MonteCarloBatch<T>&, MonteCarloEstimate<T>*, \
                                                                    MonteCarloAssetGreeks<T>*);               \
  template const detail::MonteCarloBackend<T>& detail::MonteCarloAccess::backend(const MonteCarloPricer<T>&,  \
                                                                                 const char*);                \
  template void detail::price_custom_payoff(const MonteCarloPricer<T>&, const MonteCarloBatch<T>&,            \
                                            const detail::CustomPayoffSums<T>&, MonteCarloEstimate<T>*, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MONTE_CARLO, CUNUM_REAL_TYPES)

}  // namespace cunum
