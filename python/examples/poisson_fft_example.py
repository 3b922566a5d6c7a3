"""A 2-D Poisson problem with walls, solved by FFT and checked against its exact solution (cunum.poisson_fft)."""

from example_arrays import backend, host, xp

import cunum

n0, n1 = 256, 128
solver = cunum.PoissonSolver((n0, n1), (1.0, 2.0), ("dirichlet", "periodic"), backend=backend)
x = (xp.arange(n0) + 1) / (n0 + 1)
y = xp.arange(n1) * 2.0 / n1
u = xp.sin(xp.pi * x)[:, None] * xp.cos(xp.pi * y)[None, :]  # zero on the walls x = 0, 1; periodic in y
f = -2 * xp.pi**2 * u
solution = solver.solve(f)
print("max error:", float(host(abs(solution - u).max())))
solver.solve(f, out=f)  # in place
print("in place equal:", bool(host((f == solution).all())))
