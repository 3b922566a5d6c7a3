"""Three pictures with matplotlib (pip install matplotlib):

1. monte_carlo_convergence.png: the Monte Carlo price of a European call against the
   number of paths, with its 95% band, converging to the Black-Scholes price;
2. poisson_walls.png: a 2-D Poisson solution between two walls (Dirichlet in x,
   Neumann in y) for two opposite point-like charges;
3. greeks_surface.png: the call's gamma over strike and expiry.

    python pictures.py [output folder]
"""

import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from example_arrays import backend, host, xp  # noqa: E402

import cunum  # noqa: E402

folder = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
folder.mkdir(parents=True, exist_ok=True)
spot, strike, expiry, rate, volatility = 100.0, 105.0, 1.0, 0.03, 0.2

# 1. Monte Carlo against the path count, each count a pricer of its own (the same seed).
exact = float(host(cunum.black_scholes.price(xp.array([spot]), xp.array([strike]), xp.array([expiry]), rate=rate,
                                             volatility=volatility, outputs=("call",))["call"][0]))
counts = [2**k for k in range(8, 23, 1)]
prices, errors = [], []
for paths in counts:
    pricer = cunum.MonteCarloPricer(cunum.MonteCarloSettings(paths=paths, seed=7), backend=backend)
    estimate = pricer.price({"spot": spot, "strike": strike, "expiry": expiry, "rate": rate, "volatility": volatility})
    prices.append(float(host(estimate["price"][0])))
    errors.append(float(host(estimate["standard_error"][0])))
prices, errors = np.array(prices), np.array(errors)
figure, axes = plt.subplots(figsize=(7, 4))
axes.fill_between(counts, prices - 1.96 * errors, prices + 1.96 * errors, alpha=0.3, label="95% band")
axes.plot(counts, prices, "o-", label="Monte Carlo")
axes.axhline(exact, color="black", linestyle="--", label=f"Black-Scholes {exact:.4f}")
axes.set_xscale("log", base=2)
axes.set_xlabel("paths")
axes.set_ylabel("call price")
axes.set_title(f"European call S={spot:g} K={strike:g} T={expiry:g} ({backend})")
axes.legend()
figure.tight_layout()
figure.savefig(folder / "monte_carlo_convergence.png", dpi=120)

# 2. Poisson between walls: u = 0 at x = 0 and x = 1, du/dy = 0 at y = 0 and y = 1.
n = 256
solver = cunum.PoissonSolver((n, n), (1.0, 1.0), ("dirichlet", "neumann"), backend=backend)
x = (xp.arange(n) + 1) / (n + 1)
y = (xp.arange(n) + 0.5) / n
X, Y = xp.meshgrid(x, y, indexing="ij")
width = 0.03
f = xp.exp(-((X - 0.3) ** 2 + (Y - 0.6) ** 2) / width**2) - xp.exp(-((X - 0.7) ** 2 + (Y - 0.4) ** 2) / width**2)
u = host(solver.solve(xp.ascontiguousarray(f)))
figure, axes = plt.subplots(figsize=(5.5, 5))
image = axes.imshow(u.T, origin="lower", extent=(0, 1, 0, 1), cmap="RdBu_r")
axes.contour(host(X), host(Y), u, levels=15, colors="black", linewidths=0.5)
axes.set_xlabel("x (walls: u = 0)")
axes.set_ylabel("y (walls: du/dy = 0)")
axes.set_title("Laplacian u = f, two charges")
figure.colorbar(image, ax=axes)
figure.tight_layout()
figure.savefig(folder / "poisson_walls.png", dpi=120)

# 3. Gamma over strike and expiry, one batch of 200 x 200 options.
strikes = xp.linspace(60.0, 140.0, 200)
expiries = xp.linspace(0.05, 2.0, 200)
K, T = xp.meshgrid(strikes, expiries, indexing="ij")
greeks = cunum.black_scholes.price(xp.full(K.shape, spot), xp.ascontiguousarray(K), xp.ascontiguousarray(T),
                                   rate=rate, volatility=volatility, outputs=("gamma", "vega"))
figure = plt.figure(figsize=(7, 5))
axes = figure.add_subplot(projection="3d")
axes.plot_surface(host(K), host(T), host(greeks["gamma"]), cmap="viridis")
axes.set_xlabel("strike")
axes.set_ylabel("expiry (years)")
axes.set_zlabel("gamma")
axes.set_title(f"Black-Scholes gamma, S={spot:g}, sigma={volatility:g}")
figure.tight_layout()
figure.savefig(folder / "greeks_surface.png", dpi=120)
print("wrote", ", ".join(str(folder / name) for name in
                         ("monte_carlo_convergence.png", "poisson_walls.png", "greeks_surface.png")))
