#include "bench_harness.hpp"

#include <omp.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>

#include "bench_command_line.hpp"

namespace cunum::bench {

namespace {

// Whether section_selected() has let a section run: a --filter that lets none is said so.
bool any_section_selected = false;

// Device-to-device cudaMemcpyAsync of options.copy_bytes; bytes read + written per time.
double device_copy_gbps(const BenchOptions& options) {
  Stream stream;
  DeviceBuffer<unsigned char> source(options.copy_bytes, stream);
  DeviceBuffer<unsigned char> target(options.copy_bytes, stream);
  source.fill_bytes_async(1);
  const double ms = median_device_ms(options, stream, [&] {
    memory::copy_device_to_device_async(target.data(), source.data(), options.copy_bytes, stream);
  });
  return 2.0 * static_cast<double>(options.copy_bytes) / (ms * 1e6);
}

// The CPU backend's yardstick: memcpy split over the OpenMP threads that the
// backend itself uses, so that the figure bounds what a parallel reduction can reach.
double host_copy_gbps(const BenchOptions& options) {
  const std::size_t bytes = options.quick ? options.copy_bytes / 8 : options.copy_bytes;
  std::vector<unsigned char> source(bytes, 1);
  std::vector<unsigned char> target(bytes, 0);
  const double ms = median_host_ms(options, [&] {
#pragma omp parallel
    {
      const std::size_t threads = static_cast<std::size_t>(omp_get_num_threads());
      const std::size_t thread = static_cast<std::size_t>(omp_get_thread_num());
      const std::size_t begin = bytes * thread / threads;
      const std::size_t end = bytes * (thread + 1) / threads;
      std::memcpy(target.data() + begin, source.data() + begin, end - begin);
    }
  });
  return 2.0 * static_cast<double>(bytes) / (ms * 1e6);
}

}  // namespace

BenchEnvironment measure_environment(const BenchOptions& options) {
  BenchEnvironment environment;
  environment.backend = resolve_backend(Backend::automatic);
  environment.provenance = run_provenance(environment.backend);
  if (environment.backend == Backend::cuda) {
    const DeviceProperties& device = device_properties();
    environment.multiprocessor_count = device.multiprocessor_count;
    environment.l2_cache_bytes = device.l2_cache_bytes;
    environment.copy_gbps = device_copy_gbps(options);
  } else {
    environment.copy_gbps = host_copy_gbps(options);
  }
  return environment;
}

void FailureLog::fail(const std::string& message) {
  ++failures_;
  for (std::FILE* stream : {stderr, stdout}) {
    std::fprintf(stream, "\n!!! VERIFICATION FAILED: %s\n\n", message.c_str());
    std::fflush(stream);
  }
}

int bench_main(int argc, char** argv, const char* program, const char* summary, const FailureLog& failures,
               const std::function<void(const BenchOptions&)>& run) {
  BenchCommandLine command_line(program, summary);
  const int status = command_line.parse(argc, argv);
  if (status >= 0) return status;
  return bench_main(command_line.options(), program, failures, run);
}

int bench_main(const BenchOptions& options, const char* program, const FailureLog& failures,
               const std::function<void(const BenchOptions&)>& run) {
  try {
    run(options);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: error: %s\n", program, error.what());
    return 1;
  }
  if (!options.filter.empty() && !any_section_selected) {
    std::printf("\n%s: --filter '%s' matched no section that runs here: nothing measured\n", program,
                options.filter.c_str());
  }
  if (failures.failures() > 0) {
    std::fprintf(stderr, "\n!!! %s: %d VERIFICATION FAILURE(S); figures above are not valid\n", program,
                 failures.failures());
    return 1;
  }
  return 0;
}

bool section_selected(const BenchOptions& options, const std::string& title) {
  const auto lower = [](std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
  };
  const bool selected = options.filter.empty() || lower(title).find(lower(options.filter)) != std::string::npos;
  any_section_selected = any_section_selected || selected;
  return selected;
}

double median(std::vector<double> values) {
  if (values.empty()) return std::nan("");
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle), values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
  return 0.5 * (lower + upper);
}

double median_host_ms(const BenchOptions& options, const std::function<void()>& run) {
  for (int warmup = 0; warmup < options.warmup_runs; ++warmup) run();
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(options.timed_runs));
  for (int timed = 0; timed < options.timed_runs; ++timed) {
    const auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return median(std::move(times));
}

std::size_t rotation_copies(std::size_t bytes, std::size_t l2_cache_bytes, double factor) {
  if (bytes == 0) return 1;
  const double needed = factor * static_cast<double>(l2_cache_bytes) / static_cast<double>(bytes);
  return static_cast<std::size_t>(std::floor(needed)) + 1;
}

BenchRow bench_row(const std::string& module, const std::string& case_name, const std::string& precision,
                   std::int64_t n) {
  BenchRow row;
  row.module = module;
  row.case_name = case_name;
  row.precision = precision;
  row.n = n;
  return row;
}

BenchReport::BenchReport(const BenchEnvironment& environment, const BenchOptions& options,
                         const std::string& title)
    : environment_(environment), json_path_(options.json_path) {
  const RunProvenance& run = environment.provenance;
  if (environment.backend == Backend::cuda) {
    std::printf("%s on %s, %d SMs, measured device-to-device copy %.1f GB/s, %s\n", title.c_str(),
                run.device.c_str(), environment.multiprocessor_count, environment.copy_gbps, run.date_utc.c_str());
  } else {
    std::printf("%s: NO CUDA DEVICE, CPU backend on %s, measured host memcpy %.1f GB/s, %s"
                " (std::chrono timings; CUDA-only cases and GPU peers skipped)\n",
                title.c_str(), run.device.c_str(), environment.copy_gbps, run.date_utc.c_str());
    std::printf("%% of copy is left blank: CPU inputs are not rotated past the caches, so a row may run from "
                "cache, faster than any copy through memory\n");
  }
  std::printf("\nmedian of %d timed runs after %d warm-up runs%s; GB/s counts each input element "
              "read once and the result written once\n\n",
              options.timed_runs, options.warmup_runs,
              environment.backend == Backend::cuda ? ", inputs rotated past L2" : "");
  std::printf("| module | case | precision | n | median ms | GB/s | %% of copy | copy GB/s | peer | "
              "peer median ms | speed-up vs peer | note |\n"
              "|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|---|\n");
  std::fflush(stdout);
}

void BenchReport::add(const BenchRow& row) {
  const double gbps = row.bytes_moved / (row.median_ms * 1e6);
  // The GPU's inputs are rotated past L2, so its rows and the copy both stream from
  // memory; the CPU's are not, and a row served from cache would read more than 100%.
  std::optional<double> pct_of_copy;
  if (environment_.backend == Backend::cuda) pct_of_copy = 100.0 * gbps / environment_.copy_gbps;
  std::optional<double> speedup;
  if (row.peer_median_ms) speedup = *row.peer_median_ms / row.median_ms;

  char pct[32] = "";
  char peer_ms[32] = "";
  char peer_speedup[32] = "";
  if (pct_of_copy) std::snprintf(pct, sizeof pct, "%.1f", *pct_of_copy);
  if (row.peer_median_ms) std::snprintf(peer_ms, sizeof peer_ms, "%.4f", *row.peer_median_ms);
  if (speedup) std::snprintf(peer_speedup, sizeof peer_speedup, "%.2fx", *speedup);
  std::printf("| %s | %s | %s | %lld | %.4f | %.1f | %s | %.1f | %s | %s | %s | %s |\n",
              row.module.c_str(), row.case_name.c_str(), row.precision.c_str(),
              static_cast<long long>(row.n), row.median_ms, gbps, pct, environment_.copy_gbps,
              row.peer.value_or("").c_str(), peer_ms, peer_speedup, row.note.c_str());
  std::fflush(stdout);

  if (json_path_.empty()) return;
  JsonRow json;
  json.text("module", row.module)
      .text("case", row.case_name)
      .text("precision", row.precision)
      .integer("n", row.n)
      .number("median_ms", row.median_ms)
      .number("gbps", gbps)
      .number("pct_of_copy", pct_of_copy)
      .number("copy_gbps", environment_.copy_gbps)
      .text("peer", row.peer)
      .number("peer_median_ms", row.peer_median_ms)
      .number("speedup_vs_peer", speedup)
      .text("note", row.note)
      .text("backend", std::string(to_string(environment_.backend)));
  append_json_row(json_path_, add_provenance(json, environment_.provenance));
}

}  // namespace cunum::bench
