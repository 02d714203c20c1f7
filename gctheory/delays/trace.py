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
import gzip
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from gctheory._validate import check_path

# the table, its checks and constructors live in the core below both readers
from gctheory.delays._trace_core import (
    _REQUIRED,
    CAMPAIGN_COLUMNS,
    TIME_COLUMNS,
    Trace,
    _as_array,  # noqa: F401  (still importable from here, where it was defined)
    _fmt_value,  # noqa: F401  (still importable from here, where it was defined)
    _validate,
    concat_traces,
    make_trace,
)
from gctheory.delays.profiles import read_profile_pickle

__all__ = [
    "CAMPAIGN_COLUMNS",
    "TIME_COLUMNS",
    "Trace",
    "make_trace",
    "read_trace",
    "write_trace",
    "concat_traces",
]


# ---------------------------------------------------------------------------
# CSV


def _parse_column(values: list[str]) -> np.ndarray:
    try:
        return np.array([float(v) for v in values])
    except ValueError:
        return np.array(values, dtype=str)


def _columns(header: list[str], most: int = 20) -> str:
    """Column names for a message: at most ``most``, each cut to 40 characters."""
    names = [h if len(h) <= 40 else h[:37] + "..." for h in header[:most]]
    more = f" and {len(header) - most} more" if len(header) > most else ""
    return f"{names}{more}"


def read_trace(path: str | Path | Iterable[str | Path]) -> Trace:
    """Read a trace from a CSV file, a profile pickle, or several of them.

    CSV: a header row naming the columns, then one row per worker per round.
    Required: ``round`` (int), ``worker`` (int), ``load`` (float) and
    ``time`` or ``duration_s`` (seconds, finite, >= 0). Other columns are
    kept (``profile``, ``model``, ``region``, ``batch`` name a campaign).
    A name ending in ``.gz`` is read through gzip (the packaged AWS Lambda
    measurements, :func:`gctheory.data.lambda_delays_path`, are such a file).
    Files ending in ``.pkl``/``.pickle`` go to
    :func:`gctheory.delays.read_profile_pickle`. Bad input is a ValueError
    naming the file, the line and the problem.

    Parameters
    ----------
    path : str, pathlib.Path, or an iterable of them
        CSV files or profile pickles.

    Returns
    -------
    Trace
        The rows of every file.

    Raises
    ------
    ValueError
        A missing column or a bad value, naming the file and line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gctheory.delays import make_trace, read_trace, write_trace
    >>> t = make_trace([0, 0, 1, 1], [0, 1, 0, 1], [1.0] * 4, [0.2, 0.3, 0.25, 0.9])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     again = read_trace(write_trace(t, pathlib.Path(tmp) / "run.csv"))
    >>> again.times(1.0).tolist()
    [0.2, 0.3, 0.25, 0.9]
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
        return read_profile_pickle(p)
    if not p.is_file():
        raise ValueError(f"path: trace file {str(p)!r} does not exist")
    try:
        # gzip.open's text mode takes newline= as open() does
        with gzip.open(p, "rt", newline="") if p.suffix == ".gz" else p.open(newline="") as fh:
            reader = csv.reader(fh)
            try:
                header = [h.strip() for h in next(reader)]
            except StopIteration:
                raise ValueError(
                    f"{p}: the file is empty (a trace CSV starts with a header)"
                ) from None
            rows = list(reader)
    except (OSError, EOFError, UnicodeDecodeError, csv.Error) as exc:
        # EOFError: a truncated .gz
        raise ValueError(f"path: {str(p)!r} is not a readable trace CSV ({exc})") from None
    tcol = next((c for c in TIME_COLUMNS if c in header), None)
    missing = [c for c in _REQUIRED if c not in header] + ([] if tcol else ["time"])
    if len(missing) == len(_REQUIRED) + 1:
        # not a trace at all: quote nothing of it (read_trace("/proc/self/environ") put
        # the environment in the message)
        raise ValueError(
            f"path: {str(p)!r} is not a trace CSV: its first line names none of the columns "
            "round, worker, load, time (or duration_s)"
        )
    if missing or tcol is None:
        raise ValueError(
            f"{p}: missing column(s) {missing}; a trace CSV needs round, worker, load and "
            f"time (or duration_s); the header has {_columns(header)}"
        )
    if len(set(header)) != len(header):
        raise ValueError(f"{p}: repeated column names in the header {_columns(header)}")
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
    """Write ``trace`` as CSV in the format :func:`read_trace` reads (time as ``time``).

    Parameters
    ----------
    trace : Trace
        The trace.
    path : str or pathlib.Path
        The CSV file to write.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gctheory.delays import make_trace, write_trace
    >>> t = make_trace([0, 0], [0, 1], [1.0, 1.0], [0.2, 0.3])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     text = write_trace(t, pathlib.Path(tmp) / "run.csv").read_text()
    >>> text.splitlines()[0]
    'round,worker,load,time'
    """
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
