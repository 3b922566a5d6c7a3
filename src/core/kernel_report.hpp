#pragma once
// Internal: what a launch would run, read from the CUDA runtime without launching
// (kernels/common/launch.cuh): for the benches' resource tables and the docs.

#include <cstddef>
#include <cstdint>

namespace cunum::detail {

struct KernelReport {
  const char* kernel = "";
  int registers = 0;                  // per thread
  int local_bytes = 0;                // stack frame per thread (0: no local memory)
  int threads_per_block = 0;
  std::size_t shared_bytes = 0;       // dynamic shared memory per block
  int blocks_per_multiprocessor = 0;  // resident, from the occupancy API
  std::int64_t blocks = 0;            // grid size
};

}  // namespace cunum::detail
