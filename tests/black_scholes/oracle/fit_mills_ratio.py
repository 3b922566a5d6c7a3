#!/usr/bin/env python3
"""Fits the float Mills ratio of src/black_scholes/black_scholes_math.hpp (mills_ratio_minimax).

m(a) = N(-a) / phi(a) = sqrt(pi/2) erfcx(a / sqrt 2), a >= 0, is written t P(t) with
t = 1 / (1 + C a) in (0, 1], so that P(t) = m(a) / t is smooth on [0, 1] with P(0) = C
(m ~ 1/a). P minimises the largest relative error of m: Lawson's iteration of weighted
least squares on Chebyshev points of [0, 1], mpmath at 40 digits. Prints the coefficients
of P from t^0 up and the largest relative error on a uniform grid of 2001 t.

    python3 fit_mills_ratio.py [degree] [C]     (defaults 10 and 0.3: the library's)

Needs only mpmath. About a minute.
"""
import sys

import mpmath as mp

mp.mp.dps = 40


def mills(a):
    return mp.sqrt(mp.pi / 2) * mp.erfc(a / mp.sqrt(2)) * mp.exp(a * a / 2)


def p_target(t, c):
    """m(a(t)) / t, with its limit C at t = 0 (a = inf)."""
    if t == 0:
        return c
    return mills((1 / t - 1) / c) / t


def horner(coefficients, t):
    value = mp.mpf(0)
    for coefficient in reversed(coefficients):
        value = value * t + coefficient
    return value


def fit(degree, c, points=200, iterations=40):
    ts = [(1 - mp.cos(mp.pi * (i + mp.mpf(0.5)) / points)) / 2 for i in range(points)] + [mp.mpf(0), mp.mpf(1)]
    targets = [p_target(t, c) for t in ts]
    weights = [mp.mpf(1)] * len(ts)
    for _ in range(iterations):
        system = mp.matrix(len(ts), degree + 1)
        rhs = mp.matrix(len(ts), 1)
        for i, t in enumerate(ts):
            row_scale = mp.sqrt(weights[i]) / targets[i]  # relative error
            for j in range(degree + 1):
                system[i, j] = row_scale * t**j
            rhs[i] = row_scale * targets[i]
        solution, _ = mp.qr_solve(system, rhs)
        coefficients = [solution[j] for j in range(degree + 1)]
        errors = [abs(horner(coefficients, t) - f) / f for t, f in zip(ts, targets)]
        total = sum(w * e for w, e in zip(weights, errors))
        weights = [w * e / total for w, e in zip(weights, errors)]
    worst = max(abs(horner(coefficients, t) - p_target(t, c)) / p_target(t, c)
                for t in (mp.mpf(i) / 2000 for i in range(2001)))
    return coefficients, worst


def main():
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    c = mp.mpf(sys.argv[2]) if len(sys.argv) > 2 else mp.mpf("0.3")
    coefficients, worst = fit(degree, c)
    print(f"degree {degree}, C {c}: largest relative error {mp.nstr(worst, 3)}")
    for j, coefficient in enumerate(coefficients):
        print(f"t^{j}: {mp.nstr(coefficient, 20)}")


if __name__ == "__main__":
    main()
