"""
The tradeoff atlas for your cluster
===================================

Every gradient-coding scheme side by side for *your* cluster: ``n`` workers, a
delay model, the condition-number budget :math:`\\kappa` and the failure
probability :math:`\\epsilon` you accept. :func:`gctheory.tradeoff.tradeoff`
returns one tidy table (load, communication, straggler tolerance, exact or
approximate with its failure probability, guaranteed ``s_kappa``, expected
iteration time with a Monte Carlo interval, the lower bounds) and
:func:`gctheory.plots.plot_tradeoff` draws its four panels.

Size: n = 40 workers with ``quick=True`` (fewer Monte Carlo trials and a coarser
grid of s), about a second of CPU; the command line does the same with
``gctheory tradeoff --n 40 --quick``.
"""

import matplotlib.pyplot as plt

from gctheory.plots import plot_tradeoff
from gctheory.tradeoff import tradeoff

table = tradeoff(
    40, kappa=1000, eps=1e-3, delay="pareto(scale=0.001, shape=1.1)", quick=True, rng=0
)
print(len(table.rows), "rows; dominated schemes:", table.dominated_schemes())
fastest = [r for r in table.rows if r["time_optimal"]]
for r in fastest[:5]:
    print(r["scheme"], "s =", r["s"], "load =", r["load"], "time =", r["time"])

# %%
# The four panels: load and communication against ``s``, the stability
# guarantee, and the expected iteration time.

fig = plot_tradeoff(table, figsize=(14, 11))
plt.show()
