"""The array library the examples run on: CuPy on the GPU when there is one (and CuPy),
else NumPy on the CPU backend. Imported by the other scripts of this folder."""

import cunum

try:
    if not cunum.cuda_available():
        raise ImportError("no CUDA device")
    import cupy as xp

    backend = "cuda"
except ImportError:
    import numpy as xp

    backend = "cpu"


def host(array):
    """An array of either library as NumPy, for printing."""
    return array.get() if hasattr(array, "get") else array


print(f"cunum {cunum.__version__}: {backend} backend on {xp.__name__} arrays")
