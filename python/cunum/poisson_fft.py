"""Poisson and screened Poisson equations on 2-D and 3-D grids, solved by FFTs:
(Laplacian - alpha) u = f with a boundary condition per axis (periodic, Dirichlet,
Neumann, or Dirichlet at one wall and Neumann at the other) and the walls at cell
faces or at grid points (a centring per axis), spectral or second-order
finite-difference eigenvalues, float32 and float64,
one problem or a batch per call (the C++ cunum::PoissonSolver,
include/cunum/poisson_fft.hpp).

    import cunum, cupy as cp
    solver = cunum.PoissonSolver((4096, 4096), lengths=(1.0, 1.0),
                                 boundaries=("dirichlet", "periodic"), dtype="float32")
    f = cp.random.standard_normal((4096, 4096), dtype=cp.float32)
    u = solver.solve(f)                 # a new CuPy array
    solver.solve(f, out=f)              # in place

Arrays are C-ordered with the last axis fastest; a batch is (batch, *shape).
"""

from ._cunum import PoissonSolver

BOUNDARIES = ("periodic", "dirichlet", "neumann", "dirichlet_neumann", "neumann_dirichlet")
CENTRINGS = ("vertex", "cell")
DISCRETIZATIONS = ("spectral", "finite_difference")

__all__ = ["PoissonSolver", "BOUNDARIES", "CENTRINGS", "DISCRETIZATIONS"]
