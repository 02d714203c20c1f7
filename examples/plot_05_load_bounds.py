"""
How much must each worker compute? Bounds on the computation load
=================================================================

A code tolerating ``s`` stragglers exactly needs each worker to hold at least
``s + 1`` partitions (Tandon et al.). Asking only for *approximate* recovery with
probability :math:`1 - \\epsilon` lowers this to about :math:`\\log(1/\\epsilon)`
partitions (Wang et al. 2019). :func:`gctheory.load_bounds.load_curves` evaluates
every bound and the load the d-FRC code actually needs, exactly at finite ``n``;
:func:`gctheory.plots.plot_load_bounds` draws them as Figure 2 of Wang et al.

Size: n = 1000 workers, eps = 0.01, a geometric grid of 12 straggler counts;
a fraction of a second.
"""

import matplotlib.pyplot as plt
import numpy as np

from gctheory.load_bounds import frc_min_load, load_curves, min_load_lower_bound
from gctheory.plots import plot_load_bounds

n, eps = 1000, 0.01
s_values = sorted({int(s) for s in np.geomspace(5, 500, 12)})
curves = load_curves(n, s_values, eps=eps, target=eps)
print("s:", curves["s"])
print("d-FRC load:", curves["frc_exact_min_load"])

# %%
# One point, checked by hand: at ``s = 100`` no load-3 code fails with
# probability at most 1%, and the d-FRC needs load 5.

print(min_load_lower_bound(n, 100, eps).load, frc_min_load(n, 100, eps))

fig = plt.figure(figsize=(12, 4.8), layout="constrained")
drawing = plot_load_bounds(curves, fig=fig, n=n, eps=eps, target=eps)
plt.show()
