#!/usr/bin/env python3
"""The high-precision truth of the implied-volatility tests (implied_volatility_oracle.csv).

Each row is one option in one precision (64: double, 32: float): its inputs (S, K, T,
r, q), rounded to that precision, the option's price computed with mpmath at 60
significant digits from a chosen volatility and rounded to that precision too, and
the truth: the volatility whose exact price is that rounded price, on those exact
inputs (mpmath's root finder at 60 digits, its residual checked). So the truth
carries no rounding of the price: what the library gets wrong is its own.

Beside it, the relative condition number of the implied volatility in all its inputs,

    kappa = (|p| + sum over a in (S, K, T, r, q) of |a dP/da|) / (sigma dP/dsigma),

the factor by which relative perturbations of size u of the inputs move sigma (each
dsigma/da = -(dP/da) / (dP/dsigma) by the implicit function): an inversion that is
backward stable has an error of about u (1 + kappa). The tests call the inversion
well conditioned where kappa <= 100 and hold double to 1e-13 there.

The grid covers the whole domain of the normalised inversion, x = ln(F/K) from -30 to
30 (deep in and out of the money for calls and puts, the money itself and 1e-8 from it)
and total volatility s = sigma sqrt(T) from 1e-6 to 30 (near-zero time value in the money,
prices near the upper bound), with expiries, rates and dividend yields cycled through
a few values. Prices below the smallest normal number of the precision are left out;
a rounded price outside the exact no-arbitrage bounds (at or below the intrinsic value,
at or above the upper bound) has no truth: its volatility is written as nan.

Regenerate (a few minutes):
    python3 -m venv /tmp/venv-bs && /tmp/venv-bs/bin/pip install mpmath
    /tmp/venv-bs/bin/python tests/black_scholes/oracle/generate_implied_volatility_oracle.py \\
        > tests/black_scholes/oracle/implied_volatility_oracle.csv
"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 60

SPOT = 100.0
LOG_MONEYNESS = (0.0, 1e-8, -1e-8, 1e-4, -1e-4, 0.01, -0.01, 0.1, -0.1, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0,
                 10.0, -10.0, 30.0, -30.0)
TOTAL_VOLATILITIES = (1e-6, 1e-4, 1e-3, 0.01, 0.05, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
# (T, r, q), cycled over the rows.
MARKETS = ((1.0, 0.0, 0.0), (0.25, 0.05, 0.02), (4.0, -0.01, 0.03), (1.0 / 365, 0.1, 0.0))


def rounded(value, bits):
    """value rounded to the nearest double (bits 64) or float (bits 32), as an mpf."""
    as_double = float(value)
    if bits == 32:
        as_double = struct.unpack("f", struct.pack("f", as_double))[0]
    return mp.mpf(as_double)


def normal_cdf(z):
    return mp.erfc(-z / mp.sqrt(2)) / 2


def price(is_call, s, k, t, r, q, sigma):
    """The price of the option out of the money for its type, plus the intrinsic value by
    parity when it is in the money: no cancellation at any digit count."""
    forward = s * mp.exp((r - q) * t)
    discount = mp.exp(-r * t)
    total = sigma * mp.sqrt(t)
    d1 = mp.log(forward / k) / total + total / 2
    d2 = d1 - total
    call_out = forward <= k
    if call_out:
        out = discount * (forward * normal_cdf(d1) - k * normal_cdf(d2))  # the call
    else:
        out = discount * (k * normal_cdf(-d2) - forward * normal_cdf(-d1))  # the put
    if is_call == call_out:
        return out
    intrinsic = discount * (forward - k)  # call - put
    return out + intrinsic if is_call else out - intrinsic


def condition(is_call, s, k, t, r, q, sigma, p):
    step = mp.mpf(10) ** -25

    def derivative(index):
        args = [s, k, t, r, q, sigma]
        h = step * (abs(args[index]) if args[index] != 0 else 1)
        up = list(args)
        down = list(args)
        up[index] += h
        down[index] -= h
        return (price(is_call, *up) - price(is_call, *down)) / (2 * h)

    vega = derivative(5)
    inputs = (s, k, t, r, q)
    total = abs(p) + sum(abs(inputs[i] * derivative(i)) for i in range(5))
    return total / (sigma * vega)


def implied(residual, start):
    """The root of the increasing residual(sigma): a bracket grown from start by factors
    of 2, then bisection in ln sigma to 1e-45 relative (slow but sure at any conditioning)."""
    low = high = start
    while residual(low) > 0:
        low /= 2
    while residual(high) < 0:
        high *= 2
    while high / low - 1 > mp.mpf(10) ** -45:
        middle = mp.sqrt(low * high)
        if residual(middle) < 0:
            low = middle
        else:
            high = middle
    return mp.sqrt(low * high)


def main():
    out = sys.stdout
    out.write("precision,type,spot,strike,expiry,rate,dividend,price,volatility,kappa\n")
    row = 0
    for bits in (64, 32):
        smallest = 2.2250738585072014e-308 if bits == 64 else 1.1754943508222875e-38
        for x in LOG_MONEYNESS:
            for total in TOTAL_VOLATILITIES:
                for is_call in (True, False):
                    t, r, q = MARKETS[row % len(MARKETS)]
                    row += 1
                    s = rounded(SPOT, bits)
                    t, r, q = rounded(t, bits), rounded(r, bits), rounded(q, bits)
                    forward = s * mp.exp((r - q) * t)
                    k = rounded(forward * mp.exp(-x), bits)
                    sigma0 = mp.mpf(total) / mp.sqrt(t)
                    exact = price(is_call, s, k, t, r, q, sigma0)
                    p = rounded(exact, bits)
                    if not p >= smallest:
                        continue
                    discount = mp.exp(-r * t)
                    forward = s * mp.exp((r - q) * t)
                    intrinsic = max(discount * (forward - k) if is_call else discount * (k - forward), 0)
                    upper = discount * (forward if is_call else k)
                    truth = mp.nan
                    kappa = mp.inf
                    if intrinsic < p < upper:
                        truth = implied(lambda v: price(is_call, s, k, t, r, q, v) - p, sigma0)
                        kappa = condition(is_call, s, k, t, r, q, truth, p)
                    cells = [str(bits), "call" if is_call else "put"]
                    cells += [mp.nstr(v, 17, strip_zeros=False) for v in (s, k, t, r, q, p)]
                    cells.append("nan" if mp.isnan(truth) else mp.nstr(truth, 17, strip_zeros=False))
                    cells.append("inf" if mp.isinf(kappa) else mp.nstr(kappa, 6))
                    out.write(",".join(cells) + "\n")


if __name__ == "__main__":
    main()
