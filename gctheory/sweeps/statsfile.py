"""The stats file: one CSV of rows of Monte Carlo statistics, appendable from many processes.

Line 1 is the header (exactly :data:`HEADER`); every other line is one row:

``format``
    :data:`FORMAT` (``gctheory-stats/2``); files of the previous version
    (``gctheory-stats/1``, without the columns ``sum_cube_dev`` to ``top``) are
    read too, and appended to in their own format; a row of another format, or of
    another version than its file's header, is refused naming the row.
``key``
    SHA-256 of the ``problem`` JSON (:attr:`gctheory.sweeps.Problem.key`).
``batches``
    The batch indices the row sums, as ranges (``0-4;7``): batch ``b`` is drawn
    from the seed :meth:`~gctheory.sweeps.Problem.batch_seed` gives.
``trials``, ``events``
    Outcomes and, for probabilities, the events among them (empty for means).
``sum``, ``sum_sq_dev``
    For means: the sum of the values and their sum of squared deviations from
    the row's mean (merged by Chan's formula; a raw sum of squares cancels for
    values far from 0). Floats by ``repr``, read back exactly. Empty for
    probabilities.
``sum_cube_dev``, ``sum_quart_dev``, ``min``, ``max``, ``top``
    For means: the sums of cubed and fourth-power deviations from the row's mean
    (merged by Pebay's formulas), the smallest and largest value, and the largest
    magnitudes (at most 100, descending, ``;``-separated): what the skewness-corrected
    interval and the heavy-tail checks of :mod:`gctheory.montecarlo` read. Empty for
    probabilities, and for a mean row converted from a ``gctheory-stats/1`` file
    (whose combined mean then gets the normal interval, with a warning).
``seconds``
    Time spent computing the row.
``seed``
    The problem's base seed (also in ``problem``).
``estimator``, ``problem``
    The estimator's name and the problem's canonical JSON.
``check``
    The first 16 hex digits of the SHA-256 of the other fields: an edited or
    torn row is refused naming the row.

Rows are appended whole, one ``write`` per group of rows, under an exclusive
``flock`` of the file, so several processes on one machine can append to one
file (on several machines, give each its own file and :func:`combine` them).
"""

from __future__ import annotations

import csv
import fcntl
import io
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gctheory._safe_json import bounded_loads
from gctheory._validate import check_path
from gctheory.montecarlo.summaries import TOP_K
from gctheory.sweeps.problems import ESTIMATORS, canonical_json, sha256_text

__all__ = ["COLUMNS", "FORMAT", "FORMAT_V1", "HEADER", "Higher", "Row", "StatsFileError"]

FORMAT = "gctheory-stats/2"
#: The previous version: rows without the higher moments of means (read, and appended to).
FORMAT_V1 = "gctheory-stats/1"
COLUMNS_V1 = (
    "format",
    "key",
    "batches",
    "trials",
    "events",
    "sum",
    "sum_sq_dev",
    "seconds",
    "seed",
    "estimator",
    "problem",
    "check",
)
HIGHER = ("sum_cube_dev", "sum_quart_dev", "min", "max", "top")
COLUMNS = (*COLUMNS_V1[:7], *HIGHER, *COLUMNS_V1[7:])
HEADER = ",".join(COLUMNS)
HEADER_V1 = ",".join(COLUMNS_V1)
_COLUMNS_OF = {FORMAT: COLUMNS, FORMAT_V1: COLUMNS_V1}
_HEADERS = {HEADER: FORMAT, HEADER_V1: FORMAT_V1}


class StatsFileError(ValueError):
    """A stats file or one of its rows cannot be read (the message names the row).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gctheory.sweeps import StatsFileError, read_stats
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     bad = pathlib.Path(tmp) / "bad.csv"
    ...     _ = bad.write_text("not,a,stats,file")
    ...     try:
    ...         read_stats(bad)
    ...     except StatsFileError as e:
    ...         print(type(e).__name__, isinstance(e, ValueError))
    StatsFileError True
    """


@dataclass(frozen=True)
class Row:
    """One row: the statistics of a set of batches of one problem."""

    key: str
    batches: tuple[int, ...]
    trials: int
    events: int | None
    sum: float | None
    sum_sq_dev: float | None
    seconds: float
    seed: int
    estimator: str
    problem: str  # canonical JSON
    higher: Higher | None = None  # means: None in a row read from a gctheory-stats/1 file

    @property
    def kind(self) -> str:
        return "probability" if self.events is not None else "mean"

    def fields(self, version: str = FORMAT) -> list[str]:
        def num(x: Any) -> str:
            return "" if x is None else repr(float(x))

        h = self.higher
        higher = [] if version == FORMAT_V1 else (h.fields() if h is not None else [""] * 5)
        out = [
            version,
            self.key,
            format_batches(self.batches),
            str(self.trials),
            "" if self.events is None else str(self.events),
            num(self.sum),
            num(self.sum_sq_dev),
            *higher,
            repr(float(self.seconds)),
            str(self.seed),
            self.estimator,
            self.problem,
        ]
        return [*out, _check(out)]

    def line(self, version: str = FORMAT) -> str:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow(self.fields(version))
        return buf.getvalue()


@dataclass(frozen=True)
class Higher:
    """A mean row's higher sums: cubed and fourth-power deviations from the row's mean,
    the extremes and the largest magnitudes (descending, at most ``TOP_K``)."""

    m3: float
    m4: float
    lo: float
    hi: float
    top: tuple[float, ...]

    def fields(self) -> list[str]:
        top = ";".join(repr(float(t)) for t in self.top)
        return [repr(float(self.m3)), repr(float(self.m4)), repr(float(self.lo)),
                repr(float(self.hi)), top]  # fmt: skip


def parse_higher(f: dict[str, str], trials: int, mean: float) -> Higher | None:
    """The higher sums of a mean row (None: all five fields empty); ValueError names the rule."""
    values = [f[c] for c in HIGHER]
    if not any(values):
        return None
    if not all(values[:4]) or (trials > 0 and not values[4]):
        raise ValueError(f"the fields {', '.join(HIGHER)} must be all set or all empty")
    m3, m4, lo, hi = (float(v) for v in values[:4])
    top = tuple(float(t) for t in values[4].split(";"))
    if not all(math.isfinite(x) for x in (m3, m4, lo, hi, *top)) or m4 < 0:
        raise ValueError("the higher sums must be finite, sum_quart_dev >= 0")
    scale = 1e-12 * max(abs(lo), abs(hi), 1e-300)
    if not (lo <= hi and lo - scale <= mean <= hi + scale):
        raise ValueError(f"min <= mean <= max must hold, got {lo}, {mean}, {hi}")
    if (
        len(top) != min(TOP_K, trials)
        or any(t < 0 for t in top)
        or list(top) != sorted(top, reverse=True)
    ):
        raise ValueError(f"top must hold min({TOP_K}, trials) magnitudes >= 0, descending")
    if top[0] > max(abs(lo), abs(hi)) + scale:
        raise ValueError("the largest magnitude in top exceeds max(|min|, |max|)")
    return Higher(m3, m4, lo, hi, top)


def _check(fields: list[str]) -> str:
    return sha256_text("\x1f".join(fields))[:16]


def format_batches(batches: tuple[int, ...]) -> str:
    parts = []
    for _, run in _runs(sorted(batches)):
        parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ";".join(parts)


def _runs(xs: list[int]) -> Iterator[tuple[int, list[int]]]:
    run: list[int] = []
    for x in xs:
        if run and x == run[-1] + 1:
            run.append(x)
        else:
            if run:
                yield run[0], run
            run = [x]
    if run:
        yield run[0], run


def parse_batches(text: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in text.split(";"):
        a, _, b = part.partition("-")
        lo, hi = int(a), int(b) if b else int(a)
        if lo < 0 or hi < lo or hi - lo > 10**9:
            raise ValueError(f"bad batch range {part!r}")
        out.extend(range(lo, hi + 1))
    if len(set(out)) != len(out):
        raise ValueError("a batch is listed twice")
    return tuple(sorted(out))


def _where(path: Path | str, number: int) -> str:
    return f"{path}: row {number}"


def parse_row(line: str, path: Path | str, number: int, version: str = FORMAT) -> Row:
    """Validate one line (without its newline) of a file of ``version``; ``StatsFileError``
    names the row."""
    where = _where(path, number)
    try:
        fields = next(csv.reader([line]))
    except (csv.Error, StopIteration) as exc:
        raise StatsFileError(f"{where}: not a CSV row ({exc})") from None
    if not fields or fields[0] != version:
        got = fields[0] if fields else ""
        raise StatsFileError(
            f"{where}: format {got[:40]!r}; the file's header is {version!r}, and this "
            f"version reads {FORMAT!r} and {FORMAT_V1!r} files"
        )
    columns = _COLUMNS_OF[version]
    if len(fields) != len(columns):
        raise StatsFileError(f"{where}: {len(fields)} fields, expected {len(columns)} (torn row?)")
    if _check(fields[:-1]) != fields[-1]:
        raise StatsFileError(f"{where}: checksum mismatch (the row was edited or torn)")
    f = dict(zip(columns, fields, strict=True))
    try:
        problem = bounded_loads(f["problem"], "problem")
        if canonical_json(problem) != f["problem"] or sha256_text(f["problem"]) != f["key"]:
            raise ValueError("the key is not the SHA-256 of the canonical problem JSON")
        if problem.get("estimator") != f["estimator"] or f["estimator"] not in ESTIMATORS:
            raise ValueError(f"unknown or mismatched estimator {f['estimator']!r}")
        if problem.get("seed") != int(f["seed"]):
            raise ValueError("seed differs from the problem's")
        kind = ESTIMATORS[f["estimator"]].kind
        batches = parse_batches(f["batches"])
        trials = int(f["trials"])
        if trials < 1:
            raise ValueError(f"trials must be positive, got {trials}")
        seconds = float(f["seconds"])
        if not (math.isfinite(seconds) and seconds >= 0):
            raise ValueError(f"seconds must be finite and >= 0, got {seconds}")
        events = total = m2 = higher = None
        if kind == "probability":
            events = int(f["events"])
            sums = [f.get(c, "") for c in ("sum", "sum_sq_dev", *HIGHER)]
            if not 0 <= events <= trials or any(sums):
                raise ValueError(f"events must be in [0, trials={trials}], sums empty")
        else:
            total, m2 = float(f["sum"]), float(f["sum_sq_dev"])
            if f["events"] or not (math.isfinite(total) and math.isfinite(m2) and m2 >= 0):
                raise ValueError("a mean's row needs a finite sum and sum_sq_dev >= 0, no events")
            if version == FORMAT:
                higher = parse_higher(f, trials, total / trials)
    except (ValueError, TypeError, AttributeError) as exc:
        raise StatsFileError(f"{where}: {exc}") from None
    return Row(
        f["key"], batches, trials, events, total, m2, seconds, int(f["seed"]), f["estimator"],
        f["problem"], higher,
    )  # fmt: skip


def parse_lines(data: bytes, path: Path | str, first: int, version: str = FORMAT) -> list[Row]:
    """Rows of complete lines ``data`` whose first line is row number ``first``."""
    rows = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StatsFileError(f"{path}: not UTF-8 text ({exc})") from None
    for i, line in enumerate(text.split("\n")[:-1]):
        rows.append(parse_row(line, path, first + i, version))
    return rows


def check_header(line: bytes, path: Path | str) -> str:
    """The file's format version from its header line; refused by name if it is none."""
    version = _HEADERS.get(line.rstrip(b"\n").decode("utf-8", "replace"))
    if version is None:
        raise StatsFileError(
            f"{_where(path, 1)}: not a gctheory stats header (expected {HEADER!r}); "
            f"this version reads {FORMAT!r} and {FORMAT_V1!r} files"
        )
    return version


def read_rows(path: str | os.PathLike) -> list[Row]:
    """Every row of a stats file, each validated; a torn last line is refused naming it."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise StatsFileError(f"{p}: cannot read ({exc.strerror})") from None
    if not data:
        return []
    head, nl, rest = data.partition(b"\n")
    version = check_header(head, p)
    if rest and not rest.endswith(b"\n"):
        number = rest.count(b"\n") + 2
        raise StatsFileError(f"{_where(p, number)}: incomplete (no end of line): a torn write")
    return parse_lines(rest, p, 2, version)


class LockedFile:
    """A stats file opened for appending, read incrementally under an exclusive lock.

    Rows are appended in the file's own format (:attr:`version`, from its header): a
    ``gctheory-stats/1`` file gets rows without the higher sums of means.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(check_path(path, "path", exists=False, what="stats file", folder=True))
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        self.offset = 0
        self.rows_read = 1  # the header's row number
        self.version = FORMAT

    def close(self) -> None:
        os.close(self.fd)

    def __enter__(self) -> LockedFile:
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: Any) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)

    def new_rows(self) -> list[Row]:
        """Rows appended since the last call (call with the lock held).

        A torn last line (a writer killed mid-write) is cut off here, under
        the lock, where no live writer can be mid-line.
        """
        size = os.fstat(self.fd).st_size
        if size == 0:
            os.write(self.fd, (HEADER + "\n").encode())
            self.offset = len(HEADER) + 1
            return []
        data = os.pread(self.fd, size - self.offset, self.offset)
        if self.offset == 0:
            head, nl, data = data.partition(b"\n")
            if not nl:
                raise StatsFileError(f"{_where(self.path, 1)}: incomplete header")
            self.version = check_header(head, self.path)
            self.offset = len(head) + 1
        end = data.rfind(b"\n") + 1
        if end < len(data):  # a torn tail
            os.ftruncate(self.fd, self.offset + end)
            data = data[:end]
        rows = parse_lines(data, self.path, self.rows_read + 1, self.version)
        self.offset += end
        self.rows_read += len(rows)
        return rows

    def append(self, rows: list[Row]) -> None:
        """Append whole lines in one write (call with the lock held, after :meth:`new_rows`)."""
        data = "".join(r.line(self.version) for r in rows).encode("utf-8")
        os.write(self.fd, data)
        self.offset += len(data)
        self.rows_read += len(rows)


def write_rows(path: str | os.PathLike, rows: list[Row], *, overwrite: bool = False) -> None:
    """A new stats file holding ``rows`` (refused if ``path`` exists unless ``overwrite``)."""
    p = Path(check_path(path, "path", exists=False, what="stats file", folder=True))
    if p.exists() and not overwrite:
        raise ValueError(f"{p} exists; pass overwrite=True (--force) to replace it")
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(HEADER + "\n" + "".join(r.line() for r in rows), encoding="utf-8")
    os.replace(tmp, p)
