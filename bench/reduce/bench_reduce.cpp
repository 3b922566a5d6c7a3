// cunum-bench-reduce: (a) the published table, the seven classic tutorial kernels on ints
// beside the G80 figures of M. Harris, "Optimizing Parallel Reduction in CUDA"
// (NVIDIA, 2007, as taught in NVIDIA's CUDA technical training, 2008), with the production
// Reducer as "kernel 8"; (b) the production Reducer<T> against cub::DeviceReduce;
// (c) small sums timed three ways; (d) a policy sweep of the production kernel.
// Every case is checked once, outside the timed runs, against a long double host
// reference; a mismatch is reported loudly and makes the exit status non-zero.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_harness.hpp"
#include "classic_reducer.hpp"
#include "cub_peer.hpp"
#include "reduce_tuning.hpp"
#include "published_figures.hpp"
#include "cunum/reduce.hpp"
#include "kernels/reduce/reduce_launch.hpp"
#include "src/core/device_binding.hpp"
#include "src/reduce/reduce_policy.hpp"

namespace {

using cunum::bench::ClassicReduceKernel;
using cunum::ReduceOp;
using cunum::reduce_result_t;
using cunum::bench::BenchEnvironment;
using cunum::bench::BenchOptions;
using cunum::bench::BenchReport;
using cunum::bench::BenchRow;
using cunum::bench::precision_name;

constexpr std::int64_t pow2(int exponent) { return std::int64_t{1} << exponent; }
constexpr const char* kModule = "reduce";

// The tutorial's seven kernels, in its order (the enum's list).
constexpr const auto& kClassicKernels = cunum::bench::ClassicReduceKernelValues::all;

std::string classic_case_name(ClassicReduceKernel kernel) {
  // The tutorial numbers its kernels from 1; the enum counts from 0.
  return "classic " + std::to_string(static_cast<int>(kernel) + 1) + ": " + cunum::bench::to_string(kernel);
}

// The published G80 figures for 2^22 ints (Harris's table for 4M elements)
// and kernel 7's at 2^25.
const cunum::bench::PublishedFigures& published_g80_figures() {
  static const cunum::bench::PublishedFigures figures{
      {classic_case_name(ClassicReduceKernel::interleaved_divergent), "int32", pow2(22),
       "G80 (published): 8.054 ms, 2.083 GB/s"},
      {classic_case_name(ClassicReduceKernel::interleaved_strided), "int32", pow2(22),
       "G80 (published): 3.456 ms, 4.854 GB/s"},
      {classic_case_name(ClassicReduceKernel::sequential_addressing), "int32", pow2(22),
       "G80 (published): 1.722 ms, 9.741 GB/s"},
      {classic_case_name(ClassicReduceKernel::first_add_during_load), "int32", pow2(22),
       "G80 (published): 0.965 ms, 17.377 GB/s"},
      {classic_case_name(ClassicReduceKernel::unroll_last_warp), "int32", pow2(22),
       "G80 (published): 0.536 ms, 31.289 GB/s"},
      {classic_case_name(ClassicReduceKernel::complete_unroll), "int32", pow2(22),
       "G80 (published): 0.381 ms, 43.996 GB/s"},
      {classic_case_name(ClassicReduceKernel::multiple_elements_per_thread), "int32", pow2(22),
       "G80 (published): 0.268 ms, 62.671 GB/s"},
      {classic_case_name(ClassicReduceKernel::multiple_elements_per_thread), "int32", pow2(25),
       "G80 (published): 72 GB/s"},
  };
  return figures;
}

// Random, never all zero, fixed seed. Floating values in [1, 2) and ints in [1, 63]
// keep every sum well conditioned, and 2^25 ints below 2^31, the classic kernels'
// int accumulator.
template <class T>
std::vector<T> random_input(std::int64_t n, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::vector<T> values(static_cast<std::size_t>(n));
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> uniform(T{1}, T{2});
    for (T& x : values) x = uniform(engine);
  } else {
    std::uniform_int_distribution<T> uniform(1, 63);
    for (T& x : values) x = uniform(engine);
  }
  return values;
}

template <class T>
long double host_reference(ReduceOp op, const T* data, std::int64_t n) {
  long double accumulator = op == ReduceOp::min   ? std::numeric_limits<long double>::infinity()
                            : op == ReduceOp::max ? -std::numeric_limits<long double>::infinity()
                                                  : 0.0L;
  for (std::int64_t i = 0; i < n; ++i) {
    const long double x = data[i];
    switch (op) {
      case ReduceOp::sum: accumulator += x; break;
      case ReduceOp::sum_of_squares: accumulator += x * x; break;
      case ReduceOp::min: accumulator = std::min(accumulator, x); break;
      case ReduceOp::max: accumulator = std::max(accumulator, x); break;
    }
  }
  return accumulator;
}

// Relative tolerances against the long double reference. Integer results and min/max
// must be exact. cunum's are tight (float is accumulated in double and rounded once,
// see include/cunum/reduce.hpp); CUB accumulates float in float, hence its looser bound.
template <class T>
double relative_tolerance(ReduceOp op, bool is_cunum) {
  if (!std::is_floating_point_v<T> || op == ReduceOp::min || op == ReduceOp::max) return 0.0;
  if (std::is_same_v<T, float>) return is_cunum ? 4.0 * 0x1p-24 : 1e-4;
  return is_cunum ? 1e-12 : 1e-10;
}

// Each result against its long double reference; failures go to the run's log.
class Verifier : public cunum::bench::FailureLog {
 public:
  void check(const std::string& what, long double value, long double expected, double tolerance) {
    const long double error = std::fabs(value - expected);
    if (error <= tolerance * std::fabs(expected)) return;
    char detail[256];
    std::snprintf(detail, sizeof detail, " gave %.17Lg, expected %.17Lg (relative error %.3Lg, tolerance %.3g)",
                  value, expected, expected != 0 ? error / std::fabs(expected) : error, tolerance);
    fail(what + detail);
  }
};

std::string describe(const char* routine, ReduceOp op, const char* precision, std::int64_t n) {
  return std::string(routine) + " " + cunum::to_string(op) + " " + precision + " n=" + std::to_string(n);
}

double bytes_moved(std::int64_t n, std::size_t element_bytes, std::size_t result_bytes) {
  return static_cast<double>(n) * static_cast<double>(element_bytes) + static_cast<double>(result_bytes);
}

BenchRow new_row(const std::string& case_name, const char* precision, std::int64_t n) {
  return cunum::bench::bench_row(kModule, case_name, precision, n);
}

template <class Result>
Result read_device_scalar(const cunum::DeviceBuffer<Result>& scalar) {
  Result value{};
  scalar.copy_to_host(&value, 1);
  return value;
}

// Everything one run of the bench shares.
struct BenchContext {
  const BenchOptions& options;
  const BenchEnvironment& environment;
  BenchReport& report;
  Verifier& verifier;
  cunum::Stream* stream;  // null on the CPU backend
};

// (b) on the GPU: cunum::Reducer<T> and the CUB peer on the same rotating input set.
template <class T>
void bench_reducer_cuda(BenchContext& context, ReduceOp op, const std::vector<T>& host, std::int64_t n) {
  using Result = reduce_result_t<T>;
  cunum::StreamHandle stream = *context.stream;
  const char* precision = precision_name<T>();
  cunum::bench::RotatingDeviceInput<T> input(host.data(), static_cast<std::size_t>(n), context.environment,
                                             context.options, stream);
  cunum::Reducer<T> reducer(cunum::Backend::cuda);
  cunum::bench::CubReduce<T> peer(op, n, stream);
  cunum::DeviceBuffer<Result> our_result(1, stream);
  cunum::DeviceBuffer<Result> peer_result(1, stream);

  reducer.reduce(op, input.next(), n, our_result.data(), stream);
  peer.run(input.next(), peer_result.data(), stream);
  const long double expected = host_reference(op, host.data(), n);
  context.verifier.check(describe("cunum::Reducer", op, precision, n), read_device_scalar(our_result),
                         expected, relative_tolerance<T>(op, true));
  context.verifier.check(describe(peer.name(op), op, precision, n), read_device_scalar(peer_result),
                         expected, relative_tolerance<T>(op, false));

  const cunum::bench::PairedMedians medians = cunum::bench::compare_device_ms(
      context.options, stream, [&] { reducer.reduce(op, input.next(), n, our_result.data(), stream); },
      [&] { peer.run(input.next(), peer_result.data(), stream); });
  BenchRow row = new_row(cunum::to_string(op), precision, n);
  row.median_ms = medians.ours_ms;
  row.peer = peer.name(op);
  row.peer_median_ms = medians.peer_ms;
  row.bytes_moved = bytes_moved(n, sizeof(T), sizeof(Result));
  if (input.copy_count() > 1) row.note = std::to_string(input.copy_count()) + " input copies rotated";
  context.report.add(row);
}

// (b) on the CPU backend: host data, no peer.
template <class T>
void bench_reducer_cpu(BenchContext& context, ReduceOp op, const std::vector<T>& host, std::int64_t n) {
  using Result = reduce_result_t<T>;
  const char* precision = precision_name<T>();
  cunum::Reducer<T> reducer(cunum::Backend::cpu);
  Result result{};
  reducer.reduce(op, host.data(), n, &result);
  context.verifier.check(describe("cunum::Reducer (CPU)", op, precision, n), result,
                         host_reference(op, host.data(), n), relative_tolerance<T>(op, true));

  BenchRow row = new_row(cunum::to_string(op), precision, n);
  row.median_ms = cunum::bench::median_host_ms(context.options, [&] {
    reducer.reduce(op, host.data(), n, &result);
  });
  row.bytes_moved = bytes_moved(n, sizeof(T), sizeof(Result));
  context.report.add(row);
}

template <class T>
void bench_reducer(BenchContext& context, ReduceOp op, const std::vector<T>& host, std::int64_t n) {
  if (context.stream != nullptr) {
    bench_reducer_cuda(context, op, host, n);
  } else {
    bench_reducer_cpu(context, op, host, n);
  }
}

// (a) The published table at one size: the seven classic kernels, then the production
// Reducer as kernel 8, every row beside CUB's int sum timed once on the same input set.
void bench_classic_table(BenchContext& context, const std::vector<std::int32_t>& host, std::int64_t n) {
  cunum::StreamHandle stream = *context.stream;
  cunum::bench::RotatingDeviceInput<std::int32_t> input(host.data(), static_cast<std::size_t>(n),
                                                        context.environment, context.options, stream);
  const auto expected = host_reference(ReduceOp::sum, host.data(), n);

  cunum::bench::CubReduce<std::int32_t> peer(ReduceOp::sum, n, stream);
  cunum::DeviceBuffer<std::int64_t> peer_result(1, stream);
  peer.run(input.next(), peer_result.data(), stream);
  context.verifier.check(describe(peer.name(ReduceOp::sum), ReduceOp::sum, "int32", n),
                         read_device_scalar(peer_result), expected, 0.0);
  const double peer_ms = cunum::bench::median_device_ms(context.options, stream, [&] {
    peer.run(input.next(), peer_result.data(), stream);
  });

  const auto add_row = [&](const std::string& case_name, double median_ms, std::size_t result_bytes) {
    BenchRow row = new_row(case_name, "int32", n);
    row.median_ms = median_ms;
    row.bytes_moved = bytes_moved(n, sizeof(std::int32_t), result_bytes);
    row.peer = peer.name(ReduceOp::sum);
    row.peer_median_ms = peer_ms;
    published_g80_figures().annotate(row);
    context.report.add(row);
  };

  cunum::bench::ClassicReducer<std::int32_t> classic;
  cunum::DeviceBuffer<std::int32_t> classic_result(1, stream);
  for (const ClassicReduceKernel kernel : kClassicKernels) {
    const std::string name = classic_case_name(kernel);
    classic.sum(kernel, input.next(), n, classic_result.data(), stream);
    context.verifier.check(name + " n=" + std::to_string(n), read_device_scalar(classic_result), expected, 0.0);
    const double ms = cunum::bench::median_device_ms(context.options, stream, [&] {
      classic.sum(kernel, input.next(), n, classic_result.data(), stream);
    });
    add_row(name, ms, sizeof(std::int32_t));
  }

  cunum::Reducer<std::int32_t> reducer(cunum::Backend::cuda);
  cunum::DeviceBuffer<std::int64_t> reducer_result(1, stream);
  reducer.reduce(ReduceOp::sum, input.next(), n, reducer_result.data(), stream);
  context.verifier.check(describe("cunum::Reducer", ReduceOp::sum, "int32", n),
                         read_device_scalar(reducer_result), expected, 0.0);
  const double ms = cunum::bench::median_device_ms(context.options, stream, [&] {
    reducer.reduce(ReduceOp::sum, input.next(), n, reducer_result.data(), stream);
  });
  add_row("kernel 8: production Reducer", ms, sizeof(std::int64_t));
}

// The sizes of each part; --quick keeps the smallest.
struct CaseSizes {
  std::vector<std::int64_t> classic;
  std::vector<std::int64_t> floating;
  std::vector<std::int64_t> int32;
  std::vector<std::int64_t> latency;  // float sums timed three ways (at most floating.back())
  std::vector<std::int64_t> tuning;   // the policy sweep (at most floating.back())
};

CaseSizes case_sizes(bool quick) {
  if (quick) return {{pow2(22)}, {pow2(20)}, {pow2(20), pow2(22)}, {pow2(20)}, {pow2(20)}};
  return {{pow2(22), pow2(25)},
          {pow2(20), pow2(24), pow2(28)},
          {pow2(20), pow2(22), pow2(24), pow2(25), pow2(28)},
          {pow2(16), pow2(20), pow2(24)},
          {pow2(20), pow2(24), pow2(28)}};
}

// What the API boundary costs a call: Reducer::reduce (argument, pointer-kind and
// device checks, then the launch) interleaved with the bare launch of the same kernel
// on a workspace of its own, host launch included. The peer column is the bare launch.
void bench_boundary_cost(BenchContext& context, cunum::bench::RotatingDeviceInput<float>& input, std::int64_t n,
                         long double expected) {
  const cunum::StreamHandle stream = *context.stream;
  const int arch = cunum::detail::DeviceBinding::current().arch;
  const cunum::bench::BareReduceWorkspace workspace(cunum::detail::reduce_tuning(arch).blocks_per_multiprocessor, stream);
  const cunum::detail::ReduceScratch& scratch = workspace.scratch;
  cunum::Reducer<float> reducer({cunum::Backend::cuda, stream});
  cunum::DeviceBuffer<float> checked_result(1, stream);
  cunum::DeviceBuffer<float> bare_result(1, stream);
  const auto checked = [&] { reducer.reduce(ReduceOp::sum, input.next(), n, checked_result.data(), stream); };
  const auto bare = [&] { cunum::detail::launch_reduce(ReduceOp::sum, input.next(), n, bare_result.data(), scratch, stream); };
  const cunum::bench::PairedMedians medians = cunum::bench::compare_device_ms(context.options, stream, checked, bare);
  context.verifier.check("cunum::Reducer, boundary cost row", read_device_scalar(checked_result), expected,
                         relative_tolerance<float>(ReduceOp::sum, true));
  context.verifier.check("bare launch, boundary cost row", read_device_scalar(bare_result), expected,
                         relative_tolerance<float>(ReduceOp::sum, true));
  BenchRow row = new_row("sum, one call, host launch included: API checks vs the bare launch", "float32", n);
  row.median_ms = medians.ours_ms;
  row.peer = "bare launch (detail::launch_reduce)";
  row.peer_median_ms = medians.peer_ms;
  row.bytes_moved = bytes_moved(n, sizeof(float), sizeof(float));
  row.note = "the difference is the host cost of the checks";
  context.report.add(row);
}

// (c) Small float sums, where launches dominate, timed three ways (harness DeviceTiming):
// one call with its host launch, one call's GPU time, and one call's share of a CUDA
// graph of back-to-back calls. The graph holds as many calls as there are rotated
// input copies, so that its calls, like the others, never read an input still in L2.
void bench_call_latency(BenchContext& context, const std::vector<float>& host, std::int64_t n) {
  using cunum::bench::DeviceTiming;
  const cunum::StreamHandle stream = *context.stream;
  cunum::bench::RotatingDeviceInput<float> input(host.data(), static_cast<std::size_t>(n), context.environment,
                                                 context.options, stream);
  cunum::Reducer<float> reducer(cunum::Backend::cuda);
  cunum::bench::CubReduce<float> peer(ReduceOp::sum, n, stream);
  cunum::DeviceBuffer<float> our_result(1, stream);
  cunum::DeviceBuffer<float> peer_result(1, stream);
  const auto ours = [&] { reducer.reduce(ReduceOp::sum, input.next(), n, our_result.data(), stream); };
  const auto theirs = [&] { peer.run(input.next(), peer_result.data(), stream); };
  const int calls_per_graph = static_cast<int>(input.copy_count());
  const long double expected = host_reference(ReduceOp::sum, host.data(), n);
  for (const DeviceTiming timing : {DeviceTiming::host_call, DeviceTiming::gpu_only, DeviceTiming::graph_replay}) {
    const cunum::bench::PairedMedians medians =
        cunum::bench::compare_device_ms(context.options, stream, ours, theirs, timing, calls_per_graph);
    const std::string what = std::string(" float32 sum n=") + std::to_string(n) + " after " + to_string(timing);
    context.verifier.check("cunum::Reducer" + what, read_device_scalar(our_result), expected,
                           relative_tolerance<float>(ReduceOp::sum, true));
    context.verifier.check(peer.name(ReduceOp::sum) + what, read_device_scalar(peer_result), expected,
                           relative_tolerance<float>(ReduceOp::sum, false));
    BenchRow row = new_row(std::string("sum, ") + to_string(timing), "float32", n);
    row.median_ms = medians.ours_ms;
    row.peer = peer.name(ReduceOp::sum);
    row.peer_median_ms = medians.peer_ms;
    row.bytes_moved = bytes_moved(n, sizeof(float), sizeof(float));
    if (timing == DeviceTiming::graph_replay) row.note = std::to_string(calls_per_graph) + " calls per graph";
    context.report.add(row);
  }
  bench_boundary_cost(context, input, n, expected);
}

// (d) Policies of the production kernel on float sums, GPU time alone (the host launch
// is the same for every policy and would hide their differences at small n), and the
// empty-kernel floor timed both ways.
void bench_tuning(BenchContext& context, const std::vector<float>& host, std::int64_t n) {
  using cunum::bench::DeviceTiming;
  const cunum::StreamHandle stream = *context.stream;
  cunum::bench::RotatingDeviceInput<float> input(host.data(), static_cast<std::size_t>(n), context.environment,
                                                 context.options, stream);
  const std::vector<cunum::bench::ReduceVariant> variants = cunum::bench::reduce_sum_variants();
  int max_blocks_per_multiprocessor = 0;
  for (const auto& variant : variants) {
    max_blocks_per_multiprocessor = std::max(max_blocks_per_multiprocessor, variant.max_blocks_per_multiprocessor);
  }
  const cunum::bench::BareReduceWorkspace workspace(max_blocks_per_multiprocessor, stream);
  const cunum::detail::ReduceScratch& scratch = workspace.scratch;
  cunum::DeviceBuffer<float> result(1, stream);
  const long double expected = host_reference(ReduceOp::sum, host.data(), n);
  const auto launcher = [&](const cunum::bench::ReduceVariant& variant) {
    return [&, launch = variant.launch] { launch(input.next(), n, result.data(), scratch, stream); };
  };
  const auto library_policy = launcher(variants.front());
  for (const cunum::bench::ReduceVariant& variant : variants) {
    const auto run_variant = launcher(variant);
    run_variant();
    context.verifier.check("tuning " + variant.name + " float32 sum n=" + std::to_string(n),
                           read_device_scalar(result), expected, relative_tolerance<float>(ReduceOp::sum, true));
    BenchRow row = new_row("tuning sum " + variant.name + ", GPU time only", "float32", n);
    row.bytes_moved = bytes_moved(n, sizeof(float), sizeof(float));
    if (&variant == &variants.front()) {
      row.median_ms = cunum::bench::median_device_ms(context.options, stream, run_variant, DeviceTiming::gpu_only);
      row.note = "the library's policy";
    } else {
      // Interleaved with the library's policy, so that the speed-up column says
      // whether this variant would beat it.
      const cunum::bench::PairedMedians medians = cunum::bench::compare_device_ms(
          context.options, stream, run_variant, library_policy, DeviceTiming::gpu_only);
      row.median_ms = medians.ours_ms;
      row.peer = "library policy";
      row.peer_median_ms = medians.peer_ms;
    }
    context.report.add(row);
  }
  for (const DeviceTiming timing : {DeviceTiming::host_call, DeviceTiming::gpu_only}) {
    BenchRow floor = new_row(std::string("empty kernel (the floor of an event-timed call), ") + to_string(timing), "-", 0);
    floor.median_ms = cunum::bench::median_device_ms(context.options, stream,
                                                     [&] { cunum::bench::launch_empty_kernel(stream); }, timing);
    context.report.add(floor);
  }
}

void run(const BenchOptions& options, Verifier& verifier) {
  const BenchEnvironment environment = cunum::bench::measure_environment(options);
  BenchReport report(environment, options, "cunum-bench-reduce");
  const bool on_gpu = environment.backend == cunum::Backend::cuda;
  std::optional<cunum::Stream> stream;
  if (on_gpu) stream.emplace();
  BenchContext context{options, environment, report, verifier, on_gpu ? &*stream : nullptr};
  const CaseSizes sizes = case_sizes(options.quick);

  // One host input per type, at the largest size; smaller cases use its prefix.
  const std::vector<std::int32_t> ints = random_input<std::int32_t>(
      std::max(sizes.int32.back(), sizes.classic.back()), 20070101u);
  const std::vector<float> floats = random_input<float>(sizes.floating.back(), 20070103u);
  const auto selected = [&](const char* section) { return cunum::bench::section_selected(options, section); };
  if (on_gpu && selected("classic")) {
    for (const std::int64_t n : sizes.classic) bench_classic_table(context, ints, n);
  }
  if (selected("reducer")) {
    for (const std::int64_t n : sizes.int32) bench_reducer(context, ReduceOp::sum, ints, n);
    const std::vector<double> doubles = random_input<double>(sizes.floating.back(), 20070102u);
    for (const std::int64_t n : sizes.floating) bench_reducer(context, ReduceOp::sum, doubles, n);
    for (const ReduceOp op : {ReduceOp::sum, ReduceOp::sum_of_squares, ReduceOp::min, ReduceOp::max}) {
      for (const std::int64_t n : sizes.floating) bench_reducer(context, op, floats, n);
    }
  }
  if (on_gpu) {
    if (selected("latency")) {
      for (const std::int64_t n : sizes.latency) bench_call_latency(context, floats, n);
    }
    if (selected("tuning")) {
      for (const std::int64_t n : sizes.tuning) bench_tuning(context, floats, n);
    }
  } else {
    std::printf("\nclassic kernels, the CUB peer, the call-latency timings and the tuning sweep need a CUDA "
                "device: not run\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  Verifier verifier;
  return cunum::bench::bench_main(argc, argv, "cunum-bench-reduce",
                                  "cunum-bench-reduce: the classic reduction kernels and cunum::Reducer against "
                                  "cub::DeviceReduce (CPU backend without a GPU). Sections: classic, reducer, "
                                  "latency, tuning (all but reducer need a GPU)",
                                  verifier, [&](const BenchOptions& options) { run(options, verifier); });
}
