"""Constants, warnings and the parameter checks shared by the conditioning modules."""

from __future__ import annotations

import math
from typing import Any

import mpmath

from gctheory import _names
from gctheory._validate import check_choice, check_int, check_real

__all__ = [
    "C_CHEN_DONGARRA",
    "PREFACTORS",
    "GRAM_LIMIT",
    "FLOAT64_RELIABLE_LIMIT",
    "RegimeWarning",
    "Float64Warning",
]

#: Upper value of the universal constant C of Chen and Dongarra (2005), Thm. 4.5.
C_CHEN_DONGARRA = _names.C_CHEN_DONGARRA  # 6.414

#: The two readings of the leading factor: eq. (7) of Kadhe et al. (= Chen-Dongarra) and Lemma 1.
PREFACTORS = _names.PREFACTORS  # ("eq7", "lemma1")

#: Condition numbers from the Gram matrix's eigenvalues are trusted below this value; above it
#: (relative error of the Gram route ~ kappa^2 * 1e-16) they are recomputed by an SVD.
GRAM_LIMIT = 1e4

#: Above this condition number a float64 SVD result has relative error that may exceed ~1e-4
#: (error ~ kappa * n * 2.2e-16, plus the rounding of the matrix entries themselves).
FLOAT64_RELIABLE_LIMIT = 1e10


class RegimeWarning(UserWarning):
    """A bound is used outside the regime in which the paper proves it.

    Examples
    --------
    >>> import warnings
    >>> from gctheory.conditioning import RegimeWarning, s_kappa_bound
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     b = s_kappa_bound(20, 10, 30.0, 0.1, strict=False)  # eq. (8) fails at this kappa
    >>> [w.category.__name__ for w in caught][:1]
    ['RegimeWarning']
    """


class Float64Warning(UserWarning):
    """A float64 condition number is too large to be trusted.

    Examples
    --------
    >>> from gctheory.conditioning import Float64Warning
    >>> issubclass(Float64Warning, UserWarning)
    True
    """


# ---------------------------------------------------------------------------
# validation helpers


def _int(name: str, v: Any, low: int | None = None) -> int:
    return check_int(v, name, low=low)


def _kappa(kappa: Any) -> float:
    """A condition-number bound: a finite real number > 1."""
    return check_real(kappa, "kappa", low=1.0, low_open=True)


def _eps(eps: Any) -> float:
    """A failure probability in the open interval (0, 1)."""
    return check_real(eps, "eps", low=0.0, high=1.0, low_open=True, high_open=True)


def _C(C: Any) -> float:
    """The Chen-Dongarra constant: a positive finite real number."""
    return check_real(C, "C", low=0.0, low_open=True)


def _prefactor(prefactor: Any) -> mpmath.mpf:
    """The leading factor a of a * (C/x)^d as an mpmath number."""
    check_choice(prefactor, "prefactor", PREFACTORS)
    if prefactor == "eq7":
        return 1 / mpmath.sqrt(2 * mpmath.pi)
    return mpmath.sqrt(2 * mpmath.pi)


def _check_NK(N: Any, K: Any) -> tuple[int, int]:
    N = _int("N", N, 1)
    K = _int("K", K, 1)
    if K > N:
        raise ValueError(f"K must be <= N for an [N, K] code, got K={K}, N={N}")
    if K < 2:
        raise ValueError(f"K must be >= 2 (Lemma 1 needs u >= 2 rows), got K={K}")
    return N, K


def _most_subsets(N: int, ts: range, max_subsets: Any, what: str = "") -> int:
    """``max_t binom(N, t)`` over ``ts``, or ValueError (naming max_subsets) when above
    ``max_subsets``; a huge binomial is recognised without being computed
    (``binom(N, j) >= 2^j`` for ``j <= N/2``)."""
    max_subsets = check_int(max_subsets, "max_subsets", low=1)
    if ts.start >= ts.stop:  # (not len(ts): a range past 2^63 has no len)
        return 0
    mid = min(max(N // 2, ts.start), ts[-1])  # binom(N, t) peaks at t = N/2
    j = min(mid, N - mid)
    if j > max_subsets.bit_length():
        raise ValueError(
            f"max_subsets: up to binom({N}, {mid}) >= 2^{j} subsets{what} exceeds "
            f"max_subsets={max_subsets}; exhaustive evaluation is not tractable"
        )
    worst = math.comb(N, j)
    if worst > max_subsets:
        raise ValueError(
            f"max_subsets: up to binom({N}, {mid}) = {worst:,} subsets{what} exceeds "
            f"max_subsets={max_subsets}; exhaustive evaluation is not tractable"
        )
    return worst


#: floats per sub-batch inside one Monte Carlo engine chunk (~32 MB)
_MC_BLOCK_ENTRIES = 1 << 22
#: floats per block of condition_numbers (~2 MB)
_COND_BLOCK_ENTRIES = 1 << 18
