"""``collect``: run a grid of problems in batches, appending rows to one stats file.

Batch ``b`` of a problem holds ``min(batch_size, max_trials - b * batch_size)``
trials drawn from :meth:`Problem.batch_seed(b) <gctheory.sweeps.Problem.batch_seed>`,
so a batch's row is the same whoever computes it. A process takes the batches
``b`` with ``b % workers == worker`` not yet in the file, smallest first, and
stops a problem at its rule (checked on every row the file holds for it):
``trials >= max_trials``, ``events >= max_events``, or the interval's relative
half-width ``<= rel_half_width`` (never with fewer than 2 events, nor at a mean
of 0). A killed run loses at most the batches it was computing: run it again
and it fills the holes. Two processes on one file each read the other's rows
before choosing a batch (under the file's lock); a batch that another process
appended meanwhile is dropped, not written twice.
"""

from __future__ import annotations

import numbers
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial

from gctheory._progress import Progress
from gctheory._validate import check_flag, check_path, check_real
from gctheory.montecarlo.estimates import DEFAULT_INTERVAL, check_interval, check_level
from gctheory.sweeps.problems import Problem
from gctheory.sweeps.stats import Stat, merge_rows, to_stat
from gctheory.sweeps.statsfile import Higher, LockedFile, Row

__all__ = ["CollectSummary", "collect"]


@dataclass
class CollectSummary:
    """What :func:`collect` did: rows written, batches dropped, time, and the stats now held.

    Parameters
    ----------
    rows_written : int
        Rows appended to the stats file.
    batches_dropped : int
        Batches discarded (a stop rule met, or time up).
    seconds : float
        Wall time.
    stats : list of Stat
        The statistics the file now holds.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gctheory.sweeps import CollectSummary, collect, grid, read_stats
    >>> problems = grid("ldpc-block", n=[60], eps=[0.3, 0.4], batch_size=100)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     summary = collect(problems, pathlib.Path(tmp) / "stats.csv", max_trials=200)
    >>> summary.rows_written, [s.trials for s in summary.stats]
    (4, [200, 200])
    """

    rows_written: int = 0
    batches_dropped: int = 0
    seconds: float = 0.0
    stats: list[Stat] = field(default_factory=list)


def _rule(problem: Problem, max_trials, max_events, rel_half_width) -> tuple:
    t = problem.max_trials if problem.max_trials is not None else max_trials
    e = problem.max_events if problem.max_events is not None else max_events
    r = problem.rel_half_width if problem.rel_half_width is not None else rel_half_width
    if t is None:
        raise ValueError(f"{problem.label}: no max_trials (every problem needs a budget)")
    if problem.kind == "mean":
        e = None
    return t, e, r


def _done(row: Row | None, t: int, e: int | None, r: float | None, level, interval) -> str | None:
    if row is None:
        return None
    if row.trials >= t:
        return "max_trials"
    if e is not None and row.events is not None and row.events >= e:
        return "max_events"
    if r is not None:
        if row.kind == "probability" and (row.events or 0) < 2:
            return None
        est = to_stat(row, 1, level, interval, warn=False).estimate
        if est is not None and est.value != 0 and est.rel_half_width <= r:
            return "rel_half_width"
    return None


def _check_int(name: str, v, low: int) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")
    return int(v)


def collect(
    problems: Sequence[Problem],
    path: str | os.PathLike,
    *,
    max_trials: int | None = None,
    max_events: int | None = None,
    rel_half_width: float | None = None,
    worker: int = 0,
    workers: int = 1,
    level: float = 0.99,
    interval: str = DEFAULT_INTERVAL,
    max_seconds: float | None = None,
    progress: bool | None = None,
) -> CollectSummary:
    """Collect statistics of ``problems`` into the stats file ``path`` (created if missing).

    Parameters
    ----------
    problems : sequence of Problem
    path : path
        The stats file (see :mod:`gctheory.sweeps.statsfile`); its folder must exist.
    max_trials, max_events, rel_half_width :
        The stopping rule of problems that do not set their own; every problem
        needs a ``max_trials``.
    worker, workers : int
        This process takes the batches ``b % workers == worker``: run
        ``workers`` processes (on one file or on several, then
        :func:`~gctheory.sweeps.combine`) and together they draw exactly the
        batches one process would.
    level, interval :
        Of the interval the ``rel_half_width`` rule reads.
    max_seconds : float, optional
        Start no new batch after this long (the run can be resumed).
    progress : bool or None
        Progress on stderr (the problem, its trials and events so far): a bar on a
        terminal, a line every 10 s elsewhere (default); ``True`` draws the bar even off
        a terminal, ``False`` prints nothing.

    Returns
    -------
    CollectSummary
        Rows written, batches dropped (another process wrote them first), the
        time taken and the statistics the file now holds for ``problems``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gctheory.sweeps import collect, grid, read_stats
    >>> problems = grid("ldpc-block", n=[60], eps=[0.3, 0.4], batch_size=100)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp) / "stats.csv"
    ...     _ = collect(problems, path, max_trials=200)
    ...     _ = collect(problems, path, max_trials=400)  # resumes: 200 more trials each
    ...     stats = read_stats(path)
    >>> [(s.params["eps"], s.trials, s.events) for s in stats]
    [(0.3, 400, 41), (0.4, 400, 203)]
    """
    level = check_level(level)
    interval = check_interval(interval)
    workers = _check_int("workers", workers, 1)
    worker = _check_int("worker", worker, 0)
    if worker >= workers:
        raise ValueError(f"worker must be in [0, workers={workers}), got {worker}")
    problems, rules = _check_problems(problems, max_trials, max_events, rel_half_width)
    path = check_path(path, "path", exists=False, folder=True)
    if max_seconds is not None:
        max_seconds = check_real(max_seconds, "max_seconds", low=0.0, finite=False)
    if progress is not None:
        progress = check_flag(progress, "progress")
    keys = [p.key for p in problems]  # builds every code now: bad parameters fail before work
    run = _Run(LockedFile(path), worker, workers, level, interval, max_seconds)
    bar = Progress(len(problems), "sweeps collect", enabled=progress)
    try:
        for i, (p, key, rule) in enumerate(zip(problems, keys, rules, strict=True)):
            run.problem(p, key, rule, partial(bar.update, i) if bar.enabled else None)
            bar.update(i + 1)
        with run.file:
            run.refresh()
    finally:
        run.file.close()
        bar.close()
    run.summary.seconds = time.monotonic() - run.start
    run.summary.stats = [
        to_stat(merge_rows(run.rows[k]), len(run.rows[k]), level, interval)
        for k in dict.fromkeys(keys) if k in run.rows
    ]  # fmt: skip
    return run.summary


def _check_problems(problems, max_trials, max_events, rel_half_width) -> tuple[list, list]:
    """The problems as a list, each with its stopping rule, validated by name."""
    if isinstance(problems, (str, bytes)) or not isinstance(problems, Iterable):
        raise ValueError(f"problems must be a sequence of Problem objects, got {problems!r:.60}")
    problems = list(problems)
    for p in problems:
        if not isinstance(p, Problem):
            raise ValueError(f"problems must be Problem objects, got {p!r:.60}")
    rules = [_rule(p, max_trials, max_events, rel_half_width) for p in problems]
    for p, (t, e, r) in zip(problems, rules, strict=True):
        _check_int(f"{p.label}: max_trials", t, 1)
        if e is not None:
            _check_int(f"{p.label}: max_events", e, 1)
        if r is not None and not (isinstance(r, numbers.Real) and float(r) > 0):
            raise ValueError(f"{p.label}: rel_half_width must be positive, got {r!r}")
    return problems, rules


def _batch_row(p: Problem, key: str, b: int, n: int) -> Row:
    """Run batch ``b`` of ``n`` trials of ``p`` into its row."""
    t0 = time.perf_counter()
    out = p.run_batch(b, n)
    seconds = time.perf_counter() - t0
    if p.kind == "probability":
        return Row(key, (b,), n, int(out), None, None, seconds, p.seed, p.estimator, p.json)
    higher = Higher(out.m3, out.m4, out.lo, out.hi, tuple(out.top))
    return Row(key, (b,), n, None, out.mean * n, out.m2, seconds, p.seed, p.estimator, p.json,
               higher)  # fmt: skip


def _progress_text(p: Problem, rows: list[Row], t: int) -> str:
    m = merge_rows(rows)
    if m.events is not None:
        return f"{p.label}: {m.trials}/{t} trials, {m.events} events"
    assert m.sum is not None, "merge_rows sums the rows of a mean"
    return f"{p.label}: {m.trials}/{t} trials, mean {m.sum / m.trials:.4g}"


@dataclass
class _Run:
    """One :func:`collect` call's state: the locked file, the rows it holds, the summary."""

    file: LockedFile
    worker: int
    workers: int
    level: float
    interval: str
    max_seconds: float | None
    rows: dict[str, list[Row]] = field(default_factory=dict)
    summary: CollectSummary = field(default_factory=CollectSummary)
    start: float = field(default_factory=time.monotonic)

    def refresh(self) -> None:
        for r in self.file.new_rows():
            self.rows.setdefault(r.key, []).append(r)

    def next_batch(self, key: str, nbatches: int, rule: tuple) -> int | None:
        """The smallest batch this process owes ``key`` (None: its rule is met, or none left)."""
        with self.file:
            self.refresh()
        have = self.rows.get(key, [])
        merged = merge_rows(have, f"{self.file.path}: ") if have else None
        t, e, r = rule
        if _done(merged, t, e, r, self.level, self.interval):
            return None
        done = {b for row in have for b in row.batches}
        todo = (b for b in range(self.worker, nbatches, self.workers) if b not in done)
        return next(todo, None)

    def append(self, key: str, b: int, row: Row) -> None:
        """Append ``row`` unless another process wrote batch ``b`` meanwhile."""
        with self.file:
            self.refresh()
            if any(b in x.batches for x in self.rows.get(key, [])):
                self.summary.batches_dropped += 1
            else:
                self.file.append([row])
                self.rows.setdefault(key, []).append(row)
                self.summary.rows_written += 1

    def problem(self, p: Problem, key: str, rule: tuple, show: Callable | None) -> None:
        """Run ``p``'s batches until its rule is met, none is left, or time is up."""
        size = p.batch_size
        assert size is not None
        t = rule[0]
        nbatches = -(-t // size)
        while self.max_seconds is None or time.monotonic() - self.start <= self.max_seconds:
            b = self.next_batch(key, nbatches, rule)
            if b is None:
                break
            self.append(key, b, _batch_row(p, key, b, min(size, t - b * size)))
            if show is not None:
                show(_progress_text(p, self.rows[key], t))
