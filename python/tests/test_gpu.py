"""The GPU suite: CuPy and PyTorch arrays on the cuda backend.

- zero copy: outputs land in the caller's arrays (pointer equality), inputs are read in
  place (an output aliased to an input is written where the input lives);
- results equal the C++ API's: the CPU backend's bit for bit where the C++ API promises
  it (random uniforms, the Himeno pressure), within its documented bounds elsewhere, and
  CuPy's and PyTorch's results equal to each other bit for bit;
- streams: the default is the current stream of the array's library, and a call made
  while that stream is captured into a CUDA graph lands in the graph (so it was
  enqueued on that stream, and did not synchronise: a synchronisation breaks a capture);
- Numba's device arrays (read through __cuda_array_interface__, results made by
  numba.cuda), and any object seen only through that interface, whose stream is waited for;
- errors: each class raised from Python on the device.

Skipped, with the reason, without a CUDA device; the CuPy tests without CuPy and the
PyTorch tests without PyTorch.
"""

import numpy as np
import pytest

import cunum
from conftest import require_error, require_torch_import_routes_agree

pytestmark = pytest.mark.gpu

cp = pytest.importorskip("cupy", reason="CuPy is not installed") if cunum.device_count() else None


def torch_or_skip():
    return pytest.importorskip("torch", reason="PyTorch is not installed")


def host(array):
    if hasattr(array, "get"):
        return array.get()
    if hasattr(array, "cpu"):
        return array.cpu().numpy()
    return np.from_dlpack(array)


@pytest.fixture
def inputs():
    rng = np.random.default_rng(20261124)
    n = 100_003
    return {"spot": rng.uniform(50, 150, n), "strike": rng.uniform(50, 150, n), "expiry": rng.uniform(0.01, 3, n),
            "volatility": rng.uniform(0.05, 0.8, n)}


def test_black_scholes_writes_cupy_outputs_in_place_and_matches_the_cpu(inputs):
    device = {k: cp.asarray(v) for k, v in inputs.items()}
    pricer = cunum.BlackScholesPricer(("call", "put", "delta_call"), backend="cuda")
    out = {"call": cp.empty_like(device["spot"]), "put": cp.empty_like(device["spot"])}
    results = pricer.price(device["spot"], device["strike"], device["expiry"], rate=0.03,
                           volatility=device["volatility"], out=out)
    assert results["call"].data.ptr == out["call"].data.ptr and results["put"].data.ptr == out["put"].data.ptr
    assert isinstance(results["delta_call"], cp.ndarray)
    cpu = cunum.BlackScholesPricer(("call", "put", "delta_call"), backend="cpu").price(
        inputs["spot"], inputs["strike"], inputs["expiry"], rate=0.03, volatility=inputs["volatility"])
    for name in ("call", "put", "delta_call"):
        assert np.allclose(host(results[name]), cpu[name], rtol=1e-13, atol=1e-13)
    # In place: the call overwrites the spot array where it lives, so the input was read there.
    spot = device["spot"]
    pointer = spot.data.ptr
    in_place = pricer.price(spot, device["strike"], device["expiry"], rate=0.03, volatility=device["volatility"],
                            out={"call": spot})
    assert in_place["call"].data.ptr == pointer and np.array_equal(host(spot), host(results["call"]))


def test_pytorch_tensors_give_cupys_results_bit_for_bit(inputs):
    torch = torch_or_skip()
    tensors = {k: torch.as_tensor(v, device="cuda") for k, v in inputs.items()}
    pricer = cunum.BlackScholesPricer(("call", "vega"), backend="cuda")
    out = torch.empty_like(tensors["spot"])
    results = pricer.price(tensors["spot"], tensors["strike"], tensors["expiry"], rate=0.03,
                           volatility=tensors["volatility"], out={"call": out})
    assert results["call"].data_ptr() == out.data_ptr() and isinstance(results["vega"], torch.Tensor)
    device = {k: cp.asarray(v) for k, v in inputs.items()}
    with_cupy = pricer.price(device["spot"], device["strike"], device["expiry"], rate=0.03,
                             volatility=device["volatility"])
    assert np.array_equal(host(results["call"]), host(with_cupy["call"]))
    assert np.array_equal(host(results["vega"]), host(with_cupy["vega"]))


def test_jax_arrays_give_cupys_results_bit_for_bit_and_are_refused_as_outputs(inputs):
    # JAX device arrays come in through __dlpack__; results come back as JAX arrays over
    # cunum's own memory. cunum runs on the legacy default stream here and JAX reads on
    # its own streams, so the caller synchronizes before JAX reads (docs/python.md).
    jax = pytest.importorskip("jax", reason="JAX is not installed")
    try:
        gpu = jax.devices("gpu")[0]
    except RuntimeError:
        pytest.skip("JAX has no GPU backend here")
    single = {name: values.astype(np.float32) for name, values in inputs.items()}
    arrays = {name: jax.device_put(values, gpu) for name, values in single.items()}
    pricer = cunum.BlackScholesPricer(("call", "vega"), dtype="float32", backend="cuda")
    results = pricer.price(arrays["spot"], arrays["strike"], arrays["expiry"], rate=0.03,
                           volatility=arrays["volatility"])
    cunum.synchronize()
    assert isinstance(results["call"], jax.Array) and results["call"].devices() == {gpu}
    device = {name: cp.asarray(values) for name, values in single.items()}
    with_cupy = pricer.price(device["spot"], device["strike"], device["expiry"], rate=0.03,
                             volatility=device["volatility"])
    for name in ("call", "vega"):
        assert np.array_equal(np.asarray(results[name]), host(with_cupy[name]))
    frozen = jax.device_put(np.zeros_like(single["spot"]), gpu)
    require_error(cunum.InvalidArgument, "argument 'call' is a JAX array, which is immutable", pricer.price,
                  arrays["spot"], arrays["strike"], arrays["expiry"], rate=0.03, volatility=0.2,
                  out={"call": frozen})
    assert not np.any(np.asarray(frozen))


def test_a_call_on_a_capturing_stream_lands_in_the_graph_without_synchronising(inputs):
    device = {k: cp.asarray(v) for k, v in inputs.items()}
    pricer = cunum.BlackScholesPricer(("call",), backend="cuda")
    out = cp.empty_like(device["spot"])
    expected = pricer.price(device["spot"], device["strike"], device["expiry"], volatility=device["volatility"])
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:  # the current CuPy stream: the call's default
        stream.begin_capture()
        pricer.price(device["spot"], device["strike"], device["expiry"], volatility=device["volatility"],
                     out={"call": out})
        graph = stream.end_capture()
    out.fill(cp.nan)
    stream.synchronize()
    graph.launch(stream)
    stream.synchronize()
    assert np.array_equal(host(out), host(expected["call"]))


def test_the_default_stream_is_the_current_stream_of_the_library():
    x = cp.arange(1 << 20, dtype=cp.float64)
    stream = cp.cuda.Stream(non_blocking=True)
    reducer = cunum.Reducer("float64", backend="cuda")
    result = cp.zeros(())
    with stream:
        stream.begin_capture()
        reducer.reduce("sum", x, result)
        graph = stream.end_capture()
    graph.launch(stream)
    stream.synchronize()
    assert float(result) == float((1 << 20) * ((1 << 20) - 1) // 2)
    torch = torch_or_skip()
    t = torch.arange(1 << 20, dtype=torch.float64, device="cuda")
    torch_stream = torch.cuda.Stream()
    with torch.cuda.stream(torch_stream):
        total = reducer.reduce("sum", t)  # on torch_stream, the current one
    torch_stream.synchronize()
    assert isinstance(total, torch.Tensor) and float(total) == float((1 << 20) * ((1 << 20) - 1) // 2)


def test_an_explicit_stream_is_honoured_in_each_form():
    torch = torch_or_skip()
    x = cp.ones(1000, dtype=cp.float32)
    reducer = cunum.Reducer("float32", backend="cuda")
    cupy_stream = cp.cuda.Stream(non_blocking=True)
    torch_stream = torch.cuda.Stream()

    class Protocol:
        def __cuda_stream__(self):
            return (0, cupy_stream.ptr)

    for stream in (cupy_stream, torch_stream, cupy_stream.ptr, Protocol()):
        out = cp.zeros((), dtype=cp.float32)
        reducer.reduce("sum", x, out, stream=stream)
        cunum.synchronize(stream)
        assert float(out) == 1000.0


def test_a_pytorch_call_lands_on_pytorchs_current_stream():
    # The default stream is read as PyTorch's raw current stream, and __dlpack__ is told
    # there is nothing to order (-1): a call inside torch.cuda.graph is captured (a launch
    # on any other stream during the capture would fail it).
    torch = torch_or_skip()
    reducer = cunum.Reducer("float64", backend="cuda")
    t = torch.arange(1 << 20, dtype=torch.float64, device="cuda")
    total = torch.zeros((), dtype=torch.float64, device="cuda")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        reducer.reduce("sum", t, total)
    total.zero_()
    graph.replay()
    torch.cuda.synchronize()
    assert float(total) == float((1 << 20) * ((1 << 20) - 1) // 2)


def spin_on_current_stream(library):
    """Enqueues a kernel that keeps the library's current stream busy for ~50 ms, so that
    work queued behind it is still pending when the next call is made."""
    if library == "torch":
        import torch

        torch.cuda._sleep(100_000_000)
    else:
        spin = cp.RawKernel(r"""extern "C" __global__ void spin(long long cycles) {
            long long start = clock64();
            while (clock64() - start < cycles) {}
        }""", "spin")
        spin((1,), (1,), (cp.int64(100_000_000),))


@pytest.mark.parametrize("library", ["cupy", "torch"])
def test_an_explicit_stream_waits_for_the_producers_pending_work(library):
    # A stream other than the library's current one: the producer's __dlpack__ orders
    # the work pending on its current stream (here, writing x) before the call's stream.
    if library == "torch":
        torch = torch_or_skip()
        x = torch.ones(1 << 20, dtype=torch.float32, device="cuda")
        out = torch.zeros((), dtype=torch.float32, device="cuda")
        other = torch.cuda.Stream()
        handle = other.cuda_stream
    else:
        x = cp.ones(1 << 20, dtype=cp.float32)
        out = cp.zeros((), dtype=cp.float32)
        other = cp.cuda.Stream(non_blocking=True)
        handle = other.ptr
    reducer = cunum.Reducer("float32", backend="cuda")
    spin_on_current_stream(library)
    x[...] = 2.0  # on the current stream, behind the spin
    reducer.reduce("sum", x, out, stream=handle)
    other.synchronize()
    assert float(out) == 2.0 * (1 << 20)


def test_cupy_arrays_read_from_their_attributes_agree_with_dlpack():
    # On CuPy's current stream a CuPy array is read from its attributes (data.ptr,
    # shape, strides, dtype); on another stream through __dlpack__. Both routes must
    # see the same memory and refuse the same arrays with the same words.
    reducer = cunum.Reducer("float64", backend="cuda")
    x = cp.arange(1 << 12, dtype=cp.float64)
    other = cp.cuda.Stream(non_blocking=True)
    for data in (x, x[5:], x.reshape(64, 64)[3:], x[:0], x[7]):
        current = reducer.reduce("sum", data)
        through_dlpack = reducer.reduce("sum", data, stream=other.ptr)
        other.synchronize()
        assert float(current) == float(through_dlpack) == float(data.sum())
    for bad in (x[::2], x.astype(cp.float32), x.reshape(64, 64)[:, :5], x.astype(cp.complex128)):
        messages = []
        for stream in (None, other.ptr):
            with pytest.raises(cunum.InvalidArgument) as caught:
                reducer.reduce("sum", bad, stream=stream)
            messages.append(str(caught.value))
        assert messages[0] == messages[1], messages
    out = cp.zeros(3)[1:2].reshape(())  # a 0-d view inside a larger allocation
    assert reducer.reduce("sum", x[7:], out).data.ptr == out.data.ptr
    assert float(out) == float(x[7:].sum())
    pricer = cunum.BlackScholesPricer(("call",), "float64", backend="cuda")
    spot, expiry = cp.linspace(50, 150, 1000), cp.full(1000, 0.5)
    calls = cp.zeros(2000)[1000:]  # an output view with an offset
    pricer.price(spot, spot, expiry, volatility=0.2, out={"call": calls})
    expected = pricer.price(spot, spot, expiry, volatility=0.2, stream=other.ptr)["call"]
    other.synchronize()
    assert cp.array_equal(calls, expected)


def test_pytorch_tensors_read_from_their_attributes_agree_with_dlpack():
    # On PyTorch's current stream a CUDA tensor of the plan's device, and anywhere a CPU
    # tensor, is read from its attributes (dtype, device, shape, data_ptr()); on another
    # stream through __dlpack__. Every route must see the view __dlpack__ exports.
    torch = torch_or_skip()
    require_torch_import_routes_agree(torch, "cuda", "cuda", lambda tensor: tensor.__dlpack__(stream=-1))
    # A CPU tensor has no current stream of its own: the stream is given (host memory,
    # which the cuda backend's routines accept or refuse as they do NumPy's).
    require_torch_import_routes_agree(torch, "cpu", "cuda", lambda tensor: tensor.__dlpack__(), stream=0)
    other = torch.cuda.Stream()
    require_torch_import_routes_agree(torch, "cuda", "cuda", lambda tensor: tensor.__dlpack__(stream=-1),
                                      stream=other.cuda_stream)
    reducer = cunum.Reducer("float64", backend="cuda")
    x = torch.arange(1 << 12, dtype=torch.float64, device="cuda")
    for data in (x, x[5:], x.reshape(64, 64)[3:], x[:0], x[7]):
        current = reducer.reduce("sum", data)
        through_dlpack = reducer.reduce("sum", data, stream=other.cuda_stream)
        other.synchronize()
        assert float(current) == float(through_dlpack) == float(data.sum())
    pricer = cunum.BlackScholesPricer(("call",), "float64", backend="cuda")
    spot, expiry = torch.linspace(50, 150, 1000, dtype=torch.float64, device="cuda"), torch.full(
        (1000,), 0.5, dtype=torch.float64, device="cuda")
    calls = torch.zeros(2000, dtype=torch.float64, device="cuda")[1000:]  # an output view with an offset
    assert pricer.price(spot, spot, expiry, volatility=0.2, out={"call": calls})["call"] is calls
    expected = pricer.price(spot, spot, expiry, volatility=0.2, stream=other.cuda_stream)["call"]
    other.synchronize()
    assert torch.equal(calls, expected)


class InterfaceOnlyArray:
    """A CuPy array seen only through __cuda_array_interface__ version 3, as Numba's
    device arrays export themselves: `stream` is the stream the producer wrote it on
    (None: nothing to wait for)."""

    def __init__(self, array, stream=None):
        self.array = array  # keeps the memory alive
        self.__cuda_array_interface__ = {"data": (array.data.ptr, False), "shape": array.shape,
                                         "typestr": array.dtype.str, "strides": None, "version": 3,
                                         "stream": stream}


def test_cuda_array_interface_arrays_are_read_and_written_where_they_live(inputs):
    device = {k: cp.asarray(v) for k, v in inputs.items()}
    pricer = cunum.BlackScholesPricer(("call", "vega"), backend="cuda")
    expected = pricer.price(device["spot"], device["strike"], device["expiry"], rate=0.03,
                            volatility=device["volatility"])
    viewed = {k: InterfaceOnlyArray(v) for k, v in device.items()}
    out = InterfaceOnlyArray(cp.full_like(device["spot"], cp.nan))
    results = pricer.price(viewed["spot"], viewed["strike"], viewed["expiry"], rate=0.03,
                           volatility=viewed["volatility"], out={"call": out})
    cp.cuda.Device().synchronize()
    assert results["call"] is out and np.array_equal(host(out.array), host(expected["call"]))
    # A new result of a library cunum does not allocate with: cunum's own memory, as DLPack.
    assert np.array_equal(host(cp.from_dlpack(results["vega"])), host(expected["vega"]))


def test_the_stream_a_cuda_array_interface_names_is_waited_for():
    producer = cp.cuda.Stream(non_blocking=True)
    other = cp.cuda.Stream(non_blocking=True)
    x = cp.zeros(1 << 20, dtype=cp.float32)
    out = cp.zeros((), dtype=cp.float32)
    cp.cuda.Device().synchronize()  # the zeros, written on the legacy stream
    with producer:
        spin_on_current_stream("cupy")
        x.fill(2.0)  # on the producer's stream, behind the spin
    cunum.Reducer("float32", backend="cuda").reduce("sum", InterfaceOnlyArray(x, stream=producer.ptr), out,
                                                    stream=other.ptr)
    other.synchronize()
    assert float(out) == 2.0 * (1 << 20)


def test_numba_device_arrays_are_read_in_place_and_results_are_numba_arrays(inputs):
    cuda = pytest.importorskip("numba.cuda", reason="Numba is not installed")
    if not cuda.is_available():
        pytest.skip("Numba's CUDA target finds no device")
    arrays = {k: cuda.to_device(v) for k, v in inputs.items()}
    pricer = cunum.BlackScholesPricer(("call", "vega"), backend="cuda")
    out = cuda.device_array(inputs["spot"].shape, dtype=np.float64)
    results = pricer.price(arrays["spot"], arrays["strike"], arrays["expiry"], rate=0.03,
                           volatility=arrays["volatility"], out={"call": out})
    cuda.synchronize()
    assert results["call"] is out and isinstance(results["vega"], type(out))
    device = {k: cp.asarray(v) for k, v in inputs.items()}
    expected = pricer.price(device["spot"], device["strike"], device["expiry"], rate=0.03,
                            volatility=device["volatility"])
    assert np.array_equal(out.copy_to_host(), host(expected["call"]))
    assert np.array_equal(results["vega"].copy_to_host(), host(expected["vega"]))


def test_random_uniforms_equal_the_cpu_backend_bit_for_bit():
    gpu = cunum.RandomGenerator("philox4x32_10", 99, backend="cuda")
    cpu = cunum.RandomGenerator("philox4x32_10", 99, backend="cpu")
    out = cp.empty(1 << 20, dtype=cp.float32)
    assert gpu.uniform(out).data.ptr == out.data.ptr
    assert np.array_equal(host(out), cpu.uniform(size=1 << 20, dtype="float32"))
    like = gpu.normal(size=(3, 5), like=out)
    assert isinstance(like, cp.ndarray) and like.dtype == cp.float64 and like.shape == (3, 5)
    plain = gpu.uniform(size=7)  # no library given: a DLPack array of cunum's device memory
    assert cp.from_dlpack(plain).shape == (7,)


def test_himeno_pressure_equals_the_cpu_backend_bit_for_bit():
    gpu = cunum.HimenoProblem("XS", backend="cuda")
    cpu = cunum.HimenoProblem("XS", backend="cpu")
    gpu.iterate(4)
    cpu.iterate(4)
    assert np.array_equal(gpu.pressure(), cpu.pressure())


def test_poisson_bridge_and_monte_carlo_match_the_cpu_backend():
    rng = np.random.default_rng(7)
    f = rng.standard_normal((64, 48))
    solver = cunum.PoissonSolver((64, 48), (1.0, 1.0), ("dirichlet", "periodic"), backend="cuda")
    device_f = cp.asarray(f)
    pointer = device_f.data.ptr
    solved = solver.solve(device_f, out=device_f)
    assert solved.data.ptr == pointer
    expected = cunum.PoissonSolver((64, 48), (1.0, 1.0), ("dirichlet", "periodic"), backend="cpu").solve(f)
    assert np.allclose(host(solved), expected, rtol=1e-12, atol=1e-14)
    # A mixed axis and walls at the other placements, as the cpu backend solves them.
    for boundaries, centrings in ((("dirichlet_neumann", "neumann_dirichlet"), "cell"),
                                  (("neumann", "dirichlet_neumann"), "vertex"), ("dirichlet", "cell")):
        gpu = cunum.PoissonSolver((64, 48), None, boundaries, centrings=centrings, backend="cuda").solve(cp.asarray(f))
        cpu = cunum.PoissonSolver((64, 48), None, boundaries, centrings=centrings, backend="cpu").solve(f)
        assert np.allclose(host(gpu), cpu, rtol=1e-12, atol=1e-12 * np.abs(cpu).max())

    order = cunum.brownian_bridge.make_bridge_order([i / 16 for i in range(1, 16)])
    z = rng.standard_normal((16, 1, 1001))
    gpu_paths = cunum.BrownianBridge(0.0, 1.0, order, backend="cuda").generate_paths(cp.asarray(z))
    cpu_paths = cunum.BrownianBridge(0.0, 1.0, order, backend="cpu").generate_paths(z)
    assert isinstance(gpu_paths, cp.ndarray) and np.allclose(host(gpu_paths), cpu_paths, rtol=1e-12, atol=1e-12)

    settings = cunum.MonteCarloSettings(paths=1 << 16, greeks=True)
    options = {"spot": np.array([100.0, 95.0]), "strike": 100.0, "expiry": 1.0, "rate": 0.02, "volatility": 0.2}
    gpu_estimates = cunum.MonteCarloPricer(settings, backend="cuda").price(options, like=device_f)
    cpu_estimates = cunum.MonteCarloPricer(settings, backend="cpu").price(options)
    assert isinstance(gpu_estimates["price"], cp.ndarray)
    assert np.allclose(host(gpu_estimates["price"]), cpu_estimates["price"], rtol=1e-10)
    # Into a CuPy `out` without `like`: CuPy arrays viewing out, indexable as any.
    pricer = cunum.MonteCarloPricer(settings, backend="cuda")
    out = cp.empty(2 * pricer.estimate_bytes, dtype=cp.uint8)
    into_out = pricer.price(pricer.load(options), out)
    assert isinstance(into_out["price"], cp.ndarray) and into_out["price"].data.ptr == out.data.ptr
    assert float(into_out["price"][1]) == float(gpu_estimates["price"][1])


def test_errors_are_raised_from_the_device():
    reducer = cunum.Reducer("float64", backend="cuda")
    if not cunum.device_properties().pageable_memory_access:
        with pytest.raises(cunum.InvalidArgument, match="argument 'data' is pageable host memory"):
            reducer.reduce("sum", np.ones(10), cp.zeros(()))
    with pytest.raises(cunum.InvalidArgument, match="argument 'data' has dtype float32"):
        reducer.reduce("sum", cp.ones(10, dtype=cp.float32))
    cpu = cunum.Reducer("float64", backend="cpu")
    with pytest.raises(cunum.InvalidArgument, match="is memory of CUDA device"):
        cpu.reduce("sum", cp.ones(10))
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        try:
            with pytest.raises(cunum.NotSupported, match="captur"):
                cunum.Reducer("float64", backend="cuda", stream=stream)
        finally:
            stream.end_capture()
    with pytest.raises(cunum.OutOfMemory):
        cunum.PoissonSolver((1 << 17, 1 << 17), backend="cuda")

