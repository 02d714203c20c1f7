"""Analytic side of Kadhe et al. 2019, Section IV-B: the Chen-Dongarra tail bound and eq. (7).

- :func:`chen_dongarra_tail`, :func:`gaussian_condition_bound`: Lemma 1 of [1]
  (Theorem 4.5 of Chen and Dongarra [2]);
- :func:`straggler_union_bound`, :func:`union_bound_profile`: the union bound
  ``f`` of eq. (7) of [1]; :func:`kappa_condition`: eq. (8);
  :func:`is_monotone_decreasing`.

``f`` is evaluated exactly in mpmath at a single ``t``; over a whole range of
``t`` it is evaluated in log space with ``lgamma`` (vectorised, so N = 10**6
takes well under a second) and every comparison whose float margin is too small
to decide is redone exactly in mpmath.

The two readings of the leading constant
----------------------------------------
Chen and Dongarra [2] state, for an ``m x n`` real Gaussian matrix,
``P(cond / (n / (|n-m|+1)) > x) < (1/sqrt(2 pi)) (C/x)^(|n-m|+1)`` with
``5.013 <= C <= 6.414``. Eq. (7) of [1] uses this ``1/sqrt(2 pi)``; Lemma 1
of [1] (eq. (9)) prints ``sqrt(2 pi)`` instead, a transcription slip. Both are
available through ``prefactor="eq7"`` (the true statement, default) and
``prefactor="lemma1"``.

References
----------
.. [1] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019.
.. [2] Z. Chen, J. J. Dongarra, "Condition numbers of Gaussian random
   matrices", SIAM J. Matrix Anal. Appl. 27(3), 603-620, 2005.
"""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
from scipy.special import gammaln

from gctheory._validate import check_memory, check_real
from gctheory.conditioning._common import (
    _C,
    C_CHEN_DONGARRA,
    RegimeWarning,
    _check_NK,
    _eps,
    _int,
    _kappa,
    _prefactor,
)

__all__ = [
    "chen_dongarra_tail",
    "gaussian_condition_bound",
    "straggler_union_bound",
    "union_bound_profile",
    "kappa_condition",
    "is_monotone_decreasing",
]

# ---------------------------------------------------------------------------
# analytic side


def chen_dongarra_tail(
    u: int, v: int, x: float, C: float = C_CHEN_DONGARRA, prefactor: str = "eq7"
) -> float:
    """Chen-Dongarra bound on ``P(cond(M) / (v / (|v-u|+1)) > x)`` (their 2005 Thm 4.5).

    For a ``u x v`` matrix M of i.i.d. standard normal entries, Theorem 4.5 of
    Chen and Dongarra (2005), quoted as Lemma 1 (eq. (9)) of Kadhe et al. 2019::

        P(cond(M) / (v / (|v-u| + 1)) > x) < a * (C / x) ** (|v-u| + 1)

    with ``a = 1/sqrt(2 pi)`` (``prefactor="eq7"``, the published statement)
    or ``a = sqrt(2 pi)`` (``prefactor="lemma1"``, as Kadhe et al. print it).

    Parameters
    ----------
    u, v : int
        Matrix shape, both >= 2 (the theorem's domain). ``v`` is the dimension
        in the normaliser, as in the paper.
    x : float
        Threshold, ``x >= |v-u| + 1`` (the theorem's domain).
    C : float
        The universal constant, ``5.013 <= C <= 6.414`` in the theorem.
    prefactor : {"eq7", "lemma1"}

    Returns
    -------
    float
        The bound (it may exceed 1, i.e. be vacuous; it is not clipped).

    Examples
    --------
    >>> from gctheory.conditioning import chen_dongarra_tail
    >>> f"{chen_dongarra_tail(10, 12, 100.0):.4g}"
    '0.0001053'
    """
    u = _int("u", u, 2)
    v = _int("v", v, 2)
    d = abs(v - u) + 1
    x = check_real(x, "x", finite=False)
    if not x >= d:
        raise ValueError(f"x must be >= |v-u|+1 = {d} (domain of Chen-Dongarra Thm. 4.5), got {x}")
    a = _prefactor(prefactor)
    return float(a * (mpmath.mpf(_C(C)) / x) ** d)


def gaussian_condition_bound(
    u: int, v: int, kappa: float, C: float = C_CHEN_DONGARRA, prefactor: str = "eq7"
) -> float:
    """Upper bound on ``P(cond(M) > kappa)``, M a ``u x v`` Gaussian (Lemma 1, Kadhe et al. 2019).

    :func:`chen_dongarra_tail` at ``x = kappa (|v-u|+1) / v``, the step (b) of
    the proof of Theorem 2 (Kadhe et al. 2019, eqs. (12)-(13)). The domain
    ``x >= |v-u|+1`` becomes ``kappa >= v``; outside it a ValueError is raised.

    Parameters
    ----------
    u, v : int
        Shape of the Gaussian matrix.
    kappa : float
        Condition-number threshold, ``>= v``.
    C : float
        The constant of Chen and Dongarra's Theorem 4.5 (6.414 by default).
    prefactor : {"eq7", ...}
        The prefactor ``a`` of the bound; see :func:`chen_dongarra_tail`.

    Returns
    -------
    float
        The upper bound on ``P(cond(M) > kappa)``.

    Raises
    ------
    ValueError
        ``kappa < v`` (outside Lemma 1's domain) or bad shapes.

    Examples
    --------
    >>> from gctheory.conditioning import gaussian_condition_bound
    >>> f"{gaussian_condition_bound(10, 12, 1000.0):.4g}"
    '6.737e-06'
    """
    u = _int("u", u, 2)
    v = _int("v", v, 2)
    kappa = _kappa(kappa)
    d = abs(v - u) + 1
    if kappa < v:
        raise ValueError(
            f"kappa must be >= v = {v} so that x = kappa (|v-u|+1)/v >= |v-u|+1 "
            f"(domain of Chen-Dongarra Thm. 4.5), got kappa={kappa}"
        )
    return chen_dongarra_tail(u, v, kappa * d / v, C=C, prefactor=prefactor)


def _f_mp(N: int, K: int, t: int, kappa: float, C: float, a: mpmath.mpf) -> mpmath.mpf:
    r = t - K + 1
    return a * math.comb(N, t) * (mpmath.mpf(C) * t / (mpmath.mpf(kappa) * r)) ** r


def straggler_union_bound(
    N: int,
    K: int,
    t: int,
    kappa: float,
    C: float = C_CHEN_DONGARRA,
    prefactor: str = "eq7",
) -> float:
    """The union bound ``f`` of Kadhe et al. 2019, eq. (7).

    ``f(t) = a * binom(N, t) * (C t / (kappa (t - K + 1))) ** (t - K + 1)`` bounds
    ``P(max_{|T| = t} cond(G_T) > kappa)`` for a ``K x N`` standard Gaussian
    generator G (union bound over the ``binom(N, t)`` column subsets, each a
    ``K x t`` Gaussian matrix, eqs. (11)-(14)). In the paper's notation
    ``N = m + s``, ``K = m``; for the Ye-Abbe scheme ``N = n``, ``K = n - s``.

    Parameters
    ----------
    N, K : int
        Code length and dimension, ``2 <= K <= N``.
    t : int
        Number of surviving columns, ``K <= t <= N``.
    kappa : float
        Condition-number constraint, > 1.
    C : float
        Chen-Dongarra constant (the paper uses ``C <= 6.414``).
    prefactor : {"eq7", "lemma1"}
        Leading factor ``1/sqrt(2 pi)`` (eq. (7), the Chen-Dongarra statement)
        or ``sqrt(2 pi)`` (Lemma 1 as printed).

    Returns
    -------
    float
        ``f(t)``; ``inf`` if it overflows float64. A :class:`RegimeWarning` is
        issued when ``kappa < t``: Lemma 1 then does not apply (its domain is
        ``x = kappa (t-K+1)/t >= t-K+1``) and the number is not a proven bound.

    Examples
    --------
    >>> from gctheory.conditioning import straggler_union_bound
    >>> f"{straggler_union_bound(40, 20, 30, 1e5):.4g}"
    '1.587e-33'
    """
    N, K = _check_NK(N, K)
    t = _int("t", t)
    if not K <= t <= N:
        raise ValueError(f"t must lie in [K, N] = [{K}, {N}], got t={t}")
    kappa = _kappa(kappa)
    if kappa < t:
        warnings.warn(
            f"kappa={kappa} < t={t}: outside the domain of Lemma 1 (needs kappa >= t); "
            "f(t) is not a proven bound here",
            RegimeWarning,
            stacklevel=2,
        )
    return float(_f_mp(N, K, t, kappa, _C(C), _prefactor(prefactor)))


def union_bound_profile(
    N: int, K: int, kappa: float, C: float = C_CHEN_DONGARRA, prefactor: str = "eq7"
) -> np.ndarray:
    """``f(t)`` of eq. (7) for every ``t = K, ..., N`` (float array, may hold inf).

    Exact (mpmath per t) while the range holds at most 2,000 values; beyond, from the
    float64 log-space evaluation (relative error below about 1e-8 at N = 10**6).

    Parameters
    ----------
    N, K : int
        The ``[N, K]`` code: ``K x N`` generator, ``2 <= K <= N``.
    kappa : float
        Stability constraint, > 1.
    C : float
        The constant of Chen and Dongarra's Theorem 4.5 (6.414 by default).
    prefactor : {"eq7", ...}
        The prefactor ``a`` of the bound; see :func:`chen_dongarra_tail`.

    Returns
    -------
    numpy.ndarray
        ``f(K), ..., f(N)``.

    Examples
    --------
    >>> from gctheory.conditioning import union_bound_profile
    >>> f = union_bound_profile(30, 20, 1e4)
    >>> len(f), [f"{x:.2g}" for x in f[-3:]]
    (11, ['8.7e-23', '5.9e-27', '1.9e-31'])
    """
    N, K = _check_NK(N, K)
    kappa, C, a = _kappa(kappa), _C(C), _prefactor(prefactor)
    # the profile and its log-space temporaries: refused at once for N = 10**18
    check_memory(8 * 6 * (N - K + 1), "N", f"the profile of {N - K + 1} values of t")
    if N - K < 2000:
        return np.array([float(_f_mp(N, K, t, kappa, C, a)) for t in range(K, N + 1)])
    logf, _ = _log_f_profile(N, K, kappa, C, a)
    with np.errstate(over="ignore"):
        return np.exp(logf)


def kappa_condition(
    s: int, m: int, eps: float, C: float = C_CHEN_DONGARRA, prefactor: str = "eq7"
) -> float:
    """The threshold of Kadhe et al. 2019, eq. (8): Theorem 2 needs ``kappa`` above it.

    ``max{ (a / eps) ** (1/(s+1)) * C (m+s)/(s+1),  C s / 2 }`` with ``a`` the
    prefactor (``1/sqrt(2 pi)`` in eq. (8)). The first term makes
    ``f(m+s) <= eps``; the second makes ``f`` decreasing on ``[m, m+s]``
    (ratio ``f(t+1)/f(t) <= (m+s-t) C / (2 kappa) <= C s / (2 kappa)``).

    Parameters
    ----------
    s : int
        Stragglers per group, ``>= 1``.
    m : int
        Communication reduction (code dimension), ``>= 1``.
    eps : float
        Failure probability, in (0, 1).
    C : float
        The constant of Chen and Dongarra's Theorem 4.5 (6.414 by default).
    prefactor : {"eq7", ...}
        The prefactor ``a`` of the bound; see :func:`chen_dongarra_tail`.

    Returns
    -------
    float
        The smallest ``kappa`` eq. (8) allows.

    Examples
    --------
    >>> from gctheory.conditioning import kappa_condition
    >>> round(kappa_condition(20, 20, 0.01), 2)
    64.14
    """
    s = _int("s", s, 0)
    m = _int("m", m, 1)
    eps, C, a = _eps(eps), _C(C), _prefactor(prefactor)
    first = (a / eps) ** (mpmath.mpf(1) / (s + 1)) * C * (m + s) / (s + 1)
    return float(max(first, mpmath.mpf(C) * s / 2))


def is_monotone_decreasing(
    N: int, K: int, kappa: float, C: float = C_CHEN_DONGARRA, prefactor: str = "eq7"
) -> bool:
    """Whether ``f(t)`` of eq. (7) is strictly decreasing on ``t = K..N`` (exact decision:
    log space, with mpmath wherever the float margin is too small).

    Parameters
    ----------
    N, K : int
        The ``[N, K]`` code: ``K x N`` generator, ``2 <= K <= N``.
    kappa : float
        Stability constraint, > 1.
    C : float
        The constant of Chen and Dongarra's Theorem 4.5 (6.414 by default).
    prefactor : {"eq7", ...}
        The prefactor ``a`` of the bound; see :func:`chen_dongarra_tail`.

    Returns
    -------
    bool
        True if ``f(K) > f(K+1) > ... > f(N)``.

    Examples
    --------
    >>> from gctheory.conditioning import is_monotone_decreasing
    >>> is_monotone_decreasing(40, 20, 1e5), is_monotone_decreasing(40, 20, 50.0)
    (True, True)
    """
    N, K = _check_NK(N, K)
    check_memory(8 * 6 * (N - K + 1), "N", f"the profile of {N - K + 1} values of t")
    return _decreasing(N, K, _kappa(kappa), _C(C), _prefactor(prefactor))


# ---------------------------------------------------------------------------
# f over a whole range of t, in log space, with exact tie-breaking


def _log_f_profile(
    N: int, K: int, kappa: float, C: float, a: mpmath.mpf, t_hi: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``log f(t)`` of eq. (7) for ``t = K..t_hi`` in float64, and its absolute error bound.

    ``log f = log a + lgamma(N+1) - lgamma(t+1) - lgamma(N-t+1) + r log(C t / (kappa r))``
    with ``r = t - K + 1``. The error bound is 64 ulps of the sum of the terms' magnitudes
    (each term is computed to a few ulps by ``gammaln``/``log``); comparisons closer than
    it are redone in mpmath by the callers.
    """
    t_hi = N if t_hi is None else t_hi
    t = np.arange(K, t_hi + 1, dtype=np.float64)
    r = t - K + 1
    lg_n = float(gammaln(N + 1.0))
    lg_t = gammaln(t + 1.0)
    lg_nt = gammaln(N - t + 1.0)
    tail = r * (math.log(C) + np.log(t) - math.log(kappa) - np.log(r))
    log_a = float(mpmath.log(a))
    out = log_a + lg_n - lg_t - lg_nt + tail
    scale = abs(log_a) + lg_n + np.abs(lg_t) + np.abs(lg_nt) + np.abs(tail) + r * 4.0
    return out, 64 * np.finfo(float).eps * scale


def _f_at_most(
    N: int, K: int, kappa: float, C: float, a: mpmath.mpf, eps: float, t_hi: int | None = None
) -> np.ndarray:
    """Boolean array ``f(t) <= eps`` for ``t = K..t_hi``, exact (mpmath where float is unsure)."""
    logf, err = _log_f_profile(N, K, kappa, C, a, t_hi)
    le = logf <= math.log(eps)
    unsure = np.flatnonzero(np.abs(logf - math.log(eps)) <= err + 1e-300)
    for i in unsure:
        le[i] = _f_mp(N, K, K + int(i), kappa, C, a) <= eps
    return le


def _decreasing(N: int, K: int, kappa: float, C: float, a: mpmath.mpf) -> bool:
    """Whether ``f(t)`` is strictly decreasing on ``[K, N]``, exact."""
    if N == K:
        return True
    logf, err = _log_f_profile(N, K, kappa, C, a)
    diff = np.diff(logf)
    if np.any(diff > err[1:] + err[:-1]):
        return False
    for i in np.flatnonzero(diff >= -(err[1:] + err[:-1])):
        t = K + int(i)
        if not _f_mp(N, K, t + 1, kappa, C, a) < _f_mp(N, K, t, kappa, C, a):
            return False
    return True
