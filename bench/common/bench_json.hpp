#pragma once
// What every bench's --json row carries beside its figures: where they come from
// (RunProvenance: commit, cunum version, device, driver, CUDA runtime, date). The rows
// are programs/json_row.hpp's.

#include <string>

#include "cunum/core/backend.hpp"
#include "programs/json_row.hpp"

namespace cunum::bench {

using programs::append_json_row;
using programs::JsonRow;

// What a row's figures were measured with, where and when, so that a file read later
// says it without the run's log.
struct RunProvenance {
  std::string commit;         // the source's git commit ("-dirty" when the tree differed from it), or "unknown"
  std::string cunum_version;  // CUNUM_VERSION_STRING
  std::string device;         // the GPU's name, or the host CPU's model and OpenMP threads
  std::string driver;         // the NVIDIA driver's version and the CUDA version it supports, or "none"
  std::string cuda_runtime;   // the version of the CUDA runtime the bench runs on
  std::string date_utc;       // "YYYY-MM-DD HH:MM UTC", when this was asked
};

// The provenance of a run on `backend`: the current GPU for Backend::cuda, the host CPU
// for Backend::cpu. Needs no device.
RunProvenance run_provenance(Backend backend);

// The host CPU as the rows name it: "host CPU: <model> (N OpenMP threads)".
std::string host_cpu_name();

// Adds the provenance's six keys to `row`: commit, cunum_version, device, driver,
// cuda_runtime, date.
JsonRow& add_provenance(JsonRow& row, const RunProvenance& provenance);

}  // namespace cunum::bench
