// cunum-bench-access-model: the random-access model (cunum/access_model.hpp) against
// the H100. Sections:
//   latency  dependent-load chains (one thread, a random cycle of 128-byte lines) in a
//            table that fits L1, one that fits L2, and one that fits neither: cycles a
//            load, the model's latency parameters.
//   gather   uniform random gathers (table of m sectors, D active lanes, 4- or 16-byte
//            elements) timed with CUDA events, beside the model's time estimate (with the
//            latencies just measured and the copy bandwidth as DRAM's).
// Modes for Nsight Compute (scripts/access-model-ncu runs them under ncu and prints the
// predicted-vs-measured table): one launch of a gather,
//   --ncu-gather SECTORS ACTIVE_THREADS ELEMENT_BYTES
// and the cache-fill experiment, one warp making t requests on a table of M sectors, one
// launch for each t = 1..T (ncu empties the caches before each),
//   --ncu-fill M T
// Each prints the model's prediction on a line starting "model:".

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bench_command_line.hpp"
#include "bench_harness.hpp"
#include "cunum/access_model.hpp"
#include "cunum/core.hpp"

namespace {

using cunum::bench::BenchOptions;
using cunum::bench::BenchReport;
using cunum::bench::BenchRow;
using cunum::bench::FailureLog;

constexpr int kWarp = 32;
constexpr int kSectorBytes = 32;
constexpr int kGatherThreads = 256;
constexpr int kRequestsPerWarp = 64;

FailureLog failures;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// A 32-bit integer hash (two multiply-xorshift rounds): cheap next to a load, so that
// the gathers time the memory system rather than index arithmetic.
__device__ __forceinline__ std::uint32_t mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  return x ^ (x >> 16);
}

template <class Element>
__device__ __forceinline__ int first_word(const Element& e) {
  if constexpr (sizeof(Element) == 4) {
    return e;
  } else {
    return e.x;
  }
}

// Each warp makes `requests` requests; lane < active loads element
// floor(hash x elements / 2^32), uniform over the table (elements < 2^32).
template <class Element>
__global__ void __launch_bounds__(kGatherThreads)
    gather_kernel(const Element* table, std::uint32_t elements, int requests, int active, std::uint32_t seed,
                  int* out) {
  const int lane = threadIdx.x % kWarp;
  const std::uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / kWarp;
  int sum = 0;
  for (int r = 0; r < requests; ++r) {
    const std::uint32_t index = __umulhi(mix(seed ^ ((warp * requests + r) * kWarp + lane)), elements);
    if (lane < active) sum += first_word(table[index]);
  }
  out[std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x] = sum;
}

// One thread follows next[] for `steps` loads; returns cycles a load.
__global__ void chase_kernel(const std::uint32_t* next, int steps, std::uint32_t start, long long* cycles,
                             std::uint32_t* sink) {
  std::uint32_t at = start;
  for (int s = 0; s < 64; ++s) at = next[at];  // warm the path's first lines
  const long long begin = clock64();
  for (int s = 0; s < steps; ++s) at = next[at];
  const long long end = clock64();
  *cycles = end - begin;
  *sink = at;
}

constexpr std::size_t kWordsPerLine = 32;

// A random cycle through `lines` 128-byte lines (one 4-byte word used in each); `order`
// receives the lines in cycle order.
std::vector<std::uint32_t> chase_table(std::size_t lines, std::uint64_t seed, std::vector<std::uint32_t>& order) {
  order.resize(lines);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  std::vector<std::uint32_t> next(lines * kWordsPerLine, 0);
  for (std::size_t i = 0; i < lines; ++i) {
    next[order[i] * kWordsPerLine] = static_cast<std::uint32_t>(order[(i + 1) % lines] * kWordsPerLine);
  }
  return next;
}

// Median cycles a load over 5 runs of a chase through a table of `table_bytes`. With
// `revisit` every run follows the same lines (the later runs find them cached: L1 or
// L2 latency, by the table's size); without, each run starts at another point of the
// cycle, on lines no run has touched (DRAM latency).
double chase_cycles(std::size_t table_bytes, bool revisit, cunum::StreamHandle stream) {
  const std::size_t lines = std::max<std::size_t>(2, table_bytes / 128);
  std::vector<std::uint32_t> order;
  const std::vector<std::uint32_t> host = chase_table(lines, 11, order);
  const auto table = cunum::DeviceBuffer<std::uint32_t>::from_host(host, stream);
  cunum::DeviceBuffer<long long> cycles(1, stream);
  cunum::DeviceBuffer<std::uint32_t> sink(1, stream);
  constexpr int steps = 8192;
  std::vector<double> per_load;
  for (int run = 0; run < 5; ++run) {
    const std::size_t position = revisit ? 0 : (static_cast<std::size_t>(run) + 1) * (lines / 6);
    const std::uint32_t start = static_cast<std::uint32_t>(order[position % lines] * kWordsPerLine);
    chase_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(table.data(), steps, start, cycles.data(), sink.data());
    check(cudaGetLastError(), "chase_kernel");
    long long host_cycles = 0;
    cunum::memory::copy_device_to_host(&host_cycles, cycles.data(), sizeof(host_cycles), stream);
    per_load.push_back(static_cast<double>(host_cycles) / steps);
  }
  return cunum::bench::median(per_load);
}

template <class Element>
void launch_gather(const Element* table, std::uint32_t elements, int active, int blocks, int* out,
                   cunum::StreamHandle stream) {
  gather_kernel<Element><<<blocks, kGatherThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      table, elements, kRequestsPerWarp, active, 0x5EEDu, out);
  check(cudaGetLastError(), "gather_kernel");
}

int gather_blocks(const cunum::GpuMemoryParameters& p) { return p.multiprocessors * 8; }

cunum::GatherQuery gather_query(double sectors, int active, int element_bytes, int blocks) {
  cunum::GatherQuery query;
  query.table_elements = sectors * kSectorBytes / element_bytes;
  query.element_bytes = element_bytes;
  query.active_threads = active;
  query.gathers = static_cast<double>(blocks) * (kGatherThreads / kWarp) * kRequestsPerWarp * active;
  return query;
}

template <class Element>
void gather_row(const BenchOptions& options, BenchReport& report, const cunum::GpuMemoryParameters& parameters,
                double sectors, int active, cunum::StreamHandle stream) {
  const std::uint64_t elements = static_cast<std::uint64_t>(sectors) * kSectorBytes / sizeof(Element);
  cunum::DeviceBuffer<Element> table(elements, stream);
  table.fill_bytes_async(1);
  const int blocks = gather_blocks(parameters);
  cunum::DeviceBuffer<int> out(static_cast<std::size_t>(blocks) * kGatherThreads, stream);
  const double ms = cunum::bench::median_device_ms(
      options, stream, [&] { launch_gather(table.data(), static_cast<std::uint32_t>(elements), active, blocks, out.data(), stream); });
  const cunum::GatherQuery query = gather_query(sectors, active, sizeof(Element), blocks);
  const cunum::GatherEstimate e = cunum::estimate_gather(query, parameters);
  char name[96];
  std::snprintf(name, sizeof(name), "gather, %.0f sectors, %d lanes, %zu-byte elements", sectors, active,
                sizeof(Element));
  BenchRow row = cunum::bench::bench_row("access_model", name, sizeof(Element) == 4 ? "int32" : "int32x4",
                                         static_cast<std::int64_t>(query.gathers));
  row.median_ms = ms;
  row.bytes_moved = query.gathers * sizeof(Element);
  char note[200];
  std::snprintf(note, sizeof(note),
                "model: %.4f ms (measured/model %.2f), %.3f sectors/request, L1 hit %.3f, L2 hit %.3f, %d warps/SM",
                e.seconds * 1e3, ms / (e.seconds * 1e3), e.sectors_per_request, e.l1_hit_rate, e.l2_hit_rate,
                e.warps_to_hide_latency);
  row.note = note;
  report.add(row);
}

// The model's parameters: the device's, the copy bandwidth as DRAM's, the latencies
// measured by the chase.
cunum::GpuMemoryParameters measured_parameters(const cunum::bench::BenchEnvironment& environment,
                                               cunum::StreamHandle stream, bool print) {
  cunum::GpuMemoryParameters p = cunum::gpu_memory_parameters();
  p.dram_bytes_per_second = environment.copy_gbps * 1e9;
  p.l1_latency_cycles = chase_cycles(16 * 1024, true, stream);
  p.l2_latency_cycles = chase_cycles(4u << 20, true, stream);
  p.dram_latency_cycles = chase_cycles(std::size_t{1} << 30, false, stream);
  if (print) {
    std::printf("latency (dependent loads, cycles): L1 %.1f, L2 %.1f, DRAM %.1f; SM clock %.0f MHz, %d SMs, "
                "L2 %.0f MiB, copy %.0f GB/s\n\n",
                p.l1_latency_cycles, p.l2_latency_cycles, p.dram_latency_cycles, p.clock_hz / 1e6, p.multiprocessors,
                p.l2_bytes / (1 << 20), environment.copy_gbps);
  }
  return p;
}

void run(const BenchOptions& options) {
  const cunum::bench::BenchEnvironment environment = cunum::bench::measure_environment(options);
  BenchReport report(environment, options, "cunum-bench-access-model");
  if (environment.backend == cunum::Backend::cpu) {
    std::printf("no GPU: the access model's microbenchmarks need one; nothing measured\n");
    return;
  }
  cunum::Stream stream;
  const cunum::GpuMemoryParameters parameters = measured_parameters(environment, stream.get(), true);
  if (!cunum::bench::section_selected(options, "gather")) return;
  const std::vector<double> sectors = options.quick ? std::vector<double>{64, 65536}
                                                    : std::vector<double>{1, 256, 4096, 65536, 1 << 20, 1 << 23,
                                                                          1 << 25};
  for (const double m : sectors) {
    gather_row<int>(options, report, parameters, m, 32, stream.get());
    gather_row<int4>(options, report, parameters, m, 32, stream.get());
    if (!options.quick) gather_row<int>(options, report, parameters, m, 8, stream.get());
  }
}

int ncu_gather(double sectors, int active, int element_bytes) {
  cunum::Stream stream;
  const cunum::GpuMemoryParameters parameters = cunum::gpu_memory_parameters();
  const int blocks = gather_blocks(parameters);
  const cunum::GatherEstimate e =
      cunum::estimate_gather(gather_query(sectors, active, element_bytes, blocks), parameters);
  cunum::DeviceBuffer<int> out(static_cast<std::size_t>(blocks) * kGatherThreads, stream.get());
  const std::uint64_t elements = static_cast<std::uint64_t>(sectors) * kSectorBytes / element_bytes;
  if (element_bytes == 4) {
    cunum::DeviceBuffer<int> table(elements, stream.get());
    table.fill_bytes_async(1);
    launch_gather(table.data(), static_cast<std::uint32_t>(elements), active, blocks, out.data(), stream.get());
  } else {
    cunum::DeviceBuffer<int4> table(elements, stream.get());
    table.fill_bytes_async(1);
    launch_gather(table.data(), static_cast<std::uint32_t>(elements), active, blocks, out.data(), stream.get());
  }
  stream.synchronize();
  std::printf("model: sectors_per_request=%.6f l1_hit=%.6f l2_hit=%.6f table_sectors=%.0f requests=%.0f\n",
              e.sectors_per_request, e.l1_hit_rate, e.l2_hit_rate, e.table_sectors,
              static_cast<double>(blocks) * (kGatherThreads / kWarp) * kRequestsPerWarp);
  return 0;
}

// One warp a block and one block an SM (a shared-memory reservation no two blocks fit
// beside), so that each warp fills an L1 of its own: the launch's L1 misses over its
// blocks are a sample mean, over the SMs, of the segments one warp's t requests cache.
constexpr std::size_t kOneBlockPerSmSharedBytes = 160 * 1024;

int ncu_fill(double segments, int max_requests) {
  cunum::Stream stream;
  const std::uint64_t elements = static_cast<std::uint64_t>(segments) * kSectorBytes / 4;
  cunum::DeviceBuffer<int> table(elements, stream.get());
  table.fill_bytes_async(1);
  const int blocks = cunum::gpu_memory_parameters().multiprocessors;
  cunum::DeviceBuffer<int> out(static_cast<std::size_t>(blocks) * kWarp, stream.get());
  check(cudaFuncSetAttribute(gather_kernel<int>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(kOneBlockPerSmSharedBytes)),
        "cudaFuncSetAttribute");
  const cunum::CacheFillChain chain(kWarp, segments, segments);
  for (int t = 1; t <= max_requests; ++t) {
    gather_kernel<int><<<blocks, kWarp, kOneBlockPerSmSharedBytes, static_cast<cudaStream_t>(stream.get())>>>(
        table.data(), static_cast<std::uint32_t>(elements), t, kWarp, 0xF111u + t, out.data());
    check(cudaGetLastError(), "gather_kernel");
    // Misses over t requests from empty = the segments cached after them, E[i_t].
    std::printf("model: requests=%d blocks=%d expected_cached=%.6f\n", t, blocks, chain.expected_cached(t));
  }
  stream.synchronize();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  cunum::bench::BenchCommandLine command_line(
      "cunum-bench-access-model",
      "random gathers and dependent-load latencies against the access model; sections: gather (the latencies "
      "always run)");
  CLI::App& app = command_line.app();
  std::vector<long long> gather;
  std::vector<long long> fill;
  CLI::Option* gather_option =
      app.add_option("--ncu-gather", gather,
                     "For Nsight Compute, instead of the sections: one launch of a gather from a table of SECTORS "
                     "32-byte sectors (1 to 2^28) by ACTIVE lanes a warp (1 to 32) of BYTES-byte elements (4 or 16)")
          ->expected(3)
          ->type_name("SECTORS ACTIVE BYTES")
          ->check(cunum::programs::integer_in(1, 1 << 28).application_index(0))
          ->check(cunum::programs::integer_in(1, kWarp).application_index(1))
          ->check(CLI::IsMember({"4", "16"}).description("").application_index(2));
  app.add_option("--ncu-fill", fill,
                 "For Nsight Compute, instead of the sections: the cache-fill experiment on a table of M sectors "
                 "(1 to 2^28), one launch for each request count t = 1..T (1 to 1024)")
      ->expected(2)
      ->type_name("M T")
      ->check(cunum::programs::integer_in(1, 1 << 28).application_index(0))
      ->check(cunum::programs::integer_in(1, 1024).application_index(1))
      ->excludes(gather_option);
  const int status = command_line.parse(argc, argv);
  if (status >= 0) return status;
  try {
    if (!gather.empty()) {
      return ncu_gather(static_cast<double>(gather[0]), static_cast<int>(gather[1]), static_cast<int>(gather[2]));
    }
    if (!fill.empty()) return ncu_fill(static_cast<double>(fill[0]), static_cast<int>(fill[1]));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "cunum-bench-access-model: error: %s\n", error.what());
    return 1;
  }
  return cunum::bench::bench_main(command_line.options(), "cunum-bench-access-model", failures, run);
}
