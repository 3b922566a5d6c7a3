#include <gtest/gtest.h>

#include <vector>

#include "cunum/core.hpp"
#include "test_support.hpp"

TEST(DeviceProperties, DescribeTheDevice) {
  CUNUM_REQUIRE_GPU();
  const auto& props = cunum::device_properties();
  EXPECT_FALSE(props.name.empty());
  EXPECT_GT(props.multiprocessor_count, 0);
  EXPECT_GT(props.global_memory_bytes, 0u);
  EXPECT_GT(props.l2_cache_bytes, 0u);
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
