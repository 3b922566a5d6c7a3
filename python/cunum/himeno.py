"""The Himeno benchmark's problem: point-Jacobi sweeps of the 19-point
general-coordinate pressure-Poisson stencil (RIKEN's Himeno benchmark, C edition) on
the CPU, one GPU or several (slabs along i) (the C++ cunum::HimenoProblem,
include/cunum/himeno.hpp).

    import cunum
    problem = cunum.HimenoProblem("M")          # 128 x 128 x 256, float32
    gosa = problem.iterate(100)                  # waits for the residual
    p = problem.pressure()                       # a NumPy array (nx, ny, nz)
    flops = cunum.himeno.himeno_flops(problem.grid, 100)

iterate() and pressure() synchronise: the residual and the pressure come back to the host.
"""

from ._cunum import HimenoProblem, himeno_flops, himeno_grid

SIZES = ("XS", "S", "M", "L", "XL")

__all__ = ["HimenoProblem", "himeno_grid", "himeno_flops", "SIZES"]
