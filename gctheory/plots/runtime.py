"""Figures: expected iteration time versus load / f / K / redundancy, optimum marked,
Monte Carlo points with error bars on the analytic curves; Halbawi et al. Figure 3."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from gctheory.order_stats import (
    expected_order_statistic,
    exponential_log_approx,
    grouped_completion_mc,
    grouped_completion_moments,
    order_statistic_mc,
    order_statistic_moments,
)
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
from gctheory.runtime import (
    OptimumF,
    halbawi_alpha_star,
    halbawi_approx_time,
    halbawi_cm_range,
    halbawi_expected_time,
    halbawi_optimal_f,
    scheme_expected_time,
    scheme_time_mc,
    scheme_time_moments,
    zhang_metrics,
    zhang_worker_dist,
)

T0, XI, N_CG, N80 = 0.001, 1.1, 0.035, 80  # halbawi2017 Figure 3 / Section 6


def _curve(opt: OptimumF) -> np.ndarray:
    """``T_f`` for every f of an optimum at n = N80 (kept for n up to 10**6)."""
    assert opt.times is not None, f"halbawi_optimal_f keeps the curve at n = {N80}"
    return opt.times


@figure(
    "halbawi2017_fig3",
    description="T_f of eq. (21) vs alpha with alpha* of eq. (22) starred; exact eq. (17) at "
    "n = 80 (offline decoding) with Monte Carlo points",
    paper="halbawi2017",
)
def _fig3(outdir: Path, quick: bool) -> list[Path]:
    fig, ax = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
    drawn = plot_halbawi_fig3(ax=ax, quick=quick)
    return save_figure(fig, outdir, "halbawi2017_fig3", drawn.data)


def plot_halbawi_fig3(*, ax: Any = None, quick: bool = True) -> Drawing:
    """Halbawi et al. 2017, Fig. 3: T_f of eq. (21) versus alpha with alpha* of eq. (22)
    starred, the exact eq. (17) at n = 80 and Monte Carlo points (99% CI; fewer trials when
    ``quick``). Computes and draws on ``ax``; ``.data`` holds the curves.

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
    >>> from gctheory.plots import plot_halbawi_fig3
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_halbawi_fig3()
    >>> list(drawing.axes)
    ['time']
    >>> plt.close("all")
    """
    alpha = np.linspace(0.02, 1.0, 400)
    t21 = np.array([halbawi_approx_time(a, t0=T0, xi=XI, n_cg=N_CG) for a in alpha])
    a_star = halbawi_alpha_star(T0, XI, N_CG)
    opt = halbawi_optimal_f(N80, t0=T0, xi=XI, n_cg=N_CG, decoding="none")
    exact_times = _curve(opt)
    f_all = np.arange(1, N80 + 1)
    a_exact = (N80 - f_all + 1) / N80
    d = stats.pareto(XI, scale=T0)
    ax = _axes(ax, (6.4, 4.2))
    rec = _Recorder(ax.figure)
    ax.plot(alpha, t21, label="eq. (21), large-n approximation")
    ax.plot(a_exact, exact_times, ".", ms=3, color="C1", label="eq. (17) exact, n = 80")
    ax.plot(
        [a_star],
        [halbawi_approx_time(a_star, t0=T0, xi=XI, n_cg=N_CG)],
        "*",
        ms=14,
        color="C3",
        label=f"alpha* = {a_star:.4f} (eq. 22)",
    )
    ax.plot([opt.alpha], [opt.time], "D", color="C2", label=f"exact optimum f = {opt.f}")
    mc_a, mc_v, mc_e = [], [], []
    trials = 2000 if quick else 20000
    for f in (20, 40, 60, 68, 75):
        e = order_statistic_mc(d, f, N80, trials, rng=1000 + f)
        mc_a.append((N80 - f + 1) / N80)
        mc_v.append(e.value + N_CG * mc_a[-1])
        mc_e.append(e.half_width)
    ax.errorbar(
        mc_a,
        mc_v,
        yerr=mc_e,
        fmt="o",
        mfc="none",
        color="k",
        capsize=3,
        label="Monte Carlo (99% CI)",
    )
    ax.set_xlabel("alpha = w/k (fraction of data per machine)")
    ax.set_ylabel("expected time T_f (s)")
    ax.set_ylim(0, 0.06)
    ax.set_title("Halbawi et al. 2017, Fig. 3: N c_g = 0.035, t0 = 0.001, xi = 1.1")
    _legend(ax, fontsize=8)
    data = {
        "alpha": list(alpha) + list(a_exact) + mc_a,
        "T": list(t21) + list(exact_times) + mc_v,
        "ci_half_width": [0.0] * (len(alpha) + len(a_exact)) + mc_e,
        "curve": ["eq21"] * len(alpha) + ["eq17_n80"] * len(a_exact) + ["monte_carlo"] * len(mc_a),
    }
    return rec.done({"time": ax}, data)


@figure(
    "runtime_halbawi_f",
    description="T_f of eq. (17) vs f at n = 80 with offline, O(f^2) (RS) and O(f^3) (generic) "
    "decoding; optima marked; Monte Carlo points (99% CI) where the variance is finite",
    paper="halbawi2017",
)
def _halbawi_f(outdir: Path, quick: bool) -> list[Path]:
    fig, ax = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
    drawn = plot_halbawi_f(ax=ax, quick=quick)
    return save_figure(fig, outdir, "runtime_halbawi_f", drawn.data)


def plot_halbawi_f(*, ax: Any = None, quick: bool = True) -> Drawing:
    """T_f of eq. (17) versus f at n = 80 with offline, O(f^2) (RS) and O(f^3) (generic)
    decoding, optima starred, Monte Carlo points (99% CI) where the variance is finite.
    Computes and draws on ``ax``; ``.data`` holds the curves.

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
    >>> from gctheory.plots import plot_halbawi_f
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_halbawi_f()
    >>> list(drawing.axes)
    ['time']
    >>> plt.close("all")
    """
    kw = dict(t0=T0, xi=XI, n_cg=N_CG)
    cm_range = halbawi_cm_range(33, N80, decoding="generic", **kw)
    assert cm_range is not None, "f = 33 is optimal for some c_m at n = 80 (the paper's case)"
    c_m = (cm_range[0] + cm_range[1]) / 2
    ax = _axes(ax, (6.4, 4.2))
    rec = _Recorder(ax.figure)
    data: dict[str, list] = {"f": [], "T": [], "decoding": [], "mc": [], "ci_half_width": []}
    f_all = np.arange(1, N80 + 1)
    # Monte Carlo of the only random term, the delay E[T_(f:n)]; the rest of eq. (17)
    # (c_g N alpha + T_dec(f)) is deterministic: T_f(decoding) - T_f(no c_g, no decoding).
    # Only at f whose delay has a finite variance (n - f + 1 > 2/xi: f <= 79 here), so
    # every error bar is a meaningful CLT interval.
    d = stats.pareto(XI, scale=T0)
    trials = 2000 if quick else 20000
    mc_f = [
        f
        for f in (10, 25, 40, 55, 68, 75)
        if math.isfinite(order_statistic_moments(d, f, N80).variance)
    ]
    delay = {f: order_statistic_mc(d, f, N80, trials, rng=2000 + f) for f in mc_f}
    decs = (("none", "offline"), ("rs", "RS, c_m f(f-1)"), ("generic", "MDS, c_m f^3"))
    for dec, label in decs:
        o = halbawi_optimal_f(N80, c_m=c_m, decoding=dec, **kw)
        times = _curve(o)
        ok = np.isfinite(times)
        (line,) = ax.plot(f_all[ok], times[ok], label=f"{label}: f* = {o.f}")
        ax.plot([o.f], [o.time], "*", ms=12, color=line.get_color(), label=line.get_label())
        data["f"] += list(f_all)
        data["T"] += list(times)
        data["decoding"] += [dec] * N80
        data["mc"] += [math.nan] * N80
        data["ci_half_width"] += [math.nan] * N80
        mc_v, mc_e = [], []
        for f in mc_f:
            rest = halbawi_expected_time(
                f, N80, c_m=c_m, decoding=dec, **kw
            ) - halbawi_expected_time(f, N80, t0=T0, xi=XI, n_cg=0.0, decoding="none")
            mc_v.append(delay[f].value + rest)
            mc_e.append(delay[f].half_width)
            data["f"].append(f)
            data["T"].append(float(times[f - 1]))
            data["decoding"].append(dec)
            data["mc"].append(mc_v[-1])
            data["ci_half_width"].append(mc_e[-1])
        ax.errorbar(
            mc_f, mc_v, yerr=mc_e, fmt="o", mfc="none", ms=5, color=line.get_color(), capsize=3,
            label=line.get_label(),
        )  # fmt: skip
    ax.errorbar(
        [],
        [],
        yerr=[],
        fmt="o",
        mfc="none",
        color="k",
        capsize=3,
        label=f"Monte Carlo, 99% CI ({trials} trials)",
    )
    ax.set_ylim(0, 0.08)
    ax.set_xlabel("f (machines waited for)")
    ax.set_ylabel("T_f (s)")
    ax.set_title(f"eq. (17), n = 80, N c_g = 0.035, c_m = {c_m:.3g} s/FLOP")
    _legend(ax, fontsize=8)
    ax.text(
        0.02,
        0.02,
        "MC points only where Var[T_(f:n)] is finite (n - f + 1 > 2/xi)",
        transform=ax.transAxes,
        fontsize=7,
        color="0.3",
    )
    return rec.done({"time": ax}, data)


@figure(
    "runtime_schemes",
    description="Expected iteration time vs straggler tolerance s per scheme, shifted "
    "exponential and Pareto, n = 24, optimum marked, Monte Carlo points",
    paper="kadhe2019",
)
def _schemes(outdir: Path, quick: bool) -> list[Path]:
    fig = plt.figure(figsize=(11, 4.6), layout="constrained")
    drawn = plot_runtime_schemes(fig=fig, quick=quick)
    return save_figure(fig, outdir, "runtime_schemes", drawn.data)


def plot_runtime_schemes(*, fig: Any = None, quick: bool = True) -> Drawing:
    """Expected iteration time versus straggler tolerance s per scheme (cyclic-MDS, FRC,
    Ye-Abbe m = 2, ignore-s), n = 24, shifted exponential and Pareto delays, optima
    starred, Monte Carlo points (99% CI). Computes and draws two panels on ``fig``;
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
    >>> from gctheory.plots import plot_runtime_schemes
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_runtime_schemes()
    >>> list(drawing.axes)
    ['shifted exp. 1 + Exp(1)', 'Pareto(1, 1.5)']
    >>> plt.close("all")
    """
    n, tau = 24, 0.5
    models = {
        "shifted exp. 1 + Exp(1)": stats.expon(loc=1.0, scale=1.0),
        "Pareto(1, 1.5)": stats.pareto(1.5, scale=1.0),
    }
    trials = 2000 if quick else 20000
    fig = _figure(fig, (11, 4.6))
    rec = _Recorder(fig)
    axes = fig.subplots(1, 2)
    data: dict[str, list] = {"model": [], "scheme": [], "s": [], "time": [], "mc": [], "ci": []}
    for ax, (mname, d) in zip(axes, models.items(), strict=True):
        for scheme, m in (("cyclic-mds", 1), ("frc", 1), ("ye-abbe", 2), ("ignore-s", 1)):
            ss = [s for s in range(n - 1) if not (scheme == "frc" and n % (s + 1))]
            if scheme == "ye-abbe":
                ss = [s for s in ss if s + m <= n]
            t = [scheme_expected_time(scheme, d, n, s, m, tau=tau) for s in ss]
            lab = f"{scheme}" + (f" (m={m})" if m > 1 else "")
            (line,) = ax.plot(ss, t, label=lab)
            i = int(np.argmin(t))
            ax.plot([ss[i]], [t[i]], "*", ms=12, color=line.get_color(), label=line.get_label())
            mc_s = ss[:: max(1, len(ss) // 4)]
            for s in mc_s:
                if not math.isfinite(scheme_time_moments(scheme, d, n, s, m, tau=tau).variance):
                    continue  # infinite variance: a CLT interval would mean nothing
                e = scheme_time_mc(scheme, d, n, s, m, trials, tau=tau, rng=s + 7)
                ax.errorbar(
                    [s],
                    [e.value],
                    yerr=[e.half_width],
                    fmt="o",
                    mfc="none",
                    color=line.get_color(),
                    capsize=2,
                    label=line.get_label(),
                )
                data["model"].append(mname)
                data["scheme"].append(scheme)
                data["s"].append(s)
                data["time"].append(scheme_expected_time(scheme, d, n, s, m, tau=tau))
                data["mc"].append(e.value)
                data["ci"].append(e.half_width)
            for s, v in zip(ss, t, strict=True):
                data["model"].append(mname)
                data["scheme"].append(scheme)
                data["s"].append(s)
                data["time"].append(v)
                data["mc"].append(math.nan)
                data["ci"].append(math.nan)
        ax.set_title(f"{mname}, n = {n}, tau = {tau}")
        ax.set_xlabel("straggler tolerance s")
        ax.set_ylabel("expected iteration time (units of the delay's scale)")
        _legend(ax, fontsize=8)
    fig.suptitle(
        "load scales compute time, 1/m scales communication; stars: optimum;\n"
        "circles: Monte Carlo 99% CI (omitted where the variance is infinite); "
        "ignore-s gives only an approximate gradient",
        fontsize=9,
    )
    return rec.done(dict(zip(models, axes)), data)


@figure(
    "runtime_xu_K",
    description="E[X_(K:N)] for X ~ 0.05 + Exp(mean 0.02), N = 10: exact, eq. (21) log "
    "approximation, Monte Carlo",
    paper="xu2021",
)
def _xu(outdir: Path, quick: bool) -> list[Path]:
    fig, ax = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
    drawn = plot_xu_order_statistics(ax=ax, quick=quick)
    return save_figure(fig, outdir, "runtime_xu_K", drawn.data)


def plot_xu_order_statistics(*, ax: Any = None, quick: bool = True) -> Drawing:
    """Xu et al. 2021: E[X_(K:N)] for X ~ 0.05 + Exp(mean 0.02), N = 10, exact, the
    eq. (21) log approximation and Monte Carlo (99% CI). Computes and draws on ``ax``;
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
    >>> from gctheory.plots import plot_xu_order_statistics
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_xu_order_statistics()
    >>> list(drawing.axes)
    ['time']
    >>> plt.close("all")
    """
    N, delta, mu = 10, 0.05, 0.02
    d = stats.expon(loc=delta, scale=mu)
    ks = list(range(1, N + 1))
    exact = [expected_order_statistic(d, k, N) for k in ks]
    approx = [exponential_log_approx(delta, mu, k, N) for k in ks]
    trials = 4000 if quick else 40000
    mc = [order_statistic_mc(d, k, N, trials, rng=k) for k in ks]
    ax = _axes(ax, (6.4, 4.2))
    rec = _Recorder(ax.figure)
    ax.plot(ks, exact, "-", label="exact delta + mu (H_N - H_{N-K})")
    ax.plot(ks, approx, "--", label="eqs. (21)-(22) log approximation")
    ax.errorbar(
        ks,
        [e.value for e in mc],
        yerr=[e.half_width for e in mc],
        fmt="o",
        mfc="none",
        color="k",
        capsize=2,
        label="Monte Carlo 99% CI",
    )
    saving = 1 - exact[6] / exact[-1]
    ax.annotate(
        f"K = 7: {saving:.1%} faster than K = N",
        (7, exact[6]),
        (2, 0.095),
        arrowprops={"arrowstyle": "->"},
    )
    ax.set_xlabel("K (fastest workers waited for)")
    ax.set_ylabel("expected iteration time (s)")
    ax.set_title("Xu et al. 2021: X ~ 0.05 + Exp(mean 0.02), N = 10")
    _legend(ax, fontsize=8)
    data = {
        "K": ks,
        "exact": exact,
        "log_approx": approx,
        "mc": [e.value for e in mc],
        "mc_half_width": [e.half_width for e in mc],
    }
    return rec.done({"time": ax}, data)


@figure(
    "runtime_zhang",
    description="Time per iteration vs redundancy r for GC, G-GD, G-LAG (rho = 0.5) and the "
    "r-independent GD/LAG, exponential and Pareto, n = 24; Monte Carlo points (99% CI) where "
    "the variance is finite",
    paper="zhang2020",
)
def _zhang(outdir: Path, quick: bool) -> list[Path]:
    fig = plt.figure(figsize=(11, 5.0), layout="constrained")
    drawn = plot_zhang_runtime(fig=fig, quick=quick)
    return save_figure(fig, outdir, "runtime_zhang", drawn.data)


def plot_zhang_runtime(*, fig: Any = None, quick: bool = True) -> Drawing:
    """Zhang et al. 2020: time per iteration versus redundancy r for GC, G-GD and G-LAG
    (rho = 0.5) and the r-independent GD and LAG, n = 24, exponential and Pareto
    computing times, optima starred, Monte Carlo points (99% CI) where the variance is
    finite. Computes and draws two panels on ``fig``; ``.data`` holds the curves.

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
    >>> from gctheory.plots import plot_zhang_runtime
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_zhang_runtime()
    >>> list(drawing.axes)
    ['exponential', 'pareto']
    >>> plt.close("all")
    """
    n, rho = 24, 0.5
    rs = [r for r in range(1, n + 1) if n % r == 0]
    trials = 1000 if quick else 10000
    fig = _figure(fig, (11, 5.0))
    rec = _Recorder(fig)
    axes = fig.subplots(1, 2)
    data: dict[str, list] = {"model": [], "scheme": [], "r": [], "time": [], "mc": [], "ci": []}

    def add(model, scheme, r, time, mc=math.nan, ci=math.nan):
        for key, v in zip(data, (model, scheme, r, time, mc, ci), strict=True):
            data[key].append(v)

    for j, (ax, (model, shape)) in enumerate(
        zip(axes, (("exponential", 2.0), ("pareto", 2.0)), strict=True)
    ):
        run = (add, model, shape, n, rho, trials)
        skipped = _zhang_grouped(ax, run, j, rs)
        skipped += _zhang_flat(ax, run, j)
        _zhang_finish(ax, model, shape, trials, skipped)
    fig.suptitle(
        "Zhang et al. 2020 model: mean time proportional to r; LAG/G-LAG select "
        "half the workers/groups\ncircles: Monte Carlo 99% CI (GD/LAG at r = 1), omitted where "
        "the variance is infinite",
        fontsize=9,
    )
    return rec.done({"exponential": axes[0], "pareto": axes[1]}, data)


def _zhang_mc_point(ax, run, scheme, r, time, color, seed, label):
    """One Monte Carlo point (99% CI) of ``scheme`` at ``r``; False if its variance is infinite."""
    add, model, shape, n, rho, trials = run
    # zhang_metrics' time as "fastest `wait` of `size` in each of `groups` groups":
    # GD/LAG: all of n (or round(rho n)); GC: n - r + 1 of n; G-GD: the fastest of each of
    # the n/r groups of r; G-LAG: the same over round(rho n/r) groups
    G = n // r
    groups, size, wait = {
        "GD": (1, n, n),
        "LAG": (1, max(1, round(rho * n)), max(1, round(rho * n))),
        "GC": (1, n, n - r + 1),
        "G-GD": (G, r, 1),
        "G-LAG": (max(1, round(rho * G)), r, 1),
    }[scheme]
    dist = zhang_worker_dist(model, r, shape=shape)
    if not math.isfinite(grouped_completion_moments(dist, groups, size, wait).variance):
        return False  # infinite variance: the MC mean is unreliable, no error bar drawn
    e = grouped_completion_mc(dist, groups, size, wait, trials, rng=seed)
    ax.errorbar(
        [r], [e.value], yerr=[e.half_width], fmt="o", mfc="none", ms=6, color=color, capsize=3,
        label=label,
    )  # fmt: skip
    add(model, scheme, r, time, e.value, e.half_width)
    return True


def _zhang_grouped(ax, run, j, rs):
    """GC, G-GD and G-LAG versus r, optima starred; returns the points without MC."""
    add, model, shape, n, rho, _ = run
    skipped = []
    for si, scheme in enumerate(("GC", "G-GD", "G-LAG")):
        t = [zhang_metrics(scheme, n, r, model=model, shape=shape, rho=rho).time for r in rs]
        (line,) = ax.plot(rs, t, "o-", ms=3, label=scheme)
        i = int(np.argmin(t))
        ax.plot([rs[i]], [t[i]], "*", ms=12, color=line.get_color(), label=line.get_label())
        for r, v in zip(rs, t, strict=True):
            add(model, scheme, r, v)
            seed = 100 * j + 10 * si + r
            if not _zhang_mc_point(ax, run, scheme, r, v, line.get_color(), seed, scheme):
                skipped.append(f"{scheme} r={r}")
    return skipped


def _zhang_flat(ax, run, j):
    """GD and LAG (independent of r) as horizontal lines; returns the schemes without MC."""
    add, model, shape, n, rho, _ = run
    skipped = []
    for scheme, ls in (("GD", ":"), ("LAG", "-.")):
        v = zhang_metrics(scheme, n, model=model, shape=shape, rho=rho).time
        ax.axhline(v, ls=ls, color="gray", label=f"{scheme} (r = 1)")
        add(model, scheme, 1, v)
        seed = 100 * j + 90 + len(scheme)
        if not _zhang_mc_point(ax, run, scheme, 1, v, "gray", seed, f"{scheme} (r = 1)"):
            skipped.append(scheme)
    return skipped


def _zhang_finish(ax, model, shape, trials, skipped):
    """The MC legend entry, the note on omitted points, axes labels, title and legend."""
    ax.errorbar(
        [],
        [],
        yerr=[],
        fmt="o",
        mfc="none",
        color="k",
        capsize=3,
        label=f"Monte Carlo 99% CI ({trials} trials)",
    )
    if skipped:
        ax.text(
            0.03,
            0.5,
            "no MC point (infinite variance,\nMC mean unreliable):\n" + ", ".join(skipped),
            transform=ax.transAxes,
            fontsize=7,
            color="0.3",
        )
    ax.set_xscale("log", base=2)
    ax.set_xlabel("storage redundancy r (group size for G-GD / G-LAG)")
    ax.set_ylabel("expected time per iteration (model time units)")
    ax.set_title(f"{model}" + (f", shape {shape}" if model == "pareto" else "") + ", n = 24")
    _legend(ax, fontsize=8)
