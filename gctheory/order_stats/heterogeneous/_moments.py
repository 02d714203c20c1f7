"""The moments of the k-th order statistic of non-identical workers: which exist,
and their values (exact where the laws allow, by quadrature otherwise)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import optimize

from gctheory._validate import check_int
from gctheory.order_stats._common import (
    OrderStatMoments,
    _family,
)
from gctheory.order_stats.closed_forms import _exponential_moments, _pareto_moments
from gctheory.order_stats.heterogeneous._cdf import _Counts, _FastLaw, _hetero_cdf_sf
from gctheory.order_stats.heterogeneous._groups import (
    MAX_DISCRETE_POINTS,
    MAX_GROUPS,
    WorkerGroup,
    _is_discrete,
    worker_groups,
)
from gctheory.order_stats.quadrature import (
    _check_support,
    _quad_moments,
    _quad_order_stat,
    _scalar_cdf_sf,
)

__all__ = ["hetero_order_statistic_moments"]


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
