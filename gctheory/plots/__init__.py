"""Figures: public plot functions, a registry of figure makers and one way to save them.

The public plot functions (listed in ``__all__``) draw on the caller's matplotlib
axes or figure, in the style of ``sinter.plot_error_rate(ax=...)``: a single-panel
function takes ``ax=``, a multi-panel one ``fig=`` (without them, each makes its own
figure); each draws from computed data passed in, or computes the data from its
parameters when none is given, and returns a :class:`Drawing` (the figure, its axes
and the artists it added). None of them changes matplotlib's global state.

Each topic module in this package (``gctheory/plots/<topic>.py``) defines
figure makers with the :func:`figure` decorator; ``gctheory reproduce`` imports
them all and runs each. A maker draws from values computed by the modules of
``gctheory`` (plots compute nothing of their own) and saves with
:func:`save_figure`, which writes the PNG, the SVG and the CSV of the data
behind the figure, so a reader can re-plot or check every point.

Importing this package leaves matplotlib's backend and rcParams as they were;
the commands that write figures choose the Agg backend themselves
(:func:`gctheory.commands._common.use_file_backend`).
"""

from __future__ import annotations

import csv
import importlib
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

__all__ = [
    # the registry
    "Drawing",
    "FigureMaker",
    "all_figures",
    "figure",
    "save_figure",
    # the public plot functions, one per figure family
    "plot_approximate_codes",
    "plot_codes_stability",
    "plot_condition_tail",
    "plot_cond_vs_n",
    "plot_density_evolution",
    "plot_delay_fits",
    "plot_delay_scheme_times",
    "plot_halbawi_fig3",
    "plot_halbawi_f",
    "plot_iteration_times",
    "plot_ldpc_waterfall",
    "plot_load_bounds",
    "plot_loss_curves",
    "plot_raptor_condition54",
    "plot_runtime_schemes",
    "plot_skappa_empirical",
    "plot_skappa_vs_n",
    "plot_skappa_vs_s",
    "plot_stability_generators",
    "plot_tradeoff",
    "plot_xu_order_statistics",
    "plot_zhang_runtime",
    "plot_completion_times",
    "plot_gap_and_communication",
]


@dataclass(frozen=True)
class Drawing:
    """What a plot function drew: its ``figure``, the ``axes`` it drew on (by panel
    name, in drawing order), the ``artists`` it added to them (lines, collections,
    patches, texts, legends; figure-level texts and legends included) and, for a
    function that computed its numbers, the ``data`` drawn (column -> values, the
    figure's CSV)."""

    figure: Any
    axes: dict[str, Any]
    artists: list[Any] = field(default_factory=list)
    data: dict[str, Any] | None = None

    @property
    def ax(self) -> Any:
        """The first (for a single-panel function, the only) axes."""
        return next(iter(self.axes.values()))


def _artists_of(obj: Any) -> list[Any]:
    if isinstance(obj, matplotlib.axes.Axes):
        found = [*obj.lines, *obj.collections, *obj.patches, *obj.texts, *obj.images]
        leg = obj.get_legend()
        return found + ([leg] if leg is not None else [])
    return [*obj.texts, *obj.legends, *obj.lines, *obj.patches]  # a Figure's own


class _Recorder:
    """Record the artists added to a figure and its axes between construction and
    :meth:`done` (axes created in between count whole)."""

    def __init__(self, fig: Any) -> None:
        self.fig = fig
        self.before = {id(a) for obj in (fig, *fig.axes) for a in _artists_of(obj)}

    def done(self, axes: dict[str, Any], data: dict[str, Any] | None = None) -> Drawing:
        new = [
            a
            for obj in (*axes.values(), self.fig)
            for a in _artists_of(obj)
            if id(a) not in self.before
        ]
        return Drawing(self.fig, dict(axes), new, data)


def _axes(ax: Any, figsize: tuple[float, float]) -> Any:
    """The caller's axes, or one new figure's only axes (laid out by constrained layout)."""
    if ax is not None:
        return ax
    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _figure(fig: Any, figsize: tuple[float, float]) -> Any:
    """The caller's figure, or a new one (laid out by constrained layout)."""
    if fig is not None:
        return fig
    return plt.figure(figsize=figsize, layout="constrained")


def _legend(ax: Any, **kw: Any) -> Any:
    """``ax.legend`` with one entry per label (the first artist drawn with it)."""
    keep: dict[str, Any] = {}
    for h, lab in zip(*ax.get_legend_handles_labels()):
        keep.setdefault(lab, h)
    return ax.legend(list(keep.values()), list(keep), **kw)


@dataclass(frozen=True)
class FigureMaker:
    """A named figure: ``make(outdir, quick) -> list of written paths``."""

    name: str
    paper: str | None
    description: str
    make: Callable[[Path, bool], list[Path]]
    slow: bool = False


_FIGURES: dict[str, FigureMaker] = {}


def figure(
    name: str, *, description: str, paper: str | None = None, slow: bool = False
) -> Callable[[Callable[[Path, bool], list[Path]]], Callable[[Path, bool], list[Path]]]:
    """Register a figure maker ``make(outdir: Path, quick: bool) -> list[Path]``.

    ``quick=True`` (CI) should use smaller grids and fewer Monte Carlo trials;
    a maker with ``slow=True`` is skipped in quick mode.
    """

    def register(func: Callable[[Path, bool], list[Path]]) -> Callable[[Path, bool], list[Path]]:
        if name in _FIGURES and _FIGURES[name].make.__qualname__ != func.__qualname__:
            raise ValueError(f"figure {name!r} is registered twice")
        _FIGURES[name] = FigureMaker(name, paper, description, func, slow)
        return func

    return register


def all_figures() -> list[FigureMaker]:
    """Import every topic module of ``gctheory.plots`` and return the makers, by name."""
    import gctheory.plots as pkg

    for mod in pkgutil.iter_modules(pkg.__path__):
        if not mod.name.startswith("_"):
            importlib.import_module(f"gctheory.plots.{mod.name}")
    return [_FIGURES[k] for k in sorted(_FIGURES)]


# fixed metadata: no date, no library version, so a second run (or another machine with
# the same libraries' rendering) writes the same bytes
_SVG_METADATA = {"Date": None, "Creator": "gctheory"}
_PNG_METADATA = {"Software": "gctheory"}


def _format_value(v: Any, digits: int) -> Any:
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.{digits}g}"
    return v


def save_figure(
    fig: Any,
    outdir: Path | str,
    name: str,
    data: Mapping[str, Sequence[Any]] | None = None,
    *,
    digits: int | Mapping[str, int] = 10,
) -> list[Path]:
    """Save ``fig`` as ``name.png`` and ``name.svg`` and ``data`` as ``name.csv``.

    ``data`` maps column names to equal-length sequences (the numbers plotted).
    Floats are written with ``digits`` significant digits (one number for every
    column, or a mapping column -> digits, 10 for columns not named): give a column
    no more digits than its computation supports (a quadrature good to 1e-8: 8), so
    the file does not change with the last bits of a platform's floating point. The
    SVG and PNG carry no date and no library version. The figure is closed
    afterwards. Returns the written paths.
    """
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = [outdir / f"{name}.png", outdir / f"{name}.svg"]
    fig.savefig(paths[0], dpi=130, bbox_inches="tight", metadata=_PNG_METADATA)
    # a fixed hash salt makes the SVG's element ids, and so the file, reproducible
    with matplotlib.rc_context({"svg.hashsalt": name}):
        fig.savefig(paths[1], bbox_inches="tight", metadata=_SVG_METADATA)
    plt.close(fig)
    if data is not None:
        cols = list(data)
        lengths = {len(data[c]) for c in cols}
        if len(lengths) > 1:
            raise ValueError(f"data columns of figure {name!r} have different lengths {lengths}")
        per_col = (
            {c: digits.get(c, 10) for c in cols}
            if isinstance(digits, Mapping)
            else dict.fromkeys(cols, digits)
        )
        path = outdir / f"{name}.csv"
        with path.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(cols)
            for row in zip(*(data[c] for c in cols)):
                w.writerow([_format_value(v, per_col[c]) for c, v in zip(cols, row)])
        paths.append(path)
    return paths


# The public plot functions: explicit imports (for readers and type checkers) after the
# registry above, which the topic modules import. ``plt`` stays importable for the
# figure makers and the commands but is not part of the public API.
from gctheory.plots.approximate import plot_approximate_codes  # noqa: E402
from gctheory.plots.codes import plot_codes_stability  # noqa: E402
from gctheory.plots.conditioning import (  # noqa: E402
    plot_cond_vs_n,
    plot_condition_tail,
    plot_skappa_empirical,
    plot_skappa_vs_n,
    plot_skappa_vs_s,
)
from gctheory.plots.delays import plot_delay_fits, plot_delay_scheme_times  # noqa: E402
from gctheory.plots.generators import plot_stability_generators  # noqa: E402
from gctheory.plots.ldpc import (  # noqa: E402
    plot_density_evolution,
    plot_ldpc_waterfall,
    plot_raptor_condition54,
)
from gctheory.plots.load_bounds import plot_load_bounds  # noqa: E402
from gctheory.plots.runtime import (  # noqa: E402
    plot_halbawi_f,
    plot_halbawi_fig3,
    plot_runtime_schemes,
    plot_xu_order_statistics,
    plot_zhang_runtime,
)
from gctheory.plots.tradeoff import plot_tradeoff  # noqa: E402
from gctheory.plots.training import (  # noqa: E402
    plot_completion_times,
    plot_gap_and_communication,
    plot_iteration_times,
    plot_loss_curves,
)
