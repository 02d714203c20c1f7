"""Figure: relative decoding error versus n for the exact gradient-code families
(Ye-Abbe, CommFR-GC, Reed-Solomon, cyclic-MDS), worst-case and random straggler sets."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gctheory.codes.stability import ERROR_FLOOR, STABILITY_FAMILIES, decoding_stability
from gctheory.plots._base import Drawing, _figure, _Recorder, figure, plt, save_figure

_STYLE = {
    "ye-abbe-vandermonde": ("C3", "o", "Ye-Abbe, Vandermonde V"),
    "ye-abbe-gaussian": ("C1", "s", "Ye-Abbe, Gaussian V"),
    "commfr-gaussian": ("C0", "^", "CommFR-GC, Gaussian"),
    "commfr-systematic": ("C2", "v", "CommFR-GC, systematic MDS"),
    "commfr-vandermonde": ("C4", "D", "CommFR-GC, Vandermonde"),
    "reed-solomon": ("C5", "P", "Reed-Solomon (Halbawi), m = 1"),
    "cyclic-mds": ("C7", "X", "cyclic-MDS (Tandon), m = 1"),
}


@figure(
    "codes_stability",
    description="relative decoding error ||g_hat - g|| / ||g|| vs n (k = n, s = n/4, m = n/4 "
    "or 1): worst straggler set found and mean log10 error over random sets (99% CI)",
    paper="kadhe2019",
)
def _stability(outdir: Path, quick: bool) -> list[Path]:
    pts = stability_points(quick)
    fig = plt.figure(figsize=(11.5, 4.9), layout="constrained")
    plot_codes_stability(pts, fig=fig)
    data = {
        "family": [p.family for p in pts],
        "n": [p.n for p in pts],
        "s": [p.s for p in pts],
        "m": [p.m for p in pts],
        "worst_rel_error": [float(p.worst_error) for p in pts],
        "worst_condition": [float(p.worst_condition) for p in pts],
        "worst_exhaustive": [p.worst_exhaustive for p in pts],
        "random_mean_log10_error": [float(p.random_log10_error.value) for p in pts],
        "random_low": [float(p.random_log10_error.low) for p in pts],
        "random_high": [float(p.random_log10_error.high) for p in pts],
        "random_trials": [p.random_log10_error.trials for p in pts],
    }
    return save_figure(fig, outdir, "codes_stability", data=data)


def stability_points(quick: bool = True) -> list[Any]:
    """:func:`gctheory.codes.stability.decoding_stability` at the figure's n and seeds."""
    ns = (4, 12, 20, 28, 36, 44, 52, 60) if quick else tuple(range(4, 61, 4))
    return decoding_stability(
        STABILITY_FAMILIES,
        ns,
        trials=10 if quick else 100,  # quick: a smoke test
        worst_samples=5 if quick else 50,
        rng=20190101,
    )


def plot_codes_stability(
    points: Sequence[Any] | None = None, *, fig: Any = None, quick: bool = True
) -> Drawing:
    """Relative decoding error versus n of the exact gradient-code families: the worst
    straggler set found (left) and 10^mean(log10 error) over random sets with its 99%
    interval (right). ``points`` from :func:`stability_points` (computed with ``quick``
    when not given); draws two panels on ``fig``.

    Parameters
    ----------
    points : sequence of StabilityPoint, optional
        :func:`gctheory.codes.decoding_stability` output (computed when not given).
    fig : matplotlib.figure.Figure, optional
        The figure to draw on (a new one by default).
    quick : bool
        Smaller grids and fewer Monte Carlo trials.

    Returns
    -------
    Drawing
        The figure, its axes by panel, the artists drawn and the data behind them.

    Examples
    --------
    >>> from gctheory.plots import plot_codes_stability
    >>> import matplotlib.pyplot as plt
    >>> from gctheory.codes import decoding_stability
    >>> points = decoding_stability(families=["cyclic-mds"], ns=[4, 8], trials=5, worst_samples=2,
    ...                             rng=0)
    >>> drawing = plot_codes_stability(points)
    >>> sorted(drawing.axes)
    ['random', 'worst']
    >>> plt.close("all")
    """
    if points is None:
        points = stability_points(quick)
    fig = _figure(fig, (11.5, 4.9))
    rec = _Recorder(fig)
    ax_w, ax_r = fig.subplots(1, 2, sharey=True)
    for fam in STABILITY_FAMILIES:
        color, marker, label = _STYLE[fam]
        fp = [p for p in points if p.family == fam]
        if not fp:
            continue
        n = np.array([p.n for p in fp])
        worst = np.array([max(p.worst_error, ERROR_FLOOR) for p in fp])
        ax_w.semilogy(n, worst, marker=marker, color=color, label=label, ms=5)
        mean = np.array([p.random_log10_error.value for p in fp])
        lo = np.array([p.random_log10_error.low for p in fp])
        hi = np.array([p.random_log10_error.high for p in fp])
        ax_r.semilogy(n, 10.0**mean, marker=marker, color=color, label=label, ms=5)
        ax_r.fill_between(n, 10.0**lo, 10.0**hi, color=color, alpha=0.2, label=label)
    for ax, title in (
        (ax_w, "worst straggler set found (exhaustive for small n)"),
        (ax_r, "random straggler sets: 10^mean(log10 error), 99% CI"),
    ):
        ax.axhline(1.0, color="k", lw=0.8, ls=":", label="error 1: the gradient is lost")
        ax.set_xlabel("n (workers); k = n, s = n/4")
        ax.set_title(title, fontsize=10)
        ax.set_ylim(1e-17, 1e10)
        ax.grid(True, which="major", alpha=0.3)
    ax_w.set_ylabel("relative decoding error")
    handles, labels = ax_r.get_legend_handles_labels()
    keep: dict[str, Any] = {}
    for h, lab in zip(handles, labels):
        keep.setdefault(lab, h)
    ax_r.legend(keep.values(), keep.keys(), fontsize=7.5, loc="upper left")
    fig.suptitle(
        "Decoding stability (m = n/4 for Ye-Abbe and CommFR-GC; errors below 1e-18 drawn at 1e-18)",
        fontsize=10,
    )
    return rec.done({"worst": ax_w, "random": ax_r})
