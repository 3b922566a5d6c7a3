// Device reductions held against the long-double reference and the CPU backend,
// on fresh random data at awkward sizes and alignments, with poisoned outputs.

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "cunum/core.hpp"
#include "cunum/reduce.hpp"
#include "reduce/reduce_reference.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::ReduceOp;
using cunum::testing::awkward_sizes;
using cunum::testing::random_vector;

constexpr const auto& kOps = cunum::ReduceOpValues::all;

// `result` of `op` on host[offset, offset + n) by `backend`, held to the documented bound.
template <class T>
void expect_matches_reference(ReduceOp op, const std::vector<T>& host, std::int64_t offset,
                              std::int64_t n, cunum::reduce_result_t<T> result, Backend backend = Backend::cuda) {
  const auto ref = cunum::testing::reference_reduce(op, host.data() + offset, n);
  if constexpr (std::is_floating_point_v<T>) {
    const long double depth =
        backend == Backend::cpu
            ? cunum::testing::cpu_sum_depth(n, omp_get_max_threads())
            : cunum::testing::cuda_sum_depth(n, cunum::testing::cuda_launched_threads(n, sizeof(T)));
    const auto bound = cunum::testing::floating_sum_bound<T>(ref, depth);
    EXPECT_LE(std::fabs(result - ref.value), bound)
        << cunum::to_string(op) << " n=" << n << " offset=" << offset << " got " << result;
  } else {
    EXPECT_EQ(static_cast<long double>(result), ref.value)
        << cunum::to_string(op) << " n=" << n << " offset=" << offset;
  }
}

template <class T>
class GpuReduce : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double, std::int32_t, std::int64_t>;
TYPED_TEST_SUITE(GpuReduce, ElementTypes);

TYPED_TEST(GpuReduce, MatchesReferenceAtAwkwardSizesAndAlignments) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  using R = cunum::reduce_result_t<T>;
  cunum::Stream stream;
  cunum::Reducer<T> reducer(Backend::cuda);
  cunum::DeviceBuffer<R> result(1, stream);
  for (std::int64_t n : awkward_sizes()) {
    // Offsets 1 and 3 elements move the data off 16-byte alignment.
    for (std::int64_t offset : {0, 1, 3}) {
      const auto host = random_vector<T>(static_cast<std::size_t>(n + offset), static_cast<std::uint64_t>(n * 8 + offset));
      const auto data = cunum::DeviceBuffer<T>::from_host(host, stream);
      for (ReduceOp op : kOps) {
        result.fill_bytes_async(0xFF);
        reducer.reduce(op, data.data() + offset, n, result.data(), stream);
        R value{};
        result.copy_to_host(&value, 1);
        expect_matches_reference(op, host, offset, n, value);
      }
    }
  }
}

TYPED_TEST(GpuReduce, IsBitIdenticalRunToRunAndCloseToTheCpuBackend) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  const auto host = random_vector<T>((1 << 24) + 5, 11);
  const auto data = cunum::DeviceBuffer<T>::from_host(host);
  const auto n = static_cast<std::int64_t>(host.size());
  for (ReduceOp op : kOps) {
    const auto first = cunum::reduce(op, data.data(), n, Backend::cuda);
    for (int run = 0; run < 5; ++run) {
      const auto again = cunum::reduce(op, data.data(), n, Backend::cuda);
      EXPECT_EQ(std::memcmp(&first, &again, sizeof(first)), 0) << cunum::to_string(op) << " run " << run;
    }
    expect_matches_reference(op, host, 0, n, first);
    const auto cpu = cunum::reduce(op, host, Backend::cpu);
    if constexpr (!std::is_floating_point_v<T>) {
      EXPECT_EQ(first, cpu);
    }
  }
}

// Many reductions on one Reducer and stream with no synchronisation between them. Each
// launch may start while the one before it finishes (programmatic dependent launch), so
// this holds the shared workspace (partials, last-block ticket) to its reset.
TYPED_TEST(GpuReduce, BackToBackCallsOnOneWorkspaceAreEachRight) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  using R = cunum::reduce_result_t<T>;
  const std::vector<std::int64_t> sizes = {1, 4099, 262147, 1048573, 7};
  const auto host = random_vector<T>(1048573, 29);
  cunum::Stream stream;
  const auto data = cunum::DeviceBuffer<T>::from_host(host, stream);
  cunum::Reducer<T> reducer(Backend::cuda);
  constexpr int kRounds = 3;
  const std::size_t calls = kRounds * sizes.size() * std::size(kOps);
  cunum::DeviceBuffer<R> results(calls, stream);
  results.fill_bytes_async(0xFF);
  std::size_t call = 0;
  for (int round = 0; round < kRounds; ++round) {
    for (const std::int64_t n : sizes) {
      for (const ReduceOp op : kOps) reducer.reduce(op, data.data(), n, results.data() + call++, stream);
    }
  }
  std::vector<R> values(calls);
  results.copy_to_host(values.data(), calls);
  call = 0;
  for (int round = 0; round < kRounds; ++round) {
    for (const std::int64_t n : sizes) {
      for (const ReduceOp op : kOps) expect_matches_reference(op, host, 0, n, values[call++]);
    }
  }
}

// Enqueues about `copies` x 128 MiB of device traffic on `stream`, to keep it busy.
void keep_busy(cunum::DeviceBuffer<float>& scratch, int copies, cunum::StreamHandle stream) {
  const std::size_t half = scratch.size() / 2;
  for (int i = 0; i < copies; ++i) {
    cunum::memory::copy_device_to_device_async(scratch.data() + half, scratch.data(), half * sizeof(float), stream);
  }
}

// Reductions captured into a CUDA graph: the graph replays them, reading the input as
// it is at each replay. The Reducer is set up on another stream, still busy when the
// capture begins, so the captured calls must order the setup without querying it.
TEST(GpuReduce, ReplaysFromACapturedCudaGraph) {
  CUNUM_REQUIRE_GPU();
  const std::vector<std::int64_t> sizes = {3, 65537, 1048573};
  cunum::Stream stream;
  cunum::Stream setup_stream;
  cunum::DeviceBuffer<float> data(static_cast<std::size_t>(sizes.back()), stream);
  cunum::DeviceBuffer<float> results(sizes.size(), stream);
  cunum::DeviceBuffer<float> busy(std::size_t{1} << 25, setup_stream);
  for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
    SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
    keep_busy(busy, 64, setup_stream);
    cunum::Reducer<float> reducer({Backend::cuda, setup_stream});
    cunum::testing::CapturedGraph graph(stream, mode, [&] {
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        reducer.reduce(ReduceOp::sum, data.data(), sizes[i], results.data() + i, stream);
      }
    });
    ASSERT_TRUE(graph.ok());
    for (std::uint64_t seed : {41u, 42u}) {
      const auto host = random_vector<float>(static_cast<std::size_t>(sizes.back()), seed);
      data.copy_from_host(host.data(), host.size());
      results.fill_bytes_async(0xFF);
      graph.launch();
      std::vector<float> values(sizes.size());
      results.copy_to_host(values.data(), values.size());
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        expect_matches_reference(ReduceOp::sum, host, 0, sizes[i], values[i]);
      }
      // Bit for bit what the same calls give directly.
      std::vector<float> direct(sizes.size());
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        reducer.reduce(ReduceOp::sum, data.data(), sizes[i], results.data() + i, stream);
      }
      results.copy_to_host(direct.data(), direct.size());
      cunum::testing::expect_same_bits(values, direct, "seed " + std::to_string(seed));
    }
    setup_stream.synchronize();
  }
}

// The constructor and the synchronous convenience refuse a capturing stream: the
// workspace would belong to the graph, and the convenience waits for its result.
TEST(GpuReduce, PlanAndConvenienceRefuseACapturingStream) {
  CUNUM_REQUIRE_GPU();
  cunum::Stream stream;
  cunum::DeviceBuffer<float> data(1000, stream);
  data.fill_bytes_async(0);
  stream.synchronize();
  for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
    SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
    cunum::testing::expect_capture_refused(stream, mode, [&] { cunum::Reducer<float>({Backend::cuda, stream}); });
    cunum::testing::expect_capture_refused(
        stream, mode, [&] { cunum::reduce(ReduceOp::sum, data.data(), 1000, {Backend::cuda, stream}); });
  }
}

TEST(GpuReduce, HandlesMoreThan2To31Elements) {
  CUNUM_REQUIRE_GPU();
  const std::int64_t n = (std::int64_t{1} << 31) + 5;
  if (cunum::device_properties().global_memory_bytes < static_cast<std::size_t>(n) * 4 * 3 / 2) {
    GTEST_SKIP() << "SKIPPED: device memory too small for 2^31 + 5 int32";
  }
  // Every byte 0x01: each int32 is 0x01010101, so the exact sum is known.
  cunum::DeviceBuffer<std::int32_t> data(static_cast<std::size_t>(n));
  data.fill_bytes_async(0x01);
  EXPECT_EQ(cunum::reduce(ReduceOp::sum, data.data(), n, Backend::cuda), n * std::int64_t{0x01010101});
  EXPECT_EQ(cunum::reduce(ReduceOp::max, data.data(), n, Backend::cuda), std::int64_t{0x01010101});
}

TEST(GpuReduce, MinMaxIgnoreNaNLikeTheCpuBackend) {
  CUNUM_REQUIRE_GPU();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> host = random_vector<float>(100003, 3);
  for (std::size_t i = 0; i < host.size(); i += 7) host[i] = nan;
  EXPECT_EQ(cunum::reduce(ReduceOp::min, host, Backend::cuda), cunum::reduce(ReduceOp::min, host, Backend::cpu));
  EXPECT_EQ(cunum::reduce(ReduceOp::max, host, Backend::cuda), cunum::reduce(ReduceOp::max, host, Backend::cpu));
  EXPECT_TRUE(std::isnan(cunum::reduce(ReduceOp::sum, host, Backend::cuda)));
}

TEST(GpuReduce, BadArgumentsAreNamedErrorsAndNothingIsWritten) {
  CUNUM_REQUIRE_GPU();
  cunum::Reducer<double> reducer(Backend::cuda);
  cunum::DeviceBuffer<double> data(4), result(1);
  result.fill_bytes_async(0xAB);
  EXPECT_CUNUM_ERROR(reducer.reduce(ReduceOp::sum, nullptr, 4, result.data()), cunum::ErrorCode::invalid_argument, "'data'");
  EXPECT_CUNUM_ERROR(reducer.reduce(ReduceOp::sum, data.data(), -3, result.data()), cunum::ErrorCode::invalid_argument, "'n'");
  EXPECT_CUNUM_ERROR(reducer.reduce(ReduceOp::min, data.data(), 0, result.data()), cunum::ErrorCode::invalid_argument, "'n'");
  EXPECT_CUNUM_ERROR(reducer.reduce(ReduceOp::sum, data.data(), 4, nullptr), cunum::ErrorCode::invalid_argument, "'result'");
  unsigned char bytes[sizeof(double)];
  cunum::memory::copy_device_to_host(bytes, result.data(), sizeof(double), nullptr);
  for (unsigned char b : bytes) EXPECT_EQ(b, 0xAB);
}

// ---------------------------------------------------------------------------
// Pointer kinds: each kind of memory as data, then as result, on both backends.
// Accepted kinds give the right sum; refused ones name the argument and leave the
// result as it was.
TEST(GpuReduce, DataAndResultFollowEachBackendsPointerKindRule) {
  CUNUM_REQUIRE_GPU();
  constexpr std::int64_t n = 4099;
  constexpr float kPoison = -7.0e30f;
  const auto host = random_vector<float>(n, 77);
  const bool pageable = cunum::device_properties().pageable_memory_access;
  std::printf("[ cunum    ] device reads pageable host memory: %s\n", pageable ? "yes (HMM/ATS)" : "no");
  for (const Backend backend : {Backend::cpu, Backend::cuda}) {
    cunum::Reducer<float> reducer(backend);
    for (const cunum::testing::MemoryKind data_kind : cunum::testing::kMemoryKinds) {
      cunum::testing::KindedMemory<float> data(data_kind, n);
      data.upload(host);
      for (const cunum::testing::MemoryKind result_kind : cunum::testing::kMemoryKinds) {
        SCOPED_TRACE(std::string("backend ") + cunum::to_string(backend) + ", data " +
                     cunum::testing::memory_kind_name(data_kind) + ", result " +
                     cunum::testing::memory_kind_name(result_kind));
        cunum::testing::KindedMemory<float> result(result_kind, 1);
        result.upload({kPoison});
        const auto error = cunum::testing::error_from(
            [&] { reducer.reduce(ReduceOp::sum, data.data(), n, result.data()); });
        const float value = result.download()[0];
        const char* refused = !cunum::testing::backend_accepts(backend, data_kind)     ? "'data'"
                              : !cunum::testing::backend_accepts(backend, result_kind) ? "'result'"
                                                                                       : nullptr;
        if (refused == nullptr) {
          EXPECT_FALSE(error.has_value()) << error->what();
          expect_matches_reference(ReduceOp::sum, host, 0, n, value, backend);
        } else {
          ASSERT_TRUE(error.has_value()) << "accepted; expected " << refused << " to be refused";
          EXPECT_EQ(error->code(), cunum::ErrorCode::invalid_argument) << error->what();
          EXPECT_NE(std::string(error->what()).find(refused), std::string::npos) << error->what();
          EXPECT_EQ(value, kPoison) << "a refused call wrote its result";
        }
      }
    }
  }
}

// The Reducer's workspace, and the convenience reduce's buffers, come from the
// current device memory resource and go back to it.
TEST(GpuReduce, AllocatesThroughTheCurrentDeviceResource) {
  CUNUM_REQUIRE_GPU();
  cunum::testing::CountingResource counting;
  const auto host = random_vector<float>(65537, 5);
  {
    const cunum::testing::ScopedDeviceResource scoped(&counting);
    {
      cunum::Reducer<float> reducer(Backend::cuda);
      const int workspace_allocations = counting.allocations.load();
      EXPECT_GT(workspace_allocations, 0) << "the workspace did not come from the current resource";
      const auto data = cunum::DeviceBuffer<float>::from_host(host);
      cunum::DeviceBuffer<float> result(1);
      reducer.reduce(ReduceOp::sum, data.data(), static_cast<std::int64_t>(host.size()), result.data());
      expect_matches_reference(ReduceOp::sum, host, 0, static_cast<std::int64_t>(host.size()), result.to_host()[0]);
      EXPECT_EQ(counting.allocations.load(), workspace_allocations + 2);
    }
    EXPECT_EQ(counting.deallocations.load(), counting.allocations.load());
    const int before = counting.allocations.load();
    const float sum = cunum::reduce(ReduceOp::sum, host, Backend::cuda);
    expect_matches_reference(ReduceOp::sum, host, 0, static_cast<std::int64_t>(host.size()), sum);
    EXPECT_GT(counting.allocations.load(), before) << "cunum::reduce bypassed the current resource";
  }
  EXPECT_EQ(cunum::current_device_resource(), cunum::async_memory_resource());
  EXPECT_EQ(counting.deallocations.load(), counting.allocations.load());
}

// A Reducer set up on one stream (behind other work there) and used at once on
// another: its SetupFence orders the workspace's allocation and zeroing before the
// reduction, without the constructor waiting for its stream. Fresh Reducers, with
// poisoned pool memory handed back just before each, and poisoned results.
TEST(GpuReduce, SetUpOnOneStreamAndUsedAtOnceOnAnother) {
  CUNUM_REQUIRE_GPU();
  constexpr std::int64_t n = 1048573;
  const auto host = random_vector<float>(n, 31);
  cunum::Stream stream_a;
  cunum::Stream stream_b;
  const auto data = cunum::DeviceBuffer<float>::from_host(host, stream_b);
  cunum::DeviceBuffer<float> result(1, stream_b);
  cunum::DeviceBuffer<float> scratch(std::size_t{1} << 25, stream_a);  // 2 x 64 MiB
  stream_a.synchronize();
  for (int round = 0; round < 200 && !::testing::Test::HasFailure(); ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    // The first round queues about 10 ms of copies on stream_a, so that a constructor
    // that waited for its stream would be seen to.
    keep_busy(scratch, round == 0 ? 256 : 4, stream_a);
    {
      cunum::DeviceBuffer<double> decoy(8192, stream_a);  // returned to stream_a's pool poisoned
      decoy.fill_bytes_async(0xFF);
    }
    cunum::Reducer<float> reducer({Backend::cuda, stream_a});
    if (round == 0) {
      EXPECT_EQ(cudaStreamQuery(stream_a), cudaErrorNotReady) << "the Reducer constructor waited for its stream";
      if (cudaPeekAtLastError() == cudaErrorNotReady) cudaGetLastError();  // the query's, not the library's
    }
    result.fill_bytes_async(0xFF);
    reducer.reduce(ReduceOp::sum, data.data(), n, result.data(), stream_b);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the reduction left an error behind (its fence's event query?)";
    float value = 0.0f;
    result.copy_to_host(&value, 1);
    expect_matches_reference(ReduceOp::sum, host, 0, n, value);
  }
  stream_a.synchronize();
}

TEST(GpuReduce, AMovedFromReducerIsANamedError) {
  CUNUM_REQUIRE_GPU();
  const std::vector<float> host = {1.0f, 2.0f, 3.0f};
  const auto data = cunum::DeviceBuffer<float>::from_host(host);
  cunum::DeviceBuffer<float> result(1);
  cunum::Reducer<float> source(Backend::cuda);
  cunum::Reducer<float> target(std::move(source));
  EXPECT_CUNUM_ERROR(source.reduce(ReduceOp::sum, data.data(), 3, result.data()), cunum::ErrorCode::invalid_argument,
                     "moved-from");
  target.reduce(ReduceOp::sum, data.data(), 3, result.data());
  EXPECT_EQ(result.to_host()[0], 6.0f);
  cunum::Reducer<float> assigned(Backend::cpu);
  assigned = std::move(target);
  EXPECT_EQ(assigned.backend(), Backend::cuda);
  EXPECT_CUNUM_ERROR(target.reduce(ReduceOp::max, data.data(), 3, result.data()), cunum::ErrorCode::invalid_argument,
                     "moved-from");
  assigned.reduce(ReduceOp::max, data.data(), 3, result.data());
  EXPECT_EQ(result.to_host()[0], 3.0f);
}

// int64 sums wrap modulo 2^64 on the device as on the CPU, across blocks and the
// final combination: 2^20 (2^63 - 1) is -2^20 modulo 2^64.
TEST(GpuReduce, Int64SumsWrapModulo2To64) {
  CUNUM_REQUIRE_GPU();
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const std::vector<std::int64_t> host(1 << 20, max);
  EXPECT_EQ(cunum::reduce(ReduceOp::sum, host, Backend::cuda), -(std::int64_t{1} << 20));
  EXPECT_EQ(cunum::reduce(ReduceOp::sum, std::vector<std::int64_t>{max, 1}, Backend::cuda),
            std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(cunum::reduce(ReduceOp::sum_of_squares, std::vector<std::int64_t>{3037000500}, Backend::cuda),
            cunum::reduce(ReduceOp::sum_of_squares, std::vector<std::int64_t>{3037000500}, Backend::cpu));
}

// Every device allocation, refused in turn by an exhausted placement.device_memory:
// the plan and both conveniences report out_of_memory naming the routine, and give
// back what they were served.
TEST(GpuReduce, AnExhaustedResourceIsOutOfMemoryNamingTheRoutine) {
  CUNUM_REQUIRE_GPU();
  cunum::Stream stream;
  const auto host = random_vector<float>(4099, 9);
  using cunum::testing::cuda_placement;
  using cunum::testing::ExhaustibleResource;
  cunum::testing::expect_out_of_memory_at_each_allocation("cunum::Reducer", [&](ExhaustibleResource* resource) {
    resource->arm();
    const cunum::Reducer<float> reducer(cuda_placement(stream, resource));
  });
  cunum::testing::expect_out_of_memory_at_each_allocation("cunum::reduce", [&](ExhaustibleResource* resource) {
    resource->arm();
    cunum::reduce(ReduceOp::sum, host, cuda_placement(stream, resource));
  });
  const auto data = cunum::DeviceBuffer<float>::from_host(host, stream);
  // The pointer convenience makes a Reducer, then its result buffer: named after itself throughout.
  cunum::testing::expect_out_of_memory_at_each_allocation("cunum::reduce", [&](ExhaustibleResource* resource) {
    resource->arm();
    cunum::reduce(ReduceOp::sum, data.data(), 4099, cuda_placement(stream, resource));
  });
}

// A Reducer made on device 0 refuses a call made with device 1 current, writing nothing.
TEST(GpuReduce, ACallWithAnotherDeviceCurrentIsRefused) {
  CUNUM_REQUIRE_GPUS(2);
  const cunum::testing::ScopedCurrentDevice on_device_0(0);
  cunum::Reducer<float> reducer(Backend::cuda);
  const auto data = cunum::DeviceBuffer<float>::from_host({1.0f, 2.0f, 3.0f});
  cunum::DeviceBuffer<float> result(1);
  result.fill_bytes_async(0xAB);
  {
    const cunum::testing::ScopedCurrentDevice on_device_1(1);
    EXPECT_CUNUM_ERROR(reducer.reduce(ReduceOp::sum, data.data(), 3, result.data()), cunum::ErrorCode::invalid_argument,
                       std::string("cunum::reduce: ") + cunum::testing::kMadeForDevice0);
  }
  unsigned char bytes[sizeof(float)];
  cunum::memory::copy_device_to_host(bytes, result.data(), sizeof(float), nullptr);
  for (unsigned char b : bytes) EXPECT_EQ(b, 0xAB);
  reducer.reduce(ReduceOp::sum, data.data(), 3, result.data());
  EXPECT_EQ(result.to_host()[0], 6.0f);
}

}  // namespace
