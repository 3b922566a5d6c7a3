"""Random numbers with the identical stream on the CPU and the GPU: uniform and normal
float32 and float64 fills from Philox4x32-10, MRG32k3a and cuRAND's four Sobol
sequences (the C++ cunum::RandomGenerator, include/cunum/random.hpp).

Uniforms are bit-identical on both backends and equal cuRAND's host generator of the
kind; normals agree to a few ulps. A fill starts at the generator's offset and moves
it on; set `offset` to jump (O(1) for Philox and Sobol).

    import cunum, cupy as cp
    gen = cunum.RandomGenerator("philox4x32_10", seed=42)
    x = cp.empty(1 << 24, dtype=cp.float32)
    gen.normal(x)                       # fills x in place, on CuPy's current stream
    y = gen.uniform(size=1000, like=x)  # a new CuPy array
"""

from ._cunum import RandomGenerator

KINDS = ("philox4x32_10", "mrg32k3a", "sobol32", "scrambled_sobol32", "sobol64", "scrambled_sobol64")

__all__ = ["RandomGenerator", "KINDS"]
