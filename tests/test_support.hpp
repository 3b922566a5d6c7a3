#pragma once
// Shared test helpers: loud GPU skips, error assertions, fresh random inputs, a
// counting memory resource, memory of each kind the backends tell apart, and the
// graph-capture contract's checks.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cunum/core/backend.hpp"
#include "cunum/core/device.hpp"
#include "cunum/core/error.hpp"
#include "cunum/core/memory_resource.hpp"
#include "cunum/core/placement.hpp"

// A GPU test on a machine without a device skips with the reason; it never passes.
#define CUNUM_REQUIRE_GPU()                                                              \
  do {                                                                                   \
    if (::cunum::device_count() == 0) {                                                  \
      GTEST_SKIP() << "SKIPPED: no CUDA device on this machine; this GPU test proves "   \
                      "nothing here and must be run on a GPU (scripts/device-check)";    \
    }                                                                                    \
  } while (0)

// A GPU test that needs `count` devices (a plan on one, a call with another current)
// skips with the reason on a machine with fewer; it never passes.
#define CUNUM_REQUIRE_GPUS(count)                                                            \
  do {                                                                                       \
    CUNUM_REQUIRE_GPU();                                                                     \
    if (::cunum::device_count() < (count)) {                                                 \
      GTEST_SKIP() << "SKIPPED: this test needs " << (count) << " CUDA devices and this "     \
                   << "machine has " << ::cunum::device_count()                              \
                   << "; it proves nothing here and must be run on a machine with them";     \
    }                                                                                        \
  } while (0)

// Expects `statement` to throw cunum::Error with `expected_code` and a message
// containing `fragment` (the argument's name, say).
#define EXPECT_CUNUM_ERROR(statement, expected_code, fragment)                           \
  do {                                                                                   \
    try {                                                                                \
      statement;                                                                         \
      ADD_FAILURE() << "expected cunum::Error from: " #statement;                        \
    } catch (const ::cunum::Error& error) {                                              \
      EXPECT_EQ(error.code(), expected_code) << error.what();                            \
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos)             \
          << "message does not name '" << fragment << "': " << error.what();             \
    }                                                                                    \
  } while (0)

namespace cunum::testing {

// A fresh seed per test run (std::random_device), printed so that a failure can be
// replayed with CUNUM_TEST_SEED=<seed>.
inline std::uint64_t fresh_seed() {
  static const std::uint64_t seed = [] {
    // CUNUM_TEST_SEED replays the run that printed it.
    const char* replay = std::getenv("CUNUM_TEST_SEED");
    const std::uint64_t s = replay != nullptr ? std::strtoull(replay, nullptr, 10)
                                              : (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
    std::printf("[ cunum    ] random seed %llu\n", static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

// Random values of T: floats in [-1, 1), integers in [-1000, 1000].
template <class T>
std::vector<T> random_vector(std::size_t n, std::uint64_t stream_id) {
  std::mt19937_64 engine(fresh_seed() ^ (stream_id * 0x9E3779B97F4A7C15ull));
  std::vector<T> values(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> distribution(T(-1), T(1));
    for (auto& v : values) v = distribution(engine);
  } else {
    std::uniform_int_distribution<long long> distribution(-1000, 1000);
    for (auto& v : values) v = static_cast<T>(distribution(engine));
  }
  return values;
}

// Sizes that catch indexing and tail bugs: 1, primes, around block and vector multiples.
inline std::vector<std::int64_t> awkward_sizes() {
  return {1, 2, 3, 5, 7, 31, 33, 127, 255, 256, 257, 1000, 1021, 4093, 65537, 262147, 1048573,
          4194304 + 3};
}

// The cunum::Error that `f()` throws, or nothing when it returns.
template <class F>
std::optional<cunum::Error> error_from(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const cunum::Error& error) {
    return error;
  }
  return std::nullopt;
}

// A DeviceMemoryResource that counts what passes through it and forwards to
// `upstream` (cudaMallocAsync by default). Thread-safe, as resources must be.
class CountingResource final : public cunum::DeviceMemoryResource {
 public:
  explicit CountingResource(cunum::DeviceMemoryResource* upstream = cunum::async_memory_resource())
      : upstream_(upstream) {}

  std::atomic<int> allocations{0};
  std::atomic<int> deallocations{0};
  std::atomic<std::size_t> bytes_allocated{0};

 private:
  void* do_allocate(std::size_t bytes, cunum::StreamHandle stream) override {
    void* pointer = upstream_->allocate(bytes, stream);
    ++allocations;
    bytes_allocated += bytes;
    return pointer;
  }
  void do_deallocate(void* pointer, std::size_t bytes, cunum::StreamHandle stream) noexcept override {
    ++deallocations;
    upstream_->deallocate(pointer, bytes, stream);
  }

  cunum::DeviceMemoryResource* upstream_;
};

// A device memory pool that runs dry: it serves every allocation until arm(), then
// `allowed` more from `upstream`, then refuses every one with Error(out_of_memory),
// as an exhausted application pool does. It counts what it served, returned and
// refused, so that a test can check that nothing was kept.
class ExhaustibleResource final : public cunum::DeviceMemoryResource {
 public:
  explicit ExhaustibleResource(int allowed = std::numeric_limits<int>::max(),
                               cunum::DeviceMemoryResource* upstream = cunum::async_memory_resource())
      : allowed_(allowed), upstream_(upstream) {}

  // From here on the limit holds: what a test makes before the call under test (the
  // plan it calls) is served whatever the limit.
  void arm() {
    armed_ = true;
    counted_ = 0;
  }
  bool armed() const { return armed_.load(); }
  // Allocations served since arm().
  int counted() const { return counted_.load(); }

  std::atomic<int> allocations{0};
  std::atomic<int> deallocations{0};
  std::atomic<int> refusals{0};

 private:
  void* do_allocate(std::size_t bytes, cunum::StreamHandle stream) override {
    if (armed_.load() && counted_.load() >= allowed_) {
      ++refusals;
      throw cunum::Error(cunum::ErrorCode::out_of_memory, "test pool exhausted");
    }
    void* pointer = upstream_->allocate(bytes, stream);
    ++counted_;
    ++allocations;
    return pointer;
  }
  void do_deallocate(void* pointer, std::size_t bytes, cunum::StreamHandle stream) noexcept override {
    ++deallocations;
    upstream_->deallocate(pointer, bytes, stream);
  }

  const int allowed_;
  std::atomic<bool> armed_{false};
  std::atomic<int> counted_{0};
  cunum::DeviceMemoryResource* upstream_;
};

// Holds a call to the exhaustion rule at each device allocation it makes.
// `run(resource)` makes what it needs with `resource` as its placement.device_memory,
// calls resource->arm(), then makes the call under test (a constructor: arm() first);
// everything it makes is destroyed before it returns. A first run, whose resource refuses nothing, counts the
// allocations of the call (at least one, or the test proves nothing). Then, for each
// k below that count, a run whose resource serves k of them and refuses the next must
// throw Error(out_of_memory) naming `routine`, the one called, and the bytes refused,
// and give back every allocation it was served;
// `after_refusal()` then checks what the test needs (an output left untouched, say).
template <class Run>
void expect_out_of_memory_at_each_allocation(const std::string& routine, Run&& run,
                                             const std::function<void()>& after_refusal = {}) {
  int needed = 0;
  {
    ExhaustibleResource unlimited;
    run(&unlimited);
    ASSERT_TRUE(unlimited.armed()) << "the test's run() never calls arm()";
    needed = unlimited.counted();
    ASSERT_GT(needed, 0) << routine << " made no allocation from its placement's resource: nothing to refuse";
    EXPECT_EQ(unlimited.deallocations.load(), unlimited.allocations.load()) << routine << " kept memory";
  }
  for (int served = 0; served < needed; ++served) {
    SCOPED_TRACE(routine + ": allocation " + std::to_string(served + 1) + " of " + std::to_string(needed) +
                 " refused");
    ExhaustibleResource resource(served);
    const auto error = error_from([&] { run(&resource); });
    ASSERT_TRUE(error.has_value()) << "the call succeeded without the memory it was refused";
    EXPECT_EQ(error->code(), cunum::ErrorCode::out_of_memory) << error->what();
    const std::string message = error->what();
    EXPECT_EQ(message.rfind("cunum [out_of_memory]: " + routine + ": the device memory resource refused ", 0), 0u)
        << message;
    EXPECT_NE(message.find("test pool exhausted"), std::string::npos) << message;
    EXPECT_EQ(resource.refusals.load(), 1) << "the call went on after its allocation was refused";
    EXPECT_EQ(resource.deallocations.load(), resource.allocations.load())
        << "memory served before the refusal was not given back";
    if (after_refusal) after_refusal();
  }
}

// A CUDA placement whose setup runs on `stream` and whose device memory comes from `resource`.
inline cunum::Placement cuda_placement(cunum::StreamHandle stream, cunum::DeviceMemoryResource* resource) {
  cunum::Placement placement(cunum::Backend::cuda, stream);
  placement.device_memory = resource;
  return placement;
}

// Makes `device` current for a scope and restores the caller's device after it.
class ScopedCurrentDevice {
 public:
  explicit ScopedCurrentDevice(int device) {
    if (cudaGetDevice(&caller_) != cudaSuccess || cudaSetDevice(device) != cudaSuccess) {
      ADD_FAILURE() << "cannot make CUDA device " << device << " current";
    }
  }
  ~ScopedCurrentDevice() { cudaSetDevice(caller_); }
  ScopedCurrentDevice(const ScopedCurrentDevice&) = delete;
  ScopedCurrentDevice& operator=(const ScopedCurrentDevice&) = delete;

 private:
  int caller_ = 0;
};

// What device `accessor` may do with the memory of `owner`'s current memory pool (the
// pool cudaMallocAsync, the default device resource, serves), and setting it: a test
// revokes what earlier ones granted, then sees a plan grant it.
inline cudaMemAccessFlags pool_access(int owner, int accessor) {
  cudaMemPool_t pool = nullptr;
  cudaMemLocation location{};
  location.type = cudaMemLocationTypeDevice;
  location.id = accessor;
  cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
  EXPECT_EQ(cudaDeviceGetMemPool(&pool, owner), cudaSuccess);
  EXPECT_EQ(cudaMemPoolGetAccess(&flags, pool, &location), cudaSuccess);
  return flags;
}

inline void set_pool_access(int owner, int accessor, cudaMemAccessFlags flags) {
  cudaMemPool_t pool = nullptr;
  cudaMemAccessDesc access{};
  access.location.type = cudaMemLocationTypeDevice;
  access.location.id = accessor;
  access.flags = flags;
  ASSERT_EQ(cudaDeviceGetMemPool(&pool, owner), cudaSuccess);
  ASSERT_EQ(cudaMemPoolSetAccess(pool, &access, 1), cudaSuccess);
}

// Skips, saying so, where devices 0 and 1 cannot reach each other's memory.
#define CUNUM_REQUIRE_PEERS()                                                                  \
  do {                                                                                         \
    CUNUM_REQUIRE_GPUS(2);                                                                     \
    int possible = 0;                                                                          \
    ASSERT_EQ(cudaDeviceCanAccessPeer(&possible, 0, 1), cudaSuccess);                          \
    if (!possible) {                                                                           \
      GTEST_SKIP() << "SKIPPED: CUDA devices 0 and 1 cannot reach each other's memory here; "  \
                      "this test proves nothing here and must be run where they can";          \
    }                                                                                          \
  } while (0)

// What a plan bound to device 0 says when called with device 1 current.
inline constexpr const char* kMadeForDevice0 =
    "argument 'this' was made for CUDA device 0 but device 1 is current";

// Page-locked host memory from pinned_memory_resource(), counted.
class CountingPinnedResource final : public cunum::HostMemoryResource {
 public:
  std::atomic<int> allocations{0};
  std::atomic<int> deallocations{0};

 private:
  void* do_allocate(std::size_t bytes) override {
    void* pointer = cunum::pinned_memory_resource()->allocate(bytes);
    ++allocations;
    return pointer;
  }
  void do_deallocate(void* pointer, std::size_t bytes) noexcept override {
    ++deallocations;
    cunum::pinned_memory_resource()->deallocate(pointer, bytes);
  }
};

// Makes a resource current for a scope and restores the previous one after it,
// whatever the test does in between (an assertion that returns early included).
class ScopedDeviceResource {
 public:
  explicit ScopedDeviceResource(cunum::DeviceMemoryResource* resource)
      : previous_(cunum::set_current_device_resource(resource)) {}
  ~ScopedDeviceResource() { cunum::set_current_device_resource(previous_); }
  ScopedDeviceResource(const ScopedDeviceResource&) = delete;
  ScopedDeviceResource& operator=(const ScopedDeviceResource&) = delete;

  cunum::DeviceMemoryResource* previous() const noexcept { return previous_; }

 private:
  cunum::DeviceMemoryResource* previous_;
};

// The kinds of memory the backends tell apart (src/core/validate.hpp, require_accessible).
enum class MemoryKind { pageable_host, device, managed, mapped_host };

inline const char* memory_kind_name(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::pageable_host: return "pageable host";
    case MemoryKind::device: return "device (cudaMalloc)";
    case MemoryKind::managed: return "managed (cudaMallocManaged)";
    case MemoryKind::mapped_host: return "mapped page-locked host (cudaHostAlloc)";
  }
  return "unknown";
}

inline constexpr MemoryKind kMemoryKinds[] = {MemoryKind::pageable_host, MemoryKind::device, MemoryKind::managed,
                                              MemoryKind::mapped_host};

// Whether `backend` (cpu or cuda) takes memory of `kind`, by the rule of
// require_accessible (src/core/validate.hpp): cuda takes device, managed and mapped page-locked memory,
// and pageable memory only where the device reads it (HMM/ATS); cpu takes every
// kind but device memory. Needs a device.
inline bool backend_accepts(cunum::Backend backend, MemoryKind kind) {
  switch (kind) {
    case MemoryKind::pageable_host:
      return backend == cunum::Backend::cpu || cunum::device_properties().pageable_memory_access;
    case MemoryKind::device: return backend == cunum::Backend::cuda;
    case MemoryKind::managed:
    case MemoryKind::mapped_host: return true;
  }
  return false;
}

// `count` values of T in memory of one kind, freed at the end of the scope. GPU
// tests only (every kind but pageable_host needs a device).
template <class T>
class KindedMemory {
 public:
  KindedMemory(MemoryKind kind, std::size_t count) : kind_(kind), count_(count) {
    void* pointer = nullptr;
    cudaError_t status = cudaSuccess;
    switch (kind) {
      case MemoryKind::pageable_host:
        pageable_.resize(count);
        pointer = pageable_.data();
        break;
      case MemoryKind::device: status = cudaMalloc(&pointer, count * sizeof(T)); break;
      case MemoryKind::managed: status = cudaMallocManaged(&pointer, count * sizeof(T)); break;
      case MemoryKind::mapped_host: status = cudaHostAlloc(&pointer, count * sizeof(T), cudaHostAllocMapped); break;
    }
    if (status != cudaSuccess) {
      throw std::runtime_error(std::string("allocating ") + memory_kind_name(kind) + " memory: " + cudaGetErrorString(status));
    }
    data_ = static_cast<T*>(pointer);
  }
  ~KindedMemory() {
    if (kind_ == MemoryKind::device || kind_ == MemoryKind::managed) cudaFree(data_);
    if (kind_ == MemoryKind::mapped_host) cudaFreeHost(data_);
  }
  KindedMemory(const KindedMemory&) = delete;
  KindedMemory& operator=(const KindedMemory&) = delete;

  T* data() noexcept { return data_; }
  MemoryKind kind() const noexcept { return kind_; }

  // Waits for the device, then copies `values` in (any kind: cudaMemcpyDefault).
  void upload(const std::vector<T>& values) {
    copy(data_, values.data(), values.size());
  }
  // Waits for the device (work on every stream), then copies the values out.
  std::vector<T> download() const {
    std::vector<T> values(count_);
    copy(values.data(), data_, count_);
    return values;
  }

 private:
  static void copy(T* dst, const T* src, std::size_t count) {
    cudaError_t status = cudaDeviceSynchronize();
    if (status == cudaSuccess) status = cudaMemcpy(dst, src, count * sizeof(T), cudaMemcpyDefault);
    if (status != cudaSuccess) throw std::runtime_error(std::string("test copy: ") + cudaGetErrorString(status));
  }

  MemoryKind kind_;
  std::size_t count_;
  std::vector<T> pageable_;
  T* data_ = nullptr;
};


// The graph-capture contract (every module's header states it per call): a call on a
// stream being captured either is captured, and each replay of the graph does what
// the call does directly, or refuses with ErrorCode::not_supported before it enqueues
// anything, leaving the capture valid. The tests hold each call to it in both modes
// that police the calling thread: its own captures only, and every thread's.
inline constexpr cudaStreamCaptureMode kCaptureModes[] = {cudaStreamCaptureModeThreadLocal,
                                                           cudaStreamCaptureModeGlobal};

inline const char* capture_mode_name(cudaStreamCaptureMode mode) {
  return mode == cudaStreamCaptureModeGlobal ? "cudaStreamCaptureModeGlobal" : "cudaStreamCaptureModeThreadLocal";
}

// What `enqueue()` puts on `stream` while it is captured in `mode`, as an instantiated
// graph. A failure to capture or instantiate, or an exception from enqueue(), is a test
// failure, and ok() is false.
class CapturedGraph {
 public:
  CapturedGraph(cudaStream_t stream, cudaStreamCaptureMode mode, const std::function<void()>& enqueue)
      : stream_(stream) {
    const cudaError_t began = cudaStreamBeginCapture(stream, mode);
    if (began != cudaSuccess) {
      ADD_FAILURE() << "cudaStreamBeginCapture: " << cudaGetErrorString(began);
      return;
    }
    bool enqueued = true;
    try {
      enqueue();
    } catch (const std::exception& error) {
      ADD_FAILURE() << "the captured call threw: " << error.what();
      enqueued = false;
    }
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    if (ended != cudaSuccess) {
      ADD_FAILURE() << "cudaStreamEndCapture: " << cudaGetErrorString(ended) << " (the call broke the capture)";
      cudaGetLastError();
      return;
    }
    const cudaError_t made = enqueued ? cudaGraphInstantiate(&exec_, graph, 0) : cudaErrorUnknown;
    cudaGraphDestroy(graph);
    if (made != cudaSuccess) {
      if (enqueued) ADD_FAILURE() << "cudaGraphInstantiate: " << cudaGetErrorString(made);
      exec_ = nullptr;
    }
  }
  ~CapturedGraph() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  }
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;

  bool ok() const noexcept { return exec_ != nullptr; }

  // Replays the graph on the stream it was captured on and waits for it.
  void launch() {
    ASSERT_TRUE(ok());
    ASSERT_EQ(cudaGraphLaunch(exec_, stream_), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  }

 private:
  cudaStream_t stream_;
  cudaGraphExec_t exec_ = nullptr;
};

// Expects `call()`, made while `stream` is captured in `mode`, to throw
// Error(not_supported) saying "CUDA graph", and the capture then to end valid and empty.
inline void expect_capture_refused(cudaStream_t stream, cudaStreamCaptureMode mode,
                                   const std::function<void()>& call) {
  ASSERT_EQ(cudaStreamBeginCapture(stream, mode), cudaSuccess);
  EXPECT_CUNUM_ERROR(call(), cunum::ErrorCode::not_supported, "CUDA graph");
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  ASSERT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended) << ": the refused call broke the capture";
  std::size_t nodes = 0;
  EXPECT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
  EXPECT_EQ(nodes, 0u) << "the refused call left work in the graph";
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}

// Expects `got` to hold the same bits as `want` (NaN payloads and signed zeros included).
template <class T>
void expect_same_bits(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", the direct call gave " << want[i];
      return;
    }
  }
}

}  // namespace cunum::testing
