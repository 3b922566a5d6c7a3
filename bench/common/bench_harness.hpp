#pragma once
// The bench harness every cunum-bench-<module> shares: options, timing (CUDA events
// on a GPU, std::chrono on the CPU backend), inputs rotated so that no run finds its
// input in L2, the device's own copy bandwidth as the yardstick, and the report
// (a markdown table on stdout, one JSON object per row with --json).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_json.hpp"
#include "cunum/core.hpp"

namespace cunum::bench {

// Every tuning knob of the harness in one place.
struct BenchOptions {
  bool quick = false;            // CI smoke: fewer sizes and runs
  int warmup_runs = 3;           // untimed runs before timing (clocks, allocations, caches)
  int timed_runs = 25;           // the median is taken over these
  std::string json_path;         // --json FILE: one JSON object per row; empty: none
  std::string filter;            // --filter TEXT: only sections whose title contains TEXT, in any case
  double l2_rotation_factor = 4.0;          // inputs rotate until their copies exceed this x L2
  std::size_t copy_bytes = std::size_t{1} << 30;  // size of the copy-bandwidth yardstick
};

// Where the bench runs and the yardstick it is measured against.
struct BenchEnvironment {
  Backend backend = Backend::cpu;
  RunProvenance provenance;      // commit, version, device, driver, CUDA runtime, date: in every JSON row
  int multiprocessor_count = 0;  // 0 on the CPU backend
  std::size_t l2_cache_bytes = 0;
  double copy_gbps = 0.0;        // (bytes read + written) / time of a large copy, median of runs
};

// Picks the backend (CUDA when a device exists) and measures the copy bandwidth:
// cudaMemcpyAsync device to device, or an OpenMP-parallel memcpy on the CPU backend.
BenchEnvironment measure_environment(const BenchOptions& options);

double median(std::vector<double> values);

// Whether a section with this title runs under options.filter (a part of the title, in
// any case). A run whose filter lets no section run ends by saying so (bench_main).
bool section_selected(const BenchOptions& options, const std::string& title);

// What the CUDA events of a device timing bracket.
enum class DeviceTiming {
  // One call as a program sees it on an idle GPU: the start event is recorded, then the
  // call is enqueued, so its host-side launch cost is inside. The default of every table.
  host_call,
  // One call's GPU time alone: a spinning kernel holds the stream while the call is
  // enqueued and is released after the stop event (nvbench's blocking kernel).
  gpu_only,
  // One call's share of a CUDA graph of calls_per_graph calls replayed back to back on a
  // held stream: the launch gaps between successive calls are hidden.
  graph_replay,
};

const char* to_string(DeviceTiming timing) noexcept;

// Median milliseconds of one call of `enqueue()`, device work enqueued on `stream`,
// over options.timed_runs runs after options.warmup_runs; each run finishes before the
// next is enqueued. For graph_replay, enqueue() is captured calls_per_graph times (it
// must be capturable) and the median replay time is divided by calls_per_graph.
double median_device_ms(const BenchOptions& options, StreamHandle stream,
                        const std::function<void()>& enqueue, DeviceTiming timing = DeviceTiming::host_call,
                        int calls_per_graph = 1);

// The same for our routine and its peer, their runs interleaved (ours, peer, ours, ...)
// so that a drift of clocks or temperature during the case cannot favour either.
struct PairedMedians {
  double ours_ms = 0.0;
  double peer_ms = 0.0;
};
PairedMedians compare_device_ms(const BenchOptions& options, StreamHandle stream,
                                const std::function<void()>& ours, const std::function<void()>& peer,
                                DeviceTiming timing = DeviceTiming::host_call, int calls_per_graph = 1);
// Launches one warp that does nothing on `stream`: the least that a call launching a
// kernel can cost under any DeviceTiming, the floor of fixed-cost rows.
void launch_empty_kernel(StreamHandle stream);
// The same for synchronous host work, timed with std::chrono::steady_clock.
double median_host_ms(const BenchOptions& options, const std::function<void()>& run);

// How many copies of a `bytes`-sized input make their total exceed factor x L2, so
// that cycling through them evicts each copy before it is read again (1 for large inputs).
std::size_t rotation_copies(std::size_t bytes, std::size_t l2_cache_bytes, double factor);

// Counts failed verifications; each is printed at once, loudly, on stderr and stdout.
class FailureLog {
 public:
  void fail(const std::string& message);
  int failures() const noexcept { return failures_; }

 private:
  int failures_ = 0;
};

// A bench's main(): parses its command line (BenchCommandLine, bench_command_line.hpp), runs `run` and returns
// its status; an exception, or any failure in `failures`, makes the status 1 with a
// loud line.
int bench_main(int argc, char** argv, const char* program, const char* summary, const FailureLog& failures,
               const std::function<void(const BenchOptions&)>& run);
// The same for a command line already parsed (a bench that added options of its own).
int bench_main(const BenchOptions& options, const char* program, const FailureLog& failures,
               const std::function<void(const BenchOptions&)>& run);

// Identical copies of one input in device memory, handed out in turn by next(). One
// cursor serves every routine timed on the set, so consecutive runs, ours and the
// peer's alike, never read the same copy while it could still be in L2.
template <class T>
class RotatingDeviceInput {
 public:
  RotatingDeviceInput(const T* host, std::size_t n, const BenchEnvironment& environment,
                      const BenchOptions& options, StreamHandle stream) {
    const std::size_t count =
        rotation_copies(n * sizeof(T), environment.l2_cache_bytes, options.l2_rotation_factor);
    copies_.emplace_back(n, stream);
    copies_.front().copy_from_host(host, n);
    for (std::size_t c = 1; c < count; ++c) {
      copies_.emplace_back(n, stream);
      memory::copy_device_to_device_async(copies_.back().data(), copies_.front().data(),
                                    copies_.front().bytes(), stream);
    }
    synchronize(stream);
  }
  const T* next() noexcept {
    const T* copy = copies_[cursor_].data();
    cursor_ = (cursor_ + 1) % copies_.size();
    return copy;
  }
  std::size_t copy_count() const noexcept { return copies_.size(); }

 private:
  std::vector<DeviceBuffer<T>> copies_;
  std::size_t cursor_ = 0;
};

// One measured case. gbps counts the bytes the operation must move: each input
// element read once, the output written once.
struct BenchRow {
  std::string module;
  std::string case_name;
  std::string precision;
  std::int64_t n = 0;
  double median_ms = 0.0;
  double bytes_moved = 0.0;
  std::optional<std::string> peer;  // e.g. "cub::DeviceReduce::Sum"; empty where there is none
  std::optional<double> peer_median_ms;
  std::string note;                 // free text, e.g. a historical reference figure
};

// A row of `module` with its case, precision and n; the bench fills in the rest.
BenchRow bench_row(const std::string& module, const std::string& case_name, const std::string& precision,
                   std::int64_t n);

// The precision column's name of an element type.
template <class T>
const char* precision_name() {
  if constexpr (std::is_same_v<T, float>) {
    return "float32";
  } else if constexpr (std::is_same_v<T, double>) {
    return "float64";
  } else {
    static_assert(std::is_same_v<T, std::int32_t>, "a precision name for float, double or int32");
    return "int32";
  }
}

// Prints the heading and table header at construction, then one line per row as it
// is added (and a JSON line with --json: the row's columns and the run's provenance),
// so that long runs show progress.
class BenchReport {
 public:
  BenchReport(const BenchEnvironment& environment, const BenchOptions& options, const std::string& title);
  BenchReport(const BenchReport&) = delete;
  BenchReport& operator=(const BenchReport&) = delete;

  void add(const BenchRow& row);

 private:
  const BenchEnvironment& environment_;
  std::string json_path_;
};

}  // namespace cunum::bench
