"""Pareto dominance between the rows of a tradeoff table.

A row A *dominates* a row B on a set of axes when A is no worse than B on every
axis and strictly better on at least one. An axis on which either row has no
value (None or NaN: e.g. a stability nobody has computed) makes the pair
incomparable: nothing is called dominated without the numbers to show it.
Bound rows (``kind == "bound"``) take no part. A scheme is dominated when every
one of its rows is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from gctheory._validate import check_choice

__all__ = ["TRADEOFF_AXES", "DEFAULT_TRADEOFF_AXES", "dominance", "row_label"]

#: axis name -> (column, "min" or "max"): which way is better.
TRADEOFF_AXES: dict[str, tuple[str, str]] = {
    "load": ("load", "min"),
    "communication": ("communication", "min"),
    "tolerance": ("s", "max"),
    "failure": ("failure", "min"),
    "stability": ("stable_s", "max"),
    "time": ("time", "min"),
}

#: Axes used when the caller names none (stability and time only when computed).
DEFAULT_TRADEOFF_AXES: tuple[str, ...] = tuple(TRADEOFF_AXES)


def row_label(row: Mapping[str, Any]) -> str:
    """``scheme[generator] s=.. m=..`` for messages and legends."""
    gen = f"[{row['generator']}]" if row.get("generator") else ""
    return f"{row['scheme']}{gen} s={row['s']} m={row['m']}"


def _values(rows: Sequence[Mapping[str, Any]], axes: Sequence[str]) -> np.ndarray:
    """(rows, axes) array, larger is better, NaN where a value is missing."""
    out = np.full((len(rows), len(axes)), np.nan)
    for j, axis in enumerate(axes):
        col, way = TRADEOFF_AXES[axis]
        for i, r in enumerate(rows):
            v = r.get(col)
            if v is None or isinstance(v, bool):
                continue
            v = float(v)
            out[i, j] = -v if way == "min" else v
    return out


def dominance(
    rows: Iterable[Mapping[str, Any]], axes: Sequence[str] | None = None
) -> list[tuple[bool | None, str | None]]:
    """For each row, whether another row dominates it on ``axes``, and one such row.

    Parameters
    ----------
    rows : iterable of dict
        Table rows (keys of :data:`gctheory.tradeoff.TRADEOFF_COLUMNS`; at least the columns
        of the axes used, ``scheme``, ``s``, ``m``, ``kind``).
    axes : sequence of str, optional
        Names from :data:`TRADEOFF_AXES` (default: all of them).

    Returns
    -------
    list of (dominated, by)
        ``dominated`` is None for bound rows; ``by`` is the label
        (:func:`row_label`) of a dominating row, preferring another scheme.
    """
    rows = list(rows)
    axes = list(DEFAULT_TRADEOFF_AXES if axes is None else axes)
    if not axes:
        raise ValueError(f"axes must name at least one of {list(TRADEOFF_AXES)}")
    for a in axes:
        check_choice(a, "axis", TRADEOFF_AXES)
    live = [i for i, r in enumerate(rows) if r.get("kind") != "bound"]
    V = _values([rows[i] for i in live], axes)
    # ge[i, j]: row j is no worse than row i on every axis (NaN compares False)
    ge = np.all(V[None, :, :] >= V[:, None, :], axis=2)
    gt = np.any(V[None, :, :] > V[:, None, :], axis=2)
    dom = ge & gt
    out: list[tuple[bool | None, str | None]] = [(None, None)] * len(rows)
    for a, i in enumerate(live):
        who = np.flatnonzero(dom[a])
        if who.size == 0:
            out[i] = (False, None)
            continue
        others = [j for j in who if rows[live[j]]["scheme"] != rows[i]["scheme"]]
        j = others[0] if others else who[0]
        out[i] = (True, row_label(rows[live[j]]))
    return out
