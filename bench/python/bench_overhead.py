#!/usr/bin/env python3
"""bench_overhead: the host time of a small cunum call from Python beside the same call
from C++, both measured in one run (issue 30's target: at most 5 us more from Python).

    python3 bench/python/bench_overhead.py                       # cpu backend, NumPy arrays
    python3 bench/python/bench_overhead.py --library torch-cpu   # cpu backend, PyTorch CPU tensors
    python3 bench/python/bench_overhead.py --library cupy        # cuda backend, CuPy arrays
    python3 bench/python/bench_overhead.py --library torch       # cuda backend, PyTorch tensors

Needs the cunum package (pip install ./python, or PYTHONPATH=build/python).

The calls: a BlackScholesPricer(("call", "put"), "float32") pricing 2^10 options into
out= (rate and volatility scalars), and a Reducer("float32") summing 2^10 floats into a
0-d out=; on the cuda backend each with stream= left to its default (the current
stream of the array's library, a non-default stream made current for the run) and
given as an int (the same stream). Each call is timed three ways, on the same plan,
arrays and stream:

- Python: the call as a user writes it;
- C++: the C++ routine alone (Reducer::reduce, BlackScholesPricer::price) on the
  pointers and stream the binding resolved, called from C++ (cunum._cunum._bench);
- binding: what the binding does in C++ before the routine (resolve the stream, import
  and check the arrays, make the results dict), also called from C++; the rest of
  Python minus C++ is nanobind's argument handling, the GIL and the Python loop.

Host time per call: the wall time of CALLS calls back to back, without waiting between
them, divided by CALLS, after one warm-up round; the median of ROUNDS rounds, the three
ways interleaved round by round, the stream waited for between rounds. CALLS (default
200) stays below the depth of CUDA's launch queue (about a thousand pending launches),
so that a round times the host, not the queue draining on the device. With --clock
thread, the calling thread's CPU time instead of the wall time: on a machine whose
cores other processes share, wall time grows with their load, CPU time much less (it
leaves out OpenMP's worker threads: run the cpu backend with OMP_NUM_THREADS=1).
"""

import argparse
import contextlib
import os
import platform
import statistics
import time

import numpy as np

import cunum
from cunum._cunum import _bench

SIZE = 1 << 10
TARGET_US = 5.0
CLOCKS = {"wall": time.perf_counter, "thread": time.thread_time}


def python_seconds(call, calls, clock):
    now = CLOCKS[clock]
    begin = now()
    for _ in range(calls):
        call()
    return now() - begin


def per_call_us(ways, calls, rounds, wait):
    """Median over rounds of each way's host microseconds per call; `ways` maps a name to
    a function of the call count returning the seconds of that many calls."""
    for seconds in ways.values():
        seconds(calls)  # warm-up
        wait()
    samples = {name: [] for name in ways}
    for _ in range(rounds):
        for name, seconds in ways.items():
            samples[name].append(seconds(calls))
            wait()
    return {name: statistics.median(times) / calls * 1e6 for name, times in samples.items()}


class Arrays:
    """Arrays of one library, the stream made current for the run (`context`) and how to
    wait for it."""

    def __init__(self, library):
        self.library = library
        if library == "numpy":
            self.module, self.backend = np, "cpu"
            self.ones = lambda shape: np.ones(shape, dtype=np.float32)
            self.context, self.stream_handle, self.wait = contextlib.nullcontext(), None, lambda: None
        elif library == "cupy":
            import cupy

            self.module, self.backend = cupy, "cuda"
            self.ones = lambda shape: cupy.ones(shape, dtype=cupy.float32)
            stream = cupy.cuda.Stream(non_blocking=True)
            self.context, self.stream_handle, self.wait = stream, stream.ptr, stream.synchronize
        elif library == "torch-cpu":
            import torch

            self.module, self.backend = torch, "cpu"
            self.ones = lambda shape: torch.ones(shape, dtype=torch.float32)
            self.context, self.stream_handle, self.wait = contextlib.nullcontext(), None, lambda: None
        else:
            import torch

            self.module, self.backend = torch, "cuda"
            self.ones = lambda shape: torch.ones(shape, dtype=torch.float32, device="cuda")
            stream = torch.cuda.Stream()
            self.context = torch.cuda.stream(stream)
            self.stream_handle, self.wait = stream.cuda_stream, stream.synchronize

    def describe(self):
        versions = (f"cunum {cunum.__version__}, Python {platform.python_version()}, "
                    f"{self.module.__name__} {self.module.__version__}")
        if self.backend == "cpu":
            arrays = "NumPy arrays" if self.library == "numpy" else "PyTorch CPU tensors"
            return (f"backend: cpu ({arrays}), on {host_cpu()}, {os.cpu_count()} cores, "
                    f"OMP_NUM_THREADS {os.environ.get('OMP_NUM_THREADS', 'unset')}; {versions}")
        return f"backend: cuda on {cunum.device_properties().name} ({self.library} arrays); {versions}"


def host_cpu():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            return next(line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.machine()


def cases(arrays):
    """(call, stream=, Python call, C++ timing) of each row; C++ timing(part, calls, clock)."""
    spot = arrays.ones(SIZE) * 100
    out = {"call": arrays.ones(SIZE), "put": arrays.ones(SIZE)}
    pricer = cunum.BlackScholesPricer(("call", "put"), "float32", backend=arrays.backend)
    x = arrays.ones(SIZE)
    result = arrays.ones(())
    reducer = cunum.Reducer("float32", backend=arrays.backend)
    if arrays.backend == "cpu":
        streams = [("ignored (cpu)", None)]
    else:
        streams = [(f"default ({arrays.library}'s current)", None), ("an int (the same)", arrays.stream_handle)]
    rows = []
    for label, stream in streams:
        rows.append(("Black-Scholes, 2^10 float32 options, call and put into out=", label,
                     lambda stream=stream: pricer.price(spot, spot, spot, rate=0.03, volatility=0.2, out=out,
                                                        stream=stream),
                     lambda part, calls, clock, stream=stream: _bench.black_scholes_price(
                         pricer, spot, spot, spot, 0.03, 0.0, 0.2, out, stream, calls, part, clock)))
        rows.append(("reduce sum, 2^10 float32 into out=", label,
                     lambda stream=stream: reducer.reduce("sum", x, result, stream=stream),
                     lambda part, calls, clock, stream=stream: _bench.reduce(
                         reducer, "sum", x, result, stream, calls, part, clock)))
    return rows


def measure(library="numpy", calls=200, rounds=31, clock="wall"):
    """The lines of the run's report: what ran where, and the markdown table."""
    arrays = Arrays(library)
    lines = [arrays.describe(),
             f"host us a call ({clock} clock): median of {rounds} rounds of {calls} calls back to back",
             "",
             "| call | stream= | Python us | C++ us | Python - C++ us | of which the binding's arrays and stream us "
             f"| at most {TARGET_US:g} us more |",
             "|---|---|---:|---:|---:|---:|---|"]
    with arrays.context:
        for name, stream, python_call, cpp in cases(arrays):
            us = per_call_us({"python": lambda n: python_seconds(python_call, n, clock),
                              "binding": lambda n: cpp("binding", n, clock),
                              "routine": lambda n: cpp("routine", n, clock)}, calls, rounds, arrays.wait)
            extra = us["python"] - us["routine"]
            lines.append(f"| {name} | {stream} | {us['python']:.2f} | {us['routine']:.2f} | {extra:.2f} | "
                         f"{us['binding']:.2f} | {'yes' if extra <= TARGET_US else 'no'} |")
        if arrays.backend == "cuda":
            lines.extend(["", export_line(arrays, calls, rounds, clock)])
    return lines


def export_line(arrays, calls, rounds, clock):
    """What one array's DLPack export costs its library, timed from Python: the route
    the binding takes for PyTorch tensors (stream -1 on PyTorch's current stream) and
    for CuPy arrays used on another stream; on CuPy's current stream it reads the
    array's attributes instead."""
    x = arrays.ones(SIZE)
    stream = -1 if arrays.library == "torch" else arrays.stream_handle
    us = per_call_us({"export": lambda n: python_seconds(lambda: x.__dlpack__(stream=stream), n, clock)}, calls,
                     rounds, arrays.wait)["export"]
    return f"For reference: {arrays.library}'s x.__dlpack__(stream={stream}) of one array, from Python: {us:.2f} us."


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", choices=("numpy", "torch-cpu", "cupy", "torch"), default="numpy",
                        help="the arrays: numpy, torch-cpu (cpu backend) or cupy, torch (cuda backend)")
    parser.add_argument("--calls", type=int, default=200, help="calls a round (default 200)")
    parser.add_argument("--rounds", type=int, default=31, help="rounds, of which the median is taken (default 31)")
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="wall",
                        help="wall time (default), or the calling thread's CPU time on a shared machine")
    arguments = parser.parse_args()
    print("\n".join(measure(arguments.library, arguments.calls, arguments.rounds, arguments.clock)))


if __name__ == "__main__":
    main()
