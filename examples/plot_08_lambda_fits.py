"""
Fitting measured delays: AWS Lambda workers
===========================================

Which law describes your workers' times? :func:`gctheory.delays.fit_laws` fits
each candidate by maximum likelihood (with intervals, AIC and the KS and
Anderson-Darling statistics; ``bootstrap=`` adds goodness-of-fit p-values) and
:func:`gctheory.plots.plot_delay_fits` draws each load's empirical survival
function against every fitted law, on log scales where the tail shows.

The data: Krishnan, Ebrahimi and Khisti (ICLR 2023) measured 256 AWS Lambda
workers for 30 rounds at five loads (campaign ``cnn-desktop-long``, region
Canada). Where this copy of gctheory carries them as package data the example
reads them; otherwise :func:`lambda_delays` below makes a synthetic stand-in of
the same shape (a body of 1-2 s, rare stragglers of 25-40 s), and the printed
source says which.

Size: five loads of 7680 times each, five laws (the two-component mixture, whose
likelihood search is the slow one, is left out: add ``"mixture"`` for the full
fit), no bootstrap; about a second of CPU.
"""

import gzip
import lzma
import tempfile
from importlib import resources
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from gctheory.delays import Trace, fit_laws, make_trace, read_trace
from gctheory.plots import plot_delay_fits

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
print(source, "- loads:", trace.loads, "- rounds x workers:", trace.rounds(0.5).shape)

# %%
# One fit per law and load; each :class:`~gctheory.delays.LawFit` carries its
# parameters with intervals and its AIC.

laws = ("shifted_exp", "pareto", "weibull", "gamma", "lognormal")
fits = {}
for load in trace.loads:
    for fit in fit_laws(trace.times(load), laws):
        fits[(fit.law, float(load))] = fit
best = min((f for (law, ld), f in fits.items() if ld == 0.5), key=lambda f: f.aic)
print("best AIC at load 0.5:", best.law, best.params)

fig = plt.figure(figsize=(3.2 * len(trace.loads) + 1.6, 3.9), layout="constrained")
plot_delay_fits(trace, fits, fig=fig)
fig.suptitle(f"Worker times, {source}: every law fitted by maximum likelihood")
plt.show()
