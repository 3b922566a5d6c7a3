#include "bench_harness.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace cunum::bench {

namespace {

// Whether section_selected() has let a section run: a --filter that lets none is said so.
bool any_section_selected = false;

[[noreturn]] void usage_and_exit(const char* program, const char* summary, int status) {
  std::FILE* out = status == 0 ? stdout : stderr;
  std::fprintf(out,
               "%s\n\nusage: %s [--quick] [--reps N] [--json FILE] [--filter TEXT]\n"
               "  --quick        fewer sizes and runs (CI smoke)\n"
               "  --reps N       timed runs per case, median reported (default 25, --quick 5)\n"
               "  --json FILE    also write one JSON object per row to FILE\n"
               "  --filter TEXT  run only the sections whose title contains TEXT\n",
               summary, program);
  std::exit(status);
}

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &utc);
  return text;
}

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

// Doubles as JSON numbers; NaN and infinities (never expected) become null.
std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string json_string(const std::string& value) {
  std::string quoted = "\"";
  for (const char c : value) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", c);
      quoted += escape;
    } else {
      quoted += c;
    }
  }
  return quoted + "\"";
}

}  // namespace

BenchOptions parse_options(int argc, char** argv, const char* program_summary) {
  BenchOptions options;
  std::optional<int> reps;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const bool has_value = i + 1 < argc;
    if (argument == "--quick") {
      options.quick = true;
    } else if (argument == "--reps" && has_value) {
      char* end = nullptr;
      const long value = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || value < 1 || value > 100000) {
        std::fprintf(stderr, "--reps needs a positive integer, got '%s'\n", argv[i]);
        usage_and_exit(argv[0], program_summary, 2);
      }
      reps = static_cast<int>(value);
    } else if (argument == "--json" && has_value) {
      options.json_path = argv[++i];
    } else if (argument == "--filter" && has_value) {
      options.filter = argv[++i];
    } else if (argument == "--help" || argument == "-h") {
      usage_and_exit(argv[0], program_summary, 0);
    } else {
      std::fprintf(stderr, "unknown or incomplete argument '%s'\n", argument.c_str());
      usage_and_exit(argv[0], program_summary, 2);
    }
  }
  if (options.quick) {
    options.warmup_runs = 1;
    options.timed_runs = 5;
  }
  if (reps) options.timed_runs = *reps;
  // Emptied once here; every report of the run appends its rows.
  if (!options.json_path.empty()) {
    std::FILE* json = std::fopen(options.json_path.c_str(), "w");
    if (json == nullptr) {
      std::fprintf(stderr, "--json: cannot open '%s' for writing\n", options.json_path.c_str());
      usage_and_exit(argv[0], program_summary, 2);
    }
    std::fclose(json);
  }
  return options;
}

BenchEnvironment measure_environment(const BenchOptions& options) {
  BenchEnvironment environment;
  environment.backend = resolve_backend(Backend::automatic);
  environment.date_utc = today_utc();
  if (environment.backend == Backend::cuda) {
    const DeviceProperties& device = device_properties();
    environment.device_name = device.name;
    environment.multiprocessor_count = device.multiprocessor_count;
    environment.l2_cache_bytes = device.l2_cache_bytes;
    environment.copy_gbps = device_copy_gbps(options);
  } else {
    environment.device_name = "host CPU (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
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
  const BenchOptions options = parse_options(argc, argv, summary);
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
  const bool selected = options.filter.empty() || title.find(options.filter) != std::string::npos;
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
    : environment_(environment) {
  if (!options.json_path.empty()) {
    json_ = std::fopen(options.json_path.c_str(), "a");
    if (json_ == nullptr) {
      throw Error(ErrorCode::invalid_argument, "--json: cannot open '" + options.json_path + "' for appending");
    }
  }
  if (environment.backend == Backend::cuda) {
    std::printf("%s on %s, %d SMs, measured device-to-device copy %.1f GB/s, %s\n", title.c_str(),
                environment.device_name.c_str(), environment.multiprocessor_count,
                environment.copy_gbps, environment.date_utc.c_str());
  } else {
    std::printf("%s: NO CUDA DEVICE, CPU backend on %s, measured host memcpy %.1f GB/s, %s"
                " (std::chrono timings; CUDA-only cases and GPU peers skipped)\n",
                title.c_str(), environment.device_name.c_str(), environment.copy_gbps,
                environment.date_utc.c_str());
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

BenchReport::~BenchReport() {
  if (json_ != nullptr) std::fclose(json_);
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

  if (json_ == nullptr) return;
  const auto optional_number = [](const std::optional<double>& value) {
    return value ? json_number(*value) : std::string("null");
  };
  std::fprintf(json_,
               "{\"module\":%s,\"case\":%s,\"precision\":%s,\"n\":%lld,\"median_ms\":%s,\"gbps\":%s,"
               "\"pct_of_copy\":%s,\"copy_gbps\":%s,\"peer\":%s,\"peer_median_ms\":%s,"
               "\"speedup_vs_peer\":%s,\"note\":%s,\"backend\":%s,\"device\":%s,\"date\":%s}\n",
               json_string(row.module).c_str(), json_string(row.case_name).c_str(),
               json_string(row.precision).c_str(), static_cast<long long>(row.n),
               json_number(row.median_ms).c_str(), json_number(gbps).c_str(),
               optional_number(pct_of_copy).c_str(), json_number(environment_.copy_gbps).c_str(),
               row.peer ? json_string(*row.peer).c_str() : "null",
               optional_number(row.peer_median_ms).c_str(), optional_number(speedup).c_str(),
               json_string(row.note).c_str(), json_string(to_string(environment_.backend)).c_str(),
               json_string(environment_.device_name).c_str(), json_string(environment_.date_utc).c_str());
  std::fflush(json_);
}

}  // namespace cunum::bench
