"""Figures: a registry of figure makers and one way to save them.

Each topic module in this package (``gctheory/plots/<topic>.py``) defines
figure makers with the :func:`figure` decorator; ``gctheory reproduce`` imports
them all and runs each. A maker draws from values computed by the modules of
``gctheory`` (plots compute nothing of their own) and saves with
:func:`save_figure`, which writes the PNG, the SVG and the CSV of the data
behind the figure, so a reader can re-plot or check every point.
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

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

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


def save_figure(
    fig: Any,
    outdir: Path | str,
    name: str,
    data: Mapping[str, Sequence[Any]] | None = None,
) -> list[Path]:
    """Save ``fig`` as ``name.png`` and ``name.svg`` and ``data`` as ``name.csv``.

    ``data`` maps column names to equal-length sequences (the numbers plotted).
    The figure is closed afterwards. Returns the written paths.
    """
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = [outdir / f"{name}.png", outdir / f"{name}.svg"]
    fig.savefig(paths[0], dpi=130, bbox_inches="tight")
    # a fixed hash salt makes the SVG's element ids, and so the file, reproducible
    with matplotlib.rc_context({"svg.hashsalt": name}):
        fig.savefig(paths[1], bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    if data is not None:
        cols = list(data)
        lengths = {len(data[c]) for c in cols}
        if len(lengths) > 1:
            raise ValueError(f"data columns of figure {name!r} have different lengths {lengths}")
        path = outdir / f"{name}.csv"
        with path.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(cols)
            for row in zip(*(data[c] for c in cols)):
                w.writerow([f"{v:.10g}" if isinstance(v, float) else v for v in row])
        paths.append(path)
    return paths
