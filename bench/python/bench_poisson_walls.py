#!/usr/bin/env python3
"""bench_poisson_walls: cunum's cell-centred wall solves called from Python, beside
the same solve written with CuPy's dstn / dctn (types 2 and 3, the only real-to-real
transforms CuPy has): issue 33's peer line (target: cunum at least 3x faster). Needs
the cunum package (pip install ./python, or PYTHONPATH=build/python) and CuPy.

    python3 bench/python/bench_poisson_walls.py     # prints a markdown table

The CuPy solve of a 2-D grid with Dirichlet (Neumann) walls at cell faces is
dstn(f, type=2) (dctn), a division by the eigenvalues of the spectral Laplacian with
the transforms' 1 / (2n)^2 folded in, then dstn(., type=3) (dctn). cunum's is one
PoissonSolver.solve with boundaries 'dirichlet' ('neumann') and centrings 'cell'.
Both run on CuPy's current stream, interleaved call by call; device times are CUDA
events around each call, the median of 25 after 5 warm-up calls. cunum's answer is
checked against CuPy's outside the timing.
"""

import sys

import cupy as cp
import cupyx.scipy.fft as cufft
import numpy as np

import cunum
from device_timing import interleaved_ms


def cupy_solver(n, boundary, dtype):
    """The CuPy solve of an n x n unit square with walls at cell faces."""
    first = 1 if boundary == "dirichlet" else 0  # DST-II mode k is wavenumber pi (k + 1)
    wavenumbers = np.pi * (np.arange(n) + first)
    eigenvalues = -(wavenumbers[:, None] ** 2 + wavenumbers[None, :] ** 2) * (2 * n) ** 2
    eigenvalues[eigenvalues == 0] = np.inf  # Neumann's constant mode: projected away
    inverse = cp.asarray(1.0 / eigenvalues, dtype=dtype)
    forward, backward = (cufft.dstn, cufft.dstn) if boundary == "dirichlet" else (cufft.dctn, cufft.dctn)

    def solve(f):
        return backward(forward(f, type=2) * inverse, type=3)

    return solve


def main():
    stream = cp.cuda.Stream(non_blocking=True)
    rows = []
    failed = False
    with stream:
        for boundary in ("dirichlet", "neumann"):
            for dtype, tolerance in ((np.float32, 2e-4), (np.float64, 1e-10)):
                n = 4096
                f = cp.random.default_rng(7).standard_normal((n, n), dtype=dtype)
                f -= f.mean()  # compatible with Neumann walls
                ours = cunum.PoissonSolver((n, n), (1.0, 1.0), boundary, centrings="cell",
                                           dtype=np.dtype(dtype).name, backend="cuda")
                out = cp.empty_like(f)
                theirs = cupy_solver(n, boundary, dtype)
                expected = theirs(f)
                ours.solve(f, out=out)
                error = float(cp.abs(out - expected).max() / cp.abs(expected).max())
                if not error <= tolerance:
                    failed = True
                ours_ms, theirs_ms = interleaved_ms([lambda: ours.solve(f, out=out), lambda: theirs(f)], stream)
                rows.append((f"{boundary} at cells {n}^2", np.dtype(dtype).name, ours_ms, theirs_ms, error,
                             ours.workspace_bytes / f.nbytes))
    print("| case | dtype | cunum ms | CuPy dstn/dctn ms | CuPy / cunum (target >= 3) | max rel. difference |"
          " cunum workspace / input |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for case, dtype, ours_ms, theirs_ms, error, workspace in rows:
        print(f"| {case} | {dtype} | {ours_ms:.3f} | {theirs_ms:.3f} | {theirs_ms / ours_ms:.2f}x | {error:.1e} |"
              f" {workspace:.2f}x |")
    if failed:
        print("FAILED: cunum and CuPy disagree beyond the tolerance")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
