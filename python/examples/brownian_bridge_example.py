"""Brownian paths from normals and from the fused Sobol bridge (cunum.brownian_bridge)."""

from example_arrays import backend, host, xp

import cunum

times = [i / 32 for i in range(1, 32)]
order = cunum.brownian_bridge.make_bridge_order(times, "bisection")
bridge = cunum.BrownianBridge(0.0, 1.0, order, backend=backend)

paths = 100_000
generator = cunum.RandomGenerator(seed=1, backend=backend)
z = generator.normal(xp.empty((bridge.z_records, 1, paths)))
x = bridge.generate_paths(z)  # shape (32, 1, paths): X at t_1..t_31 and T
print("Var X_1 (pseudo-random):", float(host(x[-1].var())), "(exact 1)")

sobol = bridge.generate_sobol_paths(paths, like=z)
print("Var X_1 (Sobol):        ", float(host(sobol[-1].var())), "(exact 1)")
increments = bridge.generate_increments(z)
print("mean increment:         ", float(host(increments.mean())), "(exact 0)")
