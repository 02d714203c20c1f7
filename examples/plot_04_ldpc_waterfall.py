"""
The LDPC waterfall and its finite-length scaling law
====================================================

An LDPC gradient code decodes by peeling: it fails when the stragglers (erasures)
form a stopping set. Density evolution puts the (3,6) ensemble's threshold at
:math:`\\epsilon^* \\approx 0.4294`; at finite length ``n`` the failure rate falls
from 1 to 0 around it in a "waterfall" whose width shrinks like
:math:`n^{-1/2}`. Amraoui et al.'s scaling law predicts it:

.. math::

   P_B(n, \\epsilon) \\approx Q\\!\\left(\\frac{\\sqrt{n}\\,(\\epsilon^* - \\beta n^{-2/3}
   - \\epsilon)}{\\alpha}\\right).

Here Monte Carlo of peeling on simple (3,6) Tanner graphs, with 99% intervals,
against the law.

Size: n = 1000 and 4000, 9 erasure probabilities, 300 frames each on one code per
length (the committed figure uses 5 lengths and many more frames), about two
seconds of CPU.
"""

import matplotlib.pyplot as plt
import numpy as np

from gctheory.ldpc import regular_scaling_parameters, regular_threshold, waterfall

eps = np.linspace(0.36, 0.46, 9)
points = waterfall([1000, 4000], eps, 3, 6, 300, rng=1)
law = regular_scaling_parameters(3, 6)
threshold = regular_threshold(3, 6)
print(threshold, law)

# %%
# Each point is an :class:`~gctheory.montecarlo.Estimate` with its interval.

fine = np.linspace(0.34, 0.48, 200)
fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
for i, n in enumerate([1000, 4000]):
    sel = [p for p in points if p.n == n]
    x = np.array([p.eps for p in sel])
    y = np.array([p.failure.value for p in sel])
    err = np.array(
        [[p.failure.value - p.failure.low, p.failure.high - p.failure.value] for p in sel]
    ).T
    ax.errorbar(x, y, yerr=err, fmt="o", ms=4, color=f"C{i}", label=f"n = {n}: peeling, MC")
    ax.plot(fine, law.block_erasure(n, fine), "-", color=f"C{i}", label=f"n = {n}: scaling law")
ax.axvline(
    threshold.eps, color="k", ls="--", lw=1, label=rf"threshold $\epsilon^*$ = {threshold.eps:.4f}"
)
ax.set_xlabel(r"erasure (straggler) probability $\epsilon$")
ax.set_ylabel("block failure rate of peeling")
ax.set_title(rf"(3,6) LDPC codes: $\alpha$ = {law.alpha:.4f}, $\beta$ = {law.beta:.4f}")
ax.legend(fontsize=8)
plt.show()
