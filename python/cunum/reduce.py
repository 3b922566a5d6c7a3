"""Parallel reduction: sum, sum of squares, min and max of float32, float64, int32 and
int64 arrays (the C++ cunum::Reducer, include/cunum/reduce.hpp).

Float inputs are accumulated in double and rounded once; int32 reductions return
int64. min and max follow fmin/fmax: NaN elements are ignored unless every element is
NaN. Results are bit-identical run to run on a given device (or CPU thread count).

    import cunum, numpy as np
    x = np.arange(1000, dtype=np.float32)
    cunum.reduce.sum(x)              # a 0-d NumPy array: 499500.0
    r = cunum.Reducer("float32", backend="cpu")
    r.reduce("max", x)               # reuse the plan for many reductions
"""

from ._cunum import Reducer
from ._cunum import reduce as _reduce

reduce = _reduce


def sum(data, out=None, *, backend=None, stream=None):  # noqa: A001 (the reduction's name)
    """The sum of every element of `data` (0 for none), as cunum.reduce.reduce('sum', ...):
    a 0-d array of data's library, or `out`. Synchronizes: never."""
    return _reduce("sum", data, out, backend=backend, stream=stream)


def sum_of_squares(data, out=None, *, backend=None, stream=None):
    """The sum of the squares of every element of `data`, as reduce('sum_of_squares', ...).
    Synchronizes: never."""
    return _reduce("sum_of_squares", data, out, backend=backend, stream=stream)


def min(data, out=None, *, backend=None, stream=None):  # noqa: A001
    """The smallest element of `data` (at least one), as fmin, as reduce('min', ...).
    Synchronizes: never."""
    return _reduce("min", data, out, backend=backend, stream=stream)


def max(data, out=None, *, backend=None, stream=None):  # noqa: A001
    """The largest element of `data` (at least one), as fmax, as reduce('max', ...).
    Synchronizes: never."""
    return _reduce("max", data, out, backend=backend, stream=stream)


__all__ = ["Reducer", "reduce", "sum", "sum_of_squares", "min", "max"]
