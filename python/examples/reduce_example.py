"""Sums, sums of squares, minima and maxima of arrays, in place (cunum.reduce)."""

from example_arrays import backend, host, xp

import cunum

x = xp.linspace(-1.0, 1.0, 1_000_001)
print("sum            ", float(host(cunum.reduce.sum(x))))
print("sum of squares ", float(host(cunum.reduce.sum_of_squares(x))))

reducer = cunum.Reducer("float64", backend=backend)  # a plan, reused for many reductions
result = xp.zeros(())
for op in ("min", "max"):
    reducer.reduce(op, x, result)
    print(f"{op:15}", float(host(result)))
