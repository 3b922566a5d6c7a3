"""Uniform and normal fills with the same stream on the CPU and the GPU (cunum.random)."""

from example_arrays import backend, host, xp

import cunum

generator = cunum.RandomGenerator("philox4x32_10", seed=2026, backend=backend)
u = generator.uniform(xp.empty(1 << 20, dtype=xp.float32))
print("uniform mean", float(host(u.mean())), "offset now", generator.offset)
z = generator.normal(xp.empty(1 << 20), mean=0.0, stddev=2.0)
print("normal std  ", float(host(z.std())))

sobol = cunum.RandomGenerator("scrambled_sobol32", backend=backend)
sobol.dimensions = 2
points = sobol.uniform(size=2 * 4096, like=u).reshape(2, 4096)  # dimension k's points contiguous
inside = (points[0] ** 2 + points[1] ** 2 <= 1).mean()
print("pi from 4096 Sobol points:", 4 * float(host(inside)))
