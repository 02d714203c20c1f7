"""Generator matrices of [N, K] linear codes over the reals and complexes: every family.

Used by the gradient-code constructions (:mod:`gctheory.codes`) and by the
stability analysis (:mod:`gctheory.conditioning`). Convention: a generator of
an [N, K] code is a K x N matrix ``G``; its columns are the N coded symbols'
coefficient vectors, and decoding from a set T of surviving columns inverts
(or solves with) ``G[:, T]``. The embeddings of Ramamoorthy and Tang give each
worker a *block* of b consecutive columns (``generator_block``): a K x N code
of them is a (b K) x (b N) real matrix and stragglers remove whole blocks.

The families (``GENERATOR_FAMILIES``, built by :func:`generator`):

- ``gaussian``: i.i.d. standard normal entries (Kadhe et al. 2019, Section
  IV-B; MDS with probability one);
- ``vandermonde-equispaced``, ``vandermonde-chebyshev``: ``G[i, j] = x_j ** i``
  on equispaced points of [-1, 1] or Chebyshev points of the first kind (real;
  MDS, ill-conditioned as N grows, Gautschi);
- ``vandermonde-roots-of-unity``: the N-th roots of unity (complex; the
  Reed-Solomon choice of Halbawi et al. 2017, Alg. 2);
- ``chebyshev-vandermonde``: ``G[i, j] = T_i(x_j)``, Chebyshev polynomials at
  the N-point Chebyshev grid (Fahim and Cadambe, "Numerically stable
  polynomially coded computing", IEEE Trans. IT 2021; they bound every K x K
  submatrix's condition number by O(N^{2(N-K)}));
- ``legendre``: orthonormal Legendre polynomials ``sqrt(i + 1/2) P_i`` at the
  N Gauss-Legendre nodes, columns scaled by the square roots of the Gauss
  weights, so that the square N x N matrix is orthogonal (the orthonormal-basis
  analogue of the Chebyshev family, for comparison);
- ``rotation-embedding``: block (i, j) = ``R^{i j}``, R the 2 x 2 rotation by
  ``2 pi / q`` (q = N by default), b = 2 (Ramamoorthy and Tang, "Numerically
  stable coded matrix computations via circulant and rotation matrix
  embeddings", IEEE Trans. IT 2022); real, and every worker submatrix has the
  singular values of the complex Vandermonde matrix on the nodes
  ``exp(2 pi i j / q)`` of its workers (R is unitarily similar to
  ``diag(w, conj(w))``), so its condition number is that one's;
- ``circulant-embedding``: block (i, j) = ``C^{i j}`` with C the q x q cyclic
  permutation restricted to the (q - 1)-dimensional complement of the
  all-ones vector (q the smallest prime >= N), b = q - 1 (same paper; MDS for
  q prime >= N);
- ``rkrp``: random Khatri-Rao-product code, ``G = A (column-wise Kronecker) B``
  with Gaussian ``A`` (K1 x N) and ``B`` (K2 x N), ``K = K1 K2``, K1 the largest
  divisor of K not above sqrt(K) (Subramaniam, Heidarzadeh, Narayanan,
  "Random Khatri-Rao-product codes for numerically-stable distributed matrix
  multiplication", Allerton 2019; MDS with probability one). For prime K it
  degenerates to a column-scaled Gaussian.

Every family has its systematic form (``systematic=True``): ``G[:, :K]^{-1} G =
[I_K | P]`` (for block families, the first K/b workers' columns).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory import _names
from gctheory._validate import as_generator, check_array, check_choice, check_int, check_memory

__all__ = [
    "VANDERMONDE_NODES",
    "GENERATOR_FAMILIES",
    "GeneratorFamily",
    "gaussian_generator",
    "vandermonde_nodes",
    "vandermonde_generator",
    "systematic_generator",
    "chebyshev_vandermonde_generator",
    "legendre_generator",
    "rotation_embedding_generator",
    "circulant_embedding_generator",
    "rkrp_generator",
    "generator",
    "generator_family",
    "generator_block",
    "check_generator",
]

VANDERMONDE_NODES = _names.VANDERMONDE_NODES  # ("equispaced", "chebyshev", "roots_of_unity")


def _check_nk(N: Any, K: Any, per_entry: int = 24) -> tuple[int, int]:
    """``(N, K)`` checked, and the K x N matrix (``per_entry`` bytes per entry, with the
    temporaries) refused at once if it cannot fit in memory."""
    N = check_int(N, "N", low=1)
    K = check_int(K, "K", low=1)
    if K > N:
        raise ValueError(f"K must be <= N for an [N, K] code, got K={K}, N={N}")
    check_memory(int(per_entry) * K * N, "N", f"the {K} x {N} generator")
    return N, K


def gaussian_generator(K: int, N: int, *, rng: Any = None) -> np.ndarray:
    """K x N matrix of i.i.d. standard normal entries (Kadhe et al. 2019, Thm. 2).

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
        i.i.d. N(0, 1) entries.

    Examples
    --------
    >>> from gctheory.generators import gaussian_generator
    >>> gaussian_generator(2, 4, rng=0).round(3)
    array([[ 0.126, -0.132,  0.64 ,  0.105],
           [-0.536,  0.362,  1.304,  0.947]])
    """
    N, K = _check_nk(N, K)
    return as_generator(rng).standard_normal((K, N))


def vandermonde_nodes(N: int, nodes: str = "chebyshev") -> np.ndarray:
    """The N evaluation points of a Vandermonde generator.

    ``"equispaced"``: ``-1 + 2 j / (N - 1)`` (0 for N = 1); ``"chebyshev"``:
    ``cos((2 j + 1) pi / (2 N))``; ``"roots_of_unity"``: ``exp(2 pi i j / N)``
    (complex), j = 0..N-1.

    Parameters
    ----------
    N : int
        Number of nodes.
    nodes : {"equispaced", "chebyshev", "roots_of_unity"}
        The node family.

    Returns
    -------
    numpy.ndarray, shape (N,)
        The nodes (complex for roots of unity).

    Examples
    --------
    >>> from gctheory.generators import vandermonde_nodes
    >>> vandermonde_nodes(3, "equispaced").tolist()
    [-1.0, 0.0, 1.0]
    >>> vandermonde_nodes(3).round(6).tolist()  # Chebyshev
    [0.866025, 0.0, -0.866025]
    """
    N = check_int(N, "N", low=1)
    check_choice(nodes, "nodes", VANDERMONDE_NODES)
    check_memory(32 * N, "N", f"{N} nodes")
    j = np.arange(N)
    if nodes == "equispaced":
        return np.zeros(1) if N == 1 else -1.0 + 2.0 * j / (N - 1)
    if nodes == "chebyshev":
        return np.cos((2 * j + 1) * np.pi / (2 * N))
    if nodes == "roots_of_unity":
        return np.exp(2j * np.pi * j / N)
    raise ValueError(f"nodes must be one of {VANDERMONDE_NODES}, got {nodes!r}")


def vandermonde_generator(K: int, N: int, nodes: str | np.ndarray = "chebyshev") -> np.ndarray:
    """K x N Vandermonde generator ``G[i, j] = x_j ** i``, i = 0..K-1.

    ``nodes`` is a name from :data:`VANDERMONDE_NODES` or an array of N distinct
    points. Real nodes give a real matrix, roots of unity a complex one.

    Parameters
    ----------
    K : int
        Code dimension (rows), ``1 <= K <= N``.
    N : int
        Code length (workers).
    nodes : str or array_like
        A name of :data:`VANDERMONDE_NODES` or N distinct points.

    Returns
    -------
    numpy.ndarray, shape (K, N)
        ``G[i, j] = x_j ** i``.

    Examples
    --------
    >>> from gctheory.generators import vandermonde_generator
    >>> vandermonde_generator(3, 3, nodes="equispaced").tolist()
    [[1.0, 1.0, 1.0], [-1.0, 0.0, 1.0], [1.0, 0.0, 1.0]]
    """
    N, K = _check_nk(N, K, per_entry=32)
    if isinstance(nodes, str):
        x = vandermonde_nodes(N, nodes)
    else:
        x = check_array(nodes, "nodes", complex_ok=True)
    if x.shape != (N,):
        raise ValueError(f"nodes must have shape ({N},), got {x.shape}")
    if len(np.unique(x)) != N:
        raise ValueError("nodes must be distinct for the code to be MDS")
    return np.vander(x, K, increasing=True).T


def systematic_generator(G: np.ndarray) -> np.ndarray:
    """The systematic form ``G[:, :K]^{-1} G = [I_K | P]`` of a K x N generator.

    Raises ValueError if the first K columns are singular.

    Parameters
    ----------
    G : numpy.ndarray, shape (K, N)
        A generator whose first K columns are invertible.

    Returns
    -------
    numpy.ndarray, shape (K, N)
        ``[I_K | P]``.

    Raises
    ------
    ValueError
        The first K columns are singular.

    Examples
    --------
    >>> from gctheory.generators import systematic_generator, vandermonde_generator
    >>> S = systematic_generator(vandermonde_generator(2, 4, nodes="equispaced"))
    >>> S.round(6).tolist()
    [[1.0, 0.0, -1.0, -2.0], [0.0, 1.0, 2.0, 3.0]]
    """
    G = check_generator(G)
    K = G.shape[0]
    A = G[:, :K]
    if np.linalg.matrix_rank(A) < K:
        raise ValueError("the first K columns of G are singular: no systematic form")
    S = np.linalg.solve(A, G)
    S[:, :K] = np.eye(K)
    return S


def check_generator(G: Any, name: str = "G") -> np.ndarray:
    """``G`` as a 2-D real or complex float array with ``K <= N`` and finite entries.

    Parameters
    ----------
    G : array_like
        The matrix.
    name : str
        Its name, for messages.

    Returns
    -------
    numpy.ndarray
        ``G`` as a float (or complex) array.

    Raises
    ------
    ValueError
        Not 2-D, ``K > N``, or non-finite entries.

    Examples
    --------
    >>> from gctheory.generators import check_generator
    >>> check_generator([[1, 2, 3]]).dtype
    dtype('float64')
    >>> check_generator([[1.0], [2.0]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: G must have K <= N (rows <= columns), got shape (2, 1)
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be the parameter's name (a non-empty str), got {name!r}")
    try:
        A = np.asarray(G)
    except (ValueError, TypeError):
        raise ValueError(f"{name} must be a K x N matrix of numbers") from None
    if A.ndim != 2 or A.shape[0] < 1 or A.shape[1] < 1:
        raise ValueError(f"{name} must be a K x N matrix, got shape {A.shape}")
    if A.dtype == bool or not np.issubdtype(A.dtype, np.number):
        raise ValueError(f"{name} must hold real or complex numbers, got dtype {A.dtype}")
    if A.shape[0] > A.shape[1]:
        raise ValueError(f"{name} must have K <= N (rows <= columns), got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} must have finite entries (no nan or inf)")
    return A.astype(np.result_type(A.dtype, float))


def chebyshev_vandermonde_generator(K: int, N: int) -> np.ndarray:
    """K x N Chebyshev-Vandermonde generator ``G[i, j] = T_i(x_j)`` on the N-point Chebyshev grid.

    ``x_j = cos((2 j + 1) pi / (2 N))``, so ``T_i(x_j) = cos(i (2 j + 1) pi / (2 N))``
    (computed in that closed form, no recurrence). Fahim and Cadambe 2021,
    Section IV: every K x K submatrix has condition number O(N^{2(N-K)}).
    MDS: the Chebyshev basis is a triangular change of the monomial basis and
    the nodes are distinct.

    Parameters
    ----------
    K : int
        Code dimension (rows), ``1 <= K <= N``.
    N : int
        Code length (workers).

    Returns
    -------
    numpy.ndarray, shape (K, N)
        ``T_i(x_j)`` on the Chebyshev grid.

    Examples
    --------
    >>> from gctheory.generators import chebyshev_vandermonde_generator
    >>> chebyshev_vandermonde_generator(2, 3).round(6).tolist()
    [[1.0, 1.0, 1.0], [0.866025, 0.0, -0.866025]]
    """
    N, K = _check_nk(N, K)
    i = np.arange(K)[:, None]
    j = np.arange(N)[None, :]
    return np.cos(i * (2 * j + 1) * np.pi / (2 * N))


def legendre_generator(K: int, N: int) -> np.ndarray:
    """K x N orthonormal-Legendre generator at the N Gauss-Legendre nodes, weight-scaled.

    ``G[i, j] = sqrt(w_j) sqrt(i + 1/2) P_i(x_j)`` with ``(x_j, w_j)`` the Gauss-Legendre
    rule: the rows are orthonormal (the rule is exact for degree <= 2N - 1), so the full
    N x N matrix is orthogonal. MDS: distinct nodes, nonzero weights.

    Parameters
    ----------
    K : int
        Code dimension (rows), ``1 <= K <= N``.
    N : int
        Code length (workers).

    Returns
    -------
    numpy.ndarray, shape (K, N)
        Orthonormal rows.

    Examples
    --------
    >>> from gctheory.generators import legendre_generator
    >>> import numpy as np
    >>> G = legendre_generator(3, 5)
    >>> np.allclose(G @ G.T, np.eye(3))
    True
    """
    from scipy.special import eval_legendre, roots_legendre

    N, K = _check_nk(N, K)
    x, w = roots_legendre(N)
    i = np.arange(K)[:, None]
    return np.sqrt(w)[None, :] * np.sqrt(i + 0.5) * _legendre_rows(K, x, eval_legendre)


def _legendre_rows(K: int, x: np.ndarray, eval_legendre: Any) -> np.ndarray:
    """``P_i(x)`` for ``i < K``, bit for bit ``eval_legendre(i, x)``, in O(K N), not O(K^2 N).

    SciPy evaluates each integer degree by its own pass of the recurrence
    ``d_k = (2k+1)/(k+1) (x-1) p_k + k/(k+1) d_{k-1}``, ``p_{k+1} = p_k + d_k`` (so each
    row cost O(i) per node: 1.1 s at K = 900, N = 1000); one pass that keeps every
    ``p_k`` does the same floating-point operations in the same order. Nodes with
    ``|x| < 1e-5``, where SciPy sums a power series instead, are left to SciPy.
    """
    P = np.empty((K, x.size))
    P[0] = 1.0
    if K > 1:
        P[1] = x
        xm1, p, d = x - 1, x.copy(), x - 1
        for kk in range(K - 2):
            k = kk + 1.0
            d = ((2 * k + 1) / (k + 1)) * xm1 * p + (k / (k + 1)) * d
            p = d + p
            P[kk + 2] = p
        small = np.abs(x) < 1e-5
        if small.any():
            P[:, small] = eval_legendre(np.arange(K)[:, None], x[None, small])
    return P


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


@dataclass(frozen=True)
class GeneratorFamily:
    """One generator family of the registry.

    ``build(K, N, rng)`` gives the matrix; ``block(N)`` the columns per worker;
    ``random`` whether it depends on ``rng``; ``mds`` how the MDS property is
    promised (``"always"`` or ``"with probability one"``); ``source`` the paper.

    Parameters
    ----------
    name : str
        Registry name.
    description : str
        One line.
    source : str
        The paper.
    build : callable
        ``build(K, N, rng)`` returns the matrix.
    block : callable
        ``block(N)``: columns per worker.
    random : bool
        Whether the matrix depends on ``rng``.
    mds : str
        How the MDS property is promised.
    real : bool
        Whether the matrix is real.

    Examples
    --------
    >>> from gctheory.generators import GeneratorFamily, generator_family
    >>> fam = generator_family("legendre")
    >>> fam.name, fam.random, fam.mds, fam.real
    ('legendre', False, 'always', True)
    """

    name: str
    description: str
    source: str
    build: Callable[[int, int, Any], np.ndarray]
    block: Callable[[int], int]
    random: bool
    mds: str
    real: bool


def _one(N: int) -> int:
    return 1


_FAMILIES = {
    f.name: f
    for f in (
        GeneratorFamily(
            "gaussian", "i.i.d. N(0, 1)", "Kadhe et al. 2019, Thm. 2",
            lambda K, N, rng: gaussian_generator(K, N, rng=rng), _one, True,
            "with probability one", True,
        ),
        GeneratorFamily(
            "vandermonde-equispaced", "x_j^i, equispaced nodes in [-1, 1]", "Ye and Abbe 2018",
            lambda K, N, rng: vandermonde_generator(K, N, "equispaced"), _one, False,
            "always", True,
        ),
        GeneratorFamily(
            "vandermonde-chebyshev", "x_j^i, Chebyshev nodes", "Kadhe et al. 2019, Sec. IV-B",
            lambda K, N, rng: vandermonde_generator(K, N, "chebyshev"), _one, False,
            "always", True,
        ),
        GeneratorFamily(
            "vandermonde-roots-of-unity", "w^(i j), w = exp(2 pi i / N)", "Halbawi et al. 2017",
            lambda K, N, rng: vandermonde_generator(K, N, "roots_of_unity"), _one, False,
            "always", False,
        ),
        GeneratorFamily(
            "chebyshev-vandermonde", "T_i(x_j) on the Chebyshev grid", "Fahim and Cadambe 2021",
            lambda K, N, rng: chebyshev_vandermonde_generator(K, N), _one, False, "always", True,
        ),
        GeneratorFamily(
            "legendre", "orthonormal Legendre at Gauss nodes, sqrt-weight scaled",
            "orthonormal-basis comparison to Fahim and Cadambe 2021",
            lambda K, N, rng: legendre_generator(K, N), _one, False, "always", True,
        ),
        GeneratorFamily(
            "rotation-embedding", "2 x 2 rotation blocks R^(i j), angle 2 pi / N",
            "Ramamoorthy and Tang 2022",
            lambda K, N, rng: rotation_embedding_generator(K, N), lambda N: 2, False,
            "always", True,
        ),
        GeneratorFamily(
            "circulant-embedding", "cyclic-permutation blocks C^(i j) on 1-perp, q prime >= N",
            "Ramamoorthy and Tang 2022",
            lambda K, N, rng: circulant_embedding_generator(K, N),
            lambda N: _next_prime(N) - 1, False, "always", True,
        ),
        GeneratorFamily(
            "rkrp", "random Khatri-Rao product of two Gaussians", "Subramaniam et al. 2019",
            lambda K, N, rng: rkrp_generator(K, N, rng=rng), _one, True,
            "with probability one", True,
        ),
    )
}  # fmt: skip

#: Names of every generator family (see the module docstring).
GENERATOR_FAMILIES: tuple[str, ...] = tuple(_FAMILIES)


def generator_family(family: str) -> GeneratorFamily:
    """The registry entry of ``family`` (ValueError listing the valid names otherwise).

    Parameters
    ----------
    family : str
        A name of :data:`GENERATOR_FAMILIES`.

    Returns
    -------
    GeneratorFamily
        The registry entry.

    Raises
    ------
    ValueError
        Unknown name, listing the valid ones.

    Examples
    --------
    >>> from gctheory.generators import generator_family
    >>> generator_family("rkrp").random
    True
    """
    check_choice(family, "family", GENERATOR_FAMILIES)
    return _FAMILIES[family]


def generator_block(family: str, N: int) -> int:
    """Columns per worker of ``family`` for a code of N workers (1, 2, or q - 1).

    Parameters
    ----------
    family : str
        The family.
    N : int
        Workers.

    Returns
    -------
    int
        Columns per worker.

    Examples
    --------
    >>> from gctheory.generators import generator_block
    >>> generator_block("gaussian", 5), generator_block("rotation-embedding", 5)
    (1, 2)
    """
    return generator_family(family).block(check_int(N, "N", low=1))


def generator(
    family: str, K: int, N: int, *, systematic: bool = False, rng: Any = None
) -> np.ndarray:
    """Generator of an [N, K] code (N workers, dimension K) from ``family``.

    Returns a (b K) x (b N) matrix, b = :func:`generator_block` (1 for all but the
    embeddings). ``systematic=True`` returns ``G[:, :b K]^{-1} G``, whose first K
    workers carry the identity. ``rng`` seeds the random families and is refused
    (ValueError) as a non-seed otherwise checked by
    :func:`gctheory._validate.as_generator`.

    Parameters
    ----------
    family : str
        A name of :data:`GENERATOR_FAMILIES`.
    K : int
        Code dimension (rows), ``1 <= K <= N``.
    N : int
        Code length (workers).
    systematic : bool
        Return the systematic form.
    rng : None, int or numpy.random.Generator
        Seed.

    Returns
    -------
    numpy.ndarray, shape (b K, b N)
        The generator.

    Raises
    ------
    ValueError
        Unknown family (the valid ones are listed), ``K > N``, non-integer sizes.

    Examples
    --------
    >>> from gctheory.generators import generator
    >>> generator("gaussian", 2, 4, rng=0).shape
    (2, 4)
    >>> generator("legendre", 2, 4, systematic=True)[:, :2].round(6).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    fam = generator_family(family)
    N, K = _check_nk(N, K)
    if not isinstance(systematic, (bool, np.bool_)):
        raise ValueError(f"systematic must be True or False, got {systematic!r}")
    gen = as_generator(rng) if fam.random or rng is not None else None
    G = fam.build(K, N, gen)
    if systematic:
        G = systematic_generator(G)
    return G
