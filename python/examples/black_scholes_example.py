"""Prices, Greeks and implied volatilities of a million European options (cunum.black_scholes)."""

from example_arrays import backend, host, xp

import cunum

n = 1 << 20
spot = xp.full(n, 100.0)
strike = xp.linspace(60.0, 140.0, n)
expiry = xp.full(n, 0.75)

pricer = cunum.BlackScholesPricer(("call", "put", "delta_call", "gamma", "vega"), backend=backend)
results = pricer.price(spot, strike, expiry, rate=0.03, dividend=0.01, volatility=0.25)
middle = n // 2
for name, values in results.items():
    print(f"{name:10} at K = {float(host(strike[middle])):.2f}: {float(host(values[middle])):.6f}")

volatility, rejected = cunum.black_scholes.implied_volatility(results["call"], spot, strike, expiry, rate=0.03,
                                                              dividend=0.01, type="call")
print("implied volatility recovered:", float(host(abs(volatility - 0.25).max())), "worst error,",
      int(host(rejected)), "rejected")
