// The core on a device: properties, buffers, timers, the memory resource hook and
// the pointer-kind rule of each backend.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "cunum/core.hpp"
#include "cunum/reduce.hpp"
#include "src/core/device_queue.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"
#include "test_support.hpp"

namespace {

using cunum::testing::CountingResource;
using cunum::testing::KindedMemory;
using cunum::testing::pool_access;
using cunum::testing::set_pool_access;
using cunum::testing::MemoryKind;
using cunum::testing::ScopedDeviceResource;

TEST(DeviceProperties, DescribeTheDevice) {
  CUNUM_REQUIRE_GPU();
  const auto& props = cunum::device_properties();
  EXPECT_FALSE(props.name.empty());
  EXPECT_GT(props.multiprocessor_count, 0);
  EXPECT_GT(props.global_memory_bytes, 0u);
  EXPECT_GT(props.l2_cache_bytes, 0u);
}

TEST(DeviceProperties, AnOrdinalPastTheDevicesIsANamedError) {
  CUNUM_REQUIRE_GPU();
  EXPECT_CUNUM_ERROR(cunum::device_properties(cunum::device_count()), cunum::ErrorCode::invalid_argument,
                     "cunum::device_properties: argument 'ordinal' is not a device");
  EXPECT_EQ(cunum::device_properties(cunum::device_count() - 1).ordinal, cunum::device_count() - 1);
}

// A moved-from Stream holds the default stream (nullptr), which every call takes; the
// stream itself moves with its handle and is destroyed once.
TEST(Stream, AMovedFromStreamHoldsTheDefaultStream) {
  CUNUM_REQUIRE_GPU();
  cunum::Stream first;
  const cunum::StreamHandle handle = first.get();
  ASSERT_NE(handle, nullptr);
  cunum::Stream second(std::move(first));
  EXPECT_EQ(first.get(), nullptr);
  EXPECT_EQ(second.get(), handle);
  EXPECT_NO_THROW(first.synchronize());
  cunum::Stream third;
  third = std::move(second);
  EXPECT_EQ(second.get(), nullptr);
  EXPECT_EQ(third.get(), handle);
  // The moved-from streams serve as the default stream.
  cunum::DeviceBuffer<int> buffer(16, first);
  buffer.fill_bytes_async(0);
  EXPECT_EQ(buffer.to_host(), std::vector<int>(16, 0));
  third.synchronize();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// elapsed_ms() needs both timestamps, in order: without them it refuses before asking
// CUDA (which would fail the call, and show as an API error under compute-sanitizer).
TEST(EventTimer, ElapsedBeforeStartOrStopIsRefusedNamingIt) {
  CUNUM_REQUIRE_GPU();
  cunum::Stream stream;
  const std::string refused = "cunum::EventTimer::elapsed_ms: argument 'this' has not recorded both start() and stop()";
  {
    const cunum::EventTimer neither;
    EXPECT_CUNUM_ERROR(neither.elapsed_ms(), cunum::ErrorCode::invalid_argument, refused);
  }
  {
    cunum::EventTimer started;
    started.start(stream);
    EXPECT_CUNUM_ERROR(started.elapsed_ms(), cunum::ErrorCode::invalid_argument, refused);
    started.stop(stream);
    EXPECT_GE(started.elapsed_ms(), 0.0f);
    started.start(stream);  // a new interval: the old stop does not close it
    EXPECT_CUNUM_ERROR(started.elapsed_ms(), cunum::ErrorCode::invalid_argument, refused);
    started.stop(stream);
  }
  {
    cunum::EventTimer stopped;
    stopped.stop(stream);
    EXPECT_CUNUM_ERROR(stopped.elapsed_ms(), cunum::ErrorCode::invalid_argument, refused);
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(DeviceBuffer, RoundTripsAndMoves) {
  CUNUM_REQUIRE_GPU();
  cunum::Stream stream;
  const auto host = cunum::testing::random_vector<double>(1021, 1);
  auto buffer = cunum::DeviceBuffer<double>::from_host(host, stream);
  cunum::DeviceBuffer<double> moved(std::move(buffer));
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_EQ(moved.to_host(), host);
}

TEST(DeviceBuffer, PoisonFillsEveryByte) {
  CUNUM_REQUIRE_GPU();
  cunum::DeviceBuffer<unsigned int> buffer(257);
  buffer.fill_bytes_async(0xFF);
  for (unsigned int v : buffer.to_host()) EXPECT_EQ(v, 0xFFFFFFFFu);
}

TEST(EventTimer, MeasuresNonNegativeTime) {
  CUNUM_REQUIRE_GPU();
  cunum::Stream stream;
  cunum::DeviceBuffer<float> a(1 << 20, stream), b(1 << 20, stream);
  cunum::EventTimer timer;
  timer.start(stream);
  cunum::memory::copy_device_to_device_async(b.data(), a.data(), a.bytes(), stream);
  timer.stop(stream);
  EXPECT_GE(timer.elapsed_ms(), 0.0f);
}

// Buffers allocate from the resource current at their construction (or the one they
// are given) and return their memory to it, even after another has been made current.
TEST(DeviceMemoryResource, BuffersAllocateThroughTheCurrentResourceAndKeepIt) {
  CUNUM_REQUIRE_GPU();
  CountingResource counting;
  cunum::Stream stream;
  const auto host = cunum::testing::random_vector<float>(1000, 3);
  {
    std::optional<cunum::DeviceBuffer<float>> kept;
    {
      const ScopedDeviceResource scoped(&counting);
      const cunum::DeviceBuffer<float> buffer(1000, stream);
      EXPECT_EQ(counting.allocations.load(), 1);
      EXPECT_EQ(counting.bytes_allocated.load(), 1000 * sizeof(float));
      auto copy = cunum::DeviceBuffer<float>::from_host(host, stream);
      EXPECT_EQ(counting.allocations.load(), 2);
      EXPECT_EQ(copy.to_host(), host);
      kept.emplace(std::move(copy));
    }
    EXPECT_EQ(cunum::current_device_resource(), cunum::async_memory_resource());
    EXPECT_EQ(counting.deallocations.load(), 1) << "the moved-from buffer returned nothing";
    EXPECT_EQ(kept->to_host(), host);
  }
  EXPECT_EQ(counting.deallocations.load(), 2) << "a buffer returns its memory to the resource it came from";
  {
    const cunum::DeviceBuffer<int> given(10, stream, &counting);
    EXPECT_EQ(counting.allocations.load(), 3) << "a resource passed to the constructor serves it";
  }
  EXPECT_EQ(counting.deallocations.load(), 3);
}

// A pool that std::bad_alloc's, as pools written to the standard allocator's contract do.
class BadAllocResource final : public cunum::DeviceMemoryResource {
  void* do_allocate(std::size_t, cunum::StreamHandle) override { throw std::bad_alloc(); }
  void do_deallocate(void*, std::size_t, cunum::StreamHandle) noexcept override {}
};

// A resource's refusal is out_of_memory naming the routine that asked and the bytes,
// whatever the resource said; cunum's own resource names the routine already, once.
TEST(DeviceMemoryResource, ARefusalNamesTheRoutineInProgressAndTheBytes) {
  CUNUM_REQUIRE_GPU();
  cunum::Stream stream;
  cunum::testing::ExhaustibleResource dry(0);
  dry.arm();
  EXPECT_CUNUM_ERROR(cunum::DeviceBuffer<float>(16, stream, &dry), cunum::ErrorCode::out_of_memory,
                     "cunum::DeviceBuffer: the device memory resource refused 64 bytes (test pool exhausted)");
  BadAllocResource throwing;
  EXPECT_CUNUM_ERROR(cunum::DeviceBuffer<double>(2, stream, &throwing), cunum::ErrorCode::out_of_memory,
                     "cunum::DeviceBuffer: the device memory resource refused 16 bytes (std::bad_alloc: ");
  {
    const cunum::detail::RoutineScope routine("cunum::outer");
    EXPECT_CUNUM_ERROR(cunum::DeviceBuffer<float>(16, stream, &dry), cunum::ErrorCode::out_of_memory,
                       "cunum [out_of_memory]: cunum::outer: the device memory resource refused 64 bytes");
  }
  // More than the device holds, from cudaMallocAsync through a resource that forwards
  // to it: a real failing CUDA call, which compute-sanitizer reports as an API error.
  if (std::getenv("CUNUM_SANITIZER") != nullptr) {
    GTEST_SKIP() << "under compute-sanitizer (" << std::getenv("CUNUM_SANITIZER")
                 << "): the failing cudaMallocAsync part is left out; it runs in the plain GPU suite";
  }
  CountingResource forwarding;
  const std::size_t too_many = 4 * cunum::device_properties().global_memory_bytes;
  const auto error = cunum::testing::error_from([&] { cunum::DeviceBuffer<char> huge(too_many, stream, &forwarding); });
  ASSERT_TRUE(error.has_value()) << "allocated four times the device's memory";
  EXPECT_EQ(error->code(), cunum::ErrorCode::out_of_memory) << error->what();
  const std::string message = error->what();
  EXPECT_EQ(message.rfind("cunum [out_of_memory]: cunum::DeviceBuffer: cudaMallocAsync", 0), 0u) << message;
  EXPECT_EQ(message.find("refused"), std::string::npos) << "named twice: " << message;
  EXPECT_EQ(forwarding.allocations.load(), 0);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// require_memory on every kind of memory, for both backends (the reductions' data and
// result arguments go through it; reduce_gpu_test.cpp holds them to it end to end).
TEST(PointerKinds, EachBackendTakesTheMemoryItCanReachAndNamesTheRest) {
  CUNUM_REQUIRE_GPU();
  for (MemoryKind kind : cunum::testing::kMemoryKinds) {
    KindedMemory<float> memory(kind, 4);
    for (cunum::Backend backend : {cunum::Backend::cpu, cunum::Backend::cuda}) {
      SCOPED_TRACE(std::string(cunum::testing::memory_kind_name(kind)) + " memory, backend " +
                   cunum::to_string(backend));
      for (float* pointer : {memory.data(), memory.data() + 3}) {
        const auto error = cunum::testing::error_from(
            [&] { cunum::detail::require_memory(pointer, 1, backend, "cunum::test", "data"); });
        if (cunum::testing::backend_accepts(backend, kind)) {
          EXPECT_FALSE(error.has_value()) << error->what();
        } else {
          ASSERT_TRUE(error.has_value()) << "accepted";
          EXPECT_EQ(error->code(), cunum::ErrorCode::invalid_argument);
          EXPECT_NE(std::string(error->what()).find("cunum::test: argument 'data'"), std::string::npos)
              << error->what();
        }
      }
    }
  }
}

}  // namespace

namespace {

// A CUDA plan takes every device allocation from its placement's resource, on its
// stream, and resolves the defaults it was not given.
TEST(Placement, ACudaPlanAllocatesFromItsResourceAndReportsWhatItResolved) {
  CUNUM_REQUIRE_GPU();
  cunum::Stream stream;
  CountingResource resource;
  cunum::Placement placement(cunum::Backend::cuda, stream);
  placement.device_memory = &resource;
  {
    const cunum::Reducer<float> reducer(placement);
    EXPECT_GT(resource.allocations.load(), 0);
    const cunum::Placement& resolved = reducer.placement();
    EXPECT_EQ(resolved.backend, cunum::Backend::cuda);
    EXPECT_EQ(resolved.devices, std::vector<int>{cunum::current_device()});
    EXPECT_EQ(resolved.stream, stream.get());
    EXPECT_EQ(resolved.device_memory, &resource);
    EXPECT_EQ(resolved.pinned_memory, cunum::pinned_memory_resource());
  }
  cunum::synchronize(stream);
  EXPECT_EQ(resource.deallocations.load(), resource.allocations.load());

  const cunum::Reducer<float> by_default(cunum::Backend::cuda);
  EXPECT_EQ(by_default.placement().device_memory, cunum::current_device_resource());

  CountingResource copies;
  cunum::Placement with_copies(cunum::Backend::cuda, stream);
  with_copies.device_memory = &copies;
  EXPECT_EQ(cunum::reduce(cunum::ReduceOp::sum, std::vector<float>{1, 2, 3}, with_copies), 6.0f);
  EXPECT_GT(copies.allocations.load(), 0);
}

TEST(Placement, DevicesAreOrdinalsHereAndOnePerSingleDevicePlan) {
  CUNUM_REQUIRE_GPU();
  cunum::Placement off_the_machine(cunum::Backend::cuda);
  off_the_machine.devices = {cunum::device_count()};
  EXPECT_CUNUM_ERROR(cunum::Reducer<float>{off_the_machine}, cunum::ErrorCode::invalid_argument,
                     "not a device here");
  cunum::Placement two(cunum::Backend::cuda);
  two.devices = {0, 0};
  EXPECT_CUNUM_ERROR(cunum::Reducer<float>{two}, cunum::ErrorCode::invalid_argument,
                     "'placement.devices' lists 2 devices, but this plan runs on one");
  // Devices listed with `automatic` ask for CUDA.
  cunum::Placement listed;
  listed.devices = {0};
  EXPECT_EQ(cunum::Reducer<float>(listed).backend(), cunum::Backend::cuda);
}

// A plan made for another device than the current one is made on that device, and
// the caller's device stays current.
TEST(Placement, APlanIsMadeOnItsDeviceAndTheCallersStaysCurrent) {
  CUNUM_REQUIRE_GPU();
  const int last = cunum::device_count() - 1;
  CountingResource resource;
  cunum::Placement placement(cunum::Backend::cuda);
  placement.devices = {last};
  placement.device_memory = &resource;
  {
    const cunum::Reducer<float> reducer(placement);
    EXPECT_EQ(reducer.placement().devices, std::vector<int>{last});
    EXPECT_EQ(cunum::current_device(), 0);
  }
  // Destroyed with device 0 current: its buffers went back on the device they came from.
  EXPECT_EQ(cunum::current_device(), 0);
  ASSERT_EQ(cudaSetDevice(last), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(resource.deallocations.load(), resource.allocations.load());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// The several-device plans' peer access reaches memory from the other device's current
// pool (cudaMallocAsync, the default resource), which cudaDeviceEnablePeerAccess does
// not: without the pool's grant their copies between devices go through host memory.
// Asked again, it grants what was revoked since, without an API error.
TEST(PeerAccess, ReachesTheOtherDevicesMemoryPool) {
  CUNUM_REQUIRE_PEERS();
  set_pool_access(0, 1, cudaMemAccessFlagsProtNone);
  ASSERT_EQ(pool_access(0, 1), cudaMemAccessFlagsProtNone);
  cunum::detail::enable_peer_access(1, 0);
  EXPECT_EQ(pool_access(0, 1), cudaMemAccessFlagsProtReadWrite);
  EXPECT_EQ(cunum::current_device(), 1);
  set_pool_access(0, 1, cudaMemAccessFlagsProtNone);
  cunum::detail::enable_peer_access(1, 0);
  EXPECT_EQ(pool_access(0, 1), cudaMemAccessFlagsProtReadWrite);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}

}  // namespace
