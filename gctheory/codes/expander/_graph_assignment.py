"""Glasgow and Wootters' graph assignment code (machines are a graph's edges), its
optimal decoder in closed form per component, and its random and adversarial bounds."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from gctheory._validate import (
    check_array,
    check_choice,
    check_int,
    check_memory,
    check_probability,
    check_real,
)
from gctheory.codes._survivors import Survivors
from gctheory.codes.approximate import _ApproximateCode
from gctheory.codes.base import validate_survivors
from gctheory.codes.expander._graphs import _check_adjacency, graph_spectrum

__all__ = [
    "GraphAssignmentCode",
    "graph_optimal_alpha",
    "graph_adversarial_bound",
    "glasgow_wootters_random_bound",
]


# -------------------------------------------------------- Glasgow-Wootters
def _edges(adjacency: np.ndarray) -> np.ndarray:
    """Edge list (|E|, 2) with u < v, multi-edges repeated; self-loops refused."""
    if np.any(np.diag(adjacency)):
        raise ValueError("graph assignment schemes need a graph without self-loops")
    iu, ju = np.nonzero(np.triu(adjacency, 1))
    mult = adjacency[iu, ju]
    return np.column_stack([np.repeat(iu, mult), np.repeat(ju, mult)]).astype(np.int64)


def graph_optimal_alpha(n: int, edges: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """Optimal ``alpha* = A w*`` of a graph assignment scheme (Glasgow-Wootters Section 4).

    ``edges`` (M, 2) are the machines, ``alive`` (M,) bool the non-stragglers.
    Per connected component of the surviving graph: ``alpha_v = 1`` if the
    component has an odd cycle; if it is bipartite with sides L, R,
    ``alpha_v = 1 - (|side(v)| - |other|) / (|L| + |R|)`` (an isolated vertex
    gets 0). Linear time: a component is bipartite iff its two copies in the
    bipartite double cover are different components, and the side of v is the
    set of vertices whose first copy shares v's double-cover component.

    Parameters
    ----------
    n : int
        Vertices (data blocks).
    edges : numpy.ndarray, shape (M, 2)
        The machines as edges.
    alive : numpy.ndarray of bool, shape (M,)
        The non-stragglers.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The optimal ``alpha*``.

    Examples
    --------
    >>> from gctheory.codes import graph_optimal_alpha
    >>> import numpy as np
    >>> edges = np.array([[0, 1], [1, 2], [2, 0], [2, 3]])  # a triangle and a pendant edge
    >>> graph_optimal_alpha(4, edges, np.array([True, True, True, False])).tolist()
    [1.0, 1.0, 1.0, 0.0]
    >>> graph_optimal_alpha(4, edges, np.array([False, False, False, True])).tolist()
    [0.0, 0.0, 1.0, 1.0]
    """
    n = check_int(n, "n", low=1)
    check_memory(64 * n, "n", f"the bipartite double cover of {n} vertices")
    edges = check_array(edges, "edges", ndim=2, min_size=0)
    if edges.shape[1] != 2 or np.any(edges != np.round(edges)):
        raise ValueError(f"edges must be an (M, 2) array of vertex indices, got {edges.shape}")
    if edges.size and (edges.min() < 0 or edges.max() >= n):
        raise ValueError(f"edges must hold vertex indices in [0, n) with n={n}")
    edges = edges.astype(np.int64)
    alive = check_array(alive, "alive", ndim=1, min_size=0)
    if alive.shape != (edges.shape[0],) or not np.all((alive == 0) | (alive == 1)):
        raise ValueError(
            f"alive must be a boolean vector with one entry per edge ({edges.shape[0]}), "
            f"got shape {alive.shape}"
        )
    e = edges[alive.astype(bool)]
    u, v = e[:, 0], e[:, 1]
    rows = np.concatenate([u, v + n, v, u + n])
    cols = np.concatenate([v + n, u, u + n, v])
    G = sp.coo_matrix((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(2 * n, 2 * n))
    _, lab = connected_components(G.tocsr(), directed=False)
    a, b = lab[:n], lab[n:]
    bip = a != b
    size = np.bincount(a, minlength=2 * n)  # first copies per double-cover component
    own, other = size[a], size[b]
    alpha = np.ones(n)
    alpha[bip] = 1.0 - (own[bip] - other[bip]) / (own[bip] + other[bip])
    return alpha


def graph_adversarial_bound(n_vertices: int, d: int, spectral_gap: float, s: int) -> float:
    """Corollary 40 of Glasgow-Wootters: ``(2d - gap) M s / ((M - s) d^2)``, ``M = n d / 2``.

    The error ``||1 - A w||^2`` of ``w = M / (d (M - s))`` on the surviving
    machines, for any ``s`` straggling machines (Proposition 39 with
    ``sigma_2^2 = 2d - gap``); the optimal decoder does at least as well.
    Computed exactly from the integers (any size); ``inf`` when the bound is beyond
    the float range.

    Parameters
    ----------
    n_vertices : int
        Vertices (data blocks).
    d : int
        Degree.
    spectral_gap : float
        ``d - lambda_2``.
    s : int
        Straggling machines.

    Returns
    -------
    float
        The error bound (``inf`` beyond the float range).

    Examples
    --------
    >>> from gctheory.codes import graph_adversarial_bound
    >>> round(graph_adversarial_bound(10, 4, 2.0, 3), 6)
    1.323529
    """
    n = check_int(n_vertices, "n_vertices", low=2)
    d = check_int(d, "d", low=1)
    M = n * d // 2
    s = check_int(s, "s", low=0)
    if s >= M:
        raise ValueError(f"s must be < M = n d / 2 = {M} machines, got {s}")
    high = 2.0 * d if d < 2**1000 else math.inf
    spectral_gap = check_real(spectral_gap, "spectral_gap", low=0.0, high=high)
    ratio = Fraction(M * s, (M - s) * d * d)  # exact: n, d, s may exceed the float range
    try:
        return float((2 * d - Fraction(spectral_gap)) * ratio)
    except OverflowError:
        return math.inf


def glasgow_wootters_random_bound(n: int, d: int, spectral_gap: float, p: float) -> dict:
    """The random-straggler theorem of Glasgow-Wootters (Section 5), its regime and bounds.

    For a vertex-transitive d-regular G on n vertices with spectral gap
    ``lam`` and machines straggling independently with probability p: if some
    ``eps > 0`` meets the four conditions (1) ``lam > 1.5``; (2)
    ``(lam/2 + 1)(1 - p e^(1/lam)) >= 1 + eps``; (3)
    ``(1 - t)(lam - (2d - lam) t) >= eps``; (4) ``n / log(n)^2 >= 4(1 + eps) /
    eps^2 (2 - 2 log eps + 2 log(1 + eps) - log(1 - p e^(1/lam)))``, with
    ``t = e^2 p^(lam (1 - 1/(3 + eps))) / (1 - p e^(1/lam))^2``, then
    ``E[alpha*] = r 1`` with ``r >= 1 - 6/n - t`` and
    ``E[(alpha*_i - r)^2] <= 6/n + t``.

    Returns a dict with ``eps`` (the eps on a grid of (0, 4] meeting every
    condition with the smallest t, None if none does), ``t``,
    ``r_lower = 1 - 6/n - t`` and ``var_upper = 6/n + t`` (at that eps), and
    ``conditions`` (which of (1)-(4) hold at it, or at eps = 1 if none fits).

    Parameters
    ----------
    n : int
        Vertices.
    d : int
        Degree.
    spectral_gap : float
        ``lam``, the spectral gap.
    p : float
        Straggling probability.

    Returns
    -------
    dict
        Whether the conditions hold (and with which ``eps``) and the bounds.

    Examples
    --------
    >>> from gctheory.codes import glasgow_wootters_random_bound
    >>> r = glasgow_wootters_random_bound(10**6, 8, 4.0, 0.1)
    >>> sorted(r)[:4]
    ['conditions', 'eps', 'r_lower', 't']
    """
    n = check_int(n, "n", low=3)
    d = check_int(d, "d", low=1)
    p = check_probability(p, "p")
    lam = check_real(spectral_gap, "spectral_gap", low=0.0, high=2.0 * d)
    if lam <= 0:
        q = -1.0
    elif p == 0:
        q = 1.0
    else:  # 1 - p e^(1/lam), with e^(1/lam) overflowing for a tiny gap
        x = math.log(p) + 1 / lam
        q = 1 - math.exp(x) if x < 700 else -math.inf

    def conds(eps: float) -> tuple[list[bool], float]:
        if q <= 0 or p == 0:
            t = 0.0 if p == 0 else math.inf
        else:
            t = math.e**2 * p ** (lam * (1 - 1 / (3 + eps))) / q**2 if q > 1e-150 else math.inf
        c1 = lam > 1.5
        c2 = q > 0 and (lam / 2 + 1) * q >= 1 + eps
        c3 = math.isfinite(t) and (1 - t) * (lam - (2 * d - lam) * t) >= eps
        c4 = q > 0 and n / math.log(n) ** 2 >= 4 * (1 + eps) / eps**2 * (
            2 - 2 * math.log(eps) + 2 * math.log(1 + eps) - math.log(q)
        )
        return [c1, bool(c2), bool(c3), bool(c4)], t

    best = None
    for eps in np.linspace(0.01, 4, 400):
        ok, t = conds(float(eps))
        if all(ok) and (best is None or t < best[1]):
            best = (float(eps), t, ok)
    if best is None:
        ok, t = conds(1.0)
        return {"eps": None, "t": t, "r_lower": None, "var_upper": None, "conditions": ok}
    eps, t, ok = best
    return {
        "eps": eps,
        "t": t,
        "r_lower": 1 - 6 / n - t,
        "var_upper": 6 / n + t,
        "conditions": ok,
    }


class GraphAssignmentCode(_ApproximateCode):
    """Graph assignment scheme of Glasgow and Wootters (Definition II.2) with optimal decoding.

    Workers are the M edges of a graph on ``k`` vertices (data blocks); worker
    e = (u, v) holds blocks u and v and sends ``g_u + g_v``. Each block is
    replicated ``deg(v)`` times, each worker has load 2. The optimal
    coefficients ``alpha* = A^T w*`` (and so the optimal error) come in linear
    time from the connected components of the surviving graph
    (:func:`graph_optimal_alpha`). The decoding vector ``w*`` itself is not
    unique where the surviving graph has cycles; ``decode`` uses the
    least-squares solution of the generic approximate-code solve (one valid
    ``w*``: its ``A^T w`` equals the components' ``alpha*``, tested).

    Parameters
    ----------
    adjacency : (k, k) symmetric 0/1 (or multi-edge count) matrix without self-loops
    decoder : {"components", "lstsq"}
        How :meth:`decoder_error` gets ``alpha*``: from the components (linear
        time) or by least squares. ``decode`` solves least squares either way.

    Examples
    --------
    >>> from gctheory.codes import GraphAssignmentCode, load
    >>> from gctheory.codes import circulant_graph
    >>> code = GraphAssignmentCode(circulant_graph(5, [1]))  # 5 blocks, 5 machines (edges)
    >>> code.n, code.k, code.load
    (5, 5, 2)
    >>> code.alpha([0, 1, 2, 3]).round(6).tolist()
    [1.2, 0.8, 1.2, 0.8, 0.8]
    >>> round(code.decoder_error([0, 1, 2, 3]), 6)
    0.2
    """

    name = "graph assignment code (Glasgow-Wootters 2021)"

    def __init__(self, adjacency: Any, *, decoder: str = "components") -> None:
        check_choice(decoder, "decoder", ("components", "lstsq"))
        Adj = _check_adjacency(adjacency)
        self.adjacency = Adj
        self.edges = _edges(Adj)
        self.k = Adj.shape[0]
        self.n = len(self.edges)
        self.d, self.lambda2, _ = graph_spectrum(Adj)
        self.spectral_gap = self.d - self.lambda2
        A = np.zeros((self.n, self.k), dtype=np.int8)
        A[np.arange(self.n), self.edges[:, 0]] = 1
        A[np.arange(self.n), self.edges[:, 1]] = 1
        self.A = A
        self.support = A.astype(bool)
        self.load = 2
        self.decoder = decoder

    def alpha(self, survivors: Survivors) -> np.ndarray:
        """``alpha* = A^T w*`` (per block: the coefficient of g_v in the optimal estimate)."""
        T = validate_survivors(survivors, self.n, 0)
        alive = np.zeros(self.n, dtype=bool)
        alive[T] = True
        return graph_optimal_alpha(self.k, self.edges, alive)

    def decoder_error(self, survivors: Survivors) -> float:
        """``||alpha* - 1||^2``: the optimal error, from the components (or least squares)."""
        if self.decoder == "lstsq":
            return super().decoder_error(survivors)
        a = self.alpha(survivors) - 1.0
        return float(a @ a)

    def _solve(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        # the weights w* are not unique on cycles; the decode uses least squares for w and
        # the components give alpha (tested equal)
        return super()._solve(T)

    def adversarial_bound(self, s: int) -> float:
        """:func:`graph_adversarial_bound` for this graph (``s`` straggling machines)."""
        return graph_adversarial_bound(self.k, self.d, self.spectral_gap, s)
