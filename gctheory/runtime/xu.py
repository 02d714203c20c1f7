"""Xu et al. 2021 [1]_, Section IV-C: how many workers ``K`` of ``N`` to wait for.

``B(K)`` of eq. (18), the feasible interval (23), the optimality condition (25)
solved for ``p = K/N``, and the exact integer optimum of ``K``, with the exact
shifted-exponential mean ``Delta + mu (H_N - H_{N-K})`` in place of the
approximations (21)-(22).

References
----------
.. [1] J. Xu, S.-L. Huang, L. Song, T. Lan, "Live gradient compensation for evading
   stragglers in distributed learning", 2021 (xu2021).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats

from gctheory._validate import check_real
from gctheory.order_stats._common import _check_kn, _check_pos, _check_shift
from gctheory.order_stats.single import order_statistic_moments
from gctheory.runtime._common import _MAX_VECTOR, _int, _nonneg

__all__ = [
    "xu_expected_time",
    "xu_time_saving",
    "xu_feasible_interval",
    "xu_feasible_k_exact",
    "xu_optimal_p",
    "xu_bound_B",
    "xu_optimal_K",
]


def xu_expected_time(K: int, N: int, *, delta: float, mu: float) -> float:
    """Exact expected time of an iteration that waits for the fastest ``K`` of ``N``
    workers with ``X ~ Delta + Exp(mean mu)``: ``Delta + mu (H_N - H_{N-K})``
    (the exact form behind Xu et al. 2021 eqs. (21)-(22)).

    Parameters
    ----------
    K : int
        Workers waited for.
    N : int
        Workers.
    delta : float
        Shift of the shifted-exponential delays.
    mu : float
        Mean of their exponential part.

    Returns
    -------
    float
        ``Delta + mu (H_N - H_{N-K})``.

    Examples
    --------
    >>> from gctheory.runtime import xu_expected_time
    >>> round(xu_expected_time(3, 3, delta=0.0, mu=1.0), 6)  # H_3
    1.833333
    """
    _check_pos("mu", mu)
    _check_shift("delta", delta)
    return order_statistic_moments(stats.expon(loc=delta, scale=mu), K, N).mean


def xu_time_saving(K: int, N: int, *, delta: float, mu: float) -> float:
    """Fractional per-iteration time saving of waiting for ``K`` instead of all
    ``N`` workers: ``1 - E[X_(K:N)] / E[X_(N:N)]`` (Xu et al. 2021, Sec. V-B).

    Parameters
    ----------
    K : int
        Workers waited for.
    N : int
        Workers.
    delta : float
        Shift of the shifted-exponential delays.
    mu : float
        Mean of their exponential part.

    Returns
    -------
    float
        ``1 - E[X_(K:N)] / E[X_(N:N)]``.

    Examples
    --------
    >>> from gctheory.runtime import xu_time_saving
    >>> round(xu_time_saving(80, 100, delta=0.0, mu=1.0), 4)
    0.6936
    """
    return 1 - xu_expected_time(K, N, delta=delta, mu=mu) / xu_expected_time(
        N, N, delta=delta, mu=mu
    )


def _check_xu_sl(N: int, s: float, lam: float) -> tuple[int, float, float]:
    N = _int("N", N, 2)
    s = check_real(s, "s (eq. (20): 1 < s <= m)", low=1.0, low_open=True)
    lam = check_real(
        lam, "lam (lambda, eq. (19))", low=0.0, high=1.0, low_open=True, high_open=True
    )
    return N, s, lam


def xu_feasible_interval(N: int, s: float, lam: float) -> tuple[float, float]:
    """Feasible range of ``p = K/N``, eq. (23) of Xu et al. 2021:
    ``max{0.5, 1 - exp(-log(N)/s)} <= K/N <= 1 - exp(-(1 + lambda))``.

    It follows from constraints (19)-(20) with the approximations (21)-(22)
    when ``Delta = 0`` and ``tau = 0`` (the paper: "communication latency and
    shift are not known in advance"). See :func:`xu_feasible_k_exact` for the
    exact integer set. The interval may be empty (low > high) for large ``N``.

    Parameters
    ----------
    N : int
        Workers.
    s : float
        The paper's speed-up constraint.
    lam : float
        Its slack ``lambda``.

    Returns
    -------
    tuple of float
        ``(low, high)`` for ``p = K/N`` (may be empty).

    Examples
    --------
    >>> from gctheory.runtime import xu_feasible_interval
    >>> lo, hi = xu_feasible_interval(100, 5.0, 0.5)
    >>> round(lo, 4), round(hi, 4)
    (0.6019, 0.7769)
    """
    N, s, lam = _check_xu_sl(N, s, lam)
    return max(0.5, 1 - math.exp(-math.log(N) / s)), 1 - math.exp(-(1 + lam))


def _xu_mu_all(N: int, delta: float, mu: float) -> np.ndarray:
    """``mu_K = Delta + mu (H_N - H_{N-K})`` for ``K = 1..N`` (vectorised): a running sum
    of ``1/j`` (relative error below ``K`` ulps) up to ``K = 10**5``, the digamma
    difference above (where the value is at least ``10**5 / N`` and nothing cancels)."""
    if N > _MAX_VECTOR:
        raise ValueError(
            f"N must be <= {_MAX_VECTOR} for a table over every K, got {N} "
            f"({8 * 3 * N / 2**30:.3g} GiB of float64 arrays)"
        )
    K = np.arange(1, N + 1)
    h = np.empty(N)
    small = min(N, 10**5)
    h[:small] = np.cumsum(1.0 / np.arange(N, N - small, -1, dtype=float))
    if N > small:
        Kb = K[small:]
        h[small:] = special.digamma(N + 1.0) - special.digamma(N - Kb + 1.0)
    return delta + mu * h


def xu_feasible_k_exact(
    N: int, s: float, lam: float, *, delta: float = 0.0, mu: float = 1.0, tau: float = 0.0
) -> list[int]:
    """Integers ``K`` satisfying (19) ``mu_K <= (1+lambda) mean`` and (20)
    ``mu_N / s <= mu_K + tau`` of Xu et al. 2021 with exact ``mu_K``, plus ``K >= N/2``.

    Parameters
    ----------
    N : int
        Workers.
    s : float
        Speed-up constraint.
    lam : float
        Slack ``lambda``.
    delta : float
        Shift of the shifted-exponential delays.
    mu : float
        Mean of their exponential part.
    tau : float
        Communication latency.

    Returns
    -------
    list of int
        The feasible ``K``.

    Examples
    --------
    >>> from gctheory.runtime import xu_feasible_k_exact
    >>> K = xu_feasible_k_exact(100, 5.0, 0.5)
    >>> K[0], K[-1], len(K)
    (65, 78, 14)
    """
    N, s, lam = _check_xu_sl(N, s, lam)
    mu = _check_pos("mu", mu)
    delta = _check_shift("delta", delta)
    tau = _nonneg("tau", tau)
    mk = _xu_mu_all(N, delta, mu)
    K = np.arange(1, N + 1)
    ok = (2 * K >= N) & (mk <= (1 + lam) * (delta + mu)) & (mk[-1] / s <= mk + tau)
    return [int(k) for k in K[ok]]


def xu_optimal_p(c: float) -> float:
    """Root in (0, 1) of the optimality condition (25) of Xu et al. 2021,
    ``(1 - p)/p^2 = c`` with ``c = mu (F(x0) - F*) / (L^2 eta^3 t (beta^2 + sigma^2/N))``:
    ``p = (sqrt(1 + 4c) - 1) / (2c)``.

    Parameters
    ----------
    c : float
        The constant of eq. (25), ``> 0``.

    Returns
    -------
    float
        The root ``p`` in (0, 1).

    Examples
    --------
    >>> from gctheory.runtime import xu_optimal_p
    >>> round(xu_optimal_p(2.0), 6)
    0.5
    """
    c = _check_pos("c", c)
    return 2 / (1 + math.sqrt(1 + 4 * c))  # = (sqrt(1+4c) - 1)/(2c), without cancellation


def xu_bound_B(
    K: int,
    N: int,
    *,
    mu: float,
    gap: float,
    L: float,
    eta: float,
    t: float,
    beta2: float,
    sigma2: float,
    delta: float = 0.0,
    exact: bool = True,
) -> float:
    """``B(K)`` of eq. (18) of Xu et al. 2021, without its constant:
    ``2 gap mu_K / (eta t) + 2 L^2 eta^2 (N beta^2 + sigma^2) / K``.

    ``gap = F(x0) - F*``; ``mu_K`` is the exact ``Delta + mu (H_N - H_{N-K})``
    (``exact=True``) or eq. (21) ``Delta + mu log(N/(N-K))`` (``K < N``).

    Parameters
    ----------
    K : int
        Workers waited for.
    N : int
        Workers.
    mu : float
        Mean of the exponential part of the delays.
    gap : float
        ``F(x0) - F*``.
    L : float
        Smoothness constant.
    eta : float
        Step size.
    t : float
        Time budget.
    beta2, sigma2 : float
        Gradient dissimilarity and variance constants.
    delta : float
        Delay shift.
    exact : bool
        Exact ``mu_K`` or eq. (21)'s approximation.

    Returns
    -------
    float
        ``B(K)``.

    Examples
    --------
    >>> from gctheory.runtime import xu_bound_B
    >>> p = dict(mu=1.0, gap=10.0, L=1.0, eta=0.1, t=100.0, beta2=1.0, sigma2=1.0)
    >>> round(xu_bound_B(50, 100, **p), 4)
    1.4167
    """
    K, N = _check_kn(K, N, "K", "N")
    mu, gap, L, eta, t = (
        _check_pos(nm, v) for nm, v in (("mu", mu), ("gap", gap), ("L", L), ("eta", eta), ("t", t))
    )
    beta2, sigma2 = _nonneg("beta2", beta2), _nonneg("sigma2", sigma2)
    delta = _check_shift("delta", delta)
    if exact:
        mk = xu_expected_time(K, N, delta=delta, mu=mu)
    else:
        if K == N:
            raise ValueError("eq. (21) needs K < N")
        mk = delta + mu * math.log(N / (N - K))
    return 2 * gap * mk / (eta * t) + 2 * L**2 * eta**2 * (N * beta2 + sigma2) / K


_XU_B_PARAMS = ("mu", "gap", "L", "eta", "t", "beta2", "sigma2", "delta")


def xu_optimal_K(N: int, **params: float) -> tuple[int, np.ndarray]:
    """Integer ``K`` minimising the exact ``B(K)`` (eq. (18), Xu et al. 2021)
    over ``1..N``, and ``B`` for all ``K`` (vectorised; ``N <= 10**7``).

    ``params`` are the keywords of :func:`xu_bound_B`: ``mu, gap, L, eta, t, beta2,
    sigma2`` (required) and ``delta`` (default 0).

    Parameters
    ----------
    N : int
        Workers, ``<= 10**7``.
    **params : float
        Keywords of :func:`xu_bound_B`.

    Returns
    -------
    tuple
        ``(K*, B)`` with ``B[K - 1] = B(K)``.

    Examples
    --------
    >>> from gctheory.runtime import xu_optimal_K
    >>> p = dict(mu=1.0, gap=10.0, L=1.0, eta=0.1, t=100.0, beta2=1.0, sigma2=1.0)
    >>> K, B = xu_optimal_K(100, **p)
    >>> K, round(float(B[K - 1]), 4)
    (10, 0.4116)
    """
    N = _int("N", N)
    unknown = sorted(set(params) - set(_XU_B_PARAMS))
    missing = sorted(set(_XU_B_PARAMS[:-1]) - set(params))
    if unknown or missing:
        raise ValueError(
            f"params must be exactly {list(_XU_B_PARAMS)} (delta optional): "
            f"unknown {unknown}, missing {missing}"
        )
    xu_bound_B(N, N, exact=True, **params)  # validates every parameter
    p = {"delta": 0.0, **params}
    mk = _xu_mu_all(N, float(p["delta"]), float(p["mu"]))
    K = np.arange(1, N + 1)
    b = (
        2 * p["gap"] * mk / (p["eta"] * p["t"])
        + 2 * p["L"] ** 2 * p["eta"] ** 2 * (N * p["beta2"] + p["sigma2"]) / K
    )
    return int(np.argmin(b)) + 1, b
