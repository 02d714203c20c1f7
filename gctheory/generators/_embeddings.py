"""Real generators from embedded roots of unity and random blocks: the rotation and
circulant embeddings, random Khatri-Rao products."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gctheory._validate import as_generator, check_int, check_memory
from gctheory.generators._polynomial import _check_nk

__all__ = ["rotation_embedding_generator", "circulant_embedding_generator", "rkrp_generator"]


def _rotation_power(theta: np.ndarray) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)


def rotation_embedding_generator(K: int, N: int, q: int | None = None) -> np.ndarray:
    """(2K) x (2N) real generator with 2 x 2 blocks ``R^{i j}``, R the rotation by 2 pi / q.

    Ramamoorthy and Tang 2022 (rotation-matrix embedding); ``q = N`` by default
    (as in the authors' public code, ``stableCodedComputing``), ``q >= N`` in
    general. Worker j owns columns 2j, 2j + 1. Block (i, j) is computed from the
    angle ``2 pi (i j mod q) / q`` directly (no repeated products).

    Parameters
    ----------
    K : int
        Code dimension (rows), ``1 <= K <= N``.
    N : int
        Code length (workers).
    q : int, optional
        Rotation order, ``q >= N`` (default ``N``).

    Returns
    -------
    numpy.ndarray, shape (2K, 2N)
        The real embedding.

    Examples
    --------
    >>> from gctheory.generators import rotation_embedding_generator
    >>> rotation_embedding_generator(2, 3).shape
    (4, 6)
    """
    N, K = _check_nk(N, K, per_entry=4 * 48)
    q = N if q is None else check_int(q, "q", low=N)
    ij = np.outer(np.arange(K), np.arange(N)) % q
    blocks = _rotation_power(2 * np.pi * ij / q)  # (K, N, 2, 2)
    return blocks.transpose(0, 2, 1, 3).reshape(2 * K, 2 * N)


#: largest N whose circulant embedding is built (its block q - 1 >= N - 1 makes the matrix
#: (K (q - 1)) x (N (q - 1)), already 8 GB at N = 200; the prime search is trial division)
_MAX_CIRCULANT_N = 10**4


def _next_prime(n: int) -> int:
    if n > _MAX_CIRCULANT_N:
        raise ValueError(
            f"N must be <= {_MAX_CIRCULANT_N} for the circulant embedding (its block q - 1, q "
            f"the smallest prime >= N, makes an (N (q - 1))-column matrix), got N={n}"
        )
    p = max(2, n)
    while any(p % d == 0 for d in range(2, math.isqrt(p) + 1)):
        p += 1
    return p


def circulant_embedding_generator(K: int, N: int, q: int | None = None) -> np.ndarray:
    """(K (q-1)) x (N (q-1)) real generator with blocks ``C^{i j}`` (Ramamoorthy and Tang 2022).

    C is the q x q cyclic permutation restricted to the complement of the
    all-ones vector, written in an orthonormal basis E of it (``C = E^T P E``,
    (q-1) x (q-1), orthogonal); q prime, ``q >= N`` (default: the smallest such
    prime), which makes every K-worker submatrix invertible. Worker j owns
    columns ``j (q-1) .. (j+1)(q-1) - 1``.

    Parameters
    ----------
    K : int
        Code dimension (rows), ``1 <= K <= N``.
    N : int
        Code length (workers).
    q : int, optional
        A prime ``q >= N`` (default: the smallest).

    Returns
    -------
    numpy.ndarray, shape (K (q-1), N (q-1))
        The real embedding.

    Examples
    --------
    >>> from gctheory.generators import circulant_embedding_generator
    >>> circulant_embedding_generator(2, 3).shape  # q = 3
    (4, 6)
    """
    N, K = _check_nk(N, K, per_entry=0)
    b0 = N - 1 if q is None else check_int(q, "q", low=N) - 1  # q >= N: b >= N - 1
    check_memory(8 * K * N * b0 * b0, "N", f"the {K} x {N} circulant embedding")
    q = _next_prime(N) if q is None else check_int(q, "q", low=N)
    if q > _MAX_CIRCULANT_N:
        raise ValueError(f"q must be <= {_MAX_CIRCULANT_N} for the circulant embedding, got {q}")
    if q != _next_prime(q):
        raise ValueError(f"q must be a prime (the MDS property needs it), got q={q}")
    check_memory(8 * (K * N + q) * (q - 1) ** 2, "N", f"the {K} x {N} circulant embedding")
    P = np.roll(np.eye(q), 1, axis=0)
    E = np.linalg.qr(np.vstack([np.ones(q - 1), -np.eye(q - 1)]))[0]  # basis of 1-perp
    C = E.T @ P @ E
    powers = [np.eye(q - 1)]
    for _ in range(q - 1):
        powers.append(powers[-1] @ C)
    b = q - 1
    G = np.empty((K * b, N * b))
    for i in range(K):
        for j in range(N):
            G[i * b : (i + 1) * b, j * b : (j + 1) * b] = powers[(i * j) % q]
    return G


def _rkrp_split(K: int) -> tuple[int, int]:
    K1 = max(d for d in range(1, math.isqrt(K) + 1) if K % d == 0)
    return K1, K // K1


def rkrp_generator(K: int, N: int, *, rng: Any = None) -> np.ndarray:
    """K x N random Khatri-Rao-product generator (Subramaniam, Heidarzadeh, Narayanan 2019).

    Column j is ``kron(a_j, b_j)`` for the columns of Gaussian ``A`` (K1 x N) and
    ``B`` (K2 x N), ``K = K1 K2`` with K1 the largest divisor of K up to sqrt(K)
    (the split of the product ``A^T B`` into K1 and K2 blocks in the paper).
    MDS with probability one (their Theorem; checked exhaustively at small sizes
    in the tests).

    Parameters
    ----------
    K : int
        Code dimension (rows), ``1 <= K <= N``.
    N : int
        Code length (workers).
    rng : None, int or numpy.random.Generator
        Seed.

    Returns
    -------
    numpy.ndarray, shape (K, N)
        Columns ``kron(a_j, b_j)``.

    Examples
    --------
    >>> from gctheory.generators import rkrp_generator
    >>> rkrp_generator(4, 6, rng=0).shape
    (4, 6)
    """
    N, K = _check_nk(N, K)
    gen = as_generator(rng)
    K1, K2 = _rkrp_split(K)
    A = gen.standard_normal((K1, N))
    B = gen.standard_normal((K2, N))
    return (A[:, None, :] * B[None, :, :]).reshape(K, N)
