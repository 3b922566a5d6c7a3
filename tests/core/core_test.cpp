// The core on any machine: errors and the CUNUM_CHECK family, enumerations,
// backends, the memory resource hook, validation, and (on machines without a CUDA
// device) the no_device errors of every device object.

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "cunum/brownian_bridge.hpp"
#include "cunum/core.hpp"
#include "cunum/random.hpp"
#include "cunum/reduce.hpp"
#include "src/core/check_libraries.hpp"
#include "src/core/memory_need.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"
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

// ---------------------------------------------------------------------------
// Enumerations: to_string and is_valid follow each enum's list, and nothing else.

namespace {

using cunum::ErrorCode;
using cunum::testing::error_from;

template <class Enum>
struct ListedValue {
  Enum value;
  const char* text;
};

#define CUNUM_TEST_LISTED_VALUE(enumerator, text) {ListedEnum::enumerator, text},
// The (value, text) pairs of an enum's list, in its order.
#define CUNUM_TEST_LISTED_VALUES(Enum, LIST)                                              \
  [] {                                                                                    \
    using ListedEnum = Enum;                                                              \
    return std::vector<ListedValue<Enum>>{LIST(CUNUM_TEST_LISTED_VALUE)};                 \
  }()

template <class Enum>
void expect_follows_its_list(const char* name, const std::vector<ListedValue<Enum>>& listed) {
  SCOPED_TRACE(name);
  ASSERT_FALSE(listed.empty());
  std::set<std::string> texts;
  for (std::size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(listed[i].value), i) << "listed values count from 0 in list order";
    EXPECT_TRUE(is_valid(listed[i].value)) << listed[i].text;
    EXPECT_STREQ(to_string(listed[i].value), listed[i].text);
    EXPECT_TRUE(texts.insert(listed[i].text).second) << "text listed twice: " << listed[i].text;
  }
  const int count = static_cast<int>(listed.size());
  for (int out_of_range : {-1, count, count + 7, std::numeric_limits<int>::max()}) {
    const auto value = static_cast<Enum>(out_of_range);
    EXPECT_FALSE(is_valid(value)) << out_of_range;
    EXPECT_STREQ(to_string(value), "unknown") << out_of_range;
  }
}

TEST(Enums, FollowTheirListsAndRejectEveryOtherValue) {
  expect_follows_its_list("ErrorCode", CUNUM_TEST_LISTED_VALUES(cunum::ErrorCode, CUNUM_ERROR_CODES));
  expect_follows_its_list("Backend", CUNUM_TEST_LISTED_VALUES(cunum::Backend, CUNUM_BACKENDS));
  expect_follows_its_list("ReduceOp", CUNUM_TEST_LISTED_VALUES(cunum::ReduceOp, CUNUM_REDUCE_OPS));
  expect_follows_its_list("SobolSequence", CUNUM_TEST_LISTED_VALUES(cunum::SobolSequence, CUNUM_SOBOL_SEQUENCES));
  expect_follows_its_list("BridgeOrder", CUNUM_TEST_LISTED_VALUES(cunum::BridgeOrder, CUNUM_BRIDGE_ORDERS));
  expect_follows_its_list("CovarianceForm", CUNUM_TEST_LISTED_VALUES(cunum::CovarianceForm, CUNUM_COVARIANCE_FORMS));
  expect_follows_its_list("BridgeLayout", CUNUM_TEST_LISTED_VALUES(cunum::BridgeLayout, CUNUM_BRIDGE_LAYOUTS));
  expect_follows_its_list("BridgeStrategy", CUNUM_TEST_LISTED_VALUES(cunum::BridgeStrategy, CUNUM_BRIDGE_STRATEGIES));
}

TEST(Backend, AValueOutsideTheListIsAnErrorNotAutomatic) {
  for (int bad : {7, -1, 3}) {
    EXPECT_CUNUM_ERROR(cunum::resolve_backend(static_cast<cunum::Backend>(bad)), ErrorCode::invalid_argument,
                       "'backend'");
  }
}

// ---------------------------------------------------------------------------
// The CUNUM_CHECK family, driven with failing statuses.

constexpr int kCheckLine = 4242;

// The Error that check_status raises for `status`, as if CUNUM_CHECK(library_call(x))
// had failed on line kCheckLine of this file.
template <class Status>
cunum::Error check_failure(Status status) {
  auto error = error_from([&] { cunum::detail::check_status(status, "library_call(x)", __FILE__, kCheckLine); });
  if (!error) {
    ADD_FAILURE() << "check_status accepted a failing status";
    return cunum::Error(ErrorCode::not_supported, "check_status accepted a failing status");
  }
  return *error;
}

// Expects `error` to carry `code` and every fragment in its message.
void expect_error(const cunum::Error& error, ErrorCode code, std::initializer_list<const char*> fragments) {
  EXPECT_EQ(error.code(), code) << error.what();
  for (const char* fragment : fragments) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos)
        << "message lacks '" << fragment << "': " << error.what();
  }
}

TEST(Check, SuccessPassesForEveryLibrary) {
  EXPECT_NO_THROW(cunum::detail::check_status(cudaSuccess, "call()", __FILE__, __LINE__));
  EXPECT_NO_THROW(cunum::detail::check_status(CURAND_STATUS_SUCCESS, "call()", __FILE__, __LINE__));
  EXPECT_NO_THROW(cunum::detail::check_status(CUFFT_SUCCESS, "call()", __FILE__, __LINE__));
}

TEST(Check, CudaStatusesMapToTheirCodes) {
  expect_error(check_failure(cudaErrorMemoryAllocation), ErrorCode::out_of_memory,
               {"library_call(x) failed", "CUDA cudaErrorMemoryAllocation"});
  expect_error(check_failure(cudaErrorInvalidValue), ErrorCode::cuda_failure, {"cudaErrorInvalidValue"});
  for (cudaError_t missing : {cudaErrorInsufficientDriver, cudaErrorNoDevice}) {
    expect_error(check_failure(missing), ErrorCode::no_device,
                 {"no CUDA device", cudaGetErrorName(missing), "library_call(x)"});
  }
}

TEST(Check, CurandStatusesMapToTheirCodes) {
  expect_error(check_failure(CURAND_STATUS_ALLOCATION_FAILED), ErrorCode::out_of_memory,
               {"cuRAND", "CURAND_STATUS_ALLOCATION_FAILED"});
  expect_error(check_failure(CURAND_STATUS_LAUNCH_FAILURE), ErrorCode::cuda_failure,
               {"library_call(x) failed", "cuRAND CURAND_STATUS_LAUNCH_FAILURE"});
}

TEST(Check, CufftResultsMapToTheirCodes) {
  expect_error(check_failure(CUFFT_ALLOC_FAILED), ErrorCode::out_of_memory, {"cuFFT", "CUFFT_ALLOC_FAILED"});
  expect_error(check_failure(CUFFT_EXEC_FAILED), ErrorCode::cuda_failure,
               {"library_call(x) failed", "cuFFT CUFFT_EXEC_FAILED"});
}

// A failure names the routine the caller called, also when that routine called
// another public routine on the way (a convenience's plan, say): the outermost scope.
TEST(Check, MessageNamesTheRoutineTheCallerCalled) {
  const std::string outside = check_failure(CURAND_STATUS_LAUNCH_FAILURE).what();
  EXPECT_EQ(outside.rfind("cunum [cuda_failure]: library_call(x) failed", 0), 0u) << outside;
  {
    const cunum::detail::RoutineScope outer("cunum::outer");
    const std::string in_outer = check_failure(cudaErrorMemoryAllocation).what();
    EXPECT_EQ(in_outer.rfind("cunum [out_of_memory]: cunum::outer: library_call(x)", 0), 0u) << in_outer;
    {
      const cunum::detail::RoutineScope inner("cunum::inner");
      EXPECT_STREQ(cunum::detail::RoutineScope::current(), "cunum::outer");
      const std::string in_inner = check_failure(CUFFT_EXEC_FAILED).what();
      EXPECT_EQ(in_inner.rfind("cunum [cuda_failure]: cunum::outer: library_call(x)", 0), 0u) << in_inner;
      const std::string no_device = check_failure(cudaErrorInsufficientDriver).what();
      EXPECT_EQ(no_device.rfind("cunum [no_device]: cunum::outer: no CUDA device", 0), 0u) << no_device;
    }
    EXPECT_STREQ(cunum::detail::RoutineScope::current(), "cunum::outer");
    const std::string restored = check_failure(cudaErrorInvalidValue).what();
    EXPECT_EQ(restored.rfind("cunum [cuda_failure]: cunum::outer: ", 0), 0u) << restored;
  }
  EXPECT_EQ(cunum::detail::RoutineScope::current(), nullptr);
  {
    const cunum::detail::RoutineScope again("cunum::again");
    EXPECT_STREQ(cunum::detail::RoutineScope::current(), "cunum::again");
  }
}

// Messages name files relative to the project, never the build machine's paths (the
// build maps the source directory away from __FILE__: CMakeLists.txt).
void expect_project_relative(const cunum::Error& error, const char* relative_file) {
  const std::string message = error.what();
  EXPECT_EQ(message.find(CUNUM_TEST_PROJECT_SOURCE_DIR), std::string::npos) << message;
  EXPECT_NE(message.find(std::string(" [") + relative_file + ":"), std::string::npos) << message;
}

TEST(Check, MessageNamesTheFileRelativeToTheProject) {
  const cunum::Error error = check_failure(cudaErrorMemoryAllocation);
  expect_project_relative(error, "tests/core/core_test.cpp");
  EXPECT_NE(std::string(error.what()).find("tests/core/core_test.cpp:" + std::to_string(kCheckLine) + "]"),
            std::string::npos);
  expect_project_relative(check_failure(CURAND_STATUS_LAUNCH_FAILURE), "tests/core/core_test.cpp");
  expect_project_relative(check_failure(CUFFT_ALLOC_FAILED), "tests/core/core_test.cpp");
}

// ---------------------------------------------------------------------------
// Without a CUDA driver or device: every device object is a named no_device error.

class NoDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cunum::device_count() > 0) {
      GTEST_SKIP() << "SKIPPED: a CUDA device is present; this test covers machines without one (CI)";
    }
  }

  // Expects `construct()` to throw no_device saying "no CUDA device", with the
  // routine (or nullptr) and source file (or nullptr) it names.
  template <class F>
  static void expect_no_device(const char* what, F&& construct, const char* routine, const char* file) {
    SCOPED_TRACE(what);
    const auto error = error_from(std::forward<F>(construct));
    ASSERT_TRUE(error.has_value()) << what << " was constructed without a device";
    expect_error(*error, ErrorCode::no_device, {"no CUDA device"});
    if (routine != nullptr) {
      EXPECT_EQ(std::string(error->what()).rfind(std::string("cunum [no_device]: ") + routine + ": ", 0), 0u)
          << error->what();
    }
    if (file != nullptr) expect_project_relative(*error, file);
  }
};

TEST_F(NoDevice, DeviceObjectsThrowNoDeviceNamingTheRoutine) {
  expect_no_device("Stream", [] { cunum::Stream stream; }, "cunum::Stream", "src/core/memory.cpp");
  expect_no_device("EventTimer", [] { cunum::EventTimer timer; }, "cunum::EventTimer", "src/core/memory.cpp");
  expect_no_device("DeviceBuffer<float>(16)", [] { cunum::DeviceBuffer<float> buffer(16); }, "cunum::DeviceBuffer",
                   "src/core/memory.cpp");
  expect_no_device("synchronize(nullptr)", [] { cunum::synchronize(nullptr); }, "cunum::synchronize",
                   "src/core/memory.cpp");
  float host[4] = {};
  expect_no_device("memory::copy_host_to_device", [&] { cunum::memory::copy_host_to_device(host, host, 16, nullptr); },
                   "cunum::memory::copy_host_to_device", "src/core/memory.cpp");
  expect_no_device("Reducer<float>(cuda)", [] { cunum::Reducer<float> reducer(cunum::Backend::cuda); },
                   "cunum::Reducer", nullptr);
  cunum::Placement on_device_zero;
  on_device_zero.devices = {0};
  expect_no_device("Reducer<float>(devices {0})", [&] { cunum::Reducer<float> reducer(on_device_zero); },
                   "cunum::Reducer", nullptr);
  expect_no_device("resolve_backend(cuda)", [] { cunum::resolve_backend(cunum::Backend::cuda); },
                   "cunum::resolve_backend", nullptr);
  expect_no_device("current_device()", [] { cunum::current_device(); }, "cunum::current_device", nullptr);
  expect_no_device("device_properties()", [] { cunum::device_properties(); }, "cunum::device_properties", nullptr);
  expect_no_device("device_properties(5)", [] { cunum::device_properties(5); }, "cunum::device_properties", nullptr);
}

// Inside a library routine, the device objects it makes name that routine, the one the
// caller called, not themselves.
TEST_F(NoDevice, DeviceObjectsInsideARoutineNameThatRoutine) {
  const cunum::detail::RoutineScope routine("cunum::outer");
  expect_no_device("Stream", [] { cunum::Stream stream; }, "cunum::outer", nullptr);
  expect_no_device("EventTimer", [] { cunum::EventTimer timer; }, "cunum::outer", nullptr);
  expect_no_device("DeviceBuffer<float>(16)", [] { cunum::DeviceBuffer<float> buffer(16); }, "cunum::outer", nullptr);
  expect_no_device("synchronize(nullptr)", [] { cunum::synchronize(nullptr); }, "cunum::outer", nullptr);
  EXPECT_STREQ(cunum::detail::RoutineScope::current(), "cunum::outer");
}

TEST_F(NoDevice, EveryPointerIsHostMemory) {
  float value = 0.0f;
  for (cunum::Backend backend : {cunum::Backend::cpu, cunum::Backend::cuda}) {
    EXPECT_NO_THROW(cunum::detail::require_memory(&value, 1, backend, "cunum::test", "data"));
  }
}

// ---------------------------------------------------------------------------
// The device memory resource hook (CPU-safe parts: nothing here allocates).

using cunum::testing::CountingResource;
using cunum::testing::ScopedDeviceResource;

TEST(DeviceMemoryResource, SetCurrentReturnsThePreviousAndNullRestoresTheDefault) {
  CountingResource counting;
  ASSERT_EQ(cunum::current_device_resource(), cunum::async_memory_resource());
  EXPECT_EQ(cunum::set_current_device_resource(&counting), cunum::async_memory_resource());
  EXPECT_EQ(cunum::current_device_resource(), &counting);
  EXPECT_EQ(cunum::set_current_device_resource(nullptr), &counting);
  EXPECT_EQ(cunum::current_device_resource(), cunum::async_memory_resource());
  {
    const ScopedDeviceResource scoped(&counting);
    EXPECT_EQ(scoped.previous(), cunum::async_memory_resource());
    EXPECT_EQ(cunum::current_device_resource(), &counting);
  }
  EXPECT_EQ(cunum::current_device_resource(), cunum::async_memory_resource());
}

TEST(DeviceMemoryResource, AnEmptyBufferCallsNothing) {
  CountingResource counting;
  {
    cunum::DeviceBuffer<float> empty(0, nullptr, &counting);
    EXPECT_EQ(empty.data(), nullptr);
    EXPECT_EQ(empty.bytes(), 0u);
    const cunum::DeviceBuffer<float> moved(std::move(empty));
    EXPECT_EQ(moved.data(), nullptr);
  }
  {
    const ScopedDeviceResource scoped(&counting);
    const cunum::DeviceBuffer<double> empty(0);
    EXPECT_EQ(empty.data(), nullptr);
  }
  EXPECT_EQ(counting.allocations.load(), 0);
  EXPECT_EQ(counting.deallocations.load(), 0);
}

// ---------------------------------------------------------------------------
// The memory:: copies: their arguments are checked before CUDA is called, so these
// hold on any machine.

TEST(MemoryCopies, ZeroBytesDoNothingNullPointersIncluded) {
  float value = 1.5f;
  EXPECT_NO_THROW(cunum::memory::copy_host_to_device(nullptr, nullptr, 0, nullptr));
  EXPECT_NO_THROW(cunum::memory::copy_host_to_device_async(nullptr, &value, 0, nullptr));
  EXPECT_NO_THROW(cunum::memory::copy_device_to_host(&value, nullptr, 0, nullptr));
  EXPECT_NO_THROW(cunum::memory::copy_device_to_device_async(nullptr, nullptr, 0, nullptr));
  EXPECT_NO_THROW(cunum::memory::fill_bytes_async(&value, 0xFF, 0, nullptr));
  EXPECT_EQ(value, 1.5f);
}

TEST(MemoryCopies, NullPointersWithBytesAreNamedArgumentsBeforeCudaIsCalled) {
  float values[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  EXPECT_CUNUM_ERROR(cunum::memory::copy_host_to_device(nullptr, values, sizeof(values), nullptr),
                     ErrorCode::invalid_argument,
                     "cunum::memory::copy_host_to_device: argument 'dst' is null but 'bytes' is not 0");
  EXPECT_CUNUM_ERROR(cunum::memory::copy_host_to_device_async(values, nullptr, sizeof(values), nullptr),
                     ErrorCode::invalid_argument, "cunum::memory::copy_host_to_device_async: argument 'src'");
  EXPECT_CUNUM_ERROR(cunum::memory::copy_device_to_host(values, nullptr, sizeof(values), nullptr),
                     ErrorCode::invalid_argument, "cunum::memory::copy_device_to_host: argument 'src'");
  EXPECT_CUNUM_ERROR(cunum::memory::copy_device_to_device_async(nullptr, values, 4, nullptr),
                     ErrorCode::invalid_argument, "cunum::memory::copy_device_to_device_async: argument 'dst'");
  EXPECT_CUNUM_ERROR(cunum::memory::fill_bytes_async(nullptr, 0, 4, nullptr), ErrorCode::invalid_argument,
                     "cunum::memory::fill_bytes_async: argument 'dst'");
  // Inside a library routine, the routine is named.
  const cunum::detail::RoutineScope routine("cunum::outer");
  EXPECT_CUNUM_ERROR(cunum::memory::copy_device_to_host(nullptr, values, 4, nullptr), ErrorCode::invalid_argument,
                     "cunum::outer: argument 'dst'");
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[3], 4.0f);
}

// ---------------------------------------------------------------------------
// Validation at the API boundary: byte counts and null pointers.

TEST(Validation, ElementCountsMustFitA64BitByteCount) {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  EXPECT_NO_THROW(cunum::detail::require_element_count(max / 8, 8, "cunum::test", "n"));
  EXPECT_NO_THROW(cunum::detail::require_element_count(0, 8, "cunum::test", "n"));
  EXPECT_CUNUM_ERROR(cunum::detail::require_element_count(max / 8 + 1, 8, "cunum::test", "n"),
                     ErrorCode::invalid_argument, "overflows");
  EXPECT_CUNUM_ERROR(cunum::detail::require_element_count(-1, 4, "cunum::test", "count"),
                     ErrorCode::invalid_argument, "'count' must be >= 0");
}

TEST(Validation, MessagesReadForEveryCountAndEveryEnumName) {
  const auto message = [](auto&& check) {
    const auto error = error_from(check);
    return error ? std::string(error->what()) : std::string("no error");
  };
  const std::string one = message([] { cunum::detail::require_pointer(nullptr, 1, "cunum::test", "data"); });
  EXPECT_NE(one.find("'data' is null but addresses 1 element"), std::string::npos) << one;
  EXPECT_EQ(one.find("1 elements"), std::string::npos) << one;
  const std::string two = message([] { cunum::detail::require_pointer(nullptr, 2, "cunum::test", "data"); });
  EXPECT_NE(two.find("'data' is null but addresses 2 elements"), std::string::npos) << two;
  // Right whatever the enum's name ("a ErrorCode", "a OptionType" would not be).
  const std::string code = message([] {
    cunum::detail::require_enum(static_cast<ErrorCode>(99), "cunum::test", "code", "ErrorCode");
  });
  EXPECT_NE(code.find("cunum::test: argument 'code' is not one of ErrorCode's values (got 99)"), std::string::npos)
      << code;
  EXPECT_CUNUM_ERROR(cunum::resolve_backend(static_cast<cunum::Backend>(7)), ErrorCode::invalid_argument,
                     "'backend' is not one of Backend's values (got 7)");
}

TEST(Validation, ReduceRefusesAnOverflowingCountBeforeTouchingMemory) {
  constexpr std::int64_t huge = std::numeric_limits<std::int64_t>::max() / 2;
  const float value = 1.0f;
  EXPECT_CUNUM_ERROR(cunum::reduce(cunum::ReduceOp::sum, &value, huge, cunum::Backend::cpu),
                     ErrorCode::invalid_argument, "cunum::reduce: argument 'n'");
  cunum::Reducer<double> reducer(cunum::Backend::cpu);
  const double one = 1.0;
  double result = 0.0;
  EXPECT_CUNUM_ERROR(reducer.reduce(cunum::ReduceOp::max, &one, huge, &result), ErrorCode::invalid_argument, "'n'");
  EXPECT_EQ(result, 0.0);
  EXPECT_CUNUM_ERROR(cunum::reduce(cunum::ReduceOp::sum, static_cast<const float*>(nullptr), 5, cunum::Backend::cpu),
                     ErrorCode::invalid_argument, "'data'");
}

// The shared memory rule: a byte count that overflows, or exceeds the machine, is
// out_of_memory naming the routine and the bytes; one within it passes and builds no message.
TEST(MemoryNeed, RefusesOverflowAndSizesPastTheMachine) {
  using cunum::detail::MemoryNeed;
  using cunum::detail::require_memory_need;
  constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max();
  EXPECT_TRUE(MemoryNeed{}.add(big, 4).overflowed());
  EXPECT_FALSE(MemoryNeed{}.add(big / 2, 1).add(big / 2, 1).add(big / 2, 1).add(big / 2, 1).overflowed());
  EXPECT_TRUE(MemoryNeed{}.add(big, 1).add(big, 1).add(big, 1).overflowed());
  EXPECT_TRUE(MemoryNeed{}.add(-1, 1).overflowed());
  EXPECT_EQ(MemoryNeed{}.add(3, 8).add(2, 4).bytes(), 32u);
  EXPECT_CUNUM_ERROR(require_memory_need(MemoryNeed{}.add(big, 4), cunum::Backend::cpu, "cunum::thing", "for its arrays"),
                     ErrorCode::out_of_memory, "cunum::thing: needs more than 2^64 - 1 bytes for its arrays");
  EXPECT_CUNUM_ERROR(require_memory_need(MemoryNeed{}.add(big, 1), cunum::Backend::cpu, "cunum::thing", "for its arrays"),
                     ErrorCode::out_of_memory,
                     "cunum::thing: needs 9223372036854775807 bytes for its arrays, more than the ");
  bool built = false;
  require_memory_need(MemoryNeed{}.add(1024, 8), cunum::Backend::cpu, "cunum::thing", [&] {
    built = true;
    return std::string("for its arrays");
  });
  EXPECT_FALSE(built);
}

}  // namespace

namespace {

// The one plan-object contract: every plan resolves its Placement by one rule.
TEST(Placement, TheCpuBackendResolvesToTheHostAndRefusesDevices) {
  const cunum::Reducer<float> reducer(cunum::Backend::cpu);
  const cunum::Placement& resolved = reducer.placement();
  EXPECT_EQ(resolved.backend, cunum::Backend::cpu);
  EXPECT_TRUE(resolved.devices.empty());
  EXPECT_EQ(resolved.stream, nullptr);
  EXPECT_EQ(resolved.device_memory, nullptr);
  EXPECT_EQ(resolved.pinned_memory, nullptr);

  cunum::Placement cpu_on_a_device(cunum::Backend::cpu);
  cpu_on_a_device.devices = {0};
  EXPECT_CUNUM_ERROR(cunum::Reducer<float>{cpu_on_a_device}, cunum::ErrorCode::invalid_argument,
                     "'placement.devices' lists devices, but the CPU backend");
  EXPECT_CUNUM_ERROR(cunum::Reducer<float>{static_cast<cunum::Backend>(7)}, cunum::ErrorCode::invalid_argument,
                     "'placement.backend'");
}

}  // namespace
