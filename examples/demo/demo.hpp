#pragma once
// The demo's rows: demo.cpp runs the modules with host-callable APIs,
// demo_divergence.cu (compiled by nvcc) the device-only divergence module.

#include <functional>
#include <optional>
#include <string>

#include "cunum/core/backend.hpp"

namespace cunum::demo {

struct DemoRow {
  std::string module;
  std::string problem;
  std::optional<double> milliseconds;          // empty: not run here
  std::optional<double> gigabytes_per_second;  // empty: no bytes moved to count
  std::string check;                           // what the answer was held to, and how it came out
  bool failed = false;                         // the check failed
};

// Median wall time of `runs` calls of `work`, after one warm-up; `work` must finish
// its device work.
double median_ms(int runs, const std::function<void()>& work);

// divergence: the Collatz stopping times of 1..2^22 through the warp queue against one
// item per thread and the host's count; not run without a GPU (device code only).
DemoRow demo_divergence(Backend backend);

}  // namespace cunum::demo
