"""Black-Scholes-Merton European options in batches: call and put prices, their
first-order Greeks, the forward and the discount factor in one pass, and implied
volatility (the C++ cunum::BlackScholesPricer, include/cunum/black_scholes.hpp).

Per option with spot S, strike K, expiry T (years), rate r, dividend yield q and
volatility sigma:

    F = S e^{(r-q)T},  D = e^{-rT},
    d1 = (ln(S/K) + (r - q)T) / (sigma sqrt T) + sigma sqrt(T) / 2,  d2 = d1 - sigma sqrt T,
    call = S e^{-qT} N(d1) - K D N(d2),        put = K D N(-d2) - S e^{-qT} N(-d1),
    delta_call = e^{-qT} N(d1),                delta_put = -e^{-qT} N(-d1),
    gamma = e^{-qT} phi(d1) / (S sigma sqrt T), vega = S e^{-qT} phi(d1) sqrt T,
    theta_call = -S e^{-qT} phi(d1) sigma / (2 sqrt T) - r K D N(d2) + q S e^{-qT} N(d1),
    theta_put  = -S e^{-qT} phi(d1) sigma / (2 sqrt T) + r K D N(-d2) - q S e^{-qT} N(-d1),
    rho_call = K T D N(d2),                    rho_put = -K T D N(-d2).

Theta is per year, vega and rho per unit of sigma and r. Prices are formed without
cancellation out of the money; every output is within 32 u (1 + kappa) of the exact
value (u the unit roundoff, kappa the output's condition number). An option with a
NaN, infinite or negative input gets NaN outputs; T = 0 or sigma = 0 give the limits.

    import cunum, cupy as cp
    S = cp.full(1 << 20, 100.0); K = cp.linspace(50, 150, 1 << 20); T = cp.full(1 << 20, 0.5)
    greeks = cunum.black_scholes.price(S, K, T, rate=0.03, volatility=0.2,
                                       outputs=("call", "delta_call", "gamma"))
    greeks["call"]            # a CuPy array, computed on CuPy's current stream

A BlackScholesPricer made once and reused skips the checks of the outputs list.
"""

from ._cunum import BlackScholesPricer, _where


def price(spot, strike, expiry, *, rate=0.0, dividend=0.0, volatility, outputs=("call", "put"), out=None,
          backend=None, stream=None):
    """Prices options with a BlackScholesPricer made for them: the dtype of `spot`, and
    its backend and device unless `backend` names one. Arguments, results and errors
    as BlackScholesPricer.price(); `outputs` as BlackScholesPricer's.

    Synchronizes: never (cuda); cpu returns when done."""
    dtype, resolved, device = _where(spot, backend)
    pricer = BlackScholesPricer(outputs, dtype, backend=resolved, device=device)
    return pricer.price(spot, strike, expiry, rate=rate, dividend=dividend, volatility=volatility, out=out,
                        stream=stream)


def implied_volatility(prices, spot, strike, expiry, *, rate=0.0, dividend=0.0, type="call", out=None,
                       rejected=None, backend=None, stream=None):
    """Implied volatilities with a BlackScholesPricer made for them (the dtype, backend
    and device of `prices`). Arguments, results and errors as
    BlackScholesPricer.implied_volatility(): returns (volatility, rejected).

    Synchronizes: never (cuda); cpu returns when done."""
    dtype, resolved, device = _where(prices, backend)
    pricer = BlackScholesPricer((), dtype, backend=resolved, device=device)
    return pricer.implied_volatility(prices, spot, strike, expiry, rate=rate, dividend=dividend, type=type, out=out,
                                     rejected=rejected, stream=stream)


OUTPUTS = ("call", "put", "delta_call", "delta_put", "gamma", "vega", "theta_call", "theta_put", "rho_call",
           "rho_put", "forward", "discount")
"""Every output a pricer can compute, in the C++ list order."""

__all__ = ["BlackScholesPricer", "price", "implied_volatility", "OUTPUTS"]
