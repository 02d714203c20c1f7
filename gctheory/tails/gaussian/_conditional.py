"""The exact law of the condition number of a 2 x n Gaussian, and the Bartlett factors
with the conditional law of the last diagonal entry given the rest."""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from gctheory._validate import check_array, check_int, check_real

__all__ = ["conditional_tail_probability", "condition_tail_2xn"]


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
