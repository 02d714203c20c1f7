"""Figures of the numerical-stability analysis (Kadhe et al. 2019, Section IV-B, Table I).

Every number comes from :mod:`gctheory.conditioning`; Table I's printed values are
drawn only as comparison markers.
"""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from gctheory.conditioning import (
    FLOAT64_RELIABLE_LIMIT,
    condition_tail_mc,
    empirical_s_kappa,
    empirical_s_kappa_mc,
    gaussian_condition_bound,
    max_condition,
    s_kappa_commfr,
    s_kappa_ye_abbe,
    vandermonde_condition_mp,
)
from gctheory.generators import VANDERMONDE_NODES, gaussian_generator, vandermonde_generator
from gctheory.plots._base import (
    Drawing,
    _axes,
    _figure,
    _legend,
    _Recorder,
    figure,
    plt,
    save_figure,
)
from gctheory.tables import TABLE1_PRINTED

KAPPA, EPS = 1000, 1e-3
_OPEN = "open marker: not certified (bound)"
NODE_LABEL = {
    "equispaced": "Vandermonde, equispaced",
    "chebyshev": "Vandermonde, Chebyshev",
    "roots_of_unity": "Vandermonde, roots of unity",
}


def _bound_or_nan(fn, *args) -> float:
    try:
        return float(fn(*args))
    except ValueError:
        return float("nan")


@figure(
    "kadhe2019_skappa_vs_s",
    paper="kadhe2019",
    description="Theorem 2's s_kappa vs s: CommFR-GC vs Ye-Abbe (Gaussian), Table I markers",
)
def make_skappa_vs_s(outdir: Path, quick: bool) -> list[Path]:
    fig = plt.figure(figsize=(11, 4.4), layout="constrained")
    drawn = plot_skappa_vs_s(fig=fig, quick=quick)
    return save_figure(fig, outdir, "kadhe2019_skappa_vs_s", drawn.data)


def plot_skappa_vs_s(*, fig: Any = None, quick: bool = True) -> Drawing:
    """Theorem 2's guaranteed s_kappa versus s (kappa = 1000, eps = 1e-3): CommFR-GC
    versus Ye-Abbe with a Gaussian V at n = 60 and n = 1000, Table I's printed values as
    markers. Computes (a coarser s grid at n = 1000 when ``quick``) and draws two panels
    on ``fig``; ``.data`` holds the curves.

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
    >>> from gctheory.plots import plot_skappa_vs_s
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_skappa_vs_s()
    >>> list(drawing.axes)
    ['n60', 'n1000']
    >>> plt.close("all")
    """
    fig = _figure(fig, (11, 4.4))
    rec = _Recorder(fig)
    axes = fig.subplots(1, 2)
    data: dict[str, list] = {"n": [], "s": [], "scheme": [], "m": [], "s_kappa": []}
    for ax, n, ms in ((axes[0], 60, (2, 12)), (axes[1], 1000, (10, 210))):
        step = 1 if n == 60 else (10 if quick else 5)
        ss = list(range(1, (25 if n == 60 else 250) + 1, step))
        ya = [_bound_or_nan(s_kappa_ye_abbe, n, s, KAPPA, EPS) for s in ss]
        ax.plot(ss, ya, "k-", label="Ye-Abbe, Gaussian V (Thm. 2, m+s->n)")
        data["n"] += [n] * len(ss)
        data["s"] += ss
        data["scheme"] += ["ye-abbe"] * len(ss)
        data["m"] += [""] * len(ss)
        data["s_kappa"] += ya
        for m, style in zip(ms, ("C0-", "C1-")):
            cf = [_bound_or_nan(s_kappa_commfr, s, m, KAPPA, EPS) for s in ss]
            ax.plot(ss, cf, style, label=f"CommFR-GC, [m+s, m], m={m}")
            data["n"] += [n] * len(ss)
            data["s"] += ss
            data["scheme"] += ["commfr"] * len(ss)
            data["m"] += [m] * len(ss)
            data["s_kappa"] += cf
        ax.plot(ss, ss, ":", color="grey", label="s (no stability constraint)")
        for (tn, ts, tm), (pya, pcf) in TABLE1_PRINTED.items():
            if tn != n:
                continue
            col = "C0" if tm == ms[0] else "C1"
            table1 = "Table I printed (circles CommFR, squares YA)"
            ax.plot([ts], [pcf], "o", mfc="none", color=col, ms=8, label=table1)
            ax.plot([ts], [pya], "s", mfc="none", color="k", ms=8, label=table1)
        ax.set_title(f"n = {n}, kappa = {KAPPA}, eps = {EPS:g} (C = 6.414)")
        ax.set_xlabel("s (stragglers the code tolerates)")
        ax.set_ylabel("guaranteed s_kappa")
        ax.grid(alpha=0.3)
    for ax in axes:
        _legend(ax, fontsize=7, loc="upper left")
    return rec.done({"n60": axes[0], "n1000": axes[1]}, data)


@figure(
    "kadhe2019_skappa_empirical",
    paper="kadhe2019",
    description="s_kappa of [m+s, m] codes: Theorem 2 bound vs sampled Gaussian vs Vandermonde",
)
def make_skappa_empirical(outdir: Path, quick: bool) -> list[Path]:
    fig = plt.figure(figsize=(11, 4.6), layout="constrained")
    drawn = plot_skappa_empirical(fig=fig, quick=quick)
    return save_figure(fig, outdir, "kadhe2019_skappa_empirical", drawn.data)


def plot_skappa_empirical(*, fig: Any = None, quick: bool = True) -> Drawing:
    """s_kappa of [m + s, m] codes, m = 4 and 8: Theorem 2's bound, the mean empirical
    s_kappa of sampled Gaussian generators (99% CI; fewer samples when ``quick``) and the
    exact s_kappa of Vandermonde generators. Computes and draws two panels on ``fig``;
    ``.data`` holds the curves.

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
    >>> from gctheory.plots import plot_skappa_empirical
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_skappa_empirical()  # doctest: +SKIP
    >>> list(drawing.axes)  # doctest: +SKIP
    >>> plt.close("all")
    """
    trials = 6 if quick else 200  # quick: a smoke test (nothing judges it)
    fig = _figure(fig, (11, 4.6))
    rec = _Recorder(fig)
    axes = fig.subplots(1, 2)
    data: dict[str, list] = {"m": [], "s": [], "theorem2": [], "gaussian_mean": []}
    data.update({"gaussian_low": [], "gaussian_high": []})
    data.update({f"vandermonde_{k}": [] for k in VANDERMONDE_NODES})
    for ax, m, smax in ((axes[0], 4, 10), (axes[1], 8, 8 if quick else 8)):
        ss = list(range(1, smax + 1))
        bound, emp, lo, hi = [], [], [], []
        vand: dict[str, list] = {k: [] for k in VANDERMONDE_NODES}
        for s in ss:
            bound.append(_bound_or_nan(s_kappa_commfr, s, m, KAPPA, EPS))
            est = empirical_s_kappa_mc(m + s, m, KAPPA, trials, rng=[2019, m, s])
            emp.append(est.value)
            lo.append(est.low)
            hi.append(est.high)
            for nodes in VANDERMONDE_NODES:
                G = vandermonde_generator(m, m + s, nodes=nodes)
                ref = partial(vandermonde_condition_mp, m, m + s, nodes=nodes, dps=60)
                v = empirical_s_kappa(G, KAPPA, mp_reference=ref).value
                vand[nodes].append(-1 if v is None else v)
        ax.plot(ss, ss, ":", color="grey", label="s (no stability constraint)")
        ax.plot(ss, bound, "k-o", ms=4, label="Gaussian: Theorem 2 guarantee (prob. 1 - eps)")
        ax.errorbar(
            ss, emp, yerr=[np.subtract(emp, lo), np.subtract(hi, emp)], fmt="C0-s", ms=4,
            capsize=2, label=f"Gaussian: mean empirical s_kappa ({trials} generators, 99% CI)",
        )  # fmt: skip
        for nodes, style in zip(VANDERMONDE_NODES, ("C3--^", "C2--v", "C4--d")):
            ax.plot(ss, vand[nodes], style, ms=4, label=NODE_LABEL[nodes] + " (exact)")
        ax.set_xlabel(f"s  ([m+s, m] code, m = {m})")
        ax.set_ylabel("s_kappa  (kappa = 1000; -1: even cond(G) > kappa)")
        ax.set_title(f"CommFR-GC group code, m = {m}")
        ax.grid(alpha=0.3)
        data["m"] += [m] * len(ss)
        data["s"] += ss
        data["theorem2"] += bound
        data["gaussian_mean"] += emp
        data["gaussian_low"] += lo
        data["gaussian_high"] += hi
        for k in VANDERMONDE_NODES:
            data[f"vandermonde_{k}"] += vand[k]
    axes[0].legend(fontsize=7)
    return rec.done({"m4": axes[0], "m8": axes[1]}, data)


@figure(
    "kadhe2019_cond_vs_n",
    paper="kadhe2019",
    description="worst condition number of the Ye-Abbe decoding matrices vs n (s = 1)",
)
def make_cond_vs_n(outdir: Path, quick: bool) -> list[Path]:
    fig, ax = plt.subplots(figsize=(6.5, 4.4), layout="constrained")
    drawn = plot_cond_vs_n(ax=ax, quick=quick)
    return save_figure(fig, outdir, "kadhe2019_cond_vs_n", drawn.data)


def plot_cond_vs_n(*, ax: Any = None, quick: bool = True) -> Drawing:
    """Worst condition number of the Ye-Abbe decoding matrices versus n (s = 1):
    Vandermonde on three node sets (mpmath, with float64 dots) and Gaussian V (median
    and max over seeds). Computes (every other n when ``quick``) and draws on ``ax``;
    ``.data`` holds the curves.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        The axes to draw on (new ones by default).
    quick : bool
        Smaller grids and fewer Monte Carlo trials.

    Returns
    -------
    Drawing
        The figure, its axes by panel, the artists drawn and the data behind them.

    Examples
    --------
    >>> from gctheory.plots import plot_cond_vs_n
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_cond_vs_n()  # doctest: +SKIP
    >>> list(drawing.axes)  # doctest: +SKIP
    >>> plt.close("all")
    """
    s = 1
    ns = list(range(6, 41, 2 if quick else 1))
    seeds = 3 if quick else 10
    curves: dict[str, list] = {k: [] for k in VANDERMONDE_NODES}
    f64: dict[str, list] = {k: [] for k in VANDERMONDE_NODES}
    gmed, gmax = [], []
    for n in ns:
        K = n - s
        for nodes in VANDERMONDE_NODES:
            ref = partial(vandermonde_condition_mp, K, n, nodes=nodes, dps=80)
            mc = max_condition(vandermonde_generator(K, n, nodes=nodes), K, mp_reference=ref)
            f64[nodes].append(mc.value)
            exact = mc.value_mp if mc.value_mp is not None else mc.value
            curves[nodes].append(exact)
        vals = [max_condition(gaussian_generator(K, n, rng=[n, r]), K).value for r in range(seeds)]
        gmed.append(float(np.median(vals)))
        gmax.append(float(np.max(vals)))
    ax = _axes(ax, (6.5, 4.4))
    rec = _Recorder(ax.figure)
    for nodes, col in zip(VANDERMONDE_NODES, ("C3", "C2", "C4")):
        ax.semilogy(ns, curves[nodes], "-", color=col, label=NODE_LABEL[nodes] + " (mpmath)")
        ax.semilogy(ns, f64[nodes], ".", color=col, ms=3, label="_caption:dots: float64 values")
    ax.semilogy(ns, gmed, "C0-", label=f"Gaussian V: median of {seeds}")
    ax.semilogy(ns, gmax, "C0:", label=f"Gaussian V: max of {seeds}")
    ax.axhline(FLOAT64_RELIABLE_LIMIT, color="grey", ls="--", lw=1, label="_caption:1e10: float64")
    ax.axhline(1 / np.finfo(float).eps, color="k", ls="--", lw=1, label="_caption:1/eps: no digit")
    ax.text(ns[-1], FLOAT64_RELIABLE_LIMIT / 8, "1e10: float64 keeps < 6 digits", fontsize=7,
            ha="right")  # fmt: skip
    ax.text(ns[-1], 1 / np.finfo(float).eps / 8, "1/eps: no digit left", fontsize=7, ha="right")
    ax.axvline(25, color="grey", lw=0.8, label="n = 25: unstable beyond (Kadhe et al., Sec. I)")
    ax.set_xlabel("n (workers); decoding matrix V_T is (n-1) x (n-1)")
    ax.set_ylabel("max over T of cond(V_T), s = 1")
    ax.set_title("Ye-Abbe decoding matrices (dots: float64 values)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, loc="upper left")
    data = {"n": ns, "gaussian_median": gmed, "gaussian_max": gmax}
    for k in VANDERMONDE_NODES:
        data[f"{k}_mp"] = curves[k]
        data[f"{k}_float64"] = f64[k]
    return rec.done({"condition": ax}, data)


@figure(
    "kadhe2019_tail_bound_mc",
    paper="kadhe2019",
    description="Chen-Dongarra tail bound (Lemma 1) vs Monte Carlo P(cond > kappa)",
)
def make_tail(outdir: Path, quick: bool) -> list[Path]:
    fig, ax = plt.subplots(figsize=(6.5, 4.4), layout="constrained")
    drawn = plot_condition_tail(ax=ax, quick=quick)
    return save_figure(fig, outdir, "kadhe2019_tail_bound_mc", drawn.data)


def plot_condition_tail(*, ax: Any = None, quick: bool = True) -> Drawing:
    """Lemma 1 (Chen-Dongarra) tail bound on P(cond(M) > kappa) of u x v Gaussian M
    versus Monte Carlo (99% CI). Computes (fewer shapes and trials when ``quick``) and
    draws on ``ax``; ``.data`` holds the curves.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        The axes to draw on (new ones by default).
    quick : bool
        Smaller grids and fewer Monte Carlo trials.

    Returns
    -------
    Drawing
        The figure, its axes by panel, the artists drawn and the data behind them.

    Examples
    --------
    >>> from gctheory.plots import plot_condition_tail
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_condition_tail()  # doctest: +SKIP
    >>> list(drawing.axes)  # doctest: +SKIP
    ['tail']
    >>> plt.close("all")
    """
    trials = 8_000 if quick else 50_000  # quick: a smoke test
    shapes = [(2, 5), (12, 14), (12, 12)] + ([] if quick else [(57, 60)])
    ax = _axes(ax, (6.5, 4.4))
    rec = _Recorder(ax.figure)
    data: dict[str, list] = {
        "u": [], "v": [], "kappa": [], "bound": [], "mc": [], "mc_low": [], "mc_high": []
    }  # fmt: skip
    for i, (u, v) in enumerate(shapes):
        ks = np.geomspace(max(v, 5), 3000, 7 if quick else 10)
        b = [gaussian_condition_bound(u, v, k) for k in ks]
        tr = trials if u * v < 1000 else trials // 10
        est = [condition_tail_mc(u, v, k, tr, rng=[u, v, j]) for j, k in enumerate(ks)]
        col = f"C{i}"
        ax.loglog(ks, b, "-", color=col, label=f"{u}x{v}: bound (1/sqrt(2 pi), C=6.414)")
        val = np.array([e.value for e in est])
        lo = np.array([e.low for e in est])
        hi = np.array([e.high for e in est])
        pos = val > 0
        ax.errorbar(
            ks[pos], val[pos], yerr=[(val - lo)[pos], (hi - val)[pos]], fmt="o", color=col,
            ms=3, capsize=2, label=f"{u}x{v}: Monte Carlo ({tr} matrices, 99% CI)",
        )  # fmt: skip
        data["u"] += [u] * len(ks)
        data["v"] += [v] * len(ks)
        data["kappa"] += list(ks)
        data["bound"] += b
        data["mc"] += list(val)
        data["mc_low"] += list(lo)
        data["mc_high"] += list(hi)
    ax.set_xlabel("kappa")
    ax.set_ylabel("P(cond(M) > kappa)")
    ax.set_title("Lemma 1 (Chen-Dongarra) vs Monte Carlo, u x v Gaussian M")
    ax.grid(alpha=0.3, which="both")
    ax.set_ylim(1e-5, 2)
    ax.legend(fontsize=6.5)
    return rec.done({"tail": ax}, data)


def _empirical_or_minus1(G, **kw) -> tuple[int, bool]:
    r = empirical_s_kappa(G, KAPPA, **kw)
    return (-1 if r.value is None else r.value), r.exact


@figure(
    "kadhe2019_skappa_vs_n",
    paper="kadhe2019",
    description="s_kappa vs n at s = n/4: Ye-Abbe vs CommFR-GC (m = 4), Gaussian vs Vandermonde",
)
def make_skappa_vs_n(outdir: Path, quick: bool) -> list[Path]:
    fig = plt.figure(figsize=(11.5, 5.4), layout="constrained")
    drawn = plot_skappa_vs_n(fig=fig, quick=quick)
    return save_figure(fig, outdir, "kadhe2019_skappa_vs_n", drawn.data)


def plot_skappa_vs_n(*, fig: Any = None, quick: bool = True) -> Drawing:
    """s_kappa versus n with s = floor(n/4) stragglers, kappa = 1000, eps = 1e-3.

    Left, Ye-Abbe: the server inverts column submatrices of an ``(n-s) x n``
    matrix V; the empirical s_kappa of a given V is the largest s' <= s such
    that every ``(n-s')``-column submatrix has cond <= kappa
    (:func:`gctheory.conditioning.empirical_s_kappa`: exhaustive while
    ``binom(n, s') <= 20000``, else a branch and bound; each search is given 40,000
    evaluations (quick: 10,000; condition numbers plus branch-and-bound nodes, a count,
    not seconds, so the figure is the same on any machine and under any load):
    certified when it finishes, otherwise what the steps searched within the budget
    give (not certified), drawn as an open marker; -1 means even
    cond(V) > kappa). Right, CommFR-GC: the same for one group's
    ``[m+s, m]`` code, m = 4 (every group uses the same code, so this is the
    scheme's s_kappa; it depends on n only through s), all exact, the
    Gaussian one as a Monte Carlo mean
    (:func:`gctheory.conditioning.empirical_s_kappa_mc`). Theorem 2's
    guarantee (probability >= 1 - eps) is drawn for both, from
    :func:`s_kappa_ye_abbe` and :func:`s_kappa_commfr`, out to n = 60.
    Vandermonde values use the mpmath reference
    (:func:`vandermonde_condition_mp`) wherever float64 is unreliable.
    Empirical curves: n = 8..44 (quick: 8..28). Computes and draws two panels on
    ``fig``; ``.data`` holds the curves.

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
    >>> from gctheory.plots import plot_skappa_vs_n
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_skappa_vs_n()  # doctest: +SKIP
    >>> list(drawing.axes)  # doctest: +SKIP
    >>> plt.close("all")
    """
    m = 4
    ns = list(range(8, (28 if quick else 44) + 1, 4))
    ns_bound = list(range(8, 61, 4))
    seeds = 1 if quick else 2
    trials = 10 if quick else 60
    # evaluations per search (a count: the same figure on any machine); about 0.4 s of CPU
    # for the quick figure's largest searches
    budget = 10_000 if quick else 40_000
    fig = _figure(fig, (11.5, 5.4))
    rec = _Recorder(fig)
    axes = fig.subplots(1, 2, sharey=True)
    styles = dict(zip(VANDERMONDE_NODES, (("C3", "--^"), ("C2", "--v"), ("C4", "--d"))))
    data: dict[str, list] = {"scheme": [], "n": [], "s": [], "curve": [], "s_kappa": []}
    data.update({"exact": [], "ci_low": [], "ci_high": []})

    def record(scheme, n, curve, value, exact, low="", high=""):
        for key, v in zip(data, (scheme, n, n // 4, curve, value, exact, low, high)):
            data[key].append(v)

    def draw(ax, xs, points, color, fmt, label):
        ax.plot(xs, [v for v, _ in points], fmt, color=color, ms=5, label=label)
        for n, (v, ex) in zip(xs, points):
            if not ex:
                ax.plot([n], [v], fmt[-1], color=color, ms=5, mfc="white", label=_OPEN)

    # Ye-Abbe: (n - s) x n matrix V
    ax = axes[0]
    yb = [_bound_or_nan(s_kappa_ye_abbe, n, n // 4, KAPPA, EPS) for n in ns_bound]
    for n, v in zip(ns_bound, yb):
        record("ye-abbe", n, "theorem2", v, True)
    ax.plot(ns_bound, yb, "k-o", ms=4, label="Gaussian: Theorem 2 guarantee (prob. >= 1 - eps)")
    gauss: list[list[tuple[int, bool]]] = [[] for _ in range(seeds)]
    vand: dict[str, list[tuple[int, bool]]] = {k: [] for k in VANDERMONDE_NODES}
    for n in ns:
        K = n - n // 4
        kw = dict(exhaustive_limit=20_000, samples=2000, rng=[n, 7])
        kw.update(time_limit=math.inf, max_evaluations=budget)
        for r in range(seeds):
            v, ex = _empirical_or_minus1(gaussian_generator(K, n, rng=[n, r]), **kw)
            gauss[r].append((v, ex))
            record("ye-abbe", n, f"gaussian_seed{r}", v, ex)
        for nodes in VANDERMONDE_NODES:
            ref = partial(vandermonde_condition_mp, K, n, nodes=nodes, dps=80)
            G = vandermonde_generator(K, n, nodes=nodes)
            v, ex = _empirical_or_minus1(G, mp_reference=ref, **kw)
            vand[nodes].append((v, ex))
            record("ye-abbe", n, f"vandermonde_{nodes}", v, ex)
    for r in range(seeds):
        draw(ax, ns, gauss[r], "C0", "-s" if r == 0 else ":s", f"Gaussian V, seed {r}")
    for nodes in VANDERMONDE_NODES:
        draw(ax, ns, vand[nodes], *styles[nodes], NODE_LABEL[nodes])
    ax.plot([], [], "s", color="grey", mfc="white", label=_OPEN)
    ax.set_title("Ye-Abbe: (n - s) x n matrix V", fontsize=10)

    # CommFR-GC: one group's [m + s, m] code
    ax = axes[1]
    cb = [_bound_or_nan(s_kappa_commfr, n // 4, m, KAPPA, EPS) for n in ns_bound]
    for n, v in zip(ns_bound, cb):
        record("commfr", n, "theorem2", v, True)
    ax.plot(ns_bound, cb, "k-o", ms=4, label="Gaussian: Theorem 2 guarantee")
    est = [empirical_s_kappa_mc(m + n // 4, m, KAPPA, trials, rng=[2019, m, n]) for n in ns]
    for n, e in zip(ns, est):
        record("commfr", n, "gaussian_mc_mean", e.value, True, e.low, e.high)
    val = np.array([e.value for e in est])
    lo, hi = np.array([e.low for e in est]), np.array([e.high for e in est])
    ax.errorbar(
        ns, val, yerr=[val - lo, hi - val], fmt="C0-s", ms=5, capsize=2,
        label=f"Gaussian: mean empirical s_kappa ({trials} generators, 99% CI)",
    )  # fmt: skip
    for nodes in VANDERMONDE_NODES:
        points = []
        for n in ns:
            ref = partial(vandermonde_condition_mp, m, m + n // 4, nodes=nodes, dps=80)
            G = vandermonde_generator(m, m + n // 4, nodes=nodes)
            points.append(_empirical_or_minus1(G, mp_reference=ref, time_limit=math.inf))
            record("commfr", n, f"vandermonde_{nodes}", *points[-1])
        draw(ax, ns, points, *styles[nodes], NODE_LABEL[nodes] + " (exact)")
    ax.set_title(f"CommFR-GC: every group an [m + s, m] code, m = {m}", fontsize=10)

    for ax in axes:
        ax.plot(ns_bound, [n // 4 for n in ns_bound], ":", color="grey", label="s = floor(n/4)")
        ax.axhline(0, color="grey", lw=0.6, label="_caption:(-1: even the full matrix")
        ax.set_xlabel("n (workers); s = floor(n/4) stragglers")
        ax.grid(alpha=0.3)
        _legend(ax, fontsize=7, loc="upper left")
    axes[0].set_ylabel("s_kappa   (-1: even the full matrix has cond > kappa)")
    fig.suptitle(
        f"s_kappa versus n at s = n/4, kappa = {KAPPA}, eps = {EPS:g} (Theorem 2 with C = 6.414)",
        fontsize=10,
    )
    return rec.done({"ye-abbe": axes[0], "commfr": axes[1]}, data)
