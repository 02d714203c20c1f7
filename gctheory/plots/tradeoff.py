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

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

import matplotlib

from gctheory.plots._base import _WITH_SVG, figure, plt
from gctheory.plots.tradeoff_panels import (
    _BOUNDS,
    _FADE,
    SCHEME_STYLE,
    _label,
    _panel_comm,
    _panel_load,
    _panel_stability,
    _panel_time,
    _style,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure, FigureBase

#: the figure (or subfigure) a caller hands to :func:`plot_tradeoff`, returned as is
_Fig = TypeVar("_Fig", bound="FigureBase")

__all__ = ["PAPER_ATLASES", "SCHEME_STYLE", "plot_tradeoff", "save_atlas"]


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
