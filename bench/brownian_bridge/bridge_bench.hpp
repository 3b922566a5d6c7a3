#pragma once
// What the sections of cunum-bench-brownian-bridge share: the problems, the counts
// a bridge call moves, verification, the row and kernel notes, and the context of
// one run. Each section is in its own file; bench_brownian_bridge.cpp runs them.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench_harness.hpp"
#include "src/brownian_bridge/brownian_bridge_backends.hpp"
#include "cunum/brownian_bridge.hpp"

namespace cunum::bench::bridge {

constexpr const char* kProgram = "cunum-bench-brownian-bridge";
constexpr const char* kModule = "brownian_bridge";
constexpr std::int64_t kPublishedPaths = 1439744;
constexpr std::int64_t kQuickPaths = std::int64_t{1} << 14;
constexpr int kPublishedSteps = 64;  // t_i = i / 64: N = 63 interior times, then T
constexpr double kStartTime = 0.0;
constexpr double kEndTime = 1.0;
constexpr unsigned long long kNormalSeed = 20100601ull;  // Philox: every run draws the same Z
constexpr unsigned long long kSobolOffset = 0;
constexpr double kFloatTolerance = 1e-5;
constexpr double kDoubleTolerance = 1e-12;

enum class OutputKind { paths, increments };

const char* kind_name(OutputKind kind);

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
  double best_target_percent = 0.0;  // of the copy bandwidth, for the fastest strategy
  bool is_published = false;         // the published figures apply (at its size)
};

// "1,439,744 paths x 64 steps".
std::string problem_size(std::int64_t paths);

BridgeProblem published_problem(std::int64_t paths);
BridgeProblem full_covariance_problem(std::int64_t paths);
BridgeProblem random_order_problem(std::int64_t paths);

BrownianBridge make_bridge(const BridgeProblem& problem, Backend backend);

std::size_t z_count(const BrownianBridge& bridge, std::int64_t paths);
std::size_t output_count(const BrownianBridge& bridge, std::int64_t paths);

// Bytes a generate call must move: Z read once, the output written once.
template <class T>
double bridge_bytes(const BrownianBridge& bridge, std::int64_t paths) {
  return static_cast<double>(z_count(bridge, paths) + output_count(bridge, paths)) * sizeof(T);
}

double smallest_step(const BrownianBridge& bridge);

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

BenchRow new_row(const std::string& case_name, const char* precision, std::int64_t n);

// A strategy or kernel that cannot serve a problem: a row without a time.
void add_not_supported(BenchReport& report, BenchRow row, const Error& error);

void print_summaries(const std::vector<std::string>& lines);

const char* verdict(bool met);

// Registers, stack frame, occupancy and paths per thread of the kernel a call launches.
std::string kernel_note(const cunum::detail::BridgeKernelReport& kernel);

// Everything one run of the bench shares.
struct BenchContext {
  const BenchOptions& options;
  const BenchEnvironment& environment;
  Verifier& verifier;
  std::int64_t paths;
  Stream* stream;  // null without a CUDA device
};

// The GPU's best explicit strategy per (precision, output kind) on the published problem,
// for the CPU table's speed-ups.
struct GpuBest {
  std::string strategy;
  double median_ms = 0.0;
};
using GpuBestTimes = std::map<std::pair<std::string, OutputKind>, GpuBest>;

// ---------------------------------------------------------------------------
// The sections, each adding its rows to `report`.

// Every GPU strategy on `problem`, float and double, with its summary lines (Table 1
// for the published problem); records the published problem's best times in `gpu_best`.
void bench_strategies_section(BenchContext& context, BenchReport& report, const BridgeProblem& problem,
                              GpuBestTimes& gpu_best);

// The fused Sobol bridge against cuRAND's Sobol generator followed by the bridge.
void bench_sobol_section(BenchContext& context, BenchReport& report);

// Kernel variants of strategies 4/5 on `published` and `full_covariance`, strategy 4 at
// 1x and 4x the paths, and fused Sobol variants.
void bench_tuning_section(BenchContext& context, BenchReport& report, const BridgeProblem& published,
                          const BridgeProblem& full_covariance);

// The CPU sections' runs: fewer than the GPU's, their runs take far longer.
BenchOptions cpu_run_options(const BenchOptions& options);

// Table 2: the OpenMP backend at several thread counts beside the published Xeon figures.
void bench_cpu_section(BenchContext& context, BenchReport& report, const BenchOptions& cpu_options,
                       const GpuBestTimes& gpu_best);

#ifdef CUNUM_BENCH_HAVE_QUANTLIB
// The CPU backend at one thread against QuantLib::BrownianBridge::transform.
void bench_quantlib_section(BenchContext& context, BenchReport& report, const BenchOptions& cpu_options);
#endif

}  // namespace cunum::bench::bridge
