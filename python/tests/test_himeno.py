"""cunum.himeno on the CPU backend, held to the Jacobi sweep written here with NumPy
from the benchmark's formula (include/cunum/himeno.hpp)."""

import numpy as np
import pytest

import cunum
from conftest import require_error

pytestmark = pytest.mark.cpu


def sweep(p, a, b, c, bnd, wrk1, omega):
    """One Jacobi sweep of himenobmtxpa.c, in the dtype of p; returns (p', gosa)."""
    I = slice(1, -1)  # noqa: E741
    P, M = slice(2, None), slice(None, -2)
    at = lambda field: field[I, I, I]  # noqa: E731
    s0 = (at(a[0]) * p[P, I, I] + at(a[1]) * p[I, P, I] + at(a[2]) * p[I, I, P]
          + at(b[0]) * (p[P, P, I] - p[P, M, I] - p[M, P, I] + p[M, M, I])
          + at(b[1]) * (p[I, P, P] - p[I, M, P] - p[I, P, M] + p[I, M, M])
          + at(b[2]) * (p[P, I, P] - p[M, I, P] - p[P, I, M] + p[M, I, M])
          + at(c[0]) * p[M, I, I] + at(c[1]) * p[I, M, I] + at(c[2]) * p[I, I, M] + at(wrk1))
    ss = (s0 * at(a[3]) - p[I, I, I]) * at(bnd)
    result = p.copy()
    result[I, I, I] = p[I, I, I] + p.dtype.type(omega) * ss
    return result, float(np.sum(ss.astype(np.float64) ** 2))


def test_caller_fields_sweep_as_the_benchmark_writes_it(rng):
    shape = (9, 8, 12)
    fields = {"a": [rng.uniform(0.5, 1.0, shape) for _ in range(3)] + [np.full(shape, 1 / 6)],
              "b": [rng.uniform(-0.1, 0.1, shape) for _ in range(3)],
              "c": [rng.uniform(0.5, 1.0, shape) for _ in range(3)],
              "bnd": np.ones(shape), "wrk1": rng.uniform(-0.01, 0.01, shape), "pressure": rng.standard_normal(shape)}
    problem = cunum.HimenoProblem(shape, fields, omega=0.7, dtype="float64", backend="cpu")
    gosa = problem.iterate(3)
    p = fields["pressure"]
    for _ in range(3):
        p, expected_gosa = sweep(p, fields["a"], fields["b"], fields["c"], fields["bnd"], fields["wrk1"], 0.7)
    pressure = problem.pressure()
    assert pressure.shape == shape and pressure.dtype == np.float64
    assert np.allclose(pressure, p, rtol=1e-13, atol=1e-13)
    assert gosa == pytest.approx(expected_gosa, rel=1e-12)


def test_the_benchmark_problem_in_float32():
    problem = cunum.HimenoProblem("XS", backend="cpu")
    assert problem.grid == (32, 32, 64) and problem.dtype == "float32" and problem.backend == "cpu"
    nx = 32
    p0 = np.broadcast_to((np.arange(nx, dtype=np.float32) ** 2 / np.float32((nx - 1) ** 2))[:, None, None],
                         (32, 32, 64)).copy()
    assert np.array_equal(problem.pressure(), p0)
    ones, zeros = np.ones((32, 32, 64), np.float32), np.zeros((32, 32, 64), np.float32)
    a = [ones, ones, ones, np.full((32, 32, 64), np.float32(1.0) / np.float32(6.0))]
    expected, expected_gosa = sweep(p0, a, [zeros] * 3, [ones] * 3, ones, zeros, 0.8)
    gosa = problem.iterate(1)
    assert np.allclose(problem.pressure(), expected, rtol=1e-6, atol=1e-7)
    assert gosa == pytest.approx(expected_gosa, rel=1e-5)
    assert cunum.himeno.himeno_grid("M") == (128, 128, 256)
    assert cunum.himeno.himeno_flops((32, 32, 64), 10) == 34.0 * 30 * 30 * 62 * 10


def test_bad_arguments_are_refused_by_name():
    require_error(cunum.InvalidArgument, "argument 'grid.nx'", cunum.HimenoProblem, (2, 8, 8), backend="cpu")
    require_error(cunum.InvalidArgument, "argument 'size'", cunum.HimenoProblem, "XXL", backend="cpu")
    problem = cunum.HimenoProblem((4, 4, 4), backend="cpu")
    require_error(cunum.InvalidArgument, "argument 'sweeps'", problem.iterate, 0)
    require_error(cunum.InvalidArgument, "has no 'wrk1'", cunum.HimenoProblem, (4, 4, 4),
                  {"a": [np.ones((4, 4, 4), np.float32)] * 4, "b": [np.ones((4, 4, 4), np.float32)] * 3,
                   "c": [np.ones((4, 4, 4), np.float32)] * 3, "bnd": np.ones((4, 4, 4), np.float32)}, backend="cpu")
