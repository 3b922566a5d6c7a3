// Brownian bridge on the GPU: every strategy against the CPU backend (itself held
// against the naive reference in the CPU suite) over awkward N, d, path counts,
// both layouts, free and fixed-end bridges, paths and increments, float and
// double, with poisoned device outputs; strategy limits raise not_supported; the
// shared constant-memory image across streams; pointer kinds against the backend;
// the legacy default stream left alone; device memory from the placement's resource.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <thread>

#include "bridge_reference.hpp"
#include "src/brownian_bridge/bridge_device.hpp"
#include "cunum/brownian_bridge.hpp"
#include "cunum/core.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::BridgeLayout;
using cunum::BridgeOrder;
using cunum::BridgeStrategy;
using cunum::BrownianBridge;
using cunum::CovarianceForm;
using cunum::ErrorCode;
using cunum::testing::BridgeSetup;
using cunum::testing::fresh_seed;

constexpr const auto& kStrategies = cunum::BridgeStrategyValues::all;

struct LayoutPair {
  BridgeLayout z, output;
};
constexpr LayoutPair kLayouts[] = {{BridgeLayout::path_fastest, BridgeLayout::path_fastest},
                                   {BridgeLayout::path_contiguous, BridgeLayout::path_contiguous},
                                   {BridgeLayout::path_contiguous, BridgeLayout::path_fastest}};

BridgeSetup make_setup(std::size_t n, int d, bool fixed, int order_kind, std::uint64_t seed) {
  BridgeSetup s;
  s.t0 = 0.5;
  s.T = 3.0;
  const auto grid = cunum::testing::random_grid(n, s.t0, s.T, seed);
  if (order_kind == 0) {
    s.order = cunum::make_bridge_order(grid, BridgeOrder::bisection);
  } else if (order_kind == 1) {
    s.order = cunum::make_bridge_order(grid, BridgeOrder::ascending);
  } else {
    s.order = grid;
    std::mt19937_64 engine(seed);
    std::shuffle(s.order.begin(), s.order.end(), engine);
  }
  s.d = d;
  s.factor = cunum::testing::random_factor(d, seed ^ 5);
  s.start.resize(d);
  for (int j = 0; j < d; ++j) s.start[j] = 0.25 * j - 0.5;
  if (fixed) {
    s.end = std::vector<double>(d);
    for (int j = 0; j < d; ++j) (*s.end)[j] = 1.0 - 0.5 * j;
  }
  return s;
}

BrownianBridge make_bridge(const BridgeSetup& s, const cunum::Placement& placement) {
  return BrownianBridge(s.t0, s.T, s.order, s.d, s.factor, CovarianceForm::factor, s.start, s.end, placement);
}

// Runs `strategy` on the device and the CPU backend on the same normals; compares
// paths (rel * max(1, |X|max)) and increments (the differencing amplifies path
// errors by 2 / dt, so the bound is rel * (|inc| + 2 |X|max / dt)).
template <class T>
void expect_gpu_matches_cpu(const BridgeSetup& s, std::int64_t paths, LayoutPair layouts,
                            BridgeStrategy strategy, std::uint64_t seed) {
  const BrownianBridge gpu(s.t0, s.T, s.order, s.d, s.factor, CovarianceForm::factor, s.start, s.end,
                           Backend::cuda);
  const BrownianBridge cpu(s.t0, s.T, s.order, s.d, s.factor, CovarianceForm::factor, s.start, s.end,
                           Backend::cpu);
  const std::int64_t records = cpu.output_records();
  const auto z = cunum::testing::normals<T>(static_cast<std::size_t>(paths * cpu.z_records() * s.d), seed);
  cunum::BridgeGenerateOptions options;
  options.z_layout = layouts.z;
  options.output_layout = layouts.output;
  options.strategy = strategy;
  cunum::Stream stream;
  options.stream = stream;
  const auto device_z = cunum::DeviceBuffer<T>::from_host(z, stream);
  const double rel = std::is_same_v<T, double> ? 1e-12 : 1e-5;

  const auto cpu_paths = cpu.generate_paths(paths, z, options);
  double path_scale = 1;
  for (T v : cpu_paths) path_scale = std::max(path_scale, std::fabs(static_cast<double>(v)));
  std::vector<double> times = s.order;
  std::sort(times.begin(), times.end());
  times.insert(times.begin(), s.t0);
  times.push_back(s.T);

  for (bool increments : {false, true}) {
    const auto want = increments ? cpu.generate_increments(paths, z, options) : cpu_paths;
    cunum::DeviceBuffer<T> device_out(want.size(), stream);
    device_out.fill_bytes_async(0xFF);
    if (increments) {
      gpu.generate_increments(paths, device_z.data(), device_out.data(), options);
    } else {
      gpu.generate_paths(paths, device_z.data(), device_out.data(), options);
    }
    stream.synchronize();
    const auto got = device_out.to_host();
    for (std::int64_t p = 0; p < paths; ++p) {
      for (std::int64_t r = 0; r < records; ++r) {
        for (int j = 0; j < s.d; ++j) {
          const auto e = cunum::testing::layout_index(layouts.output, paths, records, s.d, p, r, j);
          const double w = want[e], g = got[e];
          const double bound = increments
                                   ? rel * (std::fabs(w) + 2 * path_scale / (times[r + 1] - times[r]))
                                   : rel * path_scale;
          ASSERT_TRUE(std::fabs(g - w) <= bound)
              << cunum::to_string(strategy) << (increments ? " increments" : " paths") << " N="
              << s.order.size() << " d=" << s.d << " fixed=" << s.end.has_value() << " paths=" << paths
              << " p=" << p << " record=" << r << " j=" << j << " got " << g << " want " << w;
        }
      }
    }
  }
}

// Interior point counts of the sweep: tiny ones, both sides of a multiple of every
// prefetch depth, and one past a staged chunk of steps (shared_chunk_steps = 128).
constexpr std::size_t kSweepN[] = {1, 2, 3, 63, 64, 65, 131};
static_assert(cunum::detail::BridgeLimits::shared_chunk_steps < 131, "N = 131 must span two staged chunks");

// Every kernel variant the library launches: each strategy x precision (the two
// tests) x d in {1, 2, 3, 5} x layout pair x free and fixed end x paths and
// increments. N cycles through kSweepN (every N meets every strategy). Path counts
// are the smallest that still run several blocks of every kernel: the widest block
// (strategy 2, float, four paths per thread) plus a vector group, a whole number of
// 16-byte vectors on path-fastest arrays (the vector kernels), and plus an odd
// remainder (the scalar kernels, partial vector groups) on every layout pair. Small
// enough to run under racecheck.
template <class T>
void sweep(std::uint64_t salt) {
  using ConstantPolicy = cunum::detail::BridgeConstantPolicies::newest;
  std::uint64_t case_id = salt;
  for (int d : {1, 2, 3, 5}) {
    const std::int64_t widest_block = cunum::detail::vector_paths<float>(1) * (ConstantPolicy::block_threads / d);
    for (bool fixed : {false, true}) {
      for (const LayoutPair& layouts : kLayouts) {
        const bool path_fastest = layouts.z == BridgeLayout::path_fastest && layouts.output == BridgeLayout::path_fastest;
        for (bool whole_vectors : {true, false}) {
          if (whole_vectors && !path_fastest) continue;
          ++case_id;
          const std::size_t n = kSweepN[case_id % std::size(kSweepN)];
          const BridgeSetup s = make_setup(n, d, fixed, static_cast<int>(case_id % 3), fresh_seed() + case_id);
          const std::int64_t paths = widest_block + (whole_vectors ? 4 : 13);
          for (BridgeStrategy strategy : kStrategies) {
            expect_gpu_matches_cpu<T>(s, paths, layouts, strategy, fresh_seed() ^ case_id);
            if (::testing::Test::HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

TEST(BridgeGpu, EveryStrategyMatchesCpuDouble) {
  CUNUM_REQUIRE_GPU();
  sweep<double>(1000);
}

TEST(BridgeGpu, EveryStrategyMatchesCpuFloat) {
  CUNUM_REQUIRE_GPU();
  sweep<float>(2000);
}

TEST(BridgeGpu, FewPaths) {
  CUNUM_REQUIRE_GPU();
  for (std::int64_t paths : {1, 2, 3, 5, 31, 33, 127, 129}) {
    const BridgeSetup s = make_setup(65, 3, false, 0, fresh_seed() + paths);
    for (BridgeStrategy strategy : kStrategies) {
      expect_gpu_matches_cpu<float>(s, paths, kLayouts[0], strategy, fresh_seed() ^ paths);
      expect_gpu_matches_cpu<double>(s, paths, kLayouts[1], strategy, fresh_seed() ^ paths);
    }
  }
}

TEST(BridgeGpu, LargeNUsesASharedMemoryStrategy) {
  CUNUM_REQUIRE_GPU();
  // N + 1 > 65535: beyond the 16-bit indices of the constant-memory strategies.
  const BridgeSetup s = make_setup(70000, 1, false, 0, fresh_seed());
  expect_gpu_matches_cpu<double>(s, 37, kLayouts[0], BridgeStrategy::automatic, fresh_seed());
  expect_gpu_matches_cpu<double>(s, 37, kLayouts[1], BridgeStrategy::shared_memory_reuse, fresh_seed());
  const BrownianBridge gpu(s.t0, s.T, s.order, s.d, s.factor, CovarianceForm::factor, s.start, s.end,
                           Backend::cuda);
  cunum::DeviceBuffer<double> z(static_cast<std::size_t>(gpu.z_records())), out(static_cast<std::size_t>(gpu.output_records()));
  cunum::BridgeGenerateOptions options;
  options.strategy = BridgeStrategy::constant_memory;
  EXPECT_CUNUM_ERROR(gpu.generate_paths(1, z.data(), out.data(), options), ErrorCode::not_supported, "65535");
}

TEST(BridgeGpu, DimensionLimits) {
  CUNUM_REQUIRE_GPU();
  // d = 9: C no longer fits the register strategies; automatic falls back to constant memory.
  const BridgeSetup nine = make_setup(20, 9, true, 2, fresh_seed());
  expect_gpu_matches_cpu<double>(nine, 100, kLayouts[2], BridgeStrategy::automatic, fresh_seed());
  const BrownianBridge gpu(nine.t0, nine.T, nine.order, nine.d, nine.factor, CovarianceForm::factor,
                           nine.start, nine.end, Backend::cuda);
  cunum::DeviceBuffer<double> z(static_cast<std::size_t>(gpu.z_records() * 9));
  cunum::DeviceBuffer<double> out(static_cast<std::size_t>(gpu.output_records() * 9));
  cunum::BridgeGenerateOptions options;
  options.strategy = BridgeStrategy::shared_memory;
  EXPECT_CUNUM_ERROR(gpu.generate_paths(1, z.data(), out.data(), options), ErrorCode::not_supported, "dimension");
  // d = 17: no strategy serves.
  const BridgeSetup big = make_setup(4, 17, false, 0, fresh_seed());
  const BrownianBridge none(big.t0, big.T, big.order, big.d, big.factor, CovarianceForm::factor, big.start,
                            big.end, Backend::cuda);
  cunum::DeviceBuffer<double> z17(static_cast<std::size_t>(none.z_records() * 17));
  cunum::DeviceBuffer<double> out17(static_cast<std::size_t>(none.output_records() * 17));
  EXPECT_CUNUM_ERROR(none.generate_paths(1, z17.data(), out17.data()), ErrorCode::not_supported, "dimension");
}

// Misaligned device pointers push the 16-byte strategies (2, and 4-5 for d = 1)
// onto their scalar paths.
TEST(BridgeGpu, VectorStrategiesWithMisalignedPointers) {
  CUNUM_REQUIRE_GPU();
  for (int d : {1, 2}) {
    const BridgeSetup s = make_setup(63, d, false, 0, fresh_seed() + d);
    const BrownianBridge gpu(s.t0, s.T, s.order, s.d, s.factor, CovarianceForm::factor, s.start, s.end,
                             Backend::cuda);
    const BrownianBridge cpu(s.t0, s.T, s.order, s.d, s.factor, CovarianceForm::factor, s.start, s.end,
                             Backend::cpu);
    const std::int64_t paths = 1024;
    const auto z = cunum::testing::normals<float>(static_cast<std::size_t>(paths * cpu.z_records() * d), fresh_seed());
    const auto want = cpu.generate_paths(paths, z);
    std::vector<float> shifted_z(z.size() + 1, 0.0f);
    std::copy(z.begin(), z.end(), shifted_z.begin() + 1);
    const auto device_z = cunum::DeviceBuffer<float>::from_host(shifted_z);
    for (BridgeStrategy strategy : {BridgeStrategy::vectorized, BridgeStrategy::shared_memory,
                                    BridgeStrategy::shared_memory_reuse, BridgeStrategy::shared_memory_reuse_prefetch}) {
      cunum::DeviceBuffer<float> device_out(want.size() + 1);
      device_out.fill_bytes_async(0xFF);
      cunum::BridgeGenerateOptions options;
      options.strategy = strategy;
      gpu.generate_paths(paths, device_z.data() + 1, device_out.data() + 1, options);
      const auto got = device_out.to_host();
      for (std::size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(got[i + 1], want[i], 1e-5 * std::max(1.0f, std::fabs(want[i])))
            << cunum::to_string(strategy) << " d=" << d << " element " << i;
      }
    }
  }
}

// Two bridges with constant-memory strategies queued back to back on one stream:
// each launch must see its own strategy in the shared constant symbol.
// The constant-memory strategies order their shared image with an event outside any
// graph, so a capture is refused with not_supported before anything is enqueued;
// the shared-memory strategies capture as before.
TEST(BridgeGpu, ConstantStrategiesRefuseGraphCapture) {
  CUNUM_REQUIRE_GPU();
  const BridgeSetup s = make_setup(63, 1, false, 0, fresh_seed());
  const BrownianBridge gpu(s.t0, s.T, s.order, 1, s.factor, CovarianceForm::factor, s.start, s.end, Backend::cuda);
  const std::int64_t paths = 1024;
  cunum::Stream stream;
  const auto z = cunum::DeviceBuffer<double>::from_host(
      cunum::testing::normals<double>(static_cast<std::size_t>(paths * gpu.z_records()), fresh_seed()), stream);
  cunum::DeviceBuffer<double> out(static_cast<std::size_t>(paths * gpu.output_records()), stream);
  stream.synchronize();
  cunum::BridgeGenerateOptions options;
  options.stream = stream;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  options.strategy = BridgeStrategy::constant_memory;
  EXPECT_CUNUM_ERROR(gpu.generate_paths(paths, z.data(), out.data(), options), ErrorCode::not_supported,
                     "CUDA graph");
  options.strategy = BridgeStrategy::shared_memory;
  gpu.generate_paths(paths, z.data(), out.data(), options);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}

// The graph-capture contract of the shared-memory strategies (and of automatic, which
// picks one here): paths and increments are captured, and each replay writes what the
// direct call writes, bit for bit. The host-vector convenience copies and waits: it
// refuses a capturing stream.
TEST(BridgeGpu, SharedStrategiesReplayFromACapturedGraph) {
  CUNUM_REQUIRE_GPU();
  const BridgeSetup s = make_setup(63, 3, true, 0, fresh_seed());
  const BrownianBridge gpu = make_bridge(s, Backend::cuda);
  const std::int64_t paths = 1000;
  const auto z_size = static_cast<std::size_t>(paths * gpu.z_records() * s.d);
  const std::vector<double> host_z = cunum::testing::normals<double>(z_size, fresh_seed());
  cunum::Stream stream;
  const auto z = cunum::DeviceBuffer<double>::from_host(host_z, stream);
  cunum::DeviceBuffer<double> out(static_cast<std::size_t>(paths * gpu.output_records() * s.d), stream);
  cunum::BridgeGenerateOptions options;
  options.stream = stream;
  for (const BridgeStrategy strategy : {BridgeStrategy::automatic, BridgeStrategy::shared_memory,
                                        BridgeStrategy::shared_memory_reuse,
                                        BridgeStrategy::shared_memory_reuse_prefetch}) {
    options.strategy = strategy;
    for (const bool increments : {false, true}) {
      const std::string what = std::string(cunum::to_string(strategy)) + (increments ? " increments" : " paths");
      const auto generate = [&] {
        if (increments) {
          gpu.generate_increments(paths, z.data(), out.data(), options);
        } else {
          gpu.generate_paths(paths, z.data(), out.data(), options);
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
  options.strategy = BridgeStrategy::automatic;
  for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
    SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
    cunum::testing::expect_capture_refused(stream, mode, [&] { gpu.generate_paths(paths, host_z, options); });
  }
}

TEST(BridgeGpu, ConstantStrategiesOfTwoBridgesOnOneStream) {
  CUNUM_REQUIRE_GPU();
  const BridgeSetup a = make_setup(63, 1, false, 0, fresh_seed());
  const BridgeSetup b = make_setup(200, 1, true, 2, fresh_seed() + 1);
  const BrownianBridge gpu_a(a.t0, a.T, a.order, 1, a.factor, CovarianceForm::factor, a.start, a.end, Backend::cuda);
  const BrownianBridge gpu_b(b.t0, b.T, b.order, 1, b.factor, CovarianceForm::factor, b.start, b.end, Backend::cuda);
  const BrownianBridge cpu_a(a.t0, a.T, a.order, 1, a.factor, CovarianceForm::factor, a.start, a.end, Backend::cpu);
  const BrownianBridge cpu_b(b.t0, b.T, b.order, 1, b.factor, CovarianceForm::factor, b.start, b.end, Backend::cpu);
  const std::int64_t paths = 4096;
  const auto za = cunum::testing::normals<double>(static_cast<std::size_t>(paths * cpu_a.z_records()), fresh_seed());
  const auto zb = cunum::testing::normals<double>(static_cast<std::size_t>(paths * cpu_b.z_records()), ~fresh_seed());
  cunum::Stream stream;
  const auto dza = cunum::DeviceBuffer<double>::from_host(za, stream);
  const auto dzb = cunum::DeviceBuffer<double>::from_host(zb, stream);
  cunum::DeviceBuffer<double> outa(static_cast<std::size_t>(paths * cpu_a.output_records()), stream);
  cunum::DeviceBuffer<double> outb(static_cast<std::size_t>(paths * cpu_b.output_records()), stream);
  cunum::BridgeGenerateOptions options;
  options.stream = stream;
  for (BridgeStrategy strategy : {BridgeStrategy::constant_memory, BridgeStrategy::prefetch}) {
    options.strategy = strategy;
    outa.fill_bytes_async(0xFF);
    outb.fill_bytes_async(0xFF);
    gpu_a.generate_paths(paths, dza.data(), outa.data(), options);
    gpu_b.generate_paths(paths, dzb.data(), outb.data(), options);
    gpu_a.generate_increments(paths, dza.data(), outa.data(), options);
    const auto got_a = outa.to_host(), got_b = outb.to_host();
    const auto want_a = cpu_a.generate_increments(paths, za), want_b = cpu_b.generate_paths(paths, zb);
    for (std::size_t i = 0; i < want_a.size(); ++i) {
      ASSERT_NEAR(got_a[i], want_a[i], 1e-9 * std::max(1.0, std::fabs(want_a[i]))) << cunum::to_string(strategy);
    }
    for (std::size_t i = 0; i < want_b.size(); ++i) {
      ASSERT_NEAR(got_b[i], want_b[i], 1e-12 * std::max(1.0, std::fabs(want_b[i]))) << cunum::to_string(strategy);
    }
  }
}

// Two bridges with different time grids share the device's constant symbol on two
// non-blocking streams, interleaved: each launch must see its own bridge's image.
// A round runs a on s1, a on s2 (the symbol holds a's image: no copy, a wait across
// streams), b on s2 (a copy, same stream), b on s1; each call writes its own
// poisoned slice of the output, checked against the CPU backend at the end.
TEST(BridgeGpu, ConstantStrategiesOfTwoBridgesOnTwoStreams) {
  CUNUM_REQUIRE_GPU();
  constexpr int kRounds = 20;
  constexpr int kCallsPerRound = 2;
  const std::int64_t paths = 1024;
  const BridgeSetup setups[] = {make_setup(63, 1, false, 0, fresh_seed()), make_setup(130, 2, true, 2, fresh_seed() + 1)};
  cunum::Stream s1, s2;
  struct Run {
    BrownianBridge gpu;
    std::vector<double> want;
    cunum::DeviceBuffer<double> z;
    cunum::DeviceBuffer<double> out;  // kRounds x kCallsPerRound slices of want.size()
    double* slice(int round, int call) {
      return out.data() + (round * kCallsPerRound + call) * want.size();
    }
  };
  std::vector<Run> runs;
  for (const BridgeSetup& s : setups) {
    const BrownianBridge cpu = make_bridge(s, Backend::cpu);
    const auto z = cunum::testing::normals<double>(static_cast<std::size_t>(paths * cpu.z_records() * s.d),
                                                   fresh_seed() ^ runs.size());
    auto want = cpu.generate_paths(paths, z);
    cunum::DeviceBuffer<double> out(want.size() * kRounds * kCallsPerRound, s1);
    out.fill_bytes_async(0xFF);
    runs.push_back({make_bridge(s, Backend::cuda), std::move(want), cunum::DeviceBuffer<double>::from_host(z, s1),
                    std::move(out)});
  }
  s1.synchronize();
  cunum::BridgeGenerateOptions on_s1, on_s2;
  on_s1.strategy = on_s2.strategy = BridgeStrategy::constant_memory;
  on_s1.stream = s1;
  on_s2.stream = s2;
  Run& a = runs[0];
  Run& b = runs[1];
  for (int round = 0; round < kRounds; ++round) {
    a.gpu.generate_paths(paths, a.z.data(), a.slice(round, 0), on_s1);
    a.gpu.generate_paths(paths, a.z.data(), a.slice(round, 1), on_s2);
    b.gpu.generate_paths(paths, b.z.data(), b.slice(round, 0), on_s2);
    b.gpu.generate_paths(paths, b.z.data(), b.slice(round, 1), on_s1);
  }
  s1.synchronize();
  s2.synchronize();
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const auto got = runs[r].out.to_host();
    const std::vector<double>& want = runs[r].want;
    double scale = 1;
    for (double v : want) scale = std::max(scale, std::fabs(v));
    for (std::size_t i = 0; i < got.size(); ++i) {
      const std::size_t slice = i / want.size();
      ASSERT_NEAR(got[i], want[i % want.size()], 1e-12 * scale)
          << "bridge " << r << " round " << slice / kCallsPerRound << " call " << slice % kCallsPerRound
          << " element " << i % want.size();
    }
  }
}

// Managed memory for `count` doubles, released with the test.
class ManagedArray {
 public:
  explicit ManagedArray(std::size_t count) : count_(count) {
    if (cudaMallocManaged(&data_, count * sizeof(double)) != cudaSuccess) data_ = nullptr;
  }
  ~ManagedArray() { cudaFree(data_); }
  ManagedArray(const ManagedArray&) = delete;
  ManagedArray& operator=(const ManagedArray&) = delete;
  double* data() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  double* data_ = nullptr;
  std::size_t count_;
};

// z and output must be memory the backend reaches: a CUDA bridge refuses pageable
// host memory (unless the device reads it: HMM/ATS), a CPU bridge refuses device
// memory, naming the argument; managed memory serves both.
TEST(BridgeGpu, PointerKindsMatchTheBackend) {
  CUNUM_REQUIRE_GPU();
  const BridgeSetup s = make_setup(31, 2, false, 0, fresh_seed());
  const BrownianBridge gpu = make_bridge(s, Backend::cuda);
  const BrownianBridge cpu = make_bridge(s, Backend::cpu);
  const std::int64_t paths = 100;
  const auto z = cunum::testing::normals<double>(static_cast<std::size_t>(paths * cpu.z_records() * s.d), fresh_seed());
  const auto want = cpu.generate_paths(paths, z);
  std::vector<double> host_out(want.size());
  const auto device_z = cunum::DeviceBuffer<double>::from_host(z);
  cunum::DeviceBuffer<double> device_out(want.size());

  EXPECT_CUNUM_ERROR(cpu.generate_paths(paths, device_z.data(), host_out.data()), ErrorCode::invalid_argument, "'z'");
  EXPECT_CUNUM_ERROR(cpu.generate_increments(paths, z.data(), device_out.data()), ErrorCode::invalid_argument,
                     "'output'");
  EXPECT_CUNUM_ERROR(cpu.generate_sobol_paths(paths, device_out.data()), ErrorCode::invalid_argument, "'output'");
  if (cunum::device_properties().pageable_memory_access) {
    std::printf("[ cunum    ] this device reads pageable host memory: a CUDA bridge accepts it\n");
  } else {
    EXPECT_CUNUM_ERROR(gpu.generate_paths(paths, z.data(), device_out.data()), ErrorCode::invalid_argument, "'z'");
    EXPECT_CUNUM_ERROR(gpu.generate_increments(paths, device_z.data(), host_out.data()), ErrorCode::invalid_argument,
                       "'output'");
    EXPECT_CUNUM_ERROR(gpu.generate_sobol_increments(paths, host_out.data()), ErrorCode::invalid_argument, "'output'");
  }

  ManagedArray managed_z(z.size()), managed_out(want.size());
  ASSERT_NE(managed_z.data(), nullptr);
  ASSERT_NE(managed_out.data(), nullptr);
  std::copy(z.begin(), z.end(), managed_z.data());
  double scale = 1;
  for (double v : want) scale = std::max(scale, std::fabs(v));
  for (const BrownianBridge* bridge : {&gpu, &cpu}) {
    std::fill(managed_out.data(), managed_out.data() + managed_out.size(), std::nan(""));
    bridge->generate_paths(paths, managed_z.data(), managed_out.data());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (std::size_t i = 0; i < want.size(); ++i) {
      ASSERT_NEAR(managed_out.data()[i], want[i], 1e-12 * scale) << cunum::to_string(bridge->backend()) << " element " << i;
    }
  }
}

// The CUDA backend refuses output overlapping z as the CPU one does (the CPU suite
// tries every kind of overlap), before anything is enqueued: the poisoned output and
// z are untouched.
TEST(BridgeGpu, OutputOverlappingZIsRefused) {
  CUNUM_REQUIRE_GPU();
  const BridgeSetup s = make_setup(31, 2, false, 0, fresh_seed());
  const BrownianBridge gpu = make_bridge(s, Backend::cuda);
  const std::int64_t paths = 100;
  const std::int64_t z_count = paths * gpu.z_records() * s.d, out_count = paths * gpu.output_records() * s.d;
  cunum::DeviceBuffer<double> buffer(static_cast<std::size_t>(z_count + out_count));
  buffer.fill_bytes_async(0xFF);
  for (const std::int64_t out_at : {std::int64_t{0}, std::int64_t{1}, z_count - 1}) {
    cunum::BridgeGenerateOptions options;
    options.stream = buffer.stream();
    EXPECT_CUNUM_ERROR(gpu.generate_paths(paths, buffer.data(), buffer.data() + out_at, options),
                       ErrorCode::invalid_argument, "'output'");
    EXPECT_CUNUM_ERROR(gpu.generate_increments(paths, buffer.data(), buffer.data() + out_at, options),
                       ErrorCode::invalid_argument, "'output'");
  }
  for (const double v : buffer.to_host()) ASSERT_TRUE(std::isnan(v));
}

// A CUDA bridge belongs to the device current at its construction; a call while
// another device is current is refused, naming both.
TEST(BridgeGpu, CallsWhileAnotherDeviceIsCurrentAreRefused) {
  CUNUM_REQUIRE_GPU();
  if (cunum::device_count() < 2) GTEST_SKIP() << "SKIPPED: needs two CUDA devices";
  int original = 0;
  ASSERT_EQ(cudaGetDevice(&original), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  {
    const BridgeSetup s = make_setup(15, 1, false, 0, fresh_seed());
    const BrownianBridge gpu = make_bridge(s, Backend::cuda);
    cunum::DeviceBuffer<double> z(static_cast<std::size_t>(gpu.z_records()));
    cunum::DeviceBuffer<double> out(static_cast<std::size_t>(gpu.output_records()));
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    EXPECT_CUNUM_ERROR(gpu.generate_paths(1, z.data(), out.data()), ErrorCode::invalid_argument,
                       "was made for CUDA device 0 but device 1 is current");
    EXPECT_CUNUM_ERROR(gpu.generate_sobol_paths(1, out.data()), ErrorCode::invalid_argument,
                       "was made for CUDA device 0 but device 1 is current");
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  }
  ASSERT_EQ(cudaSetDevice(original), cudaSuccess);
}

// Holds the legacy default stream, from a host function enqueued on it, until
// released (or for 20 seconds at most): work that synchronises with the legacy
// stream meanwhile cannot complete.
struct LegacyStreamHold {
  std::atomic<bool> released{false};
  std::atomic<bool> timed_out{false};

  static void CUDART_CB hold(void* self) {
    auto& state = *static_cast<LegacyStreamHold*>(self);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!state.released.load()) {
      if (std::chrono::steady_clock::now() > deadline) {
        state.timed_out = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
};

// The constructor uploads on cunum's setup stream and waits for that only, and calls
// on a non-blocking stream (the first Sobol call uploads its tables the same way, a
// constant-memory call orders itself by events) never touch the legacy stream: all
// of it completes while a host function holds the legacy stream.
TEST(BridgeGpu, SetupAndCallsLeaveTheLegacyStreamAlone) {
  CUNUM_REQUIRE_GPU();
  // compute-sanitizer serialises the streams itself (seen on an H100: the hold timed
  // out under memcheck and racecheck alone), so the premise cannot hold under it;
  // scripts/device-check names the tool in CUNUM_SANITIZER for its runs.
  if (std::getenv("CUNUM_SANITIZER") != nullptr || std::getenv("CUDA_INJECTION64_PATH") != nullptr) {
    GTEST_SKIP() << "SKIPPED: a CUDA tool that serialises streams is attached ("
                 << (std::getenv("CUNUM_SANITIZER") != nullptr ? std::getenv("CUNUM_SANITIZER") : "injection")
                 << "); this test runs in the plain GPU test step";
  }
  const BridgeSetup s = make_setup(63, 2, false, 0, fresh_seed());
  const std::int64_t paths = 1000;
  cunum::Stream stream;
  const auto z_host = cunum::testing::normals<double>(static_cast<std::size_t>(paths * 64 * 2), fresh_seed());
  const auto z = cunum::DeviceBuffer<double>::from_host(z_host, stream);
  cunum::DeviceBuffer<double> out(z_host.size(), stream);
  cunum::BridgeGenerateOptions options;
  options.stream = stream;
  options.strategy = BridgeStrategy::constant_memory;
  cunum::SobolBridgeOptions sobol;
  sobol.stream = stream;
  const auto run = [&](const BrownianBridge& bridge) {
    bridge.generate_paths(paths, z.data(), out.data(), options);
    bridge.generate_sobol_paths(paths, out.data(), sobol);
  };
  // Load the kernels first: loading a module lazily may synchronise the context.
  const BrownianBridge warm_up = make_bridge(s, Backend::cuda);
  run(warm_up);
  stream.synchronize();
  LegacyStreamHold hold;
  ASSERT_EQ(cudaLaunchHostFunc(nullptr, LegacyStreamHold::hold, &hold), cudaSuccess);
  {
    const BrownianBridge gpu = make_bridge(s, Backend::cuda);
    run(gpu);
    stream.synchronize();
    EXPECT_FALSE(hold.timed_out.load()) << "the bridge waited for the legacy default stream";
    hold.released = true;
    ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  }
}

// The plan-object contract (cunum/core/placement.hpp): every device allocation of a
// CUDA bridge (its strategy, the Sobol tables of its first Sobol call, the host
// convenience's copies) comes from its placement's resource, and goes back to it
// when the bridge and the copies are gone.
TEST(BridgeGpu, AllocatesFromItsPlacementsResource) {
  CUNUM_REQUIRE_GPU();
  const BridgeSetup s = make_setup(63, 2, false, 0, fresh_seed());
  const std::int64_t paths = 100;
  cunum::Stream stream;
  cunum::testing::CountingResource resource;
  cunum::Placement placement(Backend::cuda);
  placement.device_memory = &resource;
  {
    const BrownianBridge bridge = make_bridge(s, placement);
    const int after_construction = resource.allocations.load();
    EXPECT_GT(after_construction, 0) << "the strategy";
    const cunum::Placement& resolved = bridge.placement();
    EXPECT_EQ(resolved.backend, Backend::cuda);
    EXPECT_EQ(resolved.devices, std::vector<int>{cunum::current_device()});
    EXPECT_EQ(resolved.device_memory, &resource);
    EXPECT_EQ(resolved.pinned_memory, cunum::pinned_memory_resource());

    cunum::DeviceBuffer<double> out(static_cast<std::size_t>(paths * bridge.output_records() * s.d), stream);
    cunum::SobolBridgeOptions sobol;
    sobol.stream = stream;
    bridge.generate_sobol_paths(paths, out.data(), sobol);
    const int after_sobol = resource.allocations.load();
    EXPECT_GT(after_sobol, after_construction) << "the Sobol tables";

    cunum::BridgeGenerateOptions options;
    options.stream = stream;
    const auto z = cunum::testing::normals<double>(static_cast<std::size_t>(paths * bridge.z_records() * s.d),
                                                   fresh_seed());
    EXPECT_EQ(bridge.generate_paths(paths, z, options).size(), out.size());
    EXPECT_GT(resource.allocations.load(), after_sobol) << "the host convenience's copies";
    stream.synchronize();
  }
  EXPECT_EQ(resource.deallocations.load(), resource.allocations.load());
}

// Every device allocation, refused in turn by an exhausted placement.device_memory:
// the strategy's upload, a Sobol sequence's tables and the host convenience's copies
// are out_of_memory naming the routine, give back what they were served, and write
// nothing.
TEST(BridgeGpu, AnExhaustedResourceIsOutOfMemoryNamingTheRoutine) {
  CUNUM_REQUIRE_GPU();
  using cunum::testing::cuda_placement;
  using cunum::testing::ExhaustibleResource;
  const BridgeSetup s = make_setup(63, 2, false, 0, fresh_seed());
  const std::int64_t paths = 100;
  cunum::Stream stream;
  cunum::testing::expect_out_of_memory_at_each_allocation("cunum::BrownianBridge", [&](ExhaustibleResource* resource) {
    resource->arm();
    const BrownianBridge bridge = make_bridge(s, cuda_placement(stream, resource));
  });
  const auto records = static_cast<std::size_t>(paths * (s.order.size() + 1) * s.d);
  cunum::DeviceBuffer<double> out(records, stream);
  cunum::SobolBridgeOptions sobol;
  sobol.stream = stream;
  cunum::testing::expect_out_of_memory_at_each_allocation(
      "cunum::BrownianBridge::generate_sobol_paths",
      [&](ExhaustibleResource* resource) {
        const BrownianBridge bridge = make_bridge(s, cuda_placement(stream, resource));
        resource->arm();
        out.fill_bytes_async(0xFF);
        bridge.generate_sobol_paths(paths, out.data(), sobol);
      },
      [&] {
        for (double value : out.to_host()) ASSERT_TRUE(std::isnan(value)) << "the refused call wrote its output";
      });
  const auto z = cunum::testing::normals<double>(records, fresh_seed());
  cunum::BridgeGenerateOptions options;
  options.stream = stream;
  cunum::testing::expect_out_of_memory_at_each_allocation(
      "cunum::BrownianBridge::generate_paths", [&](ExhaustibleResource* resource) {
        const BrownianBridge bridge = make_bridge(s, cuda_placement(stream, resource));
        resource->arm();
        bridge.generate_paths(paths, z, options);
      });
}

// The constructor resolves its placement as every plan does: a capturing
// placement.stream is refused, although the bridge sets up on a stream of its own.
TEST(BridgeGpu, ACapturingPlacementStreamIsRefused) {
  CUNUM_REQUIRE_GPU();
  const BridgeSetup s = make_setup(15, 1, false, 0, fresh_seed());
  cunum::Stream stream;
  for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
    SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
    cunum::testing::expect_capture_refused(stream, mode, [&] { make_bridge(s, {Backend::cuda, stream}); });
  }
}

TEST(BridgeGpu, HostConvenienceMatchesCpu) {
  CUNUM_REQUIRE_GPU();
  const BridgeSetup s = make_setup(100, 2, false, 0, fresh_seed());
  const BrownianBridge gpu(s.t0, s.T, s.order, s.d, s.factor, CovarianceForm::factor, s.start, s.end,
                           Backend::cuda);
  const BrownianBridge cpu(s.t0, s.T, s.order, s.d, s.factor, CovarianceForm::factor, s.start, s.end,
                           Backend::cpu);
  const auto z = cunum::testing::normals<double>(static_cast<std::size_t>(500 * cpu.z_records() * 2), fresh_seed());
  const auto a = gpu.generate_paths(500, z);
  const auto b = cpu.generate_paths(500, z);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-12 * std::max(1.0, std::fabs(b[i])));
}

}  // namespace
