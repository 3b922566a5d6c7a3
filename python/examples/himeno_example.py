"""The Himeno benchmark: Jacobi sweeps of the 19-point pressure stencil (cunum.himeno)."""

import time

from example_arrays import backend

import cunum

problem = cunum.HimenoProblem("S" if backend == "cuda" else "XS", backend=backend)
problem.iterate(1)  # warm up
start = time.perf_counter()
gosa = problem.iterate(20)  # waits for the residual
seconds = time.perf_counter() - start
print(f"grid {problem.grid}, gosa {gosa:.6e}, {cunum.himeno.himeno_flops(problem.grid, 20) / seconds / 1e9:.1f} GFLOP/s")
print("pressure at the centre:", problem.pressure()[tuple(n // 2 for n in problem.grid)])
