// The seven classic tutorial kernels (bench-local teaching code, classic_reducer.hpp)
// held against the long-double reference at awkward sizes, and their argument checks.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "classic_reducer.hpp"
#include "cunum/core.hpp"
#include "cunum/reduce.hpp"
#include "reduce/reduce_reference.hpp"
#include "test_support.hpp"

namespace {

using cunum::ReduceOp;
using cunum::bench::ClassicReduceKernel;
using cunum::bench::ClassicReducer;
using cunum::testing::awkward_sizes;
using cunum::testing::random_vector;

template <class T>
class GpuClassicReduce : public ::testing::Test {};
using ClassicTypes = ::testing::Types<std::int32_t, std::int64_t, float, double>;
constexpr const auto& kClassicKernels = cunum::bench::ClassicReduceKernelValues::all;
TYPED_TEST_SUITE(GpuClassicReduce, ClassicTypes);

TYPED_TEST(GpuClassicReduce, EveryKernelMatchesReference) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  cunum::Stream stream;
  ClassicReducer<T> reducer;
  cunum::DeviceBuffer<T> result(1, stream);
  for (std::int64_t n : awkward_sizes()) {
    const auto host = random_vector<T>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n) + 99);
    const auto data = cunum::DeviceBuffer<T>::from_host(host, stream);
    const auto ref = cunum::testing::reference_reduce(ReduceOp::sum, host.data(), n);
    for (const ClassicReduceKernel kernel : kClassicKernels) {
      result.fill_bytes_async(0xFF);
      reducer.sum(kernel, data.data(), n, result.data(), stream);
      T value{};
      result.copy_to_host(&value, 1);
      if constexpr (std::is_floating_point_v<T>) {
        // Accumulated in T itself, along chains of at most ceil(n / 256) + 256 additions.
        const long double depth = std::ceil(n / 256.0L) + 2 * 256;
        const long double bound = depth * std::numeric_limits<T>::epsilon() / 2 * ref.sum_of_magnitudes;
        EXPECT_LE(std::fabs(value - ref.value), bound) << to_string(kernel) << " n=" << n;
      } else {
        EXPECT_EQ(static_cast<long double>(value), ref.value) << to_string(kernel) << " n=" << n;
      }
    }
  }
}

TEST(GpuClassicReduce, RejectsWhatThirtyTwoBitIndexingCannotServe) {
  CUNUM_REQUIRE_GPU();
  ClassicReducer<float> reducer;
  cunum::DeviceBuffer<float> data(8), result(1);
  EXPECT_CUNUM_ERROR(reducer.sum(ClassicReduceKernel::complete_unroll, data.data(),
                                 ClassicReducer<float>::max_elements + 1, result.data()),
                     cunum::ErrorCode::invalid_argument, "'n'");
  EXPECT_CUNUM_ERROR(reducer.sum(static_cast<ClassicReduceKernel>(9), data.data(), 8, result.data()),
                     cunum::ErrorCode::invalid_argument, "'kernel'");
  EXPECT_CUNUM_ERROR(reducer.sum(ClassicReduceKernel::complete_unroll, nullptr, 8, result.data()),
                     cunum::ErrorCode::invalid_argument, "'data'");
}

}  // namespace
