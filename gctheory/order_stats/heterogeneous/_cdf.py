"""The distribution function of the k-th order statistic of non-identical workers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import special

from gctheory._validate import check_array, check_int
from gctheory.order_stats._common import (
    MAX_WORKERS,
    _check_dist,
)
from gctheory.order_stats.heterogeneous._groups import is_worker_sequence, worker_groups

__all__ = ["order_statistic_cdf"]


# ---------------------------------------------------------------------------
# the count N(t) = sum_g Bin(n_g, F_g(t))


class _Counts:
    """``P(N >= k)`` and ``P(N < k)`` for ``N = sum_g Bin(n_g, F_g)``, each computed
    directly (not as one minus the other, so a tiny tail keeps its relative
    precision). Binomial pmfs from log-gamma tables made once per group (scipy's
    ``binom`` overflows at extreme ``p`` and costs ~100 us a call); the last,
    largest group enters by its cumulative sums, so two groups cost ``O(n)``."""

    def __init__(self, counts: Sequence[int]) -> None:
        self.order = sorted(range(len(counts)), key=lambda g: counts[g])
        self.counts = list(counts)
        self.logc = {}
        self.j = {}
        for c in set(counts):
            j = np.arange(c + 1, dtype=float)
            self.j[c] = j
            self.logc[c] = (
                special.gammaln(c + 1) - special.gammaln(j + 1) - special.gammaln(c - j + 1)
            )

    def pmf(self, c: int, p: float, q: float | None = None) -> np.ndarray:
        """``Bin(c, p)``; ``q`` is ``1 - p`` computed directly (a survival function): near
        ``p = 1`` it keeps the relative precision ``1 - p`` would lose (the tail of a
        heavy-tailed order statistic lives there)."""
        q = 1.0 - p if q is None else q
        if p <= 0.0 or q <= 0.0:
            return _point(c, 0.0 if p <= 0.0 else 1.0)
        j = self.j[c]
        lq = math.log(q) if q < 0.5 else math.log1p(-p)
        lp = math.log(p) if p < 0.5 else math.log1p(-q)
        return np.exp(self.logc[c] + j * lp + (c - j) * lq)

    def probs(
        self, F: Sequence[float], k: int, S: Sequence[float] | None = None
    ) -> tuple[float, float]:
        """``(P(N >= k), P(N < k))`` with ``F`` each group's success probability and
        ``S`` (optional) its complement computed directly."""

        def pmf(g: int) -> np.ndarray:
            p = min(max(F[g], 0.0), 1.0)
            q = None if S is None else min(max(S[g], 0.0), 1.0)
            return self.pmf(self.counts[g], p, q)

        rest = np.ones(1)
        for g in self.order[:-1]:
            rest = np.convolve(rest, pmf(g))
        last = self.order[-1]
        c = self.counts[last]
        pm = pmf(last)
        low = np.cumsum(pm)  # P(B <= i)
        high = np.cumsum(pm[::-1])[::-1]  # P(B >= i)
        i = k - np.arange(rest.size)  # B must be >= i for N >= k
        ge = np.where(i <= 0, 1.0, high[np.clip(i, 0, c)])
        ge = np.where(i > c, 0.0, ge)
        lt_idx = i - 1  # B <= i - 1 for N < k
        lt = np.where(lt_idx < 0, 0.0, low[np.clip(lt_idx, 0, c)])
        return float(rest @ ge), float(rest @ lt)


def _point(c: int, p: float) -> np.ndarray:
    out = np.zeros(c + 1)
    out[c if p >= 1 else 0] = 1.0
    return out


class _FastLaw:
    """A law's scalar CDF and survival function (closed forms where
    :func:`gctheory.order_stats.quadrature._scalar_cdf_sf` has them)."""

    def __init__(self, F, S) -> None:
        self.cdf, self.sf = F, S


def _hetero_cdf_sf(
    groups: Sequence[Any], k: int, t: float, counts: _Counts | None = None
) -> tuple[float, float]:
    """``(P(X_(k) <= t), P(X_(k) > t))``; ``groups`` are WorkerGroups or, with
    ``counts`` given, anything with ``cdf``/``sf`` in the same order."""
    if counts is None:
        counts = _Counts([g.count for g in groups])
        groups = [g.dist for g in groups]
    F = [float(g.cdf(t)) for g in groups]
    S = [float(g.sf(t)) for g in groups]
    # count the finished workers where k is small, the unfinished ones where k is large
    n = sum(counts.counts)
    if k <= n - k + 1:
        return counts.probs(F, k, S)
    # X_(k) <= t  iff  fewer than n - k + 1 workers are still running at t
    m = n - k + 1
    lt, ge = counts.probs(S, m, F)  # P(U >= m) = P(X_(k) > t), P(U < m) = P(X_(k) <= t)
    return ge, lt


def _check_t(t: Any) -> np.ndarray:
    """Times as a float array: NaN and booleans refused (``True`` is not time 1), infinities
    kept (the CDF there is 0 or 1)."""
    tt = check_array(t, "t", finite=False, bools=False, min_size=0)
    if np.isnan(tt).any():
        raise ValueError("t must hold times (real numbers or +-inf), got NaN")
    return tt


def order_statistic_cdf(dist: Any, k: Any, t: Any, n: Any = None) -> float | np.ndarray:
    """``P(X_(k) <= t)`` for the ``k``-th fastest of ``n`` independent workers.

    ``dist`` is one frozen law (then ``n`` i.i.d. workers: ``I_{F(t)}(k, n-k+1)``)
    or a sequence of per-worker laws / ``(law, count)`` pairs (then ``n`` is its
    length and may be left out): the Poisson-binomial form of the module docstring,
    one convolution of the groups' binomial vectors per ``t``. ``t`` may be an array.

    Parameters
    ----------
    dist : frozen scipy.stats distribution, or a sequence
        One law for ``n`` i.i.d. workers, or per-worker laws / ``(law, count)`` pairs.
    k : int
        Which order statistic, ``1 <= k <= n``.
    t : float or array_like
        The time(s) at which to evaluate the CDF.
    n : int, optional
        The number of workers; needed with a single law.

    Returns
    -------
    float or numpy.ndarray
        ``P(X_(k) <= t)``, with the shape of ``t``.

    Examples
    --------
    >>> from gctheory.order_stats import order_statistic_cdf
    >>> from scipy import stats
    >>> round(float(order_statistic_cdf(stats.expon(), 3, 1.0, n=3)), 6)  # (1 - e^-1)^3
    0.25258
    >>> laws = [stats.expon(scale=1.0), stats.expon(scale=2.0)]
    >>> [round(float(p), 4) for p in order_statistic_cdf(laws, 1, [0.5, 1.0])]
    [0.5276, 0.7769]
    """
    if is_worker_sequence(dist):
        groups = worker_groups(dist, n)
        nn = sum(g.count for g in groups)
        k = check_int(k, "k", low=1, high=nn)
        tt = _check_t(t)
        cnt = _Counts([g.count for g in groups])
        laws = [g.dist for g in groups]
        out = np.array([_hetero_cdf_sf(laws, k, float(x), cnt)[0] for x in tt.ravel()])
        return float(out[0]) if tt.ndim == 0 else out.reshape(tt.shape)
    if n is None:
        raise ValueError("n: the number of workers is needed with a single law (i.i.d. workers)")
    n = check_int(n, "n", low=1, high=MAX_WORKERS)
    k = check_int(k, "k", low=1, high=n)
    _check_dist(dist)
    tt = _check_t(t)
    out = special.betainc(k, n - k + 1, dist.cdf(tt))
    return float(out) if tt.ndim == 0 else out
