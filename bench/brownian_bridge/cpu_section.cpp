// CPU: the OpenMP backend beside the published Xeon figures (Table 2), and at one thread
// against QuantLib::BrownianBridge::transform when QuantLib is built in.

#include <omp.h>

#include <string>
#include <vector>

#ifdef CUNUM_BENCH_HAVE_QUANTLIB
#include <ql/methods/montecarlo/brownianbridge.hpp>
#endif

#include "bridge_bench.hpp"
#include "curand_generator.hpp"
#include "published_figures.hpp"

namespace cunum::bench::bridge {

namespace {

constexpr int kCpuThreadCounts[] = {1, 2, 4, 8, 16};
constexpr int kQuickCpuThreadCounts[] = {1, 2};
// CPU runs take ~100x longer than GPU runs: a fifth of the runs, at least three.
constexpr int kCpuRunsDivisor = 5;
constexpr int kMinCpuRuns = 3;

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

std::string cpu_case_name(OutputKind kind, int threads) {
  return std::string("cpu ") + kind_name(kind) + " " + std::to_string(threads) +
         (threads == 1 ? " thread" : " threads");
}

// The reference work's Table 2, best systems: Xeon X5680 (12 cores) at 1 and 16 threads,
// Core i7 860 at 1 and 8 threads (float paths only).
const PublishedFigures& published_cpu_figures() {
  static const PublishedFigures figures{
      {cpu_case_name(OutputKind::paths, 1), "float32", kPublishedPaths,
       "Xeon X5680 (published): 1392.1 ms; Core i7 860 (published): 1212.5 ms"},
      {cpu_case_name(OutputKind::paths, 8), "float32", kPublishedPaths, "Core i7 860 (published): 720.3 ms"},
      {cpu_case_name(OutputKind::paths, 16), "float32", kPublishedPaths, "Xeon X5680 12 cores (published): 171.2 ms"},
      {cpu_case_name(OutputKind::paths, 1), "float64", kPublishedPaths, "Xeon X5680 (published): 1463.8 ms"},
      {cpu_case_name(OutputKind::paths, 16), "float64", kPublishedPaths, "Xeon X5680 12 cores (published): 193.6 ms"},
      {cpu_case_name(OutputKind::increments, 1), "float32", kPublishedPaths, "Xeon X5680 (published): 1207.4 ms"},
      {cpu_case_name(OutputKind::increments, 16), "float32", kPublishedPaths,
       "Xeon X5680 12 cores (published): 146.0 ms"},
      {cpu_case_name(OutputKind::increments, 1), "float64", kPublishedPaths, "Xeon X5680 (published): 1308.1 ms"},
      {cpu_case_name(OutputKind::increments, 16), "float64", kPublishedPaths,
       "Xeon X5680 12 cores (published): 166.2 ms"},
  };
  return figures;
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
  const BrownianBridge bridge = make_bridge(published_problem(paths), Backend::cpu);
  const std::vector<T> z = cunum::bench::philox_normals<T>(z_count(bridge, paths), kNormalSeed, context.stream);
  std::vector<T> output(output_count(bridge, paths));
  const OmpThreadCount thread_count;
  for (const OutputKind kind : {OutputKind::paths, OutputKind::increments}) {
    for (const int threads : cpu_thread_counts(context.options.quick)) {
      thread_count.set(threads);
      BenchRow row = new_row(cpu_case_name(kind, threads), precision_name<T>(), paths);
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
      published_cpu_figures().annotate(row);
      report.add(row);
    }
  }
}

}  // namespace

BenchOptions cpu_run_options(const BenchOptions& options) {
  BenchOptions cpu = options;
  cpu.timed_runs = std::max(kMinCpuRuns, options.timed_runs / kCpuRunsDivisor);
  cpu.warmup_runs = 1;
  return cpu;
}

void bench_cpu_section(BenchContext& context, BenchReport& report, const BenchOptions& cpu_options,
                       const GpuBestTimes& gpu_best) {
  bench_cpu_backend<float>(context, report, cpu_options, gpu_best);
  bench_cpu_backend<double>(context, report, cpu_options, gpu_best);
}

#ifdef CUNUM_BENCH_HAVE_QUANTLIB
// QuantLib::BrownianBridge on the reference work's 64 times, path by path, single thread, in
// double on path-contiguous normals, against cunum's CPU backend at one thread on
// the same normals and layout. QuantLib's default order on 64 times is the reference work's
// bisection, so both do the same arithmetic; its output, (X_i - X_{i-1}) / sqrt(dt),
// is checked against cunum's increments.
void bench_quantlib_section(BenchContext& context, BenchReport& report, const BenchOptions& cpu_options) {
  const std::int64_t paths = context.paths;
  const BrownianBridge bridge = make_bridge(published_problem(paths), Backend::cpu);
  const std::vector<double> z =
      cunum::bench::philox_normals<double>(z_count(bridge, paths), kNormalSeed, context.stream);
  std::vector<double> quantlib_times;
  for (int i = 1; i <= kPublishedSteps; ++i) quantlib_times.push_back(static_cast<double>(i) / kPublishedSteps);
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

}  // namespace cunum::bench::bridge
