#!/usr/bin/env python3
"""Fits the polynomials of the float Box-Muller (cunum/device/detail/float_normal_math.hpp).

  sine:      sin(pi/2 f) = f (pi/2 + z P(z)), z = f^2 <= 1/4 (|f| <= 1/2 quarter
             turns), pi/2 held exactly (the function takes it as two floats), P of
             degree 2;
  cosine:    cos(pi/2 f) = 1 + z C(z), C of degree 3 (the 1 held);
  logarithm: -2 ln(1 + f) = -2 f + f^2 Q(f) for f in [-1/3, 1/3] (the mantissa m = 1 + f
             of u in [2/3, 4/3)), Q of degree 8: fitted as -2 + f Q(f), the -2 held.

Each minimises the largest relative error of what it computes (the sine, the cosine,
-2 ln(1 + f)) by the Remez exchange on a fine grid of values from mpmath at 40 digits,
then is rounded to float one coefficient at a time from the constant term up, the rest
refitted around those already rounded (fit_sobol_normal_float.py's method and code).
Prints each fit's largest relative error, before and after the rounding, in units of
2^-24, and the coefficients as C++ float literals from the constant term up (the held
terms first: the function's P and Q are the rest, P's constant the rest of pi/2).

    cd tests/random/oracle && python3 fit_box_muller_float.py

Needs mpmath, numpy and scipy. Under a minute.
"""
import mpmath as mp
import numpy as np

from fit_sobol_normal_float import Target, UNIT, float_literal, refit, remez

mp.mp.dps = 40
HALF_PI = mp.pi / 2


def sine_ratio(z):
    """S(z) = sin(pi/2 f) / f at z = f^2."""
    f = mp.sqrt(mp.mpf(z))
    return HALF_PI if f == 0 else mp.sin(HALF_PI * f) / f


def cosine(z):
    return mp.cos(HALF_PI * mp.sqrt(mp.mpf(z)))


def minus_two_log_ratio(f):
    """L(f) = -2 ln(1 + f) / f."""
    f = mp.mpf(f)
    return mp.mpf(-2) if f == 0 else -2 * mp.log1p(f) / f


def fitted(target, degree, fixed=()):
    """Remez, then rounded to float with the constant term(s) `fixed` held exactly."""
    coefficients = remez(target, degree)
    before = coefficients
    rounded = list(fixed)
    for j in range(len(fixed), degree + 1):
        coefficients = refit(target, coefficients, rounded)
        rounded.append(float(np.float32(coefficients[j])))
    return before, rounded


def report(name, target, before, after):
    for label, coefficients in (("before rounding", before), ("rounded to float", after)):
        worst = np.max(np.abs(target.relative_error(coefficients))) / UNIT
        print(f"{name}, {label}: largest relative error {worst:.3f} x 2^-24")
    print("  {" + ", ".join(float_literal(c) for c in after) + "}")


def main():
    # sin(pi/2 f) = f (pi/2 + z P(z)): pi/2 held (in two floats, its rounding would cost
    # 0.47 x 2^-24), P refitted around it and rounded.
    sine = Target(sine_ratio, 0.0, 0.25, 0.0)
    half_pi = float(HALF_PI)
    before, after = fitted(sine, 3, fixed=(half_pi,))
    report("sine, f (pi/2 + z P(z)), P of degree 2", sine, before, after)
    high = float(np.float32(half_pi))
    print(f"  pi/2 = {float_literal(high)} + {float_literal(np.float32(float(HALF_PI) - high))}")

    # cos(pi/2 f) = 1 + z C(z): the cosine's polynomial of degree 4 in z with its 1 held.
    cosine_target = Target(cosine, 0.0, 0.25, 0.0)
    before, after = fitted(cosine_target, 4, fixed=(1.0,))
    report("cosine, 1 + z C(z), C of degree 3", cosine_target, before, after)

    # -2 ln(1 + f) = -2 f + f^2 Q(f): L(f) = -2 + f Q(f) with its -2 held.
    logarithm = Target(minus_two_log_ratio, -1.0 / 3.0, 1.0 / 3.0, 0.0)
    before, after = fitted(logarithm, 9, fixed=(-2.0,))
    report("logarithm, -2 f + f^2 Q(f), Q of degree 8 (the coefficients of -2 + f Q)", logarithm, before,
           after)


if __name__ == "__main__":
    main()
