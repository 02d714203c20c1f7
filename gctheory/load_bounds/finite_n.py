"""*Finite-n* lower bounds on the load that follow exactly from the proof steps of
Wang et al. [1]: the single-column bound (eq. (26), left-hand side, valid for every
code of load ``d``), the union bound over a set of columns with pairwise disjoint
supports (eqs. (23)-(24)), Lemma 2 made constructive (:func:`disjoint_support_columns`),
the exact law of the number of all-zero columns among such a set (the random variable
``Y(I_d*)`` of Appendix E, eqs. (41)-(45) evaluated exactly instead of through
Chebyshev's inequality), and the smallest load they leave.

.. [1] S. Wang, J. Liu, N. Shroff, "Fundamental limits of approximate gradient
   coding", Proc. ACM Meas. Anal. Comput. Syst. 3(3), 2019.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from gctheory._validate import check_array, check_memory, check_real
from gctheory.load_bounds._common import (
    LoadBound,
    _check_d,
    _check_eps,
    _check_ns,
    _check_target,
    _int,
    _sequence,
)
from gctheory.load_bounds.group_failure import (
    _EXACT_BUDGET,
    _PMF_MAX_S,
    _clog1p,
    _exact_cost,
    _group_failure,
    _log_binom_pmf_at_mean,
    _saddle_circle,
    _saddle_finish,
    _saddle_log_t,
    _tail_binomials,
    group_failure_probability,
)

__all__ = [
    "single_column_lower_bound",
    "union_lower_bound",
    "zero_column_count_pmf",
    "zero_column_tail_lower_bound",
    "min_load_lower_bound",
    "disjoint_support_columns",
    "matrix_union_lower_bound",
]


def single_column_lower_bound(n: int, s: int, d: int) -> Fraction | float:
    """``C(n - d, s - d) / C(n, s)``, the left side of eq. (26) of Wang et al. 2019 (exact;
    a ``float`` from log-gammas when ``d > 10**4``).

    The probability that a column with support ``d`` is all-zero in ``A_S``.
    A code with load ``d`` (at most ``d`` non-zeros per row) has a column with
    at most ``d`` non-zeros (``n d`` non-zeros over ``n`` columns), so *every*
    such code fails (``err(A_S) >= 1``) with at least this probability: a
    rigorous finite-n bound needing neither Lemma 1 nor Lemma 2. Its
    asymptotic form is ``(1 + o(1)) delta^d``.

    Parameters
    ----------
    n : int
        Workers, ``n >= 2``.
    s : int
        Stragglers, ``0 <= s < n``.
    d : int
        Load.

    Returns
    -------
    fractions.Fraction or float
        Exact where cheap, else a float.

    Examples
    --------
    >>> from gctheory.load_bounds import single_column_lower_bound
    >>> single_column_lower_bound(10, 3, 2)
    Fraction(1, 15)
    """
    n, s = _check_ns(n, s)
    d = _check_d(d, n)
    if d > s:
        return Fraction(0)
    if d <= 10**4:  # C(n-d, s-d)/C(n, s) = prod_{i<d} (s-i)/(n-i): d factors, exact
        return Fraction(math.prod(range(s - d + 1, s + 1)), math.prod(range(n - d + 1, n + 1)))
    # beyond, in mpmath: log-gammas with the digits their size needs
    with mpmath.workdps(30 + len(str(n))):
        log_p = (
            mpmath.loggamma(s + 1)
            - mpmath.loggamma(s - d + 1)
            - mpmath.loggamma(n + 1)
            + mpmath.loggamma(n - d + 1)
        )
        return float(mpmath.exp(log_p))


def union_lower_bound(n: int, s: int, d: int) -> Fraction | float:
    """Eq. (24) of Wang et al. 2019: P(one of ``t = floor(n/d^2)`` disjoint columns is all-zero).

    By Lemma 2 every ``A`` in ``U_n^d`` has ``t`` columns with pairwise
    disjoint supports of size ``d``; by Lemma 1 (and eq. (23)) every code of
    load ``d`` fails with probability at least this exact inclusion-exclusion
    sum ``sum_k (-1)^{k+1} C(t,k) C(n - kd, s - kd) / C(n, s)``. A finite-n
    bound, exact (a ``float`` beyond the exact budget, as
    :func:`group_failure_probability`); it inherits Lemma 1, whose column step is
    asserted rather than proved in the paper.

    Parameters
    ----------
    n : int
        Workers, ``n >= 2``.
    s : int
        Stragglers, ``0 <= s < n``.
    d : int
        Load.

    Returns
    -------
    fractions.Fraction or float
        Exact where cheap, else a float.

    Examples
    --------
    >>> from gctheory.load_bounds import union_lower_bound
    >>> union_lower_bound(20, 4, 2)
    Fraction(151, 969)
    """
    n, s = _check_ns(n, s)
    d = _check_d(d, n)
    t = n // (d * d)
    return _group_failure(n, s, Counter({d: t})) if t else Fraction(0)


def zero_column_count_pmf(n: int, s: int, sizes: Sequence[int]) -> list[Fraction]:
    """Exact law of ``Y``, the number of all-zero columns among disjoint-support columns.

    ``Y(I_d*)`` of Appendix E of Wang et al. 2019, computed exactly instead of
    through Chebyshev's inequality: ``P(Y = j) = sum_{k >= j} (-1)^{k-j} C(k, j) S_k``
    with ``S_k`` the k-th inclusion-exclusion sum. Returns ``[P(Y=0), ..., P(Y=t)]``.

    Parameters
    ----------
    n : int
        Workers, ``n >= 2``.
    s : int
        Stragglers, ``0 <= s < n``.
    sizes : sequence of int
        Supports of the disjoint columns.

    Returns
    -------
    list of fractions.Fraction
        ``[P(Y=0), ..., P(Y=t)]``.

    Examples
    --------
    >>> from gctheory.load_bounds import zero_column_count_pmf
    >>> zero_column_count_pmf(6, 2, [2, 2, 2])
    [Fraction(4, 5), Fraction(1, 5), Fraction(0, 1), Fraction(0, 1)]
    """
    n, s = _check_ns(n, s)
    sizes = [_int("size", a) for a in _sequence("sizes", sizes)]
    if any(a < 1 for a in sizes) or sum(sizes) > n:
        raise ValueError(f"sizes must be positive and sum to at most n={n}, got {sizes[:10]}")
    if not sizes:
        return [Fraction(1)]
    if s > _PMF_MAX_S or len(sizes) > 10**4:
        raise ValueError(
            f"s must be <= {_PMF_MAX_S} and sizes at most 10**4 long for this exact law "
            f"(s big-integer binomials, len(sizes)^2 sums), got s = {s}, {len(sizes)} sizes"
        )
    t = len(sizes)
    tails = _tail_binomials(n, s)
    total = tails[0]
    # S_k = sum over k-subsets of groups of C(n - m, s - m): generating function prod (1 + y z^a)
    by_k: list[dict[int, int]] = [{0: 1}]
    for a in sizes:
        nxt = [dict(x) for x in by_k] + [{}]
        for k, poly in enumerate(by_k):
            for m, c in poly.items():
                if m + a <= s:
                    nxt[k + 1][m + a] = nxt[k + 1].get(m + a, 0) + c
        by_k = nxt
    S = [sum(c * tails[m] for m, c in poly.items()) for poly in by_k]
    pmf = []
    for j in range(t + 1):
        num = sum((-1) ** (k - j) * math.comb(k, j) * S[k] for k in range(j, t + 1))
        pmf.append(Fraction(num, total))
    return pmf


def zero_column_tail_lower_bound(n: int, s: int, d: int, c: float | Fraction) -> Fraction | float:
    """Exact ``P(Y > c)`` for ``t = floor(n/d^2)`` disjoint columns of support ``d`` (a
    ``float`` beyond the exact budget, as :func:`group_failure_probability`).

    ``err(A_S)`` is at least the number of all-zero columns of ``A_S``, so by
    Lemmas 1-2 every code of load ``d`` has ``P[err(A_S) > c] >= P(Y > c)``
    (eqs. (41)-(45) of Wang et al. 2019, evaluated exactly instead of through
    Chebyshev's inequality). With equal sizes ``S_k = C(t, k) C(n - kd, s - kd)``
    and ``P(Y = j) = sum_k (-1)^(k-j) C(k, j) S_k / C(n, s)``; only ``j <= c``
    is summed. For ``c < 0`` this is 1; for ``0 <= c < 1`` it is eq. (24).

    Parameters
    ----------
    n : int
        Workers, ``n >= 2``.
    s : int
        Stragglers, ``0 <= s < n``.
    d : int
        Load.
    c : float or fractions.Fraction
        The error threshold.

    Returns
    -------
    fractions.Fraction or float
        Exact where cheap, else a float.

    Examples
    --------
    >>> from gctheory.load_bounds import zero_column_tail_lower_bound
    >>> zero_column_tail_lower_bound(20, 4, 2, 0)
    Fraction(151, 969)
    """
    n, s = _check_ns(n, s)
    d = _check_d(d, n)
    c = check_real(c, "c")
    t = n // (d * d)
    if c < 0:
        return Fraction(1)
    if t == 0:
        return Fraction(0)
    kmax = min(t, s // d)
    if math.floor(c) >= kmax:
        return Fraction(0)
    if kmax * (math.floor(c) + 1) > _TAIL_BUDGET or _exact_cost(s, Counter({d: t})) > _EXACT_BUDGET:
        return _zero_column_tail_float(n, s, d, t, math.floor(c), kmax)
    tails = _tail_binomials(n, s)
    S = [math.comb(t, k) * tails[k * d] for k in range(kmax + 1)]
    # sum_{j <= c} sum_{k >= j} (-1)^(k-j) C(k, j) S_k, the k-sums first: for k <= c,
    # sum_{j <= k} (-1)^(k-j) C(k, j) = [k = 0]; for k > c, sum_{j <= c} (-1)^(k-j) C(k, j)
    # = (-1)^(k-c) C(k-1, c). The same integer in O(kmax) terms instead of O(c kmax).
    cf = min(kmax, math.floor(c))
    below = S[0]
    binom = 1  # C(k - 1, c) at k = c + 1
    for k in range(cf + 1, kmax + 1):
        below += (-1) ** (k - cf) * binom * S[k]
        binom = binom * k // (k - cf)  # C(k, c) from C(k - 1, c)
    return 1 - Fraction(below, tails[0])


_TAIL_BUDGET = 2 * 10**5


def _zero_column_tail_float(n: int, s: int, d: int, t: int, c: int, kmax: int) -> float:
    """``P(Y > c)`` in floating point: ``P(Y = j) = [z^s] (1+z)^n C(t, j) u^j (1-u)^(t-j)
    / C(n, s)`` with ``u = (z/(1+z))^d`` (non-negative coefficients), summed over the
    shorter side of ``c`` (absolute error about ``1e-13 sqrt(n)``)."""
    upper = kmax - c <= max(c + 1, 2000)  # the upper tail directly: no 1 - (1 - tiny)
    js = range(c + 1, kmax + 1) if upper else range(0, c + 1)
    z, log_w = _saddle_circle(n, s)
    points = 2 * len(z)  # the whole circle; the sum runs over its upper half
    if len(js) * points > 10**9:
        raise ValueError(
            f"c: P(Y > c) sums {len(js)} terms over {points} points here (n = {n}, s = {s}, "
            f"d = {d}): too many to answer in seconds; refused"
        )
    with np.errstate(divide="ignore", under="ignore", over="ignore"):
        return _zero_column_tail_sum(n, s, d, t, js, upper, z, log_w)


def _zero_column_tail_sum(n, s, d, t, js, upper, z, log_w) -> float:
    log_u = d * _saddle_log_t(n, s)
    small = log_u.real < math.log(0.5)
    log_1mu = np.empty_like(z)
    log_1mu[small] = _clog1p(-np.exp(log_u[small]))
    log_1mu[~small] = log_u[~small] + 1j * np.pi + _clog1p(-np.exp(-log_u[~small]))
    base = log_w + t * log_1mu
    step = log_u - log_1mu
    ratio = np.exp(step)  # term_{j+1} / term_j = (t - j)/(j + 1) u/(1-u)
    # start at the largest term on the real axis (the mode of Binomial(t, u(r))) and
    # walk both ways by the ratio, so no term that matters underflows
    u_r = (s / n) ** d
    mode = min(max(math.floor((t + 1) * u_r), js[0]), js[-1])
    log_c = math.lgamma(t + 1) - math.lgamma(mode + 1) - math.lgamma(t - mode + 1)
    anchor = np.exp(base + log_c + mode * step)
    total = anchor.copy()
    # Each walk stops early once what it has left is provably negligible against the
    # whole sum (it stopped when every point's own sum had converged, and the
    # points far from the real axis, whose weight is below 1e-300, walked thousands of
    # steps: 0.8 s of ``gctheory load --n 1000000``). At a point whose step factor's
    # modulus, at most |ratio| (t - j)/(j + 1) upwards and |1/ratio| j/(t - j + 1)
    # downwards, is below 1, it only shrinks along the walk, so the terms left sum to at
    # most |term| g/(1 - g); elsewhere to at most every term of the point,
    # |w| (|u| + |1 - u|)^t. The walk stops when these bounds add up to less than 2^-60
    # of the sum's modulus (far below the 1e-13 sqrt(n) error of the rule), or, when the
    # answer is 1 - the sum (the lower side), of the sum that would make it 0.
    floor = 0.0 if upper else len(z) * math.exp(_log_binom_pmf_at_mean(n, s))
    mass = np.exp(log_w.real + t * np.log(np.exp(log_u.real) + np.exp(log_1mu.real)))
    absr = np.abs(ratio)
    term = anchor.copy()  # the walks update their term in place
    for j in range(mode, js[-1]):
        term *= ratio
        term *= (t - j) / (j + 1)
        total += term
        if (j - mode) % 8 == 7 and _walk_done(
            term, total, absr * ((t - j - 1) / (j + 2)), mass, floor
        ):
            break
    term = anchor
    for j in range(mode, js[0], -1):
        term /= ratio
        term *= j / (t - j + 1)
        total += term
        if (mode - j) % 8 == 7 and _walk_done(
            term, total, ((j - 1) / (t - j + 2)) / absr, mass, floor
        ):
            break
    part = _saddle_finish(n, s, float(np.real(np.mean(total))))
    return min(1.0, part) if upper else max(0.0, 1.0 - part)


def _walk_done(
    term: np.ndarray, total: np.ndarray, g: np.ndarray, mass: np.ndarray, floor: float
) -> bool:
    """Whether what the walk has left adds at most ``2^-60`` of the sum's modulus (or of
    ``floor``, if larger): at a point whose step factor ``g`` is below 1, the geometric
    series ``|term| g / (1 - g)``; elsewhere the point's whole ``mass``."""
    left = np.where(g < 1.0, np.abs(term) * (g / np.maximum(1.0 - g, 1e-300)), mass)
    return bool(np.sum(left) <= 2.0**-60 * max(abs(np.sum(total).real), floor))


def _single_column_crossing(n: int, s: int, target: Any) -> int:
    """The smallest ``d`` with ``single_column_lower_bound(n, s, d) <= target``.

    The bound ``prod_{i<d} (s - i)/(n - i)`` does not increase with ``d``, so no smaller
    ``d`` can end :func:`min_load_lower_bound`'s scan: it starts here. The product is
    kept as two unreduced integers and compared exactly, one factor per step (O(d)
    small multiplications, where evaluating each ``d`` afresh as a reduced Fraction cost
    O(d^2) big-integer work: 14 s at n = 5000, s = n - 1).
    """
    q = Fraction(target)
    d, num, den = 1, s, n
    while num * q.denominator > q.numerator * den:
        d += 1
        num *= s - d + 1
        den *= n - d + 1
    return d


def min_load_lower_bound(n: int, s: int, target: float, eps: float = 0.0) -> LoadBound:
    """A finite-n lower bound on the load for ``P[err(A_S) > eps n] <= target``.

    Smallest ``d`` at which the exact proof-step bounds no longer exceed
    ``target``: for every smaller load, every code (within Lemma 1's reduction)
    fails more often than ``target``. The bound used at load ``d`` is the
    largest of the single-column bound (eq. (26), only if ``eps n < 1``), the
    union bound (eq. (24), if ``eps n < 1``) and the exact ``P(Y > eps n)`` of
    :func:`zero_column_tail_lower_bound`.

    Parameters
    ----------
    n : int
        Workers, ``n >= 2``.
    s : int
        Stragglers, ``0 <= s < n``.
    target : float
        Failure probability to reach.
    eps : float
        Error fraction allowed (``err > eps n`` is a failure).

    Returns
    -------
    LoadBound
        Not asymptotic: valid at this ``n`` for the stated ``target``.

    Examples
    --------
    >>> from gctheory.load_bounds import min_load_lower_bound
    >>> b = min_load_lower_bound(100, 10, 0.01)
    >>> b.load, b.kind
    (3, 'lower')
    """
    n, s = _check_ns(n, s)
    t = _check_target(target)
    e = _check_eps(eps)
    c = e * n
    first = _single_column_crossing(n, s, t) if c < 1 else 1
    for d in range(first, n + 1):
        lb = union_lower_bound(n, s, d) if c < 1 else zero_column_tail_lower_bound(n, s, d, c)
        if c < 1:
            lb = max(lb, single_column_lower_bound(n, s, d))
        if lb <= t:
            break
    return LoadBound(
        float(d),
        d,
        "lower",
        "Wang et al. 2019, eqs. (23)-(26) and (41)-(45) evaluated exactly",
        f"finite n; failure probability <= {float(t):g} at error <= eps n; relies on Lemma 1",
    )


# ---------------------------------------------------------------------------
# Lemma 2, constructive


def disjoint_support_columns(A: Any) -> np.ndarray:
    """Columns of ``A`` with pairwise disjoint supports, found greedily (Lemma 2, Wang et al.).

    Greedy by smallest remaining conflict degree (two columns conflict if
    some row has non-zeros in both): pick a column, drop it and its
    conflicting columns, repeat (the procedure of Appendix B, eqs. (19)-(20),
    with a min-degree choice). For ``A`` in ``U_n^d`` (every row and column
    with exactly ``d`` non-zeros) each pick removes at most ``1 + d(d-1)``
    columns, so the result has at least ``ceil(n / (d^2 - d + 1)) >=
    floor(n / d^2)`` columns, as Lemma 2 states. All-zero columns are kept
    (their empty supports are disjoint from every other).

    Returns the sorted column indices.

    Parameters
    ----------
    A : array_like, shape (n, k)
        A coding matrix (rows: workers).

    Returns
    -------
    numpy.ndarray of int
        Indices of columns with pairwise disjoint supports.

    Examples
    --------
    >>> from gctheory.load_bounds import disjoint_support_columns
    >>> from gctheory.codes import cyclic_support
    >>> disjoint_support_columns(cyclic_support(6, 2)).tolist()
    [0, 2, 4]
    """
    # strings, objects and complex numbers were read as supports
    A = check_array(A, "A", ndim=2)
    check_memory(16 * A.shape[1] ** 2, "A", f"the conflicts of {A.shape[1]} columns")
    supp = (A != 0).astype(np.int64)
    conflict = (supp.T @ supp) > 0
    np.fill_diagonal(conflict, False)
    alive = np.ones(A.shape[1], dtype=bool)
    chosen = []
    while alive.any():
        deg = np.where(alive, (conflict & alive).sum(axis=1), np.iinfo(np.int64).max)
        j = int(np.argmin(deg))
        chosen.append(j)
        alive[j] = False
        alive &= ~conflict[j]
    return np.array(sorted(chosen), dtype=np.int64)


def matrix_union_lower_bound(A: Any, s: int) -> Fraction | float:
    """Exact lower bound on ``P(err(A_S) > 0)`` for a given coding matrix ``A`` (eq. (23)).

    Rows are workers; ``s`` uniformly random rows straggle. The columns of
    :func:`disjoint_support_columns` have disjoint supports, so the
    probability that one of them is all-zero in ``A_S`` is an exact
    inclusion-exclusion (:func:`group_failure_probability`); an all-zero column
    forces ``err(A_S) >= 1``, so this lower-bounds the failure probability of
    ``A`` itself (no lemma needed). Equal to it for the d-FRC.

    Parameters
    ----------
    A : array_like, shape (n, k)
        A coding matrix (rows: workers).
    s : int
        Stragglers.

    Returns
    -------
    fractions.Fraction or float
        Exact where cheap, else a float.

    Examples
    --------
    >>> from gctheory.load_bounds import matrix_union_lower_bound
    >>> from gctheory.codes import cyclic_support
    >>> matrix_union_lower_bound(cyclic_support(6, 2), 2)
    Fraction(1, 5)
    """
    A = check_array(A, "A", ndim=2)
    if A.shape[0] < 2:
        raise ValueError(f"A must be a 2-D array with at least 2 rows (workers), got {A.shape}")
    s = _int("s", s)
    if not 0 <= s < A.shape[0]:
        raise ValueError(f"s must satisfy 0 <= s < n = {A.shape[0]} (rows of A), got {s}")
    n = A.shape[0]
    cols = disjoint_support_columns(A)
    sizes = (A[:, cols] != 0).sum(axis=0)
    if (sizes == 0).any():
        return Fraction(1)
    return group_failure_probability(n, s, [int(a) for a in sizes])
