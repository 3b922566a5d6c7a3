"""Device timing shared by the Python benches: CUDA events around each call on one
stream, the median of REPEATS calls after WARMUP, the callables interleaved call by
call so that clocks and caches treat them alike."""

import statistics

import cupy as cp

REPEATS, WARMUP = 25, 5


def interleaved_ms(calls, stream):
    """Median device milliseconds of each callable, called in turn."""
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = [[] for _ in calls]
    for round_ in range(WARMUP + REPEATS):
        for index, call in enumerate(calls):
            start.record(stream)
            call()
            stop.record(stream)
            stop.synchronize()
            if round_ >= WARMUP:
                times[index].append(cp.cuda.get_elapsed_time(start, stop))
    return [statistics.median(t) for t in times]
