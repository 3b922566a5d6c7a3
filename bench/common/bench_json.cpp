#include "bench_json.hpp"

#include <cuda_runtime.h>
#include <omp.h>

#include <cctype>
#include <ctime>
#include <fstream>
#include <sstream>

#include "bench_source_commit.hpp"  // generated: CUNUM_BENCH_SOURCE_COMMIT (bench/common/source_commit.cmake)
#include "cunum/core/device.hpp"
#include "cunum/version.hpp"

namespace cunum::bench {

namespace {

std::string now_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &utc);
  return text;
}

// A CUDA version number (1000 major + 10 minor) as "major.minor".
std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// The loaded NVIDIA kernel module's version ("550.54.15"), from its first line in
// /proc/driver/nvidia/version; empty where that file is absent.
std::string kernel_module_version() {
  std::ifstream file("/proc/driver/nvidia/version");
  std::string first_line;
  if (!std::getline(file, first_line)) return "";
  std::istringstream words(first_line);
  for (std::string word; words >> word;) {
    if (!word.empty() && std::isdigit(static_cast<unsigned char>(word.front())) &&
        word.find('.') != std::string::npos) {
      return word;
    }
  }
  return "";
}

std::string driver_text() {
  int version = 0;
  if (cudaDriverGetVersion(&version) != cudaSuccess || version == 0) return "none";
  const std::string module = kernel_module_version();
  const std::string cuda = "CUDA " + cuda_version_text(version);
  return module.empty() ? cuda : module + " (" + cuda + ")";
}

std::string runtime_text() {
  int version = 0;
  if (cudaRuntimeGetVersion(&version) != cudaSuccess) return "unknown";
  return cuda_version_text(version);
}

}  // namespace

std::string host_cpu_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string model = "unknown model";
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  return "host CPU: " + model + " (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
}

RunProvenance run_provenance(Backend backend) {
  RunProvenance provenance;
  provenance.commit = CUNUM_BENCH_SOURCE_COMMIT;
  provenance.cunum_version = CUNUM_VERSION_STRING;
  provenance.device = backend == Backend::cuda ? device_properties().name : host_cpu_name();
  provenance.driver = driver_text();
  provenance.cuda_runtime = runtime_text();
  provenance.date_utc = now_utc();
  return provenance;
}

JsonRow& add_provenance(JsonRow& row, const RunProvenance& provenance) {
  return row.text("commit", provenance.commit)
      .text("cunum_version", provenance.cunum_version)
      .text("device", provenance.device)
      .text("driver", provenance.driver)
      .text("cuda_runtime", provenance.cuda_runtime)
      .text("date", provenance.date_utc);
}

}  // namespace cunum::bench
