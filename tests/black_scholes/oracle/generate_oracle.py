#!/usr/bin/env python3
"""The high-precision truth of the Black-Scholes accuracy tests (black_scholes_oracle.csv).

For every option of a grid it writes the twelve outputs of cunum::BlackScholesPricer
(prices, Greeks, forward, discount) evaluated with mpmath at 80 significant digits,
and beside each output its relative condition number

    kappa = sum over the inputs x of |x df/dx| / |f|,   x in (S, K, T, r, q, sigma),

the factor by which relative perturbations of the inputs of size u move the output:
an algorithm that is backward stable in its inputs has error about u (1 + kappa).
The tests hold cunum's outputs to 32 u (1 + kappa), u the unit roundoff of the type.

The grid covers expiries from one hour to 30 years, volatilities from 0.1% to 300%,
strikes from 1% to 50x spot (fixed ratios, plus strikes placed at fixed distances
from the forward in standard deviations, which reach the far tails at every
volatility), and positive, zero and negative rates and dividend yields. Every input
is a float32 value, written exactly (its full decimal expansion), so that one
truth serves the float and the double tests.

Prices are formed as the textbook difference S e^{-qT} N(d1) - K e^{-rT} N(d2) (no
rearrangement: an independent answer), with N(x) = erfc(-x / sqrt 2) / 2; at 80
digits the cancellation of the two terms (at most about 12 digits on this grid)
leaves more than 60. The Greeks are the closed forms of include/cunum/black_scholes.hpp,
and each row checks them against central differences of the price (delta, gamma,
vega, theta = -dC/dT, rho) to 1e-25, so that the truth does not rest on those
formulas. kappa is formed by central differences with relative steps of 1e-30.
Values are written with 17 significant digits (a value below the double range reads
as 0 in C++, which the tests treat as below the smallest normal number).

Regenerate (a few minutes):
    python3 -m venv /tmp/venv-bs && /tmp/venv-bs/bin/pip install mpmath
    /tmp/venv-bs/bin/python tests/black_scholes/oracle/generate_oracle.py \
        > tests/black_scholes/oracle/black_scholes_oracle.csv
"""
import decimal
import struct
import sys

import mpmath as mp

mp.mp.dps = 80

OUTPUTS = ("call", "put", "delta_call", "delta_put", "gamma", "vega", "theta_call", "theta_put",
           "rho_call", "rho_put", "forward", "discount")
INPUTS = ("spot", "strike", "expiry", "rate", "dividend", "volatility")

SPOT = 100.0
HOUR = 1.0 / (365 * 24)
EXPIRIES = (HOUR, 1.0 / 365, 0.1, 1.0, 5.0, 30.0)
VOLATILITIES = (0.001, 0.01, 0.1, 0.4, 1.0, 3.0)
STRIKE_RATIOS = (0.01, 0.5, 0.9, 1.0, 1.1, 2.0, 50.0)
# ln(F/K) / (sigma sqrt T) of the extra strikes: from calls deep out of the money (negative)
# to puts deep out of the money (positive).
STANDARD_DEVIATIONS = (-30.0, -10.0, -4.0, -1.2, -0.3, 0.1, 0.8, 2.5, 7.0, 20.0)
RATES_AND_DIVIDENDS = ((0.03, 0.0), (-0.01, 0.02), (0.1, -0.005), (0.0, 0.03))
# The two options of the issue that found the loss of accuracy (put, then call).
ISSUE_CASES = ((100.0, 100.0, 0.1, 0.1, 0.0, 0.001), (100.0, 100.0, 1.0, 0.0, 0.03, 0.001))


def float32(x):
    """x rounded to the nearest float32, as a Python float (exact in both precisions)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def norm_cdf(x):
    return mp.erfc(-x / mp.sqrt(2)) / 2


def norm_pdf(x):
    return mp.exp(-x * x / 2) / mp.sqrt(2 * mp.pi)


def outputs(s, k, t, r, q, v):
    """The twelve outputs at (S, K, T, r, q, sigma), mpf arguments."""
    sqrt_t = mp.sqrt(t)
    sd = v * sqrt_t
    d1 = (mp.log(s / k) + (r - q) * t) / sd + sd / 2
    d2 = d1 - sd
    carry, discount = mp.exp(-q * t), mp.exp(-r * t)
    n1, n2, m1, m2 = norm_cdf(d1), norm_cdf(d2), norm_cdf(-d1), norm_cdf(-d2)
    pdf1 = norm_pdf(d1)
    decay = -s * carry * pdf1 * v / (2 * sqrt_t)
    return {
        "call": s * carry * n1 - k * discount * n2,
        "put": k * discount * m2 - s * carry * m1,
        "delta_call": carry * n1,
        "delta_put": -carry * m1,
        "gamma": carry * pdf1 / (s * sd),
        "vega": s * carry * pdf1 * sqrt_t,
        "theta_call": decay - r * k * discount * n2 + q * s * carry * n1,
        "theta_put": decay + r * k * discount * m2 - q * s * carry * m1,
        "rho_call": k * t * discount * n2,
        "rho_put": -k * t * discount * m2,
        "forward": s * mp.exp((r - q) * t),
        "discount": discount,
    }


def shifted(point, index, factor):
    moved = list(point)
    moved[index] = moved[index] * factor
    return moved


def derivatives(point, step):
    """x_i df/dx_i for every input i and output f, by central differences of relative
    step `step` (inputs that are 0 are exact and contribute nothing)."""
    result = []
    for i, x in enumerate(point):
        if x == 0:
            result.append({name: mp.mpf(0) for name in OUTPUTS})
            continue
        up = outputs(*shifted(point, i, 1 + step))
        down = outputs(*shifted(point, i, 1 - step))
        result.append({name: (up[name] - down[name]) / (2 * step) for name in OUTPUTS})
    return result


def check_greeks(point, values):
    """The closed-form Greeks against central differences of the prices. A difference
    resolves a Greek only to the rounding of the prices it subtracts (80 digits of
    S + K) over its step: a Greek far below that (the vega of a deep in-the-money
    call) is checked through the other option, which has the same closed form."""
    s, k, t, r, q, v = point
    h = mp.mpf("1e-30")

    def price(name, **change):
        moved = dict(zip(("s", "k", "t", "r", "q", "v"), point))
        for key, delta in change.items():
            moved[key] += delta
        return outputs(**moved)[name]

    def difference(name, key, step):
        return (price(name, **{key: step}) - price(name, **{key: -step})) / (2 * step), step

    checks = []
    for option in ("call", "put"):
        checks += [
            ("delta_" + option, difference(option, "s", s * h)),
            ("vega", difference(option, "v", v * h)),
            ("theta_" + option, difference(option, "t", t * h)),
            ("rho_" + option, difference(option, "r", h)),
        ]
    checks.append(("gamma", difference("delta_call", "s", s * h)))
    for name, (numeric, step) in checks:
        if name.startswith("theta"):
            numeric = -numeric
        exact = values[name]
        resolution = mp.mpf("1e-70") * (s + k) / step
        if abs(numeric - exact) > mp.mpf("1e-25") * abs(exact) + resolution:
            raise SystemExit(f"{name} at {[float(x) for x in point]}: closed form {exact} vs difference {numeric}")


def grid():
    """Every option of the grid as (S, K, T, r, q, sigma) float32 values."""
    cases = []
    for t in EXPIRIES:
        for v in VOLATILITIES:
            for r, q in RATES_AND_DIVIDENDS:
                t32, v32, r32, q32 = float32(t), float32(v), float32(r), float32(q)
                strikes = [float32(SPOT * ratio) for ratio in STRIKE_RATIOS]
                forward = SPOT * mp.exp((mp.mpf(r32) - q32) * t32)
                for z in STANDARD_DEVIATIONS:
                    strike = float32(float(forward * mp.exp(-z * v32 * mp.sqrt(t32))))
                    if 0.01 * SPOT <= strike <= 50 * SPOT:  # the far ones repeat the fixed extremes
                        strikes.append(strike)
                for k in strikes:
                    cases.append((float32(SPOT), k, t32, r32, q32, v32))
    cases += [tuple(float32(x) for x in case) for case in ISSUE_CASES]
    return cases


def number(x, digits):
    return mp.nstr(x, digits, min_fixed=1, max_fixed=0)


def main():
    out = sys.stdout
    out.write(",".join(INPUTS + tuple(f"{name},kappa_{name}" for name in OUTPUTS)) + "\n")
    step = mp.mpf("1e-30")
    for case in grid():
        point = [mp.mpf(x) for x in case]
        values = outputs(*point)
        check_greeks(point, values)
        slopes = derivatives(point, step)
        cells = [str(decimal.Decimal(x)) for x in case]  # exact: the decimal expansion of the float32
        for name in OUTPUTS:
            f = values[name]
            kappa = sum(abs(slope[name]) for slope in slopes) / abs(f)
            cells += [number(f, 17), number(kappa, 3)]
        out.write(",".join(cells) + "\n")


if __name__ == "__main__":
    main()
