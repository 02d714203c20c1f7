"""Figures of the training simulations: loss versus simulated time, with bands.

Every number drawn comes from :mod:`gctheory.training.studies` (the same
seeded runs the paper checks judge); nothing is computed here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from gctheory.plots._base import Drawing, _axes, _figure, _Recorder, figure, plt, save_figure

#: the time axis of a simulation whose delays are not stated in seconds
MODEL_TIME = "simulated wall-clock time (model time units)"


def _long(curves: dict, keys: tuple[str, ...], extra: dict | None = None) -> dict[str, list]:
    data: dict[str, list] = {"scheme": []}
    for k in (*(extra or {}), *keys):
        data[k] = []
    for lab, c in curves.items():
        m = len(c[keys[0]])
        data["scheme"] += [lab] * m
        for k, v in (extra or {}).items():
            data[k] += [v] * m
        for k in keys:
            data[k] += [float(x) for x in c[k]]
    return data


def _band(ax, c, label):
    (line,) = ax.plot(c["time"], c["mean"], label=label)
    ax.fill_between(
        c["time"], c["low"], c["high"], color=line.get_color(), alpha=0.25, lw=0, label=label
    )


def plot_loss_curves(
    curves: Mapping[str, Mapping[str, Any]],
    *,
    ax: Any = None,
    logx: bool = False,
    logy: bool = False,
    xlabel: str = MODEL_TIME,
    legend: bool = True,
) -> Drawing:
    """Loss (or optimality gap) versus simulated time, one line per scheme with its band.

    ``curves`` maps a scheme's label to a mapping with ``time``, ``mean``, ``low`` and
    ``high`` (what :func:`gctheory.training.studies.loss_curves` returns). On a log time
    axis (``logx``) the first grid point, t = 0, is left out. Draws on ``ax``.

    Parameters
    ----------
    curves : mapping of str to mapping
        Per scheme: ``time``, ``mean``, ``low`` and ``high`` arrays.
    ax : matplotlib.axes.Axes, optional
        The axes to draw on.
    logx, logy : bool
        Log axes.
    xlabel : str
        The time axis label.
    legend : bool
        Draw a legend.

    Returns
    -------
    Drawing
        The figure, its axes by panel, the artists drawn and the data behind them.

    Examples
    --------
    >>> from gctheory.plots import plot_loss_curves
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> t = np.linspace(0, 10, 11)
    >>> curves = {"frc": dict(time=t, mean=np.exp(-t), low=0.9 * np.exp(-t), high=1.1 * np.exp(-t))}
    >>> drawing = plot_loss_curves(curves, logy=True)
    >>> list(drawing.axes)
    ['loss']
    >>> plt.close("all")
    """
    ax = _axes(ax, (7, 4.2))
    rec = _Recorder(ax.figure)
    for lab, cv in curves.items():
        # a log time axis cannot show t = 0: draw from the grid's second point
        _band(ax, {k: v[1:] for k, v in cv.items()} if logx else cv, lab)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.grid(alpha=0.3)
    if legend:
        ax.legend(fontsize=8)
    return rec.done({"loss": ax})


def plot_iteration_times(estimates: Mapping[str, Any], *, ax: Any = None) -> Drawing:
    """Mean time per iteration of each scheme as horizontal bars with 95% intervals.

    ``estimates`` maps a scheme's label to an estimate with ``value`` and
    ``half_width`` (:class:`gctheory.montecarlo.Estimate`). Draws on ``ax``.

    Parameters
    ----------
    estimates : mapping of str to Estimate
        Mean time per iteration of each scheme.
    ax : matplotlib.axes.Axes, optional
        The axes to draw on.

    Returns
    -------
    Drawing
        The figure, its axes by panel, the artists drawn and the data behind them.

    Examples
    --------
    >>> from gctheory.plots import plot_iteration_times
    >>> import matplotlib.pyplot as plt
    >>> from gctheory.montecarlo import Estimate
    >>> est = {"frc": Estimate(1.2, 1.1, 1.3, 100, 0.95),
    ...        "uncoded": Estimate(2.0, 1.8, 2.2, 100, 0.95)}
    >>> list(plot_iteration_times(est).axes)
    ['times']
    >>> plt.close("all")
    """
    ax = _axes(ax, (7, 3.8))
    rec = _Recorder(ax.figure)
    labs = list(estimates)
    est = [estimates[k] for k in labs]
    y = np.arange(len(labs))
    ax.barh(y, [e.value for e in est], xerr=[e.half_width for e in est], capsize=3,
            label="mean, 95% CI")  # fmt: skip
    ax.set_yticks(y, labs)
    ax.set_xlabel(f"mean {MODEL_TIME.replace('wall-clock time', 'time per iteration')}")
    ax.legend(fontsize=8, loc="lower right")
    return rec.done({"times": ax})


def plot_completion_times(
    times: Mapping[str, Mapping[float, Any]], *, ax: Any = None, n: int | None = None
) -> Drawing:
    """Completion time versus the fraction of stragglers, one line per scheme with 95%
    intervals. ``times`` maps a scheme's label to {fraction: estimate with ``value``,
    ``low``, ``high``}; ``n`` (workers) only labels the axis. Draws on ``ax``.

    Parameters
    ----------
    times : mapping of str to mapping of float to Estimate
        Per scheme: straggler fraction -> completion time.
    ax : matplotlib.axes.Axes, optional
        The axes to draw on.
    n : int, optional
        Workers (for the axis label).

    Returns
    -------
    Drawing
        The figure, its axes by panel, the artists drawn and the data behind them.

    Examples
    --------
    >>> from gctheory.plots import plot_completion_times
    >>> import matplotlib.pyplot as plt
    >>> from gctheory.montecarlo import Estimate
    >>> times = {"frc": {0.1: Estimate(5.0, 4.5, 5.5, 20, 0.95),
    ...                  0.2: Estimate(6.0, 5.2, 6.8, 20, 0.95)}}
    >>> list(plot_completion_times(times, n=20).axes)
    ['completion']
    >>> plt.close("all")
    """
    ax = _axes(ax, (6, 4))
    rec = _Recorder(ax.figure)
    for lab, per in times.items():
        fr = np.array(list(per))
        est = list(per.values())
        m = np.array([e.value for e in est])
        err = np.array([[e.value - e.low for e in est], [e.high - e.value for e in est]])
        ax.errorbar(100 * fr, m, yerr=err, marker="o", capsize=3, label=lab)
    of = f" of n = {n} workers" if n else ""
    ax.set_xlabel(f"stragglers (%{of}, slowed 5x)")
    ax.set_ylabel("simulated completion time (model time units)")
    ax.legend(fontsize=8)
    return rec.done({"completion": ax})


def plot_gap_and_communication(
    curves: Mapping[str, Mapping[str, Mapping[str, Any]]], *, fig: Any = None
) -> Drawing:
    """Optimality gap (left, with bands) and cumulative communication (right) versus
    simulated time, one row per delay model. ``curves`` maps a delay model's name to
    :func:`gctheory.training.studies.loss_curves` output with a ``comm`` column. Draws
    on ``fig``.

    Parameters
    ----------
    curves : mapping of str to mapping
        Per delay model: per scheme, ``time``, ``mean``, ``low``, ``high`` and ``comm``.
    fig : matplotlib.figure.Figure, optional
        The figure to draw on.

    Returns
    -------
    Drawing
        The figure, its axes by panel, the artists drawn and the data behind them.

    Examples
    --------
    >>> from gctheory.plots import plot_gap_and_communication
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> t = np.linspace(0, 10, 11)
    >>> cv = dict(time=t, mean=np.exp(-t), low=0.9 * np.exp(-t), high=1.1 * np.exp(-t), comm=t)
    >>> drawing = plot_gap_and_communication({"exp(1)": {"frc": cv}})
    >>> len(drawing.axes)
    2
    >>> plt.close("all")
    """
    fig = _figure(fig, (11, 3.9 * max(1, len(curves))))
    rec = _Recorder(fig)
    axes = fig.subplots(len(curves), 2, squeeze=False)
    for row, (dname, cvs) in enumerate(curves.items()):
        for lab, cv in cvs.items():
            _band(axes[row, 0], cv, lab)
            axes[row, 1].plot(cv["time"], cv["comm"], label=lab)
        axes[row, 0].set_yscale("log")
        axes[row, 0].set_ylabel(f"optimality gap F - F* ({dname})")
        axes[row, 1].set_ylabel(f"communication load ({dname})")
    for ax in axes[-1]:
        ax.set_xlabel(MODEL_TIME)
    axes[0, 0].legend(fontsize=8)
    names = {f"{d}_{k}": axes[i, j] for i, d in enumerate(curves)
             for j, k in enumerate(("gap", "comm"))}  # fmt: skip
    return rec.done(names)


@figure(
    "training-xu2021-loss-vs-time",
    description="Training loss vs simulated time: Full-SGD, K-SGD, LGC-SGD (N=10, K=7, "
    "X ~ 0.05 + Exp(0.02), non-IID(3), h=10), mean and 95% band over seeds",
    paper="xu2021",
)
def _xu(outdir: Path, quick: bool) -> list[Path]:
    from gctheory.training.studies import XU2021, loss_curves

    cfg = XU2021(quick)
    c, K = cfg["common"], cfg["K"]
    schemes = {
        "Full-SGD": dict(scheme="gd", **c),
        "K-SGD": dict(scheme="ignore", K=K, **c),
        "LGC-SGD": dict(scheme="lgc", K=K, **c),
    }
    curves = loss_curves(schemes, cfg["trials"], rng=cfg["rng"], own_grid=True)
    fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    plot_loss_curves(curves, ax=ax, xlabel="simulated wall-clock time (s)")
    ax.set_ylabel("training loss (softmax, digits)")
    ax.set_title("Xu et al. 2021, Fig. 4 analogue: N=10, K=7, non-IID(3), h=10", fontsize=10)
    return save_figure(
        fig, outdir, "training-xu2021-loss-vs-time", _long(curves, ("time", "mean", "low", "high"))
    )


@figure(
    "training-zhang2020-gap-and-comm-vs-time",
    description="Optimality gap and cumulative communication vs simulated time for GD, GC, LAG, "
    "G-GD, G-LAG, LAGC under exponential and Pareto computing times (n=12, r=3)",
    paper="zhang2020",
    slow=True,
)
def _zhang(outdir: Path, quick: bool) -> list[Path]:
    from gctheory.training import reference_loss
    from gctheory.training.studies import ZHANG2020, loss_curves

    cfg = ZHANG2020(quick)
    Fs = reference_loss("softmax")
    data: dict[str, list] = {}
    by_delay = {}
    for dname, delay in cfg["delays"].items():
        schemes = {
            lab: dict(delay=delay, target_loss=Fs + cfg["eps"], **cfg["common"], **kw)
            for lab, kw in cfg["schemes"].items()
        }
        curves = loss_curves(schemes, cfg["trials"], rng=cfg["rng"], gap=Fs, own_grid=True)
        by_delay[dname] = curves
        part = _long(curves, ("time", "mean", "low", "high", "comm"), {"delay": dname})
        for k, v in part.items():
            data.setdefault(k, []).extend(v)
    fig = plt.figure(figsize=(11, 7.8), layout="constrained")
    plot_gap_and_communication(by_delay, fig=fig)
    fig.suptitle(f"Zhang & Simeone 2020 schemes, runs stop at gap {cfg['eps']} (mean, 95% band)")
    return save_figure(fig, outdir, "training-zhang2020-gap-and-comm-vs-time", data)


@figure(
    "training-wang2019-time-vs-straggler-fraction",
    description="Completion time (to loss F* + 0.02) vs fraction of stragglers, n = 30: cyclic "
    "MDS, FRC, BRC, forget-s, BGC (mean, 95% CI)",
    paper="wang2019",
    slow=True,
)
def _wang(outdir: Path, quick: bool) -> list[Path]:
    from gctheory.training.studies import study_wang2019

    r = study_wang2019(quick)
    data: dict[str, list] = {"scheme": [], "fraction": [], "mean": [], "low": [], "high": []}
    for lab, per in r["times"].items():
        est = list(per.values())
        data["scheme"] += [lab] * len(est)
        data["fraction"] += [float(f) for f in per]
        data["mean"] += [float(e.value) for e in est]
        data["low"] += [float(e.low) for e in est]
        data["high"] += [float(e.high) for e in est]
    fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    plot_completion_times(r["times"], ax=ax, n=30)
    ax.set_title("Wang et al. 2019, Fig. 5 analogue")
    return save_figure(fig, outdir, "training-wang2019-time-vs-straggler-fraction", data)


@figure(
    "training-kadhe2019-iteration-time",
    description="Mean simulated time per iteration (n = 60, s = 3, m = 2) of naive, "
    "ignore-stragglers, cyclic MDS, Ye-Abbe and CommFR-GC, with 95% CIs",
    paper="kadhe2019",
)
def _kadhe(outdir: Path, quick: bool) -> list[Path]:
    from gctheory.training.studies import study_kadhe2019

    r = study_kadhe2019(quick)
    labs = list(r["mean_wait"])
    est = [r["mean_wait"][k] for k in labs]
    fig, ax = plt.subplots(figsize=(7, 3.8), layout="constrained")
    plot_iteration_times(r["mean_wait"], ax=ax)
    ax.set_title("Kadhe et al. 2019, Sec. V analogue (model, not EC2)")
    data = {
        "scheme": labs,
        "mean": [e.value for e in est],
        "low": [e.low for e in est],
        "high": [e.high for e in est],
    }
    return save_figure(fig, outdir, "training-kadhe2019-iteration-time", data)


@figure(
    "training-kadhe2019-loss-vs-time",
    description="Training loss vs simulated time (n = 60, s = 3, m = 2): naive, ignore "
    "stragglers, Tandon cyclic MDS, Ye-Abbe (Gaussian V; the Vandermonde V does not decode at "
    "n = 60), CommFR-GC; mean and 95% band over seeds (the runs of the iteration-time figure)",
    paper="kadhe2019",
)
def _kadhe_loss(outdir: Path, quick: bool) -> list[Path]:
    from gctheory.training.studies import KADHE2019, kadhe2019_loss_curves

    cfg = KADHE2019(quick)
    curves = kadhe2019_loss_curves(quick)
    fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
    plot_loss_curves(curves, ax=ax, legend=False)
    ax.set_ylabel("training loss (logistic, digits >= 5)")
    ax.set_title(
        f"Kadhe et al. 2019, Sec. V analogue: n = 60, s = 3, m = 2, {cfg['trials']} seeds\n"
        "(Ye-Abbe uses a Gaussian V: the Vandermonde V does not decode at n = 60)",
        fontsize=10,
    )
    ax.legend(fontsize=8)
    return save_figure(
        fig,
        outdir,
        "training-kadhe2019-loss-vs-time",
        _long(curves, ("time", "mean", "low", "high")),
    )


@figure(
    "training-wang2019-loss-vs-time",
    description="Optimality gap vs simulated time (n = 30, 10% and 20% stragglers slowed 5x, "
    "logistic regression): forget-s, cyclic MDS, BGC, FRC, BRC; runs stop at gap 0.02; "
    "mean and 95% band over seeds (quick: 10% only)",
    paper="wang2019",
)
def _wang_loss(outdir: Path, quick: bool) -> list[Path]:
    from gctheory.training.studies import wang2019_loss_curves

    r = wang2019_loss_curves(quick)
    fracs = list(r["curves"])
    fig, axes = plt.subplots(
        1, len(fracs), figsize=(max(7.0, 5.5 * len(fracs)), 4.2), sharey=True, layout="constrained",
        squeeze=False,
    )  # fmt: skip
    data: dict[str, list] = {}
    for ax, f in zip(axes[0], fracs, strict=True):
        curves = r["curves"][f]
        plot_loss_curves(curves, ax=ax, logy=True, legend=False)
        ax.axhline(r["gap_target"], color="grey", ls=":", lw=1, label="_caption:(dotted)")
        ax.set_title(f"{round(100 * f)}% stragglers (s = {round(f * 30)} of n = 30)", fontsize=10)
        part = _long(curves, ("time", "mean", "low", "high"), {"fraction": f})
        for k, v in part.items():
            data.setdefault(k, []).extend(v)
    axes[0, 0].set_ylabel("optimality gap F - F* (logistic, digits >= 5)")
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(
        f"Wang et al. 2019, Fig. 4 analogue: runs stop at gap {r['gap_target']} "
        f"(dotted),\nmean and 95% band over {r['config']['trials']} seeds",
        fontsize=10,
    )
    return save_figure(fig, outdir, "training-wang2019-loss-vs-time", data)


@figure(
    "training-halbawi2017-loss-vs-time",
    description="Training loss vs simulated time, Pareto(0.001, 1.1) delays, n = 40 (at n = 80 "
    "the RS decoder fails its residual check): uncoded wait-all, fastest 34, fastest 17, Tandon "
    "MDS f = 17, Reed-Solomon f = 34; mean and 95% band over seeds (time = load x draw, so a "
    "code's clock is ~its load times the uncoded clock at the same f)",
    paper="halbawi2017",
)
def _halbawi_loss(outdir: Path, quick: bool) -> list[Path]:
    from gctheory.training.studies import HALBAWI2017, halbawi2017_loss_curves

    cfg = HALBAWI2017(quick)
    curves = halbawi2017_loss_curves(quick)
    fig, ax = plt.subplots(figsize=(7, 4.8), layout="constrained")
    plot_loss_curves(curves, ax=ax, logx=True, xlabel="simulated wall-clock time (s)", legend=False)
    ax.set_ylabel("training loss (softmax, digits)")
    ax.set_title(
        f"Halbawi et al. 2017, Sec. 6 analogue: n = 40 (paper: 80), Pareto(0.001, 1.1), "
        f"{cfg['trials']} seeds\n"
        "n = 40 because at n = 80 the RS decoder fails its 1e-6 residual check\n"
        "in double precision; time = load x Pareto draw: RS's clock is 7x,\n"
        "MDS's ~24x that of uncoded at the same f (same seeds)",
        fontsize=9,
    )
    ax.legend(fontsize=8)
    return save_figure(
        fig,
        outdir,
        "training-halbawi2017-loss-vs-time",
        _long(curves, ("time", "mean", "low", "high")),
    )
