"""The :class:`Trace` table itself: its columns, campaigns, checks and constructors.

The core below both readers: :mod:`gctheory.delays.trace` (CSV, and the
dispatch of ``.pkl`` files) and :mod:`gctheory.delays.profiles` (the
profile pickles) import it, and it imports neither, so the arrow between
the two readers runs one way (``trace`` -> ``profiles`` -> here). Every
public name is re-exported by :mod:`gctheory.delays.trace` and
:mod:`gctheory.delays`; import it from there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "CAMPAIGN_COLUMNS",
    "TIME_COLUMNS",
    "Trace",
    "make_trace",
    "concat_traces",
]

CAMPAIGN_COLUMNS = ("profile", "model", "region", "batch")
"""Optional columns whose values together name a campaign (one profiling run)."""

TIME_COLUMNS = ("time", "duration_s")
"""Accepted names of the time column (``duration_s`` is the shared data's)."""

_REQUIRED = ("round", "worker", "load")


def _fmt_value(v: Any) -> str:
    if isinstance(v, (float, np.floating)):
        return f"{float(v):g}"
    return str(v)


@dataclass(frozen=True, eq=False)
class Trace:
    """Measured completion times of workers, one row per worker per round.

    Build one with :func:`make_trace`, :func:`read_trace` or
    :func:`gctheory.delays.read_profile_pickle` (they validate the rows).

    Attributes
    ----------
    round, worker : ndarray of int
        Round index within its campaign and load; worker (function slot) index.
    load : ndarray of float
        The worker's share of the data (0 = only the fixed cost of an
        invocation, 1 = the whole batch; the share ``(s+1)/n`` of a cyclic-MDS
        worker in :func:`gctheory.runtime.scheme_layout`). A trace of
        ``gctheory run`` carries the unit load ``l_i`` = share x ``n`` instead
        (the factor of its injected sleep), as its ``load_unit`` column says
        (:func:`gctheory.delays.censored.as_data_shares` converts).
    time : ndarray of float
        Completion time in seconds (finite, >= 0).
    columns : dict of ndarray
        Optional columns, by name.
    source : str
        Where the rows came from (for messages).

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.delays import Trace, concat_traces, make_trace
    >>> rng = np.random.default_rng(0)
    >>> rounds, workers = np.repeat(np.arange(30), 6), np.tile(np.arange(6), 30)
    >>> def times(load):  # 30 rounds x 6 workers, a shifted exponential per unit load
    ...     return load * (0.1 + rng.exponential(0.05, 180))
    >>> trace = concat_traces([make_trace(rounds, workers, np.full(180, x), times(x))
    ...                        for x in (1.0, 2.0)])
    >>> trace
    Trace(in memory: 360 rows, loads 1, 2, 1 campaign(s))
    >>> trace.loads, trace.times(1.0).shape, trace.rounds(2.0).shape
    (array([1., 2.]), (180,), (30, 6))
    """

    round: np.ndarray
    worker: np.ndarray
    load: np.ndarray
    time: np.ndarray
    columns: Mapping[str, np.ndarray] = field(default_factory=dict)
    source: str = ""
    first_line: int | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.time)

    def __repr__(self) -> str:
        camps = self.campaigns()
        return (
            f"Trace({self.source or 'in memory'!s}: {len(self)} rows, loads "
            f"{', '.join(_fmt_value(x) for x in self.loads)}, {len(camps)} campaign(s))"
        )

    # ------------------------------------------------------------- structure
    def where(self, i: int) -> str:
        """How to name row ``i`` in a message (with its file line where known)."""
        if self.first_line is not None:
            return f"row {i} (line {self.first_line + i} of {self.source})"
        return f"row {i}" + (f" of {self.source}" if self.source else "")

    @property
    def loads(self) -> np.ndarray:
        """The measured loads, sorted."""
        return np.unique(self.load)

    @property
    def campaign_columns(self) -> tuple[str, ...]:
        return tuple(c for c in CAMPAIGN_COLUMNS if c in self.columns)

    def _campaign_codes(self) -> tuple[np.ndarray, list[tuple[str, ...]]]:
        cols = self.campaign_columns
        if not cols:
            return np.zeros(len(self), dtype=np.int64), [()]
        inv = []
        for c in cols:
            _, k = np.unique(self.columns[c], return_inverse=True)
            inv.append(k.ravel())
        _, first, codes = np.unique(
            np.stack(inv, axis=1), axis=0, return_index=True, return_inverse=True
        )
        codes = codes.ravel()
        order = np.argsort(first)  # number campaigns by first appearance
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        keys = [tuple(_fmt_value(self.columns[c][first[j]]) for c in cols) for j in order]
        return rank[codes].astype(np.int64), keys

    def campaign_ids(self) -> np.ndarray:
        """Campaign index of every row, numbered by first appearance (0 if no campaign columns)."""
        return self._campaign_codes()[0]

    def campaigns(self) -> list[dict[str, str]]:
        """The campaigns in the trace, in order of first appearance, as {column: value}."""
        cols = self.campaign_columns
        return [dict(zip(cols, k)) for k in self._campaign_codes()[1]]

    def campaign_label(self) -> str:
        """``profile=..., region=...`` of a single-campaign trace ("" if none)."""
        camps = self.campaigns()
        return "; ".join(", ".join(f"{k}={v}" for k, v in c.items()) for c in camps)

    def require_single_campaign(self, what: str = "this") -> Trace:
        """Return self if it holds one campaign; else a ValueError listing them."""
        camps = self.campaigns()
        if len(camps) > 1:
            listed = "; ".join(", ".join(f"{k}={v}" for k, v in c.items()) for c in camps)
            raise ValueError(
                f"{what} needs one campaign, but the trace {self.source or ''} holds "
                f"{len(camps)}: {listed}; select one (Trace.select(profile=..., region=...), "
                "or --where profile=... --where region=... on the command line)"
            )
        return self

    # ------------------------------------------------------------- subsets
    def _subset(self, mask: np.ndarray) -> Trace:
        return Trace(
            self.round[mask],
            self.worker[mask],
            self.load[mask],
            self.time[mask],
            {k: v[mask] for k, v in self.columns.items()},
            self.source,
            None,
        )

    def select(self, **where: Any) -> Trace:
        """The rows whose columns equal the values given (``load=0.5``, ``region="London"``).

        Raises ValueError for an unknown column or when no row matches
        (naming the values present).
        """
        mask = np.ones(len(self), dtype=bool)
        for col, want in where.items():
            values = self._column(col)
            if values.dtype.kind in "fiu":
                try:
                    target = float(want)
                except (TypeError, ValueError):
                    raise ValueError(
                        f"column {col!r} holds numbers, got {want!r} to select on"
                    ) from None
                hit = values == target
            else:
                hit = values.astype(str) == str(want)
            if not hit.any():
                present = ", ".join(_fmt_value(v) for v in np.unique(values)[:20])
                raise ValueError(
                    f"no row of the trace {self.source or ''} has {col}={want!r}; "
                    f"values present: {present}"
                )
            mask &= hit
        if not mask.any():
            raise ValueError(f"no row of the trace matches all of {where}")
        return self._subset(mask)

    def _column(self, col: str) -> np.ndarray:
        if col in ("round", "worker", "load", "time"):
            return getattr(self, col)
        if col not in self.columns:
            known = ", ".join(["round", "worker", "load", "time", *self.columns])
            raise ValueError(f"the trace has no column {col!r}; columns: {known}")
        return self.columns[col]

    def check_load(self, load: Any) -> float:
        """``load`` as a float if the trace measured it; else a ValueError listing the loads."""
        try:
            x = float(load)
        except (TypeError, ValueError):
            raise ValueError(f"load must be a number, got {load!r}") from None
        if not np.any(self.load == x):
            raise ValueError(
                f"load {x:g} is not in the trace {self.source or ''}; measured loads: "
                f"{', '.join(_fmt_value(v) for v in self.loads)}"
            )
        return x

    def times(self, load: Any) -> np.ndarray:
        """Every measured time at ``load`` (all rounds and workers), in row order."""
        x = self.check_load(load)
        return self.time[self.load == x]

    def rounds(self, load: Any) -> np.ndarray:
        """Times at ``load`` as a (rounds, workers) matrix, rounds in campaign and round order.

        Every round must hold the same workers (the columns are the sorted
        worker indices); a round missing a worker is a ValueError naming it.
        """
        x = self.check_load(load)
        sel = np.flatnonzero(self.load == x)
        camp = self.campaign_ids()[sel]
        rnd, wk = self.round[sel], self.worker[sel]
        workers = np.unique(wk)
        keys = sorted(set(zip(camp.tolist(), rnd.tolist())))
        row_of = {k: j for j, k in enumerate(keys)}
        col_of = {w: j for j, w in enumerate(workers.tolist())}
        M = np.full((len(keys), len(workers)), np.nan)
        for i, c, r, w in zip(sel, camp, rnd, wk):
            M[row_of[(int(c), int(r))], col_of[int(w)]] = self.time[i]
        missing = np.argwhere(np.isnan(M))
        if missing.size:
            j, k = missing[0]
            c, r = keys[j]
            raise ValueError(
                f"round {r} at load {x:g} (campaign {self.campaigns()[c] or 'the only one'}) "
                f"has no time for worker {workers[k]}: every round must hold the same "
                f"{len(workers)} workers ({int(len(missing))} cells missing)"
            )
        return M


# ---------------------------------------------------------------------------
# building and validating


def _as_array(name: str, values: Any, kind: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"column {name!r} must be one-dimensional, got shape {arr.shape}")
    if kind == "int":
        if arr.dtype.kind == "f":
            bad = ~np.isfinite(arr) | (arr != np.round(arr))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(f"column {name!r} must hold integers: row {i} has {arr[i]!r}")
        elif arr.dtype.kind not in "iub":
            raise ValueError(f"column {name!r} must hold integers, got dtype {arr.dtype}")
        return arr.astype(np.int64)
    if arr.dtype.kind not in "fiu":
        raise ValueError(f"column {name!r} must hold numbers, got dtype {arr.dtype}")
    return arr.astype(float)


def _validate(tr: Trace) -> Trace:
    n = len(tr.time)
    for name in ("round", "worker", "load"):
        if len(getattr(tr, name)) != n:
            raise ValueError(
                f"column {name!r} has {len(getattr(tr, name))} rows but 'time' has {n}"
            )
    for name, col in tr.columns.items():
        if len(col) != n:
            raise ValueError(f"column {name!r} has {len(col)} rows but 'time' has {n}")
    if n == 0:
        raise ValueError(f"the trace {tr.source or ''} has no rows")
    bad = ~np.isfinite(tr.time)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"times must be finite: {tr.where(i)} has time={float(tr.time[i])!r}")
    bad = tr.time < 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"times must be >= 0: {tr.where(i)} has time={float(tr.time[i])!r}")
    bad = ~np.isfinite(tr.load) | (tr.load < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"loads must be finite and >= 0: {tr.where(i)} has load={float(tr.load[i])!r}"
        )
    for name in ("round", "worker"):
        col = getattr(tr, name)
        if (col < 0).any():
            i = int(np.flatnonzero(col < 0)[0])
            raise ValueError(f"{name} must be >= 0: {tr.where(i)} has {name}={int(col[i])}")
    # one time per (campaign, load, round, worker)
    key = np.rec.fromarrays([tr.campaign_ids(), tr.load, tr.round, tr.worker])
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(key[order][1:] == key[order][:-1])
    if dup.size:
        a, b = sorted((int(order[dup[0]]), int(order[dup[0] + 1])))
        raise ValueError(
            f"{tr.where(b)} repeats {tr.where(a)}: the same campaign, load={tr.load[a]:g}, "
            f"round={tr.round[a]} and worker={tr.worker[a]}"
        )
    return tr


def make_trace(
    round: Any,
    worker: Any,
    load: Any,
    time: Any,
    *,
    source: str = "",
    **columns: Any,
) -> Trace:
    """A validated :class:`Trace` from equal-length columns.

    Raises ValueError naming the row for a negative or non-finite time, a
    negative or non-finite load, a negative round or worker, or a repeated
    (campaign, load, round, worker).

    Parameters
    ----------
    round, worker : array_like of int
        Round and worker of each row (non-negative).
    load : array_like of float
        Each row's load (non-negative).
    time : array_like of float
        Completion time in seconds (finite, non-negative).
    source : str
        Where the rows came from (for messages).
    **columns : array_like
        Optional columns (``profile``, ``model``, ``region``, ``batch`` name a campaign).

    Returns
    -------
    Trace
        The validated trace.

    Raises
    ------
    ValueError
        A bad row, named.

    Examples
    --------
    >>> from gctheory.delays import make_trace
    >>> t = make_trace([0, 0, 1, 1], [0, 1, 0, 1], [1.0] * 4, [0.2, 0.3, 0.25, 0.9])
    >>> t, t.times(1.0).tolist()
    (Trace(in memory: 4 rows, loads 1, 1 campaign(s)), [0.2, 0.3, 0.25, 0.9])
    >>> make_trace([0], [0], [1.0], [-1.0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: times must be >= 0: row 0 has time=-1.0
    """
    cols = {}
    for k, v in columns.items():
        arr = np.asarray(v)
        if arr.ndim != 1:
            raise ValueError(f"column {k!r} must be one-dimensional, got shape {arr.shape}")
        cols[k] = arr
    tr = Trace(
        _as_array("round", round, "int"),
        _as_array("worker", worker, "int"),
        _as_array("load", load, "float"),
        _as_array("time", time, "float"),
        cols,
        source,
    )
    return _validate(tr)


def concat_traces(traces: Sequence[Trace]) -> Trace:
    """Rows of several traces in one (their optional columns must agree).

    Parameters
    ----------
    traces : sequence of Trace
        Traces with the same optional columns.

    Returns
    -------
    Trace
        All their rows.

    Examples
    --------
    >>> from gctheory.delays import concat_traces, make_trace
    >>> a = make_trace([0, 0], [0, 1], [1.0, 1.0], [0.2, 0.3])
    >>> b = make_trace([0, 0], [0, 1], [2.0, 2.0], [0.5, 0.4])
    >>> concat_traces([a, b]).loads
    array([1., 2.])
    """
    if isinstance(traces, (str, bytes, Trace)) or not hasattr(traces, "__iter__"):
        raise ValueError(f"traces must be a sequence of Trace, got {type(traces).__name__}")
    traces = list(traces)
    if not traces:
        raise ValueError("traces: concat_traces needs at least one trace")
    for t in traces:
        if not isinstance(t, Trace):
            raise ValueError(f"traces must hold Trace objects, got {type(t).__name__}")
    names = list(traces[0].columns)
    for t in traces[1:]:
        if list(t.columns) != names:
            raise ValueError(
                f"traces have different optional columns: {names} and {list(t.columns)}"
            )
    cat = Trace(
        np.concatenate([t.round for t in traces]),
        np.concatenate([t.worker for t in traces]),
        np.concatenate([t.load for t in traces]),
        np.concatenate([t.time for t in traces]),
        {k: np.concatenate([t.columns[k] for t in traces]) for k in names},
        " + ".join(dict.fromkeys(t.source for t in traces)),
    )
    return _validate(cat)
