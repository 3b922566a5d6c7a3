"""cunum.black_scholes on NumPy arrays, held to the mpmath oracle the C++ suites use
(tests/black_scholes/oracle/: 2181 options, 80-digit values and condition numbers)."""

import csv
import math
import pathlib

import numpy as np
import pytest

import cunum
from conftest import require_error

pytestmark = pytest.mark.cpu

ORACLE = pathlib.Path(__file__).resolve().parents[2] / "tests/black_scholes/oracle/black_scholes_oracle.csv"
INPUTS = ("spot", "strike", "expiry", "rate", "dividend", "volatility")


def read_oracle():
    with ORACLE.open() as file:
        rows = list(csv.DictReader(file))
    return {key: np.array([float(row[key]) for row in rows]) for key in rows[0]}


ORACLE_COLUMNS = read_oracle()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_output_is_within_the_documented_bound_of_the_oracle(dtype):
    # The header's bound: |f - exact| <= 32 u (1 + kappa) |exact| + the smallest normal number.
    inputs = {key: ORACLE_COLUMNS[key].astype(dtype) for key in INPUTS}
    pricer = cunum.BlackScholesPricer("all", dtype, backend="cpu")
    results = pricer.price(inputs["spot"], inputs["strike"], inputs["expiry"], rate=inputs["rate"],
                           dividend=inputs["dividend"], volatility=inputs["volatility"])
    assert sorted(results) == sorted(cunum.black_scholes.OUTPUTS)
    u = np.finfo(dtype).eps / 2
    smallest = np.finfo(dtype).tiny
    for name in cunum.black_scholes.OUTPUTS:
        exact = ORACLE_COLUMNS[name]
        kappa = ORACLE_COLUMNS["kappa_" + name]
        got = results[name].astype(np.float64)
        assert results[name].dtype == dtype
        bound = 32 * u * (1 + kappa) * np.abs(exact) + smallest
        worst = np.argmax(np.abs(got - exact) - bound)
        assert np.all(np.abs(got - exact) <= bound), (name, worst, got[worst], exact[worst])


def test_implied_volatility_round_trips_the_prices():
    # The header: implied_volatility() of a double price() is within 128 u (1 + 1/nu) of sigma
    # wherever the relative vega nu = sigma / p dp/dsigma is at least 1e-8.
    inputs = {key: ORACLE_COLUMNS[key] for key in INPUTS}
    priced = cunum.black_scholes.price(inputs["spot"], inputs["strike"], inputs["expiry"], rate=inputs["rate"],
                                       dividend=inputs["dividend"], volatility=inputs["volatility"],
                                       outputs=("call", "vega"))
    sigma = inputs["volatility"]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        nu = sigma / priced["call"] * priced["vega"]
    keep = np.isfinite(nu) & (nu >= 1e-8) & (priced["call"] > 0)
    vol, rejected = cunum.black_scholes.implied_volatility(
        priced["call"][keep], inputs["spot"][keep], inputs["strike"][keep], inputs["expiry"][keep],
        rate=inputs["rate"][keep], dividend=inputs["dividend"][keep], type="call")
    assert rejected.dtype == np.int64 and rejected.shape == () and int(rejected) == 0
    u = 2.0**-53
    assert np.all(np.abs(vol - sigma[keep]) <= 128 * u * (1 + 1 / nu[keep]) * sigma[keep])


def independent_call(s, k, t, r, q, sigma):
    """The textbook formula in double, with N(x) = erfc(-x / sqrt 2) / 2."""
    d1 = (math.log(s / k) + (r - q + sigma * sigma / 2) * t) / (sigma * math.sqrt(t))
    d2 = d1 - sigma * math.sqrt(t)
    n = lambda x: math.erfc(-x / math.sqrt(2)) / 2  # noqa: E731
    return s * math.exp(-q * t) * n(d1) - k * math.exp(-r * t) * n(d2)


def test_scalars_and_arrays_mix_and_results_follow_the_input_shape(rng):
    shape = (3, 5)
    spot = rng.uniform(80, 120, shape)
    strike = rng.uniform(80, 120, shape)
    expiry = rng.uniform(0.1, 2, shape)
    sigma = rng.uniform(0.1, 0.5, shape)
    results = cunum.black_scholes.price(spot, strike, expiry, rate=0.03, dividend=0.01, volatility=sigma)
    assert results["call"].shape == shape and set(results) == {"call", "put"}
    for index in np.ndindex(shape):
        expected = independent_call(spot[index], strike[index], expiry[index], 0.03, 0.01, sigma[index])
        assert results["call"][index] == pytest.approx(expected, rel=1e-12)
    # put-call parity
    parity = spot * np.exp(-0.01 * expiry) - strike * np.exp(-0.03 * expiry)
    assert np.allclose(results["call"] - results["put"], parity, rtol=1e-12, atol=1e-12)


def test_out_arrays_are_written_in_place_and_may_alias_an_input(rng):
    spot = rng.uniform(80, 120, 64)
    strike = spot.copy()
    expiry = np.full(64, 0.5)
    call = np.empty(64)
    pricer = cunum.BlackScholesPricer(("call", "put"), backend="cpu")
    expected = pricer.price(spot, strike, expiry, volatility=0.2)
    results = pricer.price(spot, strike, expiry, volatility=0.2, out={"call": call, "put": strike})
    assert results["call"] is call and results["put"] is strike
    assert np.array_equal(call, expected["call"]) and np.array_equal(strike, expected["put"])


def test_bad_arguments_are_refused_by_name():
    pricer = cunum.BlackScholesPricer(("call",), "float64", backend="cpu")
    spot = np.ones(4)
    require_error(cunum.InvalidArgument, "argument 'strike' has shape (3,); expected (4,)", pricer.price, spot,
                  np.ones(3), spot, volatility=0.2)
    require_error(cunum.InvalidArgument, "argument 'expiry' has dtype float32", pricer.price, spot, spot,
                  spot.astype(np.float32), volatility=0.2)
    require_error(cunum.InvalidArgument, "argument 'out' names 'put'", pricer.price, spot, spot, spot,
                  volatility=0.2, out={"put": np.empty(4)})
    require_error(cunum.InvalidArgument, "argument 'market.volatility'", pricer.price, spot, spot, spot,
                  volatility=float("nan"))
    overlapping = np.ones(5)
    require_error(cunum.InvalidArgument, "argument 'results.call'", pricer.price, overlapping[:4], spot, spot,
                  volatility=0.2, out={"call": overlapping[1:]})
    require_error(cunum.InvalidArgument, "argument 'outputs'", cunum.BlackScholesPricer, ("call", "charm"))
    require_error(cunum.InvalidArgument, "argument 'type'", pricer.implied_volatility, spot, spot, spot, spot,
                  type="straddle")
    assert pricer.outputs == ["call"] and pricer.dtype == "float64"
