"""The encoding matrix of a Reed-Solomon gradient code from its mask: the polynomials
vanishing on each row's zeros."""

from __future__ import annotations

from typing import Any

import numpy as np

from gctheory.codes.reed_solomon._masks import _check_nkw, _check_rs_memory, mask_matrix

__all__ = ["rs_polynomials", "rs_encoding_matrix"]


def _roots(n: int) -> np.ndarray:
    """``alpha^m`` for ``m = 0..n-1``, ``alpha = exp(2 pi i / n)``, from exact angles."""
    return np.exp(2j * np.pi * np.arange(n) / n)


def rs_polynomials(M: np.ndarray) -> np.ndarray:
    """Coefficient matrix ``T`` (``f x k``) of the polynomials of Algorithm 2 of [1].

    Column ``j`` holds the coefficients (constant term first) of
    ``t_j(x) = prod_{r : M[r, j] = 0} (x - alpha^r) / (-alpha^r)
    = prod (1 - alpha^{-r} x)``, so ``t_j(0) = 1`` as in eqs. (7)-(10);
    ``f = n - s = n - min_j(column weight) + 1`` and ``B = G T`` (eq. (11)).

    Parameters
    ----------
    M : numpy.ndarray, shape (n, k)
        A 0/1 mask (:func:`mask_matrix`).

    Returns
    -------
    numpy.ndarray, complex, shape (f, k)
        The polynomials' coefficients, constant term first.

    Examples
    --------
    >>> from gctheory.codes import mask_matrix, rs_polynomials
    >>> import numpy as np
    >>> T = rs_polynomials(mask_matrix(6, 6, 3))
    >>> T.shape, np.allclose(T[0], 1)  # t_j(0) = 1
    ((4, 6), True)
    """
    M = _check_mask(M)
    n, k = M.shape
    f = n - int(M.sum(axis=0).min()) + 1
    om = _roots(n)
    T = np.zeros((f, k), dtype=complex)
    for j in range(k):
        c = np.ones(1, dtype=complex)
        for r in np.flatnonzero(~M[:, j]):
            c = np.concatenate([c, [0]]) - np.concatenate([[0], c]) * om[(-r) % n]
        T[: c.size, j] = c
    return T


def _check_mask(M: Any) -> np.ndarray:
    M = np.asarray(M)
    if M.ndim != 2 or M.dtype != bool:
        raise ValueError(f"M must be a 2-D boolean mask, got shape {M.shape}, dtype {M.dtype}")
    if M.shape[1] and M.sum(axis=0).min() < 1:
        raise ValueError("every column of the mask M must have weight >= 1")
    return M


def rs_encoding_matrix(n: int, k: int, w: int) -> np.ndarray:
    """Algorithm 2 of [1], ``EncodingMatrix(n, k, w)``: the complex ``n x k`` matrix ``B``.

    ``B[i, j] = t_j(alpha^i) = prod_{r : M[r, j] = 0} (1 - alpha^{i - r})``
    with ``M = MaskMatrix(n, k, w)`` (Algorithm 4) and ``alpha = exp(2 pi i/n)``.
    ``B`` vanishes exactly (by construction, not by rounding) off the mask.

    Parameters
    ----------
    n : int
        Workers.
    k : int
        Partitions.
    w : int
        Partitions per worker.

    Returns
    -------
    numpy.ndarray, complex, shape (n, k)
        The encoding matrix ``B``, zero off the mask.

    Examples
    --------
    >>> from gctheory.codes import rs_encoding_matrix
    >>> B = rs_encoding_matrix(6, 6, 3)
    >>> B.shape, (B != 0).sum(axis=1).tolist()  # w = 3 partitions per worker
    ((6, 6), [3, 3, 3, 3, 3, 3])
    """
    n, k, w = _check_nkw(n, k, w)
    _check_rs_memory(n, k)
    M = mask_matrix(n, k, w)
    return _encode_from_mask(M)


def _zero_run(col: np.ndarray) -> tuple[int, int] | None:
    """``(start, length)`` if the zeros of a mask column form one cyclic run, else None."""
    z = ~col
    L = int(z.sum())
    if L == 0:
        return 0, 0
    starts = np.flatnonzero(z & ~np.roll(z, 1))  # zero preceded (cyclically) by a one
    if starts.size != 1:
        return None
    return int(starts[0]), L


def _encode_from_mask(M: np.ndarray) -> np.ndarray:
    """``B[i, j] = prod_{r : M[r, j] = 0} (1 - alpha^{i - r})`` (Algorithm 2).

    The masks of Algorithms 1 and 4 have the zeros of every column in one
    cyclic run, so column ``j`` is a cyclic shift of the column for a run of
    the same length starting at row 0: one ``O(n L)`` product per distinct
    run length, ``O(n^2)`` in all. Other masks take the direct ``O(n^2)``
    product per column.
    """
    n, k = M.shape
    om = _roots(n)
    one_minus = 1.0 - om  # 1 - alpha^m, m = 0..n-1 (m = 0 gives exactly 0)
    rows = np.arange(n)
    B = np.zeros((n, k), dtype=complex)
    base: dict[int, np.ndarray] = {}
    for j in range(k):
        run = _zero_run(M[:, j])
        if run is None:
            zeros = np.flatnonzero(~M[:, j])
            B[:, j] = np.prod(one_minus[(rows[:, None] - zeros[None, :]) % n], axis=1)
            continue
        start, L = run
        if L not in base:
            base[L] = np.prod(one_minus[(rows[:, None] - np.arange(L)[None, :]) % n], axis=1)
        B[:, j] = np.roll(base[L], start)
    B[~M] = 0.0
    return B
