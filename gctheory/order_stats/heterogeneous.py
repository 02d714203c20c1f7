"""Order statistics of independent, non-identically distributed worker times.

A master that waits for the fastest ``k`` of ``n`` workers whose times ``X_1..X_n``
are independent but each with its own law waits for ``X_(k)``, with

    P(X_(k) <= t) = P(N(t) >= k),   N(t) = sum_i 1{X_i <= t},

``N(t)`` a Poisson-binomial count of the per-worker CDFs ``F_i(t)`` (the product form
of the order statistic of non-identical variables; Balakrishnan 2007, "Permanents,
order statistics, outliers and robustness", eq. (2.1), written as a count). Workers
with identical laws form a *group* of ``n_g`` workers, and ``N(t)`` is then a sum of
``G`` independent binomials ``Bin(n_g, F_g(t))``:

* **groups, not workers**: the law of ``N(t)`` is the convolution of ``G`` binomial
  probability vectors; with two groups it is a dot product of one binomial pmf with
  the other's CDF (``O(n)`` per ``t``), with ``n`` distinct workers ``O(n^2)`` per
  ``t`` (a Poisson-binomial DP). Identical frozen laws are merged into groups
  automatically, so ``[law_a] * 5000 + [law_b] * 5000`` costs two groups;
* **exponential groups with a common shift, exactly** (``method="closed"``): the
  workers still running form a continuous-time Markov chain on the done-counts
  ``(j_1, j_2)``; the time in a state is exponential with rate
  ``sum_g (n_g - j_g)/mu_g``, so the mean and variance of ``X_(k)`` are sums over
  the states with ``j_1 + j_2 < k`` of positive terms (no alternating sums, no
  cancellation). One or two groups; cost ``O(k min(n_1, n_2))``;
* **anything else, numerically**: the mean ``E[X_(k)] = c + int_c^hi P(X_(k) > t) dt
  - int_lo^c P(X_(k) <= t) dt`` and the second moment by adaptive Gauss-Kronrod
  (``scipy.integrate.quad``, relative and absolute tolerance 1.5e-8 per segment,
  the segments cut at quantiles of ``X_(k)``), the route of
  :mod:`gctheory.order_stats.quadrature`; a quadrature that fails to converge is
  reported as ``inf`` with the reason, never as a number;
* **discrete laws with finite support, exactly**: a sum over the support points.

An infinite mean is said, with its reason: the survival function of ``X_(k)`` decays
like ``t^-(a_1 + ... + a_m)`` where ``a_1 <= ... <= a_m`` are the ``m = n - k + 1``
smallest tail indices of the workers (Pareto ``xi``; light tails have ``inf``), so the
mean is infinite iff that sum is ``<= 1`` (variance: ``<= 2``), as for i.i.d. Pareto
(``m xi <= 1``).

When every worker has the same law the functions return exactly the i.i.d. values
of :func:`gctheory.order_stats.order_statistic_moments` (same code path).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize, special, stats

from gctheory._validate import check_array, check_int
from gctheory.order_stats._common import (
    MAX_WORKERS,
    OrderStatMoments,
    _check_dist,
    _family,
)
from gctheory.order_stats.closed_forms import _exponential_moments, _pareto_moments
from gctheory.order_stats.quadrature import (
    _check_support,
    _quad_moments,
    _quad_order_stat,
    _scalar_cdf_sf,
)

__all__ = [
    "WorkerGroup",
    "worker_groups",
    "is_worker_sequence",
    "hetero_order_statistic_moments",
    "order_statistic_cdf",
]

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


# ---------------------------------------------------------------------------
# tails


_ALGEBRAIC = {"pareto": 0, "lomax": 0, "fisk": 0, "invweibull": 0, "burr12": None}


def _tail_index_of(d: Any) -> float | None:
    """The ``a`` of ``P(X > t) ~ t^-a`` for the algebraic-tail families gctheory knows;
    ``inf`` for a bounded support; None when unknown (then the quadrature decides)."""
    name = getattr(d.dist, "name", "")
    shapes = d.dist._parse_args(*d.args, **d.kwds)[0]
    hi = float(d.support()[1])
    if np.isfinite(hi):
        return math.inf
    if name in ("pareto", "lomax", "fisk", "invweibull"):
        return float(shapes[0])
    if name == "burr12":
        return float(shapes[0] * shapes[1])
    if name == "halfcauchy" or name == "cauchy":
        return 1.0
    if name == "genpareto":
        c = float(shapes[0])
        return 1.0 / c if c > 0 else math.inf
    if name in ("expon", "gamma", "weibull_min", "norm", "halfnorm", "erlang", "rayleigh"):
        return math.inf
    if name == "lognorm":
        return math.inf  # subexponential but every moment is finite
    return None


def _infinite_moment_reason(groups: Sequence[WorkerGroup], k: int) -> tuple[bool, bool, str]:
    """``(mean_infinite, variance_infinite, reason)`` from the workers' tail indices."""
    n = sum(g.count for g in groups)
    m = n - k + 1
    idx = []
    for g in groups:
        a = _tail_index_of(g.dist)
        if a is None:
            return False, False, ""
        idx.append((a, g.count))
    idx.sort()
    total, left = 0.0, m
    for a, c in idx:
        take = min(c, left)
        total += a * take
        left -= take
        if left == 0 or math.isinf(total):
            break
    if total <= 1:
        return (
            True,
            True,
            (
                f"the mean of the {k}-th fastest of these {n} workers is infinite: P(X_(k) > t) "
                f"decays like t^-{total:.6g}, the sum of the n - k + 1 = {m} smallest tail indices "
                "of the workers' laws, and it must exceed 1"
            ),
        )
    if total <= 2:
        return (
            False,
            True,
            (
                f"the variance of the {k}-th fastest of these {n} workers is infinite: the sum of "
                f"the n - k + 1 = {m} smallest tail indices is {total:.6g} <= 2"
            ),
        )
    return False, False, ""


# ---------------------------------------------------------------------------
# the exact routes


def _exp_groups_dp(mu1: float, n1: int, mu2: float, n2: int, k: int) -> tuple[float, float]:
    """Mean and variance of the time until ``k`` of ``n1`` Exp(mean mu1) and ``n2``
    Exp(mean mu2) workers have finished: the chain of done-counts (module docstring),
    level by level (level ``m`` = ``m`` workers done, states ``j1`` done in group 1).
    ``T = sum`` of the holding times along the path; tracked per state: ``P``,
    ``E[S 1]``, ``E[S^2 1]`` (``S`` = sum of the mean holding times) and ``E[V 1]``
    (``V`` = sum of their squares), so ``Var T = E V + Var S``. Only the states of a
    level are touched: ``O(k min(n1, n2))`` in all."""
    if n1 > n2:
        mu1, n1, mu2, n2 = mu2, n2, mu1, n1
    lam1, lam2 = 1.0 / mu1, 1.0 / mu2
    # level m: j1 in [lo, hi] = [max(0, m - n2), min(m, n1)]
    P = np.ones(1)
    A = np.zeros(1)
    B = np.zeros(1)
    V = np.zeros(1)
    lo = 0
    for m in range(k):
        hi = lo + P.size - 1
        j1 = np.arange(lo, hi + 1, dtype=float)
        r1 = (n1 - j1) * lam1
        r2 = (n2 - (m - j1)) * lam2
        h = 1.0 / (r1 + r2)
        q1 = r1 * h
        q2 = r2 * h
        hP = h * P
        B += h * (2.0 * A + hP)
        V += h * hP
        A += hP
        # next level: j1 stays (group 2 finished one) or j1 + 1 (group 1 did)
        nlo, nhi = max(0, m + 1 - n2), min(m + 1, n1)
        out = []
        for X in (P, A, B, V):
            Y = np.zeros(nhi - nlo + 1)
            # stay: index j1 -> j1 (valid if m + 1 - j1 <= n2, i.e. j1 >= nlo)
            s0 = max(lo, nlo)
            Y[s0 - nlo : hi - nlo + 1] += (q2 * X)[s0 - lo :]
            # move: j1 -> j1 + 1 (valid if j1 + 1 <= n1)
            e1 = min(hi, nhi - 1)
            if e1 >= lo:
                Y[lo + 1 - nlo : e1 + 2 - nlo] += (q1 * X)[: e1 - lo + 1]
            out.append(Y)
        P, A, B, V = out
        lo = nlo
    mean = float(A.sum())
    var = float(V.sum() + max(B.sum() - mean * mean, 0.0))
    return mean, var


def _discrete_moments(groups: Sequence[WorkerGroup], k: int) -> OrderStatMoments:
    pts: set[float] = set()
    for g in groups:
        gen = g.dist.dist
        if hasattr(gen, "xk"):
            shapes, loc = g.dist.dist._parse_args(*g.dist.args, **g.dist.kwds)[:2]
            xs = np.asarray(gen.xk, dtype=float) + float(loc)
        else:
            lo, hi = (float(x) for x in g.dist.support())
            if hi - lo + 1 > MAX_DISCRETE_POINTS:
                raise ValueError(
                    f"dists: a discrete law with {hi - lo + 1:.0f} support points; at most "
                    f"{MAX_DISCRETE_POINTS} for the exact sum"
                )
            xs = np.arange(lo, hi + 1)
        xs = xs[g.dist.pmf(xs) > 0]
        pts.update(float(x) for x in xs)
    grid = np.array(sorted(pts))
    cnt = _Counts([g.count for g in groups])
    laws = [g.dist for g in groups]
    cdf = np.array([_hetero_cdf_sf(laws, k, float(x), cnt)[0] for x in grid])
    w = np.diff(np.concatenate([[0.0], cdf]))
    mean = float(w @ grid)
    c = grid - mean
    return OrderStatMoments(mean, float(w @ (c * c)), "exact-discrete")


def _iid_moments(dist: Any, k: int, n: int, method: str) -> OrderStatMoments:
    """The i.i.d. dispatch of :func:`gctheory.order_stats.order_statistic_moments`."""
    fam, p = _family(dist)
    if method != "quad":
        if fam == "exponential":
            return _exponential_moments(p["delta"], p["mu"], k, n)
        if fam == "pareto":
            return _pareto_moments(p["loc"], p["t0"], p["xi"], k, n)
    if method == "closed":
        raise ValueError(
            f"method='closed': no closed form for the {dist.dist.name!r} distribution; "
            "use 'auto' or 'quad'"
        )
    if fam == "pareto" and (n - k + 1) * p["xi"] <= 1:
        return _pareto_moments(p["loc"], p["t0"], p["xi"], k, n)
    return _quad_order_stat(dist, k, n)


# ---------------------------------------------------------------------------
# the public entry


def hetero_order_statistic_moments(
    dists: Any, k: Any, n: Any = None, *, method: str = "auto"
) -> OrderStatMoments:
    """Mean and variance of the ``k``-th fastest of independent workers with their own laws.

    Parameters
    ----------
    dists : sequence
        One frozen ``scipy.stats`` law per worker, or ``(law, count)`` pairs; ``n``
        is the number of workers described (identical laws are merged into groups).
    k : int
        ``1 <= k <= n``.
    n : int, optional
        Must equal the number of workers in ``dists`` if given.
    method : {"auto", "closed", "quad"}
        ``auto``: the exact route where there is one (one law: the i.i.d. closed
        forms; one or two exponential groups with a common shift: the Markov-chain
        sum; discrete laws: the support sum), numerical integration otherwise;
        ``closed`` refuses what has no exact route; ``quad`` forces the integral.

    Returns
    -------
    OrderStatMoments
        ``method`` is ``closed-exponential``/``closed-pareto`` (one law),
        ``closed-exponential-groups``, ``exact-discrete`` or ``quad``; ``inf`` with a
        ``reason`` where a moment is infinite.

    Cost: ``G`` groups of sizes ``n_g``; the quadrature evaluates the CDF of
    ``X_(k)`` a few hundred to a few thousand times, each one convolution of ``G``
    binomial vectors (``O(n)`` for two groups, ``O(n^2)`` for ``n`` distinct laws);
    the exponential route costs ``O(k min(n_1, n_2))``. ``n = 10**4`` workers in two
    groups: about a second either way.

    Examples
    --------
    >>> from gctheory.order_stats import hetero_order_statistic_moments
    >>> from scipy import stats
    >>> laws = [(stats.expon(scale=1.0), 2), (stats.expon(scale=2.0), 2)]
    >>> m = hetero_order_statistic_moments(laws, 1)  # the fastest of 4: Exp(rate 3)
    >>> round(m.mean, 6), round(m.variance, 6)
    (0.333333, 0.111111)
    """
    if method not in ("auto", "closed", "quad"):
        raise ValueError(f"method must be 'auto', 'closed' or 'quad', got {method!r}")
    groups = worker_groups(dists, n)
    nn = sum(g.count for g in groups)
    k = check_int(k, "k", low=1, high=nn)
    if len(groups) == 1 and not _is_discrete(groups[0].dist):
        return _iid_moments(groups[0].dist, k, nn, method)
    if _is_discrete(groups[0].dist):
        if method == "quad":
            raise ValueError("method='quad': discrete laws are summed exactly, use 'auto'")
        return _discrete_moments(groups, k)
    if len(groups) > MAX_GROUPS:
        raise ValueError(
            f"dists: {len(groups)} distinct laws; at most {MAX_GROUPS} for the numerical "
            "route (each evaluation convolves one binomial vector per distinct law): group "
            "identical workers"
        )
    fams = [_family(g.dist) for g in groups]
    exp_common = (
        len(groups) == 2
        and all(f == "exponential" for f, _ in fams)
        and fams[0][1]["delta"] == fams[1][1]["delta"]
    )
    if method == "closed" and not exp_common:
        raise ValueError(
            "method='closed': an exact route exists for one law, for one or two exponential "
            "groups with a common shift, and for discrete laws; use 'auto' or 'quad'"
        )
    if method != "quad" and exp_common:
        (_, p1), (_, p2) = fams
        mean, var = _exp_groups_dp(p1["mu"], groups[0].count, p2["mu"], groups[1].count, k)
        return OrderStatMoments(p1["delta"] + mean, var, "closed-exponential-groups")
    inf_mean, inf_var, reason = _infinite_moment_reason(groups, k)
    if inf_mean:
        return OrderStatMoments(math.inf, math.inf, "quad", reason)
    r = _hetero_quad(groups, k, nn)
    if inf_var and not math.isinf(r.variance):
        return OrderStatMoments(r.mean, math.inf, r.method, reason)
    return r


def _hetero_quad(groups: Sequence[WorkerGroup], k: int, n: int) -> OrderStatMoments:
    cnt = _Counts([g.count for g in groups])
    cache: dict[float, tuple[float, float]] = {}
    fams = [_family(g.dist) for g in groups]
    fast = [_scalar_cdf_sf(g.dist, f, p) for g, (f, p) in zip(groups, fams, strict=True)]
    view = [_FastLaw(F, S) for F, S in fast]

    def both(t: float) -> tuple[float, float]:
        r = cache.get(t)
        if r is None:
            r = cache[t] = _hetero_cdf_sf(view, k, t, cnt)
        return r

    def cdf(t: float) -> float:
        return both(t)[0]

    def sf(t: float) -> float:
        return both(t)[1]

    sup = [tuple(float(x) for x in g.dist.support()) for g in groups]
    lo, hi = min(s[0] for s in sup), max(s[1] for s in sup)
    # bracket every quantile of X_(k) between the groups' own extreme quantiles
    a = min(float(g.dist.ppf(1e-12)) for g in groups)
    b = max(float(g.dist.ppf(1 - 1e-12)) for g in groups)
    breaks = []
    for q in (1e-6, 1e-3, 0.05, 0.25, 0.5, 0.75, 0.95, 1 - 1e-3, 1 - 1e-6):
        try:
            fa, fb = cdf(a) - q, cdf(b) - q
            if fa < 0 < fb:
                root = optimize.brentq(lambda t, q=q: cdf(t) - q, a, b, xtol=1e-13, rtol=1e-10)
                breaks.append(root)
        except (ValueError, RuntimeError):
            continue
    center = breaks[len(breaks) // 2] if breaks else 0.5 * (a + b)
    # the groups' support ends are kinks of the integrand (a shifted law starts there)
    kinks = sorted({x for s_ in sup for x in s_ if np.isfinite(x) and lo < x < hi})
    # integrate in units of the spread of X_(k) (the 5%-95% range), so quad's absolute
    # tolerance (1.5e-8) is relative to the spread, not to one time unit: a sharply
    # concentrated X_(k) (n = 10^4, spread 1e-2) keeps ~1e-10 relative accuracy
    w = (breaks[6] - breaks[2]) if len(breaks) == 9 else 0.0
    if not (np.isfinite(w) and w > 0):
        w = 1.0

    def sf_u(u: float) -> float:
        return sf(center + w * u)

    def cdf_u(u: float) -> float:
        return cdf(center + w * u)

    r = _quad_moments(
        sf_u,
        cdf_u,
        0.0,
        (lo - center) / w,
        (hi - center) / w,
        sorted((x - center) / w for x in breaks + kinks),
    )
    r = OrderStatMoments(center + w * r.mean, w * w * r.variance, r.method, r.reason)
    return _check_support(r, groups[0].dist, lo, hi)
