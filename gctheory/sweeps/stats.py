"""Per-problem estimates from a stats file: sums of rows, intervals from the engine."""

from __future__ import annotations

import json
import math
import os
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gctheory._validate import check_path
from gctheory.montecarlo import Estimate, binomial_estimate
from gctheory.montecarlo.estimates import (
    DEFAULT_INTERVAL,
    Diagnostics,
    UnreliableEstimateWarning,
    check_interval,
    check_level,
    z_value,
)
from gctheory.montecarlo.summaries import Moments, mean_estimate
from gctheory.sweeps.statsfile import FORMAT_V1, Higher, Row, StatsFileError, read_rows

__all__ = ["Stat", "merge_rows", "read_stats"]


@dataclass(frozen=True)
class Stat:
    """Everything a stats file says about one problem (one key).

    ``estimate`` is a Clopper-Pearson (default), Wilson or Jeffreys interval for probabilities;
    for means, the interval of :func:`gctheory.montecarlo.estimate_mean` (Hall's
    skewness-corrected interval, with its warnings: too few draws, a large kurtosis, a heavy
    tail) from the rows' merged moments; rows read from a ``gctheory-stats/1`` file hold no
    third and fourth moment sums, and their mean gets the normal interval
    ``mean +- z sd / sqrt(trials)`` with an
    :class:`~gctheory.montecarlo.UnreliableEstimateWarning` that says so.

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
    sum_cube_dev, sum_quart_dev : float or None
        Sums of cubed and fourth-power deviations (means; None from a
        ``gctheory-stats/1`` file).
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
    sum_cube_dev: float | None = None
    sum_quart_dev: float | None = None

    @property
    def mean(self) -> float:
        return self.estimate.value if self.estimate is not None else math.nan


def _moments(row: Row) -> Moments | None:
    """A mean row as the engine's sample summary (None: it holds no higher sums)."""
    h = row.higher
    if h is None or row.sum is None or row.sum_sq_dev is None:
        return None
    mean = row.sum / row.trials
    return Moments(row.trials, mean, row.sum_sq_dev, h.lo, h.hi, h.top, h.m3, h.m4)


def _pairwise(parts: list[Moments]) -> Moments:
    """Merge summaries by a balanced tree (Chan et al.'s pairwise scheme, Pebay's formulas
    for the third and fourth sums): rounding grows with the depth, log2 of the parts."""
    while len(parts) > 1:
        parts = [a.merge(b) for a, b in zip(parts[::2], parts[1::2], strict=False)] + (
            [parts[-1]] if len(parts) % 2 else []
        )
    return parts[0]


def _merge_means(rows: list[Row]) -> tuple[float, float, Higher | None]:
    """The sum, sum of squared deviations and higher sums of mean rows (in batch order)."""
    parts = [_moments(r) for r in rows]
    if all(p is not None for p in parts):
        m = _pairwise([p for p in parts if p is not None])
        return sum(r.sum or 0.0 for r in rows), m.m2, Higher(m.m3, m.m4, m.lo, m.hi, m.top)
    n, total, m2 = 0, 0.0, 0.0  # a gctheory-stats/1 row among them: no higher sums
    for r in rows:
        assert r.sum is not None and r.sum_sq_dev is not None
        if n == 0:
            n, total, m2 = r.trials, r.sum, r.sum_sq_dev
            continue
        delta = r.sum / r.trials - total / n
        m2 = m2 + r.sum_sq_dev + delta * delta * n * r.trials / (n + r.trials)
        n, total = n + r.trials, total + r.sum
    return total, m2, None


def merge_rows(rows: Iterable[Row], where: str = "") -> Row:
    """Sum rows of one key (means: Chan's and Pebay's formulas, pairwise in batch order).

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
    total: float | None = None
    m2: float | None = None
    higher = None
    if first.kind == "probability":
        events: int | None = sum(r.events or 0 for r in rows)
    else:
        events = None
        total, m2, higher = _merge_means(rows)
    return Row(
        first.key, batches, trials, events, total, m2, seconds, first.seed, first.estimator,
        first.problem, higher,
    )  # fmt: skip


def _normal_estimate(row: Row, level: float, warn: bool) -> Estimate:
    """The normal interval of a mean whose rows hold no higher sums (a gctheory-stats/1
    file), with the warning that says so."""
    assert row.sum is not None and row.sum_sq_dev is not None
    mean = row.sum / row.trials
    std = math.sqrt(row.sum_sq_dev / (row.trials - 1))
    half = z_value(level) * std / math.sqrt(row.trials)
    msg = (
        f"problem {row.key[:12]}: rows from a {FORMAT_V1!r} stats file hold no third and "
        "fourth moment sums, so the combined mean gets the normal interval, which covers "
        f"less than the stated {100 * level:g}% on skewed laws; collect into a new file "
        "for the skewness-corrected (Hall) interval"
    )
    if warn:
        warnings.warn(msg, UnreliableEstimateWarning, stacklevel=4)
    diag = Diagnostics(messages=(msg,))
    return Estimate(mean, mean - half, mean + half, row.trials, level, None, std, "clt",
                    diagnostics=diag)  # fmt: skip


def _estimate(row: Row, level: float, interval: str, warn: bool = True) -> Estimate | None:
    if row.kind == "probability":
        assert row.events is not None
        return binomial_estimate(row.events, row.trials, level=level, interval=interval)
    if row.trials < 2:
        return None
    m = _moments(row)
    if m is None:
        return _normal_estimate(row, level, warn)
    return mean_estimate(m, level, warn=warn)


def to_stat(
    row: Row, rows: int, level: float = 0.99, interval: str = DEFAULT_INTERVAL, warn: bool = True
) -> Stat:
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
        estimate=_estimate(row, level, interval, warn),
        sum_cube_dev=row.higher.m3 if row.higher is not None else None,
        sum_quart_dev=row.higher.m4 if row.higher is not None else None,
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
