// cunum-bench-random: cunum::RandomGenerator's fills, uniform and normal, float and
// double, for Philox4x32-10, MRG32k3a and the Sobol kinds (1 and 64 dimensions),
// against cuRAND's host-API generate for the same generator (runs interleaved), as
// GB/s written and % of the copy bandwidth. Each case is checked outside the timing:
// the first values of a fresh fill against the CPU backend (bit for bit for uniforms,
// to a few ulps for normals) and, where docs/random.md says the uniforms are cuRAND's
// (all but Philox doubles), bit for bit against a fresh cuRAND fill. Without a GPU,
// the CPU backend (Philox).

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

// One GPU case: our generator and cuRAND's of the same kind, filling the same values.
struct FillCase {
  RandomGeneratorKind kind;
  curandRngType_t peer_type;
  const char* peer_name;  // the row's peer column
  bool normal;
  bool is_double;
  int dimensions;  // Sobol kinds; 1 for the pseudo-random ones
};

// Our generator of the case at offset 0 (a Sobol kind in its dimensions).
RandomGenerator make_generator(const FillCase& fill_case, Backend backend) {
  RandomGenerator generator(fill_case.kind, kSeed, backend);
  if (is_quasi_random(fill_case.kind)) generator.set_dimensions(fill_case.dimensions);
  return generator;
}

// cuRAND's generator of the case, seeded (pseudo) or dimensioned (quasi), at offset 0, on `stream`.
curandGenerator_t make_peer(const FillCase& fill_case, cunum::StreamHandle stream) {
  curandGenerator_t peer = nullptr;
  CUNUM_CHECK(curandCreateGenerator(&peer, fill_case.peer_type));
  if (is_quasi_random(fill_case.kind)) {
    CUNUM_CHECK(curandSetQuasiRandomGeneratorDimensions(peer, static_cast<unsigned>(fill_case.dimensions)));
  } else {
    CUNUM_CHECK(curandSetPseudoRandomGeneratorSeed(peer, kSeed));
  }
  CUNUM_CHECK(curandSetGeneratorOffset(peer, 0));
  CUNUM_CHECK(curandSetStream(peer, stream));
  return peer;
}

// The first kChecked values of `values` against a fresh CPU fill.
template <class T>
void verify(const Context& context, const FillCase& fill_case, const std::vector<T>& values,
            const std::string& name) {
  RandomGenerator cpu = make_generator(fill_case, Backend::cpu);
  std::vector<T> expected(values.size());
  fill(cpu, fill_case.normal, static_cast<std::int64_t>(values.size()), expected.data(), nullptr);
  const T tolerance = fill_case.normal ? T(16) * std::numeric_limits<T>::epsilon() : T(0);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!(std::abs(values[i] - expected[i]) <= tolerance * (T(1) + std::abs(expected[i])))) {
      context.failures.fail(name + ": value " + std::to_string(i) + " differs from the CPU backend");
      return;
    }
  }
}

// The same values against a fresh cuRAND fill, bit for bit: for the uniforms that
// docs/random.md states equal cuRAND's (every kind's, but Philox's doubles).
template <class T>
void verify_against_peer(const Context& context, const FillCase& fill_case, const std::vector<T>& values,
                         cunum::StreamHandle stream, const std::string& name) {
  if (fill_case.normal || (fill_case.kind == RandomGeneratorKind::philox4x32_10 && fill_case.is_double)) return;
  DeviceBuffer<T> peer_out(values.size(), stream);
  curandGenerator_t peer = make_peer(fill_case, stream);
  curand_fill(peer, false, static_cast<std::int64_t>(values.size()), peer_out.data());
  const std::vector<T> expected = peer_out.to_host();
  CUNUM_CHECK(curandDestroyGenerator(peer));
  if (std::memcmp(values.data(), expected.data(), values.size() * sizeof(T)) != 0) {
    context.failures.fail(name + ": uniforms differ from cuRAND's for the same seed and offset");
  }
}

// Where the stream ends, in the offset's units: 2^32 points for the 32-bit Sobol kinds.
std::uint64_t stream_end(RandomGeneratorKind kind) {
  const bool sobol32 = kind == RandomGeneratorKind::sobol32 || kind == RandomGeneratorKind::scrambled_sobol32;
  return sobol32 ? std::uint64_t{1} << 32 : std::numeric_limits<std::uint64_t>::max();
}

template <class T>
void gpu_case(const Context& context, const FillCase& fill_case, std::int64_t n) {
  std::string name = std::string(cunum::to_string(fill_case.kind)) + (fill_case.normal ? " normal" : " uniform");
  std::string peer_name = fill_case.peer_name;
  if (is_quasi_random(fill_case.kind)) {
    const std::string dimensions =
        ", " + std::to_string(fill_case.dimensions) + (fill_case.dimensions == 1 ? " dim" : " dims");
    name += dimensions;
    peer_name += dimensions;
  }
  DeviceBuffer<T> ours_out(static_cast<std::size_t>(n));
  DeviceBuffer<T> peer_out(static_cast<std::size_t>(n), ours_out.stream());
  const cunum::StreamHandle stream = ours_out.stream();
  RandomGenerator generator = make_generator(fill_case, Backend::cuda);
  curandGenerator_t peer = make_peer(fill_case, stream);
  // A 32-bit Sobol stream (2^32 points) can run out over the runs of a large case:
  // both generators then go back to offset 0 before the fill (rarely; the median stands).
  const std::uint64_t points = static_cast<std::uint64_t>(n / fill_case.dimensions);
  const std::uint64_t end = stream_end(fill_case.kind);
  std::uint64_t peer_offset = 0;
  const PairedMedians medians = compare_device_ms(
      context.options, stream,
      [&] {
        if (generator.offset() > end - points) generator.set_offset(0);
        fill(generator, fill_case.normal, n, ours_out.data(), stream);
      },
      [&] {
        if (peer_offset > end - points) {
          CUNUM_CHECK(curandSetGeneratorOffset(peer, 0));
          peer_offset = 0;
        }
        curand_fill(peer, fill_case.normal, n, peer_out.data());
        peer_offset += points;
      });
  CUNUM_CHECK(curandDestroyGenerator(peer));

  RandomGenerator fresh = make_generator(fill_case, Backend::cuda);
  DeviceBuffer<T> checked(static_cast<std::size_t>(kChecked), stream);
  fill(fresh, fill_case.normal, kChecked, checked.data(), stream);
  const std::vector<T> values = checked.to_host();
  verify(context, fill_case, values, name);
  verify_against_peer(context, fill_case, values, stream, name);

  BenchRow row = bench_row(kModule, name, precision_name<T>(), n);
  row.median_ms = medians.ours_ms;
  row.bytes_moved = static_cast<double>(n) * sizeof(T);  // written only
  row.peer = std::string("cuRAND host API ") + (fill_case.normal ? "curandGenerateNormal" : "curandGenerateUniform") +
             (sizeof(T) == sizeof(double) ? "Double" : "") + ", " + peer_name;
  row.peer_median_ms = medians.peer_ms;
  context.report.add(row);
}

// The generators of the GPU section's cases, ours and cuRAND's.
constexpr RandomGeneratorKind kPhilox = RandomGeneratorKind::philox4x32_10;
constexpr RandomGeneratorKind kMrg = RandomGeneratorKind::mrg32k3a;
constexpr RandomGeneratorKind kSobol32 = RandomGeneratorKind::sobol32;
constexpr RandomGeneratorKind kScrambled32 = RandomGeneratorKind::scrambled_sobol32;
constexpr RandomGeneratorKind kSobol64 = RandomGeneratorKind::sobol64;
constexpr RandomGeneratorKind kScrambled64 = RandomGeneratorKind::scrambled_sobol64;
constexpr curandRngType_t kCurandPhilox = CURAND_RNG_PSEUDO_PHILOX4_32_10;
constexpr curandRngType_t kCurandMrg = CURAND_RNG_PSEUDO_MRG32K3A;
constexpr curandRngType_t kCurandSobol32 = CURAND_RNG_QUASI_SOBOL32;
constexpr curandRngType_t kCurandScrambled32 = CURAND_RNG_QUASI_SCRAMBLED_SOBOL32;
constexpr curandRngType_t kCurandSobol64 = CURAND_RNG_QUASI_SOBOL64;
constexpr curandRngType_t kCurandScrambled64 = CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;

// The GPU section's cases, in the order of its rows (FillCase: kind, cuRAND's, its
// name, normal, double, dimensions): the pseudo-random kinds, then every Sobol kind in
// float and double, uniform and normal, in 1 and 64 dimensions.
std::vector<FillCase> gpu_cases() {
  std::vector<FillCase> cases;
  const FillCase pseudo[] = {{kPhilox, kCurandPhilox, "PHILOX4_32_10", false, false, 1},
                             {kMrg, kCurandMrg, "MRG32K3A", false, false, 1}};
  for (const FillCase& kind : pseudo) {
    for (const bool normal : {false, true}) {
      for (const bool is_double : {false, true}) {
        cases.push_back({kind.kind, kind.peer_type, kind.peer_name, normal, is_double, 1});
      }
    }
  }
  const FillCase sobol[] = {{kSobol32, kCurandSobol32, "QUASI_SOBOL32", false, false, 1},
                            {kScrambled32, kCurandScrambled32, "QUASI_SCRAMBLED_SOBOL32", false, false, 1},
                            {kSobol64, kCurandSobol64, "QUASI_SOBOL64", false, false, 1},
                            {kScrambled64, kCurandScrambled64, "QUASI_SCRAMBLED_SOBOL64", false, false, 1}};
  for (const FillCase& kind : sobol) {
    for (const bool is_double : {false, true}) {
      for (const bool normal : {false, true}) {
        for (const int dimensions : {1, 64}) {
          cases.push_back({kind.kind, kind.peer_type, kind.peer_name, normal, is_double, dimensions});
        }
      }
    }
  }
  return cases;
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
                    "Philox4x32-10, MRG32k3a and Sobol uniform and normal fills: GB/s, % of copy bandwidth, vs "
                    "cuRAND's host API; sections: RandomGenerator fills, CPU backend",
                    failures, [&](const BenchOptions& options) {
                      const BenchEnvironment environment = measure_environment(options);
                      if (environment.backend == Backend::cuda) {
                        const char* title = "RandomGenerator fills vs cuRAND host generate";
                        if (section_selected(options, title)) {
                          BenchReport report(environment, options, title);
                          const Context context{options, report, failures};
                          // float n values, double n / 2; a multiple of every case's dimensions.
                          const std::int64_t n = options.quick ? (std::int64_t{1} << 22) : (std::int64_t{1} << 28);
                          for (const FillCase& fill_case : gpu_cases()) {
                            if (fill_case.is_double) {
                              gpu_case<double>(context, fill_case, n / 2);
                            } else {
                              gpu_case<float>(context, fill_case, n);
                            }
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
