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

from gctheory._names import TRADEOFF_AXES as _TRADEOFF_AXES

__all__ = ["TRADEOFF_AXES", "DEFAULT_TRADEOFF_AXES", "dominance", "row_label"]

#: axis name -> (column, "min" or "max"): which way is better.
TRADEOFF_AXES = _TRADEOFF_AXES

#: Axes used when the caller names none (stability and time only when computed).
DEFAULT_TRADEOFF_AXES: tuple[str, ...] = tuple(TRADEOFF_AXES)


def _check_row(row: Any, name: str, keys: Sequence[str] = ("scheme", "s", "m")) -> None:
    if not isinstance(row, Mapping):
        raise ValueError(f"{name} must be a table row (a mapping), got {type(row).__name__}")
    missing = [k for k in keys if k not in row]
    if missing:
        raise ValueError(f"{name} must have the keys {list(keys)}, missing {missing}")


def row_label(row: Mapping[str, Any]) -> str:
    """``scheme[generator] s=.. m=..`` for messages and legends.

    Parameters
    ----------
    row : mapping
        A table row.

    Returns
    -------
    str
        ``scheme[generator] s=.. m=..``.

    Examples
    --------
    >>> from gctheory.tradeoff import row_label
    >>> row_label({"scheme": "ye-abbe", "generator": "gaussian", "s": 2, "m": 1})
    'ye-abbe[gaussian] s=2 m=1'
    """
    _check_row(row, "row")
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
            if not isinstance(v, (int, float, np.integer, np.floating)):
                raise ValueError(
                    f"rows: column {col!r} must hold numbers (or None), got {v!r} in row {i}"
                )
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

    Examples
    --------
    >>> from gctheory.tradeoff import dominance
    >>> rows = [dict(scheme="a", s=1, m=1, kind="scheme", load=2, communication=1.0),
    ...         dict(scheme="b", s=1, m=1, kind="scheme", load=3, communication=1.0)]
    >>> dominance(rows, axes=["load", "communication"])
    [(False, None), (True, 'a s=1 m=1')]
    """
    if isinstance(rows, (str, bytes, Mapping)) or not isinstance(rows, Iterable):
        raise ValueError(f"rows must be an iterable of table rows (mappings), got {rows!r}")
    rows = list(rows)
    for r in rows:
        _check_row(r, "rows entry", ("scheme", "s", "m"))
    if axes is not None and (isinstance(axes, (str, bytes)) or not isinstance(axes, Iterable)):
        raise ValueError(f"axes must be a sequence of names from {list(TRADEOFF_AXES)}")
    axes = list(DEFAULT_TRADEOFF_AXES if axes is None else axes)
    if not axes:
        raise ValueError(f"axes must name at least one of {list(TRADEOFF_AXES)}")
    for a in axes:
        if not isinstance(a, str) or a not in TRADEOFF_AXES:
            raise ValueError(f"axis must be one of {list(TRADEOFF_AXES)}, got {a!r} in axes")
    live = [i for i, r in enumerate(rows) if r.get("kind") != "bound"]
    V = _values([rows[i] for i in live], axes)
    # ge[i, j]: row j is no worse than row i on every axis (NaN compares False)
    ge = np.all(V[None, :, :] >= V[:, None, :], axis=2)
    gt = np.any(V[None, :, :] > V[:, None, :], axis=2)
    dom = ge & gt
    out: list[tuple[bool | None, str | None]] = [(None, None)] * len(rows)
    for p, i in enumerate(live):
        who = np.flatnonzero(dom[p])
        if who.size == 0:
            out[i] = (False, None)
            continue
        others = [j for j in who if rows[live[j]]["scheme"] != rows[i]["scheme"]]
        j = others[0] if others else who[0]
        out[i] = (True, row_label(rows[live[j]]))
    return out
