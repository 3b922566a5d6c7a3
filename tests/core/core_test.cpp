#include <gtest/gtest.h>

#include "cunum/core.hpp"
#include "test_support.hpp"

TEST(Error, CarriesCodeAndMessage) {
  const cunum::Error error(cunum::ErrorCode::not_supported, "strategy 'x' needs 1 MiB");
  EXPECT_EQ(error.code(), cunum::ErrorCode::not_supported);
  EXPECT_NE(std::string(error.what()).find("not_supported"), std::string::npos);
  EXPECT_NE(std::string(error.what()).find("strategy 'x'"), std::string::npos);
}

TEST(Backend, CpuIsAlwaysAvailable) {
  EXPECT_EQ(cunum::resolve_backend(cunum::Backend::cpu), cunum::Backend::cpu);
}

TEST(Backend, AutomaticFollowsDevicePresence) {
  const auto expected = cunum::cuda_available() ? cunum::Backend::cuda : cunum::Backend::cpu;
  EXPECT_EQ(cunum::resolve_backend(cunum::Backend::automatic), expected);
}

TEST(Backend, CudaWithoutDeviceIsAnErrorNotAFallback) {
  if (cunum::cuda_available()) GTEST_SKIP() << "a CUDA device is present; the no-device path is not reachable";
  EXPECT_CUNUM_ERROR(cunum::resolve_backend(cunum::Backend::cuda), cunum::ErrorCode::no_device, "cuda");
  EXPECT_CUNUM_ERROR(cunum::device_properties(), cunum::ErrorCode::no_device, "device");
}
