"""Figures: a registry of figure makers and one way to save them.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

__all__ = ["FigureMaker", "figure", "all_figures", "save_figure", "plt"]


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
