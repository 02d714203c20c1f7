"""
Sequential gradient coding on the Lambda profile
================================================

Sequential gradient coding (Krishnan, Ebrahimi and Khisti, ICLR 2023) spreads the
work of one job over the next rounds, so a straggler in one round is covered by
the following ones instead of by redundant computation in the same round. On the
measured AWS Lambda rounds (256 workers), :func:`gctheory.sgc.run_scheme` replays
each scheme round by round: GC (a cyclic-MDS code tolerating ``s``), SR-SGC and
M-SGC (parameters ``B, W, lambda``), no coding (wait for everyone) and no-wait
(ignore the stragglers' work: the fastest, not exact).

The measured delays ship inside gctheory as package data, read by
:func:`gctheory.data.lambda_delays`.

Size: 20 jobs, GC at every ``s`` and SR-SGC / M-SGC on a small grid of
``(B, W, lambda)`` (:func:`gctheory.sgc.search_runtimes` searches the whole grid:
about 20 000 runs); about two seconds of CPU.
"""

import matplotlib.pyplot as plt
import numpy as np

from gctheory.data import lambda_delays
from gctheory.sgc import SCHEMES, param_grid, run_scheme, trace_delays

CAMPAIGN = {"profile": "cnn-desktop-long", "region": "Canada"}


trace = lambda_delays(**CAMPAIGN)  # shipped inside the package (gctheory/data)
source = "measured (AWS Lambda)"
D = trace_delays(trace, 0.0)  # (workers, rounds) at load 0, the invocation's fixed cost
n, rounds = D.shape
print(source, "- workers x rounds:", D.shape)

# %%
# Each scheme's best total time over a small grid of its parameters, with the
# paper's rules: 20 jobs, ``mu = 1``, a base computation of 2.2013 s per job.

jobs, mu, base_comp = 20, 1.0, 2.2013
small = {(B, W, lam) for B, W in ((1, 2), (1, 3), (2, 3)) for lam in (1, 2, 4, 8, 16, 27, 64)}
best: dict[str, tuple[float, tuple[int, ...]]] = {}
for scheme in SCHEMES:
    for params in param_grid(scheme, n, rounds, jobs):
        if scheme in ("SR-SGC", "M-SGC") and params not in small:
            continue
        r = run_scheme(D, scheme, params, jobs=jobs, mu=mu, base_comp=base_comp)
        if scheme not in best or r.runtime < best[scheme][0]:
            best[scheme] = (r.runtime, params)
for scheme, (runtime, params) in best.items():
    print(f"{scheme:10s} {runtime:8.3f} s  params {params}")

fig, ax = plt.subplots(figsize=(8, 4.2), layout="constrained")
x = np.arange(len(best))
ax.bar(x, [v[0] for v in best.values()], color=[f"C{i}" for i in x])
for xi, (runtime, params) in zip(x, best.values()):
    ax.text(float(xi), runtime, ", ".join(map(str, params)) or "-", ha="center", va="bottom")
ax.set_xticks(x, list(best))
ax.set_ylabel(f"total time of {jobs} jobs (s)")
ax.set_title(f"{n} workers, {source}; labels: s or (B, W, lambda)")
plt.show()
