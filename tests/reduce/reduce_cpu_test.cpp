#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>
#include <omp.h>

#include "cunum/reduce.hpp"
#include "reduce/reduce_reference.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::ReduceOp;
using cunum::testing::awkward_sizes;
using cunum::testing::random_vector;

constexpr const auto& kOps = cunum::ReduceOpValues::all;

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

// Sizes around the backend's lanes (16), blocks (256) and one-thread threshold (2^15).
std::vector<std::int64_t> lane_and_block_edges() {
  return {1, 2, 15, 16, 17, 31, 33, 255, 256, 257, 4099, (1 << 15) + 17};
}

TEST(CpuReduce, MinMaxIgnoreANaNInAnyLane) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::int64_t n : lane_and_block_edges()) {
    for (std::int64_t at : {std::int64_t{0}, n / 2, n - 1}) {
      auto data = random_vector<float>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n + at));
      data[static_cast<std::size_t>(at)] = nan;
      for (ReduceOp op : {ReduceOp::min, ReduceOp::max}) {
        const auto ref = cunum::testing::reference_reduce(op, data.data(), n);
        const float result = cunum::reduce(op, data, Backend::cpu);
        if (n == 1) {
          EXPECT_TRUE(std::isnan(result)) << cunum::to_string(op);
        } else {
          EXPECT_EQ(result, static_cast<float>(ref.value)) << cunum::to_string(op) << " n=" << n << " NaN at " << at;
        }
      }
    }
  }
}

TEST(CpuReduce, AllNaNIsNaNButNaNsBesideAnInfinityGiveTheInfinity) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (std::int64_t n : lane_and_block_edges()) {
    std::vector<double> data(static_cast<std::size_t>(n), nan);
    EXPECT_TRUE(std::isnan(cunum::reduce(ReduceOp::min, data, Backend::cpu))) << "n=" << n;
    EXPECT_TRUE(std::isnan(cunum::reduce(ReduceOp::max, data, Backend::cpu))) << "n=" << n;
    data[static_cast<std::size_t>(n / 3)] = inf;
    EXPECT_EQ(cunum::reduce(ReduceOp::min, data, Backend::cpu), inf) << "n=" << n;
    data[static_cast<std::size_t>(n / 3)] = -inf;
    EXPECT_EQ(cunum::reduce(ReduceOp::max, data, Backend::cpu), -inf) << "n=" << n;
  }
}

// +0 and -0 compare equal and C leaves fmin's choice open. Within a block of 256 the
// serial fmin/fmax chain that the lanes replaced kept the later zero (glibc returns
// the second argument on a tie); the lanes must not change that, whichever lanes the
// two zeros fall in. (Blocks and threads still merge with fmin/fmax itself.)
TEST(CpuReduce, SignedZeroTieInABlockKeepsTheLaterZero) {
  const std::int64_t n = (1 << 15) + 17;  // several threads; the zeros sit in the first block
  const std::pair<std::int64_t, std::int64_t> positions[] = {{3, 5}, {5, 3 + 16}, {7, 7 + 16}, {0, 255}, {17, 200}};
  for (const auto& [earlier, later] : positions) {
    for (bool later_is_negative : {false, true}) {
      std::vector<float> data(static_cast<std::size_t>(n), 1.0f);
      data[static_cast<std::size_t>(earlier)] = later_is_negative ? 0.0f : -0.0f;
      data[static_cast<std::size_t>(later)] = later_is_negative ? -0.0f : 0.0f;
      const float min = cunum::reduce(ReduceOp::min, data, Backend::cpu);
      EXPECT_EQ(min, 0.0f);
      EXPECT_EQ(std::signbit(min), later_is_negative) << "zeros at " << earlier << " and " << later;
      for (float& x : data) x = -x;
      const float max = cunum::reduce(ReduceOp::max, data, Backend::cpu);
      EXPECT_EQ(max, 0.0f);
      EXPECT_EQ(std::signbit(max), !later_is_negative) << "zeros at " << earlier << " and " << later;
    }
  }
}

TEST(CpuReduce, Int32SumsWidenToInt64) {
  const std::vector<std::int32_t> big(1 << 16, std::numeric_limits<std::int32_t>::max());
  const std::int64_t expected = std::int64_t{std::numeric_limits<std::int32_t>::max()} << 16;
  EXPECT_EQ(cunum::reduce(ReduceOp::sum, big, Backend::cpu), expected);
}

// int64 sums and sums of squares wrap modulo 2^64, as the header documents: the answer
// is the exact one reduced modulo 2^64, whatever the order of combination.
TEST(CpuReduce, Int64SumsWrapModulo2To64) {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t min = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(cunum::reduce(ReduceOp::sum, std::vector<std::int64_t>{max, 1}, Backend::cpu), min);
  EXPECT_EQ(cunum::reduce(ReduceOp::sum, std::vector<std::int64_t>{min, -1}, Backend::cpu), max);
  // 2^16 (2^63 - 1) = 2^79 - 2^16, which is -2^16 modulo 2^64; over every thread's blocks.
  EXPECT_EQ(cunum::reduce(ReduceOp::sum, std::vector<std::int64_t>(1 << 16, max), Backend::cpu), -(1 << 16));
  // (2^32)^2 = 2^64 is 0; 3037000500^2 = 2^63 + 145474192 is past the largest int64.
  EXPECT_EQ(cunum::reduce(ReduceOp::sum_of_squares, std::vector<std::int64_t>{std::int64_t{1} << 32, 3}, Backend::cpu),
            9);
  EXPECT_EQ(cunum::reduce(ReduceOp::sum_of_squares, std::vector<std::int64_t>{3037000500}, Backend::cpu),
            min + 145474192);
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
  // The result never lies inside the data it reduces.
  std::vector<float> data(8, 1.0f);
  EXPECT_CUNUM_ERROR(reducer.reduce(ReduceOp::sum, data.data(), 8, data.data() + 7), cunum::ErrorCode::invalid_argument,
                     "argument 'result' overlaps 'data'");
  EXPECT_EQ(data, std::vector<float>(8, 1.0f));
  cunum::Reducer<std::int32_t> widening(Backend::cpu);
  std::vector<std::int32_t> integers(4, 1);
  EXPECT_CUNUM_ERROR(widening.reduce(ReduceOp::sum, integers.data() + 1, 3, reinterpret_cast<std::int64_t*>(integers.data())),
                     cunum::ErrorCode::invalid_argument, "'result' overlaps 'data'");
  reducer.reduce(ReduceOp::sum, data.data(), 7, data.data() + 7);
  EXPECT_EQ(data[7], 7.0f);
}

TEST(CpuReduce, AMovedFromReducerIsANamedError) {
  cunum::Reducer<float> source(Backend::cpu);
  cunum::Reducer<float> target(std::move(source));
  const float value = 2.0f;
  float result = 0.0f;
  EXPECT_CUNUM_ERROR(source.reduce(ReduceOp::sum, &value, 1, &result), cunum::ErrorCode::invalid_argument,
                     "'this' is a moved-from Reducer");
  EXPECT_CUNUM_ERROR(static_cast<void>(source.backend()), cunum::ErrorCode::invalid_argument, "moved-from");
  EXPECT_CUNUM_ERROR(static_cast<void>(source.placement()), cunum::ErrorCode::invalid_argument, "moved-from");
  EXPECT_EQ(result, 0.0f);
  target.reduce(ReduceOp::sum, &value, 1, &result);
  EXPECT_EQ(result, 2.0f);
  EXPECT_EQ(target.backend(), Backend::cpu);

  cunum::Reducer<float> assigned(Backend::cpu);
  assigned = std::move(target);
  EXPECT_CUNUM_ERROR(target.reduce(ReduceOp::sum, &value, 1, &result), cunum::ErrorCode::invalid_argument,
                     "moved-from");
  assigned.reduce(ReduceOp::max, &value, 1, &result);
  EXPECT_EQ(result, 2.0f);
}

}  // namespace
