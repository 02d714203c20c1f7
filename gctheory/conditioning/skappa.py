"""Theorem 2 of Kadhe et al. 2019: the guaranteed straggler threshold s_kappa.

:func:`s_kappa_bound` (with :func:`t_star`) for an [N, K] Gaussian code,
:func:`s_kappa_commfr` (CommFR-GC, an [m + s, m] code per group),
:func:`s_kappa_ye_abbe` (the Gaussian Ye-Abbe scheme, by the paper's
substitution m + s -> n, m -> n - s) and :func:`c_interval` (the constants C
that reproduce a given s_kappa). The regime is checked first: a kappa that
violates eq. (8) is refused before ``f`` is evaluated at all.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

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
from gctheory.conditioning.bounds import _decreasing, _f_at_most, _f_mp, kappa_condition


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


__all__ = [
    "SKappaBound",
    "s_kappa_bound",
    "t_star",
    "s_kappa_commfr",
    "s_kappa_ye_abbe",
    "c_interval",
]


@dataclass(frozen=True)
class SKappaBound:
    """Theorem 2 of Kadhe et al. 2019 for an [N, K] Gaussian code, with its side conditions.

    Attributes
    ----------
    s_kappa : int
        Guaranteed straggler threshold ``N - t_star`` (w.p. >= 1 - eps).
    t_star : int
        Smallest ``t`` in ``[K, N]`` with ``f(t) <= eps`` (eq. (15)).
    f_t_star : float
        ``f(t_star)``.
    condition8 : bool
        Whether kappa satisfies eq. (8) with ``s = N - K``, ``m = K``.
    kappa_min : float
        The right-hand side of eq. (8).
    monotone : bool
        Whether f is decreasing on the searched range ``[K, N]``.
    lemma1_domain : bool
        Whether ``kappa >= t_star`` (Lemma 1 applies at ``t_star``).

    Examples
    --------
    >>> from gctheory.conditioning import SKappaBound, s_kappa_bound
    >>> b = s_kappa_bound(40, 20, 1e5, 0.01)
    >>> b.s_kappa, b.t_star, b.condition8, f"{b.f_t_star:.3g}"
    (17, 23, True, '0.000655')
    """

    s_kappa: int
    t_star: int
    f_t_star: float
    N: int
    K: int
    kappa: float
    eps: float
    C: float
    prefactor: str
    condition8: bool
    kappa_min: float
    monotone: bool
    lemma1_domain: bool


def s_kappa_bound(
    N: int,
    K: int,
    kappa: float,
    eps: float,
    C: float = C_CHEN_DONGARRA,
    prefactor: str = "eq7",
    *,
    strict: bool = True,
) -> SKappaBound:
    """Theorem 2 of Kadhe et al. 2019 for a ``K x N`` Gaussian generator.

    With probability at least ``1 - eps`` every ``K x t`` column submatrix with
    ``t >= t_star`` has condition number ``<= kappa``, so ``s_kappa >= N - t_star``.

    Parameters
    ----------
    N, K : int
        ``[N, K]`` code, ``2 <= K <= N`` (``N = m + s``, ``K = m``).
    kappa : float
        Stability constraint, > 1.
    eps : float
        Failure probability, in (0, 1).
    C, prefactor
        See :func:`straggler_union_bound`.
    strict : bool
        If True (default), refuse (ValueError) when eq. (8) fails or when
        Lemma 1's domain ``kappa >= t`` fails at ``t_star``: the theorem then
        gives nothing. If False, fall back on the bare union bound: search
        only ``t <= kappa`` (where Lemma 1 holds) and issue a
        :class:`RegimeWarning` when eq. (8) fails.

    Returns
    -------
    SKappaBound
        ``s_kappa``, ``t_star``, ``f(t_star)`` and the side conditions.

    Raises
    ------
    ValueError
        On bad input, outside the regime (strict), or when no ``t`` in range
        has ``f(t) <= eps`` (no guarantee at all).

    Examples
    --------
    >>> from gctheory.conditioning import s_kappa_bound
    >>> b = s_kappa_bound(40, 20, 1e5, 0.01)
    >>> b.s_kappa, b.t_star
    (17, 23)
    """
    N, K = _check_NK(N, K)
    kappa, eps, C, a = _kappa(kappa), _eps(eps), _C(C), _prefactor(prefactor)
    strict = _flag("strict", strict)
    kmin = kappa_condition(N - K, K, eps, C, prefactor)
    cond8 = kappa > kmin
    if strict and not cond8:  # refused before f is evaluated at all (cost independent of N)
        raise ValueError(
            f"kappa={kappa} violates Kadhe et al. eq. (8) for s={N - K}, m={K}: needs "
            f"kappa > {kmin:.6g}; Theorem 2 does not apply (strict=False uses the bare union bound)"
        )
    monotone = _decreasing(N, K, kappa, C, a)
    if not cond8:
        warnings.warn(
            f"kappa={kappa} violates eq. (8) (needs kappa > {kmin:.6g}); the result rests on the "
            "union bound alone" + ("" if monotone else " and f is not monotone on [K, N]"),
            RegimeWarning,
            stacklevel=2,
        )
    t_hi = N if strict else min(N, int(math.floor(kappa)))
    hits = (
        np.flatnonzero(_f_at_most(N, K, kappa, C, a, eps, t_hi))
        if t_hi >= K
        else np.empty(0, np.intp)
    )
    if len(hits) == 0:
        raise ValueError(
            f"no t in [{K}, {t_hi}] has f(t) <= eps={eps} (kappa={kappa}, C={C}, "
            f"prefactor={prefactor!r}): Theorem 2 guarantees nothing here"
        )
    found = K + int(hits[0])
    domain = kappa >= found
    if strict and not domain:
        raise ValueError(
            f"t*={found} exceeds kappa={kappa}: Lemma 1 (x >= |v-u|+1, i.e. kappa >= t) does not "
            "apply at t*, although eq. (8) holds (the paper's footnote 1 checks kappa > t-m+1, "
            "which is not the lemma's condition)"
        )
    return SKappaBound(
        s_kappa=N - found,
        t_star=found,
        f_t_star=float(_f_mp(N, K, found, kappa, C, a)),
        N=N,
        K=K,
        kappa=kappa,
        eps=eps,
        C=C,
        prefactor=prefactor,
        condition8=cond8,
        kappa_min=kmin,
        monotone=monotone,
        lemma1_domain=domain,
    )


def t_star(
    N: int,
    K: int,
    kappa: float,
    eps: float,
    C: float = C_CHEN_DONGARRA,
    prefactor: str = "eq7",
    *,
    strict: bool = True,
) -> int:
    """Smallest ``t`` in ``[K, N]`` with ``f(t) <= eps`` (Kadhe et al. 2019, Thm. 2, eq. (15)).

    See :func:`s_kappa_bound` for the parameters and the regime checks.

    Parameters
    ----------
    N, K : int
        The ``[N, K]`` code: ``K x N`` generator, ``2 <= K <= N``.
    kappa : float
        Stability constraint, > 1.
    eps : float
        Failure probability, in (0, 1).
    C, prefactor
        See :func:`gctheory.conditioning.straggler_union_bound`.
    strict : bool
        Refuse outside the theorem's regime (see :func:`s_kappa_bound`).

    Returns
    -------
    int
        ``t*``; the guaranteed threshold is ``N - t*``.

    Examples
    --------
    >>> from gctheory.conditioning import t_star
    >>> t_star(40, 20, 1e5, 0.01)
    23
    """
    return s_kappa_bound(N, K, kappa, eps, C, prefactor, strict=strict).t_star


def s_kappa_commfr(
    s: int,
    m: int,
    kappa: float,
    eps: float,
    C: float = C_CHEN_DONGARRA,
    prefactor: str = "eq7",
    *,
    strict: bool = True,
) -> int:
    """Theorem 2 of Kadhe et al. 2019: ``s_kappa >= s + m - t*`` for CommFR-GC.

    Each group uses an ``[m + s, m]`` code with an i.i.d. standard normal
    ``m x (m+s)`` generator; with probability ``>= 1 - eps`` every decoding
    matrix has condition number ``<= kappa`` when up to the returned number of
    workers per group straggle.

    Parameters
    ----------
    s : int
        Straggler tolerance of the code (per group), ``s >= 0``.
    m : int
        Communication saving = code dimension, ``m >= 2`` (Lemma 1).
    kappa, eps, C, prefactor, strict
        See :func:`s_kappa_bound`.

    Returns
    -------
    int
        The guaranteed number of stragglers per group, ``s + m - t*``.

    Examples
    --------
    >>> from gctheory.conditioning import s_kappa_commfr
    >>> s_kappa_commfr(s=20, m=20, kappa=1e5, eps=0.01)
    17
    """
    s = _int("s", s, 0)
    m = _int("m", m, 0)
    if m < 2:
        raise ValueError(f"m must be >= 2 (Lemma 1 needs a matrix with >= 2 rows), got m={m}")
    return s_kappa_bound(m + s, m, kappa, eps, C, prefactor, strict=strict).s_kappa


def s_kappa_ye_abbe(
    n: int,
    s: int,
    kappa: float,
    eps: float,
    C: float = C_CHEN_DONGARRA,
    prefactor: str = "eq7",
    *,
    strict: bool = True,
) -> int:
    """Theorem 2 with ``m + s -> n`` and ``m -> n - s``: the Gaussian Ye-Abbe scheme.

    Kadhe et al. 2019, Section IV-B ("Comparison with the Ye-Abbe scheme"):
    the server inverts ``(n-s) x t`` submatrices of an ``(n-s) x n`` Gaussian
    matrix V, so the bound is :func:`s_kappa_bound` with ``N = n``, ``K = n - s``.
    It does not depend on the communication saving m.

    Parameters
    ----------
    n : int
        Number of workers.
    s : int
        Number of stragglers the scheme is designed for, ``1 <= s < n - 1``.
    kappa : float
        Stability constraint, > 1.
    eps : float
        Failure probability, in (0, 1).
    C, prefactor
        See :func:`gctheory.conditioning.straggler_union_bound`.
    strict : bool
        Refuse outside the theorem's regime (see :func:`s_kappa_bound`).

    Returns
    -------
    int
        The guaranteed ``s_kappa`` of the Gaussian Ye-Abbe scheme.

    Examples
    --------
    >>> from gctheory.conditioning import s_kappa_ye_abbe
    >>> s_kappa_ye_abbe(40, 20, 1e5, 0.01)
    17
    """
    n = _int("n", n, 1)
    s = _int("s", s, 0)
    if s >= n:
        raise ValueError(f"s must be < n, got s={s}, n={n}")
    if n - s < 2:
        raise ValueError(f"n - s must be >= 2 (Lemma 1 needs >= 2 rows), got n={n}, s={s}")
    return s_kappa_bound(n, n - s, kappa, eps, C, prefactor, strict=strict).s_kappa


#: most thresholds :func:`c_interval` scans (one mpmath power each)
_C_INTERVAL_MAX_SCAN = 10**5


def c_interval(
    N: int,
    K: int,
    s_kappa: int,
    kappa: float,
    eps: float,
    prefactor: str = "eq7",
) -> tuple[float, float] | None:
    """The set of constants C for which Theorem 2's bound equals ``s_kappa``: ``(low, high]``.

    Solving ``f(t) <= eps`` for C gives ``C <= C_t = (eps / (a binom(N, t))) ** (1/r) kappa r / t``
    with ``r = t - K + 1``; ``N - t*(C) = s_kappa`` exactly when ``C <= C_{N - s_kappa}`` and
    ``C > C_u`` for every ``K <= u < N - s_kappa``. Returns None if that set is empty.
    (Lemma 1's domain and eq. (8) are not checked here: use :func:`s_kappa_bound` at a C inside.)

    Parameters
    ----------
    N, K : int
        The ``[N, K]`` code: ``K x N`` generator, ``2 <= K <= N``.
    s_kappa : int
        The threshold whose constants are sought.
    kappa : float
        Stability constraint, > 1.
    eps : float
        Failure probability, in (0, 1).
    prefactor : str
        See :func:`gctheory.conditioning.straggler_union_bound`.

    Returns
    -------
    tuple of float or None
        ``(low, high)``: Theorem 2 gives ``s_kappa`` exactly for ``low < C <= high``;
        None if no C does.

    Examples
    --------
    >>> from gctheory.conditioning import c_interval
    >>> lo, hi = c_interval(40, 20, 17, 1e5, 0.01)  # the default C = 6.414 lies inside
    >>> round(lo, 3), round(hi, 3)
    (0.825, 12.679)
    """
    N, K = _check_NK(N, K)
    s_kappa = _int("s_kappa", s_kappa, 0)
    kappa, eps, a = _kappa(kappa), _eps(eps), _prefactor(prefactor)
    t = N - s_kappa
    if t < K:
        raise ValueError(f"s_kappa must be <= N - K = {N - K}, got {s_kappa}")
    if t - K > _C_INTERVAL_MAX_SCAN:
        raise ValueError(
            f"N: c_interval scans the N - s_kappa - K = {t - K:,} thresholds below t = N - "
            f"s_kappa, more than the {_C_INTERVAL_MAX_SCAN:,} done here (seconds); use a "
            "smaller N or a larger s_kappa"
        )

    def c_t(u: int) -> mpmath.mpf:
        r = u - K + 1
        binom = mpmath.binomial(N, u)  # log-gamma based: no N-digit integer for large N
        return (mpmath.mpf(eps) / (a * binom)) ** (mpmath.mpf(1) / r) * kappa * r / u

    with mpmath.workdps(30):
        high = c_t(t)
        low = max((c_t(u) for u in range(K, t)), default=mpmath.mpf(0))
        return (float(low), float(high)) if low < high else None
