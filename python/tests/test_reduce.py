"""cunum.reduce on NumPy arrays, held to math.fsum and exact integer sums."""

import math

import numpy as np
import pytest

import cunum
from conftest import require_error

pytestmark = pytest.mark.cpu

SIZES = [0, 1, 2, 255, 256, 257, 1000, 65537]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_sums_are_within_the_documented_bound(rng, n, dtype):
    x = rng.standard_normal(n).astype(dtype)
    exact = math.fsum(float(v) for v in x)
    absolute = math.fsum(abs(float(v)) for v in x)
    total = cunum.reduce.sum(x, backend="cpu")
    assert total.dtype == dtype and total.shape == ()
    # D <= 16 + 4 + ceil(log2(n / 256 + 1)) + threads (include/cunum/reduce.hpp); 64 threads at most here.
    bound = (16 + 4 + math.ceil(math.log2(n / 256 + 1)) + 64) * 2.0**-53 * absolute
    bound += abs(exact) * (2.0**-24 if dtype == np.float32 else 0.0)
    assert abs(float(total) - exact) <= bound + 1e-300
    squares = cunum.reduce.sum_of_squares(x, backend="cpu")
    assert float(squares) == pytest.approx(math.fsum(float(v) ** 2 for v in x), rel=1e-6, abs=1e-30)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_sums_are_exact_and_int32_widens(rng, dtype):
    x = rng.integers(-(2**30), 2**30, size=100_003).astype(dtype)
    total = cunum.reduce.sum(x, backend="cpu")
    assert total.dtype == np.int64
    assert int(total) == sum(int(v) for v in x)


def test_min_and_max_follow_fmin_and_fmax(rng):
    x = rng.standard_normal(1001)
    x[17] = np.nan
    assert float(cunum.reduce.min(x)) == np.nanmin(x)
    assert float(cunum.reduce.max(x)) == np.nanmax(x)
    assert math.isnan(float(cunum.reduce.max(np.full(5, np.nan))))
    require_error(cunum.InvalidArgument, "'n'", cunum.reduce.min, np.ones(0))


def test_a_reducer_is_reused_and_writes_into_out(rng):
    reducer = cunum.Reducer("float64", backend="cpu")
    out = np.zeros(())
    for _ in range(3):
        x = rng.standard_normal(4097)
        assert reducer.reduce("sum", x, out) is out
        assert float(out) == pytest.approx(math.fsum(x), abs=1e-12)
    assert reducer.dtype == "float64" and reducer.backend == "cpu"


def test_any_shape_reduces_all_its_elements():
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    assert float(cunum.reduce.sum(x)) == 276.0
    assert float(cunum.reduce.reduce("max", x)) == 23.0
