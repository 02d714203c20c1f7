"""Figures of measured delays: fitted laws against the data, and the best s on the data.

They read the measured AWS Lambda delays that ship with the package
(:func:`gctheory.data.lambda_delays_path`: Krishnan, Ebrahimi & Khisti, ICLR
2023; one campaign: ``cnn-desktop-long``, Canada, 30 rounds of 256 workers at
five loads), or the trace CSV named by ``$GCTHEORY_DELAYS_DATA`` when it is
set. Where that file is missing the makers say so on stderr and write nothing.
Every number drawn comes from :mod:`gctheory.delays`.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

from gctheory.plots._base import Drawing, _figure, _Recorder, figure, plt, save_figure

ENV = "GCTHEORY_DELAYS_DATA"
CAMPAIGN = {"profile": "cnn-desktop-long", "region": "Canada"}
SCHEMES = ("cyclic-mds", "frc")
N = 256


def _plain_log_x(ax: Any) -> None:
    """Log x axis labelled 0.5, 1, 2, 5, 10, ... in plain numbers."""
    ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def data_path() -> Path:
    """Where the figure makers read the measured delays: ``$GCTHEORY_DELAYS_DATA`` when
    set, else the packaged measurements (:func:`gctheory.data.lambda_delays_path`)."""
    env = os.environ.get(ENV)
    if env:
        return Path(env)
    from gctheory.data import lambda_delays_path

    return lambda_delays_path()


def _missing(name: str) -> bool:
    p = data_path()
    if p.is_file():
        return False
    print(
        f"figure {name}: skipped: the measured delays are not at {p} (unset {ENV} to use "
        "the packaged ones, or set it to a trace CSV)",
        file=sys.stderr,
        flush=True,
    )
    return True


#: laws the quick figures leave to the full ones: the mixture's maximum-likelihood search
#: (tail threshold screened and narrowed) and its quantiles were two thirds of the quick
#: delays figures' CPU; nothing judges a quick figure
QUICK_SKIPS = ("mixture",)


def _laws(quick: bool) -> tuple[str, ...]:
    from gctheory.delays import LAWS

    return tuple(law for law in LAWS if not (quick and law in QUICK_SKIPS))


@functools.lru_cache(maxsize=4)
def _fitted(path: str, mtime: float, laws: tuple[str, ...]) -> tuple[Any, dict]:
    from gctheory.delays import fit_laws, read_trace

    tr = read_trace(path).select(**CAMPAIGN)
    fits = {}
    for ld in tr.loads:
        for f in fit_laws(tr.times(ld), laws):
            fits[(f.law, float(ld))] = f
    return tr, fits


def _load(quick: bool = False) -> tuple[Any, dict]:
    p = data_path()
    return _fitted(str(p), p.stat().st_mtime, _laws(quick))


_COLORS = {
    "empirical": "black",
    "rounds": "tab:gray",
    "shifted_exp": "tab:blue",
    "pareto": "tab:orange",
    "weibull": "tab:green",
    "gamma": "tab:red",
    "lognormal": "tab:purple",
    "mixture": "tab:brown",
}


@figure(
    "delays-cdf-fits",
    description="Measured AWS Lambda worker times (cnn-desktop-long, 256 workers x 30 rounds) "
    "per load: empirical survival function with every maximum-likelihood law, log scales",
)
def _cdf_fits(outdir: Path, quick: bool) -> list[Path]:
    name = "delays-cdf-fits"
    if _missing(name):
        return []
    tr, fits = _load(quick)
    fig = plt.figure(figsize=(3.2 * len(tr.loads) + 1.6, 3.9), layout="constrained")
    drawn = plot_delay_fits(tr, fits, fig=fig)
    return save_figure(fig, outdir, name, drawn.data)


def plot_delay_fits(trace: Any = None, fits: dict | None = None, *, fig: Any = None) -> Drawing:
    """Measured worker times per load: the empirical survival function (every point of
    the upper tail, a thinned body) with every converged maximum-likelihood law, log
    scales, one panel per load.

    ``trace`` is a :class:`gctheory.delays.Trace` of one campaign and ``fits`` maps
    (law, load) to :func:`gctheory.delays.fit_laws` results; by default both come from
    the packaged AWS Lambda measurements (:func:`data_path`). Draws on ``fig``; ``.data``
    holds the curves.

    Parameters
    ----------
    trace : Trace, optional
        Measured times (default: the bundled AWS Lambda profiles).
    fits : dict, optional
        ``{(law, load): LawFit}`` (fitted when not given).
    fig : matplotlib.figure.Figure, optional
        The figure to draw on.

    Returns
    -------
    Drawing
        The figure, its axes by panel, the artists drawn and the data behind them.

    Examples
    --------
    >>> from gctheory.plots import plot_delay_fits
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from gctheory.delays import fit_laws, make_trace
    >>> rng = np.random.default_rng(0)
    >>> t = 0.1 + rng.exponential(0.05, 120)  # 20 rounds x 6 workers at load 1
    >>> trace = make_trace(np.repeat(np.arange(20), 6), np.tile(np.arange(6), 20), np.ones(120), t)
    >>> fits = {(f.law, 1.0): f for f in fit_laws(t, ["shifted_exp", "lognormal"])}
    >>> drawing = plot_delay_fits(trace, fits)  # give both, or neither (the bundled data)
    >>> list(drawing.axes), sorted(drawing.data)
    (['load 1'], ['curve', 'load', 'sf', 't'])
    >>> plt.close("all")
    """
    from gctheory.delays import LAWS

    if trace is None or fits is None:
        trace, fits = _load()
    tr = trace
    loads = list(tr.loads)
    fig = _figure(fig, (3.2 * len(loads) + 1.6, 3.9))
    rec = _Recorder(fig)
    axes = fig.subplots(1, len(loads), sharey=True, squeeze=False)[0]
    data: dict[str, list] = {"load": [], "curve": [], "t": [], "sf": []}
    for ax, ld in zip(axes, loads):
        x = np.sort(tr.times(ld))
        m = x.size
        # every point of the upper tail, a thinned body
        keep = np.unique(
            np.concatenate([np.linspace(0, m - 1, 300).astype(int), np.arange(m - 200, m)])
        )
        sf = (m - 1 - keep) / m
        ax.step(
            x[keep], np.maximum(sf, 0.5 / m), where="post", color="black", lw=1.5, label="measured"
        )
        data["load"] += [float(ld)] * keep.size
        data["curve"] += ["empirical"] * keep.size
        data["t"] += x[keep].tolist()
        data["sf"] += sf.tolist()
        grid = np.geomspace(x[0] * 0.98, x[-1] * 1.5, 200)
        for law in LAWS:
            f = fits.get((law, float(ld)))
            if f is None or not f.converged:  # not fitted (a quick figure) or refused
                continue
            s = f.dist.sf(grid)
            ax.plot(grid, s, color=_COLORS[law], lw=1, label=law)
            data["load"] += [float(ld)] * grid.size
            data["curve"] += [law] * grid.size
            data["t"] += grid.tolist()
            data["sf"] += [float(v) for v in s]
        ax.set_xscale("log")
        ax.set_yscale("log")
        _plain_log_x(ax)
        ax.set_ylim(0.2 / m, 1.5)
        ax.set_title(f"load {ld:g} ({m} times)")
        ax.set_xlabel("time (s)")
    axes[0].set_ylabel("P(T > t)")
    axes[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1))
    fig.suptitle("AWS Lambda, 256 workers: measured times and maximum-likelihood laws", fontsize=10)
    return rec.done({f"load {ld:g}": ax for ld, ax in zip(loads, axes)}, data)


@figure(
    "delays-scheme-time-vs-s",
    description="Expected iteration time vs s at n=256 for cyclic-MDS and FRC on the measured AWS "
    "Lambda times: empirical and per-round with bootstrap bands, each fitted law beside them, "
    "optima marked",
)
def _time_vs_s(outdir: Path, quick: bool) -> list[Path]:
    name = "delays-scheme-time-vs-s"
    if _missing(name):
        return []
    tr, fits = _load(quick)
    fig = plt.figure(figsize=(5.2 * len(SCHEMES), 4.6), layout="constrained")
    drawn = plot_delay_scheme_times(tr, fits, fig=fig, quick=quick, laws=_laws(quick))
    return save_figure(fig, outdir, name, drawn.data)


def plot_delay_scheme_times(
    trace: Any = None,
    fits: dict | None = None,
    *,
    fig: Any = None,
    quick: bool = True,
    laws: Sequence[str] | None = None,
) -> Drawing:
    """Expected iteration time versus s at n = 256 for cyclic-MDS and FRC on measured
    worker times: empirical and per-round estimates with bootstrap bands (50 resamples
    when ``quick``, else 200), each fitted law beside them (``laws``, by default every
    one of :data:`gctheory.delays.LAWS`; those missing from ``fits`` are fitted), optima
    starred.

    ``trace`` and ``fits`` as for :func:`plot_delay_fits` (by default the packaged AWS
    Lambda measurements). Draws one panel per scheme on ``fig``; ``.data`` holds the
    curves.

    Parameters
    ----------
    trace : Trace, optional
        Measured times (default: the bundled AWS Lambda profiles).
    fits : dict, optional
        ``{(law, load): LawFit}``.
    fig : matplotlib.figure.Figure, optional
        The figure to draw on.
    quick : bool
        Fewer bootstrap samples.
    laws : sequence of str, optional
        Laws fitted.

    Returns
    -------
    Drawing
        The figure, its axes by panel, the artists drawn and the data behind them.

    Examples
    --------
    >>> from gctheory.plots import plot_delay_scheme_times
    >>> import matplotlib.pyplot as plt
    >>> drawing = plot_delay_scheme_times(trace, laws=["shifted_exp"])  # doctest: +SKIP
    >>> list(drawing.axes)  # doctest: +SKIP
    >>> plt.close("all")
    """
    from gctheory.delays import LAWS, scheme_times

    if trace is None or fits is None:
        trace, fits = _load()
    laws = LAWS if laws is None else laws
    tr = trace
    fig = _figure(fig, (5.2 * len(SCHEMES), 4.6))
    rec = _Recorder(fig)
    axes = fig.subplots(1, len(SCHEMES), squeeze=False)[0]
    data: dict[str, list] = {
        "scheme": [],
        "estimator": [],
        "s": [],
        "time": [],
        "low": [],
        "high": [],
    }
    for ax, scheme in zip(axes, SCHEMES):
        res = scheme_times(
            tr, scheme, N, laws=laws, fits=fits, bootstrap=50 if quick else 200, rng=1
        )
        for est, t in res.times.items():
            color = _COLORS[est]
            style = "-" if est in ("empirical", "rounds") else "--"
            lw = 1.8 if est in ("empirical", "rounds") else 1.0
            marker = "o" if scheme == "frc" else None
            ax.plot(res.s, t, style, color=color, lw=lw, marker=marker, ms=3, label=est)
            if est in res.low:
                ax.fill_between(res.s, res.low[est], res.high[est], color=color, alpha=0.2, lw=0,
                                label=est)  # fmt: skip
            s_opt, t_opt = res.optimum(est)
            ax.plot([s_opt], [t_opt], "*", color=color, ms=11, mec="white", mew=0.6, label=est)
            data["scheme"] += [scheme] * len(res.s)
            data["estimator"] += [est] * len(res.s)
            data["s"] += res.s.tolist()
            data["time"] += [float(v) for v in t]
            lo = res.low.get(est, np.full(len(res.s), np.nan))
            hi = res.high.get(est, np.full(len(res.s), np.nan))
            data["low"] += [float(v) for v in lo]
            data["high"] += [float(v) for v in hi]
        ax.set_xscale("symlog", linthresh=1)
        ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.set_xlabel("stragglers tolerated s (load (s+1)/n)")
        ax.set_title(f"{scheme}, n={N}")
    axes[0].set_ylabel("expected iteration time (s)")
    handles, labels = axes[0].get_legend_handles_labels()
    keep: dict[str, Any] = {}
    for h, lab in zip(handles, labels):
        keep.setdefault(lab, h)
    axes[0].legend(keep.values(), keep.keys(), fontsize=7)
    fig.suptitle(
        "Which s on the measured cluster (cnn-desktop-long): bands = 95% bootstrap over rounds, "
        "stars = optima",
        fontsize=10,
    )
    return rec.done(dict(zip(SCHEMES, axes)), data)
