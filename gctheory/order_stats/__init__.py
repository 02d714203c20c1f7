"""Expected order statistics of i.i.d. worker times, exact and approximate.

A gradient-coding master that waits for the fastest ``k`` of ``n`` workers
waits for the ``k``-th order statistic ``X_(k:n)`` of the workers' times. This
package computes its mean and variance

* in closed form for the exponential and shifted exponential (harmonic sums,
  [3]_ eq. (21), [4]_ eq. (21)) and the Pareto distribution (Vannman's formula,
  [1]_ Appendix 8.4, [3]_ eq. (22)), with log-gamma so ``n`` in the thousands
  is fine;
* for the normal, lognormal, gamma and Weibull laws by integrating the quantile
  function against the ``Beta(k, n-k+1)`` density (one vectorised array of
  quantiles, with an error estimate; :mod:`~gctheory.order_stats.quantile_quadrature`);
* for any other frozen continuous ``scipy.stats`` distribution (and as the
  fallback) by numerical integration of the survival function of ``X_(k:n)``,
  ``P(X_(k:n) > t) = I_{S(t)}(n-k+1, k)`` (regularised incomplete beta);
* in mpmath at high precision (:func:`order_statistic_reference`) for reference
  values, by closed form or by an independent quadrature (also for the normal,
  lognormal, gamma and Weibull laws);
* by Monte Carlo through :mod:`gctheory.montecarlo` (:func:`order_statistic_mc`);
* for independent workers with their own laws (a sequence of frozen laws in
  place of ``dist``): :mod:`~gctheory.order_stats.heterogeneous` (Poisson-binomial
  count over groups of identical workers, exact for exponential groups and
  discrete laws, quadrature otherwise).

It also gives the papers' large-``n`` approximations with their error against
the exact value (Proposition 1 of [1]_; eqs. (21)-(22) of [4]_) and the
expected completion time of "wait for the fastest ``t_g`` workers in each of
``G`` groups" ([3]_ eq. (28), fractional-repetition and CommFR-GC [2]_ decoding).

Infinite means (a Pareto ``k``-th order statistic with ``n - k + 1 <= 1/xi``)
are reported as ``inf`` with a reason, never as a number.

One module per idea: :mod:`~gctheory.order_stats.closed_forms` (exponential,
shifted exponential, Pareto), :mod:`~gctheory.order_stats.quadrature` (any CDF,
numerically), :mod:`~gctheory.order_stats.quantile_quadrature` (the quantile
function against a Beta density, for four families),
:mod:`~gctheory.order_stats.single` (the ``k``-th of ``n``, and the mpmath reference),
:mod:`~gctheory.order_stats.grouped` (the slowest of ``G`` groups),
:mod:`~gctheory.order_stats.sampling` (Monte Carlo twins),
:mod:`~gctheory.order_stats.approximations` (the papers' asymptotics), with the
result types and checks they share in ``_common``. Everything public is
re-exported here.

References
----------
.. [1] W. Halbawi, N. Azizan-Ruhi, F. Salehi, B. Hassibi, "Improving
   distributed gradient descent using Reed-Solomon codes", 2017 (halbawi2017).
.. [2] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019
   (kadhe2019).
.. [3] J. Zhang and O. Simeone, "LAGC: Lazily aggregated gradient coding
   for straggler-tolerant and communication-efficient distributed learning",
   2020 (zhang2020).
.. [4] J. Xu, S.-L. Huang, L. Song, T. Lan, "Live gradient compensation for evading stragglers in
   distributed learning", 2021 (xu2021).
"""

from gctheory.order_stats._common import MAX_WORKERS as MAX_WORKERS
from gctheory.order_stats._common import (
    Approximation,
    InfiniteMomentWarning,
    OrderStatMoments,
    UnreliableMonteCarloWarning,
)
from gctheory.order_stats._common import _check_alpha as _check_alpha
from gctheory.order_stats._common import _check_dist as _check_dist
from gctheory.order_stats._common import _check_kn as _check_kn
from gctheory.order_stats._common import _check_pos as _check_pos
from gctheory.order_stats._common import _check_shift as _check_shift
from gctheory.order_stats._common import _family as _family
from gctheory.order_stats.approximations import (
    exponential_log_approx,
    halbawi_proposition1_error,
    pareto_limit,
    xu_log_approx_error,
)
from gctheory.order_stats.closed_forms import _lgamma_diff as _lgamma_diff
from gctheory.order_stats.closed_forms import _pareto_raw_moment as _pareto_raw_moment
from gctheory.order_stats.closed_forms import harmonic_difference
from gctheory.order_stats.grouped import MAX_QUAD_GROUPS as MAX_QUAD_GROUPS
from gctheory.order_stats.grouped import (
    expected_grouped_completion,
    grouped_completion_moments,
)
from gctheory.order_stats.heterogeneous import (
    WorkerGroup,
    hetero_order_statistic_moments,
    order_statistic_cdf,
    worker_groups,
)
from gctheory.order_stats.quadrature import _quad_moments as _quad_moments
from gctheory.order_stats.quadrature import _scalar_cdf_sf as _scalar_cdf_sf
from gctheory.order_stats.sampling import _check_mc_args as _check_mc_args
from gctheory.order_stats.sampling import grouped_completion_mc, order_statistic_mc
from gctheory.order_stats.single import (
    expected_order_statistic,
    order_statistic_moments,
    order_statistic_reference,
    order_statistic_variance,
)

# ``name as name`` above: names outside ``__all__`` that other modules import from here
# (gctheory.runtime, gctheory.load_bounds, gctheory.tradeoff.compute, tests), kept
# importable from gctheory.order_stats as they were before the split
__all__ = [
    "InfiniteMomentWarning",
    "UnreliableMonteCarloWarning",
    "OrderStatMoments",
    "Approximation",
    "order_statistic_moments",
    "expected_order_statistic",
    "order_statistic_variance",
    "order_statistic_reference",
    "order_statistic_mc",
    "grouped_completion_moments",
    "expected_grouped_completion",
    "grouped_completion_mc",
    "pareto_limit",
    "exponential_log_approx",
    "halbawi_proposition1_error",
    "xu_log_approx_error",
    "harmonic_difference",
    "WorkerGroup",
    "worker_groups",
    "hetero_order_statistic_moments",
    "order_statistic_cdf",
]
