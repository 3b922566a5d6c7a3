#!/usr/bin/env python3
"""Fits the polynomials of cunum::device::sobol_normal_float (cunum/device/sobol.hpp).

A word x gives u = (x + 1/2) 2^-32 and z = Phi^-1(u). With k = |2x + 1 - 2^32| (odd,
|u - 1/2| = k 2^-33) the function forms w = -log2(4 u (1 - u)) = -log2(1 - k^2 2^-64)
(its logarithm is the GPU's lg2 instruction or the CPU's log2, no polynomial) and then

  centre: |z| = |u - 1/2| C(w) for w < 9.5 (|z| < 3.4), C of degree 10 in w - 2, float;
  tail:   |z| = T(sqrt w) for w >= 9.5, up to w = 31 (u = 2^-33), T of degree 9 in
          sqrt(w) - 4.325, double (the tail is rare, so its cost hardly counts).

Each minimises the largest relative error: the Remez exchange on a fine grid of values
from mpmath at 40 digits. C is then rounded to float one coefficient at a time from
the constant term up, the coefficients not yet rounded refitted around those that are
(a linear programme on the residual), so that the rounding costs little. Prints each
fit's largest relative error, before and after the rounding, in units of 2^-24, and the
coefficients as C++ hexadecimal literals from the constant term up (C's also times
2^-33, as the function holds them).

    python3 fit_sobol_normal_float.py

Needs mpmath, numpy and scipy. Under a minute.
"""
import mpmath as mp
import numpy as np
from scipy.optimize import linprog

mp.mp.dps = 40
SQRT2 = mp.sqrt(2)
UNIT = 2.0**-24
CENTRE_END = 9.5       # w at which the tail takes over
CENTRE_SHIFT = 2.0     # the centre polynomial's variable is w - 2 (an integer: exact)
TAIL_SHIFT = 4.325     # the tail polynomial's variable is sqrt(w) - 4.325
W_MAX = 31.0000001     # w of u = 2^-33, the smallest uniform


def centre_ratio(w):
    """C(w) = |z| / |u - 1/2| where 4 u (1 - u) = 2^-w."""
    w = mp.mpf(w)
    if w == 0:
        return mp.sqrt(2 * mp.pi)
    half_distance = mp.sqrt(-mp.expm1(-w * mp.log(2))) / 2  # |u - 1/2|
    return SQRT2 * mp.erfinv(2 * half_distance) / half_distance


def tail_normal(s):
    """|z| at w = s^2, from the lower tail u = 2^-w / (2 (1 + sqrt(1 - 2^-w)))."""
    v = mp.power(2, -mp.mpf(s) ** 2)
    u = v / (2 * (1 + mp.sqrt(1 - v)))
    return SQRT2 * mp.erfinv(1 - 2 * u)


class Target:
    def __init__(self, function, lo, hi, shift, points=6000):
        self.shift = shift
        chebyshev = lo + (hi - lo) * (1 - np.cos(np.pi * np.arange(points + 1) / points)) / 2
        self.x = np.unique(np.concatenate([chebyshev, np.linspace(lo, hi, points)]))
        self.t = self.x - shift
        self.value = np.array([float(function(x)) for x in self.x])

    def relative_error(self, coefficients):
        return (np.polyval(np.array(coefficients)[::-1], self.t) - self.value) / self.value


def remez(target, degree, iterations=40):
    """Minimax relative error polynomial in t = x - shift (exchange over the grid)."""
    n = degree + 2
    scale = np.max(np.abs(target.t))
    reference = np.linspace(0, len(target.x) - 1, n).astype(int)
    for _ in range(iterations):
        t, value = target.t[reference] / scale, target.value[reference]
        system = np.zeros((n, n))
        system[:, : degree + 1] = np.vander(t, degree + 1, increasing=True)
        system[:, degree + 1] = [(-1) ** i * value[i] for i in range(n)]
        solution = np.linalg.solve(system, value)
        coefficients = solution[: degree + 1] / scale ** np.arange(degree + 1)
        error = target.relative_error(coefficients)
        # The new reference: the largest error of each run of one sign, then the n
        # consecutive runs with the largest smallest error.
        runs = []
        for i in range(len(error)):
            if runs and np.sign(error[i]) == np.sign(error[runs[-1]]):
                if abs(error[i]) > abs(error[runs[-1]]):
                    runs[-1] = i
            else:
                runs.append(i)
        if len(runs) < n:
            break
        best = max(range(len(runs) - n + 1), key=lambda s: min(abs(error[runs[s + j]]) for j in range(n)))
        reference = np.array(runs[best : best + n])
    return list(coefficients)


def refit(target, coefficients, fixed):
    """The coefficients past `fixed` changed to minimise the largest relative error with
    the first len(fixed) coefficients held at `fixed` (a linear programme on the
    residual, scaled so that its tolerances are far below the errors)."""
    m, degree = len(fixed), len(coefficients) - 1
    current = list(fixed) + list(coefficients[m:])
    scale = np.max(np.abs(target.t))
    residual = -target.relative_error(current) * 2.0**30
    basis = np.stack([(target.t / scale) ** j for j in range(m, degree + 1)], axis=1) / target.value[:, None]
    free = degree + 1 - m
    bound = np.ones((len(residual), 1))
    result = linprog(np.r_[np.zeros(free), 1.0],
                     A_ub=np.vstack([np.hstack([basis, -bound]), np.hstack([-basis, -bound])]),
                     b_ub=np.concatenate([residual, -residual]),
                     bounds=[(None, None)] * free + [(0, None)], method="highs")
    correction = result.x[:free] / 2.0**30 / scale ** np.arange(m, degree + 1)
    return list(fixed) + [c + d for c, d in zip(current[m:], correction)]


def rounded_to_float(target, coefficients):
    """Rounded one at a time from the constant term up, the rest refitted each time."""
    fixed = []
    for j in range(len(coefficients)):
        coefficients = refit(target, coefficients, fixed)
        fixed.append(float(np.float32(coefficients[j])))
    return fixed


def report(name, target, coefficients, literal):
    worst = np.max(np.abs(target.relative_error(coefficients))) / UNIT
    print(f"{name}: largest relative error {worst:.3f} x 2^-24")
    print("  {" + ", ".join(literal(c) for c in coefficients) + "}")


def float_literal(c):
    return float(c).hex().replace("0000000p", "p") + "f"


def main():
    centre = Target(centre_ratio, 0.0, CENTRE_END, CENTRE_SHIFT)
    coefficients = remez(centre, 10)
    report("centre, C of degree 10 in w - 2, before rounding", centre, coefficients, float.hex)
    rounded = rounded_to_float(centre, coefficients)
    report("centre, rounded to float", centre, rounded, float_literal)
    print("  x 2^-33 (exact): {" + ", ".join(float_literal(c * 2.0**-33) for c in rounded) + "}")

    tail = Target(tail_normal, float(mp.sqrt(CENTRE_END - 1e-3)), float(mp.sqrt(W_MAX)), TAIL_SHIFT)
    report("tail, T of degree 9 in sqrt(w) - 4.325", tail, remez(tail, 9), float.hex)


if __name__ == "__main__":
    main()
