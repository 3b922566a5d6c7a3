// cunum-bench-brownian-bridge: the Brownian bridge on the reference work's problem (du Toit)
// (du Toit, "Brownian bridge on GPUs": 1,439,744 paths of 64 steps on t_i = i / 64,
// bisection order, d = 1, free bridge, Z and output path-fastest).
//   GPU, when a CUDA device exists: (Table 1) every strategy, sample paths and scaled
//   increments, float and double, beside the published C2050 figures, with each kernel's
//   registers, stack frame and occupancy; the same for d = 3 with a full covariance
//   and for a random construction order; the fused Sobol bridge against cuRAND's
//   Sobol generator followed by the bridge.
//   CPU: (Table 2) the OpenMP backend at 1..16 threads beside the published Xeon figures,
//   and at one thread against QuantLib::BrownianBridge::transform when QuantLib is
//   built in.
// Z is drawn by cuRAND's Philox with a fixed seed. GPU times are medians of
// CUDA-event timed runs on a cunum::Stream (Z rotated past L2), CPU times medians of
// fewer std::chrono runs. GB/s counts Z read once and the output written once.
// Every GPU case is checked once, outside timing, element by element against the
// CPU backend on the same Z (the output poisoned first); the fused Sobol output
// against the two-step route; QuantLib against cunum's increments. A mismatch is
// reported loudly and makes the exit status non-zero.
// This file runs the sections in that order; each is in its own *_section.cpp, and
// what they share in bridge_bench.hpp.

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bridge_bench.hpp"

namespace cunum::bench::bridge {

namespace {

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

void run(const BenchOptions& options, Verifier& verifier) {
  const BenchEnvironment environment = cunum::bench::measure_environment(options);
  Sections sections(environment);
  const bool on_gpu = environment.backend == Backend::cuda;
  std::optional<cunum::Stream> stream;
  if (on_gpu) stream.emplace();
  const std::int64_t paths = options.quick ? kQuickPaths : kPublishedPaths;
  BenchContext context{options, environment, verifier, paths, on_gpu ? &*stream : nullptr};
  GpuBestTimes gpu_best;

  const std::vector<BridgeProblem> problems = {published_problem(paths), full_covariance_problem(paths),
                                               random_order_problem(paths)};
  const std::string sobol_title =
      "Fused Sobol bridge vs cuRAND + bridge (published problem, " + problem_size(paths) + ")";
  const std::string tuning_title = "Tuning: kernel variants (published problem and d = 3, " + problem_size(paths) + ")";
  if (on_gpu) {
    for (const BridgeProblem& problem : problems) {
      sections.run(options, problem.title,
                   [&](BenchReport& report) { bench_strategies_section(context, report, problem, gpu_best); });
    }
    sections.run(options, sobol_title, [&](BenchReport& report) { bench_sobol_section(context, report); });
    sections.run(options, tuning_title,
                 [&](BenchReport& report) { bench_tuning_section(context, report, problems[0], problems[1]); });
  }

  const BenchOptions cpu_options = cpu_run_options(options);
  sections.run(cpu_options, "Table 2: OpenMP CPU backend (published problem, " + problem_size(paths) + ")",
               [&](BenchReport& report) { bench_cpu_section(context, report, cpu_options, gpu_best); });
  const std::string quantlib_title = "CPU backend vs QuantLib (published problem, " + problem_size(paths) +
                                     ", double, 1 thread, path-contiguous)";
#ifdef CUNUM_BENCH_HAVE_QUANTLIB
  sections.run(cpu_options, quantlib_title,
               [&](BenchReport& report) { bench_quantlib_section(context, report, cpu_options); });
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

}  // namespace cunum::bench::bridge

int main(int argc, char** argv) {
  cunum::bench::bridge::Verifier verifier;
  return cunum::bench::bench_main(
      argc, argv, cunum::bench::bridge::kProgram,
      "cunum-bench-brownian-bridge: the reference work's Brownian bridge problem on every GPU strategy, the fused "
      "Sobol bridge against cuRAND + bridge, kernel tuning variants, the OpenMP backend and QuantLib (CPU "
      "sections only without a GPU)",
      verifier, [&](const cunum::bench::BenchOptions& options) { cunum::bench::bridge::run(options, verifier); });
}
