"""Curves with interval bands from a sweep's statistics, on the caller's axes.

In the style of ``sinter.plot_error_rate(ax=..., stats=..., x_func=..., group_func=...)``:
:func:`plot_stats` draws on the axes it is given, changes no global state of
matplotlib, and returns what it drew.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["SweepCurve", "plot_stats"]


@dataclass(frozen=True)
class SweepCurve:
    """One group's curve: its label, points and the artists drawn."""

    group: Any
    x: np.ndarray
    value: np.ndarray
    low: np.ndarray
    high: np.ndarray
    line: Any
    band: Any


def _getter(spec: str | Callable | None, what: str) -> Callable[[Any], Any]:
    if spec is None:
        return lambda s: None
    if callable(spec):
        return spec

    def get(s: Any) -> Any:
        if spec in s.params:
            return s.params[spec]
        if spec in ("estimator", "seed", "batch_size"):
            return s.problem[spec]
        raise ValueError(
            f"{what}={spec!r} is no parameter of {s.estimator} (it has {sorted(s.params)})"
        )

    return get


def plot_stats(
    ax: Any,
    stats: Iterable[Any] | str | os.PathLike,
    *,
    x: str | Callable[[Any], float],
    group: str | Callable[[Any], Any] | None = None,
    estimator: str | None = None,
    filter: Callable[[Any], bool] | None = None,  # noqa: A002 - sinter's name
    band_alpha: float = 0.2,
    **line_kwargs: Any,
) -> list[SweepCurve]:
    """Draw each group's estimates against ``x``, with their intervals as a band.

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw (nothing else is touched).
    stats : iterable of :class:`~gctheory.sweeps.Stat`, or a stats file's path
        E.g. ``gctheory.sweeps.read_stats("stats.csv")``.
    x : str or callable
        A parameter name (``"eps"``) or ``stat -> number``.
    group : str or callable, optional
        A parameter name (``"n"``) or ``stat -> label``: one curve per value.
    estimator : str, optional
        Keep only this estimator's problems (needed when the file mixes them).
    filter : callable, optional
        Keep only the stats for which it is True.
    band_alpha : float
        Opacity of the interval bands.
    **line_kwargs
        Passed to ``ax.plot`` (``marker``, ``linestyle``, ...).

    Returns
    -------
    list of SweepCurve
        One per group, sorted by group, with the ``Line2D`` and the band drawn.
    """
    if isinstance(stats, (str, os.PathLike)):
        from gctheory.sweeps import read_stats

        given: Iterable[Any] = read_stats(stats)
    else:
        given = stats
    chosen = [
        s
        for s in given
        if (estimator is None or s.estimator == estimator) and (filter is None or filter(s))
    ]
    if not chosen:
        raise ValueError(
            f"plot_stats: no statistics to draw (estimator={estimator!r}); "
            "check the file and the filter"
        )
    kinds = {s.estimator for s in chosen}
    if len(kinds) > 1 and estimator is None and group is None:
        raise ValueError(f"plot_stats: the stats mix estimators {sorted(kinds)}; pass estimator=")
    gx, gg = _getter(x, "x"), _getter(group, "group")
    groups: dict[Any, list[Any]] = {}
    for s in chosen:
        if s.estimate is None:
            continue
        groups.setdefault(gg(s), []).append(s)
    curves = []
    for key in sorted(groups, key=lambda g: (str(type(g)), g)):
        pts = sorted(groups[key], key=lambda s: float(gx(s)))
        xs = np.array([float(gx(s)) for s in pts])
        value = np.array([s.estimate.value for s in pts])
        low = np.array([s.estimate.low for s in pts])
        high = np.array([s.estimate.high for s in pts])
        label = None if group is None else f"{group}={key}" if isinstance(group, str) else str(key)
        kwargs = {"marker": "o", "label": label, **line_kwargs}
        (line,) = ax.plot(xs, value, **kwargs)
        band = ax.fill_between(xs, low, high, alpha=band_alpha, color=line.get_color(), lw=0)
        curves.append(SweepCurve(key, xs, value, low, high, line, band))
    if isinstance(x, str) and not ax.get_xlabel():
        ax.set_xlabel(x)
    if not ax.get_ylabel():
        kinds_y = {s.kind for s in chosen}
        ax.set_ylabel("probability" if kinds_y == {"probability"} else "mean")
    return curves
