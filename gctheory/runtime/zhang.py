"""Zhang and Simeone 2020 [1]_, Section V: GD, GC, LAG, G-GD, G-LAG and LAGC compared.

Time per iteration, communication load and computation load of each scheme
(through :mod:`gctheory.order_stats`, grouped completion of eq. (28)), and the
redundancy / number of groups minimising time per iteration.

References
----------
.. [1] J. Zhang and O. Simeone, "LAGC: Lazily aggregated gradient coding
   for straggler-tolerant and communication-efficient distributed learning",
   2020 (zhang2020).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

from scipy import stats

from gctheory._names import ZHANG_SCHEMES as _ZHANG_SCHEMES
from gctheory._validate import check_choice, check_int, check_real
from gctheory.order_stats._common import _check_pos
from gctheory.order_stats.grouped import grouped_completion_moments
from gctheory.runtime._common import _check_scan, _int

__all__ = [
    "ZHANG_SCHEMES",
    "ZhangMetrics",
    "zhang_worker_dist",
    "zhang_metrics",
    "zhang_best_redundancy",
    "zhang_best_groups",
]


ZHANG_SCHEMES = _ZHANG_SCHEMES  # ("GD", "GC", "LAG", "G-GD", "G-LAG", "LAGC")


@dataclass(frozen=True)
class ZhangMetrics:
    """Per-iteration metrics of a scheme (Zhang et al. 2020, Section V).

    ``time``: expected time per iteration; ``communication``: workers that
    download plus workers that upload, per iteration; ``computation``: partial
    gradients computed per iteration. ``iterations`` is the iteration count
    used for the complexities ``time_complexity = iterations * time`` etc.

    Parameters
    ----------
    scheme : str
        The scheme.
    time : float
        Expected time per iteration.
    communication : float
        Workers that download plus upload, per iteration.
    computation : float
        Partial gradients computed per iteration.
    iterations : float
        Iteration count for the complexities.

    Examples
    --------
    >>> from gctheory.runtime import ZhangMetrics, zhang_metrics
    >>> m = zhang_metrics("GC", 12, r=3, iterations=100)
    >>> round(m.time, 4), m.communication, m.computation, round(m.time_complexity, 2)
    (4.8096, 22, 36, 480.96)
    """

    scheme: str
    time: float
    communication: float
    computation: float
    iterations: float

    @property
    def time_complexity(self) -> float:
        return self.iterations * self.time

    @property
    def communication_complexity(self) -> float:
        return self.iterations * self.communication

    @property
    def computation_complexity(self) -> float:
        return self.iterations * self.computation


def zhang_worker_dist(model: str, r: int, *, theta: float = 1.0, shape: float = 2.0) -> Any:
    """Computing time of a worker with storage redundancy ``r`` (Zhang et al. 2020, Sec. II).

    Its mean is proportional to ``r``: ``exponential`` has mean ``r * theta``;
    ``pareto`` has scale ``r * theta`` and shape ``shape`` (CDF ``1 - (r
    theta/t)^shape``). The paper's constants are lost from our copy; this is
    the proportional-to-load reading of its Section II.

    Parameters
    ----------
    model : {"exponential", "pareto"}
        The law.
    r : int
        Storage redundancy.
    theta : float
        Scale per unit of redundancy.
    shape : float
        Pareto shape.

    Returns
    -------
    frozen scipy.stats distribution
        The worker's computing time.

    Examples
    --------
    >>> from gctheory.runtime import zhang_worker_dist
    >>> round(float(zhang_worker_dist("exponential", 3).mean()), 6)
    3.0
    """
    r = _int("r", r)
    theta = _check_pos("theta", theta)
    if not math.isfinite(r * theta):
        raise ValueError(f"theta: the scale r * theta = {r} * {theta:g} overflows float64")
    if shape is not None:  # checked for the exponential model too, which does not read it
        shape = _check_pos("shape", shape)
    if model == "exponential":
        return stats.expon(scale=r * theta)
    if model == "pareto":
        return stats.pareto(_check_pos("shape", shape), scale=r * theta)
    raise ValueError(f"model must be 'exponential' or 'pareto', got {model!r}")


def _worker_dist(model: str, r: int, theta: float, shape: float) -> Any:
    """:func:`zhang_worker_dist`, one frozen law per argument tuple for the metrics below,
    which only read it: scipy builds a frozen law's docstring on every call (0.7 ms; the
    quick paper checks asked for 7,500 of them). Unhashable arguments are not cached (the
    uncached call gives its own error)."""
    try:
        return _worker_dist_cached(model, r, theta, shape)
    except TypeError:
        return zhang_worker_dist(model, r, theta=theta, shape=shape)


@functools.lru_cache(maxsize=256, typed=True)  # typed: True is not taken for 1
def _worker_dist_cached(model: str, r: int, theta: float, shape: float) -> Any:
    return zhang_worker_dist(model, r, theta=theta, shape=shape)


#: largest n whose divisors :func:`zhang_best_redundancy` looks for (a second or so)
_MAX_DIVISOR_SCAN = 10**7


def _selected(rho: float, count: int) -> int:
    rho = check_real(rho, "rho (the selection fraction)", low=0.0, high=1.0, low_open=True)
    return max(1, round(rho * count))


def zhang_metrics(
    scheme: str,
    n: int,
    r: int = 1,
    *,
    model: str = "exponential",
    theta: float = 1.0,
    shape: float = 2.0,
    rho: float = 1.0,
    groups: int | None = None,
    iterations: float = 1.0,
    lag_iterations: float | None = None,
) -> ZhangMetrics:
    """Time per iteration, communication and computation of a scheme of Zhang et al. 2020.

    Parameters
    ----------
    scheme : {"GD", "GC", "LAG", "G-GD", "G-LAG", "LAGC"}
    n : int
        Workers.
    r : int
        Storage redundancy (``r = 1`` for GD and LAG).
    model, theta, shape
        Worker time, see :func:`zhang_worker_dist` (mean proportional to ``r``).
    rho : float
        Fraction of workers (LAG) or groups (G-LAG, LAGC) selected per
        iteration by the lazy rule, in (0, 1]; the paper bounds it through
        its eq. (26)/(30); here it is a parameter (or measured by a simulation).
    groups : int
        Number of groups ``G`` for LAGC (``G | n``, ``r <= n/G``). G-GD/G-LAG use
        ``G = n/r`` groups of ``r`` workers each storing the group's data.
    iterations, lag_iterations : float
        Iteration complexity of GD/GC/G-GD and of LAG/G-LAG/LAGC (default: equal,
        "the same scaling", eqs. (19)-(20)).

    Returns
    -------
    ZhangMetrics
        Time per iteration, communication and computation (and their complexities).

    Notes
    -----
    Times: GD ``E[X_(n:n)]``; GC ``E[X_(n-r+1:n)]`` (any ``n-r+1`` of ``n``);
    LAG ``E[X_(M:M)]``, ``M = round(rho n)``; G-GD ``E[max_g min_{i in g}
    X_i]`` (eq. (28)); G-LAG the same over ``round(rho G)`` groups; LAGC the
    maximum over ``round(rho G)`` groups of the ``(n/G - r + 1)``-th of
    ``n/G``. Communication = downloads + uploads; computation = ``r`` partial
    gradients per active worker.

    Examples
    --------
    >>> from gctheory.runtime import zhang_metrics
    >>> for scheme in ("GD", "GC", "G-GD"):
    ...     print(scheme, round(zhang_metrics(scheme, 12, r=3).time, 4))
    GD 3.1032
    GC 4.8096
    G-GD 2.0833
    """
    n = _int("n", n)
    r = _int("r", r)
    if r > n:
        raise ValueError(f"r must be <= n = {n}, got {r}")
    # every argument given is checked, used by the scheme or not: iterations=-1.0 was
    # echoed into GC's metrics and rho=7 accepted for GD
    check_choice(scheme, "scheme", ZHANG_SCHEMES)
    _check_pos("theta", theta)
    if shape is not None:  # read by the Pareto model only (the CLI passes None otherwise)
        _check_pos("shape", shape)
    check_real(iterations, "iterations", low=0.0, low_open=True)
    if lag_iterations is not None:
        check_real(lag_iterations, "lag_iterations", low=0.0, low_open=True)
    _selected(rho, 1)
    if groups is not None:
        _int("groups", groups)
    lag_it = iterations if lag_iterations is None else lag_iterations
    d1 = _worker_dist(model, 1, theta, shape)
    dr = _worker_dist(model, r, theta, shape)

    def grouped(dist, g, size, wait):
        return grouped_completion_moments(dist, g, size, wait).mean

    if scheme == "GD":
        return ZhangMetrics(scheme, grouped(d1, 1, n, n), 2 * n, n, iterations)
    if scheme == "GC":
        f = n - r + 1
        return ZhangMetrics(scheme, grouped(dr, 1, n, f), n + f, n * r, iterations)
    if scheme == "LAG":
        M = _selected(rho, n)
        return ZhangMetrics(scheme, grouped(d1, 1, M, M), 2 * M, M, lag_it)
    if scheme in ("G-GD", "G-LAG"):
        if n % r:
            raise ValueError(f"{scheme} needs r | n (groups of r workers), got r = {r}, n = {n}")
        G = n // r
        S = G if scheme == "G-GD" else _selected(rho, G)
        it = iterations if scheme == "G-GD" else lag_it
        return ZhangMetrics(scheme, grouped(dr, S, r, 1), S * r + S, S * r * r, it)
    if scheme == "LAGC":
        if groups is None:
            raise ValueError("LAGC needs groups=G (a divisor of n)")
        G = _int("groups", groups)
        if n % G:
            raise ValueError(f"groups must divide n = {n}, got {G}")
        size = n // G
        if r > size:
            raise ValueError(f"LAGC needs r <= n/G = {size}, got r = {r}")
        S = _selected(rho, G)
        f = size - r + 1
        return ZhangMetrics(scheme, grouped(dr, S, size, f), S * size + S * f, S * size * r, lag_it)
    raise ValueError(f"scheme must be one of {ZHANG_SCHEMES}, got {scheme!r}")


def zhang_best_redundancy(
    scheme: str,
    n: int,
    *,
    model: str = "exponential",
    theta: float = 1.0,
    shape: float = 2.0,
    rho: float = 1.0,
) -> tuple[int, dict[int, float]]:
    """The redundancy ``r`` (for G-GD/G-LAG: group size, ``r | n``) minimising
    time per iteration of ``scheme`` (GC, G-GD or G-LAG), with all times.

    Parameters
    ----------
    scheme : {"GC", "G-GD", "G-LAG"}
        The scheme.
    n : int
        Workers.
    model : {"exponential", "pareto"}
        Law of a worker's computing time.
    theta : float
        Its scale per unit of redundancy.
    shape : float
        Pareto shape.
    rho : float
        Communication-to-computation ratio of the paper's model.

    Returns
    -------
    tuple
        ``(r*, {r: time})``.

    Examples
    --------
    >>> from gctheory.runtime import zhang_best_redundancy
    >>> r, times = zhang_best_redundancy("GC", 12)
    >>> r, round(times[r], 4)
    (12, 1.0)
    """
    n = _int("n", n)
    check_choice(scheme, "scheme", ("GC", "G-GD", "G-LAG"))
    zhang_worker_dist(model, 1, theta=theta, shape=shape)  # validates model, theta
    if shape is not None:  # also for the exponential model, which does not read it
        _check_pos("shape", shape)
    _selected(rho, n)
    if scheme == "GC":
        _check_scan("n", n, None, "zhang_best_redundancy('GC')")
    elif n > _MAX_DIVISOR_SCAN:  # the divisors of n = 10**18 were searched for ever
        raise ValueError(
            f"n must be <= {_MAX_DIVISOR_SCAN} here, got {n}: zhang_best_redundancy("
            f"{scheme!r}) scans the n candidate group sizes for divisors of n"
        )
    candidates = [r for r in range(1, n + 1) if scheme == "GC" or n % r == 0]
    times = {}
    for r in candidates:
        t = zhang_metrics(scheme, n, r, model=model, theta=theta, shape=shape, rho=rho).time
        if math.isfinite(t):
            times[r] = t
    if not times:
        raise ValueError(
            f"shape: every redundancy r gives an infinite expected time for {scheme} with "
            f"n = {n}, {model} shape = {shape:g} (the Pareto mean needs shape > 1)"
        )
    return min(times, key=lambda k: times[k]), times


def _divisors(n: int) -> list[int]:
    """Divisors of ``n`` in increasing order, in ``O(sqrt(n))``."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return small + [n // d for d in reversed(small) if d * d != n]


def zhang_best_groups(
    n: int,
    r: int,
    *,
    model: str = "exponential",
    theta: float = 1.0,
    shape: float = 2.0,
    rho: float = 1.0,
) -> tuple[int, dict[int, float]]:
    """The number of groups ``G`` (``G | n``, ``r <= n/G``) minimising LAGC's time
    per iteration (Zhang et al. 2020, Section IV), with the time for every valid ``G``.

    Parameters
    ----------
    n : int
        Workers.
    r : int
        Redundancy per group.
    model : {"exponential", "pareto"}
        Law of a worker's computing time.
    theta : float
        Its scale per unit of redundancy.
    shape : float
        Pareto shape.
    rho : float
        Communication-to-computation ratio of the paper's model.

    Returns
    -------
    tuple
        ``(G*, {G: time})``.

    Examples
    --------
    >>> from gctheory.runtime import zhang_best_groups
    >>> G, times = zhang_best_groups(12, 2)
    >>> G, sorted(times)
    (6, [1, 2, 3, 4, 6])
    """
    n, r = check_int(n, "n", low=1, high=10**10), _int("r", r)  # divisors in O(sqrt(n))
    if r > n:
        raise ValueError(f"r must be <= n = {n}, got {r}")
    zhang_worker_dist(model, 1, theta=theta, shape=shape)  # validates model, theta, shape
    _selected(rho, n)
    times = {}
    for G in _divisors(n):
        if r > n // G:
            continue
        t = zhang_metrics(
            "LAGC", n, r, model=model, theta=theta, shape=shape, rho=rho, groups=G
        ).time
        if math.isfinite(t):
            times[G] = t
    if not times:
        raise ValueError(f"no valid number of groups for n = {n}, r = {r}")
    return min(times, key=lambda k: times[k]), times
