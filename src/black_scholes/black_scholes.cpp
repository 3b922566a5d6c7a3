// Black-Scholes front end: validation at the API boundary, the backend chosen once
// per pricer (black_scholes_backends.hpp), calls forwarded to it.

#include <iterator>
#include <memory>
#include <string>

#include "cunum/core/device.hpp"
#include "cunum/core/device_buffer.hpp"
#include "cunum/core/error.hpp"
#include "src/black_scholes/black_scholes_backends.hpp"
#include "src/core/enum_functions.hpp"
#include "src/core/graph_capture.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/placement.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"

namespace cunum {

CUNUM_DEFINE_ENUM_FUNCTIONS(BlackScholesOutput, CUNUM_BLACK_SCHOLES_OUTPUTS)

namespace {

constexpr const char* kClassName = "BlackScholesPricer";
constexpr const char* kPricerRoutine = "cunum::BlackScholesPricer";
constexpr const char* kBackendRoutine = "cunum::BlackScholesPricer::backend";
constexpr const char* kPlacementRoutine = "cunum::BlackScholesPricer::placement";
constexpr const char* kOutputsRoutine = "cunum::BlackScholesPricer::outputs";
constexpr const char* kPriceRoutine = "cunum::BlackScholesPricer::price";
constexpr const char* kImpliedRoutine = "cunum::BlackScholesPricer::implied_volatility";

// Each output's argument name, in list order.
constexpr const char* kOutputArguments[] = {
#define CUNUM_BS_OUTPUT_ARGUMENT(name, text) "results." text,
    CUNUM_BLACK_SCHOLES_OUTPUTS(CUNUM_BS_OUTPUT_ARGUMENT)
#undef CUNUM_BS_OUTPUT_ARGUMENT
};
constexpr int kOutputCount = sizeof(kOutputArguments) / sizeof(kOutputArguments[0]);

// Whether nothing beyond the prices and the discount factor is wanted.
bool prices_only(BlackScholesOutputs outputs) {
  const BlackScholesOutputs plain{BlackScholesOutput::call, BlackScholesOutput::put, BlackScholesOutput::discount};
  return (outputs.bits & ~plain.bits) == 0;
}

template <class T>
void validate_rates(const BlackScholesRates<T>& rates, std::int64_t n, Backend backend, const char* routine,
                    const char* rate_name, const char* dividend_name, const char* rates_name,
                    const char* dividends_name) {
  if (rates.rates == nullptr) detail::require_finite(static_cast<double>(rates.rate), routine, rate_name);
  else detail::require_memory(rates.rates, n, backend, routine, rates_name);
  if (rates.dividends == nullptr) detail::require_finite(static_cast<double>(rates.dividend), routine, dividend_name);
  else detail::require_memory(rates.dividends, n, backend, routine, dividends_name);
}

template <class T>
void validate_options(std::int64_t n, const T* spot, const T* strike, const T* expiry, Backend backend,
                      const char* routine) {
  detail::require_element_count(n, sizeof(T), routine, "n");
  detail::require_memory(spot, n, backend, routine, "spot");
  detail::require_memory(strike, n, backend, routine, "strike");
  detail::require_memory(expiry, n, backend, routine, "expiry");
}

std::int64_t checked_size(std::size_t size, std::size_t expected, const char* routine, const char* argument) {
  if (size != expected) {
    detail::throw_invalid_argument(routine, argument,
                                   "has " + std::to_string(size) + " values, expected " + std::to_string(expected));
  }
  return static_cast<std::int64_t>(size);
}

// A per-option array of a CUDA host-vector call, copied to the device on the
// placement's stream (kept in `copy`); null stays null.
template <class T>
const T* staged(const T* host, std::int64_t n, const Placement& placement, DeviceBuffer<T>& copy) {
  if (host == nullptr) return host;
  copy = DeviceBuffer<T>(static_cast<std::size_t>(n), placement.stream, placement.device_memory);
  copy.copy_from_host(host, static_cast<std::size_t>(n));
  return copy.data();
}

// A host vector's copy for a CUDA host-vector call, on the placement's stream.
template <class T>
auto on_device(const std::vector<T>& host, const Placement& placement) {
  return DeviceBuffer<T>::from_host(host, placement.stream, placement.device_memory);
}

}  // namespace

// The resolved placement, the outputs and the backend object, made once.
template <class T>
struct BlackScholesPricer<T>::Impl {
  Placement placement;
  BlackScholesOutputs outputs;
  std::unique_ptr<detail::BlackScholesBackend<T>> backend;
};

template <class T>
BlackScholesPricer<T>::BlackScholesPricer(BlackScholesOutputs outputs, const Placement& placement) {
  const detail::RoutineScope scope(kPricerRoutine);
  detail::require((outputs.bits & ~BlackScholesOutputs::all().bits) == 0, kPricerRoutine, "outputs",
                  "has bits outside the BlackScholesOutput list");
  auto impl = std::make_unique<Impl>();
  impl->placement = detail::resolve_placement(placement, detail::DeviceCount::one, kPricerRoutine);
  impl->outputs = outputs;
  const detail::PlacementDeviceScope on_device(impl->placement);
  impl->backend = impl->placement.backend == Backend::cuda ? detail::make_black_scholes_cuda<T>()
                                                           : detail::make_black_scholes_cpu<T>();
  impl_ = std::move(impl);
}

template <class T>
BlackScholesPricer<T>::~BlackScholesPricer() = default;
template <class T>
BlackScholesPricer<T>::BlackScholesPricer(BlackScholesPricer&&) noexcept = default;
template <class T>
BlackScholesPricer<T>& BlackScholesPricer<T>::operator=(BlackScholesPricer&&) noexcept = default;

template <class T>
Backend BlackScholesPricer<T>::backend() const {
  return detail::require_plan(impl_, kBackendRoutine, kClassName).placement.backend;
}

template <class T>
const Placement& BlackScholesPricer<T>::placement() const {
  return detail::require_plan(impl_, kPlacementRoutine, kClassName).placement;
}

template <class T>
BlackScholesOutputs BlackScholesPricer<T>::outputs() const {
  return detail::require_plan(impl_, kOutputsRoutine, kClassName).outputs;
}

template <class T>
void BlackScholesPricer<T>::price(std::int64_t n, const T* spot, const T* strike, const T* expiry,
                                  const BlackScholesMarket<T>& market, const BlackScholesResults<T>& results,
                                  StreamHandle stream) const {
  const detail::RoutineScope scope(kPriceRoutine);
  const Impl& impl = detail::require_plan(impl_, kPriceRoutine, kClassName);
  validate_options(n, spot, strike, expiry, impl.placement.backend, kPriceRoutine);
  validate_rates(market.rates, n, impl.placement.backend, kPriceRoutine, "market.rates.rate", "market.rates.dividend",
                 "market.rates.rates", "market.rates.dividends");
  if (market.volatilities == nullptr) {
    detail::require_finite(static_cast<double>(market.volatility), kPriceRoutine, "market.volatility");
  } else {
    detail::require_memory(market.volatilities, n, impl.placement.backend, kPriceRoutine, "market.volatilities");
  }
  detail::BlackScholesPriceArgs<T> args{{n, spot, strike, expiry}, market, {}, prices_only(impl.outputs)};
  detail::NamedArray outputs[kOutputCount] = {};
  for (BlackScholesOutput output : BlackScholesOutputValues::all) {
    if (!impl.outputs.contains(output)) continue;
    const int index = static_cast<int>(output);
    detail::require_memory(results[output], n, impl.placement.backend, kPriceRoutine, kOutputArguments[index]);
    args.results[output] = results[output];
    outputs[index] = {results[output], kOutputArguments[index]};
  }
  const detail::NamedArray inputs[] = {{spot, "spot"},
                                       {strike, "strike"},
                                       {expiry, "expiry"},
                                       {market.rates.rates, "market.rates.rates"},
                                       {market.rates.dividends, "market.rates.dividends"},
                                       {market.volatilities, "market.volatilities"}};
  detail::require_elementwise_outputs(inputs, std::size(inputs), outputs, std::size(outputs),
                                      static_cast<std::size_t>(n) * sizeof(T), kPriceRoutine);
  if (n == 0) return;
  impl.backend->price(args, stream);
}

template <class T>
BlackScholesHostResults<T> BlackScholesPricer<T>::price(const std::vector<T>& spot, const std::vector<T>& strike,
                                                        const std::vector<T>& expiry,
                                                        const BlackScholesMarket<T>& market) const {
  const detail::RoutineScope scope(kPriceRoutine);
  const Impl& impl = detail::require_plan(impl_, kPriceRoutine, kClassName);
  const std::int64_t n = checked_size(spot.size(), spot.size(), kPriceRoutine, "spot");
  checked_size(strike.size(), spot.size(), kPriceRoutine, "strike");
  checked_size(expiry.size(), spot.size(), kPriceRoutine, "expiry");
  BlackScholesHostResults<T> host;
  for (BlackScholesOutput output : BlackScholesOutputValues::all) {
    if (impl.outputs.contains(output)) host[output].resize(spot.size());
  }
  if (impl.placement.backend == Backend::cpu || n == 0) {  // n == 0: validation only, nothing to copy
    BlackScholesResults<T> results;
    for (BlackScholesOutput output : BlackScholesOutputValues::all) {
      if (impl.outputs.contains(output)) results[output] = host[output].data();
    }
    price(n, spot.data(), strike.data(), expiry.data(), market, results);
    return host;
  }
  const Placement& placement = impl.placement;
  detail::refuse_capture(placement.stream, "it copies through the device on placement.stream and waits");
  const auto device_spot = on_device(spot, placement);
  const auto device_strike = on_device(strike, placement);
  const auto device_expiry = on_device(expiry, placement);
  DeviceBuffer<T> rates_copy, dividends_copy, volatilities_copy;
  BlackScholesMarket<T> device_market = market;
  device_market.rates.rates = staged(market.rates.rates, n, placement, rates_copy);
  device_market.rates.dividends = staged(market.rates.dividends, n, placement, dividends_copy);
  device_market.volatilities = staged(market.volatilities, n, placement, volatilities_copy);
  DeviceBuffer<T> device_outputs[kOutputCount];
  BlackScholesResults<T> results;
  for (BlackScholesOutput output : BlackScholesOutputValues::all) {
    const int index = static_cast<int>(output);
    if (!impl.outputs.contains(output)) continue;
    device_outputs[index] = DeviceBuffer<T>(static_cast<std::size_t>(n), placement.stream, placement.device_memory);
    results[output] = device_outputs[index].data();
  }
  price(n, device_spot.data(), device_strike.data(), device_expiry.data(), device_market, results, placement.stream);
  for (BlackScholesOutput output : BlackScholesOutputValues::all) {
    const int index = static_cast<int>(output);
    if (impl.outputs.contains(output)) {
      device_outputs[index].copy_to_host(host[output].data(), static_cast<std::size_t>(n));
    }
  }
  return host;
}

template <class T>
void BlackScholesPricer<T>::implied_volatility(std::int64_t n, const T* prices, const T* spot, const T* strike,
                                               const T* expiry, const BlackScholesRates<T>& rates, OptionType type,
                                               T* volatility, std::int64_t* rejected, StreamHandle stream) const {
  const detail::RoutineScope scope(kImpliedRoutine);
  const Impl& impl = detail::require_plan(impl_, kImpliedRoutine, kClassName);
  validate_options(n, spot, strike, expiry, impl.placement.backend, kImpliedRoutine);
  detail::require_memory(prices, n, impl.placement.backend, kImpliedRoutine, "prices");
  validate_rates(rates, n, impl.placement.backend, kImpliedRoutine, "rates.rate", "rates.dividend", "rates.rates",
                 "rates.dividends");
  detail::require_enum(type, kImpliedRoutine, "type", "OptionType");
  detail::require_memory(volatility, n, impl.placement.backend, kImpliedRoutine, "volatility");
  if (rejected != nullptr) detail::require_memory(rejected, 1, impl.placement.backend, kImpliedRoutine, "rejected");
  // The inputs, then the one element-wise output.
  const detail::NamedArray arrays[] = {{prices, "prices"},           {spot, "spot"},
                                       {strike, "strike"},           {expiry, "expiry"},
                                       {rates.rates, "rates.rates"}, {rates.dividends, "rates.dividends"},
                                       {volatility, "volatility"}};
  const std::size_t kInputs = std::size(arrays) - 1;
  const auto bytes = static_cast<std::size_t>(n) * sizeof(T);
  detail::require_elementwise_outputs(arrays, kInputs, &arrays[kInputs], 1, bytes, kImpliedRoutine);
  // The count is written while the arrays are still read and written (CUDA: by atomic adds).
  if (rejected != nullptr) {
    for (const detail::NamedArray& array : arrays) {
      if (array.data == nullptr) continue;
      detail::require_disjoint(rejected, sizeof(std::int64_t), array.data, bytes, kImpliedRoutine, "rejected", array.name);
    }
  }
  const detail::ImpliedVolArgs<T> args{{n, spot, strike, expiry}, prices, rates, type == OptionType::call,
                                       volatility, rejected};
  impl.backend->implied_volatility(args, stream);
}

template <class T>
ImpliedVolatilities<T> BlackScholesPricer<T>::implied_volatility(const std::vector<T>& prices,
                                                                 const std::vector<T>& spot,
                                                                 const std::vector<T>& strike,
                                                                 const std::vector<T>& expiry,
                                                                 const BlackScholesRates<T>& rates,
                                                                 OptionType type) const {
  const detail::RoutineScope scope(kImpliedRoutine);
  const Impl& impl = detail::require_plan(impl_, kImpliedRoutine, kClassName);
  const std::int64_t n = checked_size(prices.size(), prices.size(), kImpliedRoutine, "prices");
  checked_size(spot.size(), prices.size(), kImpliedRoutine, "spot");
  checked_size(strike.size(), prices.size(), kImpliedRoutine, "strike");
  checked_size(expiry.size(), prices.size(), kImpliedRoutine, "expiry");
  ImpliedVolatilities<T> result;
  result.volatility.resize(prices.size());
  if (impl.placement.backend == Backend::cpu || n == 0) {  // n == 0: validation only, nothing to copy
    implied_volatility(n, prices.data(), spot.data(), strike.data(), expiry.data(), rates, type,
                       result.volatility.data(), impl.placement.backend == Backend::cpu ? &result.rejected : nullptr);
    return result;
  }
  const Placement& placement = impl.placement;
  detail::refuse_capture(placement.stream, "it copies through the device on placement.stream and waits");
  const auto device_prices = on_device(prices, placement);
  const auto device_spot = on_device(spot, placement);
  const auto device_strike = on_device(strike, placement);
  const auto device_expiry = on_device(expiry, placement);
  DeviceBuffer<T> rates_copy, dividends_copy;
  BlackScholesRates<T> device_rates = rates;
  device_rates.rates = staged(rates.rates, n, placement, rates_copy);
  device_rates.dividends = staged(rates.dividends, n, placement, dividends_copy);
  DeviceBuffer<T> device_volatility(prices.size(), placement.stream, placement.device_memory);
  DeviceBuffer<std::int64_t> device_rejected(1, placement.stream, placement.device_memory);
  implied_volatility(n, device_prices.data(), device_spot.data(), device_strike.data(), device_expiry.data(),
                     device_rates, type, device_volatility.data(), device_rejected.data(), placement.stream);
  device_volatility.copy_to_host(result.volatility.data(), prices.size());
  device_rejected.copy_to_host(&result.rejected, 1);
  return result;
}

#define CUNUM_INSTANTIATE_BLACK_SCHOLES(T) template class BlackScholesPricer<T>;
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_BLACK_SCHOLES, CUNUM_REAL_TYPES)

}  // namespace cunum
