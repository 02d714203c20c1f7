"""The papers' large-``n`` approximations of order statistics, held against the exact value.

* Pareto: the limit ``t0 alpha^(-1/xi)`` of Proposition 1 (eq. (19)) of [1]_;
* shifted exponential: ``Delta + mu log(N/(N-K))``, eqs. (21)-(22) of [2]_.

References
----------
.. [1] W. Halbawi, N. Azizan-Ruhi, F. Salehi, B. Hassibi, "Improving
   distributed gradient descent using Reed-Solomon codes", 2017 (halbawi2017).
.. [2] J. Xu, S.-L. Huang, L. Song, T. Lan, "Live gradient compensation for evading
   stragglers in distributed learning", 2021 (xu2021).
"""

from __future__ import annotations

import math

from scipy import stats

from gctheory._validate import check_int
from gctheory.order_stats._common import (
    Approximation,
    _check_alpha,
    _check_kn,
    _check_pos,
    _check_shift,
    _exp_checked,
)
from gctheory.order_stats.closed_forms import _exponential_moments
from gctheory.order_stats.single import order_statistic_moments

__all__ = [
    "pareto_limit",
    "exponential_log_approx",
    "halbawi_proposition1_error",
    "xu_log_approx_error",
]


def pareto_limit(t0: float, xi: float, alpha: float) -> float:
    """Halbawi et al. 2017, Proposition 1 (eq. (19)): the large-``n`` limit of the
    Pareto order statistic, ``lim_n E[T_((1-alpha)n : n)] = t0 alpha^(-1/xi)``.

    ``alpha`` in (0, 1] is the fraction of the dataset per machine (so the
    master waits for a fraction ``1 - alpha`` of the machines).

    Parameters
    ----------
    t0 : float
        Pareto scale (minimum time), ``> 0``.
    xi : float
        Pareto shape, ``> 0``.
    alpha : float
        Fraction of the data per machine, in ``(0, 1]``.

    Returns
    -------
    float
        ``t0 alpha^(-1/xi)``.

    Examples
    --------
    >>> from gctheory.order_stats import pareto_limit
    >>> round(pareto_limit(1.0, 2.0, 0.25), 6)
    2.0
    """
    t0, xi, alpha = _check_pos("t0", t0), _check_pos("xi", xi), _check_alpha(alpha)
    _exp_checked(math.log(t0) - math.log(alpha) / xi, "alpha", f"xi = {xi:g}")  # range
    return t0 * alpha ** (-1.0 / xi)


def halbawi_proposition1_error(
    t0: float, xi: float, alpha: float, n: int, f: int | None = None
) -> Approximation:
    """Proposition 1 of Halbawi et al. 2017 against the exact ``E[T_(f:n)]``.

    ``f`` defaults to eq. (18), ``f = ceil((1 - alpha) n) + 1`` (capped at ``n``);
    pass ``f = round((1 - alpha) n)`` to compare with the Proposition's own indexing.

    Parameters
    ----------
    t0 : float
        Pareto scale, ``> 0``.
    xi : float
        Pareto shape, ``> 0``.
    alpha : float
        Fraction of the data per machine, in ``(0, 1]``.
    n : int
        Number of machines.
    f : int, optional
        The order statistic's index; eq. (18) by default.

    Returns
    -------
    Approximation
        The limit of :func:`pareto_limit` against the exact ``E[T_(f:n)]``.

    Examples
    --------
    >>> from gctheory.order_stats import halbawi_proposition1_error
    >>> a = halbawi_proposition1_error(1.0, 2.0, 0.25, 100)
    >>> round(a.approx, 6), round(a.exact, 6), round(a.rel_error, 4)
    (2.0, 2.033178, -0.0163)
    """
    approx = pareto_limit(t0, xi, alpha)
    n = check_int(n, "n", low=1)
    if f is None:
        f = min(n, math.ceil((1 - alpha) * n - 1e-12) + 1)
    f, n = _check_kn(f, n, "f", "n")
    exact = order_statistic_moments(stats.pareto(xi, scale=t0), f, n)
    return Approximation(approx, exact.mean)


def exponential_log_approx(delta: float, mu: float, k: int, n: int) -> float:
    """Xu et al. 2021, eqs. (21)-(22): ``Delta + mu log(N/(N-K))`` for ``K < N``,
    ``Delta + mu log N`` for ``K = N`` (``mu`` the mean of the exponential part).

    Parameters
    ----------
    delta : float
        Shift of the shifted exponential, ``>= 0``.
    mu : float
        Mean of the exponential part, ``> 0``.
    k : int
        Number of workers waited for, ``1 <= k <= n``.
    n : int
        Number of workers.

    Returns
    -------
    float
        The logarithmic approximation of ``E[X_(k:n)]``.

    Examples
    --------
    >>> from gctheory.order_stats import exponential_log_approx
    >>> round(exponential_log_approx(0.0, 1.0, 50, 100), 6)  # log 2
    0.693147
    >>> round(exponential_log_approx(0.0, 1.0, 100, 100), 6)  # log 100
    4.60517
    """
    k, n = _check_kn(k, n, "K", "N")
    mu = _check_pos("mu", mu)
    delta = _check_shift("delta", delta)
    if k < n:
        return float(delta) + mu * math.log(n / (n - k))
    return float(delta) + mu * math.log(n)


def xu_log_approx_error(delta: float, mu: float, k: int, n: int) -> Approximation:
    """Eqs. (21)-(22) of Xu et al. 2021 against the exact ``Delta + mu (H_N - H_{N-K})``.

    Parameters
    ----------
    delta : float
        Shift, ``>= 0``.
    mu : float
        Mean of the exponential part, ``> 0``.
    k : int
        Number of workers waited for, ``1 <= k <= n``.
    n : int
        Number of workers.

    Returns
    -------
    Approximation
        :func:`exponential_log_approx` against the exact harmonic form.

    Examples
    --------
    >>> from gctheory.order_stats import xu_log_approx_error
    >>> a = xu_log_approx_error(0.0, 1.0, 50, 100)
    >>> round(a.approx, 6), round(a.exact, 6), round(a.abs_error, 6)
    (0.693147, 0.688172, 0.004975)
    """
    approx = exponential_log_approx(delta, mu, k, n)
    exact = _exponential_moments(float(delta), float(mu), k, n).mean
    return Approximation(approx, exact)
