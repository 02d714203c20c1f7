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

from gctheory._home import keep_home_of
from gctheory.order_stats.heterogeneous import _cdf, _groups, _moments
from gctheory.order_stats.heterogeneous._cdf import _Counts as _Counts
from gctheory.order_stats.heterogeneous._cdf import _hetero_cdf_sf as _hetero_cdf_sf
from gctheory.order_stats.heterogeneous._cdf import order_statistic_cdf
from gctheory.order_stats.heterogeneous._groups import (
    WorkerGroup,
    is_worker_sequence,
    worker_groups,
)
from gctheory.order_stats.heterogeneous._moments import hetero_order_statistic_moments

__all__ = [
    "WorkerGroup",
    "worker_groups",
    "is_worker_sequence",
    "hetero_order_statistic_moments",
    "order_statistic_cdf",
]

# every definition keeps this package as its home (pickles, fingerprints, reprs)
keep_home_of(__name__, _cdf, _groups, _moments)
