"""Gaussian condition-number tails by importance sampling (Lemma 1 and Theorem 2 of [1]).

A ``p x q`` standard Gaussian (``p <= q``) is ``M = L Q^T`` with ``L`` lower
triangular, ``L_ii ~ chi_{q-i+1}``, ``L_ij ~ N(0, 1)`` below the diagonal and
``Q`` Haar on the Stiefel manifold, all independent (the Bartlett
decomposition [3]); ``cond(M) = cond(L)``. The event ``cond > x`` is driven by
the last diagonal entry ``c = L_pp`` (``d = q - p + 1`` degrees of freedom,
the exponent of Lemma 1). Given the rest of ``L``, the set of ``c`` with
``cond <= x`` is an interval ``[c_lo, c_hi]`` (``x^2 lambda_min - lambda_max``
of ``L L^T = W_0 + c^2 e e^T`` is concave in ``c^2``), so

    P(cond > x | rest) = F_d(c_lo^2) + 1 - F_d(c_hi^2),   F_d the chi^2_d CDF,

exactly (``c_lo``, ``c_hi`` in closed form for ``p = 2``, from the secular
equation of the rank-one update otherwise). :class:`GaussianConditionTail`
draws a uniformly chosen row's entry from its law given the event, and
weights by ``1 / mean_j [1 / P(cond > x | rest_j)]`` over the rows (exact);
``method="tilt"`` instead draws every ``L_ii`` from a chi law with fewer
degrees of freedom (full support). :class:`SubsetConditionTail` extends the
conditional proposal to Theorem 2's union ``max_{|T| = t} cond(G_T) > kappa``
over the column subsets of a ``K x N`` Gaussian ``G``, as a mixture over
subsets and rows (the union estimator of Owen, Maximov and Chertkov [4]).

References
----------
.. [1] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019.
.. [2] Z. Chen, J. J. Dongarra, "Condition numbers of Gaussian random
   matrices", SIAM J. Matrix Anal. Appl. 27(3), 603-620, 2005.
.. [3] M. S. Bartlett, "On the theory of statistical regression", Proc. Royal
   Soc. Edinburgh 53 (1933); R. J. Muirhead, "Aspects of multivariate
   statistical theory", 1982, Thm. 3.2.14 and 3.2.18.
.. [4] A. B. Owen, Y. Maximov, M. Chertkov, "Importance sampling the union of
   rare events with an application to power systems analysis", Electronic
   Journal of Statistics 13 (2019).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from gctheory._threads import blas_single_thread
from gctheory._validate import check_array, check_choice, check_int, check_real
from gctheory.conditioning import condition_numbers
from gctheory.conditioning._common import _most_subsets
from gctheory.montecarlo import Estimate, importance_sampling

__all__ = [
    "MAX_ENTRIES",
    "ConditionExceeds",
    "GaussianConditionTail",
    "SubsetConditionTail",
    "SubsetMaxExceeds",
    "conditional_tail_probability",
    "condition_tail_2xn",
    "condition_tail_is",
    "subset_failure_is",
]

#: largest condition-number threshold ``x``: the root finding works with ``x^2`` times
#: eigenvalues, which must stay far inside the float range
MAX_CONDITION_X = 1e100


# ---------------------------------------------------------------------------
# the exact law for 2 x n


def condition_tail_2xn(n: int, x: float) -> float:
    """Exact ``P(cond(M) > x)`` for a ``2 x n`` standard Gaussian ``M``, ``n >= 2``.

    ``((2x) / (1 + x^2)) ** (n - 1)`` for ``x >= 1`` (and 1 below). Derivation:
    the eigenvalues of ``W = M M^T`` (real Wishart, 2 x 2, n degrees of
    freedom) have joint density proportional to ``(l1 l2)^((n-3)/2)
    exp(-(l1+l2)/2) (l1 - l2)`` (Muirhead 1982, Thm. 3.2.18); integrating out
    the scale leaves the ratio ``r = l2/l1`` with density proportional to
    ``r^((n-3)/2) (1-r) / (1+r)^n`` on (0, 1), whose CDF is
    ``(2 sqrt(r) / (1 + r))^(n-1)``; ``cond > x`` is ``r < 1/x^2``.
    ``tests/test_tails.py`` checks this CDF in sympy and checks it by
    Monte Carlo.

    Parameters
    ----------
    n : int
        Columns, ``>= 2``.
    x : float
        Threshold.

    Returns
    -------
    float
        ``P(cond(M) > x)``, exact.

    Examples
    --------
    >>> from gctheory.tails import condition_tail_2xn
    >>> f"{condition_tail_2xn(10, 1e3):.6g}"  # (2x / (1 + x^2))^(n - 1)
    '5.11995e-25'
    """
    n = check_int(n, "n", low=2)
    x = check_real(x, "x", low=0.0)
    if x <= 1.0:
        return 1.0
    return math.exp((n - 1) * (math.log(2.0 * x) - math.log1p(x * x)))


# ---------------------------------------------------------------------------
# Bartlett factors and the conditional law of the last diagonal entry


def _bartlett(rng: np.random.Generator, size: int, p: int, q: int) -> np.ndarray:
    """``size`` Bartlett factors of p x q Gaussian matrices (p <= q): (size, p, p)."""
    L = np.zeros((size, p, p))
    k = q - np.arange(p)  # chi degrees of freedom of L_11 .. L_pp
    L[:, np.arange(p), np.arange(p)] = np.sqrt(2.0 * rng.standard_gamma(k / 2.0, size=(size, p)))
    rows, cols = np.tril_indices(p, -1)
    L[:, rows, cols] = rng.standard_normal((size, rows.size))
    return L


def _haar_stiefel(rng: np.random.Generator, size: int, q: int, p: int) -> np.ndarray:
    """``size`` Haar-distributed q x p matrices with orthonormal columns."""
    Z = rng.standard_normal((size, q, p))
    Q, R = np.linalg.qr(Z)
    sign = np.sign(np.diagonal(R, axis1=-2, axis2=-1))
    sign[sign == 0] = 1.0
    return Q * sign[:, None, :]


def _factor(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bartlett factors (positive diagonal) of a stack of p x q matrices, p <= q."""
    Q, R = np.linalg.qr(np.swapaxes(M, -1, -2))
    L = np.swapaxes(R, -1, -2)
    sign = np.sign(np.diagonal(L, axis1=-2, axis2=-1))
    sign[sign == 0] = 1.0
    return L * sign[:, None, :], Q * sign[:, None, :]


def _cond_factor(L: np.ndarray) -> np.ndarray:
    """Condition numbers of lower-triangular factors (closed form for 2 x 2)."""
    if L.shape[-1] == 2:
        a, b, c = np.abs(L[..., 0, 0]), L[..., 1, 0], np.abs(L[..., 1, 1])
        ac = a * c
        s = a * a + b * b + c * c
        disc = ((a - c) ** 2 + b * b) * (s + 2.0 * ac)  # s^2 - 4 a^2 c^2, without cancellation
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (s + np.sqrt(disc)) / (2.0 * ac)
        return np.where(ac > 0, out, np.inf)
    sv = np.linalg.svd(L, compute_uv=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sv[..., -1] > 0, sv[..., 0] / sv[..., -1], np.inf)


def _roots_2(L: np.ndarray, x: float) -> tuple[np.ndarray, np.ndarray]:
    """p = 2: ``cond <= x`` exactly for ``c`` in ``[c_lo, c_hi]`` (closed form).

    ``cond > x`` iff ``a^2 + b^2 + c^2 > |a| c (x + 1/x)`` (from
    ``(s1^2 + s2^2)^2 / (s1 s2)^2 = (1 + r)^2 / r``, decreasing in ``r = (s2/s1)^2``).
    """
    a, b = np.abs(L[:, 0, 0]), L[:, 1, 0]
    k = x + 1.0 / x
    disc = (a * k) ** 2 - 4.0 * (a * a + b * b)
    root = np.sqrt(np.maximum(disc, 0.0))
    c_lo = np.where(disc > 0, 2.0 * (a * a + b * b) / (a * k + root), np.inf)
    c_hi = np.where(disc > 0, (a * k + root) / 2.0, np.inf)
    return c_lo, c_hi


def _secular_setup(L: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues ``nu`` (ascending, ``nu_1 = 0``) of ``W_0 = L_0 L_0^T`` and the squared
    components ``z^2`` of ``e_p`` in its eigenbasis, for ``L L^T = W_0 + c^2 e_p e_p^T``.

    ``W_0`` is singular (``L_0`` has a zero last diagonal entry); its null vector
    is ``(-L'^{-T} l, 1)`` exactly, so ``nu_1 = 0`` and ``z_1^2 = 1/beta^2`` with
    ``beta^2 = 1 + |L'^{-T} l|^2`` are set exactly, the other ``z_i^2`` rescaled to sum
    to ``1 - 1/beta^2``.
    """
    L0 = L.copy()
    L0[:, -1, -1] = 0.0
    nu, V = np.linalg.eigh(L0 @ np.swapaxes(L0, -1, -2))
    z2 = V[:, -1, :] ** 2
    Lp, ell = L[:, :-1, :-1], L[:, -1, :-1]
    y = np.linalg.solve(np.swapaxes(Lp, -1, -2), ell[..., None])[..., 0]
    inv_beta2 = 1.0 / (1.0 + np.sum(y * y, axis=1))
    rest = z2[:, 1:].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        z2[:, 1:] *= np.where(rest > 0, (1.0 - inv_beta2) / rest, 0.0)[:, None]
    z2[:, 0] = inv_beta2
    nu[:, 0] = 0.0
    return nu, z2


def _lambda_min(nu: np.ndarray, z2: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Smallest eigenvalue of ``W_0 + s e e^T`` and its derivative in ``s`` (secular equation).

    Solves ``lam (1 + s sum_{i>=2} z_i^2/(nu_i - lam)) = s z_1^2`` by Newton from the
    right (the function is convex increasing on (0, nu_2), so the iterates decrease
    monotonically to the root).
    """
    n2, w = nu[:, 1:], z2[:, 1:]
    lam = s * z2[:, 0] / (1.0 + s * np.sum(w / n2, axis=1))
    lam = np.minimum(lam, nu[:, 1] * (1.0 - 1e-12))
    for _ in range(100):
        r = n2 - lam[:, None]
        G = lam * (1.0 + s * np.sum(w / r, axis=1)) - s * z2[:, 0]
        Gp = 1.0 + s * np.sum(w * n2 / (r * r), axis=1)
        step = G / Gp
        lam = lam - step
        if np.all(np.abs(step) <= 1e-15 * lam):
            break
    r = n2 - lam[:, None]
    s2 = z2[:, 0] / lam**2 + np.sum(w / (r * r), axis=1)
    return lam, 1.0 / (s * s * s2)


def _lambda_max(nu: np.ndarray, z2: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Largest eigenvalue of ``W_0 + s e e^T`` and its derivative in ``s`` (secular equation).

    With ``lam = nu_p + mu`` and ``g_i = nu_p - nu_i``: ``mu (1 - s sum_{i<p}
    z_i^2/(g_i + mu)) = s z_p^2``, convex increasing in ``mu``; Newton from ``mu = s``.
    """
    g = nu[:, -1:] - nu[:, :-1]
    w = z2[:, :-1]
    mu = s.copy()
    for _ in range(100):
        r = g + mu[:, None]
        K = mu * (1.0 - s * np.sum(w / r, axis=1)) - s * z2[:, -1]
        Kp = 1.0 - s * np.sum(w * g / (r * r), axis=1)
        step = K / Kp
        mu = mu - step
        if np.all(np.abs(step) <= 1e-15 * (mu + nu[:, -1])):
            break
    r = g + mu[:, None]
    s2 = z2[:, -1] / mu**2 + np.sum(w / (r * r), axis=1)
    return nu[:, -1] + mu, 1.0 / (s * s * s2)


def _h(nu: np.ndarray, z2: np.ndarray, s: np.ndarray, x2: float):
    """``x^2 lambda_min - lambda_max`` of ``W_0 + s e e^T`` (>= 0 iff cond <= x) and its slope."""
    lmin, dmin = _lambda_min(nu, z2, s)
    lmax, dmax = _lambda_max(nu, z2, s)
    return x2 * lmin - lmax, x2 * dmin - dmax


def _roots_general(L: np.ndarray, x: float, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Any p: ``cond <= x`` exactly for ``c`` in ``[c_lo, c_hi]``, from the secular equation.

    ``h(s) = x^2 lambda_min - lambda_max`` of ``L L^T = W_0 + s e e^T`` (``s = c^2``)
    is concave with ``h(0) = -nu_p < 0``: Newton from the left (first step
    ``s_1 = nu_p / (x^2 z_1^2 - z_p^2)``, the first-order root) increases
    monotonically to the first root ``s_lo``, or finds the slope turning
    negative first (no interval: the event holds for every ``c``, returned as
    ``c_lo = inf``). The second root matters only if ``h < 0`` where the chi^2_d
    upper tail falls below ``1e-18`` of the lower piece; it is then found by
    Newton from the right. Eigenvalues of ``W_0`` come from one ``eigh``; the
    small eigenvalue of the update from its secular equation keeps full
    relative precision however large ``x`` is.
    """
    n = L.shape[0]
    x2 = x * x
    c_lo = np.full(n, np.inf)
    c_hi = np.full(n, np.inf)
    nu, z2 = _secular_setup(L)
    denom = x2 * z2[:, 0] - z2[:, -1]
    idx = np.flatnonzero((denom > 0) & (x2 * nu[:, 1] > nu[:, -1]))
    if idx.size == 0:
        return c_lo, c_hi
    nu, z2 = nu[idx], z2[idx]
    s = nu[:, -1] / denom[idx]
    alive = np.ones(idx.size, dtype=bool)
    for _ in range(200):
        a = np.flatnonzero(alive)
        if a.size == 0:
            break
        h, dh = _h(nu[a], z2[a], s[a], x2)
        dead = (h < 0) & (dh <= 0)  # past the peak below zero: no interval
        alive[a[dead]] = False
        s[a[dead]] = np.inf
        ok = ~dead
        step = np.where(ok, -h / np.where(dh > 0, dh, 1.0), 0.0)
        s[a] = s[a] + step
        small = (np.abs(step) <= 1e-15 * s[a]) | (np.abs(h) <= 1e-15 * nu[a, -1])
        alive[a[ok & small]] = False
    found = np.isfinite(s)
    c_lo[idx[found]] = np.sqrt(s[found])
    j = np.flatnonzero(found)
    if j.size == 0:
        return c_lo, c_hi
    f_lo = special.gammainc(d / 2.0, s[j] / 2.0)
    far = 2.0 * special.gammainccinv(d / 2.0, np.minimum(1e-18 * f_lo, 0.5))
    far = np.maximum(far, 4.0 * s[j])
    h_far, _ = _h(nu[j], z2[j], far, x2)
    need = h_far < 0
    if np.any(need):
        k = j[need]
        t = far[need]
        for _ in range(200):
            h, dh = _h(nu[k], z2[k], t, x2)
            step = -h / np.where(dh < 0, dh, -1.0)
            t = t + step
            if np.all((np.abs(step) <= 1e-15 * t) | (np.abs(h) <= 1e-15 * nu[k, -1])):
                break
        c_hi[idx[k]] = np.sqrt(t)
    return c_lo, c_hi


def _roots(L: np.ndarray, x: float, d: int) -> tuple[np.ndarray, np.ndarray]:
    return _roots_2(L, x) if L.shape[-1] == 2 else _roots_general(L, x, d)


def _pieces(c_lo: np.ndarray, c_hi: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    """chi^2_d probabilities of ``c < c_lo`` and ``c > c_hi`` (c_lo = inf: the whole line)."""
    a = d / 2.0
    f_lo = special.gammainc(a, np.square(c_lo) / 2.0)
    f_hi = np.where(np.isinf(c_lo), 0.0, special.gammaincc(a, np.square(c_hi) / 2.0))
    return f_lo, f_hi


def conditional_tail_probability(L: np.ndarray, x: float, q: int) -> np.ndarray:
    """``P(cond > x | L without L_pp)`` for Bartlett factors ``L`` of p x q Gaussians.

    Exact up to the root finding (closed form for p = 2): ``F_d(c_lo^2) + 1 -
    F_d(c_hi^2)`` with ``d = q - p + 1``; 1 where the event holds whatever
    ``L_pp`` is.

    Parameters
    ----------
    L : numpy.ndarray, shape (size, p, p)
        Bartlett (lower Cholesky) factors of the Gram matrices.
    x : float
        Threshold.
    q : int
        Columns of the Gaussian matrices, ``q >= p``.

    Returns
    -------
    numpy.ndarray, shape (size,)
        ``P(cond > x | L without L_pp)``.

    Examples
    --------
    >>> from gctheory.tails import conditional_tail_probability
    >>> import numpy as np
    >>> L = np.array([[[1.0, 0.0], [0.5, 1.0]]])
    >>> p = conditional_tail_probability(L, 100.0, 5)
    >>> p.shape, bool(0 < p[0] < 1e-3)
    ((1,), True)
    """
    L = check_array(L, "L", ndim=(2, 3), bools=False)
    p = L.shape[-1]
    if L.shape[-2] != p or p < 2:
        raise ValueError(f"L must hold p x p Bartlett factors with p >= 2, got shape {L.shape}")
    # a 2-D L (one factor) raised IndexError, a factor that is not lower triangular with a
    # positive diagonal "Singular matrix"
    one = L.ndim == 2
    if one:
        L = L[None]
    if np.any(np.triu(L, 1) != 0) or np.any(np.diagonal(L, axis1=-2, axis2=-1)[:, :-1] <= 0):
        raise ValueError(
            "L must hold Bartlett factors: lower triangular, with a positive diagonal (L_pp aside)"
        )
    x = check_real(x, "x", low=1.0, high=MAX_CONDITION_X, low_open=True)
    q = check_int(q, "q", low=p)
    d = q - p + 1
    c_lo, c_hi = _roots(L, x, d)
    f_lo, f_hi = _pieces(c_lo, c_hi, d)
    out = f_lo + f_hi
    return out[0] if one else out


def _draw_conditional_c(
    rng: np.random.Generator, c_lo: np.ndarray, c_hi: np.ndarray, d: int
) -> np.ndarray:
    """Draw ``c ~ chi_d`` given ``c < c_lo or c > c_hi`` (exact inverse CDF)."""
    a = d / 2.0
    f_lo, f_hi = _pieces(c_lo, c_hi, d)
    u = rng.random(len(c_lo)) * (f_lo + f_hi)
    low = u < f_lo
    with np.errstate(invalid="ignore"):
        y_lo = special.gammaincinv(a, np.where(low, u, 0.0))
        y_hi = special.gammainccinv(a, np.where(low, 1.0, np.maximum(u - f_lo, 0.0)))
    return np.sqrt(2.0 * np.where(low, y_lo, y_hi))


def _swap_last(p: int, j: np.ndarray) -> np.ndarray:
    """Row orders (one per sample) that swap row ``j`` with the last row."""
    perm = np.tile(np.arange(p), (len(j), 1))
    perm[np.arange(len(j)), j] = p - 1
    perm[:, p - 1] = j
    return perm


def _redraw_row(rng: np.random.Generator, M: np.ndarray, j: np.ndarray, x: float) -> np.ndarray:
    """Component q_j of the proposal: with row ``j`` of each p x q matrix last, redraw
    its Bartlett diagonal entry from its law given ``cond > x`` (the rest kept)."""
    p, q = M.shape[-2:]
    perm = _swap_last(p, j)[:, :, None]
    L, Q = _factor(np.take_along_axis(M, perm, axis=1))
    c_lo, c_hi = _roots(L, x, q - p + 1)
    L[:, -1, -1] = _draw_conditional_c(rng, c_lo, c_hi, q - p + 1)
    out = np.empty_like(M)
    np.put_along_axis(out, perm, L @ np.swapaxes(Q, -1, -2), axis=1)
    return out


def _inverse_probability_sum(M: np.ndarray, x: float) -> np.ndarray:
    """``sum_j 1 / P(cond > x | rest_j(M))`` over the p choices of the redrawn row."""
    p, q = M.shape[-2:]
    total = np.zeros(len(M))
    for j in range(p):
        perm = _swap_last(p, np.full(len(M), j))[:, :, None]
        L, _ = _factor(np.take_along_axis(M, perm, axis=1))
        with np.errstate(divide="ignore"):
            total += 1.0 / conditional_tail_probability(L, x, q)
    return total


# ---------------------------------------------------------------------------
# events on Gaussian matrices


MAX_ENTRIES = 10**8  # entries of one sample (a matrix, an erasure pattern) a proposal draws


def _gib(nbytes: int) -> str:
    if nbytes >= 2**100:
        return f"about 2^{nbytes.bit_length() - 1} bytes"
    return f"{nbytes / 2**30:.3g} GiB"


def _check_shape(u: Any, v: Any) -> tuple[int, int]:
    u = check_int(u, "u", low=2)
    v = check_int(v, "v", low=2)
    if u * v > MAX_ENTRIES:
        raise ValueError(
            f"u x v = {u} x {v} entries per sample exceeds {MAX_ENTRIES:,} "
            f"({_gib(8 * u * v)} of float64 for one matrix)"
        )
    return u, v


def _wide(M: np.ndarray) -> np.ndarray:
    return M if M.shape[-2] <= M.shape[-1] else np.swapaxes(M, -1, -2)


@dataclass(frozen=True)
class ConditionExceeds:
    """Event ``cond(M) > x`` for a stack of matrices ``M`` (shape ``(size, u, v)``).

    Parameters
    ----------
    x : float
        The threshold.

    Examples
    --------
    >>> from gctheory.tails import ConditionExceeds
    >>> import numpy as np
    >>> event = ConditionExceeds(10.0)
    >>> event(np.stack([np.eye(2), np.diag([1.0, 100.0])])).tolist()
    [False, True]
    """

    x: float

    def __call__(self, M: np.ndarray) -> np.ndarray:
        return condition_numbers(np.asarray(M)) > self.x


@dataclass(frozen=True)
class GaussianConditionTail:
    """Proposal for ``P(cond(M) > x)``, M a ``u x v`` matrix of i.i.d. standard normals.

    Parameters
    ----------
    u, v : int
        Matrix shape, both >= 2 (the domain of Lemma 1 of Kadhe et al. 2019).
    x : float
        The threshold, > 1.
    method : {"conditional", "tilt"}
        ``"conditional"`` (default): a mixture over the ``p = min(u, v)`` rows
        (of the wide orientation): a uniformly chosen row is put last and its
        Bartlett diagonal entry drawn from its law given ``cond > x``, the rest
        from its law. The weight is ``1 / mean_j [1 / P(cond > x | rest_j)]``,
        exact; the mixture over rows keeps it bounded when the near-dependency
        involves rows other than the redrawn one. The proposal lives on the
        event: use it only for events inside ``cond > x`` (its weights average
        to ``P(cond > x)``, not 1). ``"tilt"``: every Bartlett diagonal entry
        from a chi law with fewer degrees of freedom (full support, any event,
        weights average to 1; heavier-tailed weights).
    dof : float, optional
        For ``"tilt"``: degrees of freedom left to the last diagonal entry, in
        ``(0, d]`` (default ``min(d, 1 / log x)``).

    Notes
    -----
    Samples are ``u x v`` matrices, shape ``(size, u, v)``.

    Examples
    --------
    >>> from gctheory.tails import GaussianConditionTail
    >>> import numpy as np
    >>> prop = GaussianConditionTail(3, 5, 1e3)
    >>> M, logw = prop.sample(np.random.default_rng(0), 4)
    >>> M.shape, logw.shape
    ((4, 3, 5), (4,))
    """

    u: int
    v: int
    x: float
    method: str = "conditional"
    dof: float | None = None

    def __post_init__(self) -> None:
        u, v = _check_shape(self.u, self.v)
        object.__setattr__(self, "u", u)
        object.__setattr__(self, "v", v)
        object.__setattr__(
            self, "x", check_real(self.x, "x", low=1.0, high=MAX_CONDITION_X, low_open=True)
        )
        check_choice(self.method, "method", ["conditional", "tilt"])
        d = abs(v - u) + 1
        if self.dof is not None:
            dof = check_real(self.dof, "dof", low=0.0, high=float(d), low_open=True)
            object.__setattr__(self, "dof", dof)

    @property
    def full_support(self) -> bool:
        return self.method == "tilt"

    def sample(self, rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        p, q = min(self.u, self.v), max(self.u, self.v)
        if self.method == "conditional":
            M = rng.standard_normal((size, p, q))
            M = _redraw_row(rng, M, rng.integers(0, p, size), self.x)
            with np.errstate(divide="ignore"):
                logw = math.log(p) - np.log(_inverse_probability_sum(M, self.x))
        else:
            d = q - p + 1
            dof = self.dof if self.dof is not None else min(d, 1.0 / math.log(self.x))
            theta = np.maximum(0.0, (d - dof) - (p - 1 - np.arange(p)))  # theta_p = d - dof
            k = q - np.arange(p)
            kk = k - theta
            L = np.zeros((size, p, p))
            y = np.sqrt(2.0 * rng.standard_gamma(kk / 2.0, size=(size, p)))
            L[:, np.arange(p), np.arange(p)] = y
            rows, cols = np.tril_indices(p, -1)
            L[:, rows, cols] = rng.standard_normal((size, rows.size))
            const = float(
                np.sum(
                    -theta / 2 * math.log(2.0) + special.gammaln(kk / 2) - special.gammaln(k / 2)
                )
            )
            with np.errstate(divide="ignore"):
                logw = np.sum(np.where(theta > 0, theta * np.log(y), 0.0), axis=1) + const
            M = L @ np.swapaxes(_haar_stiefel(rng, size, q, p), -1, -2)
        return (M if self.u <= self.v else np.swapaxes(M, -1, -2)), logw


def condition_tail_is(
    u: int,
    v: int,
    x: float,
    trials: int,
    *,
    method: str = "conditional",
    rng: Any = None,
    **engine: Any,
) -> Estimate:
    """``P(cond(M) > x)`` for a ``u x v`` standard Gaussian ``M``, by importance sampling.

    The rare-event twin of :func:`gctheory.conditioning.gaussian_condition_bound`
    (Lemma 1 of Kadhe et al. 2019) and of
    :func:`gctheory.conditioning.condition_tail_mc`: reaches ``1e-12`` with
    thousands of samples. ``engine`` keywords go to
    :func:`gctheory.montecarlo.importance_sampling` (``level``, ``chunk_size``,
    ``executor``, ``progress``, ``checkpoint``, ``stop``).

    Parameters
    ----------
    u, v : int
        Matrix shape.
    x : float
        Threshold.
    trials : int
        Importance samples.
    method : str
        The proposal (see :class:`GaussianConditionTail`).
    rng : None, int or numpy.random.Generator
        Seed.
    **engine
        ``level``, ``chunk_size``, ``executor``, ``progress``, ``checkpoint``, ``stop`` of
        :func:`gctheory.montecarlo.importance_sampling`.

    Returns
    -------
    Estimate
        ``P(cond(M) > x)`` with its interval.

    Examples
    --------
    >>> from gctheory.tails import condition_tail_2xn, condition_tail_is
    >>> est = condition_tail_is(2, 10, 1e3, 2000, rng=0)
    >>> est.contains(condition_tail_2xn(10, 1e3)), f"{est.value:.3g}"
    (True, '4.52e-25')
    """
    proposal = GaussianConditionTail(u, v, x, method=method)
    with blas_single_thread():  # stacks of small matrices: extra threads only contend
        return importance_sampling(
            ConditionExceeds(proposal.x), proposal, trials, rng=rng, **engine
        )


# ---------------------------------------------------------------------------
# Theorem 2's union over column subsets


def _combinations(N: int, t: int) -> np.ndarray:
    return np.array(list(itertools.combinations(range(N), t)), dtype=np.intp)


@dataclass(frozen=True)
class SubsetMaxExceeds:
    """Event ``max_{|T| = t} cond(G_T) > kappa`` for K x N matrices ``G``.

    Reads the maximum the proposal computed when given its samples (a pair
    ``(G, max_cond)``); computes it over every subset for plain matrices.

    Parameters
    ----------
    N, K : int
        Generator shape ``K x N``.
    t : int
        Survivors.
    kappa : float
        Threshold.

    Examples
    --------
    >>> from gctheory.tails import SubsetMaxExceeds
    >>> import numpy as np
    >>> event = SubsetMaxExceeds(N=4, K=2, t=3, kappa=1e3)
    >>> G = np.random.default_rng(0).standard_normal((5, 2, 4))
    >>> event(G).tolist()
    [False, False, False, False, False]
    """

    N: int
    K: int
    t: int
    kappa: float

    def __call__(self, x: Any) -> np.ndarray:
        if isinstance(x, tuple):
            return x[1] > self.kappa
        return _subset_conds(np.asarray(x), _combinations(self.N, self.t)).max(axis=1) > self.kappa


_BLOCK_ENTRIES = 1 << 22  # floats of submatrices conditioned at once (~32 MB)


def _subset_conds(G: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """cond(G_T) for every sample and subset: (n, S), in blocks of samples."""
    n, K, _ = G.shape
    S, t = subsets.shape
    out = np.empty((n, S))
    block = max(1, _BLOCK_ENTRIES // (S * K * t))
    for start in range(0, n, block):
        sub = G[start : start + block][:, :, subsets]  # (b, K, S, t)
        out[start : start + block] = condition_numbers(np.moveaxis(sub, 2, 1))
    return out


@dataclass(frozen=True)
class SubsetConditionTail:
    """Proposal for Theorem 2's event ``max_{|T|=t} cond(G_T) > kappa``, G K x N Gaussian.

    A mixture over the subsets ``T`` and the rows ``j``: for a uniformly chosen
    pair, ``G_T``'s row ``j`` is put last and its Bartlett diagonal entry drawn
    from its law given ``cond(G_T) > kappa`` (the rest of ``G`` from its
    law). The weight is ``1 / mean_{T, j} [1{A_T} / P(A_T | rest_{T,j})]``
    (exact); the proposal lives on the union, so its weights average to
    ``P(union)``, not 1 (the union estimator of Owen, Maximov and Chertkov).
    Samples are pairs ``(G, max_cond)``; use :class:`SubsetMaxExceeds` as the
    event. Every one of the ``binom(N, t)`` subsets is conditioned per sample,
    so ``binom(N, t) <= max_subsets`` is required.

    Parameters
    ----------
    N, K : int
        Generator shape ``K x N``.
    t : int
        Survivors.
    kappa : float
        Threshold.
    max_subsets : int
        Refuse above this many subsets.

    Examples
    --------
    >>> from gctheory.tails import SubsetConditionTail
    >>> import numpy as np
    >>> prop = SubsetConditionTail(N=5, K=2, t=3, kappa=100.0)
    >>> (G, worst), logw = prop.sample(np.random.default_rng(0), 3)
    >>> G.shape, bool((worst > 100.0).all())
    ((3, 2, 5), True)
    """

    N: int
    K: int
    t: int
    kappa: float
    max_subsets: int = 20_000

    def __post_init__(self) -> None:
        N = check_int(self.N, "N", low=2)
        K = check_int(self.K, "K", low=2, high=N)
        t = check_int(self.t, "t", low=K, high=N)
        object.__setattr__(self, "N", N)
        object.__setattr__(self, "K", K)
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "kappa", check_real(self.kappa, "kappa", low=1.0, low_open=True))
        _most_subsets(N, range(t, t + 1), self.max_subsets, " (each conditioned per sample)")

    full_support = False

    def sample(self, rng: np.random.Generator, size: int) -> tuple[tuple, np.ndarray]:
        K, t, kappa = self.K, self.t, self.kappa
        subsets = _combinations(self.N, t)
        S = len(subsets)
        G = rng.standard_normal((size, K, self.N))
        chosen = subsets[rng.integers(0, S, size=size)][:, None, :]  # (size, 1, t)
        GT = _redraw_row(
            rng, np.take_along_axis(G, chosen, axis=2), rng.integers(0, K, size), kappa
        )
        np.put_along_axis(G, chosen, GT, axis=2)
        conds = _subset_conds(G, subsets)
        hit_i, hit_s = np.nonzero(conds > kappa)
        total = np.zeros(size)
        if hit_i.size:
            sub = np.take_along_axis(G[hit_i], subsets[hit_s][:, None, :], axis=2)
            np.add.at(total, hit_i, _inverse_probability_sum(sub, kappa))
        with np.errstate(divide="ignore"):
            logw = np.where(total > 0, math.log(S * K) - np.log(total), -np.inf)
        return (G, conds.max(axis=1)), logw


def subset_failure_is(
    N: int, K: int, t: int, kappa: float, trials: int, *, rng: Any = None, **engine: Any
) -> Estimate:
    """``P(max_{|T| = t} cond(G_T) > kappa)`` for a ``K x N`` standard Gaussian ``G``.

    Theorem 2 of Kadhe et al. 2019 bounds it by ``f(t)`` of eq. (7) (the union
    bound over the ``binom(N, t)`` subsets of Lemma 1); this is its rare-event
    estimate (the twin of :func:`gctheory.conditioning.subset_failure_mc`).

    Parameters
    ----------
    N, K : int
        Generator shape ``K x N``.
    t : int
        Survivors.
    kappa : float
        Threshold.
    trials : int
        Importance samples.
    rng : None, int or numpy.random.Generator
        Seed.
    **engine
        ``level``, ``chunk_size``, ``executor``, ``progress``, ``checkpoint``, ``stop`` of
        :func:`gctheory.montecarlo.importance_sampling`.

    Returns
    -------
    Estimate
        ``P(max_{|T|=t} cond(G_T) > kappa)``.

    Examples
    --------
    >>> from gctheory.tails import subset_failure_is
    >>> from gctheory.conditioning import straggler_union_bound
    >>> est = subset_failure_is(6, 2, 4, 1e3, 2000, rng=0)
    >>> est.high <= straggler_union_bound(6, 2, 4, 1e3), f"{est.value:.3g}"
    (True, '1.16e-07')
    """
    proposal = SubsetConditionTail(N, K, t, kappa)
    event = SubsetMaxExceeds(proposal.N, proposal.K, proposal.t, proposal.kappa)
    with blas_single_thread():  # stacks of small matrices: extra threads only contend
        return importance_sampling(event, proposal, trials, rng=rng, **engine)
