// The fused quasi-random bridge on the GPU against the two-step route on the GPU
// (cuRAND's device generator of the same sequence, dimensions and offset writing
// Z, then the bridge) and against the CPU route (cuRAND's host generator): every
// sequence, float and double, free and fixed end, paths and increments, both
// output layouts, offsets that are not multiples of a warp, path counts that are
// not multiples of a block, N beyond one staged chunk of steps; poisoned outputs.

#include <curand.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "bridge_reference.hpp"
#include "cunum/brownian_bridge.hpp"
#include "cunum/core.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::BridgeLayout;
using cunum::BrownianBridge;
using cunum::CovarianceForm;
using cunum::ErrorCode;
using cunum::SobolBridgeOptions;
using cunum::SobolSequence;
using cunum::testing::BridgeSetup;

#define CURAND_EXPECT(call) ASSERT_EQ((call), CURAND_STATUS_SUCCESS) << #call

// Z for the two-step route, written by cuRAND's device generator on `stream`.
template <class T>
void device_sobol_normals(SobolSequence sequence, std::int64_t dimensions, std::int64_t paths,
                          std::uint64_t offset, cunum::StreamHandle stream, T* z) {
  curandGenerator_t generator = nullptr;
  CURAND_EXPECT(curandCreateGenerator(&generator, cunum::testing::curand_sobol_type(sequence)));
  CURAND_EXPECT(curandSetStream(generator, stream));
  CURAND_EXPECT(curandSetQuasiRandomGeneratorDimensions(generator, static_cast<unsigned>(dimensions)));
  CURAND_EXPECT(curandSetGeneratorOffset(generator, offset));
  const auto count = static_cast<std::size_t>(paths * dimensions);
  if constexpr (std::is_same_v<T, float>) {
    CURAND_EXPECT(curandGenerateNormal(generator, z, count, 0.0f, 1.0f));
  } else {
    CURAND_EXPECT(curandGenerateNormalDouble(generator, z, count, 0.0, 1.0));
  }
  CURAND_EXPECT(curandDestroyGenerator(generator));
}

struct SobolCase {
  std::size_t n;
  int d;
  bool fixed;
  std::int64_t paths;
  std::uint64_t offset;
  BridgeLayout output_layout;
};

BridgeSetup make_setup(const SobolCase& c, std::uint64_t seed) {
  BridgeSetup s;
  s.t0 = 0.5;
  s.T = 2.5;
  s.order = cunum::make_bridge_order(cunum::testing::random_grid(c.n, s.t0, s.T, seed), cunum::BridgeOrder::bisection);
  s.d = c.d;
  s.factor = cunum::testing::random_factor(c.d, seed ^ 9);
  s.start.assign(static_cast<std::size_t>(c.d), 0.25);
  if (c.fixed) s.end = std::vector<double>(static_cast<std::size_t>(c.d), 1.5);
  return s;
}

// Paths: rel * max(1, |X|max); increments: the differencing amplifies point
// errors by up to 2 / dt (the smallest dt of the grid, to stay layout-agnostic).
template <class T>
void expect_close(const std::vector<T>& got, const std::vector<T>& want, const BridgeSetup& s,
                  const SobolCase& c, bool increments, double rel, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  std::vector<double> times = s.order;
  std::sort(times.begin(), times.end());
  times.insert(times.begin(), s.t0);
  times.push_back(s.T);
  double smallest_gap = s.T - s.t0;
  for (std::size_t i = 1; i < times.size(); ++i) smallest_gap = std::min(smallest_gap, times[i] - times[i - 1]);
  double scale = 1;
  for (T v : want) scale = std::max(scale, std::fabs(static_cast<double>(v)));
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double w = want[i], g = got[i];
    const double bound = increments ? rel * (std::fabs(w) + 2 * scale / smallest_gap) : rel * scale;
    ASSERT_TRUE(std::fabs(g - w) <= bound)
        << what << (increments ? " increments" : " paths") << " N=" << c.n << " d=" << c.d << " fixed=" << c.fixed
        << " paths=" << c.paths << " offset=" << c.offset << " element " << i << " got " << g << " want " << w;
  }
}

// cpu_route: also compare with the CPU backend (cuRAND's host generator), which
// cannot start past 2^32.
template <class T>
void check_case(const SobolCase& c, SobolSequence sequence, std::uint64_t seed, bool cpu_route = true) {
  const BridgeSetup s = make_setup(c, seed);
  const BrownianBridge gpu(s.t0, s.T, s.order, s.d, s.factor, CovarianceForm::factor, s.start, s.end, Backend::cuda);
  const BrownianBridge cpu(s.t0, s.T, s.order, s.d, s.factor, CovarianceForm::factor, s.start, s.end, Backend::cpu);
  const std::int64_t dimensions = gpu.z_records() * s.d;
  const auto out_size = static_cast<std::size_t>(c.paths * gpu.output_records() * s.d);
  cunum::Stream stream;
  cunum::DeviceBuffer<T> z(static_cast<std::size_t>(c.paths * dimensions), stream);
  device_sobol_normals(sequence, dimensions, c.paths, c.offset, stream, z.data());
  const double rel = std::is_same_v<T, double> ? 1e-12 : 1e-5;
  for (bool increments : {false, true}) {
    cunum::BridgeGenerateOptions two_step;
    two_step.output_layout = c.output_layout;
    two_step.strategy = cunum::BridgeStrategy::shared_memory_reuse;
    two_step.stream = stream;
    cunum::DeviceBuffer<T> want(out_size, stream), got(out_size, stream);
    want.fill_bytes_async(0xFF);
    got.fill_bytes_async(0xFF);
    SobolBridgeOptions options;
    options.sequence = sequence;
    options.offset = c.offset;
    options.output_layout = c.output_layout;
    options.stream = stream;
    if (increments) {
      gpu.generate_increments(c.paths, z.data(), want.data(), two_step);
      gpu.generate_sobol_increments(c.paths, got.data(), options);
    } else {
      gpu.generate_paths(c.paths, z.data(), want.data(), two_step);
      gpu.generate_sobol_paths(c.paths, got.data(), options);
    }
    stream.synchronize();
    const auto fused = got.to_host();
    expect_close(fused, want.to_host(), s, c, increments, rel,
                 std::string("fused vs cuRAND device + bridge, ") + cunum::to_string(sequence));
    if (::testing::Test::HasFatalFailure() || !cpu_route) continue;
    // The CPU route draws its normals from cuRAND's host generator.
    std::vector<T> host(out_size);
    options.stream = nullptr;
    if (increments) {
      cpu.generate_sobol_increments(c.paths, host.data(), options);
    } else {
      cpu.generate_sobol_paths(c.paths, host.data(), options);
    }
    expect_close(fused, host, s, c, increments, rel, std::string("GPU vs CPU route, ") + cunum::to_string(sequence));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

const SobolCase kCases[] = {
    {63, 1, false, 1037, 0, BridgeLayout::path_fastest},
    {63, 1, true, 4096, 5, BridgeLayout::path_fastest},
    {1, 1, false, 31, 33, BridgeLayout::path_contiguous},
    {2, 2, true, 129, 1000003, BridgeLayout::path_fastest},
    {200, 3, false, 300, 64, BridgeLayout::path_contiguous},  // 200 steps: two staged chunks per tile
    {65, 5, true, 70001, 17, BridgeLayout::path_fastest},     // several tiles per block
    {3, 8, false, 1, 1, BridgeLayout::path_fastest},
};

TEST(BridgeSobolGpu, FusedKernelIsTheTwoStepRouteFloat) {
  CUNUM_REQUIRE_GPU();
  std::uint64_t salt = 0;
  for (const SobolCase& c : kCases) {
    for (SobolSequence sequence : {SobolSequence::scrambled_sobol32, SobolSequence::sobol32,
                                   SobolSequence::scrambled_sobol64}) {
      check_case<float>(c, sequence, cunum::testing::fresh_seed() + ++salt);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(BridgeSobolGpu, FusedKernelIsTheTwoStepRouteDouble) {
  CUNUM_REQUIRE_GPU();
  std::uint64_t salt = 100;
  for (const SobolCase& c : kCases) {
    for (SobolSequence sequence : {SobolSequence::scrambled_sobol32, SobolSequence::sobol64,
                                   SobolSequence::scrambled_sobol64}) {
      check_case<double>(c, sequence, cunum::testing::fresh_seed() + ++salt);
      if (HasFatalFailure()) return;
    }
  }
}

// 64-bit sequences reach past 2^32 points on the GPU; the CPU backend refuses to
// start there (cuRAND's host generator truncates offsets to 32 bits) but runs
// across 2^32 from below.
TEST(BridgeSobolGpu, OffsetsBeyondThirtyTwoBits) {
  CUNUM_REQUIRE_GPU();
  const std::uint64_t beyond = (std::uint64_t{1} << 33) + 7;
  check_case<double>({31, 1, false, 100, beyond, BridgeLayout::path_fastest}, SobolSequence::scrambled_sobol64,
                     cunum::testing::fresh_seed(), false);
  check_case<double>({31, 1, false, 100, (std::uint64_t{1} << 32) - 40, BridgeLayout::path_fastest},
                     SobolSequence::scrambled_sobol64, cunum::testing::fresh_seed());
  const BrownianBridge cpu(0, 1, {0.5}, 1, {1.0}, CovarianceForm::factor, {0.0}, {}, Backend::cpu);
  std::vector<double> out(2 * 10);
  SobolBridgeOptions options;
  options.sequence = SobolSequence::sobol64;
  options.offset = beyond;
  EXPECT_CUNUM_ERROR(cpu.generate_sobol_paths(10, out.data(), options), ErrorCode::not_supported, "2^32");
}

TEST(BridgeSobolGpu, LimitsAreNotSupported) {
  CUNUM_REQUIRE_GPU();
  cunum::DeviceBuffer<double> out(1 << 16);
  // d = 9: C no longer fits in registers.
  const BridgeSetup nine = make_setup({4, 9, false, 1, 0, BridgeLayout::path_fastest}, 3);
  const BrownianBridge gpu9(nine.t0, nine.T, nine.order, 9, nine.factor, CovarianceForm::factor, nine.start, nine.end,
                            Backend::cuda);
  EXPECT_CUNUM_ERROR(gpu9.generate_sobol_paths(1, out.data()), ErrorCode::not_supported, "dimension");
  // 8001 dimensions of 64-bit words: the lane table outgrows shared memory.
  const BridgeSetup wide = make_setup({8000, 1, false, 1, 0, BridgeLayout::path_fastest}, 4);
  const BrownianBridge gpu_wide(wide.t0, wide.T, wide.order, 1, wide.factor, CovarianceForm::factor, wide.start,
                                wide.end, Backend::cuda);
  SobolBridgeOptions options;
  options.sequence = SobolSequence::sobol64;
  EXPECT_CUNUM_ERROR(gpu_wide.generate_sobol_paths(1, out.data(), options), ErrorCode::not_supported,
                     "shared memory");
}

// The graph-capture contract of the fused Sobol bridge: the first call with a sequence
// uploads its tables and waits for them, so a capturing stream is refused then (nothing
// enqueued, the capture intact); once a direct call has uploaded them, paths and
// increments are captured, and each replay writes what the direct call writes, bit
// for bit.
TEST(BridgeSobolGpu, ReplaysFromACapturedGraphOnceTheTablesAreUploaded) {
  CUNUM_REQUIRE_GPU();
  const SobolCase c{65, 2, true, 3001, 17, BridgeLayout::path_fastest};
  const BridgeSetup s = make_setup(c, cunum::testing::fresh_seed());
  const BrownianBridge gpu(s.t0, s.T, s.order, s.d, s.factor, CovarianceForm::factor, s.start, s.end, Backend::cuda);
  cunum::Stream stream;
  cunum::DeviceBuffer<double> out(static_cast<std::size_t>(c.paths * gpu.output_records() * s.d), stream);
  SobolBridgeOptions options;
  options.sequence = SobolSequence::sobol64;
  options.offset = c.offset;
  options.stream = stream;
  for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
    SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
    cunum::testing::expect_capture_refused(stream, mode,
                                           [&] { gpu.generate_sobol_paths(c.paths, out.data(), options); });
  }
  for (const bool increments : {false, true}) {
    const std::string what = increments ? "increments" : "paths";
    const auto generate = [&] {
      if (increments) {
        gpu.generate_sobol_increments(c.paths, out.data(), options);
      } else {
        gpu.generate_sobol_paths(c.paths, out.data(), options);
      }
    };
    out.fill_bytes_async(0xFF);
    generate();
    const std::vector<double> direct = out.to_host();
    for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
      SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
      cunum::testing::CapturedGraph graph(stream, mode, generate);
      ASSERT_TRUE(graph.ok()) << what;
      for (int replay = 0; replay < 2; ++replay) {
        out.fill_bytes_async(0xFF);
        graph.launch();
        cunum::testing::expect_same_bits(out.to_host(), direct, what + ", replay " + std::to_string(replay));
      }
    }
  }
}

}  // namespace
