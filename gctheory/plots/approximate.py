"""Figure: approximate gradient codes (Wang-Liu-Shroff 2019; Charles et al. 2017).

Left: the d-FRC's exact decoding-failure probability versus n for fixed d,
and along Theorem 4's choice ``d = ceil(eq. (14))``, with Monte Carlo points.
Right: the error each decoder makes (mean ``err / n``, eq. (5) form) versus
average load for the d-FRC, the batch raptor code (``P_w``, Theorem 6), the
Bernoulli gradient code, the expander code of Raviv et al. (random
d-regular graphs, optimal and fixed decoders, with the spectral bound on the
fixed decoder's worst-case error) and IS-GC's largest partial sum on cyclic
and hybrid repetition (err = partitions not recovered), at n = 120 with 20%
random stragglers.
Lower left: the constructions whose data partitions are not the workers, at
the same n = 120 and 20% stragglers, mean ``err / k`` (k partitions) versus
normalised load (fraction of the data per worker, times n): the graph
assignment code of Glasgow and Wootters (workers = the 120 edges of a random
d-regular graph on k = 240/d blocks, optimal decoding) and stochastic
gradient coding (Bitar et al.; cyclic placement, its unbiased estimator with
every worker straggling independently with probability 0.2), with the random
expander codes of the upper right for reference. Lower right: families that
exist only at particular n, drawn as points at those n (s = round(0.2 n)
random stragglers): the explicit Margulis expander (n = m^2, 8-regular;
optimal and fixed decoders, spectral bound), a random 8-regular expander at
the same n, and BIBD codes on PG(2, q) (n = q^2 + q + 1) and AG(2, q)
(n = q^2), whose optimal error is the same for every straggler set
(Kadhe et al. ISIT 2019; exact, no Monte Carlo).
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any

import numpy as np

from gctheory.codes.approximate import (
    BatchRaptorCode,
    BernoulliGradientCode,
    DFractionalRepetitionCode,
    dfrc_failure_probability,
    dfrc_theorem4_load,
    estimate_decoding_failure,
    estimate_mean_error,
    theorem6_mean_degree,
)
from gctheory.codes.designs import BIBDGradientCode, StochasticGradientCode, bibd
from gctheory.codes.expander import (
    ExpanderCode,
    GraphAssignmentCode,
    margulis_graph,
    random_regular_graph,
)
from gctheory.codes.isgc import ISGCCode
from gctheory.montecarlo import Estimate, estimate_mean
from gctheory.plots._base import Drawing, _figure, _legend, _Recorder, figure, plt, save_figure

_FLOOR = 1e-5  # zero estimates and CLT limits below it are drawn at the floor


@figure(
    "approx_codes",
    description="d-FRC exact P(err > 0) vs n (fixed d and Theorem 4's d, delta = 0.1, with Monte "
    "Carlo points); mean err/n vs average load for d-FRC, batch raptor, Bernoulli, expander "
    "codes (optimal and fixed decoders, with the spectral bound) and IS-GC cyclic / hybrid "
    "repetition (n = 120, 20% stragglers, 99% CI); mean err/k vs load for the Glasgow-Wootters "
    "graph assignment code and stochastic gradient coding (n = 120); and, as points at the n "
    "where they exist, the Margulis expander (n = m^2) and BIBD codes (PG(2,q), AG(2,q), exact)",
    paper="wang2019",
)
def _approx(outdir: Path, quick: bool) -> list[Path]:
    fig = plt.figure(figsize=(14.5, 10.2), layout="constrained")
    drawn = plot_approximate_codes(fig=fig, quick=quick)
    return save_figure(fig, outdir, "approx_codes", drawn.data)


def plot_approximate_codes(*, fig: Any = None, quick: bool = True) -> Drawing:
    """Approximate gradient codes, four panels: the d-FRC's exact P(err > 0) versus n
    (fixed d and Theorem 4's d, with Monte Carlo points); mean err/n versus load at
    n = 120 with 20% random stragglers for d-FRC, batch raptor, Bernoulli, expander and
    IS-GC codes; mean err/k for the graph assignment code and stochastic gradient coding;
    and the families that exist only at particular n (Margulis expanders, BIBD codes).
    Computes (fewer trials when ``quick``) and draws on ``fig``; ``.data`` holds every
    point with its 99% interval.

    Parameters
    ----------
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
    >>> from gctheory.plots import plot_approximate_codes
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_approximate_codes()  # doctest: +SKIP
    >>> sorted(drawing.axes)  # doctest: +SKIP
    >>> plt.close("all")
    """
    fig = _figure(fig, (14.5, 10.2))
    rec = _Recorder(fig)
    ((ax_l, ax_r), (ax_ll, ax_lr)) = fig.subplots(2, 2)
    rows: dict[str, list] = {"panel": [], "series": [], "x": [], "y": [], "low": [], "high": []}

    def add(panel, series, x, y, lo=float("nan"), hi=float("nan")):
        for c, v in zip(rows, (panel, series, x, y, lo, hi)):
            rows[c].append(v)

    _upper_left(ax_l, add, quick)
    n, s, trials, trials_lsq, expanders = _upper_right(ax_r, add, quick)
    _lower_left(ax_ll, add, n, s, trials, trials_lsq, expanders)
    _lower_right(ax_lr, add, quick, trials, trials_lsq)
    return rec.done(
        {"dfrc_failure": ax_l, "error_vs_load": ax_r, "other_k": ax_ll, "particular_n": ax_lr}, rows
    )


def _upper_left(ax_l, add, quick):
    """The d-FRC's exact P(err > 0) versus n (fixed d, Theorem 4's d), Monte Carlo points."""
    delta = 0.1
    # left: exact failure probability of the d-FRC
    nmax, npts = (5000, 20) if quick else (20000, 40)
    for d, color in zip((2, 3, 4, 5), ("C0", "C1", "C2", "C3")):
        ns = np.unique(np.geomspace(10 * d, nmax, npts).astype(int) // d * d)
        ps = [float(dfrc_failure_probability(int(n), d, int(round(delta * n)))) for n in ns]
        ax_l.semilogx(ns, ps, color=color, label=f"d = {d} (exact)")
        for n, p in zip(ns, ps):
            add("left", f"d={d}", int(n), p)
    ns4, ps4 = [], []
    for n in np.unique(np.geomspace(20, nmax, int(1.5 * npts)).astype(int)):
        d = math.ceil(dfrc_theorem4_load(int(n), max(1, int(round(delta * n)))))
        n_d = int(n) // d * d
        if n_d > d:
            ns4.append(n_d)
            ps4.append(float(dfrc_failure_probability(n_d, d, int(round(delta * n_d)))))
    ax_l.semilogx(ns4, ps4, "k--", lw=1.2, label="Theorem 4: d = ceil(eq. (14))")
    for n, p in zip(ns4, ps4):
        add("left", "theorem4", n, p)
    trials = 150 if quick else 2000  # quick: a smoke test
    for n in (60, 240, 960):
        code = DFractionalRepetitionCode(n, 3)
        est = estimate_decoding_failure(code, int(round(delta * n)), trials, rng=n, level=0.99)
        ax_l.errorbar(
            n,
            est.value,
            yerr=[[est.value - est.low], [est.high - est.value]],
            fmt="o",
            color="C1",
            ms=4,
            capsize=3,
            label="d = 3: Monte Carlo (99% CI)",
        )
        add("left", "d=3 Monte Carlo", n, est.value, est.low, est.high)
    ax_l.set_xlabel("n (workers), s = 0.1 n random stragglers")
    ax_l.set_ylabel("P(err > 0) of the group-sum decoder")
    ax_l.set_title("d-FRC (Wang et al. Def. 4): exact, and Monte Carlo (99% CI)", fontsize=10)
    ax_l.set_ylim(0, 1)
    ax_l.grid(True, alpha=0.3)
    _legend(ax_l, fontsize=8)


def _upper_right(ax_r, add, quick):
    """Mean err / n versus load at n = 120, s = 24; returns what the lower panels reuse."""
    # right: error vs average load at n = 120, s = 24
    n, s = 120, 24
    trials = 50 if quick else 400
    trials_lsq = 20 if quick else 150  # one least-squares solve (120 x 96) per trial
    series = _load_series(n, s, trials)
    bound_x, bound_y = _expander_series(series, n, s, trials, trials_lsq)
    _isgc_series(series, n, s, 20 if quick else 150)
    for label, color, marker, ls, es in series:
        _series(ax_r, add, "right", label, color, marker, ls, es, n)
    ax_r.plot(bound_x, bound_y, "--", color="C5", lw=1, label="spectral bound, fixed decoder")
    for x, b_ in zip(bound_x, bound_y):
        add("right", "expander spectral bound (fixed decoder)", float(x), float(b_))
    _finish(ax_r, "average load (partitions per worker)",
            "mean err / n  (err = ||A_S^T u - 1||^2)",
            f"n = {n}, s = {s} random stragglers (99% CI)")  # fmt: skip
    expanders = [sr for sr in series if sr[0].startswith("expander")]
    return n, s, trials, trials_lsq, expanders


def _load_series(n, s, trials):
    """The d-FRC, batch raptor and Bernoulli series: (label, color, marker, loads, errs)."""
    series = []
    loads: list[float] = []  # average loads (integers for d-FRC, means for the others)
    errs: list[Estimate] = []
    for d in (1, 2, 3, 4, 5, 6):
        dfrc = DFractionalRepetitionCode(n, d)
        loads.append(dfrc.load)
        errs.append(estimate_mean_error(dfrc, s, trials, rng=[1, d]))
    series.append(("d-FRC, group sum", "C0", "o", loads, errs))
    loads, errs = [], []
    for eps in (0.2, 0.1, 0.05, 0.02):
        raptor = BatchRaptorCode.theorem6(n, s, eps, rng=7)
        b = raptor.batches[0].size
        loads.append(b * float(theorem6_mean_degree(eps)))
        errs.append(estimate_mean_error(raptor, s, trials, rng=[2, int(1 / eps)]))
    series.append(("batch raptor (P_w), peeling", "C2", "s", loads, errs))
    loads, errs = [], []
    for mean_load in (1, 2, 3, 4, 6, 8):
        bernoulli = BernoulliGradientCode(n, mean_load / n, rng=mean_load)
        loads.append(bernoulli.expected_load)
        errs.append(estimate_mean_error(bernoulli, s, trials, rng=[3, mean_load]))
    series.append(("Bernoulli (Charles et al.), least squares", "C3", "^", loads, errs))
    return series


def _expander_series(series, n, s, trials, trials_lsq):
    """Random d-regular expander codes, both decoders, appended; returns the spectral bound."""
    # expander codes (Raviv et al. 2020): random d-regular graphs, both decoders, and the
    # spectral bound on the fixed decoder's error (worst case over straggler sets)
    bound_x, bound_y = [], []
    for dec, color, marker in (("optimal", "C4", "D"), ("fixed", "C5", "v")):
        loads, errs = [], []
        for deg in (3, 4, 6, 8):
            expander = ExpanderCode(random_regular_graph(n, deg, rng=deg), decoder=dec)
            loads.append(expander.load)
            tr = trials_lsq if dec == "optimal" else trials
            errs.append(estimate_mean_error(expander, s, tr, rng=[4, deg]))
            if dec == "fixed":
                bound_x.append(expander.load)
                bound_y.append(expander.error_bound(s) / n)
        series.append((f"expander (Raviv et al.), {dec} decoder", color, marker, loads, errs))
    return bound_x, bound_y


def _isgc_series(series, n, s, trials_is):
    """IS-GC's largest partial sum on cyclic and hybrid repetition, appended to ``series``."""
    # IS-GC (ignore stragglers): partitions not recovered by the largest disjoint survivor
    # set, for cyclic and hybrid repetition (FR coincides with the d-FRC series above)
    for label, color, marker, kw in (
        ("IS-GC cyclic repetition, largest partial sum", "C6", "P", {}),
        ("IS-GC hybrid (c1 = c/2, 10 groups), largest partial sum", "C7", "X", {"h": True}),
    ):
        loads, errs = [], []
        for c in (2, 3, 4, 6):
            if kw:
                isgc = ISGCCode(n, c - 1, "hybrid", c1=c // 2, groups=10)
            else:
                isgc = ISGCCode(n, c - 1, "cyclic")
            loads.append(isgc.load)
            errs.append(estimate_mean_error(isgc, s, trials_is, rng=[5, c, len(kw)]))
        series.append((label, color, marker, loads, errs))


def _series(ax, add, panel, label, color, marker, xs, es, k, **kw):
    """Estimates ``es`` (of err) at ``xs`` as err / k (``k`` a number or one per point) with
    their intervals, drawn (zeros at the floor, with an open marker) and added to the CSV."""
    k = np.broadcast_to(np.asarray(k, dtype=float), (len(es),))
    y = np.array([e.value for e in es]) / k
    lo = np.array([e.low for e in es]) / k
    hi = np.array([e.high for e in es]) / k
    for row in zip(xs, y, lo, hi):
        add(panel, label, *(float(v) for v in row))
    yp, lop, hip = (np.maximum(v, _FLOOR) for v in (y, lo, hi))
    ax.errorbar(xs, yp, yerr=[yp - lop, hip - yp], marker=marker, color=color, label=label,
                ms=kw.pop("ms", 5), capsize=3, **kw)  # fmt: skip
    zero = y <= 0
    if zero.any():
        ax.plot(np.asarray(xs)[zero], yp[zero], marker, mfc="white", color=color, ms=8, label=label)


def _finish(ax, xlabel, ylabel, title, ylim=(_FLOOR / 2, 1), outside=True):
    """Log y axis, labels, grid and legend (outside on the right, or inside)."""
    ax.set_yscale("log")
    ax.set_ylim(*ylim)
    if ylim[0] < _FLOOR:
        ax.text(0.02, 0.02, f"open marker: no error in any trial (drawn at {_FLOOR:g})",
                transform=ax.transAxes, fontsize=8)  # fmt: skip
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    keep: dict[str, Any] = {}
    for h, lab in zip(handles, labels):
        keep.setdefault(lab, h)  # a series' open markers share its entry
    if outside:
        ax.legend(keep.values(), keep.keys(), fontsize=7, loc="upper left",
                  bbox_to_anchor=(1.01, 1.0))  # fmt: skip
    else:
        ax.legend(keep.values(), keep.keys(), fontsize=7, loc="upper right")


def _lower_left(ax, add, n, s, trials, trials_lsq, expanders):
    """Graph assignment (Glasgow-Wootters) and SGC at n = 120: err / k vs normalised load."""
    # graph assignment: the n = 120 workers are the edges of a d-regular graph on k = 2n/d
    # blocks; each holds 2 of the k blocks, a normalised load 2n/k = d
    loads, errs, ks = [], [], []
    for deg in (3, 4, 5, 6, 8):
        code = GraphAssignmentCode(random_regular_graph(2 * n // deg, deg, rng=[6, deg]))
        loads.append(2 * n / code.k)
        ks.append(code.k)
        errs.append(estimate_mean_error(code, s, trials, rng=[6, deg]))
    label = "graph assignment (Glasgow-Wootters), optimal decoder, k = 2n/d"
    _series(ax, add, "lower-left", label, "C8", "o", loads, errs, ks)
    # SGC, cyclic placement: its unbiased estimator, workers straggling with p = s/n
    p = s / n
    loads, errs = [], []
    for d in (2, 3, 4, 6, 8):
        code = StochasticGradientCode.cyclic(n, d, p)
        loads.append(code.load)
        sampler = functools.partial(code.sample_error, np.eye(code.k))
        errs.append(estimate_mean(sampler, trials, rng=[7, d], level=0.99))
    label = f"SGC (Bitar et al.), cyclic, estimator; stragglers iid p = {p:g}"
    _series(ax, add, "lower-left", label, "C9", "s", loads, errs, n)
    for label, color, marker, ls, es in expanders:  # the upper right's, for reference
        y = np.maximum(np.array([e.value for e in es]) / n, _FLOOR)
        ax.plot(ls, y, marker + ":", color=color, alpha=0.5, ms=4, label=f"{label} (upper right)")
    title = f"n = {n} workers, {s} random stragglers (SGC: iid), 99% CI"
    _finish(ax, "normalised load (fraction of the data per worker x n)",
            "mean err / k  (k data partitions)", title, outside=False)  # fmt: skip


def _lower_right(ax, add, quick, trials, trials_lsq):
    """Families at particular n only: Margulis (n = m^2), BIBD (PG(2,q), AG(2,q)); err / k."""
    ms = (3, 5, 7, 9, 11) if quick else tuple(range(3, 12))
    for dec, color, marker in (("optimal", "C4", "D"), ("fixed", "C5", "v")):
        ns, errs = [], []
        for m in ms:
            code = ExpanderCode(margulis_graph(m), decoder=dec)
            s = round(0.2 * code.n)
            ns.append(code.n)
            tr = trials_lsq if dec == "optimal" else trials
            errs.append(estimate_mean_error(code, s, tr, rng=[8, m, len(dec)]))
        label = f"Margulis expander (n = m^2 only, d = 8), {dec} decoder"
        _series(ax, add, "lower-right", label, color, marker, ns, errs, ns, ls="none")
    bx, by = [], []
    for m in ms:
        code = ExpanderCode(margulis_graph(m), decoder="fixed")
        bx.append(code.n)
        by.append(code.error_bound(round(0.2 * code.n)) / code.n)
        add("lower-right", "Margulis spectral bound (fixed decoder)", code.n, by[-1])
    ax.plot(bx, by, "--", color="C5", lw=1, label="Margulis spectral bound, fixed decoder")
    ns, errs = [], []
    for m in ms:
        nn = m * m
        code = ExpanderCode(random_regular_graph(nn, 8, rng=[9, m]))
        ns.append(nn)
        errs.append(estimate_mean_error(code, round(0.2 * nn), trials_lsq, rng=[9, m]))
    label = "random 8-regular expander at the same n, optimal decoder"
    _series(ax, add, "lower-right", label, "C1", "o", ns, errs, ns, ms=4, ls="none")
    for name, qs, v_of, color, marker in (
        ("PG(2,q): n = q^2+q+1", (2, 3, 5, 7, 11), lambda q: q * q + q + 1, "C2", "s"),
        ("AG(2,q): n = q^2", (3, 5, 7, 11), lambda q: q * q, "C3", "^"),
    ):
        xs, ys, loads = [], [], []
        for q in qs:
            v = v_of(q)
            code = BIBDGradientCode(bibd(v, q + 1 if "PG" in name else q))
            xs.append(v)
            loads.append(code.load)
            ys.append(float(code.error(round(0.2 * v))) / code.k)
        label = f"BIBD {name} only, load q+1, exact (every straggler set)"
        ax.plot(xs, np.maximum(ys, _FLOOR), marker, color=color, ms=6, label=label)
        for x, y in zip(xs, ys):
            add("lower-right", label, x, y)
    ax.set_xlim(0, 140)
    _finish(ax, "n (workers); s = round(0.2 n) random stragglers",
            "mean err / k  (k data partitions)",
            "families that exist only at particular n (points at those n), 99% CI",
            ylim=(3e-4, 0.5))  # fmt: skip
