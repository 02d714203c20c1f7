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
    ``Delta + mu log N`` for ``K = N`` (``mu`` the mean of the exponential part)."""
    k, n = _check_kn(k, n, "K", "N")
    mu = _check_pos("mu", mu)
    delta = _check_shift("delta", delta)
    if k < n:
        return float(delta) + mu * math.log(n / (n - k))
    return float(delta) + mu * math.log(n)


def xu_log_approx_error(delta: float, mu: float, k: int, n: int) -> Approximation:
    """Eqs. (21)-(22) of Xu et al. 2021 against the exact ``Delta + mu (H_N - H_{N-K})``."""
    approx = exponential_log_approx(delta, mu, k, n)
    exact = _exponential_moments(float(delta), float(mu), k, n).mean
    return Approximation(approx, exact)
