#pragma once
// Brownian bridge sample paths and scaled increments (after NAG g05xa..g05xe and
// du Toit, "Brownian bridge on GPUs").
//
// Times t0 < t_1 < ... < t_N < T. The caller names a construction order: a
// permutation theta_1..theta_N of the interior times. X_T is built first, from Z_0:
//     X_T = x0 + C sqrt(T - t0) Z_0                       (free bridge)
//     X_T = w                                             (fixed end; Z_0 not consumed)
// then theta_k from Z_k between its nearest already-built neighbours l < theta_k < r:
//     X_theta = (X_l (r - theta) + X_r (theta - l)) / (r - l)
//             + C Z_k sqrt((r - theta)(theta - l) / (r - l)),          X_t0 = x0.
// C is a lower-triangular d x d factor with C C' = Sigma (given, or the Cholesky
// factor of a given Sigma).
//
// Memory layouts. A "record" is one d-vector; a path has R records:
//   Z:  R = N + 1 (free: record k is Z_k) or R = N (fixed end: record k-1 is Z_k).
//   paths output:      R = N + 1, record i-1 is X_{t_i}, i = 1..N+1 (t_{N+1} = T).
//   increments output: R = N + 1, record i-1 is (X_{t_i} - X_{t_{i-1}}) / (t_i - t_{i-1}).
// Element j of record r of path p lives at
//   BridgeLayout::path_fastest:    (r * d + j) * paths + p   (coalesced on the GPU)
//   BridgeLayout::path_contiguous: (p * R + r) * d + j
// All sizes and indices are 64-bit.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "cunum/core/backend.hpp"
#include "cunum/core/enum.hpp"
#include "cunum/core/stream.hpp"
#include "cunum/random.hpp"

namespace cunum {

class BrownianBridge;
namespace detail {
class BridgeDeviceStrategy;
// The bridge's uploaded strategy (null for the CPU backend); for cunum's own kernels and benches.
const BridgeDeviceStrategy* device_strategy(const BrownianBridge& bridge) noexcept;
}  // namespace detail

// ---------------------------------------------------------------------------
// Construction orders (g05xe).
//   bisection:       T, then the index midpoint floor((lo + hi) / 2) of every gap, level by level
//   ascending:       t_1, t_2, ..., t_N
//   important_first: the caller's important times in their order, then bisection of the gaps
#define CUNUM_BRIDGE_ORDERS(X)  \
  X(bisection, "bisection")     \
  X(ascending, "ascending")     \
  X(important_first, "important_first")
CUNUM_ENUM(BridgeOrder, CUNUM_BRIDGE_ORDERS)

// `times`: the strictly increasing interior grid t_1..t_N. Returns the interior
// times in construction order. `important_times` (important_first only) must be
// distinct members of `times`.
std::vector<double> make_bridge_order(const std::vector<double>& times, BridgeOrder order,
                                      const std::vector<double>& important_times = {});

// ---------------------------------------------------------------------------
//   factor:     row-major lower-triangular C (upper part zero), positive diagonal
//   covariance: row-major symmetric positive definite Sigma, factored by Cholesky
#define CUNUM_COVARIANCE_FORMS(X) \
  X(factor, "factor")             \
  X(covariance, "covariance")
CUNUM_ENUM(CovarianceForm, CUNUM_COVARIANCE_FORMS)

#define CUNUM_BRIDGE_LAYOUTS(X)     \
  X(path_fastest, "path_fastest")   \
  X(path_contiguous, "path_contiguous")
CUNUM_ENUM(BridgeLayout, CUNUM_BRIDGE_LAYOUTS)

// GPU strategies of the seed paper (limits in docs/brownian_bridge.md); the CPU
// backend ignores the choice (it runs the same compiled strategy). `automatic`
// picks one that serves the problem; an explicit one that cannot serve raises
// Error(not_supported) naming the limit. Strategies 1-3 copy the strategy into a
// constant-memory symbol shared by all bridges, ordered on the caller's stream:
// do not run them for different bridges concurrently on different streams.
//   constant_memory:              1: strategy in constant memory, stack in local memory
//   vectorized:                   2: as 1, several paths per thread via vector loads
//   prefetch:                     3: as 1, P normals prefetched into registers
//   shared_memory:                4: strategy staged through shared memory, C in registers
//   shared_memory_reuse:          5: as 4, reusing {X_l, X_r, X_theta} for the next step
//   shared_memory_reuse_prefetch: 5 with the prefetch of 4
#define CUNUM_BRIDGE_STRATEGIES(X)                              \
  X(automatic, "automatic")                                     \
  X(constant_memory, "constant_memory")                         \
  X(vectorized, "vectorized")                                   \
  X(prefetch, "prefetch")                                       \
  X(shared_memory, "shared_memory")                             \
  X(shared_memory_reuse, "shared_memory_reuse")                 \
  X(shared_memory_reuse_prefetch, "shared_memory_reuse_prefetch")
CUNUM_ENUM(BridgeStrategy, CUNUM_BRIDGE_STRATEGIES)

struct BridgeGenerateOptions {
  BridgeLayout z_layout = BridgeLayout::path_fastest;
  BridgeLayout output_layout = BridgeLayout::path_fastest;
  BridgeStrategy strategy = BridgeStrategy::automatic;
  StreamHandle stream = nullptr;  // CUDA only
};

struct SobolBridgeOptions {
  SobolSequence sequence = SobolSequence::scrambled_sobol32;
  std::uint64_t offset = 0;  // path p takes point offset + p of the sequence
  BridgeLayout output_layout = BridgeLayout::path_fastest;
  StreamHandle stream = nullptr;  // CUDA only
};

// Where step k of a neighbour comes from in strategy 5 (reuse of the previous step).
enum class BridgeReuse : std::uint8_t { stack, previous_left, previous_right, previous_point };

// One step of the compiled execution strategy: build the point at time index
// `output_index` (1..N) from stack slots `left_slot`, `right_slot` and Z record
// `z_index`, then store it in `store_slot` (or nowhere: no_store).
// Increments are written in the same pass: increment i pairs t_{i-1} and t_i, and
// the later-built of the two is interior and has the other as its nearest
// neighbour, so exactly one step writes it (left_increment: record theta - 1, from
// X_l; right_increment: record theta, from X_r).
struct BridgeStep {
  static constexpr std::uint32_t no_store = 0xFFFFFFFFu;
  std::uint32_t left_slot = 0;
  std::uint32_t right_slot = 0;
  std::uint32_t store_slot = no_store;
  std::uint32_t z_index = 0;       // Z record within a path
  std::uint32_t output_index = 0;  // time index i (output record i - 1)
  std::uint32_t left_time_index = 0;   // l, r as time indices (0 = t0, N + 1 = T)
  std::uint32_t right_time_index = 0;
  double left_weight = 0;   // (r - theta) / (r - l)
  double right_weight = 0;  // (theta - l) / (r - l)
  double std_dev = 0;       // sqrt((r - theta)(theta - l) / (r - l))
  double inverse_left_gap = 0;   // 1 / (theta - l)
  double inverse_right_gap = 0;  // 1 / (r - theta)
  bool left_increment = false;   // l == theta - 1: this step writes increment theta
  bool right_increment = false;  // r == theta + 1: this step writes increment theta + 1
  BridgeReuse left_reuse = BridgeReuse::stack;
  BridgeReuse right_reuse = BridgeReuse::stack;
};

class BrownianBridge {
 public:
  // Stack slots holding x0 and X_T before the first interior step.
  static constexpr std::uint32_t start_slot = 0;
  static constexpr std::uint32_t end_slot = 1;

  // g05xa. `covariance` is d x d row-major, read as `form` says; `start` is x0 (d
  // values); `fixed_end`, when given, is w (d values). Throws Error(invalid_argument).
  BrownianBridge(double t0, double T, std::vector<double> construction_order, int dimension,
                 const std::vector<double>& covariance, CovarianceForm form,
                 std::vector<double> start, std::optional<std::vector<double>> fixed_end = {},
                 Backend backend = Backend::automatic);
  ~BrownianBridge();
  BrownianBridge(BrownianBridge&&) noexcept;
  BrownianBridge& operator=(BrownianBridge&&) noexcept;
  BrownianBridge(const BrownianBridge&) = delete;
  BrownianBridge& operator=(const BrownianBridge&) = delete;

  Backend backend() const noexcept { return backend_; }
  int dimension() const noexcept { return dimension_; }
  std::int64_t interior_points() const noexcept { return static_cast<std::int64_t>(times_.size()) - 2; }
  bool fixed_end() const noexcept { return fixed_end_.has_value(); }
  // Records of Z per path (N + 1 free, N fixed end) and of output per path (N + 1).
  std::int64_t z_records() const noexcept { return interior_points() + (fixed_end() ? 0 : 1); }
  std::int64_t output_records() const noexcept { return interior_points() + 1; }
  // t0, t_1..t_N, T.
  const std::vector<double>& times() const noexcept { return times_; }
  const std::vector<double>& factor() const noexcept { return factor_; }
  const std::vector<double>& start() const noexcept { return start_; }
  // w for a fixed-end bridge.
  const std::optional<std::vector<double>>& end_value() const noexcept { return fixed_end_; }
  // The compiled strategy: an order equivalent to the caller's with a minimal stack.
  const std::vector<BridgeStep>& steps() const noexcept { return steps_; }
  std::uint32_t stack_size() const noexcept { return stack_size_; }

  // g05xb / g05xd. Device pointers and asynchronous on options.stream for the CUDA
  // backend (keep the bridge alive until the work completes); host pointers,
  // synchronous, for the CPU backend. `z` holds paths x
  // z_records() records, `output` paths x output_records() records (layouts above).
  template <class T>
  void generate_paths(std::int64_t paths, const T* z, T* output,
                      const BridgeGenerateOptions& options = {}) const;
  template <class T>
  void generate_increments(std::int64_t paths, const T* z, T* output,
                           const BridgeGenerateOptions& options = {}) const;

  // Fused quasi-random bridge: path p is driven by point offset + p of a Sobol
  // sequence of z_records() * dimension() dimensions, dimension r * d + j feeding
  // element j of Z record r, so the lowest dimensions build X_T and the first points
  // of the construction order. The numbers are those of the two-step route (a
  // cuRAND generator of the same sequence, dimensions and offset writing Z, which is
  // then path-fastest, followed by generate_paths), to rounding. CUDA: one kernel
  // draws the normals in registers and Z never touches memory; CPU: cuRAND's host
  // generator a block of paths at a time, then the OpenMP bridge. Limits (not
  // supported beyond): 20,000 dimensions; offset + paths <= 2^32 for the 32-bit
  // sequences; on the GPU the Sobol tables and stack must fit in shared memory
  // (docs/brownian_bridge.md); on the CPU offset < 2^32 (cuRAND's host generator
  // keeps only the low 32 bits of an offset).
  template <class T>
  void generate_sobol_paths(std::int64_t paths, T* output, const SobolBridgeOptions& options = {}) const;
  template <class T>
  void generate_sobol_increments(std::int64_t paths, T* output,
                                 const SobolBridgeOptions& options = {}) const;

  // Host convenience: copies through the device for the CUDA backend.
  template <class T>
  std::vector<T> generate_paths(std::int64_t paths, const std::vector<T>& z,
                                const BridgeGenerateOptions& options = {}) const;
  template <class T>
  std::vector<T> generate_increments(std::int64_t paths, const std::vector<T>& z,
                                     const BridgeGenerateOptions& options = {}) const;

 private:
  template <class T>
  void generate(bool increments, std::int64_t paths, const T* z, T* output,
                const BridgeGenerateOptions& options) const;
  template <class T>
  void generate_sobol(bool increments, std::int64_t paths, T* output,
                      const SobolBridgeOptions& options) const;
  template <class T>
  std::vector<T> generate_host(bool increments, std::int64_t paths, const std::vector<T>& z,
                               const BridgeGenerateOptions& options) const;

  friend const detail::BridgeDeviceStrategy* detail::device_strategy(const BrownianBridge& bridge) noexcept;
  struct DeviceStrategy;
  Backend backend_;
  int dimension_;
  std::vector<double> times_;
  std::vector<double> factor_;
  std::vector<double> start_;
  std::optional<std::vector<double>> fixed_end_;
  std::vector<BridgeStep> steps_;
  std::uint32_t stack_size_ = 0;
  std::unique_ptr<DeviceStrategy> device_;
};

}  // namespace cunum
