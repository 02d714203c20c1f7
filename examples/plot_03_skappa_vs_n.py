"""
How many stragglers keep decoding stable: ``s_kappa`` versus ``n``
==================================================================

Theorem 2 of Kadhe et al. (2019) guarantees that a Gaussian code tolerates
``s_kappa`` stragglers with every inverted matrix's condition number at most
:math:`\\kappa`, with probability at least :math:`1-\\epsilon`. For Ye-Abbe's
scheme it applies to one ``(n - s) x n`` matrix ``V``; for CommFR-GC to one
group's ``[s + m, m]`` code, whatever ``n``. With :math:`s = \\lfloor n/4 \\rfloor`
designed stragglers, the two guarantees part ways as ``n`` grows. Beside them,
what one drawn Gaussian ``V`` actually achieves
(:func:`gctheory.conditioning.empirical_s_kappa`, exhaustive over survivor sets).

Size: guarantees to n = 60 (closed forms); the drawn matrices to n = 20 only
(exhaustive search; raise it for a longer run), about a second of CPU.
"""

import matplotlib.pyplot as plt

from gctheory.conditioning import empirical_s_kappa, s_kappa_commfr, s_kappa_ye_abbe
from gctheory.generators import gaussian_generator

kappa, eps, m = 1000, 1e-3, 4
ns = list(range(8, 61, 4))
ye_abbe = [s_kappa_ye_abbe(n, n // 4, kappa=kappa, eps=eps) for n in ns]
commfr = [s_kappa_commfr(n // 4, m, kappa=kappa, eps=eps) for n in ns]

small, drawn = [], []
for n in range(8, 21, 4):
    found = empirical_s_kappa(gaussian_generator(n - n // 4, n, rng=0), kappa)
    if found.value is not None:  # None: even the whole matrix has cond > kappa
        small.append(n)
        drawn.append(found.value)

fig, ax = plt.subplots(figsize=(8, 4.2), layout="constrained")
ax.plot(ns, [n // 4 for n in ns], "k:", label="designed stragglers s = n / 4")
ax.plot(ns, commfr, "s-", ms=4, label="CommFR-GC, [s + 4, 4] groups: Theorem 2")
ax.plot(ns, ye_abbe, "o-", ms=4, label="Ye-Abbe, (n - s) x n Gaussian V: Theorem 2")
ax.plot(small, drawn, "^--", ms=6, label="Ye-Abbe, one drawn V (seed 0): exact")
ax.set_xlabel("workers n")
ax.set_ylabel(r"stragglers tolerated with cond $\leq \kappa$")
ax.set_title(rf"Guaranteed $s_\kappa$, $\kappa = {kappa}$, $\epsilon = {eps:g}$")
ax.legend()
plt.show()
