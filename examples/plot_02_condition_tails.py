"""
Gaussian versus Vandermonde: condition-number tails
===================================================

The master of a gradient code inverts the sub-matrix of the generator on the workers
that answered. A Gaussian generator's sub-matrices are well conditioned with high
probability (Chen and Dongarra's tail bound); a real Vandermonde generator's worst
sub-matrix is exponentially ill conditioned in its size. Here both are measured on
every survivor set of a small code, next to the analytic Gaussian bound.

Size: a ``K x N = 6 x 12`` generator, every one of the 924 survivor sets of 6 of 12
workers (exhaustive), about a second of CPU.
"""

from itertools import combinations

import matplotlib.pyplot as plt
import numpy as np

from gctheory.conditioning import condition_numbers, gaussian_condition_bound
from gctheory.generators import gaussian_generator, vandermonde_generator

K, N = 6, 12
subsets = np.array(list(combinations(range(N), K)), dtype=np.intp)
generators = {
    "Gaussian (one draw)": gaussian_generator(K, N, rng=1),
    "Vandermonde, Chebyshev nodes": vandermonde_generator(K, N, nodes="chebyshev"),
    "Vandermonde, equispaced nodes": vandermonde_generator(K, N, nodes="equispaced"),
}

fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
for label, G in generators.items():
    conds = np.sort(condition_numbers(np.moveaxis(G[:, subsets], 1, 0)))
    survival = 1 - np.arange(conds.size) / conds.size
    ax.step(conds, survival, where="post", label=f"{label}: max {conds[-1]:.3g}")

kappas = np.logspace(np.log10(K), 6, 60)  # the bound holds from kappa = K
bound = [min(1.0, gaussian_condition_bound(K, K, k)) for k in kappas]
ax.plot(kappas, bound, "k--", lw=1, label="Chen-Dongarra bound, 6 x 6 Gaussian")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel(r"condition number $\kappa$ of a 6 x 6 survivor matrix")
ax.set_ylabel(r"share of survivor sets with cond $> \kappa$")
ax.set_title(f"Every survivor set of {K} of {N} workers")
ax.legend(fontsize=8)
plt.show()
