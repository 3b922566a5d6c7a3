#pragma once
// Tuning sweep: policies of the production single-pass kernel (block size, blocks
// per SM, 16-byte loads in flight) for float sums, instantiated from the library's
// kernel template.

#include <cstdint>
#include <string>
#include <vector>

#include "cunum/core/device_buffer.hpp"
#include "cunum/core/stream.hpp"
#include "kernels/reduce/reduce_launch.hpp"

namespace cunum::bench {

struct ReduceVariant {
  std::string name;
  int max_blocks_per_multiprocessor;  // sizes the partials the launch may write
  // Sums data[0, n) into *result.
  void (*launch)(const float* data, std::int64_t n, float* result, const detail::ReduceScratch& scratch,
                 StreamHandle stream);
};

std::vector<ReduceVariant> reduce_sum_variants();

// A workspace of the production kernel outside any Reducer, on the current device,
// for launches the bench makes itself: partials for blocks_per_multiprocessor blocks
// per SM, and the ticket counter zeroed on `stream`.
struct BareReduceWorkspace {
  BareReduceWorkspace(int blocks_per_multiprocessor, StreamHandle stream);
  DeviceBuffer<double> partials;
  DeviceBuffer<unsigned int> blocks_done;
  detail::ReduceScratch scratch;
};

}  // namespace cunum::bench
