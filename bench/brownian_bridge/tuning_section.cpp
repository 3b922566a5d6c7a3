// Tuning sweep: kernel variants instantiated from the library's templates (see
// bridge_tuning.hpp), each verified and timed like the strategies; strategy 4 at
// 1x and 4x the paths shows what the last, partly filled wave of blocks costs.

#include <string>
#include <vector>

#include "bridge_bench.hpp"
#include "bridge_tuning.hpp"
#include "curand_generator.hpp"

namespace cunum::bench::bridge {

namespace {

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
  const auto& strategy = *cunum::detail::BridgeInternals::device_strategy(bridge);
  const auto args = [&] {
    return cunum::detail::bridge_args<T>(bridge, false, paths, z.next(), output.data(), BridgeLayout::path_fastest,
                                         BridgeLayout::path_fastest);
  };
  for (const auto& variant : cunum::bench::shared_kernel_variants<T>(problem.dimension)) {
    BenchRow row = new_row("tuning paths " + variant.name, precision_name<T>(), paths);
    row.bytes_moved = bridge_bytes<T>(bridge, paths);
    cunum::detail::BridgeKernelReport kernel;
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

// Strategy 4 on the published problem with `multiple` times the paths.
template <class T>
void bench_paths_scaling(BenchContext& context, BenchReport& report, int multiple) {
  const std::int64_t paths = context.paths * multiple;
  const StreamHandle stream = *context.stream;
  const BridgeProblem problem = published_problem(paths);
  const BrownianBridge bridge = make_bridge(problem, Backend::cuda);
  const std::vector<T> z_host = cunum::bench::philox_normals<T>(z_count(bridge, paths), kNormalSeed, context.stream);
  const auto z = DeviceBuffer<T>::from_host(z_host, stream);
  DeviceBuffer<T> output(output_count(bridge, paths), stream);
  const std::vector<T> reference = make_bridge(problem, Backend::cpu).generate_paths(paths, z_host);
  BridgeGenerateOptions options;
  options.strategy = BridgeStrategy::shared_memory;
  options.stream = stream;
  BenchRow row = new_row("tuning paths 4 shared_memory, " + std::to_string(multiple) + "x published paths",
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
  const BrownianBridge bridge = make_bridge(published_problem(paths), Backend::cuda);
  DeviceBuffer<T> output(output_count(bridge, paths), stream);
  SobolBridgeOptions sobol_options;
  sobol_options.sequence = SobolSequence::scrambled_sobol32;
  sobol_options.stream = stream;
  bridge.generate_sobol_paths(paths, output.data(), sobol_options);
  const std::vector<T> reference = output.to_host();
  const auto& strategy = *cunum::detail::BridgeInternals::device_strategy(bridge);
  const auto& tables = strategy.sobol_tables(bridge, sobol_options.sequence);
  const auto args = cunum::detail::bridge_args<T>(bridge, false, paths, nullptr, output.data(),
                                                  BridgeLayout::path_fastest, BridgeLayout::path_fastest);
  for (const auto& variant : cunum::bench::sobol_kernel_variants<T>()) {
    BenchRow row = new_row("tuning sobol paths " + variant.name, precision_name<T>(), paths);
    row.bytes_moved = static_cast<double>(output_count(bridge, paths)) * sizeof(T);
    cunum::detail::BridgeKernelReport kernel;
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

}  // namespace

void bench_tuning_section(BenchContext& context, BenchReport& report, const BridgeProblem& published,
                          const BridgeProblem& full_covariance) {
  bench_shared_variants<float>(context, report, published);
  bench_shared_variants<double>(context, report, published);
  bench_shared_variants<float>(context, report, full_covariance);
  bench_shared_variants<double>(context, report, full_covariance);
  for (const int multiple : {1, 4}) {
    bench_paths_scaling<float>(context, report, multiple);
    bench_paths_scaling<double>(context, report, multiple);
  }
  bench_sobol_variants<float>(context, report);
  bench_sobol_variants<double>(context, report);
}

}  // namespace cunum::bench::bridge
