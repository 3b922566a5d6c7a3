#pragma once
/// @file
/// Monte Carlo pricing of options on one asset under geometric Brownian motion, in
/// batches, on the GPU (one fused kernel: the normals are drawn, the paths simulated
/// and the payoffs summed in registers; no normal is ever stored) or on the CPU
/// (OpenMP), with the same random stream on both.
///
/// Init/generate, as NAG's routines: a cunum::MonteCarloPricer holds the settings
/// (payoff, paths per option, time grid, seed, variance reduction, Greeks) and where
/// it runs (a cunum::Placement: backend, devices, memory); MonteCarloPricer::load()
/// validates a batch of options on the host and makes it resident where the pricer
/// computes (cunum::MonteCarloBatch); price() then prices the batch as often as
/// wanted, asynchronously on the caller's stream.
///
/// Model, per option with spot S0, rate r, dividend yield q, volatility sigma and
/// expiry T, on the dates t_k = k T / m, k = 1..m (m = time_steps):
///     S_{t_k} = S_{t_{k-1}} exp((r - q - sigma^2 / 2) dt + sigma sqrt(dt) z_k),  dt = T / m,
/// z_k independent standard normals. Prices are discounted by e^{-rT}.
///
/// Random stream (docs/monte_carlo.md; reproducible by construction): the normal of
/// path p, date k of option i comes from the Philox4x32-10 block with key `seed` and
/// counter (k - 1, low and high 32 bits of p / G, stream_id), stream_id =
/// batch.first_stream() + i, by Box-Muller on its words (float: 4 paths a block,
/// G = 4; double: 2 paths a block, two words per uniform, G = 2; with antithetic
/// variates the pair of paths z, -z shares each normal and G doubles). A path's
/// numbers depend on (seed, stream_id, p, k) only: not on the batch size, the launch
/// shape, the backend or the device, so a batch split in two with first_stream set
/// accordingly gives the same prices, and CPU and GPU prices agree to rounding.
///
/// Sums are accumulated in fixed chunks of paths (MonteCarloPricer::chunk_paths(),
/// set by the settings alone) and the chunks combined in a fixed order: results are
/// bit-identical run to run on a backend.

#include <cstdint>
#include <memory>
#include <vector>

#include "cunum/brownian_bridge.hpp"
#include "cunum/core/backend.hpp"
#include "cunum/core/enum.hpp"
#include "cunum/core/error.hpp"
#include "cunum/core/placement.hpp"
#include "cunum/core/stream.hpp"
#include "cunum/finance.hpp"

namespace cunum {

/// The payoffs of cunum::MonteCarloPricer (cunum::MonteCarloPayoff), for a call
/// (OptionType::call) or a put with strike K, on the dates t_1..t_m:
/// - `european`: max(S_T - K, 0), put max(K - S_T, 0); simulated in one step (m is not used).
/// - `digital`: cash-or-nothing, pays 1 if S_T > K (put: S_T < K); one step.
/// - `asian_arithmetic`: fixed strike on A = (1/m) sum_k S_{t_k}: max(A - K, 0), put max(K - A, 0).
/// - `asian_geometric`: as asian_arithmetic on G = exp((1/m) sum_k ln S_{t_k}).
/// - `up_and_out`: the European payoff, zero if S_{t_k} >= B on any date (B > S0).
/// - `down_and_out`: the European payoff, zero if S_{t_k} <= B on any date (B < S0).
/// - `lookback`: floating strike, S_T - min_k S_{t_k} (put: max_k S_{t_k} - S_T), the
///   extremum over S0 and the m dates; K is not used.
///
/// - `custom`: the caller's own payoff, a device functor priced by
///   cunum::price_with_payoff (`cunum/device/monte_carlo_payoff.cuh`, compiled by
///   nvcc) on the m dates; MonteCarloPricer::price() refuses it. K is passed to the
///   functor (any finite value).
///
/// On several correlated assets (settings.assets, settings.correlation; options made
/// of MonteCarloBasketOption), terminal values S_T^j, one step:
/// - `basket`: B = sum_j w_j S_T^j: max(B - K, 0), put max(K - B, 0).
/// - `best_of`: M = max_j S_T^j: max(M - K, 0), put max(K - M, 0).
/// - `worst_of`: as best_of on min_j S_T^j.
///
/// to_string() gives the enumerator's name; is_valid() is false for any other value.
#define CUNUM_MONTE_CARLO_PAYOFFS(X)          \
  X(european, "european")                     \
  X(digital, "digital")                       \
  X(asian_arithmetic, "asian_arithmetic")     \
  X(asian_geometric, "asian_geometric")       \
  X(up_and_out, "up_and_out")                 \
  X(down_and_out, "down_and_out")             \
  X(lookback, "lookback")                     \
  X(basket, "basket")                         \
  X(best_of, "best_of")                       \
  X(worst_of, "worst_of")                     \
  X(custom, "custom")
CUNUM_ENUM(MonteCarloPayoff, CUNUM_MONTE_CARLO_PAYOFFS)

/// Where the normals of cunum::MonteCarloPricer come from (cunum::MonteCarloSource):
/// - `philox4x32_10`: pseudo-random, drawn inside the pricing kernel (the file
///   comment defines the stream); standard errors are those of independent samples.
/// - `mrg32k3a`: pseudo-random, MRG32k3a (L'Ecuyer) drawn inside the pricing kernel:
///   group g of stream s takes substream s 2^32 + g (substreams 2^76 outputs apart)
///   of the state of `seed` (cunum/device/mrg32k3a.hpp), one output per uniform and
///   Box-Muller on consecutive pairs; CPU and GPU draw the same integers. Slower than
///   Philox (two 64-bit modular recurrences an output); at most 2^32 groups an option.
/// - `sobol_bridge`: quasi-random: cunum::BrownianBridge's fused Sobol bridge
///   (scrambled Sobol32, bisection order on the pricer's dates) writes standard
///   Brownian paths on [0, 1], a batch of paths at a time, and the pricing kernel
///   walks each option's dates on them (scaled by sqrt(T)). Every option takes the
///   same points 0..paths-1. The standard error is the sample formula, not a QMC
///   error bound (it overstates the error of smooth payoffs); no antithetic
///   variates, one device, not in MonteCarloDistributed.
///
/// to_string() gives the enumerator's name; is_valid() is false for any other value.
#define CUNUM_MONTE_CARLO_SOURCES(X)    \
  X(philox4x32_10, "philox4x32_10")     \
  X(mrg32k3a, "mrg32k3a")               \
  X(sobol_bridge, "sobol_bridge")
CUNUM_ENUM(MonteCarloSource, CUNUM_MONTE_CARLO_SOURCES)

/// What a cunum::MonteCarloPricer computes (where it runs is its Placement).
struct MonteCarloSettings {
  MonteCarloPayoff payoff = MonteCarloPayoff::european;  ///< the payoff of every option of a batch
  OptionType type = OptionType::call;                    ///< call or put
  std::int64_t paths = std::int64_t{1} << 20;            ///< paths per option, >= 2 (even with antithetic)
  int time_steps = 1;        ///< dates m of the path-dependent payoffs, >= 1 (one step for european, digital)
  std::uint64_t seed = 0;    ///< the Philox key
  MonteCarloSource source = MonteCarloSource::philox4x32_10;  ///< pseudo- or quasi-random normals
  /// Antithetic variates: each normal drives a path and its mirror (z, -z); the pair's
  /// mean is one sample, so `paths` counts both and the samples are paths / 2.
  bool antithetic = false;
  /// Control variate with the optimal coefficient estimated in the same pass: the
  /// geometric Asian (closed form) for asian_arithmetic, the terminal asset
  /// (E S_T = S0 e^{(r-q)T}) for the other one-asset payoffs, the weighted sum of
  /// the terminal assets for basket and their plain mean for best_of and worst_of.
  bool control_variate = false;
  /// Delta and vega in the same pass: pathwise for european, asian_arithmetic,
  /// asian_geometric, lookback, basket, best_of and worst_of; likelihood ratio for
  /// digital, up_and_out and down_and_out, whose payoffs jump (docs/monte_carlo.md).
  /// A multi-asset option's estimate holds the parallel Greeks (every spot moved
  /// together, every volatility moved together); price() writes each asset's when
  /// given asset_greeks. Not formed for `custom` payoffs.
  bool greeks = false;
  /// Assets of the multi-asset payoffs (basket, best_of, worst_of): 1..16; 1 for the others.
  int assets = 1;
  /// Their correlation matrix, assets x assets, row-major: symmetric, unit diagonal,
  /// positive definite (its Cholesky factor correlates the normals). Empty: independent.
  std::vector<double> correlation;
};

/// One option of a batch (host memory). Every field finite; spot, strike (unless
/// lookback), expiry and volatility positive; barrier above spot for up_and_out,
/// below for down_and_out (ignored by other payoffs).
template <class T>
struct MonteCarloOption {
  T spot = 0;        ///< S0
  T strike = 0;      ///< K
  T expiry = 0;      ///< T, years
  T rate = 0;        ///< r, continuously compounded
  T dividend = 0;    ///< q, continuous yield
  T volatility = 0;  ///< sigma
  T barrier = 0;     ///< B, for up_and_out and down_and_out
};

/// One asset of a multi-asset option (host memory): every field finite, spot and
/// volatility positive.
template <class T>
struct MonteCarloAsset {
  T spot = 0;        ///< S0^j
  T dividend = 0;    ///< q_j
  T volatility = 0;  ///< sigma_j
  T weight = 0;      ///< w_j, the basket's weight (best_of and worst_of ignore it)
};

/// A multi-asset option (basket, best_of, worst_of): settings.assets assets, a
/// strike, an expiry and one rate.
template <class T>
struct MonteCarloBasketOption {
  std::vector<MonteCarloAsset<T>> assets;  ///< settings.assets of them
  T strike = 0;                            ///< K > 0
  T expiry = 0;                            ///< T > 0, years
  T rate = 0;                              ///< r, finite
};

/// What a `custom` payoff functor sees of its option (cunum::price_with_payoff):
/// the option's spot and strike, the number of dates, call or put, and its index in
/// the batch (to read per-option data of the functor's own).
template <class T>
struct MonteCarloPathView {
  T spot;               ///< S0
  T strike;             ///< K
  int dates;            ///< m
  bool is_call;         ///< settings.type == OptionType::call
  std::int64_t option;  ///< the option's index in the batch
};

/// The estimate for one option. Greeks and their standard errors are NaN unless
/// the pricer computes them (settings.greeks); control_coefficient is NaN without a
/// control variate.
template <class T>
struct MonteCarloEstimate {
  /// discounted mean payoff (with the control variate if used); without a control
  /// variate, never below 0 for the library's payoffs
  T price;
  /// of the price; its own error is the rounding of the sums it is formed from, which
  /// a control variate that explains nearly all of the payoff can leave as all of it
  /// (docs/monte_carlo.md, "How the estimates are formed")
  T standard_error;
  T confidence_low;         ///< price - 1.96 standard errors (95%)
  T confidence_high;        ///< price + 1.96 standard errors
  T delta;                  ///< dprice/dS0; multi-asset: dprice/dh with every S0^j + h
  T delta_standard_error;   ///< of delta
  T vega;                   ///< dprice/dsigma; multi-asset: dprice/dh with every sigma_j + h
  T vega_standard_error;    ///< of vega
  T control_coefficient;    ///< the estimated optimal coefficient beta
  std::int64_t paths;       ///< paths simulated for this option
};

/// The Greeks of one asset of a multi-asset option, pathwise, in the same pass as
/// the price (MonteCarloPricer::price with asset_greeks); the correlations are held
/// fixed. Their sum over the assets is the estimate's parallel delta (vega).
template <class T>
struct MonteCarloAssetGreeks {
  T delta;                 ///< dprice/dS0^j
  T delta_standard_error;  ///< of delta
  T vega;                  ///< dprice/dsigma_j
  T vega_standard_error;   ///< of vega
};

template <class T>
class MonteCarloPricer;

namespace detail {
struct MonteCarloAccess;  // the library's own view of batches and pricers (src/monte_carlo)
}  // namespace detail

/// A validated batch of options, resident where its pricer computes (device memory
/// for the CUDA backend), with its per-option constants formed once. Made by
/// MonteCarloPricer::load(); cheap to copy (shared, immutable). CUDA: its memory
/// comes from the pricer's placement.device_memory, one copy per entry of
/// placement.devices, and is freed when the last handle goes, the first copy on
/// placement.stream and the others on the pricer's streams of their devices (which
/// the batch keeps): the work that reads it must be complete, or ordered before
/// those streams, by then.
template <class T>
class MonteCarloBatch {
 public:
  /// An empty handle (price() refuses it); assign one from load().
  MonteCarloBatch() = default;
  /// @return the number of options
  std::int64_t size() const noexcept;
  /// @return the stream id of option 0 (option i draws from stream first_stream() + i)
  std::uint64_t first_stream() const noexcept;

  struct Data;  ///< internal

 private:
  friend class MonteCarloPricer<T>;
  friend struct detail::MonteCarloAccess;
  explicit MonteCarloBatch(std::shared_ptr<const Data> data) : data_(std::move(data)) {}
  std::shared_ptr<const Data> data_;
};

/// Prices batches of options by Monte Carlo (see the file comment), where its
/// Placement says (cunum/core/placement.hpp).
///
/// - Devices: a CUDA pricer runs on placement.devices (empty: the device current at
///   construction alone). One price() call spreads its chunks over them in
///   contiguous shares, in list order (an ordinal may repeat). The first is the home
///   device: the pricer is made on it and bound to it (calls with another device
///   current throw), results are written and the caller's stream runs there; the
///   other devices' chunk sums are copied to it before they are combined, in the
///   same order as on one device, so prices are bit-identical to a one-device
///   pricer's.
/// - Memory: every device allocation the pricer makes (the loaded batches, the
///   workspaces of its calls' chunk sums, the sobol_bridge paths, the host
///   conveniences' results) comes from placement.device_memory, and so do the tables
///   of the BrownianBridge behind sobol_bridge, made with the pricer's placement.
///   No page-locked host memory is kept.
/// - Workspaces (CUDA, one device, the library's pseudo-random payoffs): a call keeps
///   its chunk sums in a workspace the pricer keeps for the call's stream (a call of
///   at most 2^24 paths in all is one kernel launch, which also folds them; a larger
///   one folds them in kernels after it), allocated on that stream by its first call
///   and again only when a call needs more (the old one freed on the stream); at most
///   16 streams have one, kept until the pricer is destroyed, which frees them on
///   placement.stream after the last call that used each (an event each call
///   records; the call's stream may be gone by then). A call on a further stream, a
///   call being captured into a CUDA graph, and the other calls (sobol_bridge, custom
///   payoffs, several devices) allocate their chunk sums on their stream at each call
///   instead.
/// - Streams: the constructor enqueues nothing on placement.stream; load() copies
///   on it (and, for the other devices, on the pricer's stream of each) and waits
///   for the copies. CUDA price() calls are enqueued on the caller's stream and
///   return at once; the results pointer must stay valid until the stream reaches
///   the call. With several devices, each runs its share on a stream of the
///   pricer's, ordered after the caller's stream at the call, and the caller's
///   stream waits for them. CPU calls return when done; `stream` is ignored.
/// - Threads: calls on one pricer may come from several threads (the enqueueing of
///   a call that uses the pricer's workspaces or streams is serialised inside). A
///   pricer moves; it does not copy.
/// - CUDA graphs: price() of a one-device pricer may be captured into a CUDA graph
///   (docs/monte_carlo.md); a pricer on several devices refuses a capturing stream.
template <class T>
class MonteCarloPricer {
 public:
  /// Makes the pricer: validates the settings, and for CUDA makes the streams of a
  /// multi-device pricer and the sobol_bridge bridge (on the home device).
  /// @param settings   what it computes
  /// @param placement  where it runs (cunum/core/placement.hpp): the backend, the
  ///                   devices one call spreads over (above), the stream load()
  ///                   copies on, and the resource its device memory comes from
  /// @throws Error ErrorCode::invalid_argument naming 'settings.payoff',
  ///         'settings.type', 'settings.paths' (< 2, odd with antithetic, fewer than
  ///         3 samples with a control variate), 'settings.time_steps' (< 1),
  ///         'settings.source' (off the list; sobol_bridge with more than 2^32 paths
  ///         or a multi-asset payoff; mrg32k3a with more than 2^32 groups an option,
  ///         named as 'settings.paths'), 'settings.antithetic' (with sobol_bridge),
  ///         'settings.assets' (not 1 for a one-asset payoff, outside 1..16),
  ///         'settings.correlation' (wrong size, not symmetric, not unit diagonal,
  ///         not positive definite), 'placement.backend' (off the list) or
  ///         'placement.devices' (not a device here, given for the CPU backend, or
  ///         several with sobol_bridge, which runs on one device);
  ///         ErrorCode::no_device for CUDA without a device;
  ///         ErrorCode::not_supported naming 'settings.time_steps' when sobol_bridge
  ///         would need more than 20000 dates (one Sobol dimension each; cuRAND's
  ///         direction vectors cover 20000), before the bridge is built.
  explicit MonteCarloPricer(const MonteCarloSettings& settings, const Placement& placement = {});
  ~MonteCarloPricer();
  /// Takes `other`'s state; every member of the moved-from pricer then throws
  /// ErrorCode::invalid_argument naming 'this'.
  MonteCarloPricer(MonteCarloPricer&& other) noexcept;
  MonteCarloPricer& operator=(MonteCarloPricer&& other) noexcept;

  /// @return the settings
  /// @throws Error ErrorCode::invalid_argument naming 'this' for a moved-from pricer (as every member)
  const MonteCarloSettings& settings() const;
  /// @return the resolved backend: Backend::cpu or Backend::cuda
  Backend backend() const;
  /// @return the resolved placement (see Placement): for CUDA, every device of the
  ///         pricer, the home device first
  const Placement& placement() const;
  /// @return the paths one chunk sums before chunks are combined (fixed by the settings)
  std::int64_t chunk_paths() const;

  /// Validates `options`, forms the references their samples are summed about (one
  /// path each; CUDA: on the home device) and makes them resident for this pricer
  /// (CUDA: copies to each device of the pricer, on placement.stream for the home
  /// device, and waits).
  /// @param options       the batch, host memory
  /// @param first_stream  stream id of options[0]; stream ids must stay below 2^32
  /// @throws Error ErrorCode::invalid_argument naming the element and field, e.g.
  ///         'options[3].barrier' (wrong side of the spot), 'options[0].volatility'
  ///         (not finite or not positive), or 'first_stream'; ErrorCode::not_supported
  ///         when the batch's launch would exceed the grid limit, or (CUDA, a batch of
  ///         options) when placement.stream is being captured into a CUDA graph: it waits.
  MonteCarloBatch<T> load(const std::vector<MonteCarloOption<T>>& options, std::uint64_t first_stream = 0) const;
  /// load() for the multi-asset payoffs. The correlated normals of path p of option i
  /// are L z, L the Cholesky factor of settings.correlation and z the Box-Muller
  /// normals of the Philox blocks with counter (b, low and high 32 bits of p / G,
  /// stream id), b = 0, 1, ..., in order (G = 1, 2 with antithetic variates).
  /// @throws Error as load(), naming e.g. 'options[2].assets' (not settings.assets of
  ///         them) or 'options[0].assets[1].volatility'; 'settings.payoff' when the
  ///         pricer's payoff is a one-asset payoff (and load() names it for the
  ///         multi-asset payoffs)
  MonteCarloBatch<T> load(const std::vector<MonteCarloBasketOption<T>>& options, std::uint64_t first_stream = 0) const;

  /// Prices the batch: results[i] for batch option i.
  /// @param batch    made by load() of this pricer (or one with the same settings and device)
  /// @param results  batch.size() estimates in memory the backend can write
  /// @param stream   CUDA: the stream to enqueue on; CPU: ignored
  /// @throws Error ErrorCode::invalid_argument naming 'batch' (made for another
  ///         backend or device, or empty handle) or 'results'; ErrorCode::out_of_memory
  ///         "needs N bytes", before anything is allocated, when every option's chunk
  ///         sums (options x chunks x up to 73 doubles; an option of 2^40 paths has 2^27
  ///         chunks) exceed the machine's physical memory (CPU) or the device's total
  ///         memory (CUDA); ErrorCode::not_supported for a pricer on several devices
  ///         called on a stream being captured into a CUDA graph, before anything is
  ///         enqueued; ErrorCode::cuda_failure when a launch fails. Nothing is written then.
  /// CUDA graphs (one device): captures, every source; a captured call does not use
  /// the stream's workspace (replays may run beside the stream's direct calls): its
  /// chunk sums come from placement.device_memory on `stream`, so with the default
  /// resource (cudaMallocAsync) the graph allocates, zeroes and frees them at each
  /// replay. Each replay writes what a direct call would; the batch and the pricer
  /// must outlive the graph's launches.
  void price(const MonteCarloBatch<T>& batch, MonteCarloEstimate<T>* results, StreamHandle stream = nullptr) const;
  /// price() for multi-asset options that also writes each asset's Greeks:
  /// asset_greeks[i * settings.assets + j] for asset j of batch option i.
  /// @param batch         as price()
  /// @param results       as price()
  /// @param asset_greeks  batch.size() x settings.assets values in memory the backend can write
  /// @param stream        as price()
  /// @throws Error as price(); ErrorCode::invalid_argument naming 'asset_greeks' when
  ///         the payoff is a one-asset payoff, settings.greeks is off, the pointer is null,
  ///         or the array overlaps `results`
  /// CUDA graphs: as price().
  void price(const MonteCarloBatch<T>& batch, MonteCarloEstimate<T>* results, MonteCarloAssetGreeks<T>* asset_greeks,
             StreamHandle stream) const;

  /// Host convenience: load() then price(), waiting for the result (CUDA: priced on
  /// placement.stream into memory from placement.device_memory). CUDA graphs: refuses
  /// a placement.stream being captured, as load() does.
  /// @throws Error as load() and price()
  std::vector<MonteCarloEstimate<T>> price(const std::vector<MonteCarloOption<T>>& options,
                                           std::uint64_t first_stream = 0) const;
  /// The same for multi-asset options.
  std::vector<MonteCarloEstimate<T>> price(const std::vector<MonteCarloBasketOption<T>>& options,
                                           std::uint64_t first_stream = 0) const;
  /// The same, with each asset's Greeks: asset_greeks is resized to options.size() x
  /// settings.assets, asset j of option i at i * settings.assets + j.
  /// @throws Error as load() and price(); 'asset_greeks' as price() names it
  std::vector<MonteCarloEstimate<T>> price(const std::vector<MonteCarloBasketOption<T>>& options,
                                           std::vector<MonteCarloAssetGreeks<T>>& asset_greeks,
                                           std::uint64_t first_stream = 0) const;

 private:
  friend struct detail::MonteCarloAccess;
  struct Impl;  // the settings, the correlation's factor and the backend object (src/monte_carlo)
  std::unique_ptr<Impl> impl_;
};

/// The closed-form price of the geometric Asian option on the dates t_k = k T / m,
/// k = 1..m (the control variate of the arithmetic Asian, and a test of the
/// geometric one): ln G is normal with mean ln S0 + (r - q - sigma^2/2) T (m + 1) / (2m)
/// and variance sigma^2 T (m + 1)(2m + 1) / (6 m^2).
/// @throws Error ErrorCode::invalid_argument for a non-finite or non-positive input
///         or m < 1
double geometric_asian_price(const MonteCarloOption<double>& option, OptionType type, int time_steps);

}  // namespace cunum
