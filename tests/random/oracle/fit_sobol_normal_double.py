#!/usr/bin/env python3
"""Fits the polynomials of the double Sobol normals (cunum/device/detail/double_normal_quantile.hpp).

A uniform u of a Sobol word (u - 1/2 exact) gives a = |2u - 1|, W = -2 ln(1 - a^2)
= -2 ln(4 u (1 - u)) (the function forms 1 - a^2 by one fma and takes minus_two_log of
double_normal_math.hpp), and then

  centre: |z| = (a / 2) C(W) for W < 13 (|z| < 3.37), C of degree 24 in W - 4;
  tail:   |z| = T(sqrt W) for 13 <= W <= 72.08 (u down to 2^-54, the smallest uniform
          of a 53-bit word), T of degree 24 in sqrt(W) - 6.

Each minimises the largest relative error: the Remez exchange on a grid of values from
mpmath at 50 digits, the linear systems in mpmath too (a double fit would stop near
2^-53). Prints each fit's largest relative error in units of 2^-53, before the
coefficients are rounded to double and after (Horner's rule in double, each step one
rounding, as the fma gives), and the coefficients as C++ hexadecimal literals from the
constant term up.

    python3 fit_sobol_normal_double.py

Needs mpmath. About a minute.
"""
import mpmath as mp

mp.mp.dps = 50
SQRT2 = mp.sqrt(2)
UNIT = mp.mpf(2) ** -53
CENTRE_END = 13        # W at which the tail takes over
CENTRE_SHIFT = 4       # the centre polynomial's variable is W - 4
TAIL_SHIFT = 6         # the tail polynomial's variable is sqrt(W) - 6
W_MAX = 72.0846        # W of u = 2^-54 (a = 1 - 2^-53): -2 ln(2^-52 - 2^-106)
DEGREE = 24


def centre_ratio(w):
    """C(W) = |z| / (a / 2) where 1 - a^2 = exp(-W / 2)."""
    w = mp.mpf(w)
    if w == 0:
        return mp.sqrt(2 * mp.pi)
    half_a = mp.sqrt(-mp.expm1(-w / 2)) / 2
    return SQRT2 * mp.erfinv(2 * half_a) / half_a


def tail_normal(r):
    """|z| at W = r^2, from the lower root u of 4 u (1 - u) = exp(-W / 2)."""
    t = mp.exp(-mp.mpf(r) ** 2 / 2)
    u = t / (2 * (1 + mp.sqrt(1 - t)))
    return SQRT2 * mp.erfinv(1 - 2 * u)


def grid(lo, hi, n):
    """Chebyshev and evenly spaced points of [lo, hi], merged."""
    points = [lo + (hi - lo) * (1 - mp.cos(mp.pi * i / n)) / 2 for i in range(n + 1)]
    points += [lo + (hi - lo) * mp.mpf(i) / n for i in range(n + 1)]
    return sorted(set(points))


def remez(function, lo, hi, shift, degree, points=1200, iterations=30):
    """Minimax relative error polynomial in t = x - shift, exchanged over the grid."""
    x = grid(mp.mpf(lo), mp.mpf(hi), points)
    value = [function(v) for v in x]
    t = [v - shift for v in x]
    scale = max(abs(v) for v in t)
    n = degree + 2
    reference = [round(i * (len(x) - 1) / (n - 1)) for i in range(n)]
    best = None
    for _ in range(iterations):
        system, right = mp.matrix(n, n), mp.matrix(n, 1)
        for row, i in enumerate(reference):
            for j in range(degree + 1):
                system[row, j] = (t[i] / scale) ** j
            system[row, degree + 1] = (-1) ** row * value[i]
            right[row] = value[i]
        solution = mp.lu_solve(system, right)
        coefficients = [solution[j] / scale**j for j in range(degree + 1)]
        error = [(mp.polyval(coefficients[::-1], ti) - vi) / vi for ti, vi in zip(t, value)]
        worst = max(abs(e) for e in error)
        if best is None or worst < best[0]:
            best = (worst, coefficients)
        # The new reference: the largest error of each run of one sign, then the n
        # consecutive runs with the largest smallest error.
        runs = []
        for i, e in enumerate(error):
            if runs and mp.sign(e) == mp.sign(error[runs[-1]]):
                if abs(e) > abs(error[runs[-1]]):
                    runs[-1] = i
            else:
                runs.append(i)
        if len(runs) < n:
            break
        start = max(range(len(runs) - n + 1), key=lambda s: min(abs(error[runs[s + j]]) for j in range(n)))
        if runs[start : start + n] == reference:
            break
        reference = runs[start : start + n]
    return best[0], best[1], t, value


def rounded_error(coefficients, t, value):
    """The largest relative error with the coefficients and t rounded to double and
    Horner's rule rounding once a step."""
    c = [float(v) for v in coefficients]
    worst = mp.mpf(0)
    for ti, vi in zip(t, value):
        td, p = float(ti), c[-1]
        for cj in reversed(c[:-1]):
            p = float(mp.mpf(p) * td + cj)
        worst = max(worst, abs((mp.mpf(p) - vi) / vi))
    return worst


def report(name, fit):
    worst, coefficients, t, value = fit
    print(f"{name}: largest relative error {mp.nstr(worst / UNIT, 3)} x 2^-53, "
          f"{mp.nstr(rounded_error(coefficients, t, value) / UNIT, 3)} rounded to double")
    print("  {" + ", ".join(float(c).hex() for c in coefficients) + "}")


def main():
    report(f"centre, C of degree {DEGREE} in W - {CENTRE_SHIFT}",
           remez(centre_ratio, 0, CENTRE_END, CENTRE_SHIFT, DEGREE))
    report(f"tail, T of degree {DEGREE} in sqrt(W) - {TAIL_SHIFT}",
           remez(tail_normal, mp.sqrt(CENTRE_END) - mp.mpf("1e-6"), mp.sqrt(W_MAX) + mp.mpf("1e-6"), TAIL_SHIFT,
                 DEGREE))


if __name__ == "__main__":
    main()
