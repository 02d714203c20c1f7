"""Generator matrices from polynomial evaluation: Gaussian, Vandermonde (and its
nodes), systematic, Chebyshev-Vandermonde, Legendre; and the generator check."""

from __future__ import annotations

from typing import Any

import numpy as np

from gctheory import _names
from gctheory._validate import as_generator, check_array, check_choice, check_int, check_memory

__all__ = [
    "VANDERMONDE_NODES",
    "gaussian_generator",
    "vandermonde_nodes",
    "vandermonde_generator",
    "systematic_generator",
    "chebyshev_vandermonde_generator",
    "legendre_generator",
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
