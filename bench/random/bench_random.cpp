// cunum-bench-random: cunum::RandomGenerator's Philox4x32-10 uniform and normal fills,
// float and double, against cuRAND's host-API generate for the same generator (runs
// interleaved), as GB/s written and % of the copy bandwidth. Each case is checked
// outside the timing: the first values of a fresh fill against the CPU backend (bit
// for bit for uniforms, to a few ulps for normals). Without a GPU, the CPU backend.

#include <curand.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "bench/common/bench_harness.hpp"
#include "cunum/core/device_buffer.hpp"
#include "cunum/random.hpp"
#include "src/core/check.hpp"
#include "src/core/check_libraries.hpp"

namespace {

using namespace cunum::bench;
using cunum::Backend;
using cunum::DeviceBuffer;
using cunum::RandomGenerator;
using cunum::RandomGeneratorKind;

constexpr const char* kModule = "random";
constexpr std::uint64_t kSeed = 20261123;
constexpr std::int64_t kChecked = 1 << 16;

struct Context {
  const BenchOptions& options;
  BenchReport& report;
  FailureLog& failures;
};

template <class T>
void fill(RandomGenerator& generator, bool normal, std::int64_t n, T* out, cunum::StreamHandle stream) {
  if (normal) {
    generator.normal(n, out, T(0), T(1), stream);
  } else {
    generator.uniform(n, out, stream);
  }
}

template <class T>
void curand_fill(curandGenerator_t generator, bool normal, std::int64_t n, T* out) {
  const auto count = static_cast<std::size_t>(n);
  if constexpr (sizeof(T) == sizeof(float)) {
    CUNUM_CHECK(normal ? curandGenerateNormal(generator, out, count, 0.0f, 1.0f)
                       : curandGenerateUniform(generator, out, count));
  } else {
    CUNUM_CHECK(normal ? curandGenerateNormalDouble(generator, out, count, 0.0, 1.0)
                       : curandGenerateUniformDouble(generator, out, count));
  }
}

// The first kChecked values of `values` against a fresh CPU fill.
template <class T>
void verify(const Context& context, const std::vector<T>& values, bool normal, const std::string& name) {
  RandomGenerator cpu(RandomGeneratorKind::philox4x32_10, kSeed, Backend::cpu);
  std::vector<T> expected(values.size());
  fill(cpu, normal, static_cast<std::int64_t>(values.size()), expected.data(), nullptr);
  const T tolerance = normal ? T(16) * std::numeric_limits<T>::epsilon() : T(0);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!(std::abs(values[i] - expected[i]) <= tolerance * (T(1) + std::abs(expected[i])))) {
      context.failures.fail(name + ": value " + std::to_string(i) + " differs from the CPU backend");
      return;
    }
  }
}

template <class T>
void gpu_case(const Context& context, bool normal, std::int64_t n) {
  const std::string name = std::string("philox4x32_10 ") + (normal ? "normal" : "uniform");
  DeviceBuffer<T> ours_out(static_cast<std::size_t>(n));
  DeviceBuffer<T> peer_out(static_cast<std::size_t>(n), ours_out.stream());
  const cunum::StreamHandle stream = ours_out.stream();
  RandomGenerator generator(RandomGeneratorKind::philox4x32_10, kSeed, Backend::cuda);
  curandGenerator_t peer = nullptr;
  CUNUM_CHECK(curandCreateGenerator(&peer, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  CUNUM_CHECK(curandSetPseudoRandomGeneratorSeed(peer, kSeed));
  CUNUM_CHECK(curandSetStream(peer, stream));
  const PairedMedians medians = compare_device_ms(
      context.options, stream, [&] { fill(generator, normal, n, ours_out.data(), stream); },
      [&] { curand_fill(peer, normal, n, peer_out.data()); });
  CUNUM_CHECK(curandDestroyGenerator(peer));

  RandomGenerator fresh(RandomGeneratorKind::philox4x32_10, kSeed, Backend::cuda);
  DeviceBuffer<T> checked(static_cast<std::size_t>(kChecked), stream);
  fill(fresh, normal, kChecked, checked.data(), stream);
  verify(context, checked.to_host(), normal, name);

  BenchRow row = bench_row(kModule, name, precision_name<T>(), n);
  row.median_ms = medians.ours_ms;
  row.bytes_moved = static_cast<double>(n) * sizeof(T);  // written only
  row.peer = std::string("cuRAND host API ") + (normal ? "curandGenerateNormal" : "curandGenerateUniform") +
             (sizeof(T) == sizeof(double) ? "Double" : "") + ", PHILOX4_32_10";
  row.peer_median_ms = medians.peer_ms;
  context.report.add(row);
}

template <class T>
void cpu_case(const Context& context, bool normal, std::int64_t n) {
  const std::string name = std::string("cpu: philox4x32_10 ") + (normal ? "normal" : "uniform");
  std::vector<T> out(static_cast<std::size_t>(n));
  RandomGenerator generator(RandomGeneratorKind::philox4x32_10, kSeed, Backend::cpu);
  BenchRow row = bench_row(kModule, name, precision_name<T>(), n);
  row.median_ms = median_host_ms(context.options, [&] { fill(generator, normal, n, out.data(), nullptr); });
  row.bytes_moved = static_cast<double>(n) * sizeof(T);
  context.report.add(row);
}

}  // namespace

int main(int argc, char** argv) {
  FailureLog failures;
  return bench_main(argc, argv, "cunum-bench-random",
                    "Philox4x32-10 uniform and normal fills: GB/s, % of copy bandwidth, vs cuRAND's host API",
                    failures, [&](const BenchOptions& options) {
                      const BenchEnvironment environment = measure_environment(options);
                      if (environment.backend == Backend::cuda) {
                        const char* title = "Philox4x32-10 fills vs cuRAND host generate";
                        if (section_selected(options, title)) {
                          BenchReport report(environment, options, title);
                          const Context context{options, report, failures};
                          const std::int64_t n = options.quick ? (std::int64_t{1} << 22) : (std::int64_t{1} << 28);
                          for (bool normal : {false, true}) {
                            gpu_case<float>(context, normal, n);
                            gpu_case<double>(context, normal, n / 2);
                          }
                        }
                      }
                      const char* cpu_title = "CPU backend (all threads)";
                      if (!section_selected(options, cpu_title)) return;
                      BenchReport report(environment, options, cpu_title);
                      const Context context{options, report, failures};
                      const std::int64_t n = options.quick ? (std::int64_t{1} << 18) : (std::int64_t{1} << 22);
                      for (bool normal : {false, true}) {
                        cpu_case<float>(context, normal, n);
                        cpu_case<double>(context, normal, n);
                      }
                    });
}
