"""Approximate gradient codes from expander graphs, and their optimal decoding.

Two codes on a d-regular graph G (adjacency ``Adj``, second eigenvalue
``lam = max(|lambda_2|, |lambda_n|)``, spectral gap ``d - lambda_2``):

- :class:`ExpanderCode` -- Raviv, Tamo, Tandon, Dimakis [1] (the
  expander-graph part; "Section V" follows the citation this module was
  written with: the stored copies of [1] give the abstract and the start of
  the introduction only, so no section or theorem number could be verified):
  the coding matrix is the normalised adjacency ``B = Adj / d`` (n workers =
  n partitions = vertices; worker i holds the partitions of its neighbours).
  Decoders: ``"optimal"`` (least squares, eq. (4)-(5) of Wang et al. 2019) and
  ``"fixed"`` (the linear-time decoder ``u = n / |K|`` on the survivors K, as
  in the authors' public code ``approx_gradient_coding``).
  :func:`expander_error_bound` is a spectral bound on the fixed decoder's
  error, ``(lam / d)^2 n s / (n - s)``, derived in its docstring: it is
  gctheory's derivation, not the paper's printed statement, which could not
  be retrieved from the stored sources (Proposition 39 of [2] makes the same
  argument for assignment matrices).
- :class:`GraphAssignmentCode` -- Glasgow and Wootters [2]: machines are the
  *edges* of G, data blocks its vertices; each machine holds its two
  endpoints. The optimal decoder (least squares) has a closed form per
  connected component of the surviving graph ([2], Section 4): ``alpha_v = 1``
  on a component with an odd cycle, ``1 -/+ (|L| - |R|) / (|L| + |R|)`` on
  the larger/smaller side of a bipartite one, computed in linear time by
  :func:`graph_optimal_alpha`. :func:`glasgow_wootters_random_bound` is the
  random-straggler theorem of [2] (Section 5) and
  :func:`graph_adversarial_bound` its Corollary 40 (adversarial stragglers).

Graphs: :func:`random_regular_graph` (configuration model repaired by
double-edge switches), :func:`margulis_graph` (the explicit Margulis /
Gabber-Galil 8-regular family on Z_m x Z_m, second eigenvalue <= 5 sqrt 2
by Gabber and Galil 1981), :func:`circulant_graph` (Cayley graphs of Z_n:
vertex-transitive, with exact spectrum by FFT, as [2]'s theorem requires).

References
----------
.. [1] N. Raviv, I. Tamo, R. Tandon, A. G. Dimakis, "Gradient coding from
   cyclic MDS codes and expander graphs", IEEE Trans. Inf. Theory 66(12),
   2020 (ICML 2018), arXiv:1707.03858 (the expander-graph part; section and
   theorem numbers not verified).
.. [2] M. Glasgow, M. Wootters, "Approximate gradient coding with optimal
   decoding", IEEE J. Sel. Areas Inf. Theory, 2021, Sections 3-6.
.. [3] O. Gabber, Z. Galil, "Explicit constructions of linear-sized
   superconcentrators", J. Comput. Syst. Sci. 22, 1981.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from gctheory._validate import (
    as_generator,
    check_array,
    check_choice,
    check_int,
    check_memory,
    check_probability,
    check_real,
)
from gctheory.codes._survivors import Survivors
from gctheory.codes.approximate import _ApproximateCode, recovery_error
from gctheory.codes.base import DecodingCost, check_positive_int, validate_survivors

__all__ = [
    "random_regular_graph",
    "margulis_graph",
    "circulant_graph",
    "graph_spectrum",
    "circulant_spectrum",
    "ExpanderCode",
    "expander_error_bound",
    "expander_worst_case_lower_bound",
    "GraphAssignmentCode",
    "graph_optimal_alpha",
    "graph_adversarial_bound",
    "glasgow_wootters_random_bound",
]


# ------------------------------------------------------------------- graphs
def random_regular_graph(n: int, d: int, *, rng: Any = None) -> np.ndarray:
    """A random simple d-regular graph on n vertices (symmetric 0/1 adjacency, int8).

    Configuration model (a uniformly random matching of the ``n d`` stubs),
    then every self-loop or repeated edge is removed by a random double-edge
    switch ``{u v, x y} -> {u x, v y}`` that creates no new defect (a fresh
    matching when the switches get stuck, up to 20). Dense requests
    (``2 d > n - 1``) take the complement of a random ``(n - 1 - d)``-regular
    graph, where switches cannot get stuck as in e.g. K4 (``d = n - 1`` is the
    complete graph). The result is exactly d-regular and simple; its law is
    close to, not exactly, uniform. Requires ``1 <= d < n`` and ``n d`` even (a d-regular graph on n
    vertices exists iff these hold).

    Parameters
    ----------
    n : int
        Vertices.
    d : int
        Degree, ``0 <= d < n`` with ``n d`` even.
    rng : None, int or numpy.random.Generator
        Seed.

    Returns
    -------
    numpy.ndarray of int8, shape (n, n)
        Symmetric 0/1 adjacency with every row summing to ``d``.

    Examples
    --------
    >>> from gctheory.codes import random_regular_graph
    >>> A = random_regular_graph(10, 3, rng=0)
    >>> A.shape, A.sum(axis=1).tolist(), bool((A == A.T).all())
    ((10, 10), [3, 3, 3, 3, 3, 3, 3, 3, 3, 3], True)
    """
    n = check_int(n, "n", low=2)
    d = check_int(d, "d", low=1)
    if d >= n:
        raise ValueError(f"d must be < n for a simple d-regular graph, got d={d}, n={n}")
    if (n * d) % 2:
        raise ValueError(f"n d must be even (the degrees sum to twice the edges), got n={n}, d={d}")
    check_memory(1 * n * n + 64 * n * d, "n", f"the {n} x {n} adjacency matrix")
    gen = as_generator(rng)
    if 2 * d > n - 1:
        # dense: the complement of a random (n - 1 - d)-regular graph (d = n - 1: complete)
        A = np.ones((n, n), dtype=np.int8) - np.eye(n, dtype=np.int8)
        if d == n - 1:
            return A
        return A - _random_regular(n, n - 1 - d, gen)
    return _random_regular(n, d, gen)


def _random_regular(n: int, d: int, gen: np.random.Generator) -> np.ndarray:
    """Configuration model repaired by double-edge switches; up to 20 fresh starts."""
    edges = _random_regular_edges(n, d, gen)
    A = np.zeros((n, n), dtype=np.int8)
    A[edges[:, 0], edges[:, 1]] = 1
    A[edges[:, 1], edges[:, 0]] = 1
    return A


def _random_regular_edges(n: int, d: int, gen: np.random.Generator) -> np.ndarray:
    """The ``n d / 2`` edges of :func:`random_regular_graph` for ``2 d <= n - 1`` (same draws)."""
    for _ in range(20):
        edges = _configuration_repaired(n, d, gen)
        if edges is not None:
            return edges
    raise ValueError(f"could not repair a random {d}-regular graph on {n} vertices")


def _configuration_repaired(n: int, d: int, gen: np.random.Generator) -> np.ndarray | None:
    """A random matching of the ``n d`` stubs, then random double-edge switches until no
    self-loop or repeated edge is left (None if that takes more than ``100 n d`` tries).

    Each try draws a defective edge ``i`` (uniformly among the self-loops and every copy
    of a repeated edge, in index order), a partner ``j`` among all edges and an
    orientation, and switches ``{u v, x y} -> {u x, v y}`` unless that makes a loop or
    an edge already present. The defects are kept up to date across switches (a switch
    only removes defects: its two new edges are neither loops nor present before), so a
    try costs O(defects) instead of a pass over all ``n d / 2`` edges; the draws and the
    result are those of the pass-per-try version (tests/test_tradeoff_speed.py).
    """
    stubs = gen.permutation(np.repeat(np.arange(n), d))
    edges = stubs.reshape(-1, 2)
    key = np.minimum(edges[:, 0], edges[:, 1]) * n + np.maximum(edges[:, 0], edges[:, 1])
    _, first, counts = np.unique(key, return_index=True, return_counts=True)
    dup = np.ones(len(edges), dtype=bool)
    dup[first[counts == 1]] = False
    keys: list[int] = key.tolist()
    count: dict[int, int] = {}
    for k in keys:
        count[k] = count.get(k, 0) + 1
    bad_edges = set(np.flatnonzero((edges[:, 0] == edges[:, 1]) | dup).tolist())
    members: dict[int, set[int]] = {}  # defective key -> its edges (a loop, or repeated)
    for e in bad_edges:
        members.setdefault(keys[e], set()).add(e)
    for _ in range(100 * n * d):
        if not bad_edges:
            return edges
        bad = sorted(bad_edges)
        i = bad[int(gen.integers(len(bad)))]
        j = int(gen.integers(len(edges)))
        (u, v), (x, y) = edges[i].tolist(), edges[j].tolist()
        if gen.random() < 0.5:
            x, y = y, x
        k1, k2 = min(u, x) * n + max(u, x), min(v, y) * n + max(v, y)
        if u == x or v == y or k1 == k2:
            continue  # the switch would make a loop or a double edge
        if k1 in count or k2 in count:
            continue
        for e in (i, j):  # i != j here (the same edge twice makes a loop or k1 == k2)
            k = keys[e]
            count[k] -= 1
            if not count[k]:
                del count[k]
            if k in members:
                members[k].discard(e)
            bad_edges.discard(e)
        for k in {keys[i], keys[j]}:
            rest = members.get(k)
            if rest is None:
                continue
            if not rest or (len(rest) == 1 and k // n != k % n):
                bad_edges -= rest  # a lone copy left of a repeated edge is no defect now
                del members[k]
        keys[i], keys[j] = k1, k2
        count[k1] = count[k2] = 1
        edges[i], edges[j] = (u, x), (v, y)
    return None


def margulis_graph(m: int) -> np.ndarray:
    """The Margulis / Gabber-Galil 8-regular multigraph on ``Z_m x Z_m`` (adjacency counts).

    Vertex ``(x, y)`` (index ``x m + y``) is joined to ``(x + 2y, y)``,
    ``(x + 2y + 1, y)``, ``(x, y + 2x)``, ``(x, y + 2x + 1)`` (mod m) and to
    the preimages under these maps, so every row sums to 8 (a self-loop
    counts 2, multi-edges count their multiplicity). Gabber and Galil (1981)
    prove ``lambda_2 <= 5 sqrt 2 ~ 7.07`` for every m. ``m >= 2``.

    Parameters
    ----------
    m : int
        Side of the torus ``Z_m x Z_m``, ``>= 2``.

    Returns
    -------
    numpy.ndarray, shape (m^2, m^2)
        Adjacency counts; every row sums to 8.

    Examples
    --------
    >>> from gctheory.codes import margulis_graph
    >>> A = margulis_graph(5)
    >>> A.shape, set(A.sum(axis=1).tolist())
    ((25, 25), {8})
    """
    m = check_int(m, "m", low=2)
    check_memory(8 * m**4, "m", f"the m^2 x m^2 = {m * m} x {m * m} adjacency matrix")
    x, y = np.divmod(np.arange(m * m), m)
    A = np.zeros((m * m, m * m), dtype=np.int64)
    v = x * m + y
    for tx, ty in (
        ((x + 2 * y) % m, y),
        ((x + 2 * y + 1) % m, y),
        (x, (y + 2 * x) % m),
        (x, (y + 2 * x + 1) % m),
    ):
        w = tx * m + ty
        np.add.at(A, (v, w), 1)
        np.add.at(A, (w, v), 1)
    return A


def circulant_graph(n: int, generators: Sequence[int]) -> np.ndarray:
    """Cayley graph of ``Z_n`` with connection set ``{+-g}``: vertex-transitive, 0/1 adjacency.

    Degree ``2 len(generators)`` (one less per generator equal to n/2).
    Generators must be distinct in ``[1, n/2]``.

    Parameters
    ----------
    n : int
        Vertices.
    generators : sequence of int
        Distinct connection offsets in ``[1, n/2]``.

    Returns
    -------
    numpy.ndarray, shape (n, n)
        Symmetric 0/1 adjacency.

    Examples
    --------
    >>> from gctheory.codes import circulant_graph
    >>> circulant_graph(6, [1]).sum(axis=1).tolist()  # the 6-cycle
    [2, 2, 2, 2, 2, 2]
    """
    n = check_int(n, "n", low=3)
    gens = _check_generators(n, generators)
    check_memory(1 * n * n, "n", f"the {n} x {n} adjacency matrix")
    A = np.zeros((n, n), dtype=np.int8)
    i = np.arange(n)
    for g in gens:
        A[i, (i + g) % n] = 1
        A[i, (i - g) % n] = 1
    return A


def _check_generators(n: int, generators: Sequence[int]) -> list[int]:
    if isinstance(generators, (str, bytes, dict, set)) or not isinstance(
        generators, (Sequence, np.ndarray)
    ):
        raise ValueError(
            f"generators must be a sequence of distinct integers in [1, n/2], got {generators!r}"
        )
    gens = [check_int(g, "each of generators", low=1) for g in generators]
    if not gens or len(set(gens)) != len(gens) or max(gens) > n // 2:
        raise ValueError(
            f"generators must be distinct integers in [1, n/2] = [1, {n // 2}], got {gens}"
        )
    return gens


#: largest n |S| whose circulant eigenvalues are summed directly (above: one FFT)
_CIRCULANT_DIRECT_MAX = 2 * 10**6


def circulant_spectrum(n: int, generators: Sequence[int]) -> tuple[int, float, float]:
    """``(d, lambda_2, lam)`` of :func:`circulant_graph` exactly, by its characters.

    The eigenvalues of a Cayley graph of ``Z_n`` are
    ``sum_{g in S} cos(2 pi j g / n)`` over the connection set S (j = 0..n-1):
    O(n |S|), no matrix; above ``n |S| = 2e6`` one FFT, O(n log n).

    Parameters
    ----------
    n : int
        Vertices.
    generators : sequence of int
        Connection offsets, as in :func:`circulant_graph`.

    Returns
    -------
    tuple of (int, float, float)
        ``(d, lambda_2, lam)``.

    Examples
    --------
    >>> from gctheory.codes import circulant_spectrum
    >>> d, l2, lam = circulant_spectrum(6, [1])
    >>> d, round(l2, 6), round(lam, 6)  # the 6-cycle is bipartite: lam = d
    (2, 1.0, 2.0)
    """
    n = check_int(n, "n", low=3)
    gens = _check_generators(n, generators)
    check_memory(24 * n, "n", f"the {n} eigenvalues")
    return _circulant_spectrum(n, gens)


def _circulant_spectrum(
    n: int, gens: list[int], *, direct_max: int | None = None
) -> tuple[int, float, float]:
    """:func:`circulant_spectrum` for checked arguments (a list of distinct Python ints in
    ``[1, n/2]``): the kernel, for callers that draw many valid connection sets (the
    tradeoff atlas's degree scan; checking each of thousands of generators cost more than
    the FFT). ``direct_max`` replaces :data:`_CIRCULANT_DIRECT_MAX` (0: always the FFT)."""
    size = 2 * len(gens) - (n % 2 == 0 and n // 2 in gens)  # |{+-g}|: n/2 is its own inverse
    if n * size <= (_CIRCULANT_DIRECT_MAX if direct_max is None else direct_max):
        conn = {g % n for g in gens} | {(-g) % n for g in gens}  # summed in this set's order
        j = np.arange(n)
        ev = np.zeros(n)
        for g in conn:
            ev += np.cos(2 * np.pi * j * g / n)
    else:
        # the same sums as one real FFT of the connection set's indicator, O(n log n) instead
        # of O(n |S|) (the set is symmetric, so the transform is real); agrees with the
        # direct sums to about 1e-15 |S| (checked in tests/test_fast_paths.py)
        ga = np.asarray(gens, dtype=np.int64)
        ind = np.zeros(n)
        ind[ga % n] = 1.0
        ind[(-ga) % n] = 1.0
        ev = np.fft.rfft(ind).real
        ev = np.concatenate([ev, ev[1 : n - ev.size + 1][::-1]])
    ev = np.partition(ev, (0, n - 2))  # the smallest and the second largest, as a sort puts them
    return size, float(ev[-2]), float(max(abs(ev[-2]), abs(ev[0])))


def graph_spectrum(adjacency: Any) -> tuple[int, float, float]:
    """``(d, lambda_2, lam)`` of a d-regular (multi)graph: degree, second largest
    eigenvalue, and ``lam = max(|lambda_2|, |lambda_n|)`` (dense symmetric eigensolver).

    Raises ``ValueError`` if the graph is not regular or not symmetric.

    Parameters
    ----------
    adjacency : array_like, shape (n, n)
        Symmetric adjacency (counts) of a regular (multi)graph.

    Returns
    -------
    tuple of (int, float, float)
        ``(d, lambda_2, lam)``.

    Examples
    --------
    >>> from gctheory.codes import circulant_graph, graph_spectrum
    >>> d, l2, lam = graph_spectrum(circulant_graph(6, [1]))
    >>> d, round(l2, 6), round(lam, 6)
    (2, 1.0, 2.0)
    """
    A = _check_adjacency(adjacency)
    ev = np.linalg.eigvalsh(A.astype(float))
    d = int(A.sum(axis=1)[0])
    return d, float(ev[-2]), float(max(abs(ev[-2]), abs(ev[0])))


def _check_adjacency(adjacency: Any) -> np.ndarray:
    try:
        A = np.asarray(adjacency)
    except (ValueError, TypeError):
        raise ValueError("adjacency must be a square n x n integer matrix") from None
    if A.ndim != 2 or A.shape[0] != A.shape[1] or A.shape[0] < 2:
        raise ValueError(f"adjacency must be a square n x n matrix, n >= 2, got {A.shape}")
    if A.dtype.kind not in "iub" or np.any(A < 0):
        raise ValueError("adjacency must hold non-negative integer edge counts")
    if not np.array_equal(A, A.T):
        raise ValueError("adjacency must be symmetric (an undirected graph)")
    deg = A.sum(axis=1)
    if np.any(deg != deg[0]) or deg[0] == 0:
        raise ValueError(
            f"the graph must be d-regular with d >= 1 (non-regular graph: degrees from "
            f"{int(deg.min())} to {int(deg.max())})"
        )
    return A


# ------------------------------------------------------------ Raviv et al.
def expander_error_bound(n: int, s: int, d: int, lam: float) -> float:
    """Spectral bound on the fixed decoder's error, ``(lam / d)^2 n s / (n - s)``.

    gctheory's derivation, not a statement read from Raviv et al. (whose
    printed bound could not be retrieved); the expander-mixing argument,
    which Glasgow-Wootters Proposition 39 makes for assignment matrices: for
    survivors K,
    ``|K| = n - s``, ``u = n / (n - s) 1_K`` and ``B = Adj / d`` with
    ``1^T B = 1^T``, ``u^T B - 1^T = x^T B`` with ``x = u - 1`` orthogonal to
    ``1``; ``||x||^2 = s n / (n - s)``; and ``||x^T B|| <= (lam / d) ||x||``
    on ``1^perp``. The optimal decoder does at least as well. ``0 <= s < n``.

    Parameters
    ----------
    n : int
        Workers.
    s : int
        Stragglers, ``0 <= s < n``.
    d : int
        Degree of the graph.
    lam : float
        Its spectral expansion ``max(|lambda_2|, |lambda_n|)``.

    Returns
    -------
    float
        ``(lam / d)^2 n s / (n - s)``.

    Examples
    --------
    >>> from gctheory.codes import expander_error_bound
    >>> round(expander_error_bound(50, 5, 8, 5.0), 6)
    2.170139
    """
    n = check_int(n, "n", low=1)
    s = check_int(s, "s", low=0)
    d = check_int(d, "d", low=1)
    if s >= n:
        raise ValueError(f"s must be < n (some worker survives), got s={s}, n={n}")
    lam = check_real(lam, "lam", low=0.0)
    if s == 0:
        return 0.0
    try:
        return (lam / d) ** 2 * n * s / (n - s)
    except OverflowError:  # lam = 1e300 raised it: products of floats
        r = lam / d  # overflow to inf instead, and stay finite where the bound is
        return r * (r * (n * s / (n - s)))


def expander_worst_case_lower_bound(s: int, d: int) -> float:
    """Worst-case lower bound ``s / d`` on the squared error ``||u^T B_K - 1||^2``.

    The bound Raviv et al.'s own code plots as "Lower Bound (worst case)" (its
    square root ``sqrt(s / d)`` on the l2 error; ``rashisht1/approx_gradient_coding``,
    ``all1_approx_tests.py``, at n = 50, d = 3, s = 3..7): some set of ``s``
    stragglers leaves every decoder of a code whose partitions are each held by
    ``d`` workers with at least this squared error. When ``d`` divides ``s`` and
    the graph has ``s / d`` vertices with disjoint neighbourhoods, straggling those
    neighbourhoods loses ``s / d`` partitions entirely, so the bound is attained by
    that set (each lost partition costs 1). ``0 <= s``, ``d >= 1``.

    Parameters
    ----------
    s : int
        Stragglers.
    d : int
        Replication of every partition.

    Returns
    -------
    float
        ``s / d``.

    Examples
    --------
    >>> from gctheory.codes import expander_worst_case_lower_bound
    >>> expander_worst_case_lower_bound(6, 3)
    2.0
    """
    s = check_int(s, "s", low=0)
    d = check_int(d, "d", low=1)
    return s / d


class ExpanderCode(_ApproximateCode):
    """Expander-graph approximate gradient code (Raviv et al. 2020, expander-graph part).

    Parameters
    ----------
    adjacency : (n, n) symmetric non-negative integer matrix of a d-regular graph
        E.g. :func:`random_regular_graph`, :func:`margulis_graph`.
    decoder : {"optimal", "fixed"}
        Least squares (eq. (5) of Wang et al. 2019), or the linear-time
        ``u = n / |K|`` on the survivors K.

    Attributes
    ----------
    A : (n, n) float
        The coding matrix ``Adj / d`` (worker i sends ``sum_j A[i, j] g_j``).
    d, lambda2, lam : degree, second eigenvalue, ``max(|lambda_2|, |lambda_n|)``.

    Examples
    --------
    >>> from gctheory.codes import ExpanderCode, load
    >>> import numpy as np
    >>> from gctheory.codes import random_regular_graph
    >>> code = ExpanderCode(random_regular_graph(12, 4, rng=0))
    >>> code.n, code.load
    (12, 4)
    >>> err = code.decoder_error([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])  # 2 stragglers
    >>> 0 <= err <= code.error_bound(2)
    True
    """

    name = "expander code (Raviv et al. 2020)"

    def __init__(self, adjacency: Any, *, decoder: str = "optimal") -> None:
        check_choice(decoder, "decoder", ("optimal", "fixed"))
        Adj = _check_adjacency(adjacency)
        self.adjacency = Adj
        self.n = self.k = Adj.shape[0]
        self.d, self.lambda2, self.lam = graph_spectrum(Adj)
        self.A = Adj / self.d
        self.support = Adj > 0
        self.load = int(self.support.sum(axis=1).max())
        self.decoder = decoder

    def error_bound(self, s: int) -> float:
        """:func:`expander_error_bound` for this graph and ``s`` stragglers."""
        return expander_error_bound(self.n, s, self.d, self.lam)

    def _solve(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        if self.decoder == "optimal":
            return super()._solve(T)
        return np.full((T.size, 1), self.n / T.size), 1.0

    def decoder_error(self, survivors: Survivors) -> float:
        """``||u^T A_K - 1||^2`` of this code's decoder on ``survivors``."""
        T = validate_survivors(survivors, self.n, 1)
        if self.decoder == "optimal":
            return recovery_error(self.A[T])
        e = (self.n / T.size) * self.A[T].sum(axis=0) - 1.0
        return float(e @ e)

    def decoding_cost(self, survivors: Sequence[int] | None = None, d: int = 1) -> DecodingCost:
        """Fixed decoder: one scaled sum of the survivors (``|K| d``); optimal: dense model."""
        if self.decoder == "optimal":
            return super().decoding_cost(survivors, d)
        t = self.n if survivors is None else len(survivors)
        return DecodingCost(setup=0, apply=t * check_positive_int("d", d), method="fixed n/|K|")


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
