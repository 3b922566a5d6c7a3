#!/usr/bin/env python3
"""bench_python: cunum called from Python, beside the idioms a Python user would
otherwise write, on one GPU (issue 30's table). Needs the cunum package (pip install
./python, or PYTHONPATH=build/python), CuPy and PyTorch.

    python3 bench/python/bench_python.py            # prints a markdown table
    python3 bench/python/bench_python.py --cases black_scholes   # only the cases named

Every case runs on one non-default stream (CuPy's current stream, and PyTorch's
through an external stream on it); device times are CUDA events around each call,
the median of 25 after 5 warm-up calls, cunum and the peer interleaved call by call.
Each case checks cunum's answer against the peer's outside the timing. The overhead
case is bench_overhead.py's table for CuPy arrays and for PyTorch tensors: the host time
of each small call from Python and from C++ in the same run.

Cases and targets (issue 30): Black-Scholes 2^24 calls and puts against torch.compile
and a CuPy ElementwiseKernel with erfc (faster than both); Poisson 4096^2 periodic
against CuPy's rfft2 / divide / irfft2 (2x); one European call by Monte Carlo with 2^26
paths against CuPy normals + payoff + mean (10x); the Python cost of a call on 2^10
options and of a reduce of 2^10 floats (at most 5 us more than the C++ call).
"""

import argparse

import cupy as cp
import numpy as np
import torch

import cunum
from bench_overhead import measure as measure_overhead
from device_timing import interleaved_ms


def black_scholes_torch(spot, strike, expiry, rate, volatility):
    root = torch.sqrt(expiry)
    d1 = (torch.log(spot / strike) + (rate + 0.5 * volatility * volatility) * expiry) / (volatility * root)
    d2 = d1 - volatility * root
    discounted = strike * torch.exp(-rate * expiry)
    call = spot * torch.special.ndtr(d1) - discounted * torch.special.ndtr(d2)
    put = discounted * torch.special.ndtr(-d2) - spot * torch.special.ndtr(-d1)
    return call, put


ELEMENTWISE = cp.ElementwiseKernel(
    "T S, T K, T t, T r, T v", "T call, T put",
    """
    T root = sqrt(t);
    T d1 = (log(S / K) + (r + (T)0.5 * v * v) * t) / (v * root);
    T d2 = d1 - v * root;
    T discounted = K * exp(-r * t);
    T n1 = (T)0.5 * erfc(-d1 * (T)0.70710678118654752440), n2 = (T)0.5 * erfc(-d2 * (T)0.70710678118654752440);
    call = S * n1 - discounted * n2;
    put = discounted * ((T)1 - n2) - S * ((T)1 - n1);
    """, "black_scholes_erfc")


def bench_black_scholes(dtype, stream, rows):
    n = 1 << 24
    rng = cp.random.default_rng(1)
    spot = rng.uniform(50, 150, n).astype(dtype)
    strike = rng.uniform(50, 150, n).astype(dtype)
    expiry = rng.uniform(0.1, 2.0, n).astype(dtype)
    call, put = cp.empty_like(spot), cp.empty_like(spot)
    pricer = cunum.BlackScholesPricer(("call", "put"), dtype)
    out = {"call": call, "put": put}
    cunum_call = lambda: pricer.price(spot, strike, expiry, rate=0.03, volatility=0.2, out=out)  # noqa: E731
    tensors = [torch.from_dlpack(a) for a in (spot, strike, expiry)]
    compiled = torch.compile(black_scholes_torch)
    torch_call = lambda: compiled(*tensors, 0.03, 0.2)  # noqa: E731
    peer_call, peer_put = cp.empty_like(spot), cp.empty_like(spot)
    cupy_call = lambda: ELEMENTWISE(spot, strike, expiry, dtype(0.03), dtype(0.2), peer_call, peer_put)  # noqa: E731
    ours, compiled_ms, elementwise_ms = interleaved_ms([cunum_call, torch_call, cupy_call], stream)
    cunum_call()
    cupy_call()
    stream.synchronize()
    tolerance = 1e-3 if dtype == np.float32 else 1e-9
    assert float(cp.abs(call - peer_call).max()) < tolerance * 150, "call prices differ from CuPy's"
    name = np.dtype(dtype).name
    rows.append(("Black-Scholes, 2^24 calls and puts", name, ours, "torch.compile", compiled_ms, "faster"))
    rows.append(("Black-Scholes, 2^24 calls and puts", name, ours, "CuPy ElementwiseKernel (erfc)", elementwise_ms,
                 "faster"))


def bench_poisson(dtype, stream, rows):
    n = 4096
    solver = cunum.PoissonSolver((n, n), (1.0, 1.0), "periodic", dtype=dtype)
    f = cp.random.default_rng(2).standard_normal((n, n)).astype(dtype)
    f -= f.mean()
    u = cp.empty_like(f)
    k0 = 2 * np.pi * cp.fft.fftfreq(n, d=1.0 / n)
    k1 = 2 * np.pi * cp.fft.rfftfreq(n, d=1.0 / n)
    eigenvalues = -(k0[:, None] ** 2 + k1[None, :] ** 2)
    eigenvalues[0, 0] = 1
    inverse = (1 / eigenvalues).astype(dtype)
    inverse[0, 0] = 0
    cunum_call = lambda: solver.solve(f, out=u)  # noqa: E731
    cupy_call = lambda: cp.fft.irfft2(cp.fft.rfft2(f) * inverse, s=f.shape)  # noqa: E731
    ours, peer = interleaved_ms([cunum_call, cupy_call], stream)
    expected = cupy_call()
    cunum_call()
    stream.synchronize()
    scale = float(cp.abs(expected).max())
    assert float(cp.abs(u - expected).max()) < (1e-3 if dtype == np.float32 else 1e-10) * scale, "Poisson differs"
    rows.append(("Poisson, 4096^2 periodic", np.dtype(dtype).name, ours, "CuPy rfft2 / divide / irfft2", peer, "2x"))


def bench_monte_carlo(dtype, stream, rows):
    paths = 1 << 26
    s0, k, t, r, v = 100.0, 100.0, 1.0, 0.03, 0.2
    pricer = cunum.MonteCarloPricer(cunum.MonteCarloSettings(paths=paths), dtype)
    batch = pricer.load({"spot": s0, "strike": k, "expiry": t, "rate": r, "volatility": v})
    out = cp.empty(pricer.estimate_bytes, dtype=cp.uint8)
    cunum_call = lambda: pricer.price(batch, out)  # noqa: E731
    generator = cp.random.default_rng(3)

    def cupy_call():
        z = generator.standard_normal(paths, dtype=dtype)
        terminal = s0 * cp.exp((r - 0.5 * v * v) * t + v * np.sqrt(t) * z)
        return cp.maximum(terminal - k, 0).mean() * np.exp(-r * t)

    ours, peer = interleaved_ms([cunum_call, cupy_call], stream)
    estimate = pricer.price(batch, out)
    reference = float(cupy_call())
    stream.synchronize()
    # Two independent estimates: their difference has about sqrt(2) standard errors.
    assert abs(float(estimate["price"][0]) - reference) < 6 * float(estimate["standard_error"][0]), "MC differs"
    rows.append(("Monte Carlo, one European call, 2^26 paths", np.dtype(dtype).name, ours,
                 "CuPy normals + payoff + mean", peer, "10x"))


def bench_overhead(notes):
    for library in ("cupy", "torch"):
        notes.extend([f"Host time of a small call, {library} arrays, Python against C++ (bench_overhead.py):",
                      *measure_overhead(library), ""])


CASES = {"black_scholes": bench_black_scholes, "poisson": bench_poisson, "monte_carlo": bench_monte_carlo}


class PrintedRows(list):
    """The table's rows, each printed as it is measured, so that a run cut short (a
    time limit, a crash in a later case) still leaves what it measured."""

    def append(self, row):
        task, dtype, ours, peer, peer_ms, target = row
        print(f"| {task} | {dtype} | {ours:.3f} | {peer} | {peer_ms:.3f} | {peer_ms / ours:.2f}x | {target} |",
              flush=True)
        super().append(row)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="+", choices=[*CASES, "overhead"], default=[*CASES, "overhead"],
                        help="the cases to run (default: all)")
    arguments = parser.parse_args()
    props = cunum.device_properties()
    stream = cp.cuda.Stream(non_blocking=True)
    print(f"device: {props.name}; cunum {cunum.__version__}, CuPy {cp.__version__}, PyTorch {torch.__version__}\n")
    print("| task | dtype | cunum ms | peer | peer ms | speed-up | target |")
    print("|---|---|---|---|---|---|---|", flush=True)
    rows, notes, failures = PrintedRows(), [], []
    # A case that fails (an error, or an answer that differs from the peer's) is named
    # at the end and the exit status is 1; the other cases still run and print.
    with stream, torch.cuda.stream(torch.cuda.ExternalStream(stream.ptr)):
        for dtype in (np.float32, np.float64):
            for name, bench in CASES.items():
                if name in arguments.cases:
                    try:
                        bench(dtype, stream, rows)
                    except Exception as error:  # noqa: BLE001 - reported below, whatever it is
                        failures.append(f"{name} ({np.dtype(dtype).name}): {type(error).__name__}: {error}")
        if "overhead" in arguments.cases:
            try:
                bench_overhead(notes)
            except Exception as error:  # noqa: BLE001
                failures.append(f"overhead: {type(error).__name__}: {error}")
    print()
    print("\n".join(notes))
    if failures:
        print("\nFAILED cases:\n" + "\n".join(f"- {failure}" for failure in failures))
        raise SystemExit(1)


if __name__ == "__main__":
    main()
