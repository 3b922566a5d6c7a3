// cunum-bench-divergence: Kato, Suda and Tamada's experiments on today's GPU, through
// cunum/device/divergence.cuh. Sections:
//   loops     dynamic work assignment (the paper's Table 1): items whose loop runs
//             2048-8192 times (uniform) or 1-2048 times for 90% and 2048-8192 for 10%
//             (skewed), each iteration LOOP_NUM rounds of the paper's function; the
//             plain kernel (one item per thread) beside the paper's block queue, the
//             warp queue and the sort-by-trip-count peer (CUB radix sort first). Each
//             time is also given as a share of the divergence-free floor: the plain
//             kernel on items that all run the mean trip count, measured in the same run.
//   branches  branch-path unification (Tables 2 and 3): items taking path A or B by bit
//             2 of a random key, LOOP rounds each, DATA_PER_THREAD 1..64 items a thread;
//             the plain kernel beside the paper's per-thread unification, warp-level
//             compaction and the partition-first peer (CUB radix sort first), with each
//             scheme's predicted execution rate of the paths (Table 4's quantity).
// The problem sizes keep the paper's block shape (128 threads; 1024 items a block, or
// DATA_PER_THREAD items a thread) with as many blocks as fill the GPU, not the paper's
// 32 or 64 blocks, which would leave most of an H100's multiprocessors idle.
// Modes for Nsight Compute (scripts/divergence-ncu runs them under ncu and prints
// Table 4): one launch of each branch scheme, or of each loop assignment,
//   --ncu-branches DATA_PER_THREAD LOOP      --ncu-loops LOOP_NUM [BLOCKS_PER_SM (16)]
// each printing the model's execution rate on lines starting "model:"; and one price()
// of the Monte Carlo pricer's up-and-out calls (does its path kernel diverge?),
//   --ncu-barrier

#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bench_command_line.hpp"
#include "bench_harness.hpp"
#include "cunum/core.hpp"
#include "cunum/device/divergence.cuh"
#include "cunum/monte_carlo.hpp"
#include "paper_workloads.cuh"

namespace {

using cunum::DeviceBuffer;
using cunum::StreamHandle;
using cunum::bench::BenchEnvironment;
using cunum::bench::BenchOptions;
using cunum::bench::BenchReport;
using cunum::bench::BenchRow;
using cunum::bench::FailureLog;
using cunum::bench::divergence::paper_branch_reference;
using cunum::bench::divergence::paper_loop_reference;
using cunum::bench::divergence::PaperBranchTask;
using cunum::bench::divergence::PaperLoopTask;
using cunum::device::BranchScheme;
using cunum::device::DivergencePolicy;
using cunum::device::PaperDivergencePolicy;
using cunum::device::WorkAssignment;

constexpr const char* kModule = "divergence";
constexpr int kBlockThreads = 128;  // the paper's
FailureLog failures;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// ----------------------------------------------------------------------------------
// The paper's figures (GTX 560 Ti, CUDA 4.1), seconds.

struct PublishedLoopFigure {
  int loop_num;
  double before, after;
};
constexpr PublishedLoopFigure kPublishedTable1[] = {
    {1, 0.003578, 0.006199},   {2, 0.004829, 0.006539},   {4, 0.005982, 0.007417},   {8, 0.010972, 0.011640},
    {16, 0.021037, 0.020873},  {32, 0.044515, 0.044844},  {64, 0.085638, 0.081224},  {128, 0.172095, 0.153413},
    {256, 0.327804, 0.301698}, {512, 0.655889, 0.593056}, {8192, 11.329095, 9.348179}};
constexpr PublishedLoopFigure kPublishedSkewed = {128, 0.169481, 0.065186};

constexpr int kPublishedLoops[] = {1, 10, 100, 1000, 10000};
constexpr int kPublishedItemsPerThread[] = {1, 4, 16, 64};
constexpr double kPublishedTable2[5][4] = {{0.000041, 0.000052, 0.000174, 0.001356},
                                           {0.000043, 0.000055, 0.000172, 0.001353},
                                           {0.000058, 0.000087, 0.000240, 0.001449},
                                           {0.000144, 0.000404, 0.001364, 0.004465},
                                           {0.001015, 0.004047, 0.013259, 0.043370}};
constexpr double kPublishedTable3[5][4] = {{0.000038, 0.000040, 0.000043, 0.000059},
                                           {0.000035, 0.000042, 0.000049, 0.000078},
                                           {0.000041, 0.000054, 0.000105, 0.000303},
                                           {0.000142, 0.000384, 0.001338, 0.005165},
                                           {0.001119, 0.003426, 0.012963, 0.051003}};
constexpr double kPublishedTable4[4] = {50.0, 51.8, 66.6, 79.5};  // after, by DATA_PER_THREAD; before: 50.0

template <std::size_t N>
int index_of(const int (&values)[N], int value) {
  for (std::size_t i = 0; i < N; ++i) {
    if (values[i] == value) return static_cast<int>(i);
  }
  return -1;
}

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6f s", s);
  return text;
}

// ----------------------------------------------------------------------------------
// Timing: fewer runs for long kernels, never fewer than three after one warm-up, except
// kernels of seconds (LOOP_NUM 8192): one run, the first call having warmed up.

BenchOptions runs_for(const BenchOptions& options, double first_ms) {
  BenchOptions adjusted = options;
  if (first_ms > 2000.0) {
    adjusted.warmup_runs = 0;
    adjusted.timed_runs = 1;
    return adjusted;
  }
  const int affordable = static_cast<int>(1500.0 / std::max(first_ms, 1e-3));
  adjusted.timed_runs = std::clamp(affordable, 3, options.timed_runs);
  adjusted.warmup_runs = first_ms > 50.0 ? 1 : options.warmup_runs;
  return adjusted;
}

double once_ms(StreamHandle stream, const std::function<void()>& enqueue) {
  cunum::EventTimer timer;
  timer.start(stream);
  enqueue();
  timer.stop(stream);
  return timer.elapsed_ms();
}

// ----------------------------------------------------------------------------------
// Loops: the paper's dynamic work assignment experiment.

enum class CountDistribution { uniform, skewed };

// Trip counts: uniform in [2048, 8192]; skewed: 90% in [1, 2048], 10% in [2048, 8192].
std::vector<std::uint32_t> trip_counts(std::int64_t n, CountDistribution distribution, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<std::uint32_t> longer(2048, 8192), shorter(1, 2048), tenth(0, 9);
  std::vector<std::uint32_t> counts(static_cast<std::size_t>(n));
  for (auto& c : counts) {
    c = distribution == CountDistribution::uniform || tenth(engine) == 0 ? longer(engine) : shorter(engine);
  }
  return counts;
}

// The sort-by-trip-count peer's task: item i of the sorted order runs sorted_counts[i]
// and settles the original item order[i].
struct SortedLoopTask {
  PaperLoopTask loop;
  const std::uint32_t* sorted_counts;
  const std::uint32_t* order;
  using State = PaperLoopTask::State;
  __device__ State start(std::int64_t i) const {
    const std::uint32_t count = sorted_counts[i];
    return {count, count > 0 ? count : 1u};
  }
  __device__ bool proceed(const State& state) const { return loop.proceed(state); }
  __device__ void step(State& state) const { loop.step(state); }
  __device__ void finish(std::int64_t i, const State& state) const { loop.out[order[i]] = state.num; }
};

// The loop experiment's device data and the ways to run it.
class LoopExperiment {
 public:
  LoopExperiment(const std::vector<std::uint32_t>& counts, StreamHandle stream)
      : n_(static_cast<std::int64_t>(counts.size())),
        stream_(stream),
        counts_(DeviceBuffer<std::uint32_t>::from_host(counts, stream)),
        out_(counts.size(), stream),
        sorted_counts_(counts.size(), stream),
        identity_(counts.size(), stream),
        order_(counts.size(), stream) {
    std::vector<std::uint32_t> identity(counts.size());
    std::iota(identity.begin(), identity.end(), 0u);
    identity_.copy_from_host(identity.data(), identity.size());
    check(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes_, counts_.data(), sorted_counts_.data(),
                                          identity_.data(), order_.data(), static_cast<int>(n_), 0, 14, stream),
          "cub::DeviceRadixSort::SortPairs");
    sort_scratch_ = DeviceBuffer<std::uint8_t>(sort_bytes_, stream);
  }

  void run(WorkAssignment assignment, int loop_num) {
    cunum::device::launch_for_each<PaperDivergencePolicy>(assignment, task(loop_num), n_, stream_);
  }
  // The peer: trip counts sorted (14 bits hold 8192), then one item per thread.
  void run_sorted(int loop_num) {
    check(cub::DeviceRadixSort::SortPairs(sort_scratch_.data(), sort_bytes_, counts_.data(), sorted_counts_.data(),
                                          identity_.data(), order_.data(), static_cast<int>(n_), 0, 14, stream_),
          "cub::DeviceRadixSort::SortPairs");
    const SortedLoopTask sorted{task(loop_num), sorted_counts_.data(), order_.data()};
    cunum::device::launch_for_each<PaperDivergencePolicy>(WorkAssignment::static_per_thread, sorted, n_, stream_);
  }
  std::vector<std::uint32_t> result() const { return out_.to_host(); }
  void poison() { out_.fill_bytes_async(0xDE); }

 private:
  PaperLoopTask task(int loop_num) { return {counts_.data(), out_.data(), loop_num}; }

  std::int64_t n_;
  StreamHandle stream_;
  DeviceBuffer<std::uint32_t> counts_, out_, sorted_counts_, identity_, order_;
  DeviceBuffer<std::uint8_t> sort_scratch_;
  std::size_t sort_bytes_ = 0;
};

// Items for the loop experiment: the paper's 1024 items per block of 128 threads, and
// one full wave of those blocks (16 per multiprocessor; the paper's 32 blocks would
// fill 32 multiprocessors). The queues hide the function's dependent latency only with
// every warp slot filled: at 8 blocks per multiprocessor they matched the plain kernel.
std::int64_t loop_items(const BenchEnvironment& environment, int blocks_per_multiprocessor = 16) {
  return std::int64_t{environment.multiprocessor_count} * blocks_per_multiprocessor *
         PaperDivergencePolicy::items_per_block;
}

struct Context {
  const BenchOptions& options;
  const BenchEnvironment& environment;
  StreamHandle stream;
};

// Whether a technique's results equal the plain kernel's, item for item.
void check_matches_plain(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& plain,
                         const std::string& what) {
  const auto differs = std::mismatch(got.begin(), got.end(), plain.begin());
  if (differs.first != got.end()) {
    failures.fail(what + ": item " + std::to_string(differs.first - got.begin()) + " differs from the plain kernel's");
  }
}

// The plain kernel's loop results against the CPU on a sample of about 2e8 rounds of the
// function (a whole check would take minutes at LOOP_NUM 512).
void check_loop_sample(const std::vector<std::uint32_t>& plain, const std::vector<std::uint32_t>& counts, int loop_num,
                       const std::string& what) {
  const double per_item = 5000.0 * loop_num;
  const std::size_t samples = std::clamp<std::size_t>(static_cast<std::size_t>(2e8 / per_item), 4, 256);
  for (std::size_t s = 0; s < samples; ++s) {
    const std::size_t i = (s * 7919u * 7919u) % plain.size();
    if (plain[i] != paper_loop_reference(counts[i], loop_num)) {
      failures.fail(what + ": item " + std::to_string(i) + " differs from the CPU reference");
      return;
    }
  }
}

void loop_rows(const Context& context, BenchReport& report, CountDistribution distribution,
               const std::vector<int>& loop_nums) {
  const std::int64_t n = loop_items(context.environment);
  const bool uniform = distribution == CountDistribution::uniform;
  const std::vector<std::uint32_t> counts = trip_counts(n, distribution, uniform ? 2012 : 2013);
  const double total_trips = std::accumulate(counts.begin(), counts.end(), 0.0);
  const auto mean_trips = static_cast<std::uint32_t>(std::lround(total_trips / static_cast<double>(n)));
  LoopExperiment experiment(counts, context.stream);
  LoopExperiment floor(std::vector<std::uint32_t>(static_cast<std::size_t>(n), mean_trips), context.stream);
  const char* shape = uniform ? "uniform 2048-8192" : "skewed 90% 1-2048, 10% 2048-8192";

  for (const int loop_num : loop_nums) {
    const auto plain = [&] { experiment.run(WorkAssignment::static_per_thread, loop_num); };
    const double first_ms = once_ms(context.stream, plain);
    const BenchOptions options = runs_for(context.options, first_ms);
    const std::vector<std::uint32_t> plain_result = experiment.result();
    check_loop_sample(plain_result, counts, loop_num, std::string("plain ") + shape);

    // The floor: the same number of iterations with no divergence at all.
    const double floor_ms = cunum::bench::median_device_ms(
                                options, context.stream,
                                [&] { floor.run(WorkAssignment::static_per_thread, loop_num); }) *
                            total_trips / (static_cast<double>(mean_trips) * static_cast<double>(n));
    const PublishedLoopFigure* published = nullptr;
    if (uniform) {
      for (const PublishedLoopFigure& figure : kPublishedTable1) {
        if (figure.loop_num == loop_num) published = &figure;
      }
    } else if (loop_num == kPublishedSkewed.loop_num) {
      published = &kPublishedSkewed;
    }

    struct Variant {
      const char* name;
      std::function<void()> run;
      bool paper;         // the paper's "after" kernel: its figures go in the note
      bool long_loops;    // also run at LOOP_NUM above 512 (seconds a run): the paper's only
    };
    const std::vector<Variant> variants = {
        {"block queue (paper)", [&] { experiment.run(WorkAssignment::block_queue, loop_num); }, true, true},
        {"warp queue", [&] { experiment.run(WorkAssignment::warp_queue, loop_num); }, false, false},
        {"sorted by trip count (CUB, then plain)", [&] { experiment.run_sorted(loop_num); }, false, false},
    };
    double plain_ms = 0.0;
    for (const Variant& variant : variants) {
      if (loop_num > 512 && !variant.long_loops) continue;
      experiment.poison();
      variant.run();
      check_matches_plain(experiment.result(), plain_result,
                          std::string(variant.name) + " " + shape + " LOOP_NUM=" + std::to_string(loop_num));
      const cunum::bench::PairedMedians medians =
          cunum::bench::compare_device_ms(options, context.stream, variant.run, plain);
      plain_ms = medians.peer_ms;
      BenchRow row = cunum::bench::bench_row(kModule, std::string("loops ") + shape + ", LOOP_NUM " +
                                                          std::to_string(loop_num) + ": " + variant.name,
                                             "int32", n);
      row.median_ms = medians.ours_ms;
      row.bytes_moved = 8.0 * static_cast<double>(n);  // a trip count in, a result out
      row.peer = "plain (one item per thread)";
      row.peer_median_ms = medians.peer_ms;
      char note[256];
      std::snprintf(note, sizeof note, "%.1f%% of the divergence-free floor (plain: %.1f%%)",
                    100.0 * floor_ms / medians.ours_ms, 100.0 * floor_ms / medians.peer_ms);
      row.note = note;
      if (published != nullptr && variant.paper) {
        row.note += "; GTX 560 Ti (paper): before " + seconds_text(published->before) + ", after " +
                    seconds_text(published->after);
        char ratio[64];
        std::snprintf(ratio, sizeof ratio, " (%.2fx)", published->before / published->after);
        row.note += ratio;
      }
      report.add(row);
    }
    std::printf("floor LOOP_NUM %d: %.4f ms (plain %.4f ms)\n", loop_num, floor_ms, plain_ms);
  }
}

void loops_section(const Context& context) {
  BenchReport report(context.environment, context.options,
                     "Dynamic work assignment (Table 1): loops of 2048-8192 trips (and the skewed case), "
                     "1024 items a block of 128 threads");
  std::vector<int> loop_nums = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 8192};
  std::vector<int> skewed = {1, 16, 128, 512};
  if (context.options.quick) {
    loop_nums = {1, 16};
    skewed = {16};
  }
  loop_rows(context, report, CountDistribution::uniform, loop_nums);
  loop_rows(context, report, CountDistribution::skewed, skewed);
}

// ----------------------------------------------------------------------------------
// Branches: the paper's branch-path unification experiment.

std::vector<std::uint32_t> branch_keys(std::int64_t n, std::uint64_t seed) {
  std::mt19937 engine(static_cast<std::uint32_t>(seed));
  std::vector<std::uint32_t> keys(static_cast<std::size_t>(n));
  for (auto& key : keys) key = engine();
  return keys;
}

// The share of lane-slots that run a path while the warp runs it, for each scheme, from
// the keys alone (path work only; the schemes' bookkeeping is not counted): Table 4's
// quantity as a model.
struct ExecutionRates {
  double plain, per_thread, warp_compaction, partition_first;
};

ExecutionRates predicted_rates(const std::vector<std::uint32_t>& keys, int items_per_thread) {
  const auto n = static_cast<std::int64_t>(keys.size());
  const auto takes_a = [&](std::int64_t i) { return (keys[static_cast<std::size_t>(i)] & 0x4u) != 0; };
  double plain_issued = 0, per_thread_issued = 0, compaction_issued = 0;
  for (std::int64_t first = 0; first < n; first += 32) {
    bool a = false, b = false;
    for (std::int64_t i = first; i < std::min(n, first + 32); ++i) (takes_a(i) ? a : b) = true;
    plain_issued += (a ? 1 : 0) + (b ? 1 : 0);
  }
  const std::int64_t tile = 32 * std::int64_t{items_per_thread};
  for (std::int64_t first = 0; first < n; first += tile) {
    int most_a = 0, most_b = 0, total_a = 0, total_b = 0;
    for (int lane = 0; lane < 32; ++lane) {
      int lane_a = 0, lane_b = 0;
      for (int j = 0; j < items_per_thread; ++j) {
        const std::int64_t i = first + j * 32 + lane;
        if (i < n) (takes_a(i) ? lane_a : lane_b) += 1;
      }
      most_a = std::max(most_a, lane_a);
      most_b = std::max(most_b, lane_b);
      total_a += lane_a;
      total_b += lane_b;
    }
    per_thread_issued += most_a + most_b;
    compaction_issued += (total_a + 31) / 32 + (total_b + 31) / 32;
  }
  std::int64_t count_a = 0;
  for (std::int64_t i = 0; i < n; ++i) count_a += takes_a(i) ? 1 : 0;
  const double partition_issued = static_cast<double>((count_a + 31) / 32 + (n - count_a + 31) / 32);
  const double slots = static_cast<double>(n) / 32.0;
  return {slots / plain_issued, slots / per_thread_issued, slots / compaction_issued, slots / partition_issued};
}

// Items for DATA_PER_THREAD: the paper's 128-thread blocks, as many as one wave of the
// per-thread kernel holds, DATA_PER_THREAD items a thread.
template <class Policy>
std::int64_t branch_items(const BenchEnvironment& environment) {
  int resident = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &resident, cunum::device::detail::per_thread_branch_kernel<Policy, PaperBranchTask>, Policy::block_threads,
            0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return std::int64_t{environment.multiprocessor_count} * resident * Policy::items_per_block;
}

template <class Policy>
class BranchExperiment {
 public:
  BranchExperiment(const BenchEnvironment& environment, StreamHandle stream)
      : n_(branch_items<Policy>(environment)),
        stream_(stream),
        keys_(branch_keys(n_, 2012 + Policy::items_per_thread)),
        device_keys_(DeviceBuffer<std::uint32_t>::from_host(keys_, stream)),
        out_(keys_.size(), stream) {}

  void run(BranchScheme scheme, int loop) {
    const PaperBranchTask task{device_keys_.data(), out_.data(), loop};
    cunum::device::launch_branches<Policy>(scheme, task, n_, stream_, &workspace_);
  }
  std::vector<std::uint32_t> result() const { return out_.to_host(); }
  void poison() { out_.fill_bytes_async(0xDE); }
  const std::vector<std::uint32_t>& keys() const { return keys_; }
  std::int64_t size() const { return n_; }

 private:
  std::int64_t n_;
  StreamHandle stream_;
  std::vector<std::uint32_t> keys_;
  DeviceBuffer<std::uint32_t> device_keys_, out_;
  cunum::device::PartitionWorkspace workspace_;
};

constexpr BranchScheme kUnifyingSchemes[] = {BranchScheme::per_thread, BranchScheme::warp_compaction,
                                             BranchScheme::partition_first};

const char* scheme_name(BranchScheme scheme) {
  switch (scheme) {
    case BranchScheme::plain: return "plain";
    case BranchScheme::per_thread: return "per-thread unification (paper)";
    case BranchScheme::warp_compaction: return "warp compaction";
    case BranchScheme::partition_first: return "partition first (CUB, then plain)";
  }
  return "?";
}

double rate_of(const ExecutionRates& rates, BranchScheme scheme) {
  switch (scheme) {
    case BranchScheme::plain: return rates.plain;
    case BranchScheme::per_thread: return rates.per_thread;
    case BranchScheme::warp_compaction: return rates.warp_compaction;
    case BranchScheme::partition_first: return rates.partition_first;
  }
  return 0.0;
}

template <class Policy>
void branch_rows(const Context& context, BenchReport& report, const std::vector<int>& loops) {
  BranchExperiment<Policy> experiment(context.environment, context.stream);
  const std::int64_t n = experiment.size();
  const ExecutionRates rates = predicted_rates(experiment.keys(), Policy::items_per_thread);
  const int published_column = index_of(kPublishedItemsPerThread, Policy::items_per_thread);
  for (const int loop : loops) {
    const auto plain = [&] { experiment.run(BranchScheme::plain, loop); };
    experiment.poison();
    const double first_ms = once_ms(context.stream, plain);
    const BenchOptions options = runs_for(context.options, first_ms);
    const std::vector<std::uint32_t> plain_result = experiment.result();
    for (std::size_t s = 0; s < 256; ++s) {
      const std::size_t i = (s * 104729u) % plain_result.size();
      if (plain_result[i] != paper_branch_reference(experiment.keys()[i], static_cast<std::int64_t>(i), loop)) {
        failures.fail("plain branches: item " + std::to_string(i) + " differs from the CPU reference");
        break;
      }
    }
    const int published_row = index_of(kPublishedLoops, loop);
    for (const BranchScheme scheme : kUnifyingSchemes) {
      const auto run = [&] { experiment.run(scheme, loop); };
      experiment.poison();
      run();
      check_matches_plain(experiment.result(), plain_result,
                          std::string(scheme_name(scheme)) + " DATA_PER_THREAD " +
                              std::to_string(Policy::items_per_thread) + " LOOP " + std::to_string(loop));
      const cunum::bench::PairedMedians medians = cunum::bench::compare_device_ms(options, context.stream, run, plain);
      BenchRow row = cunum::bench::bench_row(kModule, "branches, DATA_PER_THREAD " +
                                                          std::to_string(Policy::items_per_thread) + ", LOOP " +
                                                          std::to_string(loop) + ": " + scheme_name(scheme),
                                             "int32", n);
      row.median_ms = medians.ours_ms;
      row.bytes_moved = 8.0 * static_cast<double>(n);  // a key in, a result out
      row.peer = "plain (one item per thread)";
      row.peer_median_ms = medians.peer_ms;
      char note[256];
      std::snprintf(note, sizeof note, "model execution rate %.1f%% (plain %.1f%%)",
                    100.0 * rate_of(rates, scheme), 100.0 * rates.plain);
      row.note = note;
      if (scheme == BranchScheme::per_thread && published_row >= 0 && published_column >= 0) {
        const double before = kPublishedTable2[published_row][published_column];
        const double after = kPublishedTable3[published_row][published_column];
        char published[160];
        std::snprintf(published, sizeof published,
                      "; GTX 560 Ti (paper): before %.6f s, after %.6f s (%.2fx), rate %.1f%%", before, after,
                      before / after, kPublishedTable4[published_column]);
        row.note += published;
      }
      report.add(row);
    }
  }
}

void branches_section(const Context& context) {
  BenchReport report(context.environment, context.options,
                     "Branch-path unification (Tables 2 and 3): two paths by bit 2 of a random key, blocks of 128 "
                     "threads");
  const std::vector<int> loops = context.options.quick ? std::vector<int>{10, 1000}
                                                       : std::vector<int>{1, 10, 100, 1000, 10000};
  branch_rows<DivergencePolicy<kBlockThreads, 1>>(context, report, loops);
  branch_rows<DivergencePolicy<kBlockThreads, 4>>(context, report, loops);
  branch_rows<DivergencePolicy<kBlockThreads, 16>>(context, report, loops);
  branch_rows<DivergencePolicy<kBlockThreads, 64>>(context, report, loops);
}

void run(const BenchOptions& options) {
  if (cunum::device_count() == 0) {
    std::printf("cunum-bench-divergence: no CUDA device on this machine; the divergence templates are device code "
                "and there is nothing to measure here\n");
    return;
  }
  const BenchEnvironment environment = cunum::bench::measure_environment(options);
  const cunum::Stream stream;
  const Context context{options, environment, stream};
  if (cunum::bench::section_selected(options, "loops")) loops_section(context);
  if (cunum::bench::section_selected(options, "branches")) branches_section(context);
}

// ----------------------------------------------------------------------------------
// Nsight Compute modes: one launch of each scheme.

// The device's shape, without the copy-bandwidth yardstick the modes do not need.
BenchEnvironment device_shape() {
  BenchEnvironment environment;
  environment.multiprocessor_count = cunum::device_properties().multiprocessor_count;
  return environment;
}

template <class Policy>
int ncu_branches_for(int loop) {
  const cunum::Stream stream;
  const BenchEnvironment environment = device_shape();
  BranchExperiment<Policy> experiment(environment, stream);
  const ExecutionRates rates = predicted_rates(experiment.keys(), Policy::items_per_thread);
  for (const BranchScheme scheme :
       {BranchScheme::plain, BranchScheme::per_thread, BranchScheme::warp_compaction, BranchScheme::partition_first}) {
    experiment.run(scheme, loop);
    std::printf("model: scheme=%d rate=%.4f items=%lld\n", static_cast<int>(scheme), rate_of(rates, scheme),
                static_cast<long long>(experiment.size()));
  }
  cunum::synchronize(stream);
  return 0;
}

int ncu_branches(int items_per_thread, int loop) {
  switch (items_per_thread) {
    case 1: return ncu_branches_for<DivergencePolicy<kBlockThreads, 1>>(loop);
    case 4: return ncu_branches_for<DivergencePolicy<kBlockThreads, 4>>(loop);
    case 16: return ncu_branches_for<DivergencePolicy<kBlockThreads, 16>>(loop);
    case 64: return ncu_branches_for<DivergencePolicy<kBlockThreads, 64>>(loop);
    default: std::fprintf(stderr, "--ncu-branches: DATA_PER_THREAD is 1, 4, 16 or 64\n"); return 2;
  }
}

int ncu_loops(int loop_num, int blocks_per_multiprocessor) {
  const cunum::Stream stream;
  const BenchEnvironment environment = device_shape();
  const std::int64_t n = loop_items(environment, blocks_per_multiprocessor);
  const std::vector<std::uint32_t> counts = trip_counts(n, CountDistribution::uniform, 2012);
  LoopExperiment experiment(counts, stream);
  // The model of the plain kernel: a warp runs as long as its longest item.
  double useful = 0, issued = 0;
  for (std::int64_t first = 0; first < n; first += 32) {
    std::uint32_t longest = 0;
    for (std::int64_t i = first; i < std::min(n, first + 32); ++i) {
      useful += counts[static_cast<std::size_t>(i)];
      longest = std::max(longest, counts[static_cast<std::size_t>(i)]);
    }
    issued += 32.0 * longest;
  }
  std::printf("model: assignment=0 rate=%.4f items=%lld\n", useful / issued, static_cast<long long>(n));
  for (const WorkAssignment assignment :
       {WorkAssignment::static_per_thread, WorkAssignment::block_queue, WorkAssignment::warp_queue}) {
    experiment.run(assignment, loop_num);
  }
  cunum::synchronize(stream);
  return 0;
}

// The Monte Carlo pricer's discretely monitored up-and-out calls (64 dates), for the
// question whether its path kernel diverges: barriers from 1.05 to 1.6 x spot, so that
// paths are knocked out at every date of the walk.
int ncu_barrier() {
  cunum::MonteCarloSettings settings;
  settings.payoff = cunum::MonteCarloPayoff::up_and_out;
  settings.paths = std::int64_t{1} << 20;
  settings.time_steps = 64;
  const cunum::MonteCarloPricer<float> pricer(settings, cunum::Backend::cuda);
  std::vector<cunum::MonteCarloOption<float>> options(256);
  for (std::size_t i = 0; i < options.size(); ++i) {
    options[i] = {100.0f, 100.0f, 1.0f, 0.03f, 0.0f, 0.3f, 105.0f + 55.0f * static_cast<float>(i) / 255.0f};
  }
  const auto batch = pricer.load(options);
  const cunum::Stream stream;
  DeviceBuffer<cunum::MonteCarloEstimate<float>> results(options.size(), stream);
  pricer.price(batch, results.data(), stream);
  cunum::synchronize(stream);
  std::printf("model: up_and_out options=%zu paths=%lld dates=64\n", options.size(),
              static_cast<long long>(settings.paths));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  cunum::bench::BenchCommandLine command_line(
      "cunum-bench-divergence",
      "Kato, Suda and Tamada's divergence experiments through cunum/device/divergence.cuh; sections: loops, "
      "branches");
  CLI::App& app = command_line.app();
  std::vector<long long> branches;
  std::vector<long long> loops;
  bool barrier = false;
  CLI::Option* branches_option =
      app.add_option("--ncu-branches", branches,
                     "For Nsight Compute, instead of the sections: one launch of each branch scheme with "
                     "DATA_PER_THREAD items a thread (1, 4, 16 or 64) and LOOP rounds a path (1 to 10^6)")
          ->expected(2)
          ->type_name("DATA_PER_THREAD LOOP")
          ->check(CLI::IsMember({"1", "4", "16", "64"}).description("").application_index(0))
          ->check(cunum::programs::integer_in(1, 1000000).application_index(1));
  CLI::Option* loops_option =
      app.add_option("--ncu-loops", loops,
                     "For Nsight Compute, instead of the sections: one launch of each loop assignment, LOOP_NUM "
                     "rounds an iteration (1 to 10^6), on BLOCKS_PER_SM blocks a multiprocessor (1 to 64, default 16)")
          ->expected(1, 2)
          ->type_name("LOOP_NUM [BLOCKS_PER_SM]")
          ->check(cunum::programs::integer_in(1, 1000000).application_index(0))
          ->check(cunum::programs::integer_in(1, 64).application_index(1))
          ->excludes(branches_option);
  app.add_flag("--ncu-barrier", barrier,
               "For Nsight Compute, instead of the sections: one price() of the Monte Carlo pricer's up-and-out calls")
      ->excludes(branches_option)
      ->excludes(loops_option);
  const int status = command_line.parse(argc, argv);
  if (status >= 0) return status;
  try {
    if (!branches.empty()) return ncu_branches(static_cast<int>(branches[0]), static_cast<int>(branches[1]));
    if (!loops.empty()) return ncu_loops(static_cast<int>(loops[0]), loops.size() == 2 ? static_cast<int>(loops[1]) : 16);
    if (barrier) return ncu_barrier();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "cunum-bench-divergence: error: %s\n", error.what());
    return 1;
  }
  return cunum::bench::bench_main(command_line.options(), "cunum-bench-divergence", failures, run);
}
