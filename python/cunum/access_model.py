"""A probabilistic model of random global-memory access on GPUs (Inuma's model,
brought to Hopper): how many segments a warp's random gather touches, how a cache
fills, and what a gather costs (the C++ functions of include/cunum/access_model.hpp).
Host code: no GPU is needed except to read the current GPU's parameters.

    import cunum
    query = cunum.access_model.GatherQuery(table_elements=1 << 18, element_bytes=4, gathers=1 << 26)
    e = cunum.access_model.estimate_gather(query)     # parameters of the current GPU, or H100 defaults
    e.sectors_per_request, e.l1_hit_rate, e.l2_hit_rate, e.seconds
"""

from ._cunum import (
    CacheFillChain,
    GatherEstimate,
    GatherQuery,
    GpuMemoryParameters,
    SegmentCountMoments,
    estimate_gather,
    gpu_memory_parameters,
    mean_fill_hit_rate,
    segment_count_distribution,
    segment_count_moments,
)

__all__ = ["segment_count_distribution", "segment_count_moments", "SegmentCountMoments", "CacheFillChain",
           "mean_fill_hit_rate", "GpuMemoryParameters", "gpu_memory_parameters", "GatherQuery", "GatherEstimate",
           "estimate_gather"]
