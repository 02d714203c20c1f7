"""Monte Carlo twins of the exact order-statistic means, through :mod:`gctheory.montecarlo`.

:func:`order_statistic_mc` samples ``X_(k:n)`` and :func:`grouped_completion_mc`
the grouped completion time (Zhang and Simeone 2020, eq. (28)); where the
exact variance is infinite an :class:`UnreliableMonteCarloWarning` says the
CLT interval means nothing. Trials wider than memory are refused before drawing.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import numpy as np
from scipy import stats

from gctheory._validate import check_int, check_real
from gctheory.montecarlo import Estimate, estimate_mean
from gctheory.order_stats._common import (
    OrderStatMoments,
    UnreliableMonteCarloWarning,
    _check_dist,
    _check_kn,
)
from gctheory.order_stats.grouped import _check_grouped, grouped_completion_moments
from gctheory.order_stats.heterogeneous import (
    hetero_order_statistic_moments,
    is_worker_sequence,
    worker_groups,
)
from gctheory.order_stats.single import order_statistic_moments

__all__ = [
    "order_statistic_mc",
    "grouped_completion_mc",
]


def _pareto_params(dist: Any, rng: Any) -> tuple[float, float, float] | None:
    """``(b, loc, scale)`` of a frozen SciPy Pareto law with valid scalar parameters drawn
    from a numpy generator (the fast paths below), else ``None``."""
    gen: Any = getattr(dist, "dist", None)
    if type(gen) is stats._continuous_distns.pareto_gen and isinstance(
        rng, (np.random.Generator, np.random.RandomState)
    ):
        (b,), loc, scale = gen._parse_args(*dist.args, **dist.kwds)
        if np.ndim(b) == np.ndim(loc) == np.ndim(scale) == 0 and b > 0 and scale > 0:
            return float(b), float(loc), float(scale)
    return None


def _pareto_of(u: np.ndarray, p: tuple[float, float, float]) -> np.ndarray:
    """SciPy's Pareto variate of the uniforms ``u``: its ``_ppf``, then scale and loc."""
    b, loc, scale = p
    return pow(1 - u, -1.0 / b) * scale + loc


def _rvs(dist: Any, size: tuple[int, ...], rng: Any) -> np.ndarray:
    """``dist.rvs(size=size, random_state=rng)``, bit for bit, without SciPy's per-call
    overhead for a frozen Pareto law drawn from a numpy generator (SciPy's own recipe:
    ``U = rng.uniform(size)``, ``(1 - U) ** (-1 / b) * scale + loc``, its ``_ppf``; about
    5x faster at the atlas's sizes, where the checks dominate). Every other law, or a
    parameter SciPy would refuse, goes through ``dist.rvs``."""
    p = _pareto_params(dist, rng)
    if p is not None:
        return _pareto_of(rng.uniform(size=size), p)
    return dist.rvs(size=size, random_state=rng)


def _sample_grouped(dist: Any, groups: int, group_size: int, wait: int, rng, size: int):
    p = _pareto_params(dist, rng)
    if p is not None:
        # the same uniforms as dist.rvs; the variate is an increasing function of its
        # uniform, so the wait-th fastest worker's time is that of the wait-th smallest
        # uniform: select among the uniforms, transform one per group (the power of every
        # draw was a third of the atlas's Monte Carlo at n = 10^4; same values, tested)
        u = rng.uniform(size=(size, groups, group_size))
        part_u = np.partition(u, wait - 1, axis=2)[:, :, wait - 1]
        return _pareto_of(part_u, p).max(axis=1)
    x = _rvs(dist, (size, groups, group_size), rng)
    part = np.partition(x, wait - 1, axis=2)[:, :, wait - 1]
    return part.max(axis=1)


# a Monte Carlo trial holds every worker's time (8 bytes each) at once, and numpy's
# partition makes a copy: refuse trials wider than this many workers before drawing
_MC_MAX_WORKERS = 10**7


def _check_mc_args(trials: Any, level: Any, chunk_size: Any) -> None:
    """The engine's arguments, checked here too, so an error names this call's parameter."""
    check_int(trials, "trials", low=1)
    check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    if chunk_size is not None:
        check_int(chunk_size, "chunk_size", low=1)


def _check_mc_memory(workers: int, name: str = "n") -> None:
    if workers > _MC_MAX_WORKERS:
        raise ValueError(
            f"{name}: one Monte Carlo trial draws all {workers} worker times at once "
            f"({16 * workers / 2**30:.3g} GiB with numpy's partition copy); at most "
            f"{_MC_MAX_WORKERS} workers per trial: use the exact value instead"
        )


def groups_to_pairs(groups) -> list[tuple[Any, int]]:
    return [(g.dist, g.count) for g in groups]


def _warn_unreliable(moments) -> None:
    if not math.isfinite(moments.mean):
        warnings.warn(
            f"Monte Carlo mean of a variable with infinite mean is meaningless ({moments.reason})",
            UnreliableMonteCarloWarning,
            stacklevel=4,
        )
    elif math.isinf(moments.variance):
        warnings.warn(
            "the variance is infinite, so the Monte Carlo mean converges slowly and its CLT "
            f"interval is unreliable ({moments.reason})",
            UnreliableMonteCarloWarning,
            stacklevel=4,
        )


def _mc(dist, groups, r, wait, trials, rng, level, chunk_size, executor, moments):
    if not math.isfinite(moments.mean):
        warnings.warn(
            f"Monte Carlo mean of a variable with infinite mean is meaningless ({moments.reason})",
            UnreliableMonteCarloWarning,
            stacklevel=3,
        )
    elif math.isinf(moments.variance):
        warnings.warn(
            "the variance is infinite, so the Monte Carlo mean converges slowly and its CLT "
            f"interval is unreliable ({moments.reason})",
            UnreliableMonteCarloWarning,
            stacklevel=3,
        )
    if chunk_size is None:
        chunk_size = max(1, min(1 << 16, (1 << 22) // (groups * r)))
    sampler = functools.partial(_sample_grouped, dist, groups, r, wait)
    return estimate_mean(
        sampler, trials, rng=rng, level=level, chunk_size=chunk_size, executor=executor
    )


def _sample_hetero(groups, k: int, rng, size: int):
    x = np.concatenate(
        [np.reshape(_rvs(g.dist, (size, g.count), rng), (size, g.count)) for g in groups],
        axis=1,
    ).astype(float)
    return np.partition(x, k - 1, axis=1)[:, k - 1]


def order_statistic_mc(
    dist: Any,
    k: int,
    n: int | None = None,
    trials: int | None = None,
    *,
    rng: Any = None,
    level: float = 0.99,
    chunk_size: int | None = None,
    executor: Any = None,
) -> Estimate:
    """Monte Carlo estimate of ``E[X_(k:n)]`` (the twin of
    :func:`expected_order_statistic`), through :func:`gctheory.montecarlo.estimate_mean`.

    Draws ``trials`` samples of ``n`` i.i.d. times and takes the ``k``-th
    smallest. Where the variance of ``X_(k:n)`` is infinite (Pareto with
    ``n - k + 1 <= 2/xi``) an :class:`UnreliableMonteCarloWarning` says that
    the CLT interval is meaningless; do not assert on it there.

    ``dist`` may be a sequence of per-worker laws (or ``(law, count)`` pairs):
    the twin of the non-identical order statistic, each worker drawn from its own
    law (pass ``trials`` by keyword; ``n`` is the sequence's worker count).

    Parameters
    ----------
    dist : frozen scipy.stats distribution, or a sequence of them
        One worker's time (or per-worker laws).
    k : int
        ``1 <= k <= n``.
    n : int, optional
        Number of workers (needed with a single law).
    trials : int
        Number of Monte Carlo samples of ``X_(k:n)``.
    rng : int, numpy.random.Generator or None
        Seed or generator.
    level : float
        Confidence level of the interval.
    chunk_size : int, optional
        Samples per chunk (default: the engine's choice).
    executor : concurrent.futures.Executor, optional
        Runs chunks in parallel; results do not depend on it.

    Returns
    -------
    Estimate
        The sample mean with its confidence interval.

    Examples
    --------
    >>> from gctheory.order_stats import order_statistic_mc
    >>> from scipy import stats
    >>> est = order_statistic_mc(stats.expon(), 3, 3, 2000, rng=1)
    >>> est.contains(11 / 6)  # H_3 inside the 99% interval
    True
    >>> round(est.value, 2)
    1.85
    """
    if trials is None:
        raise ValueError("trials: the number of Monte Carlo trials is required")
    if is_worker_sequence(dist):
        groups = worker_groups(dist, n)
        nn = sum(g.count for g in groups)
        k = check_int(k, "k", low=1, high=nn)
        _check_mc_args(trials, level, chunk_size)
        _check_mc_memory(nn)
        moments = hetero_order_statistic_moments(groups_to_pairs(groups), k)
        _warn_unreliable(moments)
        if chunk_size is None:
            chunk_size = max(1, min(1 << 16, (1 << 22) // nn))
        sampler = functools.partial(_sample_hetero, groups, k)
        return estimate_mean(
            sampler, trials, rng=rng, level=level, chunk_size=chunk_size, executor=executor
        )
    if n is None:
        raise ValueError("n: the number of workers is needed with a single law (i.i.d. workers)")
    k, n = _check_kn(k, n)
    _check_dist(dist)
    _check_mc_args(trials, level, chunk_size)
    _check_mc_memory(n)
    moments = _safe_moments(dist, k, n)
    return _mc(dist, 1, n, k, trials, rng, level, chunk_size, executor, moments)


def grouped_completion_mc(
    dist: Any,
    groups: int,
    group_size: int,
    wait: int,
    trials: int,
    *,
    rng: Any = None,
    level: float = 0.99,
    chunk_size: int | None = None,
    executor: Any = None,
) -> Estimate:
    """Monte Carlo twin of :func:`expected_grouped_completion`.

    Parameters
    ----------
    dist : frozen scipy.stats distribution
        One worker's time.
    groups : int
        Number of groups.
    group_size : int
        Workers per group.
    wait : int
        Workers needed from each group.
    trials : int
        Number of Monte Carlo samples.
    rng : int, numpy.random.Generator or None
        Seed or generator.
    level : float
        Confidence level of the interval.
    chunk_size : int, optional
        Samples per chunk.
    executor : concurrent.futures.Executor, optional
        Runs chunks in parallel; results do not depend on it.

    Returns
    -------
    Estimate
        The sample mean of the completion time with its interval.

    Examples
    --------
    >>> from gctheory.order_stats import grouped_completion_mc
    >>> from scipy import stats
    >>> from gctheory.order_stats import expected_grouped_completion
    >>> est = grouped_completion_mc(stats.expon(), 2, 3, 1, 2000, rng=1)
    >>> est.contains(expected_grouped_completion(stats.expon(), 2, 3, 1))
    True
    """
    groups, r, wait = _check_grouped(groups, group_size, wait)
    _check_dist(dist)
    _check_mc_args(trials, level, chunk_size)
    _check_mc_memory(groups * r, "groups * group_size")
    moments = grouped_completion_moments(dist, groups, r, wait)
    return _mc(dist, groups, r, wait, trials, rng, level, chunk_size, executor, moments)


def _safe_moments(dist: Any, k: int, n: int) -> OrderStatMoments:
    return order_statistic_moments(dist, k, n)
