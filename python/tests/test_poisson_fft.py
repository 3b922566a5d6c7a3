"""cunum.poisson_fft on NumPy arrays, held to exact solutions: sine and cosine modes
are eigenfunctions of both discretizations, so the solver returns them to rounding."""

import numpy as np
import pytest

import cunum
from conftest import require_error

pytestmark = pytest.mark.cpu


def walls(boundary):
    """The conditions at x = 0 and x = L: 'D', 'N' or None (periodic)."""
    return {"periodic": (None, None), "dirichlet": ("D", "D"), "neumann": ("N", "N"),
            "dirichlet_neumann": ("D", "N"), "neumann_dirichlet": ("N", "D")}[boundary]


def grid(n, length, boundary, centring):
    """The points: cell centres, or vertices with the Dirichlet walls' points left out."""
    i = np.arange(n)
    if centring == "cell":
        return (i + 0.5) * length / n
    if boundary == "periodic":
        return i * length / n
    lower, upper = walls(boundary)
    intervals = n + 1 - (lower == "N") - (upper == "N")
    return (i + (lower == "D")) * length / intervals


def mode(n, length, boundary, centring, m):
    """An eigenfunction of the axis and its eigenvalue -k^2 (spectral)."""
    x = grid(n, length, boundary, centring)
    if boundary == "periodic":
        k = 2 * np.pi * m / length
        return np.cos(k * x), -k * k
    lower, upper = walls(boundary)
    k = np.pi * (m if lower == upper else m + 0.5) / length
    return (np.sin(k * x) if lower == "D" else np.cos(k * x)), -k * k


@pytest.mark.parametrize("boundaries", [("periodic", "periodic"), ("dirichlet", "neumann"), ("neumann", "periodic"),
                                        ("dirichlet_neumann", "neumann_dirichlet"), ("neumann_dirichlet", "dirichlet")])
@pytest.mark.parametrize("centrings", [None, "vertex", "cell", ("cell", "vertex")])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_modes_are_solved_exactly_in_2d(boundaries, centrings, dtype):
    shape, lengths = (24, 17), (2.0, 1.5)
    if centrings is None:
        placed = tuple("vertex" if b in ("periodic", "dirichlet") else "cell" for b in boundaries)
    else:
        placed = (centrings, centrings) if isinstance(centrings, str) else centrings
    (u0, l0), (u1, l1) = (mode(shape[a], lengths[a], boundaries[a], placed[a], 3) for a in range(2))
    u = np.outer(u0, u1)
    alpha = 0.5
    f = ((l0 + l1 - alpha) * u).astype(dtype)
    solver = cunum.PoissonSolver(shape, lengths, boundaries, centrings=centrings, screening=alpha, dtype=dtype,
                                 backend="cpu")
    solution = solver.solve(f)
    assert solution.shape == shape and solution.dtype == dtype
    tolerance = 1e-11 if dtype == np.float64 else 2e-5
    assert np.allclose(solution, u, atol=tolerance * np.abs(u).max())


def test_every_boundary_and_centring_is_named():
    assert cunum.poisson_fft.BOUNDARIES == ("periodic", "dirichlet", "neumann", "dirichlet_neumann",
                                            "neumann_dirichlet")
    assert cunum.poisson_fft.CENTRINGS == ("vertex", "cell")


def test_three_dimensional_batches_and_in_place_solves(rng):
    shape = (8, 6, 10)
    solver = cunum.PoissonSolver(shape, (1.0, 1.0, 1.0), "dirichlet", batch=3, backend="cpu")
    assert solver.size == 3 * 480 and solver.batch == 3 and solver.shape == list(shape)
    f = rng.standard_normal((3, *shape))
    expected = np.stack([cunum.PoissonSolver(shape, None, "dirichlet", backend="cpu").solve(np.ascontiguousarray(p))
                         for p in f])
    solution = solver.solve(f)
    assert np.allclose(solution, expected, rtol=1e-12, atol=1e-14)
    assert solver.solve(f, out=f) is f and np.allclose(f, expected, rtol=1e-12, atol=1e-14)


def test_finite_differences_solve_the_five_point_system(rng):
    n, length = 30, 1.0
    h = length / (n + 1)
    solver = cunum.PoissonSolver((n, n), (length, length), "dirichlet", discretization="finite_difference",
                                 backend="cpu")
    u = rng.standard_normal((n, n))
    padded = np.pad(u, 1)
    laplacian = (padded[2:, 1:-1] + padded[:-2, 1:-1] + padded[1:-1, 2:] + padded[1:-1, :-2] - 4 * u) / h**2
    assert np.allclose(solver.solve(laplacian), u, atol=1e-10)


def test_singular_problems_follow_the_compatibility_rule(rng):
    f = rng.standard_normal((16, 16)) + 1.0
    projected = cunum.PoissonSolver((16, 16), backend="cpu").solve(f)
    assert abs(projected.mean()) < 1e-12
    strict = cunum.PoissonSolver((16, 16), compatibility="reject", backend="cpu")
    require_error(cunum.InvalidArgument, "argument 'rhs'", strict.solve, f)


def test_bad_arguments_are_refused_by_name():
    solver = cunum.PoissonSolver((8, 8), backend="cpu")
    require_error(cunum.InvalidArgument, "argument 'rhs' has shape (8, 9); expected (8, 8) or (1, 8, 8)",
                  solver.solve, np.zeros((8, 9)))
    require_error(cunum.InvalidArgument, "argument 'grid.boundaries'", cunum.PoissonSolver, (8, 8),
                  boundaries="robin")
    require_error(cunum.InvalidArgument, "argument 'grid.shape'", cunum.PoissonSolver, (8,), backend="cpu")
    require_error(cunum.InvalidArgument, "argument 'grid.centrings'", cunum.PoissonSolver, (8, 8),
                  centrings="staggered")
    require_error(cunum.InvalidArgument, "argument 'grid.centrings'", cunum.PoissonSolver, (8, 8),
                  centrings=("cell",), backend="cpu")
    require_error(cunum.InvalidArgument, "argument 'grid.shape' must be >= 2 on an axis with neumann walls at vertices",
                  cunum.PoissonSolver, (8, 1), None, "neumann", centrings="vertex", backend="cpu")
    data = np.zeros(65)
    require_error(cunum.InvalidArgument, "argument 'solution'", solver.solve, data[:64].reshape(8, 8),
                  data[1:].reshape(8, 8))
