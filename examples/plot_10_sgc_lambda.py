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

Where this copy of gctheory carries the measured delays as package data the
example reads them; otherwise :func:`lambda_delays` makes a synthetic stand-in of
the same shape, and the printed source says which.

Size: 20 jobs, GC at every ``s`` and SR-SGC / M-SGC on a small grid of
``(B, W, lambda)`` (:func:`gctheory.sgc.search_runtimes` searches the whole grid:
about 20 000 runs); about two seconds of CPU.
"""

import gzip
import lzma
import tempfile
from importlib import resources
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from gctheory.delays import Trace, make_trace, read_trace
from gctheory.sgc import SCHEMES, param_grid, run_scheme, trace_delays

CAMPAIGN = {"profile": "cnn-desktop-long", "region": "Canada"}


def lambda_delays() -> tuple[Trace, str]:
    """The Lambda campaign as a :class:`~gctheory.delays.Trace`, and where it came from."""
    try:
        folder = resources.files("gctheory").joinpath("data")
        dirs = [folder, *(p for p in folder.iterdir() if p.is_dir())]
        files = [f for d in dirs for f in d.iterdir() if "delays" in f.name and ".csv" in f.name]
    except (FileNotFoundError, NotADirectoryError):
        files = []
    if files:
        raw = files[0].read_bytes()
        unpack = {".gz": gzip.decompress, ".xz": lzma.decompress}.get(Path(files[0].name).suffix)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "delays.csv"
            path.write_bytes(unpack(raw) if unpack else raw)
            return read_trace(path).select(**CAMPAIGN), "measured (AWS Lambda)"
    rng = np.random.default_rng(0)
    grid = np.meshgrid(np.arange(30), np.arange(256), [0, 0.25, 0.5, 0.75, 1], indexing="ij")
    rnd, wkr, load = (a.ravel() for a in grid)
    time = 0.7 + 0.8 * load + rng.lognormal(-1.0, 0.35, load.size)
    straggles = rng.random(load.size) < 1 / 2000
    time[straggles] += rng.uniform(25, 40, straggles.sum())
    return make_trace(rnd, wkr, load, time), "synthetic stand-in (no packaged data)"


trace, source = lambda_delays()
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
