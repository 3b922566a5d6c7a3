"""Brownian bridge sample paths and scaled increments (after NAG g05xa..g05xe and du
Toit, "Brownian bridge on GPUs"; the C++ cunum::BrownianBridge,
include/cunum/brownian_bridge.hpp).

Times t0 < t_1 < ... < t_N < T are built in a construction order (make_bridge_order:
bisection, ascending, important times first): X_T first, then each time between its
nearest already-built neighbours. Normals come from the caller (generate_paths,
generate_increments: any library's arrays, in place) or, fused, from a Sobol sequence
that never touches memory on the GPU (generate_sobol_paths, generate_sobol_increments).

Layouts: a record is one d-vector, a path has R records; element j of record r of path
p lives at (r d + j) paths + p ('path_fastest', coalesced on the GPU: arrays of shape
(R, d, paths)) or (p R + r) d + j ('path_contiguous': shape (paths, R, d)).

    import cunum, cupy as cp
    order = cunum.brownian_bridge.make_bridge_order([i / 64 for i in range(1, 64)], "bisection")
    bridge = cunum.BrownianBridge(0.0, 1.0, order)
    z = cp.random.standard_normal((bridge.z_records, 1, 100_000))
    paths = bridge.generate_paths(z)                 # (64, 1, 100000) CuPy array
    sobol = bridge.generate_sobol_paths(100_000, like=z)

No call works in place: an output overlapping `z` is refused.
"""

from ._cunum import BridgeConstructionStep, BrownianBridge, make_bridge_order

ORDERS = ("bisection", "ascending", "important_first")
LAYOUTS = ("path_fastest", "path_contiguous")
STRATEGIES = ("automatic", "constant_memory", "vectorized", "prefetch", "shared_memory", "shared_memory_reuse",
              "shared_memory_reuse_prefetch")
SEQUENCES = ("sobol32", "scrambled_sobol32", "sobol64", "scrambled_sobol64")

__all__ = ["BrownianBridge", "BridgeConstructionStep", "make_bridge_order", "ORDERS", "LAYOUTS", "STRATEGIES",
           "SEQUENCES"]
