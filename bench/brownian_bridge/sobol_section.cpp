// The fused Sobol bridge against cuRAND's Sobol generator followed by the bridge
// (the two-step route), on the published problem.

#include <string>
#include <vector>

#include "bridge_bench.hpp"
#include "curand_generator.hpp"

namespace cunum::bench::bridge {

namespace {

constexpr double kFusedSpeedupTarget = 1.8;

template <class T>
void generate_sobol(const BrownianBridge& bridge, OutputKind kind, std::int64_t paths, T* output,
                    const SobolBridgeOptions& options) {
  if (kind == OutputKind::paths) {
    bridge.generate_sobol_paths(paths, output, options);
  } else {
    bridge.generate_sobol_increments(paths, output, options);
  }
}

template <class T>
std::vector<std::string> bench_sobol(BenchContext& context, BenchReport& report, SobolSequence sequence) {
  const std::int64_t paths = context.paths;
  const StreamHandle stream = *context.stream;
  const BrownianBridge bridge = make_bridge(published_problem(paths), Backend::cuda);
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
    cunum::detail::BridgeKernelReport kernel;
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

}  // namespace

void bench_sobol_section(BenchContext& context, BenchReport& report) {
  std::vector<std::string> summaries = bench_sobol<float>(context, report, SobolSequence::scrambled_sobol32);
  for (const SobolSequence sequence : {SobolSequence::scrambled_sobol32, SobolSequence::scrambled_sobol64}) {
    for (std::string& line : bench_sobol<double>(context, report, sequence)) summaries.push_back(std::move(line));
  }
  print_summaries(summaries);
}

}  // namespace cunum::bench::bridge
