"""An Asian option and a basket priced by Monte Carlo with Greeks and standard errors (cunum.monte_carlo)."""

from example_arrays import backend, host, xp

import numpy as np

import cunum

settings = cunum.MonteCarloSettings(payoff="asian_arithmetic", paths=1 << 20, time_steps=12, control_variate=True,
                                    greeks=True)
pricer = cunum.MonteCarloPricer(settings, backend=backend)
batch = pricer.load({"spot": 100.0, "strike": np.array([90.0, 100.0, 110.0]), "expiry": 1.0, "rate": 0.03,
                     "volatility": 0.2})
estimates = pricer.price(batch, like=xp.empty(0))
for i in range(batch.size):
    print(f"asian K={[90, 100, 110][i]}: {float(host(estimates['price'][i])):.4f} "
          f"+- {float(host(estimates['standard_error'][i])):.4f}, delta {float(host(estimates['delta'][i])):.4f}")

basket = cunum.MonteCarloPricer(cunum.MonteCarloSettings(payoff="basket", paths=1 << 18, assets=2,
                                                         correlation=[[1.0, 0.6], [0.6, 1.0]]), backend=backend)
assets = np.array([[[100.0, 0.0, 0.2, 0.5], [80.0, 0.0, 0.3, 0.5]]])  # spot, dividend, volatility, weight
estimate = basket.price({"assets": assets, "strike": 90.0, "expiry": 1.0, "rate": 0.03}, like=xp.empty(0))
print(f"basket: {float(host(estimate['price'][0])):.4f} +- {float(host(estimate['standard_error'][0])):.4f}")
