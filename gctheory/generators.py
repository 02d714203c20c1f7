"""Generator matrices of [N, K] linear codes over the reals and complexes.

Used by the gradient-code constructions (:mod:`gctheory.codes`) and by the
stability analysis (:mod:`gctheory.conditioning`). Convention: a generator of
an [N, K] code is a K x N matrix ``G``; its columns are the N coded symbols'
coefficient vectors, and decoding from a set T of surviving columns inverts
(or solves with) ``G[:, T]``.

- Gaussian: i.i.d. standard normal entries (Kadhe et al. 2019, Section IV-B;
  MDS with probability one).
- Vandermonde: ``G[i, j] = x_j ** i`` for nodes ``x_j`` that are equispaced in
  [-1, 1], Chebyshev points of the first kind, or the N-th roots of unity
  (the Reed-Solomon choice of Halbawi et al. 2017, Alg. 2). MDS whenever the
  nodes are distinct; ill-conditioned as N grows for real nodes (Gautschi).
- Systematic: ``[I_K | P]`` obtained from any generator by ``G[:, :K]^{-1} G``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "VANDERMONDE_NODES",
    "gaussian_generator",
    "vandermonde_nodes",
    "vandermonde_generator",
    "systematic_generator",
]

VANDERMONDE_NODES = ("equispaced", "chebyshev", "roots_of_unity")


def _check_nk(N: int, K: int) -> None:
    for name, v in (("N", N), ("K", K)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if K > N:
        raise ValueError(f"K must be <= N for an [N, K] code, got K={K}, N={N}")


def gaussian_generator(K: int, N: int, *, rng: Any = None) -> np.ndarray:
    """K x N matrix of i.i.d. standard normal entries (Kadhe et al. 2019, Thm. 2)."""
    _check_nk(N, K)
    return np.random.default_rng(rng).standard_normal((K, N))


def vandermonde_nodes(N: int, nodes: str = "chebyshev") -> np.ndarray:
    """The N evaluation points of a Vandermonde generator.

    ``"equispaced"``: ``-1 + 2 j / (N - 1)`` (0 for N = 1); ``"chebyshev"``:
    ``cos((2 j + 1) pi / (2 N))``; ``"roots_of_unity"``: ``exp(2 pi i j / N)``
    (complex), j = 0..N-1.
    """
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 1:
        raise ValueError(f"N must be a positive integer, got {N!r}")
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
    """
    _check_nk(N, K)
    x = vandermonde_nodes(N, nodes) if isinstance(nodes, str) else np.asarray(nodes)
    if x.shape != (N,):
        raise ValueError(f"nodes must have shape ({N},), got {x.shape}")
    if len(np.unique(x)) != N:
        raise ValueError("nodes must be distinct for the code to be MDS")
    return np.vander(x, K, increasing=True).T


def systematic_generator(G: np.ndarray) -> np.ndarray:
    """The systematic form ``G[:, :K]^{-1} G = [I_K | P]`` of a K x N generator.

    Raises ValueError if the first K columns are singular.
    """
    G = np.asarray(G)
    if G.ndim != 2 or G.shape[0] > G.shape[1]:
        raise ValueError(f"G must be a K x N matrix with K <= N, got shape {G.shape}")
    K = G.shape[0]
    A = G[:, :K]
    if np.linalg.matrix_rank(A) < K:
        raise ValueError("the first K columns of G are singular: no systematic form")
    S = np.linalg.solve(A, G)
    S[:, :K] = np.eye(K)
    return S
