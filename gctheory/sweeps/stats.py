"""Per-problem estimates from a stats file: sums of rows, intervals from the engine."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gctheory._validate import check_path
from gctheory.montecarlo import Estimate, binomial_estimate
from gctheory.montecarlo.estimates import (
    DEFAULT_INTERVAL,
    check_interval,
    check_level,
    z_value,
)
from gctheory.sweeps.statsfile import Row, StatsFileError, read_rows

__all__ = ["Stat", "merge_rows", "read_stats"]


@dataclass(frozen=True)
class Stat:
    """Everything a stats file says about one problem (one key).

    ``estimate`` is a Clopper-Pearson (default), Wilson or Jeffreys interval for probabilities,
    the CLT interval ``mean +- z sd / sqrt(trials)`` for means.

    Parameters
    ----------
    key : str
        Hash of the exact problem.
    estimator : str
        The estimator.
    params : dict
        Its parameters.
    problem : dict
        The problem's identity.
    kind : {"probability", "mean"}
        What is estimated.
    trials : int
        Trials summed.
    events : int or None
        Events (probabilities).
    sum, sum_sq_dev : float or None
        Sum and sum of squared deviations (means).
    seconds : float
        Time spent.
    rows : int
        Rows summed.
    batches : tuple of int
        Batch indices summed.
    estimate : Estimate, optional
        The interval.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gctheory.sweeps import Stat, collect, grid, read_stats
    >>> problems = grid("ldpc-block", n=[60], eps=[0.3, 0.4], batch_size=100)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     stat = collect(problems, pathlib.Path(tmp) / "s.csv", max_trials=200).stats[0]
    >>> stat.kind, stat.trials, stat.events
    ('probability', 200, 24)
    >>> print(stat.estimate)
    0.12 [0.06797, 0.1909]
    """

    key: str
    estimator: str
    params: dict[str, Any]
    problem: dict[str, Any]
    kind: str
    trials: int
    events: int | None
    sum: float | None
    sum_sq_dev: float | None
    seconds: float
    rows: int
    batches: tuple[int, ...] = field(repr=False)
    estimate: Estimate | None = None

    @property
    def mean(self) -> float:
        return self.estimate.value if self.estimate is not None else math.nan


def merge_rows(rows: Iterable[Row], where: str = "") -> Row:
    """Sum rows of one key (Chan's formula for means, in order of their first batch).

    Two rows sharing a batch are the same samples counted twice: refused, naming both.
    """
    rows = sorted(rows, key=lambda r: r.batches[0])
    seen: dict[int, int] = {}
    for i, r in enumerate(rows):
        for b in r.batches:
            if b in seen:
                raise StatsFileError(
                    f"{where}problem {r.key[:12]}: batch {b} appears in two rows "
                    f"({rows[seen[b]].batches[0]}.. and {r.batches[0]}..): the same samples "
                    "would be counted twice"
                )
            seen[b] = i
    first = rows[0]
    trials = sum(r.trials for r in rows)
    seconds = sum(r.seconds for r in rows)
    batches = tuple(sorted(seen))
    if first.kind == "probability":
        events: int | None = sum(r.events or 0 for r in rows)
        total = m2 = None
    else:
        events = None
        n, total, m2 = 0, 0.0, 0.0
        for r in rows:
            assert r.sum is not None and r.sum_sq_dev is not None
            if n == 0:
                n, total, m2 = r.trials, r.sum, r.sum_sq_dev
                continue
            delta = r.sum / r.trials - total / n
            m2 = m2 + r.sum_sq_dev + delta * delta * n * r.trials / (n + r.trials)
            n, total = n + r.trials, total + r.sum
    return Row(
        first.key, batches, trials, events, total, m2, seconds, first.seed, first.estimator,
        first.problem,
    )  # fmt: skip


def _estimate(row: Row, level: float, interval: str) -> Estimate | None:
    if row.kind == "probability":
        assert row.events is not None
        return binomial_estimate(row.events, row.trials, level=level, interval=interval)
    if row.trials < 2:
        return None
    assert row.sum is not None and row.sum_sq_dev is not None
    mean = row.sum / row.trials
    std = math.sqrt(row.sum_sq_dev / (row.trials - 1))
    half = z_value(level) * std / math.sqrt(row.trials)
    return Estimate(mean, mean - half, mean + half, row.trials, level, None, std, "clt")


def to_stat(row: Row, rows: int, level: float = 0.99, interval: str = DEFAULT_INTERVAL) -> Stat:
    problem = json.loads(row.problem)
    return Stat(
        key=row.key,
        estimator=row.estimator,
        params=problem["params"],
        problem=problem,
        kind=row.kind,
        trials=row.trials,
        events=row.events,
        sum=row.sum,
        sum_sq_dev=row.sum_sq_dev,
        seconds=row.seconds,
        rows=rows,
        batches=row.batches,
        estimate=_estimate(row, level, interval),
    )


def group_rows(rows: Iterable[Row]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for r in rows:
        out.setdefault(r.key, []).append(r)
    return out


def read_stats(
    path: str | os.PathLike | Iterable[str | os.PathLike],
    *,
    level: float = 0.99,
    interval: str = DEFAULT_INTERVAL,
) -> list[Stat]:
    """Per-problem statistics of one stats file (or several, summed as :func:`combine` would).

    Returns one :class:`Stat` per key, in the order keys first appear. A file
    of another format, an edited or torn row, or a batch counted twice is
    refused with a ``ValueError`` naming the file and row.

    Parameters
    ----------
    path : path-like or iterable of path-like
        Stats file(s).
    level : float
        Confidence level of the intervals.
    interval : {"wilson", "clopper-pearson"}
        Interval of the probabilities.

    Returns
    -------
    list of Stat
        One per problem key.

    Raises
    ------
    ValueError
        A bad file or row, named.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gctheory.sweeps import collect, grid, read_stats
    >>> problems = grid("ldpc-block", n=[60], eps=[0.3, 0.4], batch_size=100)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp) / "s.csv"
    ...     _ = collect(problems, path, max_trials=200)
    ...     stats = read_stats(path, level=0.95)
    >>> [str(s.estimate) for s in stats]
    ['0.12 [0.07842, 0.1733]', '0.495 [0.4237, 0.5664]']
    """
    level = check_level(level)
    interval = check_interval(interval)
    if isinstance(path, (str, os.PathLike)):
        paths = [check_path(path, "path", what="stats file")]
    elif isinstance(path, Iterable):
        paths = [check_path(p, f"path[{i}]", what="stats file") for i, p in enumerate(path)]
    else:
        raise ValueError(
            f"path must be a stats file's path or a list of them, got {type(path).__name__}"
        )
    rows: list[Row] = []
    for p in paths:
        rows.extend(read_rows(p))
    where = f"{paths[0]}: " if len(paths) == 1 else ""
    return [
        to_stat(merge_rows(group, where), len(group), level, interval)
        for group in group_rows(rows).values()
    ]
