"""Shared pieces of the Python suites: the cpu / gpu markers, fresh random inputs
with their seed printed, and the report CTest reads when the GPU suite cannot run.

Every test is marked cpu or gpu (CTest runs `pytest -m cpu` and `pytest -m gpu` as the
tests cunum-python-cpu and cunum-python-gpu). A gpu test without a CUDA device, or
without CuPy or PyTorch, is skipped with the reason; when the whole GPU suite is
skipped, the reason is printed in GoogleTest's words so that scripts/test lists it
with the other skipped GPU tests.
"""

import os
import random

import numpy as np
import pytest

import cunum


def pytest_configure(config):
    config.addinivalue_line("markers", "cpu: runs on the CPU backend with NumPy (CI)")
    config.addinivalue_line("markers", "gpu: needs a CUDA device and CuPy or PyTorch")


def _gpu_missing():
    """Why the GPU suite cannot run here, or None."""
    if cunum.device_count() == 0:
        return "no CUDA device: the Python GPU suite (CuPy and PyTorch arrays) needs one"
    return None


GPU_MISSING = _gpu_missing()


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("gpu") and GPU_MISSING:
            item.add_marker(pytest.mark.skip(reason=GPU_MISSING))


def pytest_sessionfinish(session, exitstatus):
    terminal = session.config.pluginmanager.get_plugin("terminalreporter")
    if terminal is None or session.config.getoption("markexpr") != "gpu" or not GPU_MISSING:
        return
    skipped = len(terminal.stats.get("skipped", []))
    if skipped and not terminal.stats.get("passed") and not terminal.stats.get("failed"):
        # CTest marks the test skipped on "[  SKIPPED ]"; scripts/test reads the reason
        # between ": Skipped" and that line, as it does for GoogleTest.
        terminal.write("\n")
        terminal.write_line(f"{__file__}:0: Skipped")
        terminal.write_line(GPU_MISSING)
        terminal.write_line(f"[  SKIPPED ] cunum-python-gpu ({skipped} tests)")


@pytest.fixture
def rng():
    """A NumPy generator on a fresh seed, printed so that a failure can be replayed
    (CUNUM_TEST_SEED=<seed>), as the C++ suites do."""
    seed = int(os.environ.get("CUNUM_TEST_SEED", random.SystemRandom().randrange(2**32)))
    print(f"CUNUM_TEST_SEED={seed}")
    return np.random.default_rng(seed)


def require_error(cls, fragment, call, *args, **kwargs):
    """Calls `call` and checks that it raises `cls` whose message holds `fragment`."""
    with pytest.raises(cls) as caught:
        call(*args, **kwargs)
    assert fragment in str(caught.value), str(caught.value)
    return caught.value


def require_torch_import_routes_agree(torch, device, backend, capsule_of, stream=None):
    """Checks that the binding imports a PyTorch tensor on `device` ('cpu', 'cuda') for
    `backend` as it imports the tensor's own __dlpack__ capsule (`capsule_of(tensor)`):
    the same pointer (the tensor's data_ptr()), shape, dtype, device and strides (on the
    axes of more than one element: on the others a stride addresses nothing, and
    PyTorch's export sets it to 1), for contiguous tensors of every dtype, views with an
    offset, 0-d and empty tensors; and that a tensor either route refuses is refused in
    the same words (not C-contiguous); a tensor that requires grad is imported or
    refused as before."""
    from cunum._cunum import _bench

    def view(array, **kwargs):
        return _bench.import_view(array, backend, stream=stream, **kwargs)

    def same(found, expected):
        assert {k: v for k, v in found.items() if k != "strides"} == {
            k: v for k, v in expected.items() if k != "strides"}, (found, expected)
        for extent, a, b in zip(found["shape"], found["strides"], expected["strides"]):
            assert extent < 2 or a == b, (found, expected)

    base = torch.arange(4096, dtype=torch.float64, device=device)
    square = base.reshape(64, 64)
    tensors = [base, base[5:], square[3:], square[3:4], base[7], base[:0], base.reshape(1, 4096, 1),
               torch.empty((0, 3), device=device), torch.nn.Parameter(base[1:], requires_grad=False)]
    for dtype in (torch.float32, torch.float64, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8,
                  torch.float16, torch.bfloat16, torch.bool, torch.complex64):
        tensors.append(torch.zeros((3, 5), dtype=dtype, device=device))
    for tensor in tensors:
        found = view(tensor)
        assert found["pointer"] == tensor.data_ptr()
        same(found, view(capsule_of(tensor)))
        same(view(tensor, write=True), found)
    for bad in (base[::2], square[:, :5], square.t(), square[:, 3:4]):
        messages = []
        for array in (bad, capsule_of(bad)):
            with pytest.raises(cunum.InvalidArgument) as caught:
                view(array)
            messages.append(str(caught.value))
        assert messages[0] == messages[1] and "is not C-contiguous" in messages[0], messages
    # A tensor that requires grad goes to __dlpack__, which refuses it: the cuda backend
    # calls it and PyTorch's error stands; on the cpu backend nanobind's import falls
    # back to torch.utils.dlpack.to_dlpack, which takes it.
    grad = torch.ones(3, device=device, requires_grad=True)
    if backend == "cuda":
        with pytest.raises((BufferError, RuntimeError), match="require gradient"):  # RuntimeError in older PyTorch
            view(grad)
    else:
        same(view(grad), view(capsule_of(grad.detach())))
