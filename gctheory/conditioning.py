"""Numerical stability of gradient codes: condition-number tail bounds and s_kappa.

A gradient code's straggler tolerance is only useful if every matrix the server
inverts while decoding is well conditioned. Following Kadhe et al. [1],
Section IV-B, the *straggler threshold under stability constraint* ``kappa``,
``s_kappa``, is the number of stragglers a scheme tolerates while every
decoding matrix has 2-norm condition number at most ``kappa``.

This module gives

- the analytic side: the Chen-Dongarra tail bound (Lemma 1 of [1], Theorem 4.5
  of [2]), the union bound ``f`` of eq. (7) of [1], the kappa condition (8),
  ``t*`` and Theorem 2's guaranteed ``s_kappa`` for CommFR-GC and, by the
  paper's substitution, for the Gaussian Ye-Abbe scheme [3];
- the empirical side: batched condition numbers, a Monte Carlo twin of the
  tail bound (through :mod:`gctheory.montecarlo`), the exact (or clearly
  labelled estimated) worst condition number over all t-column submatrices of
  an actual generator matrix, and the empirical ``s_kappa`` that follows;
- Vandermonde generators (real equispaced and Chebyshev nodes, complex roots of
  unity as in Halbawi et al. [4]) whose condition numbers are recomputed with
  mpmath at high precision wherever float64 cannot resolve them.

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
.. [3] M. Ye, E. Abbe, "Communication-computation efficient gradient coding",
   ICML 2018.
.. [4] W. Halbawi, N. Azizan, F. Salehi, B. Hassibi, "Improving distributed
   gradient descent using Reed-Solomon codes", 2017.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import mpmath
import numpy as np

from gctheory.montecarlo import Estimate, estimate_mean, estimate_probability

__all__ = [
    "C_CHEN_DONGARRA",
    "PREFACTORS",
    "GRAM_LIMIT",
    "FLOAT64_RELIABLE_LIMIT",
    "RegimeWarning",
    "Float64Warning",
    "chen_dongarra_tail",
    "gaussian_condition_bound",
    "straggler_union_bound",
    "union_bound_profile",
    "kappa_condition",
    "is_monotone_decreasing",
    "SKappaBound",
    "s_kappa_bound",
    "t_star",
    "s_kappa_commfr",
    "s_kappa_ye_abbe",
    "c_interval",
    "condition_numbers",
    "condition_number_mp",
    "vandermonde_condition_mp",
    "condition_tail_mc",
    "subset_failure_mc",
    "empirical_s_kappa_mc",
    "s_kappa_shortfall_mc",
    "MaxCondition",
    "max_condition",
    "EmpiricalSKappa",
    "empirical_s_kappa",
]

#: Upper value of the universal constant C of Chen and Dongarra (2005), Thm. 4.5.
C_CHEN_DONGARRA = 6.414

#: The two readings of the leading factor: eq. (7) of Kadhe et al. (= Chen-Dongarra) and Lemma 1.
PREFACTORS = ("eq7", "lemma1")

#: Condition numbers from the Gram matrix's eigenvalues are trusted below this value; above it
#: (relative error of the Gram route ~ kappa^2 * 1e-16) they are recomputed by an SVD.
GRAM_LIMIT = 1e4

#: Above this condition number a float64 SVD result has relative error that may exceed ~1e-4
#: (error ~ kappa * n * 2.2e-16, plus the rounding of the matrix entries themselves).
FLOAT64_RELIABLE_LIMIT = 1e10


class RegimeWarning(UserWarning):
    """A bound is used outside the regime in which the paper proves it."""


class Float64Warning(UserWarning):
    """A float64 condition number is too large to be trusted."""


# ---------------------------------------------------------------------------
# validation helpers


def _int(name: str, v: Any, low: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {v!r}")
    v = int(v)
    if low is not None and v < low:
        raise ValueError(f"{name} must be >= {low}, got {v}")
    return v


def _kappa(kappa: Any) -> float:
    k = float(kappa)
    if not k > 1.0 or math.isnan(k):
        raise ValueError(f"kappa must be > 1 (a condition number bound), got {kappa!r}")
    return k


def _eps(eps: Any) -> float:
    e = float(eps)
    if not 0.0 < e < 1.0:
        raise ValueError(f"eps must lie in the open interval (0, 1), got {eps!r}")
    return e


def _C(C: Any) -> float:
    c = float(C)
    if not c > 0.0 or not math.isfinite(c):
        raise ValueError(f"C must be a positive finite constant, got {C!r}")
    return c


def _prefactor(prefactor: Any) -> mpmath.mpf:
    """The leading factor a of a * (C/x)^d as an mpmath number."""
    if prefactor == "eq7":
        return 1 / mpmath.sqrt(2 * mpmath.pi)
    if prefactor == "lemma1":
        return mpmath.sqrt(2 * mpmath.pi)
    raise ValueError(f"prefactor must be one of {PREFACTORS}, got {prefactor!r}")


def _check_NK(N: Any, K: Any) -> tuple[int, int]:
    N = _int("N", N, 1)
    K = _int("K", K, 1)
    if K > N:
        raise ValueError(f"K must be <= N for an [N, K] code, got K={K}, N={N}")
    if K < 2:
        raise ValueError(f"K must be >= 2 (Lemma 1 needs u >= 2 rows), got K={K}")
    return N, K


# ---------------------------------------------------------------------------
# analytic side


def chen_dongarra_tail(
    u: int, v: int, x: float, C: float = C_CHEN_DONGARRA, prefactor: str = "eq7"
) -> float:
    """Chen-Dongarra upper bound on ``P(cond(M) / (v / (|v-u|+1)) > x)``.

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
    """
    u = _int("u", u, 2)
    v = _int("v", v, 2)
    d = abs(v - u) + 1
    x = float(x)
    if not x >= d:
        raise ValueError(f"x must be >= |v-u|+1 = {d} (domain of Chen-Dongarra Thm. 4.5), got {x}")
    a = _prefactor(prefactor)
    return float(a * (mpmath.mpf(_C(C)) / x) ** d)


def gaussian_condition_bound(
    u: int, v: int, kappa: float, C: float = C_CHEN_DONGARRA, prefactor: str = "eq7"
) -> float:
    """Upper bound on ``P(cond(M) > kappa)`` for a ``u x v`` standard Gaussian M.

    :func:`chen_dongarra_tail` at ``x = kappa (|v-u|+1) / v``, the step (b) of
    the proof of Theorem 2 (Kadhe et al. 2019, eqs. (12)-(13)). The domain
    ``x >= |v-u|+1`` becomes ``kappa >= v``; outside it a ValueError is raised.
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
    """``f(t)`` of eq. (7) for every ``t = K, ..., N`` (float array, may hold inf)."""
    N, K = _check_NK(N, K)
    kappa, C, a = _kappa(kappa), _C(C), _prefactor(prefactor)
    return np.array([float(_f_mp(N, K, t, kappa, C, a)) for t in range(K, N + 1)])


def kappa_condition(
    s: int, m: int, eps: float, C: float = C_CHEN_DONGARRA, prefactor: str = "eq7"
) -> float:
    """The threshold of Kadhe et al. 2019, eq. (8): Theorem 2 needs ``kappa`` above it.

    ``max{ (a / eps) ** (1/(s+1)) * C (m+s)/(s+1),  C s / 2 }`` with ``a`` the
    prefactor (``1/sqrt(2 pi)`` in eq. (8)). The first term makes
    ``f(m+s) <= eps``; the second makes ``f`` decreasing on ``[m, m+s]``
    (ratio ``f(t+1)/f(t) <= (m+s-t) C / (2 kappa) <= C s / (2 kappa)``).
    """
    s = _int("s", s, 0)
    m = _int("m", m, 1)
    eps, C, a = _eps(eps), _C(C), _prefactor(prefactor)
    first = (a / eps) ** (mpmath.mpf(1) / (s + 1)) * C * (m + s) / (s + 1)
    return float(max(first, mpmath.mpf(C) * s / 2))


def is_monotone_decreasing(
    N: int, K: int, kappa: float, C: float = C_CHEN_DONGARRA, prefactor: str = "eq7"
) -> bool:
    """Whether ``f(t)`` of eq. (7) is strictly decreasing on ``t = K..N`` (exact, mpmath)."""
    N, K = _check_NK(N, K)
    kappa, C, a = _kappa(kappa), _C(C), _prefactor(prefactor)
    vals = [_f_mp(N, K, t, kappa, C, a) for t in range(K, N + 1)]
    return all(b < c for c, b in zip(vals, vals[1:]))


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

    Raises
    ------
    ValueError
        On bad input, outside the regime (strict), or when no ``t`` in range
        has ``f(t) <= eps`` (no guarantee at all).
    """
    N, K = _check_NK(N, K)
    kappa, eps, C, a = _kappa(kappa), _eps(eps), _C(C), _prefactor(prefactor)
    kmin = kappa_condition(N - K, K, eps, C, prefactor)
    cond8 = kappa > kmin
    vals = [_f_mp(N, K, t, kappa, C, a) for t in range(K, N + 1)]
    monotone = all(b < c for c, b in zip(vals, vals[1:]))
    if strict and not cond8:
        raise ValueError(
            f"kappa={kappa} violates Kadhe et al. eq. (8) for s={N - K}, m={K}: needs "
            f"kappa > {kmin:.6g}; Theorem 2 does not apply (strict=False uses the bare union bound)"
        )
    if not cond8:
        warnings.warn(
            f"kappa={kappa} violates eq. (8) (needs kappa > {kmin:.6g}); the result rests on the "
            "union bound alone" + ("" if monotone else " and f is not monotone on [K, N]"),
            RegimeWarning,
            stacklevel=2,
        )
    t_hi = N if strict else min(N, int(math.floor(kappa)))
    found = None
    for t in range(K, t_hi + 1):
        if vals[t - K] <= eps:
            found = t
            break
    if found is None:
        raise ValueError(
            f"no t in [{K}, {t_hi}] has f(t) <= eps={eps} (kappa={kappa}, C={C}, "
            f"prefactor={prefactor!r}): Theorem 2 guarantees nothing here"
        )
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
        f_t_star=float(vals[found - K]),
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
    """
    n = _int("n", n, 1)
    s = _int("s", s, 0)
    if s >= n:
        raise ValueError(f"s must be < n, got s={s}, n={n}")
    if n - s < 2:
        raise ValueError(f"n - s must be >= 2 (Lemma 1 needs >= 2 rows), got n={n}, s={s}")
    return s_kappa_bound(n, n - s, kappa, eps, C, prefactor, strict=strict).s_kappa


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
    """
    N, K = _check_NK(N, K)
    s_kappa = _int("s_kappa", s_kappa, 0)
    kappa, eps, a = _kappa(kappa), _eps(eps), _prefactor(prefactor)
    t = N - s_kappa
    if t < K:
        raise ValueError(f"s_kappa must be <= N - K = {N - K}, got {s_kappa}")

    def c_t(u: int) -> mpmath.mpf:
        r = u - K + 1
        return (mpmath.mpf(eps) / (a * math.comb(N, u))) ** (mpmath.mpf(1) / r) * kappa * r / u

    high = c_t(t)
    low = max((c_t(u) for u in range(K, t)), default=mpmath.mpf(0))
    return (float(low), float(high)) if low < high else None


# ---------------------------------------------------------------------------
# empirical side: condition numbers


def condition_numbers(M: Any) -> np.ndarray:
    """2-norm condition numbers of a stack of matrices, batched (no Python loop per matrix).

    Only the extreme singular values matter, so only the extreme eigenvalues
    of the small Gram matrix (``M M^T`` or ``M^T M``, whichever is smaller) are
    computed, vectorised over the whole stack: a Householder reduction to
    tridiagonal form followed by Laguerre's iteration for the two extreme
    eigenvalues (real matrices with min(u, v) >= 3; otherwise a batched
    ``eigvalsh``). Where that gives a condition number above
    :data:`GRAM_LIMIT` (where squaring loses accuracy: relative error
    ~ ``kappa^2 * 1e-16``) the result is recomputed by a batched SVD. Singular
    matrices give ``inf``. Results above :data:`FLOAT64_RELIABLE_LIMIT` are not
    trustworthy in float64: use :func:`condition_number_mp`.

    Parameters
    ----------
    M : array_like, shape (..., u, v)
        Real or complex.

    Returns
    -------
    ndarray, shape (...)
    """
    M = np.asarray(M)
    if M.ndim < 2 or M.shape[-1] < 1 or M.shape[-2] < 1:
        raise ValueError(f"M must have shape (..., u, v) with u, v >= 1, got {M.shape}")
    if not np.issubdtype(M.dtype, np.number) or np.issubdtype(M.dtype, np.integer):
        M = M.astype(np.float64)
    batch = M.shape[:-2]
    M = M.reshape((-1,) + M.shape[-2:])
    u, v = M.shape[-2:]
    out = np.empty(M.shape[0])
    # small blocks keep the temporaries in cache (and avoid page-faulting fresh memory)
    block = max(1, _COND_BLOCK_ENTRIES // (u * v))
    for start in range(0, M.shape[0], block):
        out[start : start + block] = _condition_block(M[start : start + block])
    return out.reshape(batch)


def _condition_block(M: np.ndarray) -> np.ndarray:
    u, v = M.shape[-2:]
    if np.iscomplexobj(M) or min(u, v) < 3:
        Mh = np.conj(np.swapaxes(M, -1, -2))
        out = _gram_condition(M @ Mh if u <= v else Mh @ M)
    else:
        Mt = np.ascontiguousarray(np.moveaxis(M, 0, -1))  # (u, v, b): loops run over u, v only
        W = np.einsum("ikb,jkb->ijb", Mt, Mt) if u <= v else np.einsum("kib,kjb->ijb", Mt, Mt)
        d, e2 = _householder_tridiagonal(W)
        with np.errstate(all="ignore"):
            lo, hi = _laguerre_extremes(d, e2)
            out = np.sqrt(hi / lo)
        out[~(lo > 0)] = np.inf
    redo = ~(out <= GRAM_LIMIT)
    if np.any(redo):
        sv = np.linalg.svd(M[redo], compute_uv=False)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[redo] = np.where(sv[:, -1] > 0, sv[:, 0] / sv[:, -1], np.inf)
    return out


def _householder_tridiagonal(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Householder reduction of symmetric matrices stored (K, K, b) to tridiagonal form.

    Vectorised over the last axis (a loop over K - 2 reflections only). ``A`` is
    overwritten. Returns the diagonals ``d`` (K, b) and squared off-diagonals ``e2`` (K-1, b).
    """
    K, _, b = A.shape
    d = np.empty((K, b))
    e = np.empty((K - 1, b))
    for k in range(K - 2):
        x = A[k + 1 :, k]
        xn = np.sqrt(np.einsum("ib,ib->b", x, x))
        alpha = np.where(x[0] >= 0, -xn, xn)
        v = x.copy()
        v[0] -= alpha
        vv = np.einsum("ib,ib->b", v, v)
        with np.errstate(divide="ignore"):
            beta = np.where(vv > 0, 2.0 / vv, 0.0)
        S = A[k + 1 :, k + 1 :]
        p = np.einsum("ijb,jb->ib", S, v)
        p *= beta
        w = p - (0.5 * beta * np.einsum("ib,ib->b", v, p)) * v
        S -= v[:, None] * w[None, :]
        S -= w[:, None] * v[None, :]
        d[k] = A[k, k]
        e[k] = alpha
    d[K - 2] = A[K - 2, K - 2]
    d[K - 1] = A[K - 1, K - 1]
    e[K - 2] = A[K - 1, K - 2]
    return d, e * e


def _laguerre_extremes(d: np.ndarray, e2: np.ndarray, maxit: int = 40) -> tuple:
    """Smallest and largest eigenvalues of symmetric tridiagonals (diagonal ``d`` (K, b),
    squared off-diagonal ``e2``) by Laguerre's method started outside the spectrum.

    For a polynomial with real roots Laguerre's iteration from outside the roots converges
    monotonically (cubically near the root) to the nearest one. The logarithmic derivatives
    of det(T - sigma I) come from the pivot recurrence q_i = d_i - sigma - e2_{i-1}/q_{i-1}.
    Starts: max(0, lower Gershgorin bound) (the matrices are Gram matrices, PSD) and the upper
    Gershgorin bound. An evaluation that lands on an eigenvalue (q_i = 0) ends the iteration.
    """
    K, b = d.shape
    e = np.sqrt(e2)
    rad = np.zeros_like(d)
    rad[:-1] += e
    rad[1:] += e
    hi = np.max(d + rad, axis=0)
    lo = np.maximum(np.min(d - rad, axis=0), 0.0)
    sig = np.stack([lo, hi])
    tol = 1e-15 * np.abs(hi)
    active = np.ones((2, b), dtype=bool)
    for _ in range(maxit):
        q = d[0] - sig
        t = -1.0 / q  # q'/q
        u = np.zeros_like(q)  # q''/q
        G = t.copy()
        H = t * t
        for i in range(1, K):
            r = e2[i - 1] / q
            q = d[i] - sig - r
            qp = -1.0 + r * t
            qpp = r * (u - 2.0 * t * t)
            t = qp / q
            u = qpp / q
            G += t
            H += t * t - u
        disc = np.sqrt(np.maximum((K - 1) * (K * H - G * G), 0.0))
        step = K / np.where(G >= 0, G + disc, G - disc)
        ok = np.isfinite(step)
        step = np.where(active & ok, step, 0.0)
        sig -= step
        active &= ok & (np.abs(step) > tol)
        if not active.any():
            break
    return sig[0], sig[1]


def _gram_condition(gram: np.ndarray) -> np.ndarray:
    """sqrt(lambda_max / lambda_min) of a stack of Hermitian PSD Gram matrices."""
    w = np.linalg.eigvalsh(gram)
    lo, hi = w[:, 0], w[:, -1]
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.sqrt(hi / lo)
    k[~(lo > 0)] = np.inf
    return k


def condition_number_mp(M: Any, dps: int = 50) -> mpmath.mpf:
    """2-norm condition number of one matrix from an mpmath SVD at ``dps`` digits.

    The entries are taken as exact (a float64 matrix is converted exactly).
    """
    A = np.asarray(M)
    if A.ndim != 2:
        raise ValueError(f"M must be a 2-D matrix, got shape {A.shape}")
    dps = _int("dps", dps, 16)
    with mpmath.workdps(dps):
        if np.iscomplexobj(A):
            mat = mpmath.matrix([[mpmath.mpc(complex(z)) for z in row] for row in A])
            sv = mpmath.svd_c(mat, compute_uv=False)
        else:
            mat = mpmath.matrix([[mpmath.mpf(float(z)) for z in row] for row in A])
            sv = mpmath.svd_r(mat, compute_uv=False)
        svals = [abs(x) for x in sv]
        smin = min(svals)
        return +(max(svals) / smin) if smin > 0 else mpmath.inf


def _vandermonde_nodes_mp(N: int, nodes: str) -> list:
    if nodes == "equispaced":
        return [mpmath.mpf(0)] if N == 1 else [-1 + mpmath.mpf(2 * j) / (N - 1) for j in range(N)]
    if nodes == "chebyshev":
        return [mpmath.cos((2 * j + 1) * mpmath.pi / (2 * N)) for j in range(N)]
    if nodes == "roots_of_unity":
        return [mpmath.expjpi(mpmath.mpf(2 * j) / N) for j in range(N)]
    raise ValueError(f"nodes must be 'equispaced', 'chebyshev' or 'roots_of_unity', got {nodes!r}")


def vandermonde_condition_mp(
    K: int, N: int, columns: Any = None, nodes: str = "chebyshev", dps: int = 60
) -> mpmath.mpf:
    """Exact-node condition number of a Vandermonde submatrix, in mpmath at ``dps`` digits.

    The ``K x N`` generator ``G[i, j] = x_j ** i`` of :func:`gctheory.generators.
    vandermonde_generator`, restricted to ``columns`` (default: all), with the
    nodes computed at ``dps`` digits (not rounded to float64 first). This is
    the reference wherever a float64 result exceeds :data:`FLOAT64_RELIABLE_LIMIT`.
    Raise ``dps`` until the result is stable (about ``log10(kappa) + 20`` digits).
    """
    K, N = _int("K", K, 1), _int("N", N, 1)
    if K > N:
        raise ValueError(f"K must be <= N, got K={K}, N={N}")
    cols = list(range(N)) if columns is None else [int(c) for c in columns]
    if not cols or len(set(cols)) != len(cols) or not all(0 <= c < N for c in cols):
        raise ValueError(f"columns must be distinct indices in [0, {N}), got {columns!r}")
    dps = _int("dps", dps, 16)
    with mpmath.workdps(dps):
        x = _vandermonde_nodes_mp(N, nodes)
        mat = mpmath.matrix([[x[c] ** i for c in cols] for i in range(K)])
        if nodes == "roots_of_unity":
            sv = mpmath.svd_c(mat, compute_uv=False)
        else:
            sv = mpmath.svd_r(mat, compute_uv=False)
        svals = [abs(z) for z in sv]
        smin = min(svals)
        return +(max(svals) / smin) if smin > 0 else mpmath.inf


# ---------------------------------------------------------------------------
# Monte Carlo twin of the tail bound

_MC_BLOCK_ENTRIES = 1 << 22  # floats per sub-batch inside one engine chunk (~32 MB)
_COND_BLOCK_ENTRIES = 1 << 18  # floats per block of condition_numbers (~2 MB)


def _cond_exceeds(u: int, v: int, kappa: float, rng: np.random.Generator, size: int) -> np.ndarray:
    """Engine event: cond(M) > kappa for ``size`` fresh u x v standard Gaussian matrices."""
    block = max(1, _MC_BLOCK_ENTRIES // (u * v))
    out = np.empty(size, dtype=bool)
    for start in range(0, size, block):
        n = min(block, size - start)
        out[start : start + n] = condition_numbers(rng.standard_normal((n, u, v))) > kappa
    return out


def condition_tail_mc(
    u: int,
    v: int,
    kappa: float,
    trials: int,
    *,
    rng: Any = None,
    executor: Any = None,
    level: float = 0.99,
    chunk_size: int | None = None,
) -> Estimate:
    """Monte Carlo estimate of ``P(cond(M) > kappa)`` for a u x v standard Gaussian M.

    The twin of :func:`gaussian_condition_bound` (Kadhe et al. 2019, Lemma 1).
    Matrices are drawn and conditioned in batches (:func:`condition_numbers`)
    inside :func:`gctheory.montecarlo.estimate_probability`, so the result is
    seeded, has a Wilson interval at ``level``, and is bit-identical serially
    or on any executor.
    """
    u = _int("u", u, 1)
    v = _int("v", v, 1)
    kappa = _kappa(kappa)
    trials = _int("trials", trials, 1)
    event = partial(_cond_exceeds, u, v, kappa)
    return estimate_probability(
        event, trials, rng=rng, executor=executor, level=level, chunk_size=chunk_size
    )


def _subset_max_exceeds(
    N: int, K: int, t: int, kappa: float, rng: np.random.Generator, size: int
) -> np.ndarray:
    """Engine event: max over all t-column subsets of cond(G_T) > kappa, G a K x N Gaussian."""
    subsets = _combinations_array(N, t)
    per_gen = len(subsets) * K * t
    block = max(1, _MC_BLOCK_ENTRIES // per_gen)
    out = np.empty(size, dtype=bool)
    for start in range(0, size, block):
        n = min(block, size - start)
        Gt = rng.standard_normal((n, N, K))  # transposed generators: rows are columns of G
        sub = np.swapaxes(Gt[:, subsets], -1, -2)  # (n, n_subsets, K, t)
        out[start : start + n] = (condition_numbers(sub) > kappa).any(axis=1)
    return out


def subset_failure_mc(
    N: int,
    K: int,
    t: int,
    kappa: float,
    trials: int,
    *,
    rng: Any = None,
    executor: Any = None,
    level: float = 0.99,
    max_subsets: int = 20_000,
) -> Estimate:
    """Monte Carlo ``P(max_{|T| = t} cond(G_T) > kappa)`` for a K x N standard Gaussian G.

    The twin of :func:`straggler_union_bound` (Kadhe et al. 2019, eq. (11)):
    Theorem 2 says this is ``<= f(t) <= eps`` at ``t = t*``. Every one of the
    ``binom(N, t)`` subsets of every sampled generator is evaluated (batched),
    so ``binom(N, t) <= max_subsets`` is required.
    """
    N, K = _check_NK(N, K)
    t = _int("t", t)
    if not K <= t <= N:
        raise ValueError(f"t must lie in [K, N] = [{K}, {N}], got t={t}")
    if math.comb(N, t) > max_subsets:
        raise ValueError(
            f"binom(N, t) = {math.comb(N, t)} exceeds max_subsets={max_subsets}: "
            "exhaustive evaluation per sample is not tractable"
        )
    event = partial(_subset_max_exceeds, N, K, t, _kappa(kappa))
    return estimate_probability(
        event, _int("trials", trials, 1), rng=rng, executor=executor, level=level
    )


def _empirical_s_kappa_sampler(
    N: int, K: int, kappa: float, rng: np.random.Generator, size: int
) -> np.ndarray:
    """Engine sampler: empirical s_kappa (all subsets, -1 if cond(G) > kappa) of Gaussian G's."""
    Gt = rng.standard_normal((size, N, K))
    value = np.full(size, -1.0)
    alive = np.ones(size, dtype=bool)
    for s in range(0, N - K + 1):
        idx = np.flatnonzero(alive)
        if idx.size == 0:
            break
        subsets = _combinations_array(N, N - s)
        block = max(1, _MC_BLOCK_ENTRIES // (len(subsets) * K * (N - s)))
        ok = np.empty(idx.size, dtype=bool)
        for start in range(0, idx.size, block):
            g = Gt[idx[start : start + block]]
            sub = np.swapaxes(g[:, subsets], -1, -2)
            ok[start : start + len(g)] = (condition_numbers(sub) <= kappa).all(axis=1)
        value[idx[ok]] = s
        alive[idx[~ok]] = False
    return value


def empirical_s_kappa_mc(
    N: int,
    K: int,
    kappa: float,
    trials: int,
    *,
    rng: Any = None,
    executor: Any = None,
    level: float = 0.99,
    max_subsets: int = 20_000,
) -> Estimate:
    """Monte Carlo mean of the empirical s_kappa of a K x N standard Gaussian generator.

    Each sample is :func:`empirical_s_kappa` of a fresh generator (exact,
    batched over generators and subsets; -1 when even ``cond(G) > kappa``).
    Compare with Theorem 2's guarantee :func:`s_kappa_bound` to see how
    conservative it is. Requires ``binom(N, t) <= max_subsets`` for every t.
    """
    N, K = _check_NK(N, K)
    worst = max(math.comb(N, t) for t in range(K, N + 1))
    if worst > max_subsets:
        raise ValueError(
            f"up to {worst} subsets per generator exceeds max_subsets={max_subsets}; "
            "use empirical_s_kappa (estimate mode) on individual generators"
        )
    sampler = partial(_empirical_s_kappa_sampler, N, K, _kappa(kappa))
    return estimate_mean(
        sampler, _int("trials", trials, 1), rng=rng, executor=executor, level=level
    )


def _shortfall_event(
    N: int, K: int, kappa: float, target: int, rng: np.random.Generator, size: int
) -> np.ndarray:
    """Engine event: the empirical s_kappa of a fresh Gaussian generator is below ``target``."""
    return _empirical_s_kappa_sampler(N, K, kappa, rng, size) < target


def s_kappa_shortfall_mc(
    N: int,
    K: int,
    kappa: float,
    eps: float,
    trials: int,
    *,
    target: int | None = None,
    C: float = C_CHEN_DONGARRA,
    prefactor: str = "eq7",
    rng: Any = None,
    executor: Any = None,
    level: float = 0.99,
    max_subsets: int = 20_000,
) -> Estimate:
    """Monte Carlo ``P(empirical s_kappa < Theorem 2's s_kappa)`` for K x N Gaussian generators.

    Theorem 2 (Kadhe et al. 2019) promises this is at most ``eps`` (with the
    empirical s_kappa read as "every s' <= s tolerated", the event also covers
    ``t > t*``, so the union bound gives ``sum_{t >= t*} f(t)``, about ``f(t*)``
    when f decreases fast). ``target`` replaces the bound (e.g. for a negative control).
    """
    N, K = _check_NK(N, K)
    kappa = _kappa(kappa)
    bound = s_kappa_bound(N, K, kappa, eps, C, prefactor).s_kappa
    target = bound if target is None else _int("target", target)
    worst = max(math.comb(N, t) for t in range(K, N + 1))
    if worst > max_subsets:
        raise ValueError(f"up to {worst} subsets per generator exceeds max_subsets={max_subsets}")
    event = partial(_shortfall_event, N, K, kappa, target)
    trials = _int("trials", trials, 1)
    return estimate_probability(event, trials, rng=rng, executor=executor, level=level)


# ---------------------------------------------------------------------------
# worst case over column subsets


@dataclass(frozen=True)
class MaxCondition:
    """Worst condition number over the t-column submatrices of a generator.

    Attributes
    ----------
    value : float
        The largest condition number found (inf if a submatrix is singular).
    subset : tuple of int
        Columns of the worst submatrix found.
    exact : bool
        True if every subset was evaluated (``method == "exhaustive"``);
        False means ``value`` is a lower bound on the true worst case.
    method : str
        ``"exhaustive"`` or ``"estimate (random subsets + local search)"``.
    evaluated : int
        Number of submatrices evaluated.
    n_subsets : int
        ``binom(N, t)``.
    float64_reliable : bool
        False if ``value`` exceeds :data:`FLOAT64_RELIABLE_LIMIT`; then
        ``value`` comes from mpmath (see ``value_mp``) when ``mp_dps`` is set.
    value_mp : float or None
        High-precision recomputation of the worst subset's condition number.
    top : tuple
        The few worst ``(condition number, subset)`` pairs, for their structure.
    """

    value: float
    subset: tuple[int, ...]
    exact: bool
    method: str
    evaluated: int
    n_subsets: int
    t: int
    float64_reliable: bool
    value_mp: float | None = None
    top: tuple = field(default=(), repr=False)


def _subset_conditions(G: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """Condition numbers of G[:, T] for each row T of ``subsets``, in memory-bounded blocks."""
    K = G.shape[0]
    t = subsets.shape[1]
    block = max(1, _MC_BLOCK_ENTRIES // (K * t))
    out = np.empty(len(subsets))
    Gt = G.T  # (N, K): gathering rows is contiguous
    for start in range(0, len(subsets), block):
        idx = subsets[start : start + block]
        sub = np.swapaxes(Gt[idx], -1, -2)  # (b, K, t)
        out[start : start + len(idx)] = condition_numbers(sub)
    return out


def _combinations_array(N: int, t: int) -> np.ndarray:
    """All t-subsets of range(N), one per row (sorted within a row), built without a
    Python loop per subset: level j holds the j-subsets of range(n), extended n = 1..N."""
    level = [np.zeros((1, 0), np.intp)] + [np.zeros((0, j), np.intp) for j in range(1, t + 1)]
    for n in range(1, N + 1):
        lowest = max(1, t - (N - n))  # smaller subsets can no longer reach size t
        for j in range(min(n, t), lowest - 1, -1):
            prev = level[j - 1]
            grown = np.empty((len(prev), j), np.intp)
            grown[:, :-1] = prev
            grown[:, -1] = n - 1
            level[j] = np.concatenate([level[j], grown])
        for j in range(0, lowest - 1):
            level[j] = np.zeros((0, j), np.intp)  # free what cannot be completed
    return level[t]


def _gram_bound_sq(G: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """Upper bound tr(W) tr(W^-1) >= cond(G_T)^2, W = G_T G_T^T, for each subset (real G).

    Since lambda_max <= tr(W) and 1/lambda_min <= tr(W^-1) = ||L^-1||_F^2 (W = L L^T), and
    the bound is at most K^2 cond^2. The Gram matrices of a block of subsets come from one
    BLAS product (column outer products @ subset indicators), laid out (K, K, block) so the
    Cholesky factorisation and the forward substitution are loops over K only, vectorised
    over the block. A non-positive pivot (singular or nearly singular G_T) gives inf.
    """
    K, N = G.shape
    P = (G[:, None, :] * G[None, :, :]).reshape(K * K, N)  # (K*K, N)
    out = np.empty(len(subsets))
    block = 8192
    for start in range(0, len(subsets), block):
        idx = subsets[start : start + block]
        b = len(idx)
        S = np.zeros((N, b))
        S[idx.T, np.arange(b)] = 1.0
        W = (P @ S).reshape(K, K, b)
        L = np.zeros((K, K, b))
        ok = np.ones(b, dtype=bool)
        for j in range(K):  # Cholesky, column j
            col = W[j:, j].copy()
            for k in range(j):
                col -= L[j:, k] * L[j, k]
            piv = col[0]
            ok &= piv > 0
            r = np.sqrt(np.where(piv > 0, piv, 1.0))
            L[j, j] = r
            L[j + 1 :, j] = col[1:] / r
        X = np.zeros((K, K, b))  # L^-1, lower triangular
        inv_diag = 1.0 / np.einsum("iib->ib", L)
        for i in range(K):
            acc = X[i]
            acc[i] = 1.0
            for k in range(i):
                acc[: k + 1] -= L[i, k] * X[k, : k + 1]
            acc *= inv_diag[i]
        bound = np.einsum("iib->b", W) * np.einsum("ijb,ijb->b", X, X)
        bound[~ok | ~np.isfinite(bound)] = np.inf  # never prune what could not be bounded
        out[start : start + b] = bound
    return out


def _exhaustive_max(G: np.ndarray, subsets: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``top`` largest condition numbers over ``subsets`` by branch and bound.

    Real G: a cheap upper bound for every subset (:func:`_gram_bound_sq`), then exact
    condition numbers in decreasing order of the bound until the bound falls below the
    ``top``-th largest exact value found (with a 1e-6 relative margin for rounding).
    Complex G: every subset exactly. Returns (values, subset row indices), largest first.
    """
    if np.iscomplexobj(G) or G.shape[0] < 2:
        vals = _subset_conditions(G, subsets)
        order = np.argsort(-vals, kind="stable")[:top]
        return vals[order], order
    ub = _gram_bound_sq(G, subsets)
    order = np.argsort(-ub, kind="stable")
    found_v: list[np.ndarray] = []
    found_i: list[np.ndarray] = []
    kth = -np.inf
    batch = 256
    for start in range(0, len(order), batch):
        cand = order[start : start + batch]
        if len(found_v) and ub[cand[0]] * (1 + 1e-6) < kth:
            break
        v = _subset_conditions(G, subsets[cand]) ** 2
        found_v.append(v)
        found_i.append(cand)
        allv = np.concatenate(found_v)
        if len(allv) >= top:
            kth = np.partition(allv, len(allv) - top)[len(allv) - top]
    vals = np.sqrt(np.concatenate(found_v))
    idx = np.concatenate(found_i)
    o = np.argsort(-vals, kind="stable")[:top]
    return vals[o], idx[o]


def _local_search(
    G: np.ndarray, start: np.ndarray, rng: np.random.Generator, max_rounds: int
) -> tuple[float, np.ndarray, int]:
    """Greedy swap ascent: replace one column in T by one outside while cond increases."""
    N = G.shape[1]
    T = np.sort(start)
    best = float(_subset_conditions(G, T[None, :])[0])
    evaluated = 1
    for _ in range(max_rounds):
        outside = np.setdiff1d(np.arange(N), T)
        if outside.size == 0 or not np.isfinite(best):
            break
        cand = np.repeat(T[None, :], len(T) * len(outside), axis=0)
        pos = np.repeat(np.arange(len(T)), len(outside))
        cand[np.arange(len(cand)), pos] = np.tile(outside, len(T))
        vals = _subset_conditions(G, cand)
        evaluated += len(cand)
        j = int(np.argmax(vals))
        if not vals[j] > best:
            break
        best, T = float(vals[j]), np.sort(cand[j])
    return best, T, evaluated


def max_condition(
    G: Any,
    t: int,
    *,
    exhaustive_limit: int = 200_000,
    samples: int = 20_000,
    starts: int = 8,
    max_rounds: int = 50,
    top: int = 5,
    mp_dps: int | None = 60,
    mp_reference: Callable[[tuple[int, ...]], Any] | None = None,
    rng: Any = None,
) -> MaxCondition:
    """Worst 2-norm condition number over all ``K x t`` column submatrices of ``G``.

    This is the quantity Theorem 2 of Kadhe et al. 2019 bounds (eq. (10)):
    ``max_{|T| = t} cond(G_T) <= kappa`` means the code decodes stably from any
    t survivors. If ``binom(N, t) <= exhaustive_limit`` every subset is
    evaluated (batched) and the result is exact (``exact=True``). Otherwise
    the result is an *estimate*, a lower bound on the worst case: the worst of
    ``samples`` random subsets, each of the ``starts`` worst then improved by a
    greedy swap local search.

    If the worst value exceeds :data:`FLOAT64_RELIABLE_LIMIT` and ``mp_dps``
    is given, the worst subset's condition number is recomputed in mpmath
    from G's entries (``value_mp``); a :class:`Float64Warning` is issued when
    ``mp_dps`` is None. For a matrix whose float64 entries are themselves
    rounded (a Vandermonde matrix), pass ``mp_reference``: a function of the
    column subset returning the exact condition number, e.g.
    ``functools.partial(vandermonde_condition_mp, K, N, nodes="chebyshev")``.
    """
    G = np.asarray(G)
    if G.ndim != 2:
        raise ValueError(f"G must be a K x N matrix, got shape {G.shape}")
    K, N = G.shape
    if K > N:
        raise ValueError(f"G must have K <= N, got shape {G.shape}")
    if not np.all(np.isfinite(G)):
        raise ValueError("G must have finite entries")
    t = _int("t", t)
    if not K <= t <= N:
        raise ValueError(f"t must lie in [K, N] = [{K}, {N}], got t={t}")
    exhaustive_limit = _int("exhaustive_limit", exhaustive_limit, 1)
    n_sub = math.comb(N, t)
    rng = np.random.default_rng(rng)
    if n_sub <= exhaustive_limit:
        subsets = _combinations_array(N, t)
        top_vals, top_idx = _exhaustive_max(G, subsets, max(1, top))
        best_val, best_T = float(top_vals[0]), subsets[top_idx[0]]
        tops = tuple(
            (float(v), tuple(int(c) for c in subsets[i])) for v, i in zip(top_vals, top_idx)
        )
        exact, method, evaluated = True, "exhaustive", n_sub
    else:
        samples = _int("samples", samples, 1)
        subsets = np.sort(rng.random((samples, N)).argsort(axis=1)[:, :t], axis=1)
        vals = _subset_conditions(G, subsets)
        evaluated = samples
        order = np.argsort(-vals, kind="stable")[: max(1, starts)]
        found = []
        for i in order:
            val, T, ev = _local_search(G, subsets[i], rng, max_rounds)
            evaluated += ev
            found.append((val, tuple(int(c) for c in T)))
        found = sorted(set(found), key=lambda p: -p[0])
        best_val, best_T = found[0][0], np.array(found[0][1])
        tops = tuple(found[:top])
        exact, method = False, "estimate (random subsets + local search)"
    reliable = best_val <= FLOAT64_RELIABLE_LIMIT
    value_mp = None
    if not reliable:
        if mp_dps is None:
            warnings.warn(
                f"worst condition number {best_val:.3g} exceeds {FLOAT64_RELIABLE_LIMIT:g}: "
                "float64 value unreliable (pass mp_dps to recompute)",
                Float64Warning,
                stacklevel=2,
            )
        else:
            T = tuple(int(c) for c in best_T)
            ref = mp_reference(T) if mp_reference is not None else None
            value_mp = float(ref if ref is not None else condition_number_mp(G[:, T], dps=mp_dps))
    return MaxCondition(
        value=best_val,
        subset=tuple(int(c) for c in best_T),
        exact=exact,
        method=method,
        evaluated=evaluated,
        n_subsets=n_sub,
        t=t,
        float64_reliable=reliable,
        value_mp=value_mp,
        top=tops,
    )


@dataclass(frozen=True)
class EmpiricalSKappa:
    """Empirical straggler threshold of an actual generator under constraint kappa.

    ``value`` is the largest s such that every ``(N - s')``-column submatrix has
    condition number ``<= kappa`` for all ``s' <= s`` (None if even ``cond(G)``
    exceeds kappa). ``exact`` is False when some step used an estimate of the
    worst case (then ``value`` is an upper bound on the true threshold: an
    estimated worst case can only miss bad subsets).
    """

    value: int | None
    exact: bool
    kappa: float
    steps: tuple[MaxCondition, ...]


def empirical_s_kappa(
    G: Any,
    kappa: float,
    *,
    exhaustive_limit: int = 200_000,
    samples: int = 20_000,
    max_s: int | None = None,
    rng: Any = None,
    mp_dps: int | None = 60,
    mp_reference: Callable[[tuple[int, ...]], Any] | None = None,
) -> EmpiricalSKappa:
    """Largest number of stragglers s with ``max_{|T| = N - s} cond(G_T) <= kappa``.

    Definition 1 of Kadhe et al. 2019 applied to an actual K x N generator:
    s = 0, 1, ... is increased while :func:`max_condition` over the
    ``(N - s)``-column submatrices stays ``<= kappa`` (mpmath value used when
    float64 is unreliable). Compare with Theorem 2's guarantee
    :func:`s_kappa_bound`, which holds with probability ``>= 1 - eps``.
    """
    G = np.asarray(G)
    if G.ndim != 2 or G.shape[0] > G.shape[1]:
        raise ValueError(f"G must be a K x N matrix with K <= N, got shape {G.shape}")
    kappa = _kappa(kappa)
    K, N = G.shape
    top_s = N - K if max_s is None else min(N - K, _int("max_s", max_s, 0))
    rng = np.random.default_rng(rng)
    steps: list[MaxCondition] = []
    value: int | None = None
    for s in range(0, top_s + 1):
        mc = max_condition(
            G,
            N - s,
            exhaustive_limit=exhaustive_limit,
            samples=samples,
            rng=rng,
            mp_dps=mp_dps,
            mp_reference=mp_reference,
        )
        steps.append(mc)
        worst = mc.value_mp if mc.value_mp is not None else mc.value
        if worst > kappa:
            break
        value = s
    return EmpiricalSKappa(
        value=value, exact=all(m.exact for m in steps), kappa=kappa, steps=tuple(steps)
    )
