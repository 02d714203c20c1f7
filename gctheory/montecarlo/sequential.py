"""The exact interval of a probability run stopped by ``Stop(rel_half_width=...)``.

A run that stops once its interval is narrow enough stops when its count is
high for its length, and its plain interval then covers less than stated: at
a stated 95%, with ``r = 0.5``, 93.5% of 3,000 runs (p = 0.01, one outcome per
chunk), the misses two to one on the side of a value too high. The rule is
checked at chunk boundaries ``n_1 < n_2 < ...`` and, for a binomial count,
it is met at boundary ``n_i`` exactly when the count is at least a threshold
``b_i`` (the relative half-width of the Wilson or Clopper-Pearson interval
decreases with the count): a group sequential design with boundaries
``b_i``, computed here from the very rule the engine checks (:func:`design`;
with ``events=e`` too, ``min(b_i, e)``).

The interval is the exact one for that design in the stagewise ordering
(Jennison and Turnbull 2000, ch. 8), as for ``Stop(events=e)``
(:func:`gctheory.montecarlo.stopping.events_estimate`): a run that ended at
boundary ``n_J`` with count ``k`` has
``F(p; k) = P_p(S_(n_i) < b_i for i < J, S_(n_J) <= k)``, and its limits solve
``F(low; k - 1) = 1 - alpha/2`` and ``F(high; k) = alpha/2``.
``F`` is computed exactly by a recursion over the counts below the
boundaries; only the boundaries not implied by a later, lower one matter (the
counts never decrease), so the cost grows with the largest boundary ``b``
(about ``z^2 / r^2``: 166 at 99% and ``r = 0.2``) as ``b^3``, not with the
number of chunks. The value stays ``count / n``, whose relative bias is about
``1 / b`` (inverse sampling's), far inside the interval.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["SEQUENTIAL_MAX_BOUNDARY", "design", "sequential_interval"]

#: Largest boundary (count) up to which the exact interval is computed (cost ~ b^3); beyond,
#: r is small (< 0.06 at 99%), the stopping effect on the interval is below 1/(z sqrt(b)) of
#: its half-width, and the plain interval is kept.
SEQUENTIAL_MAX_BOUNDARY = 2_000


@functools.cache
def _binom_ufuncs() -> tuple[Any, Any] | None:
    """The ufuncs behind ``scipy.stats.binom``'s pmf and cdf (imported lazily: the engine's
    import stays free of SciPy), or None where this SciPy has them elsewhere."""
    try:
        from scipy.special import _ufuncs
    except ImportError:  # pragma: no cover - a rearranged SciPy
        return None
    pmf, cdf = getattr(_ufuncs, "_binom_pmf", None), getattr(_ufuncs, "_binom_cdf", None)
    return None if pmf is None or cdf is None else (pmf, cdf)


def design(
    met: Callable[[int, int], bool], size: int, n: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """The boundaries a run of ``n`` outcomes in chunks of ``size`` passed before its last
    chunk, as ``(m, c)``: at ``m[l]`` outcomes the run went on because its count was below
    ``c[l]``; only the boundaries no later, lower one implies. None when a boundary
    exceeds :data:`SEQUENTIAL_MAX_BOUNDARY`.

    ``met(k, n_i)`` says whether the rule fires at count ``k`` after ``n_i`` outcomes; it
    must be monotone: true for larger counts and for fewer outcomes. ``L_k``, the number
    of boundaries at which count ``k`` suffices, is found by bisection, so the cost is
    ``O(b log(n / size))`` rule checks.
    """
    passed = (n - 1) // size  # boundaries before the last chunk, at size, 2 size, ...
    m: list[int] = []
    c: list[int] = []
    prev, k = 0, 0
    while prev < passed:
        if k > SEQUENTIAL_MAX_BOUNDARY:
            return None
        lo, hi = prev, passed  # count k suffices at least where count k - 1 did
        while lo < hi:
            mid = (lo + hi) // 2
            n_mid = (mid + 1) * size
            if k > n_mid or met(k, n_mid):  # a count above n_mid: no constraint there
                lo = mid + 1
            else:
                hi = mid
        if lo > prev and k <= lo * size:  # b = k from boundary prev to lo - 1
            m.append(lo * size)
            c.append(k)
        prev, k = lo, k + 1
    return np.asarray(m, dtype=np.int64), np.asarray(c, dtype=np.int64)


def _binom_pmf(k: np.ndarray, n: int, p: float) -> np.ndarray:
    """``scipy.stats.binom.pmf(k, n, p)`` for counts ``0 <= k`` and ``0 < p <= 1``, bit for bit:
    the ufunc SciPy's ``binom._pmf`` calls, on the support, clipped to [0, 1] as SciPy does,
    without the generic argument checks that cost 100 times the value (the sequential
    interval evaluates thousands of these short vectors per root search)."""
    fns = _binom_ufuncs()
    if fns is None:  # a SciPy without the private ufunc: the public, slower path
        from scipy import stats

        return np.asarray(stats.binom.pmf(k, n, p), dtype=float)
    out = np.zeros(k.shape)
    on = k <= n
    out[on] = np.clip(fns[0](k[on], n, p), 0, 1)
    return out


def _binom_cdf(k: np.ndarray, n: int, p: float) -> np.ndarray:
    """``scipy.stats.binom.cdf(k, n, p)`` for integer ``k`` and ``0 < p <= 1``, bit for bit
    (0 below the support, 1 from ``n`` on, else SciPy's ufunc clipped), as
    :func:`_binom_pmf`."""
    fns = _binom_ufuncs()
    if fns is None:
        from scipy import stats

        return np.asarray(stats.binom.cdf(k, n, p), dtype=float)
    out = np.zeros(k.shape)
    out[k >= n] = 1.0
    on = (k >= 0) & (k < n)
    out[on] = np.clip(fns[1](np.floor(k[on]), n, p), 0, 1)
    return out


def _survival_cdf(m: np.ndarray, c: np.ndarray, n: int, k: int, p: float) -> float:
    """``P_p(S_(m_l) < c_l for all l, S_n <= k)``, Bernoulli(p) partial sums ``S``."""
    if k < 0:
        return 0.0
    if len(m) == 0:
        return float(_binom_cdf(np.array([k]), n, p)[0])
    f = _binom_pmf(np.arange(c[0]), m[0], p)
    for j in range(1, len(m)):
        step = _binom_pmf(np.arange(c[j]), m[j] - m[j - 1], p)
        f = np.convolve(f, step)[: c[j]]
    t = np.arange(len(f))
    rest = _binom_cdf(k - t, n - m[-1], p)
    return float(np.dot(f, rest))


def _root(g: Callable[[float], float], lo: float, hi: float) -> float:
    """The p in (0, 1) where the decreasing ``g`` crosses 0, searched in log p."""
    from scipy import optimize  # lazy: the engine's import stays free of scipy.optimize

    a, b = math.log(max(lo, 1e-300)), math.log(min(hi, 1.0))
    while g(math.exp(a)) < 0 and a > -745:
        a = max(a - 4.0, -745.0)
    if g(math.exp(b)) > 0:
        if b >= 0.0:
            return 1.0
        while b < 0.0 and g(math.exp(b)) > 0:
            b = min(b + 2.0, 0.0)
        if g(math.exp(b)) > 0:
            return 1.0
    return math.exp(optimize.brentq(lambda x: g(math.exp(x)), a, b, xtol=1e-12, rtol=1e-12))


def sequential_interval(
    count: int,
    n: int,
    m: np.ndarray,
    c: np.ndarray,
    level: float,
    guess: tuple[float, float],
) -> tuple[float, float]:
    """Exact limits for a run that ended after ``n`` outcomes with ``count`` events, having
    gone on at ``m[l]`` outcomes because its count was below ``c[l]`` (:func:`design`).

    ``guess`` is the plain interval, where the search for each limit starts.
    """
    alpha = 1.0 - level
    lo_guess, hi_guess = guess
    bracket = (lo_guess / 2, min(1.0, 2 * hi_guess))
    low = 0.0
    if count > 0:
        low = _root(lambda p: _survival_cdf(m, c, n, count - 1, p) - (1 - alpha / 2), *bracket)
    high = 1.0
    if count < n:
        high = _root(lambda p: _survival_cdf(m, c, n, count, p) - alpha / 2, *bracket)
    return low, high
