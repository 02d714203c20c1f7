"""Expected iteration time of the runtime schemes when every worker has its own law.

The layouts of :func:`gctheory.runtime.scheme_layout` with worker ``i`` taking
``load * X_i``, ``X_i ~ dists[i]`` independent (not identical). Worker ``i`` belongs to
group ``i // group_size`` (FRC and CommFR-GC place consecutive workers in a group, as
their constructions in :mod:`gctheory.codes` do). The time is

* one group (uncoded, ignore-s, cyclic-MDS, Ye-Abbe): the ``wait``-th fastest of the
  ``n`` scaled laws, :mod:`gctheory.order_stats.heterogeneous` (exact routes included);
* several groups: ``max_g`` of each group's ``wait``-th fastest, with CDF
  ``prod_g P(X^(g)_(wait) <= t)`` (each factor the Poisson-binomial count of the
  group's workers), integrated numerically as in :mod:`gctheory.order_stats.quadrature`.

:func:`hetero_scheme_time_mc` is the Monte Carlo twin.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gctheory.montecarlo import Estimate, estimate_mean
from gctheory.montecarlo.summaries import shift_estimate
from gctheory.order_stats._common import OrderStatMoments
from gctheory.order_stats.heterogeneous import (
    _Counts,
    _hetero_cdf_sf,
    hetero_order_statistic_moments,
    worker_groups,
)
from gctheory.order_stats.quadrature import _quad_moments
from gctheory.runtime._common import _nonneg

__all__ = ["hetero_scheme_time_moments", "hetero_scheme_time_mc"]


def _scaled(dist: Any, c: float) -> Any:
    shapes, loc, scale = dist.dist._parse_args(*dist.args, **dist.kwds)
    return dist.dist(*shapes, loc=loc * c, scale=scale * c)


def _per_worker(dists: Any, n: int) -> list[Any]:
    groups = worker_groups(dists, n)  # checks the laws and the count
    if any(not hasattr(g.dist.dist, "_parse_args") for g in groups):
        raise ValueError("dists: every law must be a frozen scipy.stats distribution")
    out: list[Any] = []
    items = list(dists)
    for item in items:
        if isinstance(item, tuple) and len(item) == 2 and not hasattr(item, "rvs"):
            out.extend([item[0]] * int(item[1]))
        elif hasattr(item, "dist") and hasattr(item, "count") and not hasattr(item, "rvs"):
            out.extend([item.dist] * int(item.count))
        else:
            out.append(item)
    return out


def hetero_scheme_time_moments(layout: Any, dists: Any, *, tau: float = 0.0) -> OrderStatMoments:
    """Mean and variance of the iteration time of ``layout`` (a
    :class:`~gctheory.runtime.SchemeLayout`) with per-worker laws ``dists`` (one per
    worker, or ``(law, count)`` pairs in worker order)."""
    tau = _nonneg("tau", tau)
    n = layout.groups * layout.group_size
    laws = [_scaled(d, layout.load) for d in _per_worker(dists, n)]
    c = tau * layout.comm
    if layout.groups == 1:
        mom = hetero_order_statistic_moments(laws, layout.wait)
        return OrderStatMoments(mom.mean + c, mom.variance, mom.method, mom.reason)
    r, w = layout.group_size, layout.wait
    blocks = [worker_groups(laws[g * r : (g + 1) * r]) for g in range(layout.groups)]
    views = [([b.dist for b in blk], _Counts([b.count for b in blk])) for blk in blocks]

    def cdf(t: float) -> float:
        p = 1.0
        for lw, cnt in views:
            p *= _hetero_cdf_sf(lw, w, t, cnt)[0]
            if p == 0.0:
                break
        return p

    def sf(t: float) -> float:
        # 1 - prod_g (1 - q_g), from the groups' own survival functions, without cancellation
        logp = 0.0
        for lw, cnt in views:
            q = _hetero_cdf_sf(lw, w, t, cnt)[1]
            if q >= 1.0:
                return 1.0
            logp += math.log1p(-q)
        return -math.expm1(logp)

    lo = min(float(d.support()[0]) for d in laws)
    hi = max(float(d.support()[1]) for d in laws)
    qs = (0.05, 0.25, 0.5, 0.75, 0.95)
    breaks = sorted({float(d.ppf(q)) for d in laws for q in qs})
    center = float(np.median(breaks))
    mom = _quad_moments(sf, cdf, center, lo, hi, breaks)
    return OrderStatMoments(mom.mean + c, mom.variance, mom.method, mom.reason)


def hetero_scheme_time_mc(
    layout: Any, dists: Any, trials: int, *, tau: float = 0.0, rng: Any = None, level: float = 0.99
) -> Estimate:
    """Monte Carlo twin of :func:`hetero_scheme_time_moments`."""
    tau = _nonneg("tau", tau)
    n = layout.groups * layout.group_size
    laws = [_scaled(d, layout.load) for d in _per_worker(dists, n)]
    r, w, G = layout.group_size, layout.wait, layout.groups

    def sampler(gen: np.random.Generator, size: int) -> np.ndarray:
        X = np.column_stack([np.asarray(d.rvs(size=size, random_state=gen), float) for d in laws])
        X = np.sort(X.reshape(size, G, r), axis=2)[:, :, w - 1]
        return X.max(axis=1)

    est = estimate_mean(sampler, trials, rng=rng, level=level)
    c = tau * layout.comm
    return shift_estimate(est, c)
