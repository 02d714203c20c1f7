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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from gctheory._progress import Progress
from gctheory._validate import check_flag, check_path, check_real
from gctheory.montecarlo.estimates import DEFAULT_INTERVAL, check_interval, check_level
from gctheory.sweeps.problems import Problem
from gctheory.sweeps.stats import Stat, merge_rows, to_stat
from gctheory.sweeps.statsfile import LockedFile, Row

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
        est = to_stat(row, 1, level, interval).estimate
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
    if isinstance(problems, (str, bytes)) or not isinstance(problems, Iterable):
        raise ValueError(f"problems must be a sequence of Problem objects, got {problems!r:.60}")
    problems = list(problems)
    for p in problems:
        if not isinstance(p, Problem):
            raise ValueError(f"problems must be Problem objects, got {p!r:.60}")
    path = check_path(path, "path", exists=False, folder=True)
    if max_seconds is not None:
        max_seconds = check_real(max_seconds, "max_seconds", low=0.0, finite=False)
    if progress is not None:
        progress = check_flag(progress, "progress")
    rules = [_rule(p, max_trials, max_events, rel_half_width) for p in problems]
    for p, (t, e, r) in zip(problems, rules, strict=True):
        _check_int(f"{p.label}: max_trials", t, 1)
        if e is not None:
            _check_int(f"{p.label}: max_events", e, 1)
        if r is not None and not (isinstance(r, numbers.Real) and float(r) > 0):
            raise ValueError(f"{p.label}: rel_half_width must be positive, got {r!r}")
    keys = [p.key for p in problems]  # builds every code now: bad parameters fail before work
    bar = Progress(len(problems), "sweeps collect", enabled=progress)
    summary = CollectSummary()
    start = time.monotonic()
    rows: dict[str, list[Row]] = {}
    f = LockedFile(path)
    try:

        def refresh() -> None:
            for r in f.new_rows():
                rows.setdefault(r.key, []).append(r)

        for i, (p, key, (t, e, r)) in enumerate(zip(problems, keys, rules, strict=True)):
            size = p.batch_size
            assert size is not None
            nbatches = -(-t // size)
            while True:
                if max_seconds is not None and time.monotonic() - start > max_seconds:
                    break
                with f:
                    refresh()
                have = rows.get(key, [])
                merged = merge_rows(have, f"{f.path}: ") if have else None
                if _done(merged, t, e, r, level, interval):
                    break
                done = {b for row in have for b in row.batches}
                todo = (b for b in range(worker, nbatches, workers) if b not in done)
                b = next(todo, None)
                if b is None:
                    break
                n = min(size, t - b * size)
                t0 = time.perf_counter()
                out = p.run_batch(b, n)
                seconds = time.perf_counter() - t0
                if p.kind == "probability":
                    row = Row(key, (b,), n, int(out), None, None, seconds, p.seed, p.estimator,
                              p.json)  # fmt: skip
                else:
                    row = Row(key, (b,), n, None, float(out[0]), float(out[1]), seconds, p.seed,
                              p.estimator, p.json)  # fmt: skip
                with f:
                    refresh()
                    if any(b in x.batches for x in rows.get(key, [])):
                        summary.batches_dropped += 1
                    else:
                        f.append([row])
                        rows.setdefault(key, []).append(row)
                        summary.rows_written += 1
                if bar.enabled:
                    m = merge_rows(rows[key])
                    if m.events is not None:
                        got = f"{m.events} events"
                    else:
                        assert m.sum is not None, "merge_rows sums the rows of a mean"
                        got = f"mean {m.sum / m.trials:.4g}"
                    bar.update(i, f"{p.label}: {m.trials}/{t} trials, {got}")
            bar.update(i + 1)
        with f:
            refresh()
    finally:
        f.close()
        bar.close()
    summary.seconds = time.monotonic() - start
    summary.stats = [
        to_stat(merge_rows(rows[k]), len(rows[k]), level, interval) for k in dict.fromkeys(keys)
        if k in rows
    ]  # fmt: skip
    return summary
