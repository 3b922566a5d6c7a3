#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <omp.h>

#include "cunum/reduce.hpp"
#include "reduce/reduce_reference.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::ReduceOp;
using cunum::testing::awkward_sizes;
using cunum::testing::random_vector;

constexpr ReduceOp kOps[] = {ReduceOp::sum, ReduceOp::sum_of_squares, ReduceOp::min, ReduceOp::max};

template <class T>
class CpuReduce : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double, std::int32_t, std::int64_t>;
TYPED_TEST_SUITE(CpuReduce, ElementTypes);

TYPED_TEST(CpuReduce, MatchesLongDoubleReferenceAtAwkwardSizes) {
  using T = TypeParam;
  cunum::Reducer<T> reducer(Backend::cpu);
  for (std::int64_t n : awkward_sizes()) {
    const auto data = random_vector<T>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n));
    for (ReduceOp op : kOps) {
      const auto ref = cunum::testing::reference_reduce(op, data.data(), n);
      cunum::reduce_result_t<T> result;
      std::memset(&result, 0xFF, sizeof(result));  // poisoned
      reducer.reduce(op, data.data(), n, &result);
      if constexpr (std::is_floating_point_v<T>) {
        const auto bound = cunum::testing::floating_sum_bound<T>(
            ref, cunum::testing::cpu_sum_depth(n, omp_get_max_threads()));
        EXPECT_LE(std::fabs(result - ref.value), bound) << cunum::to_string(op) << " n=" << n;
      } else {
        EXPECT_EQ(static_cast<long double>(result), ref.value) << cunum::to_string(op) << " n=" << n;
      }
    }
  }
}

TYPED_TEST(CpuReduce, IsBitIdenticalRunToRun) {
  using T = TypeParam;
  const auto data = random_vector<T>(1000003, 7);
  for (ReduceOp op : kOps) {
    const auto first = cunum::reduce(op, data, Backend::cpu);
    for (int run = 0; run < 3; ++run) {
      const auto again = cunum::reduce(op, data, Backend::cpu);
      EXPECT_EQ(std::memcmp(&first, &again, sizeof(first)), 0) << cunum::to_string(op);
    }
  }
}

TEST(CpuReduce, EmptySumIsZeroButEmptyMinIsAnError) {
  const std::vector<float> empty;
  EXPECT_EQ(cunum::reduce(ReduceOp::sum, empty, Backend::cpu), 0.0f);
  EXPECT_EQ(cunum::reduce(ReduceOp::sum_of_squares, empty, Backend::cpu), 0.0f);
  EXPECT_CUNUM_ERROR(cunum::reduce(ReduceOp::min, empty, Backend::cpu), cunum::ErrorCode::invalid_argument, "'n'");
  EXPECT_CUNUM_ERROR(cunum::reduce(ReduceOp::max, empty, Backend::cpu), cunum::ErrorCode::invalid_argument, "'n'");
}

TEST(CpuReduce, MinMaxIgnoreNaNUnlessAllNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> some = {nan, 3.0f, -2.0f, nan, 5.0f};
  EXPECT_EQ(cunum::reduce(ReduceOp::min, some, Backend::cpu), -2.0f);
  EXPECT_EQ(cunum::reduce(ReduceOp::max, some, Backend::cpu), 5.0f);
  EXPECT_TRUE(std::isnan(cunum::reduce(ReduceOp::min, std::vector<float>{nan, nan}, Backend::cpu)));
  EXPECT_TRUE(std::isnan(cunum::reduce(ReduceOp::sum, some, Backend::cpu)));
}

TEST(CpuReduce, Int32SumsWidenToInt64) {
  const std::vector<std::int32_t> big(1 << 16, std::numeric_limits<std::int32_t>::max());
  const std::int64_t expected = std::int64_t{std::numeric_limits<std::int32_t>::max()} << 16;
  EXPECT_EQ(cunum::reduce(ReduceOp::sum, big, Backend::cpu), expected);
}

TEST(CpuReduce, FloatSumsAccumulateInDouble) {
  // 2^24 + many ones: a float accumulator would stall at 2^24.
  std::vector<float> data(1 << 20, 1.0f);
  data[0] = 16777216.0f;
  EXPECT_EQ(cunum::reduce(ReduceOp::sum, data, Backend::cpu), 16777216.0f + float((1 << 20) - 1));
}

TEST(CpuReduce, BadArgumentsAreNamedErrors) {
  cunum::Reducer<float> reducer(Backend::cpu);
  float result = 0.0f;
  const float value = 1.0f;
  EXPECT_CUNUM_ERROR(reducer.reduce(ReduceOp::sum, nullptr, 10, &result), cunum::ErrorCode::invalid_argument, "'data'");
  EXPECT_CUNUM_ERROR(reducer.reduce(ReduceOp::sum, &value, -1, &result), cunum::ErrorCode::invalid_argument, "'n'");
  EXPECT_CUNUM_ERROR(reducer.reduce(ReduceOp::sum, &value, 1, nullptr), cunum::ErrorCode::invalid_argument, "'result'");
  EXPECT_CUNUM_ERROR(reducer.reduce(static_cast<ReduceOp>(42), &value, 1, &result),
                     cunum::ErrorCode::invalid_argument, "'op'");
  EXPECT_EQ(result, 0.0f) << "a rejected call must not write its output";
  float untouched = 0.0f;
  EXPECT_NO_THROW(reducer.reduce(ReduceOp::sum, nullptr, 0, &untouched));
}

}  // namespace
