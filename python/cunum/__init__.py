"""cunum from Python: every module of the C++ library on NumPy, CuPy, PyTorch, JAX and
Numba arrays, without copies.

Arrays: any object with __dlpack__ or __cuda_array_interface__ (CuPy, PyTorch, JAX,
Numba) is used in place on the GPU; NumPy arrays (host memory) on the cpu backend.
Results come back as arrays of the input's library, or go into `out=` arrays.

Streams: every call that runs work takes `stream=` (an int handle, a CuPy or PyTorch
stream, or any object with __cuda_stream__); the default is the current stream of the
library owning the input. CUDA calls are asynchronous on that stream and never
synchronise unless their docstring says "Synchronizes".

Plans (Reducer, BlackScholesPricer, BrownianBridge, RandomGenerator, MonteCarloPricer,
PoissonSolver, HimenoProblem) are made once and reused, as in C++; each takes
`backend=` ('automatic', 'cpu', 'cuda') and the device it runs on.

Modules: cunum.reduce, cunum.black_scholes, cunum.brownian_bridge, cunum.random,
cunum.monte_carlo, cunum.poisson_fft, cunum.himeno, cunum.access_model.
Errors: cunum.Error and its subclasses, with the C++ messages. docs/python.md is the guide.
"""

from ._errors import CudaFailure, Error, InvalidArgument, NoDevice, NotSupported, OutOfMemory
from ._cunum import (
    DeviceProperties,
    __version__,
    cuda_available,
    current_device,
    device_count,
    device_properties,
    resolve_backend,
    synchronize,
)
from . import access_model, black_scholes, brownian_bridge, himeno, monte_carlo, poisson_fft, random, reduce
from .black_scholes import BlackScholesPricer
from .brownian_bridge import BrownianBridge
from .himeno import HimenoProblem
from .monte_carlo import MonteCarloPricer, MonteCarloSettings
from .poisson_fft import PoissonSolver
from .random import RandomGenerator
from .reduce import Reducer

__all__ = [
    "__version__",
    "Error", "InvalidArgument", "NoDevice", "CudaFailure", "OutOfMemory", "NotSupported",
    "DeviceProperties", "device_count", "cuda_available", "current_device", "device_properties",
    "resolve_backend", "synchronize",
    "reduce", "black_scholes", "brownian_bridge", "random", "monte_carlo", "poisson_fft", "himeno", "access_model",
    "Reducer", "BlackScholesPricer", "BrownianBridge", "RandomGenerator", "MonteCarloPricer", "MonteCarloSettings",
    "PoissonSolver", "HimenoProblem",
]
