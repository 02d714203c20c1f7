"""Workers grouped by their delay law: the groups of a heterogeneous fleet."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from gctheory._validate import check_int
from gctheory.order_stats._common import (
    MAX_WORKERS,
    _check_dist,
)

__all__ = ["WorkerGroup", "worker_groups", "is_worker_sequence"]


#: most distinct groups the numerical route convolves (each a binomial pmf per ``t``)
MAX_GROUPS = 4096


#: most support points of the exact discrete route
MAX_DISCRETE_POINTS = 10**6


@dataclass(frozen=True)
class WorkerGroup:
    """``count`` workers whose time has the frozen law ``dist``.

    Parameters
    ----------
    dist : frozen scipy.stats distribution
        The law of each worker's time.
    count : int
        How many workers share it.

    Examples
    --------
    >>> from gctheory.order_stats import WorkerGroup
    >>> from scipy import stats
    >>> from gctheory.order_stats import worker_groups
    >>> groups = worker_groups([stats.expon(scale=1.0)] * 3 + [stats.expon(scale=2.0)])
    >>> [(g.dist.kwds["scale"], g.count) for g in groups]
    [(1.0, 3), (2.0, 1)]
    """

    dist: Any
    count: int


def is_worker_sequence(obj: Any) -> bool:
    """True if ``obj`` is a sequence of per-worker laws (or ``(law, count)`` pairs),
    not one frozen law."""
    if hasattr(obj, "rvs") or isinstance(obj, (str, bytes, dict)):
        return False
    return isinstance(obj, (Sequence, np.ndarray)) or (
        hasattr(obj, "__iter__") and hasattr(obj, "__len__")
    )


def _law_key(d: Any) -> tuple:
    gen = d.dist
    extra: tuple = ()
    if hasattr(gen, "xk") and hasattr(gen, "pk"):  # rv_discrete(values=...)
        extra = (np.asarray(gen.xk).tobytes(), np.asarray(gen.pk).tobytes())
    kw = tuple(sorted((k, float(v)) for k, v in d.kwds.items()))
    return (type(gen), getattr(gen, "name", ""), tuple(float(a) for a in d.args), kw, extra)


def _is_discrete(d: Any) -> bool:
    return isinstance(getattr(d, "dist", None), stats.rv_discrete)


def _check_law(d: Any, i: int) -> None:
    inner = getattr(d, "dist", None)
    if isinstance(inner, stats.rv_discrete):
        lo, hi = (float(x) for x in d.support())
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise ValueError(
                f"dists[{i}]: a discrete law needs a finite support here (got [{lo}, {hi}]); "
                "the exact discrete route sums over the support points"
            )
        return
    try:
        _check_dist(d)
    except ValueError as exc:
        raise ValueError(f"dists[{i}]: {exc}") from None


def worker_groups(dists: Any, n: Any = None, *, name: str = "dists") -> list[WorkerGroup]:
    """The workers of ``dists`` as groups of identical laws, checked.

    ``dists`` is a sequence whose items are frozen ``scipy.stats`` laws (one worker
    each) or ``(law, count)`` pairs (``count`` workers with that law); the number of
    workers ``n`` is the total, and a given ``n`` must equal it. Identical laws (same
    family and parameters) are merged, so a list of ``10**4`` laws of two kinds is
    two groups.

    Parameters
    ----------
    dists : sequence
        Frozen ``scipy.stats`` laws (one worker each) or ``(law, count)`` pairs.
    n : int, optional
        The number of workers; if given it must equal the total count.
    name : str
        The argument name used in error messages.

    Returns
    -------
    list of WorkerGroup
        One group per distinct law, with its worker count.

    Raises
    ------
    ValueError
        An item is neither a frozen continuous law nor a ``(law, count)`` pair, a count is
        not a positive integer, or ``n`` differs from the total.

    Examples
    --------
    >>> from gctheory.order_stats import worker_groups
    >>> from scipy import stats
    >>> groups = worker_groups([(stats.expon(scale=1.0), 3), stats.expon(scale=2.0)])
    >>> [g.count for g in groups], sum(g.count for g in groups)
    ([3, 1], 4)
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be the parameter's name (a non-empty str), got {name!r:.60}")
    if not is_worker_sequence(dists):
        raise ValueError(
            f"{name} must be a sequence of frozen scipy.stats laws (one per worker) or of "
            f"(law, count) pairs, got {dists!r}"
        )
    items = list(dists)
    if not items:
        raise ValueError(f"{name} must hold at least one worker's law, got an empty sequence")
    merged: dict[tuple, WorkerGroup] = {}
    total = 0
    for i, item in enumerate(items):
        if isinstance(item, WorkerGroup):
            law, count = item.dist, item.count
        elif isinstance(item, tuple) and len(item) == 2 and not hasattr(item, "rvs"):
            law, count = item
        else:
            law, count = item, 1
        count = check_int(count, f"{name}[{i}] count", low=1, high=MAX_WORKERS)
        _check_law(law, i)
        key = _law_key(law)
        if key in merged:
            merged[key] = WorkerGroup(merged[key].dist, merged[key].count + count)
        else:
            merged[key] = WorkerGroup(law, count)
        total += count
    if n is not None:
        n = check_int(n, "n", low=1, high=MAX_WORKERS)
        if n != total:
            raise ValueError(
                f"n: {name} describes {total} workers (one law per worker, n is its length), "
                f"but n = {n}; give one law per worker or leave n out"
            )
    kinds = {_is_discrete(g.dist) for g in merged.values()}
    if len(kinds) > 1:
        raise ValueError(
            f"{name}: mixes discrete and continuous laws; give all continuous (densities) "
            "or all discrete with finite support"
        )
    return list(merged.values())
