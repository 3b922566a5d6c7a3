"""cunum.access_model, held to exact rational arithmetic (Stirling numbers) for small cases."""

import math
from fractions import Fraction

import pytest

import cunum
from conftest import require_error

pytestmark = pytest.mark.cpu
model = cunum.access_model


def stirling2(n, k):
    return sum((-1) ** j * math.comb(k, j) * (k - j) ** n for j in range(k + 1)) // math.factorial(k)


@pytest.mark.parametrize("threads,segments", [(4, 8), (7, 3), (32, 128)])
def test_the_distribution_is_the_occupancy_formula(threads, segments):
    distribution = model.segment_count_distribution(threads, segments)
    assert len(distribution) == threads + 1
    for n, probability in enumerate(distribution):
        exact = Fraction(math.perm(segments, n) * stirling2(threads, n), segments**threads) if n <= segments else 0
        assert probability == pytest.approx(float(exact), rel=1e-12, abs=1e-300)
    moments = model.segment_count_moments(threads, segments)
    mean = sum(n * p for n, p in enumerate(distribution))
    assert moments.mean == pytest.approx(mean, rel=1e-12)
    assert moments.variance == pytest.approx(sum((n - mean) ** 2 * p for n, p in enumerate(distribution)), rel=1e-9)


def test_the_cache_chain_and_the_gather_estimate():
    chain = model.CacheFillChain(32, 256, 64)
    assert chain.saturation == 64
    assert sum(chain.distribution(5)) == pytest.approx(1.0)
    assert chain.hit_rate(0) == 0.0 and 0 < chain.hit_rate(10) <= 64 / 256 + 1e-12
    assert model.mean_fill_hit_rate(32, 256, 1e9, 1) == 0.0
    parameters = model.GpuMemoryParameters()
    assert parameters.multiprocessors == 132
    query = model.GatherQuery(table_elements=1 << 18, element_bytes=4, gathers=1 << 26)
    estimate = model.estimate_gather(query, parameters)
    assert 1 <= estimate.sectors_per_request <= 32 and estimate.seconds > 0
    assert 0 <= estimate.l1_hit_rate <= 1 and estimate.warps_to_hide_latency > 0


def test_bad_arguments_are_refused_by_name():
    require_error(cunum.InvalidArgument, "argument 'threads'", model.segment_count_distribution, 0, 8)
    require_error(cunum.InvalidArgument, "argument 'segments'", model.segment_count_moments, 4, 2.5)
    parameters = model.GpuMemoryParameters()
    parameters.l2_latency_cycles = -1.0
    require_error(cunum.InvalidArgument, "parameters.l2_latency_cycles", model.estimate_gather,
                  model.GatherQuery(table_elements=1024, gathers=1024), parameters)
