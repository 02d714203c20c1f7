"""
The iteration-time optimum under Pareto delays (Halbawi et al.)
===============================================================

Halbawi et al. (2017) time one iteration of a Reed-Solomon gradient code on ``n``
workers whose delays are Pareto, :math:`P(T > t) = (t_0/t)^{\\xi}`: the master waits
for the ``f``-th fastest worker, and each worker's computation grows with the
redundancy :math:`\\alpha = (n - f + 1)/n`. Their eq. (17) is exact at finite ``n``;
eq. (21) approximates it and eq. (22) gives the approximate optimum
:math:`\\alpha^* = (t_0 / (c_g N \\xi))^{\\xi/(1+\\xi)}`.

Here the exact time for every ``f`` on 80 workers, the exact integer optimum
:func:`~gctheory.runtime.halbawi_optimal_f`, and the approximation beside it.

Cost: closed forms (log-gamma), milliseconds.
"""

import matplotlib.pyplot as plt
import numpy as np

from gctheory.runtime import (
    halbawi_alpha_star,
    halbawi_approx_time,
    halbawi_expected_time,
    halbawi_optimal_f,
)

n, t0, xi, n_cg = 80, 0.001, 1.1, 0.035  # the parameters of Halbawi et al.'s Figure 3
fs = np.arange(1, n + 1)
exact = [halbawi_expected_time(int(f), n, t0=t0, xi=xi, n_cg=n_cg) for f in fs]
alpha = (n - fs + 1) / n
approx = [halbawi_approx_time(float(a), t0=t0, xi=xi, n_cg=n_cg) for a in alpha]
best = halbawi_optimal_f(n, t0=t0, xi=xi, n_cg=n_cg)
a_star = halbawi_alpha_star(t0=t0, xi=xi, n_cg=n_cg)
print(best, "alpha* of eq. (22):", round(a_star, 4))

fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
ax.plot(alpha, exact, "-", label="exact, eq. (17)")
ax.plot(alpha, approx, "--", label="approximation, eq. (21)")
ax.plot([best.alpha], [best.time], "o", ms=8, label=f"exact optimum: f = {best.f}")
ax.axvline(a_star, color="grey", ls=":", label=rf"$\alpha^*$ = {a_star:.4f}, eq. (22)")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel(r"redundancy $\alpha = (n - f + 1) / n$")
ax.set_ylabel("expected iteration time (s)")
ax.set_title(rf"n = {n}, Pareto $t_0$ = {t0}, $\xi$ = {xi}, $c_g N$ = {n_cg}")
ax.legend()
plt.show()
