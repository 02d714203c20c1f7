"""Figure 2 of Wang et al. 2019 regenerated: load bounds versus stragglers, with achievability."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from gctheory.load_bounds import load_curves
from gctheory.plots._base import Drawing, _figure, _Recorder, figure, plt, save_figure

__all__ = ["make_fig2", "plot_load_bounds"]

NAME = "wang2019_fig2_load_bounds"


@figure(
    NAME,
    description="Wang et al. 2019 Fig. 2 (n = 1000): lower bounds on the load versus s "
    "(worst case s+1, Theorem 3, Theorem 5 and eq. (52)), finite-n bounds, and the load "
    "the d-FRC achieves (Theorem 4 and exact)",
    paper="wang2019",
)
def make_fig2(outdir: Path, quick: bool) -> list[Path]:
    c = _curves(1000, 0.01, 0.01, quick)
    fig = plt.figure(figsize=(12, 4.8), layout="constrained")
    plot_load_bounds(c, fig=fig, n=1000, eps=0.01, target=0.01)
    return save_figure(fig, outdir, NAME, data=c)


def _curves(n: int, eps: float, target: float, quick: bool) -> dict[str, Any]:
    num = 30 if quick else 90
    s_values = sorted({int(round(x)) for x in np.geomspace(1, n - 1, num)})
    return load_curves(n, s_values, eps=eps, target=target)


def plot_load_bounds(
    curves: dict[str, Any] | None = None,
    *,
    fig: Any = None,
    n: int = 1000,
    eps: float = 0.01,
    target: float = 0.01,
    quick: bool = True,
) -> Drawing:
    """Wang et al. 2019 Fig. 2: (a) the closed-form lower bounds on the load versus s,
    (b) integer loads, the bounds next to what the d-FRC achieves. ``curves`` from
    :func:`gctheory.load_bounds.load_curves` at ``n``, ``eps``, ``target`` (computed on
    a geometric grid of s, finer unless ``quick``, when not given); draws two panels on
    ``fig``.

    Parameters
    ----------
    curves : dict, optional
        :func:`gctheory.load_bounds.load_curves` output (computed when not given).
    fig : matplotlib.figure.Figure, optional
        The figure to draw on.
    n : int
        Workers.
    eps : float
        Error fraction of the approximate bounds.
    target : float
        Failure probability of the finite-n bounds.
    quick : bool
        Fewer straggler counts.

    Returns
    -------
    Drawing
        The figure, its axes by panel, the artists drawn and the data behind them.

    Examples
    --------
    >>> from gctheory.plots import plot_load_bounds
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_load_bounds(n=200)
    >>> list(drawing.axes)
    ['bounds', 'integer_loads']
    >>> plt.close("all")
    """
    c = _curves(n, eps, target, quick) if curves is None else curves
    s = np.array(c["s"])
    fig = _figure(fig, (12, 4.8))
    rec = _Recorder(fig)
    ax1, ax2 = fig.subplots(1, 2, sharex=True)

    ax1.plot(s, c["worst_case"], "k-", lw=2, label="worst case $s+1$ (Tandon)")
    dec = np.array(c["eq13_decreasing"], bool)
    eq13 = np.array(c["thm3_eq13"])
    ax1.plot(s, np.where(~dec, eq13, np.nan), "C0-", label="Thm 3, eq. (13), $\\epsilon=0$")
    ax1.plot(s, np.where(dec, eq13, np.nan), "C0:", label="eq. (13) where it decreases in $s$")
    ax1.plot(s, c["thm3_eq29"], "C0--", lw=1, label="proof of Thm 3, eq. (29)")
    ax1.plot(s, c["thm5_stated"], "C1-", label=f"Thm 5 as stated, $\\epsilon={eps:g}$")
    ax1.plot(s, c["thm5_eq52"], "C1--", label=f"proof of Thm 5, eq. (52), $\\epsilon={eps:g}$")
    ax1.axhline(1, color="grey", lw=0.8, label="load 1")
    ax1.set_xscale("log")
    ax1.set_yscale("symlog", linthresh=1)
    ax1.set_ylim(-20, 1500)
    ax1.set_xlabel("stragglers $s$")
    ax1.set_ylabel("bound on load $d$ (real value)")
    ax1.set_title(f"(a) closed-form lower bounds, $n={n}$")
    ax1.legend(fontsize=7.5, loc="upper left")

    ax2.step(s, c["worst_case"], "k-", where="mid", lw=2, label="worst case $s+1$")
    ax2.step(
        s,
        c["frc_exact_min_load"],
        "C3-",
        where="mid",
        lw=2,
        label=f"d-FRC exact: smallest $d$ with P(fail) $\\leq {target:g}$",
    )
    ax2.step(s, c["frc_eq14_load"], "C3--", where="mid", label="d-FRC, Thm 4 eq. (14), ceil")
    ax2.step(
        s,
        c["finite_n_lb_eps0"],
        "C2-",
        where="mid",
        label=f"finite-n lower bound, P(fail) $\\leq {target:g}$",
    )
    ax2.step(s, c["thm3_eq13_load"], "C0-", where="mid", lw=1, label="eq. (13), ceil")
    ax2.step(
        s,
        c["finite_n_lb_eps"],
        "C2:",
        where="mid",
        label=f"finite-n lower bound, P(err$>\\epsilon n$) $\\leq {target:g}$",
    )
    ax2.step(
        s,
        c["thm5_eq52_load"],
        "C1--",
        where="mid",
        lw=1,
        label=f"eq. (52), ceil, $\\epsilon={eps:g}$",
    )
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel("stragglers $s$")
    ax2.set_ylabel("partitions per worker (integer load)")
    ax2.set_title("(b) integer loads: bounds next to what the d-FRC achieves")
    ax2.legend(fontsize=7.5, loc="upper left")
    return rec.done({"bounds": ax1, "integer_loads": ax2})
