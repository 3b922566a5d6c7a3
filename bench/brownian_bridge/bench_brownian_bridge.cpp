// cunum-bench-brownian-bridge: the Brownian bridge on the seed paper's problem
// (du Toit, "Brownian bridge on GPUs": 1,439,744 paths of 64 steps on t_i = i / 64,
// bisection order, d = 1, free bridge, Z and output path-fastest).
//   GPU, when a CUDA device exists: (Table 1) every strategy, sample paths and scaled
//   increments, float and double, beside the seed's C2050 figures, with each kernel's
//   registers, stack frame and occupancy; the same for d = 3 with a full covariance
//   and for a random construction order; the fused Sobol bridge against cuRAND's
//   Sobol generator followed by the bridge.
//   CPU: (Table 2) the OpenMP backend at 1..16 threads beside the seed's Xeon figures,
//   and at one thread against QuantLib::BrownianBridge::transform when QuantLib is
//   built in.
// Z is drawn by cuRAND's Philox with a fixed seed. GPU times are medians of
// CUDA-event timed runs on a cunum::Stream (Z rotated past L2), CPU times medians of
// fewer std::chrono runs. GB/s counts Z read once and the output written once.
// Every GPU case is checked once, outside timing, element by element against the
// CPU backend on the same Z (the output poisoned first); the fused Sobol output
// against the two-step route; QuantLib against cunum's increments. A mismatch is
// reported loudly and makes the exit status non-zero.

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#ifdef CUNUM_BENCH_HAVE_QUANTLIB
#include <ql/methods/montecarlo/brownianbridge.hpp>
#endif

#include "bench_harness.hpp"
#include "bridge_tuning.hpp"
#include "src/brownian_bridge/bridge_backends.hpp"
#include "cunum/brownian_bridge.hpp"
#include "curand_generator.hpp"

namespace {

using cunum::Backend;
using cunum::BridgeGenerateOptions;
using cunum::BridgeLayout;
using cunum::BridgeStrategy;
using cunum::BrownianBridge;
using cunum::CovarianceForm;
using cunum::DeviceBuffer;
using cunum::SobolBridgeOptions;
using cunum::SobolSequence;
using cunum::StreamHandle;
using cunum::bench::BenchEnvironment;
using cunum::bench::BenchOptions;
using cunum::bench::BenchReport;
using cunum::bench::BenchRow;
using cunum::bench::RotatingDeviceInput;
using cunum::detail::BridgeKernelInfo;

constexpr const char* kProgram = "cunum-bench-brownian-bridge";
constexpr const char* kModule = "brownian_bridge";
constexpr std::int64_t kSeedPaths = 1439744;
constexpr std::int64_t kQuickPaths = std::int64_t{1} << 14;
constexpr int kSeedSteps = 64;  // t_i = i / 64: N = 63 interior times, then T
constexpr double kStartTime = 0.0;
constexpr double kEndTime = 1.0;
constexpr unsigned long long kNormalSeed = 20100601ull;  // Philox: every run draws the same Z
constexpr unsigned kShuffleSeed = 1234u;                  // the random construction order
constexpr unsigned long long kSobolOffset = 0;
constexpr double kFloatTolerance = 1e-5;
constexpr double kDoubleTolerance = 1e-12;
constexpr double kBestTargetPercentD1 = 90.0;  // of the copy bandwidth
constexpr double kBestTargetPercentD3 = 85.0;
constexpr double kAutomaticSlackPercent = 5.0;  // automatic within this of the best
constexpr double kFusedSpeedupTarget = 1.8;
constexpr int kCpuThreadCounts[] = {1, 2, 4, 8, 16};
constexpr int kQuickCpuThreadCounts[] = {1, 2};
// CPU runs take ~100x longer than GPU runs: a fifth of the runs, at least three.
constexpr int kCpuRunsDivisor = 5;
constexpr int kMinCpuRuns = 3;

enum class OutputKind { paths, increments };

const char* kind_name(OutputKind kind) { return kind == OutputKind::paths ? "paths" : "increments"; }

template <class T>
const char* precision_name() {
  return std::is_same_v<T, double> ? "float64" : "float32";
}

template <class T>
double relative_tolerance() {
  return std::is_same_v<T, double> ? kDoubleTolerance : kFloatTolerance;
}

template <class T>
void generate(const BrownianBridge& bridge, OutputKind kind, std::int64_t paths, const T* z, T* output,
              const BridgeGenerateOptions& options) {
  if (kind == OutputKind::paths) {
    bridge.generate_paths(paths, z, output, options);
  } else {
    bridge.generate_increments(paths, z, output, options);
  }
}

template <class T>
void generate_sobol(const BrownianBridge& bridge, OutputKind kind, std::int64_t paths, T* output,
                    const SobolBridgeOptions& options) {
  if (kind == OutputKind::paths) {
    bridge.generate_sobol_paths(paths, output, options);
  } else {
    bridge.generate_sobol_increments(paths, output, options);
  }
}

// ---------------------------------------------------------------------------
// The problems.

struct BridgeProblem {
  std::string title;  // section title
  std::string name;   // in summary lines
  int dimension = 1;
  std::vector<double> covariance;
  CovarianceForm form = CovarianceForm::factor;
  std::vector<double> order;
  std::vector<OutputKind> kinds;
  double best_target_percent = kBestTargetPercentD1;
  bool is_seed = false;  // the seed's figures apply (at its size)
};

// 1,439,744 rather than 1439744.
std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n);
  for (auto i = static_cast<std::ptrdiff_t>(digits.size()) - 3; i > 0; i -= 3) {
    digits.insert(static_cast<std::size_t>(i), ",");
  }
  return digits;
}

// The interior times t_i = i / 64, i = 1..63.
std::vector<double> seed_grid() {
  std::vector<double> grid;
  for (int i = 1; i < kSeedSteps; ++i) grid.push_back(static_cast<double>(i) / kSeedSteps);
  return grid;
}

std::string problem_size(std::int64_t paths) {
  return grouped(paths) + " paths x " + std::to_string(kSeedSteps) + " steps";
}

BridgeProblem seed_problem(std::int64_t paths) {
  BridgeProblem problem;
  problem.title = "Table 1: GPU strategies, seed problem (" + problem_size(paths) + ", bisection, d = 1)";
  problem.name = "seed problem";
  problem.covariance = {1.0};
  problem.order = cunum::make_bridge_order(seed_grid(), cunum::BridgeOrder::bisection);
  problem.kinds = {OutputKind::paths, OutputKind::increments};
  problem.is_seed = true;
  return problem;
}

BridgeProblem full_covariance_problem(std::int64_t paths) {
  BridgeProblem problem;
  problem.title = "d = 3, full covariance (" + problem_size(paths) +
                  ", bisection, Sigma = [[1, .5, .3], [.5, 1, .4], [.3, .4, 1]])";
  problem.name = "d = 3 full covariance";
  problem.dimension = 3;
  problem.covariance = {1.0, 0.5, 0.3, 0.5, 1.0, 0.4, 0.3, 0.4, 1.0};
  problem.form = CovarianceForm::covariance;
  problem.order = cunum::make_bridge_order(seed_grid(), cunum::BridgeOrder::bisection);
  problem.kinds = {OutputKind::paths};
  problem.best_target_percent = kBestTargetPercentD3;
  return problem;
}

BridgeProblem random_order_problem(std::int64_t paths) {
  BridgeProblem problem;
  problem.title = "random construction order (" + problem_size(paths) + ", fixed-seed shuffle, d = 1)";
  problem.name = "random order";
  problem.covariance = {1.0};
  problem.order = seed_grid();
  std::shuffle(problem.order.begin(), problem.order.end(), std::mt19937(kShuffleSeed));
  problem.kinds = {OutputKind::paths};
  return problem;
}

BrownianBridge make_bridge(const BridgeProblem& problem, Backend backend) {
  return BrownianBridge(kStartTime, kEndTime, problem.order, problem.dimension, problem.covariance, problem.form,
                        std::vector<double>(static_cast<std::size_t>(problem.dimension), 0.0), std::nullopt,
                        backend);
}

std::size_t z_count(const BrownianBridge& bridge, std::int64_t paths) {
  return static_cast<std::size_t>(paths * bridge.z_records() * bridge.dimension());
}

std::size_t output_count(const BrownianBridge& bridge, std::int64_t paths) {
  return static_cast<std::size_t>(paths * bridge.output_records() * bridge.dimension());
}

// Bytes a generate call must move: Z read once, the output written once.
template <class T>
double bridge_bytes(const BrownianBridge& bridge, std::int64_t paths) {
  return static_cast<double>(z_count(bridge, paths) + output_count(bridge, paths)) * sizeof(T);
}

double smallest_step(const BrownianBridge& bridge) {
  const std::vector<double>& times = bridge.times();
  double step = std::numeric_limits<double>::infinity();
  for (std::size_t i = 1; i < times.size(); ++i) step = std::min(step, times[i] - times[i - 1]);
  return step;
}

template <class T>
double max_abs(const std::vector<T>& values) {
  const auto n = static_cast<std::int64_t>(values.size());
  double largest = 0.0;
#pragma omp parallel for reduction(max : largest)
  for (std::int64_t i = 0; i < n; ++i) largest = std::max(largest, std::fabs(static_cast<double>(values[i])));
  return largest;
}

// ---------------------------------------------------------------------------
// Verification.

// The bound for a bridge output element: paths against the scale of the paths,
// increments against their own size plus the cancellation of two path values
// divided by the smallest step.
struct BridgeTolerance {
  OutputKind kind;
  double relative;
  double max_abs_path;
  double min_step;
  double operator()(double expected) const {
    return kind == OutputKind::paths ? relative * std::max(1.0, max_abs_path)
                                     : relative * (std::fabs(expected) + 2.0 * max_abs_path / min_step);
  }
};

// Relative to the expected value, absolute below 1.
struct RelativeTolerance {
  double relative;
  double operator()(double expected) const { return relative * std::max(1.0, std::fabs(expected)); }
};

// Outputs element by element against their references; failures go to the run's log.
class Verifier : public cunum::bench::FailureLog {
 public:
  // Every element of `got` against `want`, within bound(expected).
  template <class T, class Bound>
  void check(const std::string& what, const std::vector<T>& got, const std::vector<T>& want, const Bound& bound) {
    if (got.size() != want.size()) {
      fail(what + ": " + std::to_string(got.size()) + " elements, expected " + std::to_string(want.size()));
      return;
    }
    const auto n = static_cast<std::int64_t>(want.size());
    std::int64_t mismatches = 0;
#pragma omp parallel for reduction(+ : mismatches)
    for (std::int64_t i = 0; i < n; ++i) {
      if (!within(got[i], want[i], bound)) ++mismatches;
    }
    if (mismatches == 0) return;
    std::int64_t first = 0;
    while (within(got[first], want[first], bound)) ++first;
    char detail[256];
    std::snprintf(detail, sizeof detail,
                  ": %lld of %lld elements out of tolerance; first at %lld: got %.17g, expected %.17g, "
                  "tolerance %.3g",
                  static_cast<long long>(mismatches), static_cast<long long>(n), static_cast<long long>(first),
                  static_cast<double>(got[first]), static_cast<double>(want[first]), bound(want[first]));
    fail(what + detail);
  }

 private:
  // NaN, what a poisoned element left unwritten reads as, is never within.
  template <class T, class Bound>
  static bool within(T got, T want, const Bound& bound) {
    const double expected = static_cast<double>(want);
    return std::fabs(static_cast<double>(got) - expected) <= bound(expected);
  }
};

// ---------------------------------------------------------------------------
// Report plumbing.

BenchRow new_row(const std::string& case_name, const char* precision, std::int64_t n) {
  BenchRow row;
  row.module = kModule;
  row.case_name = case_name;
  row.precision = precision;
  row.n = n;
  return row;
}

double percent_of_copy(double bytes, double ms, const BenchEnvironment& environment) {
  return 100.0 * bytes / (ms * 1e6) / environment.copy_gbps;
}

// A strategy or kernel that cannot serve a problem: a row without a time.
void add_not_supported(BenchReport& report, BenchRow row, const cunum::Error& error) {
  row.median_ms = std::numeric_limits<double>::quiet_NaN();
  row.note = std::string("not supported: ") + error.what();
  report.add(row);
}

void print_summaries(const std::vector<std::string>& lines) {
  std::printf("\n");
  for (const std::string& line : lines) std::printf("summary: %s\n", line.c_str());
  std::fflush(stdout);
}

// One titled report per section; the harness appends every section's rows to the
// run's --json file.
class Sections {
 public:
  explicit Sections(const BenchEnvironment& environment) : environment_(environment) {}

  // `body(report)` adds the rows; `options` are the section's (runs, warm-ups).
  template <class Body>
  void run(const BenchOptions& options, const std::string& title, const Body& body) {
    if (!cunum::bench::section_selected(options, title)) return;
    std::printf("\n");
    BenchReport report(environment_, options, std::string(kProgram) + ": " + title);
    body(report);
  }

 private:
  const BenchEnvironment& environment_;
};

// Everything one run of the bench shares.
struct BenchContext {
  const BenchOptions& options;
  const BenchEnvironment& environment;
  Verifier& verifier;
  std::int64_t paths;
  cunum::Stream* stream;  // null without a CUDA device
};

// The GPU's best explicit strategy per (precision, output kind) on the seed problem,
// for the CPU table's speed-ups.
struct GpuBest {
  std::string strategy;
  double median_ms = 0.0;
};
using GpuBestTimes = std::map<std::pair<std::string, OutputKind>, GpuBest>;

// ---------------------------------------------------------------------------
// GPU strategies (Table 1 and the two further problems).

struct StrategyEntry {
  BridgeStrategy strategy;
  const char* label;  // the seed's number
};
constexpr StrategyEntry kStrategies[] = {
    {BridgeStrategy::constant_memory, "1"},
    {BridgeStrategy::vectorized, "2"},
    {BridgeStrategy::prefetch, "3"},
    {BridgeStrategy::shared_memory, "4"},
    {BridgeStrategy::shared_memory_reuse, "5"},
    {BridgeStrategy::shared_memory_reuse_prefetch, "5p"},
    {BridgeStrategy::automatic, ""},
};

// The seed's C2050 figures: Table 1 (float sample paths, ECC on, 120 GB/s peak) and,
// for 5 with prefetch, its summary of the four precision/output cases.
struct SeedGpuFigure {
  BridgeStrategy strategy;
  bool is_double;
  OutputKind kind;
  const char* note;
};
constexpr SeedGpuFigure kSeedC2050[] = {
    {BridgeStrategy::constant_memory, false, OutputKind::paths,
     "C2050 (seed): 20 regs, 100% occupancy, 29 GB/s (24.1% of 120)"},
    {BridgeStrategy::vectorized, false, OutputKind::paths, "C2050 (seed): 20-34 regs, 100%-54% occupancy, < 29 GB/s"},
    {BridgeStrategy::prefetch, false, OutputKind::paths,
     "C2050 (seed, P = 8): 34 regs, 58% occupancy, 58 GB/s (48.3%)"},
    {BridgeStrategy::shared_memory, false, OutputKind::paths, "C2050 (seed): 42 regs, 45% occupancy, 85 GB/s (70.8%)"},
    {BridgeStrategy::shared_memory_reuse, false, OutputKind::paths,
     "C2050 (seed, 5 without prefetch): 24 regs, 43% occupancy, 79 GB/s (65.8%)"},
    {BridgeStrategy::shared_memory_reuse_prefetch, false, OutputKind::paths,
     "C2050 (seed, 5 with prefetch): 33 regs, 58% occupancy, 102 GB/s (85%), 10.01 ms"},
    {BridgeStrategy::shared_memory_reuse_prefetch, true, OutputKind::paths,
     "C2050 (seed): 38 regs, 33% occupancy, 115.66 GB/s, 17.12 ms"},
    {BridgeStrategy::shared_memory_reuse_prefetch, false, OutputKind::increments, "C2050 (seed): 9.09 ms, 109 GB/s"},
    {BridgeStrategy::shared_memory_reuse_prefetch, true, OutputKind::increments, "C2050 (seed): 17.01 ms, 116.3 GB/s"},
};

const char* seed_c2050_note(BridgeStrategy strategy, bool is_double, OutputKind kind) {
  for (const SeedGpuFigure& figure : kSeedC2050) {
    if (figure.strategy == strategy && figure.is_double == is_double && figure.kind == kind) return figure.note;
  }
  return nullptr;
}

std::string strategy_case_name(OutputKind kind, const StrategyEntry& entry) {
  std::string name = kind_name(kind);
  if (*entry.label != '\0') name += std::string(" ") + entry.label;
  return name + " " + cunum::to_string(entry.strategy);
}

// Registers, stack frame, occupancy and paths per thread of the kernel a call launches.
std::string kernel_note(const BridgeKernelInfo& kernel) {
  const int max_threads = cunum::device_properties().max_threads_per_multiprocessor;
  const double occupancy =
      100.0 * kernel.blocks_per_multiprocessor * kernel.threads_per_block / static_cast<double>(max_threads);
  char text[320];
  std::snprintf(text, sizeof text,
                "%s: %d regs/thread, %d B stack frame, occupancy %.1f%% (%d blocks x %d threads per SM, "
                "%zu B shared/block), %d path(s)/thread",
                kernel.kernel, kernel.registers, kernel.local_bytes, occupancy, kernel.blocks_per_multiprocessor,
                kernel.threads_per_block, kernel.shared_bytes, kernel.paths_per_thread);
  return text;
}

// One problem, precision and output kind on the GPU: the bridge, Z, the output
// buffer and the CPU backend's result on the same Z.
template <class T>
struct GpuCase {
  const BridgeProblem& problem;
  const BrownianBridge& bridge;
  OutputKind kind;
  RotatingDeviceInput<T>& z;
  DeviceBuffer<T>& output;
  const std::vector<T>& reference;
  BridgeTolerance tolerance;
};

struct StrategyResult {
  BridgeStrategy strategy;
  std::optional<double> median_ms;  // empty: not supported
  std::string resolved;             // what automatic runs
};

template <class T>
StrategyResult bench_strategy(BenchContext& context, BenchReport& report, const GpuCase<T>& gpu_case,
                              const StrategyEntry& entry) {
  const BrownianBridge& bridge = gpu_case.bridge;
  const StreamHandle stream = *context.stream;
  const std::int64_t paths = context.paths;
  BenchRow row = new_row(strategy_case_name(gpu_case.kind, entry), precision_name<T>(), paths);
  row.bytes_moved = bridge_bytes<T>(bridge, paths);
  StrategyResult result{entry.strategy, std::nullopt, ""};

  BridgeGenerateOptions options;
  options.strategy = entry.strategy;
  options.stream = stream;
  BridgeKernelInfo kernel;
  try {
    kernel = cunum::detail::describe_bridge_kernel(bridge, gpu_case.kind == OutputKind::increments, paths,
                                                   gpu_case.z.next(), gpu_case.output.data(), options);
  } catch (const cunum::Error& error) {
    if (error.code() != cunum::ErrorCode::not_supported) throw;
    add_not_supported(report, row, error);
    return result;
  }

  gpu_case.output.fill_bytes_async(0xFF);
  generate(bridge, gpu_case.kind, paths, gpu_case.z.next(), gpu_case.output.data(), options);
  context.verifier.check(gpu_case.problem.name + " " + row.case_name + " " + row.precision + " vs CPU backend",
                         gpu_case.output.to_host(), gpu_case.reference, gpu_case.tolerance);

  row.median_ms = cunum::bench::median_device_ms(context.options, stream, [&] {
    generate(bridge, gpu_case.kind, paths, gpu_case.z.next(), gpu_case.output.data(), options);
  });
  result.median_ms = row.median_ms;
  if (entry.strategy == BridgeStrategy::automatic) {
    result.resolved =
        cunum::to_string(cunum::detail::bridge_select_strategy(bridge, entry.strategy, std::is_same_v<T, double>));
    row.note = "automatic = " + result.resolved + "; ";
  }
  row.note += kernel_note(kernel);
  const char* seed_note = seed_c2050_note(entry.strategy, std::is_same_v<T, double>, gpu_case.kind);
  if (gpu_case.problem.is_seed && paths == kSeedPaths && seed_note != nullptr) {
    row.note += std::string("; ") + seed_note;
  }
  report.add(row);
  return result;
}

const char* verdict(bool met) { return met ? "met" : "MISSED"; }

// The fastest explicit strategy that ran, or null.
const StrategyResult* fastest_strategy(const std::vector<StrategyResult>& results) {
  const StrategyResult* fastest = nullptr;
  for (const StrategyResult& result : results) {
    if (!result.median_ms || result.strategy == BridgeStrategy::automatic) continue;
    if (fastest == nullptr || *result.median_ms < *fastest->median_ms) fastest = &result;
  }
  return fastest;
}

// The fastest explicit strategy, its share of the copy bandwidth, and automatic
// against it, each with its target.
std::string summarize_strategies(const BridgeProblem& problem, OutputKind kind, const char* precision, double bytes,
                                 const BenchEnvironment& environment, const std::vector<StrategyResult>& results) {
  const StrategyResult* fastest = fastest_strategy(results);
  const StrategyResult* automatic = nullptr;
  for (const StrategyResult& result : results) {
    if (result.median_ms && result.strategy == BridgeStrategy::automatic) automatic = &result;
  }
  std::string line = problem.name + ", " + kind_name(kind) + ", " + precision + ": ";
  if (fastest == nullptr) return line + "no strategy serves this problem (targets MISSED)";

  const double percent = percent_of_copy(bytes, *fastest->median_ms, environment);
  char text[512];
  std::snprintf(text, sizeof text, "best %s, %.4f ms, %.1f%% of copy (target >= %.0f%%: %s); ",
                cunum::to_string(fastest->strategy), *fastest->median_ms, percent, problem.best_target_percent,
                verdict(percent >= problem.best_target_percent));
  line += text;
  if (automatic == nullptr) {
    std::snprintf(text, sizeof text, "automatic not supported (target within %.0f%% of best: MISSED)",
                  kAutomaticSlackPercent);
    return line + text;
  }
  const double slower = 100.0 * (*automatic->median_ms / *fastest->median_ms - 1.0);
  std::snprintf(text, sizeof text, "automatic = %s, %.1f%% %s than best (%s) (target within %.0f%% of best: %s)",
                automatic->resolved.c_str(), std::fabs(slower), slower >= 0 ? "slower" : "faster",
                cunum::to_string(fastest->strategy), kAutomaticSlackPercent,
                verdict(slower <= kAutomaticSlackPercent));
  return line + text;
}

// Every strategy on one problem in one precision: returns the summary lines and
// records the seed problem's best times.
template <class T>
std::vector<std::string> bench_strategies(BenchContext& context, BenchReport& report, const BridgeProblem& problem,
                                          GpuBestTimes& gpu_best) {
  const std::int64_t paths = context.paths;
  const StreamHandle stream = *context.stream;
  const BrownianBridge bridge = make_bridge(problem, Backend::cuda);
  const BrownianBridge cpu_bridge = make_bridge(problem, Backend::cpu);
  const std::vector<T> z_host =
      cunum::bench::philox_normals<T>(z_count(bridge, paths), kNormalSeed, context.stream);
  RotatingDeviceInput<T> z(z_host.data(), z_host.size(), context.environment, context.options, stream);
  DeviceBuffer<T> output(output_count(bridge, paths), stream);
  const std::vector<T> reference_paths = cpu_bridge.generate_paths(paths, z_host);
  const double max_abs_path = max_abs(reference_paths);

  std::vector<std::string> summaries;
  for (const OutputKind kind : problem.kinds) {
    std::vector<T> reference_increments;
    if (kind == OutputKind::increments) reference_increments = cpu_bridge.generate_increments(paths, z_host);
    const GpuCase<T> gpu_case{problem,
                              bridge,
                              kind,
                              z,
                              output,
                              kind == OutputKind::paths ? reference_paths : reference_increments,
                              {kind, relative_tolerance<T>(), max_abs_path, smallest_step(bridge)}};
    std::vector<StrategyResult> results;
    for (const StrategyEntry& entry : kStrategies) results.push_back(bench_strategy(context, report, gpu_case, entry));
    summaries.push_back(summarize_strategies(problem, kind, precision_name<T>(), bridge_bytes<T>(bridge, paths),
                                             context.environment, results));
    const StrategyResult* fastest = fastest_strategy(results);
    if (problem.is_seed && fastest != nullptr) {
      gpu_best[{precision_name<T>(), kind}] = GpuBest{cunum::to_string(fastest->strategy), *fastest->median_ms};
    }
  }
  return summaries;
}

// ---------------------------------------------------------------------------
// The fused Sobol bridge against cuRAND's Sobol generator followed by the bridge.

template <class T>
std::vector<std::string> bench_sobol(BenchContext& context, BenchReport& report, SobolSequence sequence) {
  const std::int64_t paths = context.paths;
  const StreamHandle stream = *context.stream;
  const BrownianBridge bridge = make_bridge(seed_problem(paths), Backend::cuda);
  const auto dimensions = static_cast<unsigned>(bridge.z_records() * bridge.dimension());
  const std::size_t z_elements = z_count(bridge, paths);
  DeviceBuffer<T> fused(output_count(bridge, paths), stream);
  DeviceBuffer<T> two_step(output_count(bridge, paths), stream);
  DeviceBuffer<T> z(z_elements, stream);

  SobolBridgeOptions sobol_options;
  sobol_options.sequence = sequence;
  sobol_options.offset = kSobolOffset;
  sobol_options.stream = stream;
  BridgeGenerateOptions bridge_options;
  bridge_options.strategy = BridgeStrategy::automatic;
  bridge_options.stream = stream;
  const std::string peer = std::string("cuRAND ") + cunum::to_string(sequence) + " + cunum bridge (automatic)";

  std::vector<std::string> summaries;
  for (const OutputKind kind : {OutputKind::paths, OutputKind::increments}) {
    BenchRow row = new_row(std::string("sobol ") + kind_name(kind) + " " + cunum::to_string(sequence),
                           precision_name<T>(), paths);
    row.bytes_moved = static_cast<double>(output_count(bridge, paths)) * sizeof(T);
    row.peer = peer;
    BridgeKernelInfo kernel;
    try {
      kernel = cunum::detail::describe_sobol_bridge_kernel(bridge, kind == OutputKind::increments, paths,
                                                           fused.data(), sobol_options);
    } catch (const cunum::Error& error) {
      if (error.code() != cunum::ErrorCode::not_supported) throw;
      add_not_supported(report, row, error);
      continue;
    }
    const auto run_fused = [&] { generate_sobol(bridge, kind, paths, fused.data(), sobol_options); };
    // A quasi generator moves on with every call: each run draws the next points.
    const auto run_two_step = [&](cunum::bench::CurandGenerator& generator) {
      generator.normals(z.data(), z_elements);
      generate(bridge, kind, paths, z.data(), two_step.data(), bridge_options);
    };

    {
      cunum::bench::CurandGenerator fresh = cunum::bench::sobol_generator(sequence, dimensions, kSobolOffset, stream);
      fused.fill_bytes_async(0xFF);
      two_step.fill_bytes_async(0xFF);
      run_fused();
      run_two_step(fresh);
      context.verifier.check(row.case_name + " " + row.precision + " vs " + peer, fused.to_host(), two_step.to_host(),
                             RelativeTolerance{relative_tolerance<T>()});
    }

    row.median_ms = cunum::bench::median_device_ms(context.options, stream, run_fused);
    cunum::bench::CurandGenerator timed = cunum::bench::sobol_generator(sequence, dimensions, kSobolOffset, stream);
    row.peer_median_ms = cunum::bench::median_device_ms(context.options, stream, [&] { run_two_step(timed); });
    row.note = kernel_note(kernel) + "; GB/s counts the output only (the peer also writes and reads Z)";
    report.add(row);

    const double speedup = *row.peer_median_ms / row.median_ms;
    char text[320];
    std::snprintf(text, sizeof text, "%s %s: fused %.4f ms vs %s %.4f ms = %.2fx (target >= %.1fx: %s)",
                  row.case_name.c_str(), row.precision.c_str(), row.median_ms, peer.c_str(), *row.peer_median_ms,
                  speedup, kFusedSpeedupTarget, verdict(speedup >= kFusedSpeedupTarget));
    summaries.push_back(text);
  }
  return summaries;
}

// ---------------------------------------------------------------------------
// Tuning sweep: kernel variants instantiated from the library's templates (see
// bridge_tuning.hpp), each verified and timed like the strategies; strategy 4 at
// 1x and 4x the paths shows what the last, partly filled wave of blocks costs.

template <class T>
void bench_shared_variants(BenchContext& context, BenchReport& report, const BridgeProblem& problem) {
  const std::int64_t paths = context.paths;
  const StreamHandle stream = *context.stream;
  const BrownianBridge bridge = make_bridge(problem, Backend::cuda);
  const std::vector<T> z_host = cunum::bench::philox_normals<T>(z_count(bridge, paths), kNormalSeed, context.stream);
  RotatingDeviceInput<T> z(z_host.data(), z_host.size(), context.environment, context.options, stream);
  DeviceBuffer<T> output(output_count(bridge, paths), stream);
  const std::vector<T> reference = make_bridge(problem, Backend::cpu).generate_paths(paths, z_host);
  const BridgeTolerance tolerance{OutputKind::paths, relative_tolerance<T>(), max_abs(reference), smallest_step(bridge)};
  const auto& strategy = *cunum::detail::device_strategy(bridge);
  const auto args = [&] {
    return cunum::detail::bridge_args<T>(bridge, false, paths, z.next(), output.data(), BridgeLayout::path_fastest,
                                         BridgeLayout::path_fastest);
  };
  for (const auto& variant : cunum::bench::shared_kernel_variants<T>(problem.dimension)) {
    BenchRow row = new_row("tuning paths " + variant.name, precision_name<T>(), paths);
    row.bytes_moved = bridge_bytes<T>(bridge, paths);
    BridgeKernelInfo kernel;
    variant.launch(strategy, args(), stream, &kernel);
    output.fill_bytes_async(0xFF);
    variant.launch(strategy, args(), stream, nullptr);
    context.verifier.check(problem.name + " " + row.case_name + " " + row.precision + " vs CPU backend",
                           output.to_host(), reference, tolerance);
    row.median_ms = cunum::bench::median_device_ms(context.options, stream,
                                                   [&] { variant.launch(strategy, args(), stream, nullptr); });
    row.note = problem.name + "; " + kernel_note(kernel);
    report.add(row);
  }
}

// Strategy 4 on the seed problem with `multiple` times the paths.
template <class T>
void bench_paths_scaling(BenchContext& context, BenchReport& report, int multiple) {
  const std::int64_t paths = context.paths * multiple;
  const StreamHandle stream = *context.stream;
  const BridgeProblem problem = seed_problem(paths);
  const BrownianBridge bridge = make_bridge(problem, Backend::cuda);
  const std::vector<T> z_host = cunum::bench::philox_normals<T>(z_count(bridge, paths), kNormalSeed, context.stream);
  const auto z = DeviceBuffer<T>::from_host(z_host, stream);
  DeviceBuffer<T> output(output_count(bridge, paths), stream);
  const std::vector<T> reference = make_bridge(problem, Backend::cpu).generate_paths(paths, z_host);
  BridgeGenerateOptions options;
  options.strategy = BridgeStrategy::shared_memory;
  options.stream = stream;
  BenchRow row = new_row("tuning paths 4 shared_memory, " + std::to_string(multiple) + "x seed paths",
                         precision_name<T>(), paths);
  row.bytes_moved = bridge_bytes<T>(bridge, paths);
  output.fill_bytes_async(0xFF);
  bridge.generate_paths(paths, z.data(), output.data(), options);
  context.verifier.check(row.case_name + " " + row.precision + " vs CPU backend", output.to_host(), reference,
                         BridgeTolerance{OutputKind::paths, relative_tolerance<T>(), max_abs(reference),
                                         smallest_step(bridge)});
  row.median_ms = cunum::bench::median_device_ms(
      context.options, stream, [&] { bridge.generate_paths(paths, z.data(), output.data(), options); });
  row.note = kernel_note(cunum::detail::describe_bridge_kernel(bridge, false, paths, z.data(), output.data(), options));
  report.add(row);
}

template <class T>
void bench_sobol_variants(BenchContext& context, BenchReport& report) {
  const std::int64_t paths = context.paths;
  const StreamHandle stream = *context.stream;
  const BrownianBridge bridge = make_bridge(seed_problem(paths), Backend::cuda);
  DeviceBuffer<T> output(output_count(bridge, paths), stream);
  SobolBridgeOptions sobol_options;
  sobol_options.sequence = SobolSequence::scrambled_sobol32;
  sobol_options.stream = stream;
  bridge.generate_sobol_paths(paths, output.data(), sobol_options);
  const std::vector<T> reference = output.to_host();
  const auto& strategy = *cunum::detail::device_strategy(bridge);
  const auto& tables = strategy.sobol_tables(bridge, sobol_options.sequence);
  const auto args = cunum::detail::bridge_args<T>(bridge, false, paths, nullptr, output.data(),
                                                  BridgeLayout::path_fastest, BridgeLayout::path_fastest);
  for (const auto& variant : cunum::bench::sobol_kernel_variants<T>()) {
    BenchRow row = new_row("tuning sobol paths " + variant.name, precision_name<T>(), paths);
    row.bytes_moved = static_cast<double>(output_count(bridge, paths)) * sizeof(T);
    BridgeKernelInfo kernel;
    variant.launch(strategy, args, kSobolOffset, tables, stream, &kernel);
    output.fill_bytes_async(0xFF);
    variant.launch(strategy, args, kSobolOffset, tables, stream, nullptr);
    context.verifier.check(row.case_name + " " + row.precision + " vs generate_sobol_paths", output.to_host(),
                           reference, RelativeTolerance{relative_tolerance<T>()});
    row.median_ms = cunum::bench::median_device_ms(
        context.options, stream, [&] { variant.launch(strategy, args, kSobolOffset, tables, stream, nullptr); });
    row.note = kernel_note(kernel) + "; GB/s counts the output only";
    report.add(row);
  }
}

// ---------------------------------------------------------------------------
// CPU: the OpenMP backend (Table 2) and QuantLib.

// Sets the OpenMP thread count; restores the one it found when it goes.
class OmpThreadCount {
 public:
  OmpThreadCount() : saved_(omp_get_max_threads()) {}
  ~OmpThreadCount() { omp_set_num_threads(saved_); }
  OmpThreadCount(const OmpThreadCount&) = delete;
  OmpThreadCount& operator=(const OmpThreadCount&) = delete;
  void set(int threads) const { omp_set_num_threads(threads); }

 private:
  int saved_;
};

// 1 always, then those the host has processors for.
std::vector<int> cpu_thread_counts(bool quick) {
  const int processors = omp_get_num_procs();
  std::vector<int> counts;
  const auto add = [&](int threads) {
    if (threads == 1 || threads <= processors) counts.push_back(threads);
  };
  if (quick) {
    for (const int threads : kQuickCpuThreadCounts) add(threads);
  } else {
    for (const int threads : kCpuThreadCounts) add(threads);
  }
  return counts;
}

BenchOptions cpu_run_options(const BenchOptions& options) {
  BenchOptions cpu = options;
  cpu.timed_runs = std::max(kMinCpuRuns, options.timed_runs / kCpuRunsDivisor);
  cpu.warmup_runs = 1;
  return cpu;
}

// The seed's Table 2, best systems: Xeon X5680 (12 cores) at 1 and 16 threads,
// Core i7 860 at 1 and 8 threads (float paths only).
struct SeedCpuFigure {
  bool is_double;
  OutputKind kind;
  int threads;
  const char* note;
};
constexpr SeedCpuFigure kSeedCpuFigures[] = {
    {false, OutputKind::paths, 1, "Xeon X5680 (seed): 1392.1 ms; Core i7 860 (seed): 1212.5 ms"},
    {false, OutputKind::paths, 8, "Core i7 860 (seed): 720.3 ms"},
    {false, OutputKind::paths, 16, "Xeon X5680 12 cores (seed): 171.2 ms"},
    {true, OutputKind::paths, 1, "Xeon X5680 (seed): 1463.8 ms"},
    {true, OutputKind::paths, 16, "Xeon X5680 12 cores (seed): 193.6 ms"},
    {false, OutputKind::increments, 1, "Xeon X5680 (seed): 1207.4 ms"},
    {false, OutputKind::increments, 16, "Xeon X5680 12 cores (seed): 146.0 ms"},
    {true, OutputKind::increments, 1, "Xeon X5680 (seed): 1308.1 ms"},
    {true, OutputKind::increments, 16, "Xeon X5680 12 cores (seed): 166.2 ms"},
};

const char* seed_cpu_note(bool is_double, OutputKind kind, int threads) {
  for (const SeedCpuFigure& figure : kSeedCpuFigures) {
    if (figure.is_double == is_double && figure.kind == kind && figure.threads == threads) return figure.note;
  }
  return nullptr;
}

std::string paths_per_second(std::int64_t paths, double ms) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3g paths/s", static_cast<double>(paths) / (ms * 1e-3));
  return text;
}

template <class T>
void bench_cpu_backend(BenchContext& context, BenchReport& report, const BenchOptions& cpu_options,
                       const GpuBestTimes& gpu_best) {
  const std::int64_t paths = context.paths;
  const BrownianBridge bridge = make_bridge(seed_problem(paths), Backend::cpu);
  const std::vector<T> z = cunum::bench::philox_normals<T>(z_count(bridge, paths), kNormalSeed, context.stream);
  std::vector<T> output(output_count(bridge, paths));
  const OmpThreadCount thread_count;
  for (const OutputKind kind : {OutputKind::paths, OutputKind::increments}) {
    for (const int threads : cpu_thread_counts(context.options.quick)) {
      thread_count.set(threads);
      BenchRow row = new_row(std::string("cpu ") + kind_name(kind) + " " + std::to_string(threads) +
                                 (threads == 1 ? " thread" : " threads"),
                             precision_name<T>(), paths);
      row.bytes_moved = bridge_bytes<T>(bridge, paths);
      row.median_ms = cunum::bench::median_host_ms(
          cpu_options, [&] { generate(bridge, kind, paths, z.data(), output.data(), BridgeGenerateOptions{}); });
      row.note = paths_per_second(paths, row.median_ms);
      const auto gpu = gpu_best.find({precision_name<T>(), kind});
      if (gpu != gpu_best.end()) {
        char text[160];
        std::snprintf(text, sizeof text, "; GPU %s (%.4f ms) %.1fx faster", gpu->second.strategy.c_str(),
                      gpu->second.median_ms, row.median_ms / gpu->second.median_ms);
        row.note += text;
      }
      const char* seed_note = seed_cpu_note(std::is_same_v<T, double>, kind, threads);
      if (paths == kSeedPaths && seed_note != nullptr) row.note += std::string("; ") + seed_note;
      report.add(row);
    }
  }
}

#ifdef CUNUM_BENCH_HAVE_QUANTLIB
// QuantLib::BrownianBridge on the seed's 64 times, path by path, single thread, in
// double on path-contiguous normals, against cunum's CPU backend at one thread on
// the same normals and layout. QuantLib's default order on 64 times is the seed's
// bisection, so both do the same arithmetic; its output, (X_i - X_{i-1}) / sqrt(dt),
// is checked against cunum's increments.
void bench_quantlib(BenchContext& context, BenchReport& report, const BenchOptions& cpu_options) {
  const std::int64_t paths = context.paths;
  const BrownianBridge bridge = make_bridge(seed_problem(paths), Backend::cpu);
  const std::vector<double> z =
      cunum::bench::philox_normals<double>(z_count(bridge, paths), kNormalSeed, context.stream);
  std::vector<double> quantlib_times;
  for (int i = 1; i <= kSeedSteps; ++i) quantlib_times.push_back(static_cast<double>(i) / kSeedSteps);
  const QuantLib::BrownianBridge quantlib(quantlib_times);
  const auto steps = static_cast<std::int64_t>(quantlib.size());  // = z_records() = output_records()

  const OmpThreadCount thread_count;
  thread_count.set(1);
  std::vector<double> quantlib_output(output_count(bridge, paths));
  const double quantlib_ms = cunum::bench::median_host_ms(cpu_options, [&] {
    for (std::int64_t p = 0; p < paths; ++p) {
      quantlib.transform(z.data() + p * steps, z.data() + (p + 1) * steps, quantlib_output.data() + p * steps);
    }
  });
  // QuantLib's variations in the scale of cunum's increments: divided by sqrt(dt) once more.
  std::vector<double> quantlib_increments = std::move(quantlib_output);
  for (std::size_t i = 0; i < quantlib_increments.size(); ++i) {
    const std::size_t step = i % static_cast<std::size_t>(steps);
    const double dt = quantlib_times[step] - (step == 0 ? kStartTime : quantlib_times[step - 1]);
    quantlib_increments[i] /= std::sqrt(dt);
  }

  BridgeGenerateOptions contiguous;
  contiguous.z_layout = BridgeLayout::path_contiguous;
  contiguous.output_layout = BridgeLayout::path_contiguous;
  std::vector<double> output(output_count(bridge, paths));
  double max_abs_path = 0.0;
  for (const OutputKind kind : {OutputKind::paths, OutputKind::increments}) {
    BenchRow row = new_row(std::string("cpu ") + kind_name(kind) + " 1 thread path_contiguous", "float64", paths);
    row.bytes_moved = bridge_bytes<double>(bridge, paths);
    row.median_ms = cunum::bench::median_host_ms(
        cpu_options, [&] { generate(bridge, kind, paths, z.data(), output.data(), contiguous); });
    if (kind == OutputKind::paths) {
      max_abs_path = max_abs(output);
    } else {
      context.verifier.check("cunum CPU increments vs QuantLib::BrownianBridge::transform / sqrt(dt)", output,
                             quantlib_increments,
                             BridgeTolerance{kind, kDoubleTolerance, max_abs_path, smallest_step(bridge)});
    }
    row.peer = "QuantLib::BrownianBridge::transform";
    row.peer_median_ms = quantlib_ms;
    row.note = "cunum " + paths_per_second(paths, row.median_ms) + ", QuantLib " +
               paths_per_second(paths, quantlib_ms) +
               "; QuantLib's transform returns (X_i - X_{i-1}) / sqrt(dt), the work of our increments";
    report.add(row);
  }
}
#endif

// ---------------------------------------------------------------------------

void run(const BenchOptions& options, Verifier& verifier) {
  const BenchEnvironment environment = cunum::bench::measure_environment(options);
  Sections sections(environment);
  const bool on_gpu = environment.backend == Backend::cuda;
  std::optional<cunum::Stream> stream;
  if (on_gpu) stream.emplace();
  const std::int64_t paths = options.quick ? kQuickPaths : kSeedPaths;
  BenchContext context{options, environment, verifier, paths, on_gpu ? &*stream : nullptr};
  GpuBestTimes gpu_best;

  const std::vector<BridgeProblem> problems = {seed_problem(paths), full_covariance_problem(paths),
                                               random_order_problem(paths)};
  const std::string sobol_title = "Fused Sobol bridge vs cuRAND + bridge (seed problem, " + problem_size(paths) + ")";
  const std::string tuning_title = "Tuning: kernel variants (seed problem and d = 3, " + problem_size(paths) + ")";
  if (on_gpu) {
    for (const BridgeProblem& problem : problems) {
      sections.run(options, problem.title, [&](BenchReport& report) {
        std::vector<std::string> summaries = bench_strategies<float>(context, report, problem, gpu_best);
        for (std::string& line : bench_strategies<double>(context, report, problem, gpu_best)) {
          summaries.push_back(std::move(line));
        }
        print_summaries(summaries);
      });
    }
    sections.run(options, sobol_title, [&](BenchReport& report) {
      std::vector<std::string> summaries = bench_sobol<float>(context, report, SobolSequence::scrambled_sobol32);
      for (const SobolSequence sequence : {SobolSequence::scrambled_sobol32, SobolSequence::scrambled_sobol64}) {
        for (std::string& line : bench_sobol<double>(context, report, sequence)) summaries.push_back(std::move(line));
      }
      print_summaries(summaries);
    });
    sections.run(options, tuning_title, [&](BenchReport& report) {
      bench_shared_variants<float>(context, report, problems[0]);
      bench_shared_variants<double>(context, report, problems[0]);
      bench_shared_variants<float>(context, report, problems[1]);
      bench_shared_variants<double>(context, report, problems[1]);
      for (const int multiple : {1, 4}) {
        bench_paths_scaling<float>(context, report, multiple);
        bench_paths_scaling<double>(context, report, multiple);
      }
      bench_sobol_variants<float>(context, report);
      bench_sobol_variants<double>(context, report);
    });
  }

  const BenchOptions cpu_options = cpu_run_options(options);
  sections.run(cpu_options, "Table 2: OpenMP CPU backend (seed problem, " + problem_size(paths) + ")",
               [&](BenchReport& report) {
                 bench_cpu_backend<float>(context, report, cpu_options, gpu_best);
                 bench_cpu_backend<double>(context, report, cpu_options, gpu_best);
               });
  const std::string quantlib_title = "CPU backend vs QuantLib (seed problem, " + problem_size(paths) +
                                     ", double, 1 thread, path-contiguous)";
#ifdef CUNUM_BENCH_HAVE_QUANTLIB
  sections.run(cpu_options, quantlib_title,
               [&](BenchReport& report) { bench_quantlib(context, report, cpu_options); });
#else
  std::printf("\n%s: %s: not run, QuantLib was not built in (CMake did not find it)\n", kProgram,
              quantlib_title.c_str());
#endif

  if (!on_gpu) {
    std::printf("\n%s: NO CUDA DEVICE: the GPU sections were not run:\n", kProgram);
    for (const BridgeProblem& problem : problems) std::printf("  - %s\n", problem.title.c_str());
    std::printf("  - %s\n  - %s\n", sobol_title.c_str(), tuning_title.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  Verifier verifier;
  return cunum::bench::bench_main(
      argc, argv, kProgram,
      "cunum-bench-brownian-bridge: the seed's Brownian bridge problem on every GPU strategy, the fused "
      "Sobol bridge against cuRAND + bridge, kernel tuning variants, the OpenMP backend and QuantLib (CPU "
      "sections only without a GPU)",
      verifier, [&](const BenchOptions& options) { run(options, verifier); });
}
