// Device timings of the bench harness (bench_harness.hpp): CUDA events around one
// call, around a call whose stream was held while it was enqueued, or around the
// replay of a CUDA graph of calls.

#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench_harness.hpp"
#include "kernels/common/launch.cuh"
#include "src/core/check.hpp"

namespace cunum::bench {

namespace {

__device__ __forceinline__ unsigned long long global_nanoseconds() {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// Spins until the host sets *release; gives up after timeout_ns and says so, so that
// work which waits for the stream while enqueueing (a synchronous copy, say) cannot hang.
__global__ void hold_stream_kernel(const volatile int* release, volatile int* timed_out,
                                   unsigned long long timeout_ns) {
  const unsigned long long start = global_nanoseconds();
  while (*release == 0) {
    if (global_nanoseconds() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
  }
}

__global__ void empty_kernel() {}

// Holds a stream with hold_stream_kernel while work is enqueued behind it, so that the
// events around the work measure the GPU alone (the blocking kernel of NVIDIA's nvbench).
class StreamHold {
 public:
  StreamHold() {
    CUNUM_CHECK(cudaHostAlloc(&flags_, 2 * sizeof(int), cudaHostAllocMapped));
    flags_[0] = flags_[1] = 0;
    CUNUM_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags_), flags_, 0));
  }
  ~StreamHold() { cudaFreeHost(flags_); }
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;

  void hold(StreamHandle stream) {
    __atomic_store_n(&flags_[0], 0, __ATOMIC_SEQ_CST);
    detail::launch_kernel(hold_stream_kernel, "hold_stream_kernel", {dim3(1), dim3(1), 0, stream}, device_flags_,
                          device_flags_ + 1, kTimeoutNanoseconds);
  }
  void release() { __atomic_store_n(&flags_[0], 1, __ATOMIC_SEQ_CST); }

  // After the held work has finished: whether the hold gave up waiting.
  void check_not_timed_out() const {
    if (__atomic_load_n(&flags_[1], __ATOMIC_SEQ_CST) != 0) {
      throw Error(ErrorCode::not_supported,
                  "bench timing: the timed work waited for its own stream while it was being enqueued, so it "
                  "cannot be timed with DeviceTiming::gpu_only or graph_replay");
    }
  }

 private:
  static constexpr unsigned long long kTimeoutNanoseconds = 2'000'000'000ull;
  int* flags_ = nullptr;  // [0]: release, [1]: timed out
  int* device_flags_ = nullptr;
};

// `calls` calls of enqueue() captured into one instantiated CUDA graph.
class CapturedCalls {
 public:
  CapturedCalls(StreamHandle stream, const std::function<void()>& enqueue, int calls) {
    CUNUM_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    cudaGraph_t graph = nullptr;
    try {
      for (int call = 0; call < calls; ++call) enqueue();
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);
      if (graph != nullptr) cudaGraphDestroy(graph);
      throw;
    }
    CUNUM_CHECK(cudaStreamEndCapture(stream, &graph));
    const cudaError_t status = cudaGraphInstantiate(&graph_exec_, graph, 0);
    cudaGraphDestroy(graph);
    CUNUM_CHECK(status);
  }
  ~CapturedCalls() { cudaGraphExecDestroy(graph_exec_); }
  CapturedCalls(const CapturedCalls&) = delete;
  CapturedCalls& operator=(const CapturedCalls&) = delete;

  void launch(StreamHandle stream) { CUNUM_CHECK(cudaGraphLaunch(graph_exec_, stream)); }

 private:
  cudaGraphExec_t graph_exec_ = nullptr;
};

// One routine under one timing: what one timed run enqueues and how many calls it holds.
class TimedRoutine {
 public:
  TimedRoutine(StreamHandle stream, const std::function<void()>& enqueue, DeviceTiming timing, int calls_per_graph)
      : stream_(stream), enqueue_(enqueue) {
    if (timing == DeviceTiming::graph_replay) {
      if (calls_per_graph < 1) {
        throw Error(ErrorCode::invalid_argument, "bench timing: calls_per_graph must be >= 1");
      }
      graph_.emplace(stream, enqueue, calls_per_graph);
      calls_ = calls_per_graph;
    }
  }

  void warm_up() { enqueue_calls(); }

  // Milliseconds of one call: the whole run, divided by the calls it holds. `hold` is
  // null for DeviceTiming::host_call, which enqueues on a free-running stream.
  double timed_run_ms(StreamHold* hold, EventTimer& timer) {
    if (hold != nullptr) hold->hold(stream_);
    timer.start(stream_);
    enqueue_calls();
    timer.stop(stream_);
    if (hold != nullptr) hold->release();
    const double ms = timer.elapsed_ms();
    if (hold != nullptr) hold->check_not_timed_out();
    return ms / calls_;
  }

 private:
  void enqueue_calls() {
    if (graph_) {
      graph_->launch(stream_);
    } else {
      enqueue_();
    }
  }

  StreamHandle stream_;
  const std::function<void()>& enqueue_;
  std::optional<CapturedCalls> graph_;
  int calls_ = 1;
};

// The median of each routine's runs, the runs of all routines interleaved.
std::vector<double> interleaved_medians(const BenchOptions& options, StreamHandle stream,
                                        const std::vector<const std::function<void()>*>& enqueues,
                                        DeviceTiming timing, int calls_per_graph) {
  std::vector<std::unique_ptr<TimedRoutine>> routines;
  for (const auto* enqueue : enqueues) {
    routines.push_back(std::make_unique<TimedRoutine>(stream, *enqueue, timing, calls_per_graph));
  }
  for (int warmup = 0; warmup < options.warmup_runs; ++warmup) {
    for (auto& routine : routines) routine->warm_up();
  }
  std::optional<StreamHold> hold;
  if (timing != DeviceTiming::host_call) hold.emplace();
  EventTimer timer;
  std::vector<std::vector<double>> times(routines.size());
  for (int timed = 0; timed < options.timed_runs; ++timed) {
    for (std::size_t r = 0; r < routines.size(); ++r) {
      times[r].push_back(routines[r]->timed_run_ms(hold ? &*hold : nullptr, timer));
    }
  }
  std::vector<double> medians;
  for (auto& routine_times : times) medians.push_back(median(std::move(routine_times)));
  return medians;
}

}  // namespace

void launch_empty_kernel(StreamHandle stream) {
  detail::launch_kernel(empty_kernel, "empty_kernel", {dim3(1), dim3(32), 0, stream});
}

const char* to_string(DeviceTiming timing) noexcept {
  switch (timing) {
    case DeviceTiming::host_call: return "one call, host launch included";
    case DeviceTiming::gpu_only: return "one call, GPU time only";
    case DeviceTiming::graph_replay: return "per call in a CUDA graph of back-to-back calls";
  }
  return "unknown";
}

double median_device_ms(const BenchOptions& options, StreamHandle stream, const std::function<void()>& enqueue,
                        DeviceTiming timing, int calls_per_graph) {
  return interleaved_medians(options, stream, {&enqueue}, timing, calls_per_graph).front();
}

PairedMedians compare_device_ms(const BenchOptions& options, StreamHandle stream,
                                const std::function<void()>& ours, const std::function<void()>& peer,
                                DeviceTiming timing, int calls_per_graph) {
  const std::vector<double> medians = interleaved_medians(options, stream, {&ours, &peer}, timing, calls_per_graph);
  return {medians[0], medians[1]};
}

}  // namespace cunum::bench
