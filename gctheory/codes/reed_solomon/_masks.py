"""The balanced mask matrices of the Reed-Solomon gradient codes and the straggler
tolerance they give."""

from __future__ import annotations

from typing import Any

import numpy as np

from gctheory._validate import check_memory

__all__ = ["row_balanced_mask_matrix", "mask_matrix", "rs_tolerance"]


def _check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < low or (high is not None and value > high):
        rule = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be {rule}, got {name}={value}")
    return value


def row_balanced_mask_matrix(n: int, k: int, d: int, t: int = 0) -> np.ndarray:
    """Algorithm 1 of [1], ``RowBalancedMaskMatrix(n, k, d, t)``.

    Column ``j`` has ones in rows ``(i + j d + t) mod n`` for ``i = 0..d-1``,
    so every column has weight ``d`` and the row weights are ``ceil(kd/n)`` on
    the cyclic run of ``(kd) mod n`` rows starting at row ``t`` and
    ``floor(kd/n)`` elsewhere (Proposition 2 and Corollary 1 of [1]).

    Parameters
    ----------
    n : int
        Number of rows (workers), ``n >= 1``.
    k : int
        Number of columns (data partitions), ``k >= 0`` (an empty matrix for 0).
    d : int
        Weight of every column, ``1 <= d <= n``.
    t : int
        Offset, ``0 <= t < n``.

    Returns
    -------
    numpy.ndarray
        Boolean ``n x k`` mask.

    Examples
    --------
    >>> from gctheory.codes import row_balanced_mask_matrix
    >>> row_balanced_mask_matrix(4, 4, 2).astype(int)
    array([[1, 0, 1, 0],
           [1, 0, 1, 0],
           [0, 1, 0, 1],
           [0, 1, 0, 1]])
    """
    n = _check_int("n", n, 1)
    k = _check_int("k", k, 0)
    d = _check_int("d", d, 1, n)
    t = _check_int("t", t, 0, n - 1)
    check_memory(n * k + 8 * d * k, "n", f"the {n} x {k} mask")
    M = np.zeros((n, k), dtype=bool)
    cols = np.arange(k)
    M[(np.arange(d)[:, None] + (cols * d + t)[None, :]) % n, cols[None, :]] = True
    return M


def _mask_parts(n: int, k: int, w: int) -> tuple[int, int, int, int, int]:
    """``(k_h, d_h, k_l, d_l, t)`` of Algorithm 4 of [1]."""
    k_h = (n * w) % k
    d_h = -(-n * w // k)
    k_l = k - k_h
    d_l = n * w // k
    t = (k_h * d_h) % n
    return k_h, d_h, k_l, d_l, t


def _check_nkw(n: Any, k: Any, w: Any) -> tuple[int, int, int]:
    n = _check_int("n", n, 1)
    k = _check_int("k", k, 1)
    w = _check_int("w", w, 1)
    if w > k:
        raise ValueError(
            f"w must be <= k (a worker holds at most all k partitions), got w={w}, k={k}"
        )
    if n * w < k:
        raise ValueError(
            f"n*w must be >= k so that every partition is held by some worker "
            f"(eq. (2) of Halbawi et al. gives s = floor(wn/k) - 1 >= 0), got n*w={n * w}, k={k}"
        )
    return n, k, w


def _check_rs_memory(n: int, k: int) -> None:
    """Algorithm 2's complex n x k matrix and its O(n^2) products per run length."""
    check_memory(17 * n * k + 24 * n * n, "n", f"the {n} x {k} Reed-Solomon encoding matrix")


def mask_matrix(n: int, k: int, w: int) -> np.ndarray:
    """Algorithm 4 of [1], ``MaskMatrix(n, k, w)``: every row has weight ``w``.

    ``M = [M_h | M_l]`` with ``M_h = RowBalancedMaskMatrix(n, k_h, d_h, 0)``
    and ``M_l = RowBalancedMaskMatrix(n, k_l, d_l, t)``, where
    ``k_h = (nw) mod k``, ``d_h = ceil(nw/k)``, ``k_l = k - k_h``,
    ``d_l = floor(nw/k)``, ``t = (k_h d_h) mod n`` (Appendix 8.2-8.3 of [1]).
    Column weights are ``d_h`` (first ``k_h`` columns) and ``d_l``.

    Parameters
    ----------
    n, k, w : int
        Workers, partitions and partitions per worker; ``1 <= w <= k`` and
        ``n w >= k``.

    Returns
    -------
    numpy.ndarray of bool, shape (n, k)
        The mask ``M``: row ``i`` marks the ``w`` partitions of worker ``i``.

    Examples
    --------
    >>> from gctheory.codes import mask_matrix
    >>> mask_matrix(4, 6, 3).astype(int)
    array([[1, 0, 1, 0, 1, 0],
           [1, 0, 1, 0, 1, 0],
           [0, 1, 0, 1, 0, 1],
           [0, 1, 0, 1, 0, 1]])
    """
    n, k, w = _check_nkw(n, k, w)
    check_memory(n * k, "n", f"the {n} x {k} mask")
    k_h, d_h, k_l, d_l, t = _mask_parts(n, k, w)
    M_h = row_balanced_mask_matrix(n, k_h, d_h, 0) if k_h else np.zeros((n, 0), bool)
    M_l = row_balanced_mask_matrix(n, k_l, d_l, t)
    return np.concatenate([M_h, M_l], axis=1)


def rs_tolerance(n: int, k: int, w: int) -> int:
    """Stragglers tolerated by the RS code: ``floor(wn/k) - 1`` (eq. (2) of [1]).

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
    int
        ``floor(w n / k) - 1``.

    Examples
    --------
    >>> from gctheory.codes import rs_tolerance
    >>> rs_tolerance(6, 6, 3), rs_tolerance(10, 20, 5)
    (2, 1)
    """
    n, k, w = _check_nkw(n, k, w)
    return n * w // k - 1
