"""Figures: LDPC peeling on the erasure channel (finite-length waterfalls with Monte Carlo,
the exact analysis, the scaling law, the stopping-set floor and the BP and MAP thresholds;
DE trajectories) and the batch raptor code's condition (54) (Kadhe et al. 2019, Sec. IV-A;
Wang et al. 2019, Theorem 6). The figures compute nothing of their own: every number comes
from :mod:`gctheory.ldpc`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gctheory.ldpc import (
    check_condition_54,
    de_fixed_point,
    de_trajectory,
    ensemble_failure_rate,
    erasure_profile,
    error_floor,
    lt_residual_fraction,
    raptor_degree_distribution,
    regular_map_threshold,
    regular_scaling_parameters,
    regular_threshold,
    waterfall,
)
from gctheory.plots._base import Drawing, _axes, _figure, _Recorder, figure, plt, save_figure

LAM, RHO = {3: 1.0}, {6: 1.0}


def _estimates(ax, x, ests, log: bool, **style) -> None:
    """Monte Carlo points with their intervals; on a log axis a zero count is drawn as its
    upper confidence limit (a down triangle, legend entry ``_UPPER``) instead of an error
    bar reaching 0."""
    x = np.asarray(x, dtype=float)
    v = np.array([e.value for e in ests])
    lo = np.array([e.low for e in ests])
    hi = np.array([e.high for e in ests])
    pos = v > 0 if log else np.ones(v.size, dtype=bool)
    ax.errorbar(x[pos], v[pos], yerr=[v[pos] - lo[pos], hi[pos] - v[pos]], capsize=2, **style)
    if log and np.any(~pos):
        ax.plot(x[~pos], hi[~pos], "v", ms=4, color=style.get("color"), alpha=0.6, label=_UPPER)


_UPPER = "no failure seen: 99% upper limit"


@dataclass(frozen=True)
class WaterfallData:
    """The numbers of :func:`plot_ldpc_waterfall` (from :mod:`gctheory.ldpc`)."""

    ns: list[int]
    eps: Any
    trials: int
    codes: int
    points: list[Any]  # WaterfallPoint per (n, eps), simple Tanner graphs
    low_eps: list[float]
    low: list[Any]  # the floor region at n = 1000
    n_small: int
    small: list[Any]  # Estimate per eps, multigraph ensemble at n_small
    exact: Any  # erasure_profile(n_small, 3, 6)
    threshold: Any
    map_threshold: Any
    law: Any


def waterfall_data(quick: bool = True) -> WaterfallData:
    """Compute the (3,6) waterfall figure's data (quick: 10 eps, 100 frames, 2 codes)."""
    ns = [1000, 2000, 4000, 8000, 16000]
    eps = np.linspace(0.37, 0.46, 10 if quick else 19)
    trials = 100 if quick else 1000  # quick: a smoke test
    codes = 2 if quick else 4
    pts = waterfall(ns, eps, 3, 6, trials, codes=codes, rng=20190905)  # simple graphs
    th = regular_threshold(3, 6)
    mt = regular_map_threshold(3, 6)
    law = regular_scaling_parameters(3, 6)
    n_small = 200
    exact = erasure_profile(n_small, 3, 6)
    small = [
        ensemble_failure_rate(
            n_small, 3, 6, trials, eps=float(e), multi_edges="keep", rng=[20190905, i]
        )
        for i, e in enumerate(eps)
    ]
    # the floor region: a few lower eps at n = 1000, more frames, more codes
    low_eps = [0.30, 0.33] if quick else [0.28, 0.30, 0.33, 0.35]
    low = waterfall([1000], low_eps, 3, 6, 4 * trials, codes=4 * codes, rng=20190906)
    return WaterfallData(
        ns, eps, trials, codes, pts, low_eps, low, n_small, small, exact, th, mt, law
    )


def plot_ldpc_waterfall(
    data: WaterfallData | None = None, *, fig: Any = None, quick: bool = True
) -> Drawing:
    """Peeling block failure of (3,6) codes versus erasure probability, three panels.

    (a) Monte Carlo (99% intervals) with the finite-length scaling law per n and the
    exact analysis at n = 200 with Monte Carlo of its multigraph ensemble; (b) the same
    on a log scale with the stopping-set floor; (c) residual erasures versus density
    evolution. ``data`` from :func:`waterfall_data` (computed with ``quick`` when not
    given); draws on ``fig`` (a new 17 x 4.6 inch figure by default).

    Parameters
    ----------
    data : WaterfallData, optional
        The numbers (computed when not given).
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
    >>> from gctheory.plots import plot_ldpc_waterfall
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_ldpc_waterfall()  # doctest: +SKIP
    >>> list(drawing.axes)  # doctest: +SKIP
    >>> plt.close("all")
    """
    if data is None:
        data = waterfall_data(quick)
    fig = _figure(fig, (17, 4.6))
    rec = _Recorder(fig)
    d = data
    ns, eps, pts, th, mt, law = d.ns, d.eps, d.points, d.threshold, d.map_threshold, d.law
    fine = np.linspace(0.25, 0.47, 300)
    ax1, ax2, ax3 = fig.subplots(1, 3)
    bp = f"BP threshold eps* = {th.eps:.4f}"
    mp = f"MAP threshold = {mt.eps:.4f}"
    for i, n in enumerate(ns):
        sel = [p for p in pts if p.n == n]
        x = [p.eps for p in sel]
        lab = f"n = {n}: MC and scaling law"
        for ax, log in ((ax1, False), (ax2, True)):
            _estimates(ax, x, [p.failure for p in sel], log, fmt="o", ms=3, color=f"C{i}",
                       label=lab)  # fmt: skip
        pred = law.block_erasure(n, fine)
        ax1.plot(fine, pred, "-", color=f"C{i}", lw=1, label=lab)
        floor = error_floor(n, 3, 6, fine)
        ax2.plot(fine, 1 - (1 - pred) * (1 - floor), "-", color=f"C{i}", lw=1, label=lab)
        ax3.plot(x, [p.residual.value for p in sel], "o", ms=3, color=f"C{i}", label=f"n = {n}")
    low_lab = "n = 1000, lower eps: 4x frames and codes"
    _estimates(ax2, d.low_eps, [p.failure for p in d.low], True, fmt="s", ms=3, color="C0",
               label=low_lab)  # fmt: skip
    floor_1000 = error_floor(1000, 3, 6, fine)
    ax2.plot(fine, floor_1000, ":", color="C0", lw=1, label="n = 1000: floor alone")
    small_lab = f"n = {d.n_small}: exact (Di et al.) and MC, multigraph"
    for ax, log in ((ax1, False), (ax2, True)):
        _estimates(ax, eps, d.small, log, fmt="^", ms=3, color="k", label=small_lab)
        ax.plot(fine, d.exact.block_erasure(fine), "k--", lw=1.2, label=small_lab)
    for ax in (ax1, ax2):
        ax.axvline(th.eps, color="k", ls="--", lw=0.8, label=bp)
        ax.axvline(mt.eps, color="grey", ls=":", lw=1, label=mp)
        ax.set_xlabel("erasure (straggler) probability eps")
        ax.grid(alpha=0.3)
    ax1.set_xlim(0.33, 0.495)
    ax1.set_ylabel("block failure rate of peeling")
    ax1.set_title(
        f"(3,6): {d.codes} simple codes per n, {d.trials} frames per point;\n"
        f"scaling law alpha = {law.alpha:.4f}, beta = {law.beta:.4f}",
        fontsize=9,
    )
    handles, labels = ax1.get_legend_handles_labels()
    keep: dict[str, Any] = {}
    for h, lab in zip(handles, labels):
        keep.setdefault(lab, h)  # one entry per label
    ax1.legend(keep.values(), keep.keys(), fontsize=7, loc="upper left")
    ax2.set_yscale("log")
    ax2.set_ylim(1e-5, 1.5)
    ax2.set_xlim(0.25, 0.47)
    ax2.set_title("log scale: prediction = 1 - (1 - law)(1 - floor)", fontsize=9)
    handles, labels = ax2.get_legend_handles_labels()
    extra: dict[str, Any] = {}
    for h, lab in zip(handles, labels):
        if lab not in keep:
            extra.setdefault(lab, h)
    ax2.legend(extra.values(), extra.keys(), fontsize=7, loc="lower right")
    ax3.plot(
        fine,
        [de_fixed_point(LAM, RHO, e)[1] for e in fine],
        "k-",
        lw=1,
        label="density evolution (n = inf)",
    )
    ax3.plot(fine, d.exact.bit_erasure(fine), "k--", lw=1,
             label=f"exact bit erasure, n = {d.n_small}")  # fmt: skip
    ax3.axvline(th.eps, color="k", ls="--", lw=0.8, label=bp)
    ax3.set_xlim(0.33, 0.47)
    ax3.set_xlabel("erasure (straggler) probability eps")
    ax3.set_ylabel("fraction of variables left erased")
    ax3.set_title("residual erasures vs density evolution", fontsize=9)
    ax3.legend(fontsize=7, loc="upper left")
    ax3.grid(alpha=0.3)
    return rec.done({"failure": ax1, "failure_log": ax2, "residual": ax3})


@figure(
    "ldpc_waterfall",
    description="Peeling block failure of (3,6) codes vs erasure (straggler) probability: Monte "
    "Carlo (simple Tanner graphs, 99% intervals) for n = 1000..16000 with the finite-length "
    "scaling law, the exact analysis at n = 200 with Monte Carlo of the same (multigraph) "
    "ensemble, the stopping-set floor, BP and MAP thresholds, residual erasures vs DE",
    paper="kadhe2019",
)
def _waterfall(outdir: Path, quick: bool) -> list[Path]:
    d = waterfall_data(quick)
    fig = plt.figure(figsize=(17, 4.6), layout="constrained")
    plot_ldpc_waterfall(d, fig=fig)
    ns, eps, pts, low, n_small, small, exact = (
        d.ns,
        d.eps,
        d.points,
        d.low,
        d.n_small,
        d.small,
        d.exact,
    )
    th, mt, law = d.threshold, d.map_threshold, d.law
    rows = [
        ("mc-simple", p.n, p.eps, p.failure.value, p.failure.low, p.failure.high, p.residual.value)
        for p in [*pts, *low]
    ]
    rows += [
        ("mc-multigraph", n_small, float(e), s.value, s.low, s.high, float("nan"))
        for e, s in zip(eps, small)
    ]
    for n in ns:
        rows += [
            ("scaling-law", n, float(e), float(law.block_erasure(n, e)), 0.0, 0.0, 0.0) for e in eps
        ]
    rows += [
        (
            "exact-multigraph",
            n_small,
            float(e),
            float(exact.block_erasure(e)),
            0.0,
            0.0,
            float(exact.bit_erasure(e)),
        )
        for e in eps
    ]
    cols = ["series", "n", "eps", "failure", "failure_low", "failure_high", "residual"]
    data = {c: [r[i] for r in rows] for i, c in enumerate(cols)}
    data["de_threshold"] = [th.eps] * len(rows)
    data["map_threshold"] = [mt.eps] * len(rows)
    data["alpha"] = [law.alpha] * len(rows)
    data["beta"] = [law.beta] * len(rows)
    return save_figure(fig, outdir, "ldpc_waterfall", data)


@figure(
    "ldpc_density_evolution",
    description="Density evolution x_l of the (3,6) ensemble for eps around the threshold, "
    "and eps*lambda(1-rho(1-x)) - x (the decoding tunnel closes at eps*)",
    paper="kadhe2019",
)
def _de(outdir: Path, quick: bool) -> list[Path]:
    data = density_evolution_data()
    fig = plt.figure(figsize=(11.5, 4.3), layout="constrained")
    plot_density_evolution(data, fig=fig)
    return save_figure(fig, outdir, "ldpc_density_evolution", data)


def density_evolution_data(iterations: int = 400) -> dict[str, list]:
    """DE trajectories of the (3,6) ensemble and its fixed-point function, long form:
    ``curve`` (trajectory / tunnel), ``eps``, ``index`` (iteration or x), ``value``."""
    th = regular_threshold(3, 6)
    eps_list = [0.38, 0.42, round(th.eps - 1e-4, 4), 0.43, 0.45]
    L = iterations
    data: dict[str, list] = {"curve": [], "eps": [], "index": [], "value": []}
    for e in eps_list:
        x = de_trajectory(LAM, RHO, e, L)
        data["curve"] += ["trajectory"] * (L + 1)
        data["eps"] += [e] * (L + 1)
        data["index"] += list(range(L + 1))
        data["value"] += [float(v) for v in x]
    xs = np.linspace(0.0, 0.5, 501)
    for e in [0.38, 0.42, th.eps, 0.45]:
        g = e * (1 - (1 - xs) ** 5) ** 2 - xs
        data["curve"] += ["tunnel"] * xs.size
        data["eps"] += [float(e)] * xs.size
        data["index"] += [float(v) for v in xs]
        data["value"] += [float(v) for v in g]
    return data


def plot_density_evolution(
    data: dict[str, list] | None = None, *, fig: Any = None, iterations: int = 400
) -> Drawing:
    """Density evolution of the (3,6) ensemble: trajectories x_l for eps around the
    threshold, and the fixed-point function eps lambda(1 - rho(1 - x)) - x whose tunnel
    closes at eps*. ``data`` from :func:`density_evolution_data` (computed when not
    given); draws two panels on ``fig``.

    Parameters
    ----------
    data : dict, optional
        :func:`density_evolution_data` output (computed when not given).
    fig : matplotlib.figure.Figure, optional
        The figure to draw on.
    iterations : int
        Rounds of density evolution.

    Returns
    -------
    Drawing
        The figure, its axes by panel, the artists drawn and the data behind them.

    Examples
    --------
    >>> from gctheory.plots import plot_density_evolution
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_density_evolution(iterations=100)
    >>> list(drawing.axes)
    ['trajectories', 'tunnel']
    >>> plt.close("all")
    """
    if data is None:
        data = density_evolution_data(iterations)
    th = regular_threshold(3, 6)
    fig = _figure(fig, (11.5, 4.3))
    rec = _Recorder(fig)
    ax1, ax2 = fig.subplots(1, 2)
    rows = list(zip(data["curve"], data["eps"], data["index"], data["value"]))
    for kind, ax in (("trajectory", ax1), ("tunnel", ax2)):
        eps_list = list(dict.fromkeys(e for c, e, _, _ in rows if c == kind))
        for i, e in enumerate(eps_list):
            pts = [(x, v) for c, ee, x, v in rows if c == kind and ee == e]
            xs, vs = zip(*pts)
            if kind == "trajectory":
                label = f"eps = {e}"
            else:
                label = f"eps = {e:.4f}" + (" (= eps*)" if e == th.eps else "")
            ax.plot(xs, vs, color=f"C{i}", label=label)
    ax1.set_xlabel("iteration l")
    ax1.set_ylabel("erasure probability x_l of a message")
    ax1.set_ylim(0, 0.46)
    ax1.set_title("density evolution, (3,6) ensemble")
    ax1.legend(fontsize=8)
    ax1.grid(alpha=0.3)
    ax2.axhline(0, color="k", lw=0.8, label="_caption:the curve touches 0")
    ax2.plot([th.x], [0], "k*", ms=9, label=f"critical x* = {th.x:.4f}")
    ax2.set_xlabel("x")
    ax2.set_ylabel("eps lambda(1 - rho(1 - x)) - x")
    ax2.set_ylim(-0.08, 0.04)
    ax2.set_title("fixed points: DE stalls where the curve touches 0")
    ax2.legend(fontsize=8)
    ax2.grid(alpha=0.3)
    return rec.done({"trajectories": ax1, "tunnel": ax2})


@figure(
    "wang2019_raptor_condition54",
    description="Condition (54) of Wang et al. 2019 for P_w: (1 - x) - exp(-c Omega'(x)) on "
    "[0, 1], c = (1-2eps)/(1-4eps); the first zero is where LT peeling stops",
    paper="wang2019",
)
def _raptor(outdir: Path, quick: bool) -> list[Path]:
    fig, ax = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
    drawn = plot_raptor_condition54(ax=ax)
    return save_figure(fig, outdir, "wang2019_raptor_condition54", drawn.data)


def plot_raptor_condition54(
    *, ax: Any = None, eps: Sequence[float] = (0.02, 0.05, 0.1, 0.2)
) -> Drawing:
    """Condition (54) of Wang et al. 2019 for the batch raptor code's degree distribution
    P_w: the margin (1 - x) - exp(-c Omega'(x)) on [0, 1], c = (1 - 2 eps)/(1 - 4 eps),
    for each ``eps``; it must be positive on [0, 1 - eps] (dotted). Computes and draws
    on ``ax``; the returned drawing's ``data`` holds the curves (eps, x, margin).

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        The axes to draw on.
    eps : sequence of float
        Targets of Theorem 6 drawn.

    Returns
    -------
    Drawing
        The figure, its axes by panel, the artists drawn and the data behind them.

    Examples
    --------
    >>> from gctheory.plots import plot_raptor_condition54
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_raptor_condition54(eps=(0.1, 0.2))
    >>> list(drawing.axes)
    ['margin']
    >>> plt.close("all")
    """
    xs = np.linspace(0.0, 1.0, 1001)
    ax = _axes(ax, (6.4, 4.2))
    rec = _Recorder(ax.figure)
    data: dict[str, list] = {"eps": [], "x": [], "margin": []}
    for i, e in enumerate(eps):
        p = raptor_degree_distribution(e)
        c = (1 - 2 * e) / (1 - 4 * e)
        om = sum(k * float(v) * xs ** (k - 1) for k, v in p.items())
        mg = (1 - xs) - np.exp(-c * om)
        m54, _ = check_condition_54(p, c, 1 - e)
        res = lt_residual_fraction(p, c)
        label = f"eps = {e}: min on [0, 1-eps] = {m54:.3g}, residual {res:.3g}"
        ax.plot(xs, mg, color=f"C{i}", label=label)
        ax.axvline(1 - e, color=f"C{i}", ls=":", lw=1, label=label)
        data["eps"] += [e] * xs.size
        data["x"] += [float(v) for v in xs]
        data["margin"] += [float(v) for v in mg]
    ax.axhline(0, color="k", lw=0.8, label="_caption:positive on")
    ax.set_xlabel("recovered fraction x")
    ax.set_ylabel("(1 - x) - exp(-c Omega'(x))")
    ax.set_title("Theorem 6, condition (54): positive on [0, 1 - eps] (dotted)")
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(handles[::2], labels[::2], fontsize=7)
    ax.grid(alpha=0.3)
    return rec.done({"margin": ax}, data)
