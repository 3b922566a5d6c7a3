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
