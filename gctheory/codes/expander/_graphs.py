"""Regular graphs for the expander codes and their spectra: random regular graphs
(configuration model repaired by double-edge switches), the Margulis / Gabber-Galil
family, circulant graphs (Cayley graphs of Z_n) with exact spectrum by FFT."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gctheory._validate import (
    as_generator,
    check_int,
    check_memory,
)

__all__ = [
    "random_regular_graph",
    "margulis_graph",
    "circulant_graph",
    "graph_spectrum",
    "circulant_spectrum",
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
