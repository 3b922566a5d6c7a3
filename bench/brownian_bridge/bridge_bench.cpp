#include "bridge_bench.hpp"

#include <limits>
#include <optional>
#include <random>

namespace cunum::bench::bridge {

namespace {

constexpr unsigned kShuffleSeed = 1234u;       // the random construction order
constexpr double kBestTargetPercentD1 = 90.0;  // of the copy bandwidth
constexpr double kBestTargetPercentD3 = 85.0;

// 1,439,744 rather than 1439744.
std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n);
  for (auto i = static_cast<std::ptrdiff_t>(digits.size()) - 3; i > 0; i -= 3) {
    digits.insert(static_cast<std::size_t>(i), ",");
  }
  return digits;
}

// The interior times t_i = i / 64, i = 1..63.
std::vector<double> published_grid() {
  std::vector<double> grid;
  for (int i = 1; i < kPublishedSteps; ++i) grid.push_back(static_cast<double>(i) / kPublishedSteps);
  return grid;
}

}  // namespace

const char* kind_name(OutputKind kind) { return kind == OutputKind::paths ? "paths" : "increments"; }

std::string problem_size(std::int64_t paths) {
  return grouped(paths) + " paths x " + std::to_string(kPublishedSteps) + " steps";
}

BridgeProblem published_problem(std::int64_t paths) {
  BridgeProblem problem;
  problem.title = "Table 1: GPU strategies, published problem (" + problem_size(paths) + ", bisection, d = 1)";
  problem.name = "published problem";
  problem.covariance = {1.0};
  problem.order = cunum::make_bridge_order(published_grid(), cunum::BridgeOrder::bisection);
  problem.kinds = {OutputKind::paths, OutputKind::increments};
  problem.best_target_percent = kBestTargetPercentD1;
  problem.is_published = true;
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
  problem.order = cunum::make_bridge_order(published_grid(), cunum::BridgeOrder::bisection);
  problem.kinds = {OutputKind::paths};
  problem.best_target_percent = kBestTargetPercentD3;
  return problem;
}

BridgeProblem random_order_problem(std::int64_t paths) {
  BridgeProblem problem;
  problem.title = "random construction order (" + problem_size(paths) + ", fixed-seed shuffle, d = 1)";
  problem.name = "random order";
  problem.covariance = {1.0};
  problem.order = published_grid();
  std::shuffle(problem.order.begin(), problem.order.end(), std::mt19937(kShuffleSeed));
  problem.kinds = {OutputKind::paths};
  problem.best_target_percent = kBestTargetPercentD1;
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

double smallest_step(const BrownianBridge& bridge) {
  const std::vector<double>& times = bridge.times();
  double step = std::numeric_limits<double>::infinity();
  for (std::size_t i = 1; i < times.size(); ++i) step = std::min(step, times[i] - times[i - 1]);
  return step;
}

BenchRow new_row(const std::string& case_name, const char* precision, std::int64_t n) {
  return bench_row(kModule, case_name, precision, n);
}

void add_not_supported(BenchReport& report, BenchRow row, const Error& error) {
  row.median_ms = std::numeric_limits<double>::quiet_NaN();
  row.note = std::string("not supported: ") + error.what();
  report.add(row);
}

void print_summaries(const std::vector<std::string>& lines) {
  std::printf("\n");
  for (const std::string& line : lines) std::printf("summary: %s\n", line.c_str());
  std::fflush(stdout);
}

const char* verdict(bool met) { return met ? "met" : "MISSED"; }

std::string kernel_note(const cunum::detail::BridgeKernelReport& kernel) {
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

}  // namespace cunum::bench::bridge
