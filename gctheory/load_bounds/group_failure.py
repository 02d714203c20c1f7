"""P(some group of workers fully straggles): pairwise disjoint groups of workers among
``n``, ``s`` stragglers drawn uniformly at random.

Exact inclusion-exclusion in integers (Appendix D of [1], eqs. (37)-(38), hypergeometric
terms ``C(n - m, s - m) / C(n, s)``) while that is cheap, else the same probability as a
Cauchy integral at the saddle point of ``(1+z)^n / z^s`` (a float, relative error about
``1e-13 sqrt(n)``). It is the failure probability of the d-FRC (:mod:`.frc`) and the
union lower bound of eqs. (23)-(24) (:mod:`.finite_n`); the saddle-point helpers here
also serve :func:`.finite_n.zero_column_tail_lower_bound`.

.. [1] S. Wang, J. Liu, N. Shroff, "Fundamental limits of approximate gradient
   coding", Proc. ACM Meas. Anal. Comput. Syst. 3(3), 2019.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

from gctheory._group_failure import (  # noqa: F401  (the load bounds' helpers)
    _EXACT_BUDGET,
    _EXACT_MAX_S,
    _MAX_CIRCLE,
    _PMF_MAX_S,
    _cexpm1,
    _clog1p,
    _exact_cost,
    _group_failure,
    _group_failure_float,
    _log_binom_pmf_at_mean,
    _poly_prod_one_minus,
    _saddle_circle,
    _saddle_coefficient,
    _saddle_finish,
    _saddle_log_t,
    _saddle_size,
    _stirlerr,
    _stirling_series,
    _tail_binomials,
)
from gctheory.load_bounds._common import (
    _check_ns,
    _int,
    _sequence,
)

__all__ = ["group_failure_probability"]


def group_failure_probability(n: int, s: int, group_sizes: Sequence[int]) -> Fraction | float:
    """P(some group has all its workers among ``s`` uniformly random stragglers).

    ``group_sizes`` are the sizes of pairwise *disjoint* sets of workers among
    ``n``. By inclusion-exclusion (Appendix D of Wang et al. 2019, eqs.
    (37)-(38), with hypergeometric terms ``C(n - m, s - m) / C(n, s)`` for a
    union of groups of total size ``m``)::

        P = - sum_{m >= 1} f_m C(n - m, s - m) / C(n, s),
        sum_m f_m z^m = prod_g (1 - z^{a_g}),

    computed in exact integer arithmetic (a :class:`~fractions.Fraction`) while that
    costs at most a few million big-integer operations (``n`` up to about ``10**4``;
    ``n = 1000`` takes a millisecond). Beyond, the same probability is the coefficient
    ``[z^s] (1+z)^n (1 - prod_g (1 - (z/(1+z))^{a_g})) / C(n, s)`` of a polynomial with
    non-negative coefficients, evaluated as a Cauchy integral at the saddle point
    (a ``float``, relative error about ``1e-13 sqrt(n)``, tested against the exact
    value): ``n = 10**6`` answers in milliseconds.

    This is the failure probability of any code that fails iff a whole group
    straggles (the d-FRC), and the union lower bound of eqs. (23)-(24) when the
    groups are column supports.

    Parameters
    ----------
    n : int
        Workers, ``n >= 2``.
    s : int
        Stragglers, ``0 <= s < n``.
    group_sizes : sequence of int
        Sizes of disjoint groups of workers.

    Returns
    -------
    fractions.Fraction or float
        Exact where cheap, else a float.

    Examples
    --------
    >>> from gctheory.load_bounds import group_failure_probability
    >>> group_failure_probability(6, 2, [2, 2, 2])
    Fraction(1, 5)
    >>> group_failure_probability(6, 3, [3])
    Fraction(1, 20)
    """
    n, s = _check_ns(n, s)
    sizes = [_int("group size", a) for a in _sequence("group_sizes", group_sizes)]
    if any(a < 1 for a in sizes):
        raise ValueError(f"group sizes must be positive, got {sizes[:10]}")
    if sum(sizes) > n:
        raise ValueError(f"disjoint groups must fit in n={n} workers, sizes sum to {sum(sizes)}")
    return _group_failure(n, s, Counter(sizes))
