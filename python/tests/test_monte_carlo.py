"""cunum.monte_carlo on the CPU backend, held to closed forms: Black-Scholes for
European options, the geometric Asian formula, and exact identities of the estimates."""

import math

import numpy as np
import pytest

import cunum
from conftest import require_error

pytestmark = pytest.mark.cpu


def black_scholes_call(s, k, t, r, q, sigma):
    d1 = (math.log(s / k) + (r - q + sigma * sigma / 2) * t) / (sigma * math.sqrt(t))
    d2 = d1 - sigma * math.sqrt(t)
    n = lambda x: math.erfc(-x / math.sqrt(2)) / 2  # noqa: E731
    return s * math.exp(-q * t) * n(d1) - k * math.exp(-r * t) * n(d2), math.exp(-q * t) * n(d1)


OPTIONS = {"spot": np.array([100.0, 100.0, 90.0]), "strike": np.array([100.0, 110.0, 100.0]), "expiry": 1.0,
           "rate": 0.05, "dividend": 0.01, "volatility": np.array([0.2, 0.25, 0.3])}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_european_estimates_cover_black_scholes(dtype):
    settings = cunum.MonteCarloSettings(paths=1 << 18, greeks=True, seed=11)
    pricer = cunum.MonteCarloPricer(settings, dtype, backend="cpu")
    estimates = pricer.price(OPTIONS)
    assert estimates["price"].dtype == np.dtype(dtype) and estimates["paths"].dtype == np.int64
    for i in range(3):
        price, delta = black_scholes_call(OPTIONS["spot"][i], OPTIONS["strike"][i], 1.0, 0.05, 0.01,
                                          OPTIONS["volatility"][i])
        assert abs(estimates["price"][i] - price) < 5 * estimates["standard_error"][i]
        assert abs(estimates["delta"][i] - delta) < 5 * estimates["delta_standard_error"][i] + 1e-6
        assert estimates["paths"][i] == 1 << 18
        assert estimates["confidence_low"][i] < estimates["price"][i] < estimates["confidence_high"][i]
    assert np.all(np.isnan(estimates["control_coefficient"]))


def test_geometric_asian_matches_its_closed_form():
    settings = cunum.MonteCarloSettings(payoff="asian_geometric", paths=1 << 18, time_steps=12, antithetic=True)
    pricer = cunum.MonteCarloPricer(settings, backend="cpu")
    estimate = pricer.price({"spot": 100.0, "strike": 95.0, "expiry": 1.0, "rate": 0.03, "volatility": 0.25})
    exact = cunum.monte_carlo.geometric_asian_price(100.0, 95.0, 1.0, 0.25, rate=0.03, type="call", time_steps=12)
    assert abs(estimate["price"][0] - exact) < 5 * estimate["standard_error"][0]


def test_a_batch_is_loaded_once_and_priced_bit_identically(rng):
    pricer = cunum.MonteCarloPricer(cunum.MonteCarloSettings(paths=1 << 12), backend="cpu")
    batch = pricer.load(OPTIONS, first_stream=3)
    assert batch.size == 3 and batch.first_stream == 3
    first = pricer.price(batch)
    second = pricer.price(batch)
    assert np.array_equal(first["price"], second["price"])
    # Splitting the batch with first_stream set accordingly gives the same numbers.
    tail = pricer.price({k: (v[1:] if isinstance(v, np.ndarray) else v) for k, v in OPTIONS.items()},
                        first_stream=4)
    assert np.array_equal(tail["price"], first["price"][1:])


def test_structured_arrays_and_out_buffers():
    pricer = cunum.MonteCarloPricer(cunum.MonteCarloSettings(paths=1 << 10), "float32", backend="cpu")
    table = np.zeros(2, dtype=[("spot", "f8"), ("strike", "f8"), ("expiry", "f8"), ("volatility", "f8")])
    table["spot"], table["strike"], table["expiry"], table["volatility"] = 100, [90, 110], 0.5, 0.2
    out = np.empty(2 * pricer.estimate_bytes, np.uint8)
    estimates = pricer.price(table, out)
    assert np.shares_memory(estimates["price"], out)
    records = out.view(cunum.monte_carlo.estimate_dtype("float32"))
    assert np.array_equal(records["price"], estimates["price"]) and np.array_equal(records["paths"], [1024, 1024])


def test_multi_asset_greeks_sum_to_the_parallel_greeks():
    settings = cunum.MonteCarloSettings(payoff="basket", paths=1 << 14, greeks=True, assets=2,
                                        correlation=[[1.0, 0.5], [0.5, 1.0]])
    pricer = cunum.MonteCarloPricer(settings, backend="cpu")
    assets = np.array([[[100.0, 0.0, 0.2, 0.5], [90.0, 0.01, 0.3, 0.5]]])
    estimates = pricer.price({"assets": assets, "strike": 95.0, "expiry": 1.0, "rate": 0.02}, asset_greeks=True)
    assert estimates["asset_delta"].shape == (1, 2)
    assert estimates["asset_delta"].sum() == pytest.approx(estimates["delta"][0], rel=1e-9)
    assert estimates["asset_vega"].sum() == pytest.approx(estimates["vega"][0], rel=1e-9)


def test_bad_options_and_settings_are_refused_by_name():
    pricer = cunum.MonteCarloPricer(cunum.MonteCarloSettings(paths=1 << 10), backend="cpu")
    require_error(cunum.InvalidArgument, "'options[1].volatility'", pricer.load,
                  {"spot": 100.0, "strike": 100.0, "expiry": 1.0, "volatility": np.array([0.2, -0.1])})
    require_error(cunum.InvalidArgument, "has no field 'expiry'", pricer.load,
                  {"spot": 100.0, "strike": 100.0, "volatility": 0.2})
    require_error(cunum.InvalidArgument, "unknown fields ['sigma']", pricer.load,
                  {"spot": 100.0, "strike": 100.0, "expiry": 1.0, "volatility": 0.2, "sigma": 0.2})
    require_error(cunum.InvalidArgument, "'settings.paths'", cunum.MonteCarloPricer,
                  cunum.MonteCarloSettings(paths=1), backend="cpu")
    require_error(cunum.InvalidArgument, "'settings.payoff'", cunum.MonteCarloSettings, payoff="bermudan")
    other = cunum.MonteCarloPricer(cunum.MonteCarloSettings(paths=1 << 10), "float32", backend="cpu")
    batch = other.load({"spot": 100.0, "strike": 100.0, "expiry": 1.0, "volatility": 0.2})
    require_error(cunum.InvalidArgument, "argument 'batch'", pricer.price, batch)
    own = pricer.load({"spot": 100.0, "strike": 100.0, "expiry": 1.0, "volatility": 0.2})
    require_error(cunum.InvalidArgument, "argument 'results' has shape (3,)", pricer.price, own, np.empty(3, np.uint8))
