"""The figure registry and its helpers, below every topic module of :mod:`gctheory.plots`.

:func:`figure` registers a maker, :func:`all_figures` imports the topic modules and lists
the makers, :func:`save_figure` writes PNG, SVG and CSV; :class:`Drawing` is what a
public plot function returns. The package ``__init__`` re-exports these names.
"""

from __future__ import annotations

import contextlib
import contextvars
import csv
import importlib
import pkgutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np


@dataclass(frozen=True)
class Drawing:
    """What a plot function drew: its ``figure``, the ``axes`` it drew on (by panel
    name, in drawing order), the ``artists`` it added to them (lines, collections,
    patches, texts, legends; figure-level texts and legends included) and, for a
    function that computed its numbers, the ``data`` drawn (column -> values, the
    figure's CSV).

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure drawn on.
    axes : dict of str to matplotlib.axes.Axes
        The axes, by panel name.
    artists : list
        Artists the function added.
    data : dict, optional
        The numbers drawn (column -> values).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from gctheory.plots import Drawing, plot_halbawi_f
    >>> fig, ax = plt.subplots()
    >>> drawing = plot_halbawi_f(ax=ax)
    >>> drawing.ax is ax, len(drawing.artists) > 0, sorted(drawing.data)[:2]
    (True, True, ['T', 'ci_half_width'])
    >>> plt.close("all")
    """

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
    """A named figure: ``make(outdir, quick) -> list of written paths``.

    Parameters
    ----------
    name : str
        The figure's name.
    paper : str or None
        The paper it reproduces.
    description : str
        One line.
    make : callable
        ``make(outdir, quick) -> list of paths``.
    slow : bool
        Skipped in quick mode.

    Examples
    --------
    >>> from gctheory.plots import FigureMaker, all_figures
    >>> maker = all_figures()[0]
    >>> isinstance(maker, FigureMaker), callable(maker.make)
    (True, True)
    """

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

    Parameters
    ----------
    name : str
        The figure's name (unique).
    description : str
        One line.
    paper : str, optional
        The paper it reproduces.
    slow : bool
        Skip in quick mode.

    Returns
    -------
    callable
        A decorator registering ``make(outdir, quick) -> list of paths``.

    Raises
    ------
    ValueError
        A different function registered under the same name.

    Examples
    --------
    >>> from gctheory.plots import all_figures, figure
    >>> register = figure("my-figure", description="one line for the figure list")
    >>> callable(register)  # nothing is registered until it decorates a maker
    True
    >>> @register  # doctest: +SKIP
    ... def make(outdir, quick):
    ...     return []  # the paths written
    """

    def register(func: Callable[[Path, bool], list[Path]]) -> Callable[[Path, bool], list[Path]]:
        if name in _FIGURES and _FIGURES[name].make.__qualname__ != func.__qualname__:
            raise ValueError(f"figure {name!r} is registered twice")
        _FIGURES[name] = FigureMaker(name, paper, description, func, slow)
        return func

    return register


def all_figures() -> list[FigureMaker]:
    """Import every topic module of ``gctheory.plots`` and return the makers, by name.

    Returns
    -------
    list of FigureMaker
        Every registered figure, by name.

    Examples
    --------
    >>> from gctheory.plots import all_figures
    >>> makers = all_figures()
    >>> len(makers) > 10, makers == sorted(makers, key=lambda m: m.name)
    (True, True)
    """
    # the topic modules beside this one, found on disk (importing the package would
    # import this module's importer)
    for mod in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if not mod.name.startswith("_"):
            importlib.import_module(f"gctheory.plots.{mod.name}")
    return [_FIGURES[k] for k in sorted(_FIGURES)]


# fixed metadata: no date, no library version, so a second run (or another machine with
# the same libraries' rendering) writes the same bytes
_SVG_METADATA = {"Date": None, "Creator": "gctheory"}
_PNG_METADATA = {"Software": "gctheory"}


# whether save_figure writes the SVG too: False only inside raster_only()
_WITH_SVG: contextvars.ContextVar[bool] = contextvars.ContextVar("gctheory_svg", default=True)


@contextlib.contextmanager
def raster_only() -> Iterator[None]:
    """Within this context :func:`save_figure` writes the PNG and the CSV, not the SVG.

    ``gctheory reproduce --quick`` and ``gctheory figures --quick`` make their figures
    inside it: a quick figure is looked at, not published, and the SVG's second render
    (its layout and text paths) was a quarter of the CPU of every quick figure."""
    token = _WITH_SVG.set(False)
    try:
        yield
    finally:
        _WITH_SVG.reset(token)


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
    SVG and PNG carry no date and no library version; inside :func:`raster_only` no
    SVG is written. The figure is closed afterwards. Returns the written paths.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (closed afterwards).
    outdir : str or pathlib.Path
        The folder (created if missing).
    name : str
        File stem.
    data : mapping of str to sequence, optional
        Columns of equal length, written as ``name.csv``.
    digits : int or mapping of str to int
        Significant digits of the floats written.

    Returns
    -------
    list of pathlib.Path
        The written files.

    Examples
    --------
    >>> from gctheory.plots import save_figure
    >>> import matplotlib.pyplot as plt
    >>> import tempfile, pathlib
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1], [0, 1])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     paths = save_figure(fig, tmp, "line", {"x": [0, 1], "y": [0.0, 1.0]})
    ...     names = [p.name for p in paths]
    >>> names
    ['line.png', 'line.svg', 'line.csv']
    """
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = [outdir / f"{name}.png"]
    fig.savefig(paths[0], dpi=130, bbox_inches="tight", metadata=_PNG_METADATA)
    if _WITH_SVG.get():
        paths.append(outdir / f"{name}.svg")
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
