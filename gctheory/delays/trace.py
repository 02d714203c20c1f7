"""Measured worker times as a tidy table: one row per worker per round.

A :class:`Trace` holds the columns ``round``, ``worker``, ``load`` and
``time`` (seconds a worker took to return its result), and any optional
columns of the source (``profile``, ``model``, ``region``, ``batch``,
``start_offset_s``, ...). The optional columns named in
:data:`CAMPAIGN_COLUMNS` identify a *campaign* (one profiling run: its rounds
follow each other, its workers are the same function slots in every round);
a round is a (campaign, load, round) triple.

The CSV format (:func:`read_trace`) is that of the shared AWS Lambda data
(an extract of the delay profiles of Krishnan, Ebrahimi & Khisti, "Sequential
gradient coding for straggler mitigation", ICLR 2023): a header row, then one
row per worker per round; required columns ``round``, ``worker``, ``load``
and ``time`` or ``duration_s``; every other column is kept (as numbers if
every value parses as one, else as text). The profile pickles of that
repository are read by :func:`gctheory.delays.read_profile_pickle`.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gctheory._validate import check_path

__all__ = [
    "CAMPAIGN_COLUMNS",
    "TIME_COLUMNS",
    "Trace",
    "make_trace",
    "read_trace",
    "write_trace",
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
        worker in :func:`gctheory.runtime.scheme_layout`).
    time : ndarray of float
        Completion time in seconds (finite, >= 0).
    columns : dict of ndarray
        Optional columns, by name.
    source : str
        Where the rows came from (for messages).
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
    """Rows of several traces in one (their optional columns must agree)."""
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


# ---------------------------------------------------------------------------
# CSV


def _parse_column(values: list[str]) -> np.ndarray:
    try:
        return np.array([float(v) for v in values])
    except ValueError:
        return np.array(values, dtype=str)


def read_trace(path: str | Path | Iterable[str | Path]) -> Trace:
    """Read a trace from a CSV file, a profile pickle, or several of them.

    CSV: a header row naming the columns, then one row per worker per round.
    Required: ``round`` (int), ``worker`` (int), ``load`` (float) and
    ``time`` or ``duration_s`` (seconds, finite, >= 0). Other columns are
    kept (``profile``, ``model``, ``region``, ``batch`` name a campaign).
    Files ending in ``.pkl``/``.pickle`` go to
    :func:`gctheory.delays.read_profile_pickle`. Bad input is a ValueError
    naming the file, the line and the problem.
    """
    if not isinstance(path, (str, os.PathLike)):
        if isinstance(path, (bytes, dict)) or not hasattr(path, "__iter__"):
            raise ValueError(f"path must be a file path or a list of them, got {path!r}")
        paths = list(path)
        if not paths:
            raise ValueError("path: read_trace needs at least one path")
        return concat_traces([read_trace(p) for p in paths])
    p = Path(check_path(path, "path", exists=False))
    if p.suffix in (".pkl", ".pickle"):
        from gctheory.delays.profiles import read_profile_pickle

        return read_profile_pickle(p)
    if not p.is_file():
        raise ValueError(f"path: trace file {str(p)!r} does not exist")
    try:
        with p.open(newline="") as fh:
            reader = csv.reader(fh)
            try:
                header = [h.strip() for h in next(reader)]
            except StopIteration:
                raise ValueError(
                    f"{p}: the file is empty (a trace CSV starts with a header)"
                ) from None
            rows = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"path: {str(p)!r} is not a readable trace CSV ({exc})") from None
    tcol = next((c for c in TIME_COLUMNS if c in header), None)
    missing = [c for c in _REQUIRED if c not in header] + ([] if tcol else ["time"])
    if missing:
        raise ValueError(
            f"{p}: missing column(s) {missing}; a trace CSV needs round, worker, load and "
            f"time (or duration_s); the header has {header}"
        )
    if len(set(header)) != len(header):
        raise ValueError(f"{p}: repeated column names in the header {header}")
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        raise ValueError(f"{p}: no data rows after the header")
    width = len(header)
    for i, r in enumerate(rows):
        if len(r) != width:
            raise ValueError(
                f"{p} line {i + 2}: {len(r)} fields, but the header has {width} columns"
            )
    cols = {h: [r[j].strip() for r in rows] for j, h in enumerate(header)}
    parsed: dict[str, np.ndarray] = {}
    for name, kind in (("round", int), ("worker", int), ("load", float), (tcol, float)):
        vals = []
        for i, text in enumerate(cols[name]):
            if text == "":
                raise ValueError(f"{p} line {i + 2}: column {name!r} is empty")
            try:
                v = kind(text) if kind is float else int(text)
            except ValueError:
                try:
                    v = float(text)
                    if kind is int and (not math.isfinite(v) or v != int(v)):
                        raise ValueError from None
                    v = int(v) if kind is int else v
                except ValueError:
                    raise ValueError(
                        f"{p} line {i + 2}: column {name!r} must be "
                        f"{'an integer' if kind is int else 'a number'}, got {text!r}"
                    ) from None
            vals.append(v)
        parsed[name] = np.array(vals, dtype=np.int64 if kind is int else float)
    extra = {
        h: _parse_column(cols[h]) for h in header if h not in (*_REQUIRED, tcol) and h != "time"
    }
    tr = Trace(parsed["round"], parsed["worker"], parsed["load"], parsed[tcol], extra, str(p), 2)
    return _validate(tr)


def write_trace(trace: Trace, path: str | Path) -> Path:
    """Write ``trace`` as CSV in the format :func:`read_trace` reads (time as ``time``)."""
    if not isinstance(trace, Trace):
        raise ValueError(f"trace must be a Trace, got {type(trace).__name__}")
    p = Path(check_path(path, "path", exists=False))
    if not p.parent.is_dir():
        raise ValueError(f"path: the folder {str(p.parent)!r} of {str(p)!r} does not exist")
    names = list(trace.columns)
    with p.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["round", "worker", "load", "time", *names])
        for i in range(len(trace)):
            extra = [_fmt_cell(trace.columns[k][i]) for k in names]
            w.writerow(
                [int(trace.round[i]), int(trace.worker[i]), repr(float(trace.load[i])),
                 repr(float(trace.time[i])), *extra]
            )  # fmt: skip
    return p


def _fmt_cell(v: Any) -> str:
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return str(v)
