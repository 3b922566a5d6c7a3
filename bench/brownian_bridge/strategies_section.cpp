// GPU strategies: Table 1 on the published problem, beside the published C2050 figures, and
// the same for d = 3 with a full covariance and for a random construction order.

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "bridge_bench.hpp"
#include "curand_generator.hpp"
#include "published_figures.hpp"

namespace cunum::bench::bridge {

namespace {

constexpr double kAutomaticSlackPercent = 5.0;  // automatic within this of the best

struct StrategyEntry {
  BridgeStrategy strategy;
  const char* label;  // the reference work's number
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

std::string strategy_case_name(OutputKind kind, const StrategyEntry& entry) {
  std::string name = kind_name(kind);
  if (*entry.label != '\0') name += std::string(" ") + entry.label;
  return name + " " + cunum::to_string(entry.strategy);
}

std::string strategy_case_name(OutputKind kind, BridgeStrategy strategy) {
  for (const StrategyEntry& entry : kStrategies) {
    if (entry.strategy == strategy) return strategy_case_name(kind, entry);
  }
  throw cunum::Error(cunum::ErrorCode::invalid_argument,
                     std::string("no strategy entry for ") + cunum::to_string(strategy));
}

// The published C2050 figures: Table 1 (float sample paths, ECC on, 120 GB/s peak) and,
// for 5 with prefetch, its summary of the four precision/output cases.
const PublishedFigures& published_c2050_figures() {
  // Every figure is of a run at the reference work's size.
  const auto figure = [](OutputKind kind, BridgeStrategy strategy, const char* precision, const char* note) {
    return PublishedFigure{strategy_case_name(kind, strategy), precision, kPublishedPaths, note};
  };
  constexpr OutputKind paths = OutputKind::paths;
  constexpr OutputKind increments = OutputKind::increments;
  static const PublishedFigures figures{
      figure(paths, BridgeStrategy::constant_memory, "float32",
             "C2050 (published): 20 regs, 100% occupancy, 29 GB/s (24.1% of 120)"),
      figure(paths, BridgeStrategy::vectorized, "float32",
             "C2050 (published): 20-34 regs, 100%-54% occupancy, < 29 GB/s"),
      figure(paths, BridgeStrategy::prefetch, "float32",
             "C2050 (published, P = 8): 34 regs, 58% occupancy, 58 GB/s (48.3%)"),
      figure(paths, BridgeStrategy::shared_memory, "float32",
             "C2050 (published): 42 regs, 45% occupancy, 85 GB/s (70.8%)"),
      figure(paths, BridgeStrategy::shared_memory_reuse, "float32",
             "C2050 (published, 5 without prefetch): 24 regs, 43% occupancy, 79 GB/s (65.8%)"),
      figure(paths, BridgeStrategy::shared_memory_reuse_prefetch, "float32",
             "C2050 (published, 5 with prefetch): 33 regs, 58% occupancy, 102 GB/s (85%), 10.01 ms"),
      figure(paths, BridgeStrategy::shared_memory_reuse_prefetch, "float64",
             "C2050 (published): 38 regs, 33% occupancy, 115.66 GB/s, 17.12 ms"),
      figure(increments, BridgeStrategy::shared_memory_reuse_prefetch, "float32",
             "C2050 (published): 9.09 ms, 109 GB/s"),
      figure(increments, BridgeStrategy::shared_memory_reuse_prefetch, "float64",
             "C2050 (published): 17.01 ms, 116.3 GB/s"),
  };
  return figures;
}

double percent_of_copy(double bytes, double ms, const BenchEnvironment& environment) {
  return 100.0 * bytes / (ms * 1e6) / environment.copy_gbps;
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
  cunum::detail::BridgeKernelReport kernel;
  try {
    kernel = cunum::detail::describe_bridge_kernel(bridge, gpu_case.kind == OutputKind::increments, paths,
                                            gpu_case.z.next(), gpu_case.output.data(), options);
  } catch (const Error& error) {
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
  if (gpu_case.problem.is_published) published_c2050_figures().annotate(row);
  report.add(row);
  return result;
}

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
                cunum::to_string(fastest->strategy), kAutomaticSlackPercent, verdict(slower <= kAutomaticSlackPercent));
  return line + text;
}

// Every strategy on one problem in one precision: returns the summary lines and
// records the published problem's best times.
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
    if (problem.is_published && fastest != nullptr) {
      gpu_best[{precision_name<T>(), kind}] = GpuBest{cunum::to_string(fastest->strategy), *fastest->median_ms};
    }
  }
  return summaries;
}

}  // namespace

void bench_strategies_section(BenchContext& context, BenchReport& report, const BridgeProblem& problem,
                              GpuBestTimes& gpu_best) {
  std::vector<std::string> summaries = bench_strategies<float>(context, report, problem, gpu_best);
  for (std::string& line : bench_strategies<double>(context, report, problem, gpu_best)) {
    summaries.push_back(std::move(line));
  }
  print_summaries(summaries);
}

}  // namespace cunum::bench::bridge
