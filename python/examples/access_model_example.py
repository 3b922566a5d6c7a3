"""What a random gather costs on the GPU in hand, or on an H100 without one (cunum.access_model)."""

import cunum

model = cunum.access_model
parameters = model.gpu_memory_parameters()
print(f"{parameters.multiprocessors} SMs, L2 {parameters.l2_bytes / 2**20:.0f} MiB")
moments = model.segment_count_moments(32, 1 << 20)
print(f"a warp's random gather touches {moments.mean:.3f} sectors on average")
for table in (1 << 12, 1 << 18, 1 << 26):
    estimate = model.estimate_gather(model.GatherQuery(table_elements=table, element_bytes=4, gathers=1 << 26),
                                     parameters)
    print(f"table of {table:>9} floats: L1 hit {estimate.l1_hit_rate:.2f}, L2 hit {estimate.l2_hit_rate:.2f}, "
          f"{estimate.seconds * 1e3:.3f} ms")
