#!/usr/bin/env python3
"""Fits the minimax Mills ratios of src/black_scholes/black_scholes_math.hpp.

m(a) = N(-a) / phi(a) = sqrt(pi/2) erfcx(a / sqrt 2), a >= 0, is written as a polynomial
P in a variable y(a) that maps [0, inf) (or a part of it) into a bounded interval:

  float (mills_ratio_minimax):   m(a) = t P(t), t = 1 / (1 + C a) in (0, 1], P(0) = C
                                 (m ~ 1/a), degree 10, C = 0.3, over all of [0, inf);
  double (mills_ratios_minimax): (1 + sqrt(2) a) m(a) = P(y), y = (a - k) / (a + k),
                                 k = 4 sqrt 2, degree 22, over a in [0, 45] (the form of
                                 Shepherd and Laframboise's erfcx, Math. Comp. 36 (1981)).

P minimises the largest relative error of m: Lawson's iteration of weighted least
squares on Chebyshev points of the interval, mpmath at 50 digits. Prints the largest
relative error on a uniform grid and the coefficients of P from y^0 up.

    python3 fit_mills_ratio.py            # the float fit
    python3 fit_mills_ratio.py --double   # the double fit

Needs only mpmath. A few minutes each.
"""
import sys

import mpmath as mp

mp.mp.dps = 50
SQRT2 = mp.sqrt(2)


def mills(a):
    return mp.sqrt(mp.pi / 2) * mp.erfc(a / SQRT2) * mp.exp(a * a / 2)


def float_target(t):
    """m(a(t)) / t with t = 1 / (1 + C a), and its limit C at t = 0 (a = inf)."""
    c = mp.mpf("0.3")
    return c if t == 0 else mills((1 / t - 1) / c) / t


def double_target(y):
    """(1 + sqrt(2) a) m(a) with a = k (1 + y) / (1 - y)."""
    a = 4 * SQRT2 * (1 + y) / (1 - y)
    return (1 + SQRT2 * a) * mills(a)


def horner(coefficients, y):
    value = mp.mpf(0)
    for coefficient in reversed(coefficients):
        value = value * y + coefficient
    return value


def fit(target, lo, hi, degree, points=160, iterations=25):
    ys = [lo + (hi - lo) * (1 - mp.cos(mp.pi * (i + mp.mpf(0.5)) / points)) / 2 for i in range(points)] + [lo, hi]
    values = [target(y) for y in ys]
    weights = [mp.mpf(1)] * len(ys)
    for _ in range(iterations):
        system = mp.matrix(len(ys), degree + 1)
        rhs = mp.matrix(len(ys), 1)
        for i, y in enumerate(ys):
            row_scale = mp.sqrt(weights[i]) / values[i]  # relative error
            power = mp.mpf(1)
            for j in range(degree + 1):
                system[i, j] = row_scale * power
                power *= y
            rhs[i] = row_scale * values[i]
        solution, _ = mp.qr_solve(system, rhs)
        coefficients = [solution[j] for j in range(degree + 1)]
        errors = [abs(horner(coefficients, y) - f) / f for y, f in zip(ys, values)]
        total = sum(w * e for w, e in zip(weights, errors))
        weights = [w * e / total for w, e in zip(weights, errors)]
    grid = (lo + (hi - lo) * mp.mpf(i) / 3000 for i in range(3001))
    worst = max(abs(horner(coefficients, y) - target(y)) / target(y) for y in grid)
    return coefficients, worst


def main():
    if "--double" in sys.argv[1:]:
        core = mp.mpf(45)
        k = 4 * SQRT2
        coefficients, worst = fit(double_target, mp.mpf(-1), (core - k) / (core + k), 22)
        name = "double, degree 22 in y = (a - 4 sqrt 2) / (a + 4 sqrt 2), a in [0, 45]"
    else:
        coefficients, worst = fit(float_target, mp.mpf(0), mp.mpf(1), 10, points=200, iterations=40)
        name = "float, degree 10 in t = 1 / (1 + 0.3 a), a in [0, inf)"
    print(f"{name}: largest relative error {mp.nstr(worst, 3)}")
    for j, coefficient in enumerate(coefficients):
        print(f"y^{j}: {mp.nstr(coefficient, 25)}")


if __name__ == "__main__":
    main()
