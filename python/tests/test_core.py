"""The package itself: its version, the error classes and where plans run."""

import pathlib
import re

import numpy as np
import pytest

import cunum
from conftest import require_error, require_torch_import_routes_agree

pytestmark = pytest.mark.cpu


def test_version_is_the_cmake_project_version():
    cmake = (pathlib.Path(__file__).resolve().parents[2] / "CMakeLists.txt").read_text()
    assert cunum.__version__ == re.search(r"project\(cunum VERSION ([0-9.]+)", cmake).group(1)


def test_error_classes_carry_the_cpp_codes():
    assert issubclass(cunum.InvalidArgument, cunum.Error) and issubclass(cunum.InvalidArgument, ValueError)
    assert issubclass(cunum.OutOfMemory, MemoryError)
    for cls, code in [(cunum.InvalidArgument, "invalid_argument"), (cunum.NoDevice, "no_device"),
                      (cunum.CudaFailure, "cuda_failure"), (cunum.OutOfMemory, "out_of_memory"),
                      (cunum.NotSupported, "not_supported")]:
        assert cls.code == code


def test_invalid_argument_names_the_routine_and_the_argument():
    error = require_error(cunum.InvalidArgument, "argument 'placement.backend'", cunum.Reducer, "float32",
                          backend="gpu")
    assert str(error).startswith("cunum [invalid_argument]: cunum::Reducer: ")
    assert error.code == "invalid_argument"


@pytest.mark.skipif(cunum.device_count() > 0, reason="the machine has a CUDA device")
def test_no_device_is_raised_for_cuda_without_a_device():
    require_error(cunum.NoDevice, "no CUDA device", cunum.Reducer, "float32", backend="cuda")
    require_error(cunum.NoDevice, "no CUDA device", cunum.resolve_backend, "cuda")
    assert cunum.resolve_backend("automatic") == "cpu"


def test_out_of_memory_is_raised_before_allocating():
    # 2^40 points of float64: beyond this machine's memory, refused before any allocation.
    require_error(cunum.OutOfMemory, "needs", cunum.PoissonSolver, (1 << 20, 1 << 20), backend="cpu")


def test_not_supported_names_the_limit():
    bridge = cunum.BrownianBridge(0.0, 1.0, [0.5], backend="cpu")
    require_error(cunum.NotSupported, "offset", bridge.generate_sobol_paths, 4, sequence="sobol64", offset=1 << 33)


def test_arrays_are_checked_with_named_errors():
    reducer = cunum.Reducer("float64", backend="cpu")
    require_error(cunum.InvalidArgument, "argument 'data' has dtype float32; expected float64", reducer.reduce,
                  "sum", np.ones(3, np.float32))
    require_error(cunum.InvalidArgument, "argument 'data' is not C-contiguous", reducer.reduce, "sum",
                  np.ones((4, 4))[:, ::2])
    require_error(cunum.InvalidArgument, "argument 'data' is not an array", reducer.reduce, "sum", [1.0, 2.0])
    require_error(cunum.InvalidArgument, "argument 'result' has shape (1,); expected ()", reducer.reduce, "sum",
                  np.ones(3), np.zeros(1))
    read_only = np.zeros(())
    read_only.flags.writeable = False
    require_error(cunum.InvalidArgument, "argument 'result' is read-only", reducer.reduce, "sum", np.ones(3),
                  read_only)
    require_error(cunum.InvalidArgument, "argument 'op' is not one of ReduceOp's values", reducer.reduce, "mean",
                  np.ones(3))
    require_error(cunum.InvalidArgument, "argument 'dtype'", cunum.Reducer, "complex64", backend="cpu")


def test_cpu_backend_ignores_the_stream_argument():
    reducer = cunum.Reducer("float64", backend="cpu")
    assert reducer.reduce("sum", np.ones(4), stream=12345) == 4.0


def test_a_stream_of_another_kind_is_refused_by_name():
    with pytest.raises(cunum.InvalidArgument, match="argument 'stream'"):
        cunum.Reducer("float64", backend="cpu", stream="default")


def test_stubs_and_docstrings_are_there():
    stub = pathlib.Path(cunum.__file__).with_name("_cunum.pyi")
    assert stub.exists() and "class BlackScholesPricer" in stub.read_text()
    assert "Synchronizes" in cunum.BlackScholesPricer.price.__doc__
    assert "Black-Scholes-Merton" in cunum.black_scholes.__doc__


def test_cuda_array_interface_objects_are_read_and_their_device_checked():
    class DeviceOnly:  # a Numba-like array: only __cuda_array_interface__ (never dereferenced here)
        __cuda_array_interface__ = {"data": (0x7F0000000000, True), "shape": (4,), "typestr": "<f8",
                                    "strides": None, "version": 3}

    reducer = cunum.Reducer("float64", backend="cpu")
    require_error(cunum.InvalidArgument, "argument 'data' is memory of CUDA device", reducer.reduce, "sum",
                  DeviceOnly())

    class ReadOnlyScalar:
        __cuda_array_interface__ = {"data": (0x7F0000000000, True), "shape": (), "typestr": "<f8", "version": 3}

    require_error(cunum.InvalidArgument, "argument 'result' is read-only", reducer.reduce, "sum", np.ones(2),
                  ReadOnlyScalar())


def test_pytorch_cpu_tensors_read_from_their_attributes_agree_with_dlpack():
    # A torch.Tensor in host memory is read from its attributes (dtype, shape,
    # data_ptr()), not through __dlpack__, which must export the same view.
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    require_torch_import_routes_agree(torch, "cpu", "cpu", lambda tensor: tensor.__dlpack__())
    x = torch.arange(1024, dtype=torch.float64)
    out = torch.zeros((), dtype=torch.float64)
    assert cunum.Reducer("float64", backend="cpu").reduce("sum", x[1:], out) is out
    assert float(out) == 523776.0


def test_jax_arrays_are_read_and_refused_as_outputs():
    # JAX arrays come in through __dlpack__ (here host memory, the cpu backend). They are
    # immutable, but their DLPack export does not say so: given as out=, one would be
    # written behind JAX's back, so every output refuses them by name, before any work.
    jax = pytest.importorskip("jax", reason="JAX is not installed")
    rng = np.random.default_rng(20261127)
    host = {"spot": rng.uniform(50, 150, 1001), "strike": rng.uniform(50, 150, 1001),
            "expiry": rng.uniform(0.01, 3, 1001)}
    host = {name: values.astype(np.float32) for name, values in host.items()}
    arrays = {name: jax.device_put(values, jax.devices("cpu")[0]) for name, values in host.items()}
    pricer = cunum.BlackScholesPricer(("call", "put"), dtype="float32", backend="cpu")
    results = pricer.price(arrays["spot"], arrays["strike"], arrays["expiry"], rate=0.03, volatility=0.2)
    expected = pricer.price(host["spot"], host["strike"], host["expiry"], rate=0.03, volatility=0.2)
    for name in ("call", "put"):
        assert np.array_equal(np.asarray(results[name]), expected[name])
    frozen = jax.numpy.zeros(1001, dtype=jax.numpy.float32)
    require_error(cunum.InvalidArgument, "argument 'call' is a JAX array, which is immutable", pricer.price,
                  arrays["spot"], arrays["strike"], arrays["expiry"], rate=0.03, volatility=0.2, out={"call": frozen})
    generator = cunum.RandomGenerator(seed=1, backend="cpu")
    require_error(cunum.InvalidArgument, "argument 'out' is a JAX array", generator.uniform, out=frozen)
    assert not np.any(np.asarray(frozen))


def test_pytorch_tensor_attributes_follow_changes_to_torch_tensor():
    # The binding reads a tensor's attributes through the descriptors of torch.Tensor's
    # MRO, kept with the type's version tag: a change to the class is seen at once, as
    # getattr would see it, and undoing it is seen too.
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    from cunum._cunum import _bench

    x = torch.arange(6, dtype=torch.float32)
    assert _bench.import_view(x, "cpu")["shape"] == (6,)
    torch.Tensor.shape = property(lambda tensor: torch.Size((2, 3)))
    try:
        assert _bench.import_view(x, "cpu")["shape"] == (2, 3)
    finally:
        del torch.Tensor.shape
    assert _bench.import_view(x, "cpu")["shape"] == (6,)


def test_the_overhead_bench_times_from_cpp_the_call_python_makes():
    # bench/python/bench_overhead.py compares a Python call with cunum._cunum._bench's
    # C++ loop; the loop must run that same call: same plan, arrays, outputs.
    from cunum._cunum import _bench

    x = np.arange(1024, dtype=np.float32)
    reducer = cunum.Reducer("float32", backend="cpu")
    result = np.zeros((), dtype=np.float32)
    assert _bench.reduce(reducer, "sum", x, result, None, 3, "routine") > 0
    assert result == reducer.reduce("sum", x) == 523776.0
    spot = np.linspace(50, 150, 1024, dtype=np.float32)
    pricer = cunum.BlackScholesPricer(("call", "put"), "float32", backend="cpu")
    out = {"call": np.zeros_like(spot), "put": np.zeros_like(spot)}
    assert _bench.black_scholes_price(pricer, spot, spot, spot, 0.03, 0.0, 0.2, out, None, 2, "routine", "thread") >= 0
    expected = pricer.price(spot, spot, spot, rate=0.03, volatility=0.2)
    assert np.array_equal(out["call"], expected["call"]) and np.array_equal(out["put"], expected["put"])
    untouched = np.zeros((), dtype=np.float32)
    assert _bench.reduce(reducer, "sum", x, untouched, None, 3, "binding") > 0 and untouched == 0
    require_error(cunum.InvalidArgument, "argument 'part'", _bench.reduce, reducer, "sum", x, result, None, 1, "all")
