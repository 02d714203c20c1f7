"""Completion time of "the fastest ``wait`` workers in each of ``G`` groups".

``T = max_g X^(g)_(wait:r)``, the decoding time of fractional-repetition codes
(``wait = 1``) and of CommFR-GC [1]_ (Theorem 1, ``wait = N - delta + 1``),
with CDF ``I_{F(t)}(wait, r-wait+1)^G`` ([2]_ eq. (28) for ``wait = 1``):
closed forms for ``wait = 1`` with exponential or Pareto workers, numerical
integration (:mod:`gctheory.order_stats.quadrature`) otherwise.

References
----------
.. [1] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019
   (kadhe2019).
.. [2] J. Zhang and O. Simeone, "LAGC: Lazily aggregated gradient coding
   for straggler-tolerant and communication-efficient distributed learning",
   2020 (zhang2020).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from scipy import special

from gctheory._validate import check_int
from gctheory.order_stats._common import (
    InfiniteMomentWarning,
    OrderStatMoments,
    _check_dist,
    _check_kn,
    _family,
)
from gctheory.order_stats.closed_forms import _exponential_moments, _pareto_moments
from gctheory.order_stats.quadrature import _check_support, _quad_moments, _scalar_cdf_sf
from gctheory.order_stats.single import order_statistic_moments

__all__ = [
    "MAX_QUAD_GROUPS",
    "grouped_completion_moments",
    "expected_grouped_completion",
]


#: most groups :func:`grouped_completion_moments` integrates numerically (measured: the
#: mean of gamma(2) groups of 16 at wait 16 is right at 1e8 groups, inf at 1e10)
MAX_QUAD_GROUPS = 10**8


def _check_grouped(groups: Any, group_size: Any, wait: Any) -> tuple[int, int, int]:
    wait_, r = _check_kn(wait, group_size, "wait", "group_size")
    return check_int(groups, "groups", low=1), r, wait_


def grouped_completion_moments(
    dist: Any, groups: int, group_size: int, wait: int = 1, *, method: str = "auto"
) -> OrderStatMoments:
    """Mean and variance of the time to hear from the fastest ``wait`` workers
    in each of ``groups`` groups of ``group_size`` i.i.d. workers.

    ``T = max_{g} X^{(g)}_(wait:group_size)``, with CDF
    ``P(T <= t) = I_{F(t)}(wait, r-wait+1)^G`` (Zhang et al. 2020, eq. (28) for
    ``wait = 1``; fractional repetition codes [Tandon et al.] decode at this
    time with ``wait = 1``; CommFR-GC (Kadhe et al. 2019, Theorem 1) with an
    ``[N, K, delta]`` code has ``group_size = N``, ``wait = N - delta + 1``).

    Closed forms for ``wait = 1``: exponential ``delta + (mu/r) H_G``; Pareto:
    the minimum of ``r`` Pareto(t0, xi) is Pareto(t0, r xi), so the maximum of
    ``G`` of them is an order statistic with closed form. Otherwise the
    survival function is integrated numerically. Pareto mean is infinite iff
    ``xi (r - wait + 1) <= 1``.

    Parameters
    ----------
    dist : frozen scipy.stats continuous distribution
        The time of one worker.
    groups : int
        Number of groups ``G``.
    group_size : int
        Workers per group ``r``.
    wait : int
        How many workers of each group must return, ``1 <= wait <= group_size``.
    method : {"auto", "closed", "quad"}
        As in :func:`gctheory.order_stats.order_statistic_moments`.

    Returns
    -------
    OrderStatMoments
        Mean and variance of ``T`` (``inf`` with a reason where they do not exist).

    Examples
    --------
    >>> from gctheory.order_stats import grouped_completion_moments
    >>> from scipy import stats
    >>> m = grouped_completion_moments(stats.expon(), groups=2, group_size=3, wait=1)
    >>> round(m.mean, 6), round(m.variance, 6)
    (0.5, 0.138889)
    """
    groups, r, wait = _check_grouped(groups, group_size, wait)
    _check_dist(dist)
    if method not in ("auto", "quad"):
        raise ValueError(f"method must be 'auto' or 'quad', got {method!r}")
    if groups == 1:
        return order_statistic_moments(dist, wait, r, method=method)
    fam, p = _family(dist)
    m = r - wait + 1
    if fam == "pareto" and p["xi"] * m <= 1:
        reason = (
            f"Pareto grouped completion has infinite mean: xi * (group_size - wait + 1) = "
            f"{p['xi'] * m:.6g} <= 1"
        )
        return OrderStatMoments(math.inf, math.inf, "closed-pareto", reason)
    if method == "auto" and wait == 1:
        if fam == "exponential":
            return _exponential_moments(p["delta"], p["mu"] / r, groups, groups)
        if fam == "pareto":
            return _pareto_moments(p["loc"], p["t0"], p["xi"] * r, groups, groups)
    if groups > MAX_QUAD_GROUPS:
        # the law of the maximum of G groups concentrates as G grows: past 1e8 the
        # quadrature misses it (gamma(2), G = 1e10, wait = 16 gave a spurious inf)
        raise ValueError(
            f"groups must be <= {MAX_QUAD_GROUPS:.0e} for the numerical integral (closed "
            f"forms: wait = 1 with an exponential or Pareto law), got groups={groups}"
        )

    F, S = _scalar_cdf_sf(dist, fam, p)

    def cdf(t: float) -> float:
        return float(special.betainc(wait, m, F(t)) ** groups)

    def sf(t: float) -> float:
        return float(-math.expm1(groups * math.log1p(-special.betainc(m, wait, S(t)))))

    lo, hi = (float(x) for x in dist.support())
    qs = [1e-9, 1e-6, 1e-3, 0.05, 0.25, 0.5, 0.75, 0.95, 1 - 1e-3, 1 - 1e-6, 1 - 1e-9]
    # quantile of T at level q: the group statistic at level q**(1/G)
    breaks = [float(dist.ppf(special.betaincinv(wait, m, q ** (1.0 / groups)))) for q in qs]
    breaks = [b for b in breaks if np.isfinite(b)]
    center = breaks[len(breaks) // 2] if breaks else float(dist.median())
    return _check_support(_quad_moments(sf, cdf, center, lo, hi, breaks), dist, lo, hi)


def expected_grouped_completion(
    dist: Any, groups: int, group_size: int, wait: int = 1, *, method: str = "auto"
) -> float:
    """Expected time until the fastest ``wait`` workers of every one of
    ``groups`` groups (``group_size`` workers each) have returned.

    See :func:`grouped_completion_moments` (Zhang et al. 2020, eq. (28)).
    ``math.inf`` with an :class:`InfiniteMomentWarning` if the mean is infinite.

    Parameters
    ----------
    dist : frozen scipy.stats continuous distribution
        The time of one worker.
    groups : int
        Number of groups.
    group_size : int
        Workers per group.
    wait : int
        Workers needed from each group.
    method : {"auto", "closed", "quad"}
        As in :func:`gctheory.order_stats.order_statistic_moments`.

    Returns
    -------
    float
        ``E[max_g X^(g)_(wait:group_size)]``.

    Examples
    --------
    >>> from gctheory.order_stats import expected_grouped_completion
    >>> from scipy import stats
    >>> round(expected_grouped_completion(stats.expon(), 2, 3, 1), 6)
    0.5
    >>> round(expected_grouped_completion(stats.expon(), 1, 3, 3), 6)  # one group: H_3
    1.833333
    """
    r = grouped_completion_moments(dist, groups, group_size, wait, method=method)
    if not math.isfinite(
        r.mean
    ):  # reason is set whenever a moment is infinite; the text is a fallback
        warnings.warn(r.reason or "the mean is infinite", InfiniteMomentWarning, stacklevel=2)
    return r.mean
