"""Monte Carlo pricing of options under geometric Brownian motion, in batches, on the
GPU (one fused kernel: normals drawn, paths simulated, payoffs summed in registers) or
the CPU, with the same random stream on both (the C++ cunum::MonteCarloPricer,
include/cunum/monte_carlo.hpp).

Payoffs: european, digital, asian_arithmetic, asian_geometric, up_and_out,
down_and_out, lookback on one asset; basket, best_of, worst_of on up to 16 correlated
assets. Variance reduction (antithetic variates, control variates), Greeks (delta and
vega, pathwise or likelihood ratio) and standard errors come from the same pass.
Custom payoffs are device functors compiled by nvcc (cunum::price_with_payoff,
cunum/device/monte_carlo_payoff.cuh): they are C++ only.

    import cunum, numpy as np
    settings = cunum.MonteCarloSettings(payoff="asian_arithmetic", paths=1 << 20, time_steps=12,
                                        control_variate=True, greeks=True)
    pricer = cunum.MonteCarloPricer(settings)
    options = {"spot": np.full(8, 100.0), "strike": np.linspace(80, 120, 8), "expiry": 1.0,
               "rate": 0.03, "volatility": 0.2}
    batch = pricer.load(options)            # validated and made resident once (waits for the copy)
    estimates = pricer.price(batch)         # dict of arrays: price, standard_error, delta, vega, ...

Options are a dict of arrays (or scalars, broadcast) with the keys spot, strike,
expiry, volatility and optionally rate, dividend, barrier, or a NumPy structured array
with those fields; multi-asset options a dict with 'assets' (an array (options, assets,
4): spot, dividend, volatility, weight) and strike, expiry, rate.
"""

import numpy as _np

from . import _cunum
from ._cunum import MonteCarloBatch, MonteCarloSettings, geometric_asian_price
from ._errors import InvalidArgument

OPTION_FIELDS = ("spot", "strike", "expiry", "rate", "dividend", "volatility", "barrier")
"""The fields of one option, in the order of the C++ MonteCarloOption."""
_OPTIONAL = {"rate": 0.0, "dividend": 0.0, "barrier": 0.0}
BASKET_FIELDS = ("strike", "expiry", "rate")
ASSET_FIELDS = ("spot", "dividend", "volatility", "weight")
MULTI_ASSET_PAYOFFS = ("basket", "best_of", "worst_of")
PAYOFFS = ("european", "digital", "asian_arithmetic", "asian_geometric", "up_and_out", "down_and_out", "lookback",
           "basket", "best_of", "worst_of")
SOURCES = ("philox4x32_10", "mrg32k3a", "sobol_bridge")


def _refuse(problem):
    raise InvalidArgument(f"cunum [invalid_argument]: cunum::MonteCarloPricer::load: argument 'options' {problem}")


def _host(value):
    """`value` as a NumPy array in host memory (load() reads options on the host)."""
    if isinstance(value, (int, float, _np.ndarray, _np.generic)):
        return _np.asarray(value)
    library = type(value).__module__.split(".", 1)[0]
    if library == "cupy":
        return value.get()
    if library == "torch":
        return value.detach().cpu().numpy()
    return _np.asarray(value)


def _columns(options, names, optional):
    """The named fields of `options` (a dict or a structured array) as host arrays."""
    if isinstance(options, _np.ndarray) and options.dtype.names:
        get = {name: options[name] for name in options.dtype.names}
    elif isinstance(options, dict):
        get = options
    else:
        _refuse(f"is a {type(options).__name__}; a dict of arrays or a NumPy structured array is needed")
    unknown = sorted(set(get) - set(names) - {"assets"})
    if unknown:
        _refuse(f"has unknown fields {unknown}; the fields are {list(names)}")
    columns = []
    for name in names:
        if name in get:
            columns.append(_host(get[name]))
        elif name in optional:
            columns.append(_np.asarray(optional[name]))
        else:
            _refuse(f"has no field '{name}'")
    return columns


def _table(options, dtype):
    columns = _np.broadcast_arrays(*(_np.atleast_1d(c) for c in _columns(options, OPTION_FIELDS, _OPTIONAL)))
    if columns[0].ndim != 1:
        _refuse(f"fields must be scalars or 1-D arrays of one length (got shape {columns[0].shape})")
    return _np.ascontiguousarray(_np.stack(columns, axis=1), dtype=dtype)


def _baskets(options, dtype):
    if not isinstance(options, dict) or "assets" not in options:
        _refuse("of a multi-asset payoff must be a dict with 'assets' (options, assets, 4) and strike, expiry, rate")
    assets = _np.ascontiguousarray(_host(options["assets"]), dtype=dtype)
    terms = _np.broadcast_arrays(*_columns(options, BASKET_FIELDS, {"rate": 0.0}), _np.empty(assets.shape[:1]))[:3]
    return assets, _np.ascontiguousarray(_np.stack(terms, axis=1), dtype=dtype)


def _device_like(options):
    """The first device array among the option fields: results follow its library."""
    if isinstance(options, dict):
        for value in options.values():
            if not isinstance(value, (int, float, _np.ndarray, _np.generic)) and hasattr(value, "__dlpack__"):
                return value
    return None


class MonteCarloPricer(_cunum.MonteCarloPricer):
    __doc__ = _cunum.MonteCarloPricer.__doc__

    def load(self, options, first_stream=0):
        """Validates a batch of options and makes it resident where the pricer computes.

        Args:
            options: a dict of arrays or scalars (spot, strike, expiry, volatility;
                rate, dividend, barrier optional, 0 by default) or a NumPy structured
                array with those fields; multi-asset payoffs: a dict with 'assets'
                (options, assets, 4: spot, dividend, volatility, weight) and strike,
                expiry, rate. Device arrays are copied to the host first.
            first_stream: the random stream id of option 0 (option i draws from
                first_stream + i); stream ids stay below 2^32.

        Returns:
            a MonteCarloBatch, to price as often as wanted.

        Synchronizes: yes (cuda): the options are copied to the device and waited for.

        Raises:
            InvalidArgument: naming the option and field, e.g. 'options[3].barrier'.
        """
        if self.settings.payoff in MULTI_ASSET_PAYOFFS:
            assets, terms = _baskets(options, self.dtype)
            return self._load_baskets(assets, terms, first_stream)
        return self._load_table(_table(options, self.dtype), first_stream)

    def price(self, batch, out=None, *, first_stream=0, asset_greeks=None, like=None, stream=None):
        if not isinstance(batch, MonteCarloBatch):
            like = like if like is not None else _device_like(batch)
            batch = self.load(batch, first_stream)
        return self._price(batch, out, asset_greeks, like, stream)

    price.__doc__ = _cunum.MonteCarloPricer._price.__doc__.split("\n", 1)[0] + """

Given options instead of a batch, load() runs first (and synchronizes), with
`first_stream`; the results then follow the library of the first device array among
them.
""" + _cunum.MonteCarloPricer._price.__doc__.split("\n", 1)[1]


def estimate_dtype(dtype="float64"):
    """The NumPy structured dtype of one C++ MonteCarloEstimate of `dtype`, to view a
    results buffer of the cpu backend as records: buffer.view(estimate_dtype(...))."""
    real = _np.dtype(dtype)
    names = ["price", "standard_error", "confidence_low", "confidence_high", "delta", "delta_standard_error", "vega",
             "vega_standard_error", "control_coefficient", "paths"]
    formats = [real] * 9 + [_np.int64]
    return _np.dtype({"names": names, "formats": formats}, align=True)


__all__ = ["MonteCarloPricer", "MonteCarloSettings", "MonteCarloBatch", "geometric_asian_price", "estimate_dtype",
           "OPTION_FIELDS", "ASSET_FIELDS", "BASKET_FIELDS", "PAYOFFS", "SOURCES"]
