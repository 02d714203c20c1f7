"""The CommFR construction's parameters: its triples and the minimum distance."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from gctheory._names import COMMFR_FAMILIES as _COMMFR_FAMILIES
from gctheory._validate import check_array, check_int, check_memory
from gctheory.codes.base import (
    check_positive_int,
)

__all__ = ["COMMFR_FAMILIES", "commfr_triple", "minimum_distance"]


COMMFR_FAMILIES = _COMMFR_FAMILIES  # gaussian, systematic, vandermonde(-complex), ...


_EPS = float(np.finfo(float).eps)


def _check_nk_NK(n: Any, k: Any, N: Any, K: Any) -> tuple[int, int, int, int]:
    n = check_positive_int("n", n)
    k = check_positive_int("k", k)
    N = check_positive_int("N", N)
    K = check_positive_int("K", K)
    if K > N:
        raise ValueError(f"K must be <= N for an [N, K] code, got K={K}, N={N}")
    if n % N:
        raise ValueError(f"N must divide n (groups of N workers), got N={N}, n={n}")
    if (k * N) % n:
        raise ValueError(f"n must divide k N (load l = k N / n), got n={n}, k={k}, N={N}")
    return n, k, N, K


def _check_commfr_memory(n: int, k: int) -> None:
    check_memory(1 * n * k, "n", f"the {n} x {k} placement")


def commfr_triple(n: int, k: int, N: int, K: int, delta: int) -> tuple[int, int, int]:
    """Theorem 1 of Kadhe et al. 2019: ``(l, m, s) = (k N / n, K, delta - 1)``.

    Requires ``N | n``, ``n | k N`` and ``1 <= delta <= N - K + 1`` (Singleton).

    Parameters
    ----------
    n : int
        Workers.
    k : int
        Partitions.
    N, K : int
        Length and dimension of the underlying code.
    delta : int
        Its minimum distance.

    Returns
    -------
    tuple of int
        ``(l, m, s)``: load, communication reduction, stragglers.

    Examples
    --------
    >>> from gctheory.codes import commfr_triple
    >>> commfr_triple(n=12, k=12, N=6, K=3, delta=4)
    (6, 3, 3)
    """
    n, k, N, K = _check_nk_NK(n, k, N, K)
    delta = check_positive_int("delta", delta)
    if delta > N - K + 1:
        raise ValueError(
            f"delta must satisfy the Singleton bound delta <= N - K + 1 = {N - K + 1}, got {delta}"
        )
    return k * N // n, K, delta - 1


def _full_rank(M: np.ndarray, K: int) -> bool:
    sv = np.linalg.svd(M, compute_uv=False)
    return sv.size >= K and sv[0] > 0 and sv[K - 1] > max(M.shape) * _EPS * sv[0] * 1e3


def minimum_distance(G: Any, *, max_subsets: int = 200_000) -> int:
    """Minimum distance delta of the code spanned by G (K x N), by enumeration (Theorem 1's delta).

    ``delta - 1`` is the largest e such that every N - e columns of G have rank
    K (the erasure-correction view used in the proof of Theorem 1 of Kadhe et
    al. 2019). Numerical rank with tolerance ``1e3 max(K, N) eps sigma_max``;
    raises ValueError if more than ``max_subsets`` column subsets would be
    needed (pass ``delta`` to the code instead).

    Parameters
    ----------
    G : array_like, shape (K, N)
        Generator matrix.
    max_subsets : int
        Refuse when more column subsets would be needed.

    Returns
    -------
    int
        The minimum distance ``delta``.

    Examples
    --------
    >>> from gctheory.codes import minimum_distance
    >>> import numpy as np
    >>> minimum_distance(np.random.default_rng(0).standard_normal((3, 6)))  # MDS: N - K + 1
    4
    >>> minimum_distance(np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]))
    2
    """
    max_subsets = check_int(max_subsets, "max_subsets", low=0)
    G = check_array(G, "G", ndim=2, complex_ok=True, min_size=0)
    if G.shape[0] > G.shape[1] or G.shape[0] < 1:
        raise ValueError(f"G must be a K x N matrix with 1 <= K <= N, got shape {G.shape}")
    K, N = G.shape
    if not _full_rank(G, K):
        raise ValueError("G must have rank K (its rows must be a basis of the code)")
    checked = 0
    e = 0
    while N - (e + 1) >= K:
        size = N - (e + 1)
        checked += math.comb(N, size)
        if checked > max_subsets:
            raise ValueError(
                f"minimum_distance needs more than max_subsets={max_subsets} rank checks for "
                f"N={N}, K={K}; pass delta explicitly"
            )
        if not all(_full_rank(G[:, list(S)], K) for S in itertools.combinations(range(N), size)):
            break
        e += 1
    return e + 1
