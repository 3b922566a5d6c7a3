// The access model answering the gather question for two tables: a hash table probed
// by 2^26 random keys (16-byte buckets, 2^24 of them: 256 MiB, far past L2) and a 64 KiB
// lookup table read at random (it fits L1). For each: sectors a warp request touches,
// hit rates, DRAM bytes, the time, and the warps an SM needs to hide the latency.

#include <cstdio>

#include "cunum/access_model.hpp"
#include "cunum/core/device.hpp"

namespace {

void answer(const char* what, const cunum::GatherQuery& query, const cunum::GpuMemoryParameters& parameters) {
  const cunum::GatherEstimate e = cunum::estimate_gather(query, parameters);
  std::printf("%s\n", what);
  std::printf("  %.2f sectors per warp request (of %.0f in the table), L1 hit %.3f, L2 hit %.3f\n",
              e.sectors_per_request, e.table_sectors, e.l1_hit_rate, e.l2_hit_rate);
  std::printf("  %.1f MB from DRAM, %.3f ms, mean load latency %.0f cycles\n", e.dram_bytes / 1e6, e.seconds * 1e3,
              e.latency_cycles);
  std::printf("  %d warps per SM hide the latency: launch %d blocks of %d threads\n\n", e.warps_to_hide_latency,
              e.blocks, e.block_threads);
}

}  // namespace

int main() {
  // The GPU in hand where there is one, else the H100 defaults; the latencies are the
  // H100's measurements either way (the bench measures another device's).
  const cunum::GpuMemoryParameters parameters = cunum::gpu_memory_parameters();
  if (cunum::device_count() > 0) {
    std::printf("%s: ", cunum::device_properties().name.c_str());
  } else {
    std::printf("no CUDA device found: the model's H100 SXM defaults, ");
  }
  std::printf("%d SMs, L2 %.0f MiB, DRAM %.0f GB/s; load latencies measured on an H100\n\n",
              parameters.multiprocessors, parameters.l2_bytes / (1024 * 1024),
              parameters.dram_bytes_per_second / 1e9);

  cunum::GatherQuery probe;
  probe.table_elements = 1 << 24;
  probe.element_bytes = 16;
  probe.gathers = 1 << 26;
  answer("hash-table probe: 2^26 keys into 2^24 16-byte buckets", probe, parameters);

  cunum::GatherQuery lookup;
  lookup.table_elements = 16384;
  lookup.element_bytes = 4;
  lookup.gathers = 1 << 26;
  answer("lookup table: 2^26 reads of a 64 KiB table of floats", lookup, parameters);
}
