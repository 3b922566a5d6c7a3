"""cunum.brownian_bridge on NumPy arrays, held to a bridge built here from its
definition (include/cunum/brownian_bridge.hpp) with NumPy's Cholesky factor."""

import math

import numpy as np
import pytest

import cunum
from conftest import require_error

pytestmark = pytest.mark.cpu


def reference_paths(t0, end, order, factor, start, z, fixed_end=None):
    """X at t_1..t_N, T for every path: z has shape (records, d, paths)."""
    d = len(start)
    x = {t0: np.repeat(np.asarray(start, float)[:, None], z.shape[2], axis=1)}
    record = 0
    if fixed_end is None:
        x[end] = x[t0] + math.sqrt(end - t0) * factor @ z[0]
        record = 1
    else:
        x[end] = np.repeat(np.asarray(fixed_end, float)[:, None], z.shape[2], axis=1)
    built = [t0, end]
    for t in order:
        left = max(b for b in built if b < t)
        right = min(b for b in built if b > t)
        mean = (x[left] * (right - t) + x[right] * (t - left)) / (right - left)
        x[t] = mean + math.sqrt((right - t) * (t - left) / (right - left)) * factor @ z[record]
        record += 1
        built.append(t)
    times = sorted(order) + [end]
    assert d == factor.shape[0]
    return np.stack([x[t] for t in times]), [t0] + times


@pytest.mark.parametrize("order_name", ["bisection", "ascending"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_paths_and_increments_match_the_definition(rng, order_name, dtype):
    times = sorted(rng.uniform(0.05, 1.95, 11))
    order = cunum.brownian_bridge.make_bridge_order(times, order_name)
    sigma = np.array([[1.0, 0.3], [0.3, 0.5]])
    bridge = cunum.BrownianBridge(0.0, 2.0, order, 2, sigma, "covariance", start=[0.1, -0.2], backend="cpu")
    assert bridge.z_records == 12 and bridge.output_records == 12 and not bridge.fixed_end
    z = rng.standard_normal((bridge.z_records, 2, 37)).astype(dtype)
    paths = bridge.generate_paths(z)
    assert paths.shape == (12, 2, 37) and paths.dtype == dtype
    factor = np.linalg.cholesky(sigma)
    expected, grid = reference_paths(0.0, 2.0, order, factor, [0.1, -0.2], z.astype(np.float64))
    tolerance = 1e-12 if dtype == np.float64 else 2e-5
    assert np.allclose(paths, expected, rtol=tolerance, atol=tolerance)
    increments = bridge.generate_increments(z)
    previous = np.concatenate([np.repeat(np.array([[0.1], [-0.2]])[None], 37, axis=2), expected[:-1]])
    steps = np.diff(grid)[:, None, None]
    assert np.allclose(increments, (expected - previous) / steps, rtol=tolerance * 10, atol=tolerance * 10)
    assert np.allclose(bridge.factor, factor.ravel())


def test_a_fixed_end_bridge_ends_where_it_is_pinned(rng):
    order = cunum.brownian_bridge.make_bridge_order([0.25, 0.5, 0.75], "bisection")
    bridge = cunum.BrownianBridge(0.0, 1.0, order, fixed_end=[2.0], backend="cpu")
    assert bridge.fixed_end and bridge.end_value == [2.0] and bridge.z_records == 3
    z = rng.standard_normal((3, 1, 9))
    paths = bridge.generate_paths(z)
    assert np.all(paths[-1] == 2.0)
    expected, _ = reference_paths(0.0, 1.0, order, np.eye(1), [0.0], z, fixed_end=[2.0])
    assert np.allclose(paths, expected, rtol=1e-12, atol=1e-12)


def test_layouts_transpose_the_records(rng):
    bridge = cunum.BrownianBridge(0.0, 1.0, [0.5, 0.25, 0.75], 2, backend="cpu")
    z = rng.standard_normal((4, 2, 6))
    fastest = bridge.generate_paths(z)
    contiguous = bridge.generate_paths(z, output_layout="path_contiguous")
    assert contiguous.shape == (6, 4, 2)
    assert np.array_equal(contiguous, np.transpose(fastest, (2, 0, 1)))
    z_contiguous = np.ascontiguousarray(np.transpose(z, (2, 0, 1)))
    assert np.array_equal(bridge.generate_paths(z_contiguous, z_layout="path_contiguous"), fastest)
    out = np.empty((4, 2, 6))
    assert bridge.generate_paths(z, out) is out and np.array_equal(out, fastest)


def test_sobol_paths_are_standard_brownian_paths():
    order = cunum.brownian_bridge.make_bridge_order([i / 8 for i in range(1, 8)], "bisection")
    bridge = cunum.BrownianBridge(0.0, 1.0, order, backend="cpu")
    paths = bridge.generate_sobol_paths(1 << 14)
    assert paths.shape == (8, 1, 1 << 14) and paths.dtype == np.float64
    # X_t has mean 0 and variance t; quasi-random points get both closely.
    for index, t in enumerate([i / 8 for i in range(1, 9)]):
        assert abs(paths[index, 0].mean()) < 1e-2
        assert paths[index, 0].var() == pytest.approx(t, rel=1e-2)
    increments = bridge.generate_sobol_increments(16, dtype="float32")
    assert increments.dtype == np.float32 and increments.shape == (8, 1, 16)


def test_bad_arguments_are_refused_by_name(rng):
    bridge = cunum.BrownianBridge(0.0, 1.0, [0.5], backend="cpu")
    z = rng.standard_normal((2, 1, 4))
    require_error(cunum.InvalidArgument, "argument 'z' holds 7 values", bridge.generate_paths, np.ones(7))
    require_error(cunum.InvalidArgument, "argument 'output'", bridge.generate_paths, z, z)
    require_error(cunum.InvalidArgument, "argument 'z' has dtype int64", bridge.generate_paths,
                  np.ones((2, 1, 4), np.int64))
    require_error(cunum.InvalidArgument, "argument 'options.z_layout'", bridge.generate_paths, z, z_layout="rows")
    require_error(cunum.InvalidArgument, "argument 'order'", cunum.brownian_bridge.make_bridge_order, [0.5], "random")
    require_error(cunum.InvalidArgument, "argument 'construction_order'", cunum.BrownianBridge, 0.0, 1.0, [1.5],
                  backend="cpu")
    steps = bridge.construction_steps()
    assert len(steps) == 1 and steps[0].time_index == 1 and steps[0].std_dev == pytest.approx(0.5)
