"""Condition numbers: batched in float64, and exact-node references in mpmath.

- :func:`condition_numbers`: 2-norm condition numbers of a stack of matrices,
  with no Python loop per matrix (Gram matrix, vectorised Householder
  tridiagonalisation and Laguerre's iteration for the two extreme eigenvalues;
  an SVD where the Gram route loses accuracy);
- :func:`condition_number_mp`, :func:`vandermonde_condition_mp`: mpmath
  references wherever float64 cannot resolve the answer.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import mpmath
import numpy as np

from gctheory._validate import check_array, check_choice, check_int
from gctheory.conditioning._common import _COND_BLOCK_ENTRIES, GRAM_LIMIT, _int

__all__ = ["condition_numbers", "condition_number_mp", "vandermonde_condition_mp"]

#: the vectorised Householder + Laguerre path is used up to this size (its loops are over
#: the matrix size in numpy, O(K^3) per matrix without BLAS); larger ones go to the SVD
_LAGUERRE_MAX = 24

#: most digits of the mpmath condition numbers (an SVD at more takes minutes even for a
#: small matrix; mpmath's precision is also an allocation of that many digits)
MAX_DPS = 10**4

# ---------------------------------------------------------------------------
# empirical side: condition numbers


def condition_numbers(M: Any) -> np.ndarray:
    """2-norm condition numbers of a stack of matrices, batched (no Python loop per matrix).

    Only the extreme singular values matter, so only the extreme eigenvalues
    of the small Gram matrix (``M M^T`` or ``M^T M``, whichever is smaller) are
    computed, vectorised over the whole stack: a Householder reduction to
    tridiagonal form followed by Laguerre's iteration for the two extreme
    eigenvalues (real matrices with 3 <= min(u, v) <= 24; above 24 LAPACK's
    batched SVD; otherwise a batched ``eigvalsh``). Where that gives a condition number above
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

    Examples
    --------
    >>> from gctheory.conditioning import condition_numbers
    >>> import numpy as np
    >>> M = np.stack([np.eye(3), np.diag([1.0, 2.0, 4.0])])
    >>> condition_numbers(M).round(6).tolist()
    [1.0, 4.0]
    """
    M = np.asarray(M)
    if M.ndim < 2 or M.shape[-1] < 1 or M.shape[-2] < 1:
        raise ValueError(f"M must have shape (..., u, v) with u, v >= 1, got {M.shape}")
    if M.dtype.kind not in "biufc":  # strings, objects
        raise ValueError(f"M must be a numeric (real or complex) array, got dtype {M.dtype}")
    if M.dtype.kind in "biu":
        M = M.astype(np.float64)
    if not np.isfinite(M).all():  # inf came out as a condition number
        raise ValueError("M must hold finite numbers, got NaN or infinite entries")
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
    if min(u, v) > _LAGUERRE_MAX:  # large matrices: LAPACK's batched SVD is faster
        sv = np.linalg.svd(M, compute_uv=False)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(sv[:, -1] > 0, sv[:, 0] / sv[:, -1], np.inf)
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

    Parameters
    ----------
    M : array_like
        One 2-D matrix (float64 or mpmath entries).
    dps : int
        Decimal digits of the SVD.

    Returns
    -------
    mpmath.mpf
        ``sigma_max / sigma_min`` (``inf`` if singular).

    Examples
    --------
    >>> from gctheory.conditioning import condition_number_mp
    >>> import numpy as np
    >>> print(condition_number_mp(np.diag([1.0, 3.0]), dps=20))
    3.0
    """
    # empty and NaN matrices gave IndexError / RuntimeError from mpmath
    A = check_array(M, "M", ndim=2, complex_ok=True)
    dps = check_int(dps, "dps", low=16, high=MAX_DPS)
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


#: largest work ``K^2 |columns| max(1, dps/60)^1.6`` of :func:`vandermonde_condition_mp`
#: (about 10 s of mpmath here; 60 x 80 at 60 digits is 2.9e5 and takes 2 s)
_MP_MAX_WORK = 1.5e6
_MP_MAX_COLUMNS = 10**4


def vandermonde_condition_mp(
    K: int, N: int, columns: Any = None, nodes: str = "chebyshev", dps: int = 60
) -> mpmath.mpf:
    """Exact-node condition number of a Vandermonde submatrix, in mpmath at ``dps`` digits.

    The ``K x N`` generator ``G[i, j] = x_j ** i`` of :func:`gctheory.generators.
    vandermonde_generator`, restricted to ``columns`` (default: all), with the
    nodes computed at ``dps`` digits (not rounded to float64 first). This is
    the reference wherever a float64 result exceeds :data:`FLOAT64_RELIABLE_LIMIT`.
    Raise ``dps`` until the result is stable (about ``log10(kappa) + 20`` digits).

    Parameters
    ----------
    K : int
        Rows (code dimension).
    N : int
        Columns (workers).
    columns : sequence of int, optional
        The surviving workers; all by default.
    nodes : {"chebyshev", ...}
        The node family of :func:`gctheory.generators.vandermonde_generator`.
    dps : int
        Decimal digits.

    Returns
    -------
    mpmath.mpf
        The 2-norm condition number of the submatrix.

    Examples
    --------
    >>> from gctheory.conditioning import vandermonde_condition_mp
    >>> v = vandermonde_condition_mp(3, 6, columns=[0, 2, 4], dps=30)
    >>> f"{float(v):.6g}"
    '4.0993'
    """
    K, N = _int("K", K, 1), _int("N", N, 1)
    if K > N:
        raise ValueError(f"K must be <= N, got K={K}, N={N}")
    check_choice(nodes, "nodes", ("equispaced", "chebyshev", "roots_of_unity"))
    dps = check_int(dps, "dps", low=16, high=MAX_DPS)
    if columns is None:
        if N > _MP_MAX_COLUMNS:
            raise ValueError(f"N must be <= {_MP_MAX_COLUMNS} for an mpmath SVD, got N={N}")
        cols = list(range(N))
    else:
        if isinstance(columns, (str, bytes, dict)) or not isinstance(
            columns, (Sequence, np.ndarray, range)
        ):
            raise ValueError(f"columns must be a sequence of column indices, got {columns!r}")
        cols = [_int("each of columns", c) for c in columns]
    if not cols or len(set(cols)) != len(cols) or not all(0 <= c < N for c in cols):
        raise ValueError(f"columns must be distinct indices in [0, {N}), got {columns!r}")
    work = K * K * len(cols) * max(1.0, dps / 60) ** 1.6
    if work > _MP_MAX_WORK:
        raise ValueError(
            f"K, columns, dps: an mpmath SVD of a {K} x {len(cols)} matrix at {dps} digits takes "
            f"minutes (work {work:.3g} > {_MP_MAX_WORK:.3g}, about 2 s at 60 x 80 and 60 digits)"
        )
    return _vandermonde_condition_mp(K, N, tuple(cols), nodes, dps)


@functools.lru_cache(maxsize=512)
def _vandermonde_condition_mp(
    K: int, N: int, cols: tuple[int, ...], nodes: str, dps: int
) -> mpmath.mpf:
    """:func:`vandermonde_condition_mp` on checked arguments, remembered per process: a
    pure function of them (an ``mpf`` is immutable), and the paper checks and figures of
    one ``gctheory reproduce`` ask for the same worst Vandermonde subsets (Kadhe et al.
    2019, Sec. I) several times, at seconds of mpmath each."""
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
