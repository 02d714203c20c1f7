"""Figure: the exact coverage of the binomial intervals against the true probability.

Each curve is one interval method at one trial count ``n``: the probability, summed
exactly over every count (:func:`gctheory.montecarlo.coverage.coverage_curves`), that the
interval contains ``p``, at a stated 95%. Clopper-Pearson (the default) stays on or above
the dashed line of the stated level; Wilson and Jeffreys dip below it at small ``n p``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from gctheory.montecarlo.coverage import coverage_curves
from gctheory.plots._base import Drawing, _axes, _legend, _Recorder, figure, save_figure

__all__ = ["plot_binomial_coverage"]

NAME = "binomial_coverage"
STYLES = {"clopper-pearson": "-", "wilson": "--", "jeffreys": ":"}


@figure(
    NAME,
    description="Exact coverage (summed over every count) of the Clopper-Pearson, Wilson "
    "and Jeffreys intervals at a stated 95% against p, for n = 100, 1000, 10^4",
)
def make_binomial_coverage(outdir: Path, quick: bool) -> list[Path]:
    data = coverage_curves(points=40 if quick else 120)
    drawn = plot_binomial_coverage(data)
    digits = {"p": 8, "coverage": 8, "neglected": 2}
    return save_figure(drawn.figure, outdir, NAME, data, digits=digits)


def plot_binomial_coverage(
    data: dict[str, list] | None = None, *, ax: Any = None, points: int = 40
) -> Drawing:
    """Exact coverage against ``p`` (log scale), one line per method and ``n``, with the
    stated level dashed.

    Parameters
    ----------
    data : dict, optional
        Curves from :func:`gctheory.montecarlo.coverage.coverage_curves` (computed with
        ``points`` per curve when not given).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).
    points : int
        Values of ``p`` per curve when ``data`` is computed here.

    Returns
    -------
    Drawing
        The figure, its axes and the plotted data.

    Examples
    --------
    >>> from gctheory.plots import plot_binomial_coverage
    >>> d = plot_binomial_coverage(points=8)
    >>> sorted(d.axes)
    ['coverage']
    """
    data = coverage_curves(points=points) if data is None else data
    ax = _axes(ax, (7.5, 4.5))
    rec = _Recorder(ax.figure)
    method, n, p, cov = (np.asarray(data[k]) for k in ("method", "n", "p", "coverage"))
    colors = dict(zip(sorted(set(n.tolist())), ("C0", "C1", "C2", "C3", "C4")))
    for m in dict.fromkeys(method.tolist()):
        for size in sorted(set(n[method == m].tolist())):
            sel = (method == m) & (n == size)
            ax.plot(p[sel], 100 * cov[sel], STYLES.get(m, "-"), color=colors[size], lw=1,
                    label=f"{m}, n = {size:g}")  # fmt: skip
    level = float(data["level"][0])
    ax.axhline(100 * level, color="k", lw=0.8, ls="-.", label=f"stated {100 * level:g}%")
    ax.set_xscale("log")
    ax.set_ylim(max(80.0, 100 * float(cov.min()) - 1), 100.2)
    ax.set_xlabel("true probability p")
    ax.set_ylabel("exact coverage (%)")
    ax.set_title("Binomial intervals: exact coverage at a stated 95%", fontsize=10)
    _legend(ax, fontsize=6, ncol=3, loc="lower right")
    return rec.done({"coverage": ax}, data)
