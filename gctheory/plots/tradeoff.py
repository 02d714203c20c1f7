"""The tradeoff atlas: four panels, one colour per scheme, drawn from a TradeoffTable.

(a) computation load versus stragglers: the worst-case bound ``s + 1``, Wang et
al. 2019 Theorems 3 and 5 (asymptotic, as stated and in the proof's form) and
their exact finite-n versions, the load each code reaches, and below it the
failure probability of the approximate codes; (b) communication versus load at
the operating point ``s``, with Ye-Abbe's bound ``l/k >= (s + m)/n``; (c)
guaranteed (Theorem 2 of Kadhe et al. 2019) and certified empirical ``s_kappa``
per generator family; (d) expected iteration time versus ``s`` with Monte Carlo
points and each scheme's optimum. Schemes dominated on the table's axes are
drawn faded and listed. Everything is read from the table: nothing is computed here.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

import matplotlib
import numpy as np

from gctheory.plots._base import _WITH_SVG, figure, plt

if TYPE_CHECKING:
    from matplotlib.figure import Figure, FigureBase

#: the figure (or subfigure) a caller hands to :func:`plot_tradeoff`, returned as is
_Fig = TypeVar("_Fig", bound="FigureBase")

__all__ = ["PAPER_ATLASES", "SCHEME_STYLE", "plot_tradeoff", "save_atlas"]

#: colour and marker of each scheme, shared by every panel
SCHEME_STYLE: dict[str, tuple[str, str]] = {
    "uncoded": ("#000000", "_"),
    "ignore-s": ("#9a9a9a", "x"),
    "cyclic-mds": ("#1f77b4", "o"),
    "frc": ("#17becf", "s"),
    "reed-solomon": ("#9467bd", "^"),
    "ye-abbe": ("#d62728", "D"),
    "commfr-gc": ("#2ca02c", "P"),
    "d-frc": ("#ff7f0e", "v"),
    "batch-raptor": ("#8c564b", "X"),
    "bernoulli": ("#e377c2", "*"),
    "expander": ("#bcbd22", "h"),
    "bibd": ("#393b79", "p"),
}
_FAMILY_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "h", "p", "<", ">", "d", "8")
_FADE = 0.22
_FLOOR = 1e-6  # failure probability 0 is drawn on this floor of the log axis

_BOUNDS = {  # name -> (label, colour, linestyle, column)
    "exact": ("worst case s + 1 (every straggler set)", "k", "-", "load"),
    "thm3": ("Wang Thm 3, eq. (13) (asymptotic)", "0.45", "--", "load_value"),
    "thm3-finite": ("Thm 3, finite n, P(fail) ≤ ε", "0.45", "-", "load"),
    "thm5": ("Wang Thm 5 as stated (asymptotic)", "#a0522d", "--", "load_value"),
    "thm5-eq52": ("Thm 5, proof eq. (52) (asymptotic)", "#a0522d", "-.", "load_value"),
    "thm5-finite": ("Thm 5, finite n, P(err > error·k) ≤ ε", "#a0522d", "-", "load"),
}


def _style(name: str) -> tuple[str, str]:
    return SCHEME_STYLE.get(name, ("#333333", "o"))


def _label(name: str, faded: set[str]) -> str:
    """A scheme's entry in the figure's legend; every artist of the scheme carries it."""
    return name + (" (dominated)" if name in faded else "")


def _rows(table: Any, scheme: str, **where: Any) -> list[dict[str, Any]]:
    rows = [r for r in table.rows if r["scheme"] == scheme]
    for k, v in where.items():
        rows = [r for r in rows if r[k] == v]
    return sorted(rows, key=lambda r: (r["s"], r["m"]))


def _main_rows(table: Any, scheme: str) -> list[dict[str, Any]]:
    """The sweep rows of a scheme (its Gaussian rows for the generator-based schemes)."""
    m = table.parameters.get("m")
    rows = [r for r in _rows(table, scheme) if r["generator"] in (None, "gaussian")]
    if scheme in ("ye-abbe", "commfr-gc"):
        rows = [r for r in rows if r["m"] == m]
    return rows


def _finite(v: Any) -> bool:
    return v is not None and isinstance(v, (int, float)) and math.isfinite(v)


def _panel_load(ax: Any, axf: Any, table: Any, schemes: Sequence[str], faded: set[str]) -> None:
    n = table.parameters["n"]
    for name, (label, colour, ls, col) in _BOUNDS.items():
        rows = _rows(table, f"bound:{name}")
        if not rows:
            continue
        s = np.array([r["s"] for r in rows])
        y = np.array([r[col] for r in rows], dtype=float)
        ok = np.array([bool(r["covered"]) for r in rows])
        lw = 2.2 if name == "exact" else 1.1
        ax.plot(s, np.where(ok, y, np.nan), color=colour, ls=ls, lw=lw, label=label, zorder=2)
        if (~ok).any():
            ax.plot(
                s,
                np.where(~ok, y, np.nan),
                color=colour,
                ls=":",
                lw=lw,
                zorder=2,
                label="_caption:dotted: outside the theorem's regime",
            )
    for name in schemes:
        rows = [r for r in _main_rows(table, name) if _finite(r["load"])]
        if not rows:
            continue
        colour, marker = _style(name)
        a = _FADE if name in faded else 1.0
        ax.plot(
            [r["s"] for r in rows],
            [r["load"] for r in rows],
            color=colour,
            marker=marker,
            ms=4,
            lw=1.2,
            alpha=a,
            zorder=3,
            gid=f"a:{name}",
            label=_label(name, faded),
        )
        frows = [r for r in rows if r["kind"] == "approximate" and r["failure"] is not None]
        if frows:
            x = np.array([r["s"] for r in frows])
            y = np.array([max(r["failure"], _FLOOR) for r in frows])
            lo = np.array([max(r["failure_low"], _FLOOR) for r in frows])
            hi = np.array([max(r["failure_high"], _FLOOR) for r in frows])
            eb = axf.errorbar(
                x,
                y,
                yerr=[y - lo, hi - y],
                color=colour,
                marker=marker,
                ms=4,
                lw=1,
                capsize=2,
                alpha=a,
                label=_label(name, faded),
            )
            eb.lines[0].set_gid(f"a-failure:{name}")
    ax.set_yscale("log")
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(0.8, n * 1.3)
    ax.set_ylabel("partitions per worker (load d, k = n)")
    ax.set_title(
        "(a) computation load versus stragglers (dotted: outside the theorem's regime; "
        "bounds: legend below)",
        fontsize=10,
    )
    ax.tick_params(labelbottom=False)
    eps = table.parameters.get("eps")
    if eps:
        axf.axhline(eps, color="0.3", lw=0.8, ls="--", label="_caption:ε = ")
        axf.text(n - 1, eps, f" ε = {eps:g}", va="bottom", ha="right", fontsize=7)
    axf.set_yscale("log")
    axf.set_ylim(_FLOOR / 2, 1.5)
    axf.set_xlim(-0.5, n - 0.5)
    axf.set_xlabel(
        f"stragglers s   (below: approximate codes' failure; P = 0 drawn at {_FLOOR:g}; "
        "bars: 99% CI)"
    )
    axf.set_ylabel("P(err > error·k)", fontsize=8)


def _panel_comm(ax: Any, table: Any, schemes: Sequence[str], faded: set[str]) -> None:
    s0 = table.parameters["s"]
    b = _rows(table, "bound:ye-abbe", s=s0)
    if b:
        ax.plot(
            [r["load_value"] for r in b],
            [r["communication"] for r in b],
            "k-",
            lw=2,
            label=f"Ye-Abbe bound l/k ≥ (s + m)/n, s = {s0}",
            zorder=2,
        )
    for name in schemes:
        rows = [r for r in _rows(table, name, s=s0) if r["generator"] in (None, "gaussian")]
        if not rows:
            continue
        colour, marker = _style(name)
        a = _FADE if name in faded else 1.0
        ax.plot(
            [r["load"] for r in rows],
            [r["communication"] for r in rows],
            color=colour,
            marker=marker,
            ms=7 if len(rows) == 1 else 5,
            lw=1,
            alpha=a,
            zorder=3,
            ls="-" if len(rows) > 1 else "none",
            gid=f"b:{name}",
            label=_label(name, faded),
        )
        for r in rows:
            if r["scheme"] in ("ye-abbe", "commfr-gc") and r["m"] in (1, 2, 4, 8, 16):
                ax.annotate(
                    f"m={r['m']}",
                    (r["load"], r["communication"]),
                    fontsize=6,
                    xytext=(3, 3),
                    textcoords="offset points",
                    color=colour,
                    alpha=a,
                )
    ax.set_xscale("log")
    ax.set_yscale("log", base=2)
    ax.set_xlabel("partitions per worker (load)")
    ax.set_ylabel("message length / gradient (1/m)")
    ax.set_title(f"(b) communication versus computation at s = {s0}", fontsize=10)
    if b:
        ax.legend(handles=ax.lines[:1], fontsize=7, loc="lower left")


def _panel_stability(ax: Any, table: Any, faded: set[str]) -> None:
    p = table.parameters
    n = p["n"]
    fams = [f for f in str(p.get("generators", "")).split(",") if f]
    fam_marker = {f: _FAMILY_MARKERS[i % len(_FAMILY_MARKERS)] for i, f in enumerate(fams)}
    handles = ax.plot([0, n - 1], [0, n - 1], color="0.7", ls=":", lw=1, label="s_κ = s")
    width = max(0.5, n / 50)  # horizontal spread of the families at one s
    for si, name in enumerate(("ye-abbe", "commfr-gc")):
        rows = _main_rows(table, name)
        if not rows:
            continue
        colour, _ = _style(name)
        a = _FADE if name in faded else 1.0
        g = [r for r in rows if r["s_kappa_guaranteed"] is not None]
        if g:
            handles += ax.plot(
                [r["s"] for r in g],
                [r["s_kappa_guaranteed"] for r in g],
                color=colour,
                ls="--",
                lw=1.3,
                alpha=a,
                label=f"{name}: Theorem 2 (Gaussian)",
                gid=f"c:{name}:theorem2",
            )
        for fi, fam in enumerate(fams):
            off = (fi - (len(fams) - 1) / 2) * width / max(1, len(fams)) + (si - 0.5) * width
            _stability_family(ax, table, name, fam, fam_marker[fam], off, colour, a)
    for fam in fams:
        handles += ax.plot([], [], ls="none", marker=fam_marker[fam], color="0.3", label=fam)
    ax.axhline(-1, color="0.8", lw=0.6, label="_caption:−1: even cond(G) > κ")
    ax.text(n - 1, -1, "−1: even cond(G) > κ", fontsize=7, va="bottom", ha="right", color="0.4")
    ax.set_xlim(-1, n)
    ax.set_xlabel("stragglers s the code is built for")
    ax.set_ylabel("s_κ: stragglers decodable with cond ≤ κ")
    ax.set_title(
        f"(c) stability at κ = {p['kappa']:g}, m = {p['m']}\n(filled: certified "
        "empirical low end, hollow: high end; colour: scheme, marker: generator)",
        fontsize=10,
    )
    ax.legend(handles=handles, fontsize=6.5, loc="upper left", ncol=2)


def _stability_family(
    ax: Any, table: Any, name: str, fam: str, marker: str, off: float, colour: str, a: float
) -> None:
    """Panel (c): one generator family's certified empirical s_kappa interval in ``name``."""
    fr = [
        r
        for r in _rows(table, name, generator=fam, m=table.parameters["m"])
        if r["s_kappa_low"] is not None
    ]
    if not fr:
        return
    x = np.array([r["s"] for r in fr]) + off
    lo = np.array([r["s_kappa_low"] for r in fr], dtype=float)
    hi = np.array([r["s_kappa_high"] for r in fr], dtype=float)
    ax.vlines(
        x,
        lo,
        hi,
        color=colour,
        lw=1,
        alpha=0.6 * a,
        label="_caption:filled: certified empirical low end, hollow: high end",
    )
    ax.plot(
        x,
        lo,
        ls="none",
        color=colour,
        marker=marker,
        ms=4.5,
        alpha=a,
        gid=f"c:{name}:{fam}",
        label=fam,
    )
    ax.plot(
        x[hi > lo],
        hi[hi > lo],
        ls="none",
        marker=marker,
        ms=4.5,
        mfc="none",
        color=colour,
        alpha=a,
        label=fam,
    )


def _panel_time(ax: Any, table: Any, schemes: Sequence[str], faded: set[str]) -> None:
    p = table.parameters
    n = p["n"]
    for name in schemes:
        rows = [r for r in _main_rows(table, name) if _finite(r["time"])]
        if not rows:
            continue
        colour, marker = _style(name)
        a = _FADE if name in faded else 1.0
        if name == "uncoded":
            ax.axhline(
                rows[0]["time"],
                color=colour,
                lw=1,
                ls="--",
                alpha=a,
                gid="d:uncoded",
                label=_label(name, faded),
            )
            continue
        _time_series(ax, name, rows, colour, marker, a, _label(name, faded))
    _time_labels(ax, p, n)


def _time_series(
    ax: Any, name: str, rows: list[dict[str, Any]], colour: str, marker: str, a: float, label: str
) -> None:
    """Panel (d): one scheme's exact times, its trace band or Monte Carlo points, its optima."""
    ax.plot(
        [r["s"] for r in rows],
        [r["time"] for r in rows],
        color=colour,
        lw=1.3,
        alpha=a,
        gid=f"d:{name}",
        label=label,
    )
    band = [r for r in rows if r["time_mc"] is None and _finite(r["time_low"])]
    if band:  # a measured trace: bootstrap interval over its rounds
        ax.fill_between(
            [r["s"] for r in band],
            [r["time_low"] for r in band],
            [r["time_high"] for r in band],
            color=colour,
            alpha=0.18 * a,
            lw=0,
            label=label,
        )
    mc = [r for r in rows if _finite(r["time_mc"])]
    if mc:
        y = np.array([r["time_mc"] for r in mc])
        ax.errorbar(
            [r["s"] for r in mc],
            y,
            yerr=[
                y - np.array([r["time_low"] for r in mc]),
                np.array([r["time_high"] for r in mc]) - y,
            ],
            ls="none",
            marker=marker,
            ms=4,
            mfc="none",
            color=colour,
            capsize=2,
            alpha=a,
            label=label,
        )
    for r in rows:
        if r["time_optimal"]:
            ax.plot(
                [r["s"]],
                [r["time"]],
                marker="*",
                ms=13,
                color=colour,
                mec="k",
                mew=0.6,
                alpha=a,
                zorder=5,
                label=label,
            )


def _time_labels(ax: Any, p: dict[str, Any], n: int) -> None:
    """Panel (d): log axis, labels and the title naming the delay model or the trace."""
    ax.set_yscale("log")
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_xlabel("stragglers s")
    trace = str(p["delay"]).startswith("trace:")
    ax.set_ylabel(
        "expected iteration time " + ("(s)" if trace else "(the delay model's time unit)")
    )
    tau = p.get("tau") or 0
    ax.set_title(
        (
            "(d) iteration time on the measured trace\n(bands: 99% bootstrap over rounds; "
            "stars: optima)"
            if trace
            else f"(d) iteration time, delay {p['delay']}"
            + (f", τ = {tau:g}" if tau else "")
            + "\n(lines exact; points Monte Carlo, 99% CI; stars: optima)"
        ),
        fontsize=10,
    )


@overload
def plot_tradeoff(
    table: Any,
    *,
    fig: None = None,
    title: str | None = None,
    figsize: tuple[float, float] = (15.5, 12.5),
) -> Figure: ...


@overload
def plot_tradeoff(
    table: Any,
    *,
    fig: _Fig,
    title: str | None = None,
    figsize: tuple[float, float] = (15.5, 12.5),
) -> _Fig: ...


def plot_tradeoff(
    table: Any,
    *,
    fig: Any = None,
    title: str | None = None,
    figsize: tuple[float, float] = (15.5, 12.5),
) -> Any:
    """The four-panel atlas of a :class:`gctheory.tradeoff.TradeoffTable`.

    Panels share each scheme's colour and marker (:data:`SCHEME_STYLE`); dominated
    schemes (every row dominated on the table's axes) are faded and listed at the
    bottom with one dominating row each. A panel the table has no data for (stability
    without ``kappa``, times without a delay model) is left out, its neighbour takes
    the row, and the footer says why.

    Parameters
    ----------
    table : TradeoffTable
        What :func:`gctheory.tradeoff` returns.
    fig : matplotlib.figure.Figure or SubFigure, optional
        Draw on this (empty) figure; by default a new one of ``figsize`` inches.
    title : str, optional
        The figure's title (default: the table's parameters).
    figsize : (float, float)
        Size of the new figure when ``fig`` is not given.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on (``fig`` when given, typed as given): its axes are the
        panels, in the order (a) load, (a) failure, (b), then (c) and (d) where drawn.

    Examples
    --------
    >>> from gctheory.plots import plot_tradeoff
    >>> import matplotlib.pyplot as plt
    >>> from gctheory.tradeoff import tradeoff
    >>> table = tradeoff(8, schemes=["cyclic-mds", "frc"], quick=True)
    >>> drawing = plot_tradeoff(table)
    >>> len(drawing.axes) >= 2
    True
    >>> plt.close("all")
    """
    figsize = _check_atlas_args(table, title, figsize)
    p = table.parameters
    schemes = table.schemes()
    faded = set(table.dominated_schemes())
    if fig is None:
        fig = plt.figure(figsize=figsize)
    bottom = [k for k in ("kappa", "delay") if p.get(k) is not None]
    gs = fig.add_gridspec(
        4 if bottom else 2,
        2,
        height_ratios=[3.0, 1.05, 0.75, 4.0] if bottom else [3.0, 1.05],
        hspace=0.08,
        wspace=0.17,
        left=0.055,
        right=0.985,
        top=0.935,
        bottom=0.2,
    )
    ax_load = fig.add_subplot(gs[0, 0])
    ax_fail = fig.add_subplot(gs[1, 0], sharex=ax_load)
    ax_comm = fig.add_subplot(gs[0:2, 1])
    _panel_load(ax_load, ax_fail, table, schemes, faded)
    _panel_comm(ax_comm, table, schemes, faded)
    if p.get("kappa") is not None:
        _panel_stability(fig.add_subplot(gs[3, 0] if len(bottom) == 2 else gs[3, :]), table, faded)
    if p.get("delay") is not None:
        ax_time = fig.add_subplot(gs[3, 1] if len(bottom) == 2 else gs[3, :])
        _panel_time(ax_time, table, schemes, faded)
    _atlas_legends(fig, ax_load, schemes, faded)
    head = title or (
        f"Tradeoff atlas: n = {p['n']}, m = {p['m']}, "
        + (f"kappa = {p['kappa']:g}, " if p.get("kappa") else "")
        + f"eps = {p['eps']:g}, error = {p['error']:g}"
        + (f", delay {p['delay']}" if p.get("delay") else "")
    )
    fig.suptitle(head, fontsize=13)
    fig.text(0.01, 0.005, _footer(table, faded), fontsize=7.5, va="bottom", family="monospace")
    return fig


def _check_atlas_args(table: Any, title: Any, figsize: Any) -> tuple[float, float]:
    """Refuse a non-table, a non-str title or a bad figsize; return the figsize as floats."""
    from gctheory.tradeoff import TradeoffTable

    if not isinstance(table, TradeoffTable):
        raise ValueError(
            f"table must be a TradeoffTable (what gctheory.tradeoff(...) returns), got "
            f"{type(table).__name__}"
        )
    if title is not None and not isinstance(title, str):
        raise ValueError(f"title must be a str or None, got {title!r}")
    try:
        w, h = figsize
        figsize = (float(w), float(h))
    except (TypeError, ValueError):
        raise ValueError(f"figsize must be (width, height) in inches, got {figsize!r}") from None
    if not all(0 < v < 1000 for v in figsize):
        raise ValueError(f"figsize must be (width, height) in (0, 1000) inches, got {figsize!r}")
    return figsize


def _atlas_legends(fig: Any, ax_load: Any, schemes: Sequence[str], faded: set[str]) -> None:
    """The figure's two legends: one entry per scheme, then panel (a)'s bounds below."""
    handles = []
    for name in schemes:
        colour, marker = _style(name)
        (h,) = ax_load.plot(
            [],
            [],
            color=colour,
            marker=marker,
            lw=1.5,
            alpha=_FADE if name in faded else 1.0,
            label=_label(name, faded),
        )
        handles.append(h)
    fig.legend(
        handles=handles,
        loc="lower center",
        ncol=min(6, len(handles)),
        fontsize=9,
        bbox_to_anchor=(0.5, 0.045),
        frameon=False,
    )
    bounds = [ln for ln in ax_load.lines if ln.get_label() in {v[0] for v in _BOUNDS.values()}]
    if bounds:  # (a)'s bounds: below the panels, not over the curves
        fig.legend(
            handles=bounds,
            loc="lower center",
            ncol=3,
            fontsize=8,
            bbox_to_anchor=(0.5, 0.115),
            title="(a) bounds on the load (dotted: outside the theorem's regime)",
            title_fontsize=8,
            frameon=False,
        )


def _footer(table: Any, faded: set[str]) -> str:
    axes = table.parameters.get("axes", "")
    lines = []
    if faded:
        parts = []
        for name in sorted(faded):
            by = next(
                (
                    r["dominated_by"]
                    for r in table.rows
                    if r["scheme"] == name and r["dominated_by"]
                ),
                "",
            )
            parts.append(f"{name} (e.g. by {by})")
        lines.append(f"Dominated on {axes}: " + "; ".join(parts))
    else:
        lines.append(f"No scheme is dominated on {axes}.")
    p = table.parameters
    if p.get("kappa") is None:
        lines.append("Panel (c), stability, is left out: no kappa given (pass kappa / --kappa).")
    if p.get("delay") is None:
        lines.append("Panel (d), iteration time, is left out: no delay model given (--delay).")
    left = [x for x in table.notes if "left out:" in x and " at " not in x.split(":")[1]]
    if left:
        lines.append("Left out: " + "; ".join(x.split(": left out: ")[0] for x in left))
    lines.append(
        f"{len(table.notes)} notes on schemes that cannot exist at some (n, s) and on theorems "
        "that do not cover a parameter are in the table's notes / the CSV's note column."
    )
    return "\n".join(textwrap.fill(x, 200) for x in lines)


def save_atlas(table: Any, out: str | Path, *, dpi: int = 130) -> list[Path]:
    """Draw ``table`` and write ``out.png``, ``out.svg`` and ``out.csv`` (every row, full
    precision: :meth:`gctheory.tradeoff.TradeoffTable.to_csv`); returns the three paths.

    The figure's layout already fills its canvas, so it is saved without the tight
    bounding box of :func:`gctheory.plots.save_figure` (which draws everything twice);
    the SVG gets the same fixed hash salt and no date, so it is reproducible. ``dpi``
    of the PNG (130 as every figure of gctheory; the command's ``--quick`` uses 100).
    Inside :func:`gctheory.plots._base.raster_only` (the command's ``--quick``, as for every
    quick figure) no SVG is written: two paths are returned.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig = plot_tradeoff(table)
    paths = [out.with_name(out.name + ".png")]
    fig.savefig(paths[0], dpi=dpi)
    if _WITH_SVG.get():
        paths.append(out.with_name(out.name + ".svg"))
        with matplotlib.rc_context({"svg.hashsalt": out.name}):
            fig.savefig(paths[1], metadata={"Date": None})
    plt.close(fig)
    return [*paths, table.to_csv(out.with_name(out.name + ".csv"))]


#: the atlas at the papers' parameters: name -> (paper, description, tradeoff arguments)
PAPER_ATLASES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "tradeoff_atlas_n60": (
        "kadhe2019",
        "Tradeoff atlas at n = 60 with Table I's kappa = 1000 and eps = 1e-3 (s = 8, m = 2) "
        "and Xu et al.'s shifted exponential delays: load, communication, stability and "
        "iteration time of every scheme",
        dict(n=60, s=8, m=2, kappa=1000, eps=1e-3, delay="shifted_exp(0.05, 0.02)"),
    ),
    "tradeoff_atlas_n80": (
        "halbawi2017",
        "Tradeoff atlas at n = 80 with Halbawi et al.'s Pareto delays (t0 = 0.001, xi = 1.1; "
        "s = 12, i.e. f = 68), kappa = 1000, eps = 1e-3",
        dict(n=80, s=12, m=2, kappa=1000, eps=1e-3, delay="pareto(scale=0.001, shape=1.1)"),
    ),
}


def _register_atlas(name: str, paper: str, description: str, kw: dict[str, Any]) -> None:
    @figure(name, description=description, paper=paper)
    def make(outdir: Path, quick: bool) -> list[Path]:
        from gctheory.tradeoff import tradeoff

        return save_atlas(tradeoff(quick=quick, rng=2024, **kw), Path(outdir) / name)


for _name, (_paper, _description, _kw) in PAPER_ATLASES.items():
    _register_atlas(_name, _paper, _description, _kw)
