"""Figure quality: what a reader of a gctheory figure can rely on (issue 29).

For every registered figure (quick mode), after ``fig.canvas.draw()``:

- no text outside the canvas: the tight bounding box of every visible text artist
  (titles, labels, tick labels, legends, annotations) lies inside the figure's bbox;
- every plotted series (a line, marker set, band or bar set with data) has a legend
  entry somewhere in the figure, or a caption entry: a label ``_caption:<words>`` (the
  leading underscore keeps it out of legends) whose words appear in a visible text of
  the figure (a title, a note on the axes, an axis label);
- a time axis says its unit: an axis label that names a time carries ``(s)``, ``(ms)``
  or the unit of a stated model (``(units of ...)``, ``(... time units)``).

Running every figure takes about a minute on one core: the full pass is marked
``slow``; a fast subset (the figures of issue 29 and the smallest of each module) runs
by default.
"""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import pytest
from matplotlib.collections import Collection
from matplotlib.container import Container
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from gctheory.delays._threads import blas_single_thread

_TIME = re.compile(r"\btime\b|\bdelay\b|wall-clock", re.IGNORECASE)
_UNIT = re.compile(
    r"\((s|ms|seconds|[^()]*\bunits?\b[^()]*|[^()]*time units[^()]*)\)|\[(s|ms)\]", re.IGNORECASE
)
_TOL = 1.0  # pixels: a text may touch the edge
_close = plt.close  # the real one: the makers' calls are intercepted to keep their figures


def _tick_labels(fig) -> set[int]:
    ids = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                ids |= {id(tick.label1), id(tick.label2)}
    return ids


def _visible_texts(fig) -> list[Text]:
    """Every visible, non-empty text but the tick labels (matplotlib keeps labels of ticks
    outside the view limits, undrawn; the drawn ones are checked through their axis)."""
    ticks = _tick_labels(fig)
    out = []
    for t in fig.findobj(Text):
        if id(t) in ticks:
            continue
        if not t.get_visible() or not t.get_text().strip():
            continue
        if t.axes is not None and not t.axes.get_visible():
            continue
        out.append(t)
    return out


def _legend_labels(fig) -> set[str]:
    labels: set[str] = set()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    for leg in legends:
        labels |= {t.get_text() for t in leg.get_texts()}
    return labels


def _series(ax) -> list[tuple[object, str]]:
    """(artist, label) of every drawn series of ``ax``; an artist in a container (error
    bars, bars) counts under the container's label."""
    owner: dict[int, str] = {}
    for c in ax.containers:
        label = c.get_label() or ""
        parts = _flatten(c) + _flatten(getattr(c, "errorbar", None) or [])  # bars' error bars
        for child in parts:
            owner[id(child)] = label
    out = []
    for a in [*ax.lines, *ax.collections, *ax.patches]:
        if not a.get_visible() or not _has_data(a):
            continue
        out.append((a, owner.get(id(a), a.get_label() or "")))
    return out


def _flatten(c) -> list[object]:
    out = []
    for x in c:
        if isinstance(x, (Container, tuple, list)):
            out += _flatten(x)
        elif x is not None:
            out.append(x)
    return out


def _has_data(a) -> bool:
    if isinstance(a, Line2D):
        x, _ = a.get_data()
        return len(x) > 0
    if isinstance(a, Collection):
        return len(a.get_paths()) > 0 or len(a.get_offsets()) > 0
    if isinstance(a, Rectangle):
        return a.get_width() != 0 and a.get_height() != 0
    return True


def figure_problems(fig) -> list[str]:
    """What a reader would stumble on in ``fig`` (empty: nothing)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    problems = []
    texts = _visible_texts(fig)
    for t in texts:
        bb = t.get_window_extent(renderer)
        if (
            bb.x0 < box.x0 - _TOL
            or bb.y0 < box.y0 - _TOL
            or bb.x1 > box.x1 + _TOL
            or bb.y1 > box.y1 + _TOL
        ):
            problems.append(f"text outside the canvas: {t.get_text()[:60]!r}")
    for i, ax in enumerate(fig.axes):
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            bb = axis.get_tightbbox(renderer) if ax.get_visible() else None
            if bb is not None and (
                bb.x0 < box.x0 - _TOL
                or bb.y0 < box.y0 - _TOL
                or bb.x1 > box.x1 + _TOL
                or bb.y1 > box.y1 + _TOL
            ):
                problems.append(f"axes {i}: {name} axis (ticks, label) outside the canvas")
    legend = _legend_labels(fig)
    words = " ".join(t.get_text() for t in texts)
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        if not ax.axison:  # a panel that only says it has nothing to show
            note = " ".join(t.get_text() for t in ax.texts)[:60]
            problems.append(f"axes {i}: an empty panel with its axis off ({note!r})")
            continue
        where = ax.get_title() or f"axes {i}"
        for a, label in _series(ax):
            if label and not label.startswith("_") and label in legend:
                continue
            if label.startswith("_caption:") and label[len("_caption:") :].strip() in words:
                continue
            what = type(a).__name__ + (f" {label!r}" if not label.startswith("_") else "")
            problems.append(f"{where[:50]}: a series with no legend or caption entry ({what})")
        for axis_label in (ax.get_xlabel(), ax.get_ylabel()):
            if _TIME.search(axis_label) and not _UNIT.search(axis_label):
                problems.append(f"{where[:50]}: time axis without a unit: {axis_label!r}")
    return problems


# --------------------------------------------------------------------- the figures

#: the figures of issue 29 and one quick figure of each other module: the default run
FAST = {
    "tradeoff_atlas_n60",
    "stability_generators",
    "ldpc_waterfall",
    "halbawi2017_fig3",
    "runtime_xu_K",
    "runtime_halbawi_f",
    "ldpc_density_evolution",
    "wang2019_raptor_condition54",
    "kadhe2019_skappa_vs_s",
    "training-kadhe2019-loss-vs-time",
    "training-kadhe2019-iteration-time",
}


def _makers():
    from gctheory.plots import all_figures

    return {f.name: f for f in all_figures()}


def _drawn(maker, tmp_path, monkeypatch) -> list:
    """Run ``maker`` in quick mode and keep the figures it would have closed."""
    kept: list = []

    def keep(fig=None):
        if isinstance(fig, matplotlib.figure.Figure):
            kept.append(fig)
        else:
            _close(fig)

    def unrendered(fig, fname, *args, **kwargs):
        Path(fname).touch()

    monkeypatch.setattr(plt, "close", keep)
    # one rendering per figure, the check's own (``figure_problems`` draws the canvas):
    # the files are named but not rendered (the PNG's render at another dpi, and the
    # SVG's, are not what is checked; tests/test_cli.py checks how figures are written)
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", unrendered)
    with blas_single_thread():
        maker.make(tmp_path, True)
    return kept


def _check(name, tmp_path, monkeypatch):
    maker = _makers()[name]
    if name.startswith("delays-"):
        from gctheory.plots.delays import data_path

        if not data_path().is_file():
            pytest.skip(f"the measured delays are not on this machine ({data_path()})")
    figs = _drawn(maker, tmp_path, monkeypatch)
    assert figs, f"{name} drew no figure"
    try:
        problems = [p for fig in figs for p in figure_problems(fig)]
    finally:
        for fig in figs:
            _close(fig)
    assert not problems, f"{name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("name", sorted(FAST))
def test_figure_quality_fast(name, tmp_path, monkeypatch):
    _check(name, tmp_path, monkeypatch)


def _rest() -> list[str]:
    return sorted(set(_makers()) - FAST)


@pytest.mark.slow
@pytest.mark.parametrize("name", _rest())
def test_figure_quality_every_figure(name, tmp_path, monkeypatch):
    _check(name, tmp_path, monkeypatch)


def test_the_fast_subset_names_registered_figures():
    assert FAST <= set(_makers())


def test_the_checker_finds_what_it_should():
    fig, ax = plt.subplots(figsize=(3, 2))
    try:
        ax.plot([0, 1], [0, 1])  # no legend entry
        ax.set_xlabel("iteration time")  # no unit
        ax.text(0.9, 0.5, "a note that runs far beyond the right edge", transform=ax.transAxes)
        found = figure_problems(fig)
    finally:
        plt.close(fig)
    assert any("outside the canvas" in p for p in found)
    assert any("no legend or caption" in p for p in found)
    assert any("without a unit" in p for p in found)
    fig, ax = plt.subplots(figsize=(3, 2), layout="constrained")
    try:
        ax.plot([0, 1], [0, 1], label="a")
        ax.plot([0, 1], [1, 0], label="_caption:dashed: b")
        ax.legend()
        ax.set_title("dashed: b")
        ax.set_xlabel("time (s)")
        assert figure_problems(fig) == []
    finally:
        plt.close(fig)


@pytest.mark.parametrize(
    "kw", [{}, {"kappa": 1000}, {"delay": "exp(1)"}], ids=["neither", "no-delay", "no-kappa"]
)
def test_an_atlas_without_kappa_or_delay_is_clean(kw):
    from gctheory.plots import plot_tradeoff
    from gctheory.tradeoff import tradeoff

    fig = plot_tradeoff(tradeoff(12, s=3, m=2, eps=0.01, quick=True, rng=0, **kw))
    try:
        assert figure_problems(fig) == []
    finally:
        _close(fig)
