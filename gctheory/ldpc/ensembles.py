"""LDPC ensembles: degree distributions and random Tanner graphs.

What this module computes
-------------------------
* Degree distributions in edge perspective ``lambda(x), rho(x)``, conversions
  to and from node perspective, the design rate (Richardson and Urbanke 2008,
  Sec. 3.3).
* Random parity-check matrices of the regular ``(d_v, d_c)`` ensemble
  (:func:`regular_ensemble`) from the configuration model, with a choice of
  what happens to multi-edges.

References
----------
.. [1] T. Richardson, R. Urbanke, "Modern Coding Theory", Cambridge 2008,
   Chapter 3 (the binary erasure channel).
.. [2] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019,
   Section IV-A.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy import sparse

from gctheory._compiled import HAVE_NUMBA
from gctheory._validate import as_generator, available_memory, check_choice, check_int

__all__ = [
    "MULTI_EDGES",
    "RESAMPLE_WORK_LIMIT",
    "design_rate",
    "edge_to_node",
    "expected_resample_draws",
    "node_to_edge",
    "regular_ensemble",
]


#: How :func:`regular_ensemble` treats repeated edges of the configuration model.
MULTI_EDGES = ("resample", "cancel", "keep")

#: Largest expected amount of work (configuration draws x edges) that
#: ``multi_edges="resample"`` takes on; about 20 s on one core. Beyond it the
#: call is refused at once with the estimate.
RESAMPLE_WORK_LIMIT = 1e9
_BYTES_PER_EDGE = 48  # peak: sockets, permutation, keys/sort and the sparse output


def expected_resample_draws(dv: int, dc: int) -> float:
    """Expected number of configuration-model draws until one is simple, ``n -> inf``.

    The number of double edges of the configuration model converges to a
    Poisson variable of mean ``(d_v - 1)(d_c - 1)/2`` and triple edges vanish
    (the bipartite form of Bollobas' configuration-model argument; the mean is
    checked against draws in the tests), so ``P(simple) -> exp(-(d_v - 1)(d_c - 1)/2)``
    and rejection needs ``exp((d_v - 1)(d_c - 1)/2)`` draws on average: about 148 for (3, 6).

    Parameters
    ----------
    dv : int
        Variable degree.
    dc : int
        Check degree.

    Returns
    -------
    float
        ``exp((dv - 1)(dc - 1) / 2)``.

    Examples
    --------
    >>> from gctheory.ldpc import expected_resample_draws
    >>> round(expected_resample_draws(3, 6), 1)
    148.4
    """
    dv = check_int(dv, "dv", low=1)
    dc = check_int(dc, "dc", low=2)
    half = (dv - 1) * (dc - 1) / 2 if (dv - 1) * (dc - 1) < 2000 else math.inf
    return math.exp(half) if half < 709 else math.inf  # beyond float range: inf


def _gb(nbytes: int) -> str:
    if nbytes >= 1e300:
        return f"about 2^{nbytes.bit_length() - 1} bytes"
    return f"{nbytes / 1e9:.3g} GB"


def _check_memory(edges: int, what: str) -> None:
    if edges > 2**62:
        raise ValueError(f"{what} has more than 2^62 edges (n * dv): use a smaller n")
    need = _BYTES_PER_EDGE * edges
    if need < 2**28:  # under 256 MB: not worth reading /proc/meminfo on every draw
        return
    have = available_memory()
    if have is not None and need > have:
        raise ValueError(
            f"{what} needs about {_gb(need)} of memory ({edges:,} edges x "
            f"{_BYTES_PER_EDGE} bytes at the peak) but only {have / 1e9:.3g} GB are available; "
            "use a smaller n"
        )


def _check_resample(n: int, dv: int, dc: int) -> None:
    """Refuse rejection sampling whose expected work exceeds :data:`RESAMPLE_WORK_LIMIT`.

    The draws expected are the larger of the large-n limit :func:`expected_resample_draws`
    and a finite-n estimate: each variable's ``dv`` sockets land on distinct checks with
    probability ``prod_{j<dv} (m - j) dc / (m dc - j)``, taken independent over the ``n``
    variables (same limit as n grows; far larger for short codes such as (6, 6, 6), where
    every variable must meet all six checks).
    """
    m = n * dv // dc
    if dv > m:
        raise ValueError(
            f"dv must be <= m = n dv / dc = {m} checks for a simple graph (each variable "
            f"needs dv distinct checks), got dv={dv}; use multi_edges='keep' or a larger n"
        )
    log_one = sum(math.log((m - j) * dc / (m * dc - j)) for j in range(1, dv))
    log_draws = max(-n * log_one, math.log(expected_resample_draws(dv, dc) or 1.0))
    draws = math.exp(log_draws) if log_draws < 700 else math.inf
    if draws * n * dv > RESAMPLE_WORK_LIMIT:
        raise ValueError(
            f"multi_edges='resample' draws configurations until one is simple: for "
            f"(n, dv, dc) = ({n}, {dv}, {dc}) that takes about {draws:.3g} "
            f"draws of {n * dv:,} edges (limit {RESAMPLE_WORK_LIMIT:.0e} edge draws); use "
            "multi_edges='keep' (the configuration model) or 'cancel', or a smaller n"
        )


def regular_ensemble(
    n: int, dv: int, dc: int, *, rng: Any = None, multi_edges: str = "resample"
) -> sparse.csr_matrix:
    """Random parity-check matrix of the regular ``(d_v, d_c)`` LDPC ensemble.

    Configuration model (Richardson and Urbanke 2008, Sec. 3.3; the ensemble
    ``C(d_c, d_v)`` of Kadhe et al. 2019, Sec. IV-A): ``n*d_v`` variable
    sockets are matched to ``m*d_c`` check sockets by a uniform random
    permutation, ``m = n*d_v/d_c``. The permutation can join a check and a
    variable more than once (about ``(d_v - 1)(d_c - 1)/2 = 5`` double edges
    per (3, 6) code, whatever ``n``); ``multi_edges`` says which ensemble the
    caller means:

    ``"resample"`` (default)
        A simple Tanner graph with exactly the degrees ``d_v`` and ``d_c``,
        uniform over all such graphs: configurations are drawn until one has
        no multi-edge (rejection; every simple graph comes from the same
        number of permutations, so the result is exactly uniform). Cost:
        :func:`expected_resample_draws` draws, about 148 for (3, 6) (0.1 s at
        n = 10**4); refused at once when the expected work exceeds
        :data:`RESAMPLE_WORK_LIMIT` edge draws. From ``2**19``
        sockets ``n*dv`` on, with numba installed, a compiled sampler draws
        each configuration socket by socket (a check with probability
        proportional to its free sockets: the next entry of a uniform
        permutation) and abandons it at its first multi-edge, a fifth of the
        way in on average, and the matrix comes from a counting sort: the same
        distribution, about 1 s of CPU at n = 10**6 where the full shuffles
        took 30 s, but another code for the same seed than the numpy path
        (its own xoshiro256** stream, seeded from ``rng``).
    ``"cancel"``
        One draw; the entry is the number of edges joining a check and a
        variable modulo 2 (the parity-check matrix of the multigraph). A double
        edge vanishes, so a degree-3 variable with one keeps a single check: a
        weight-1 column. Two weight-1 columns on one check are a stopping set
        of size 2, which puts a floor ``~eps^2`` under the block failure rate
        of the codes that have one (an artifact in a waterfall curve).
    ``"keep"``
        One draw, the multigraph itself: the entry is the multiplicity of the
        edge (1, 2, ...). This is the ensemble of the exact finite-length
        analysis (:mod:`gctheory.ldpc.finite_length`, Di et al. 2002) and of
        density evolution; decode it with ``peel(..., multigraph=True)``,
        where a check counts an erased variable once per edge.

    Parameters
    ----------
    n : int
        Code length (number of variables, columns), ``n >= 1``.
    dv, dc : int
        Variable and check degree, ``dv >= 1``, ``dc >= 2``; ``n*dv`` must be
        divisible by ``dc``.
    rng : seed or Generator, keyword-only
        Anything :func:`gctheory._validate.as_generator` accepts.
    multi_edges : {"resample", "cancel", "keep"}, keyword-only

    Returns
    -------
    scipy.sparse.csr_matrix of shape ``(n*dv//dc, n)``, dtype int8
        0/1 for ``"resample"`` and ``"cancel"``; edge multiplicities for ``"keep"``.

    Raises
    ------
    ValueError
        For bad parameters; when the memory needed (about 48 bytes per edge)
        exceeds the memory available, with both figures; for ``"resample"``
        when the expected rejection work is beyond :data:`RESAMPLE_WORK_LIMIT`.

    Examples
    --------
    >>> from gctheory.ldpc import regular_ensemble
    >>> H = regular_ensemble(12, 3, 6, rng=0)
    >>> H.shape, H.sum(axis=0).tolist()[0][:4], H.sum(axis=1).ravel().tolist()[0]
    ((6, 12), [3, 3, 3, 3], [6, 6, 6, 6, 6, 6])
    """
    n = check_int(n, "n", low=1)
    dv = check_int(dv, "dv", low=1)
    dc = check_int(dc, "dc", low=2)
    check_choice(multi_edges, "multi_edges", MULTI_EDGES)
    if (n * dv) % dc:
        raise ValueError(
            f"n*dv must be divisible by dc (m = n*dv/dc checks), got n={n}, dv={dv}, dc={dc}"
        )
    m = n * dv // dc
    _check_memory(n * dv, f"regular_ensemble(n={n}, dv={dv}, dc={dc})")
    if multi_edges == "resample":
        _check_resample(n, dv, dc)
    rng = as_generator(rng)
    if multi_edges == "resample":
        if HAVE_NUMBA and _FAST_SOCKETS <= n * dv < 2**31:
            return _simple_matrix_compiled(n, dv, dc, rng)
        chk = _configurations(1, n, dv, dc, rng, simple=True)[0]
        return _simple_matrix(chk, m, n, dv)
    chk = np.repeat(np.arange(m, dtype=np.int64), dc)[rng.permutation(m * dc)]
    var_sockets = np.repeat(np.arange(n, dtype=np.int64), dv)
    if multi_edges == "keep":
        return _multigraph_matrix(chk, var_sockets, m, n)
    return _edges_to_matrix(chk, var_sockets, m, n)


def _configurations(
    B: int, n: int, dv: int, dc: int, rng: np.random.Generator, *, simple: bool
) -> np.ndarray:
    """``B`` uniform configurations: row ``b`` holds the check of every variable socket.

    Variable ``v`` owns sockets ``v dv .. v dv + dv - 1``. With ``simple=True``
    configurations with a multi-edge are rejected and redrawn (in batches of
    candidates, which costs little more than one when the code is short); every
    accepted one is uniform over the simple configurations, i.e. over the simple
    Tanner graphs with these degrees.
    """
    m = n * dv // dc
    chk = np.repeat(np.arange(m, dtype=np.int64), dc)

    def draw(k: int) -> np.ndarray:
        if chk.size < 8000:  # numpy's 2-D permuted is faster for short rows, a loop for long
            return rng.permuted(np.broadcast_to(chk, (k, chk.size)), axis=1)
        out = np.tile(chk, (k, 1))
        for row in out:
            # shuffling a copy in place makes the swaps of rng.permutation(size) on the
            # copy, so row == chk[rng.permutation(size)] bit for bit (same draws), without
            # the index array and the gather (a quarter of the time at n = 10**6)
            rng.shuffle(row)
        return out

    if not simple:
        return draw(B)
    out = np.empty((B, chk.size), dtype=np.int64)
    done = 0
    while done < B:
        cand = draw(max(B - done, min(256, -(-65536 // chk.size))))
        good = cand[_simple_rows(cand.reshape(cand.shape[0], n, dv))][: B - done]
        out[done : done + len(good)] = good
        done += len(good)
    return out


def _simple_rows(C: np.ndarray) -> np.ndarray:
    """Per configuration (``C[b, v]`` = the ``dv`` checks of variable ``v``): no multi-edge."""
    dv = C.shape[2]
    bad = np.zeros(C.shape[0], dtype=bool)
    for a in range(dv):
        for b in range(a + 1, dv):
            bad |= np.any(C[:, :, a] == C[:, :, b], axis=1)
    return ~bad


#: sockets (``n*dv``) from which ``regular_ensemble(..., multi_edges="resample")`` draws
#: with the compiled early-stopping shuffle (when numba is installed); below, the numpy
#: shuffles are fast enough (0.1 s at n = 10**4) and keep the codes earlier versions drew
#: for a seed (the paper checks' codes, n <= 128000 for (3, 6), among them)
_FAST_SOCKETS = 2**19


def _simple_matrix_compiled(
    n: int, dv: int, dc: int, rng: np.random.Generator
) -> sparse.csr_matrix:
    """A uniform simple ``(dv, dc)`` Tanner graph by rejection, drawn by
    :func:`gctheory.ldpc._ensemble_kernel.draw_simple_configuration` (its xoshiro256**
    stream seeded by four 64-bit words from ``rng``), the matrix by a counting sort."""
    from gctheory.ldpc._ensemble_kernel import draw_simple_configuration, sockets_to_csr

    m = n * dv // dc
    seed = rng.integers(0, 1 << 64, size=4, dtype=np.uint64)
    if not seed.any():  # xoshiro's one forbidden state (probability 2^-256)
        seed[0] = 1
    chk = np.empty(n * dv, dtype=np.int32)
    counts = np.empty(m, dtype=np.uint8 if dc < 256 else np.int32)
    pool = np.empty(max(1, n * dv // 16), dtype=np.int32)  # the last sixteenth: a shuffle
    draw_simple_configuration(seed, n, dv, dc, chk, counts, pool)
    indptr, indices = sockets_to_csr(chk, m, dv, dc)
    H = sparse.csr_matrix((np.ones(chk.size, dtype=np.int8), indices, indptr), shape=(m, n))
    H.has_sorted_indices = True
    return H


def _simple_matrix(chk: np.ndarray, m: int, n: int, dv: int) -> sparse.csr_matrix:
    cols = np.repeat(np.arange(n, dtype=np.int32), dv)
    H = sparse.csr_matrix(
        (np.ones(chk.size, dtype=np.int8), (chk.astype(np.int32), cols)), shape=(m, n)
    )
    H.sort_indices()
    return H


def _multigraph_matrix(rows: np.ndarray, cols: np.ndarray, m: int, n: int) -> sparse.csr_matrix:
    """Sparse matrix with entry (r, c) = number of edges r-c (the multigraph's multiplicities)."""
    uniq, counts = np.unique(rows * n + cols, return_counts=True)
    r, c = np.divmod(uniq, n)
    H = sparse.csr_matrix(
        (counts.astype(np.int8), (r.astype(np.int32), c.astype(np.int32))), shape=(m, n)
    )
    H.sort_indices()
    return H


def _edges_to_matrix(rows: np.ndarray, cols: np.ndarray, m: int, n: int) -> sparse.csr_matrix:
    """Sparse 0/1 matrix with entry (r, c) = (number of edges r-c) mod 2."""
    key = rows * n + cols
    uniq, counts = np.unique(key, return_counts=True)
    keep = uniq[counts % 2 == 1]
    r, c = np.divmod(keep, n)
    H = sparse.csr_matrix(
        (np.ones(keep.size, dtype=np.int8), (r.astype(np.int32), c.astype(np.int32))),
        shape=(m, n),
    )
    H.sort_indices()
    return H


# --------------------------------------------------------------------------
# Degree distributions
# --------------------------------------------------------------------------

Distribution = Mapping[int, float]


#: largest node degree a distribution may have (its polynomials are evaluated term by term)
MAX_DEGREE = 10**5


def _check_distribution(name: str, dist: Any, min_degree: int) -> dict[int, Any]:
    """Validate {degree: fraction}: integer degrees >= min_degree, fractions >= 0, sum 1."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be the parameter's name (a non-empty str), got {name!r}")
    if not isinstance(dist, Mapping) or len(dist) == 0:
        raise ValueError(f"{name} must be a non-empty mapping {{degree: fraction}}, got {dist!r}")
    out: dict[int, Any] = {}
    for d, f in dist.items():
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise ValueError(f"{name}: degrees must be integers, got {d!r}")
        if d < min_degree:
            raise ValueError(f"{name}: degrees must be >= {min_degree}, got degree {d}")
        if d > MAX_DEGREE:
            raise ValueError(f"{name}: degrees must be <= {MAX_DEGREE:,}, got degree {d}")
        # a number (int, float, Fraction, numpy scalar), never a string or a bool: "1.0"
        # would pass float() and then break the sum below with a TypeError
        real = isinstance(f, numbers.Real) and not isinstance(f, (bool, np.bool_))
        if not (real and math.isfinite(float(f)) and float(f) >= 0):
            raise ValueError(
                f"{name}: fractions must be real numbers, finite and >= 0, got {name}[{d}] = {f!r}"
            )
        if f:
            out[int(d)] = f
    total = sum(out.values())
    if not out or abs(float(total) - 1.0) > 1e-9:
        raise ValueError(f"{name}: fractions must sum to 1, got sum {float(total)!r}")
    return dict(sorted(out.items()))


def node_to_edge(node: Distribution, *, name: str = "node") -> dict[int, Any]:
    """Edge-perspective distribution from a node-perspective one.

    ``lambda_i = i L_i / sum_j j L_j`` (Richardson and Urbanke 2008, Sec. 3.3):
    the fraction of edges attached to degree-``i`` nodes. Exact when the
    fractions are :class:`fractions.Fraction`.

    Parameters
    ----------
    node : mapping of int to float
        Node-perspective distribution ``{degree: fraction of nodes}``.
    name : str
        Name for error messages.

    Returns
    -------
    dict of int to float
        The edge-perspective distribution.

    Examples
    --------
    >>> from gctheory.ldpc import node_to_edge
    >>> from fractions import Fraction
    >>> node_to_edge({2: Fraction(1, 2), 3: Fraction(1, 2)})
    {2: Fraction(2, 5), 3: Fraction(3, 5)}
    """
    L = _check_distribution(name, node, 1)
    tot = sum(i * f for i, f in L.items())
    return {i: i * f / tot for i, f in L.items()}


def edge_to_node(edge: Distribution, *, name: str = "edge") -> dict[int, Any]:
    """Node-perspective distribution from an edge-perspective one.

    ``L_i = (lambda_i / i) / sum_j lambda_j / j`` (Richardson and Urbanke 2008,
    Sec. 3.3). Exact for :class:`fractions.Fraction` input.

    Parameters
    ----------
    edge : mapping of int to float
        Edge-perspective distribution.
    name : str
        Name for error messages.

    Returns
    -------
    dict of int to float
        The node-perspective distribution.

    Examples
    --------
    >>> from gctheory.ldpc import edge_to_node
    >>> from fractions import Fraction
    >>> edge_to_node({2: Fraction(2, 5), 3: Fraction(3, 5)})
    {2: Fraction(1, 2), 3: Fraction(1, 2)}
    """
    lam = _check_distribution(name, edge, 1)
    tot = sum(f / i for i, f in lam.items())
    return {i: (f / i) / tot for i, f in lam.items()}


def design_rate(lam: Distribution, rho: Distribution) -> Any:
    """Design rate ``1 - (sum_j rho_j / j) / (sum_i lambda_i / i)`` (Richardson-Urbanke 3.3).

    Richardson and Urbanke 2008, Sec. 3.3; ``lam``/``rho`` are edge-perspective
    {degree: fraction}. The (3, 6) ensemble has rate 1/2, the [10000, 5000]
    code of Kadhe et al. 2019, Remark 3.

    Parameters
    ----------
    lam, rho : mapping of int to float
        Edge-perspective variable and check degree distributions ``{degree: fraction}``.

    Returns
    -------
    float or fractions.Fraction
        The design rate (exact for Fractions).

    Examples
    --------
    >>> from gctheory.ldpc import design_rate
    >>> from fractions import Fraction
    >>> design_rate({3: Fraction(1)}, {6: Fraction(1)})
    Fraction(1, 2)
    >>> design_rate({3: 1.0}, {4: 1.0})
    0.25
    """
    lam = _check_distribution("lam", lam, 1)
    rho = _check_distribution("rho", rho, 2)
    return 1 - sum(f / j for j, f in rho.items()) / sum(f / i for i, f in lam.items())


def _poly(dist: dict[int, float], x: np.ndarray | float) -> np.ndarray:
    """Edge-perspective generating polynomial ``sum_d f_d x^(d-1)``."""
    x = np.asarray(x, dtype=float)
    return sum((float(f) * x ** (d - 1) for d, f in dist.items()), np.zeros_like(x))


def _one_minus_poly_one_minus(dist: dict[int, float], x: np.ndarray | float) -> np.ndarray:
    """``1 - P(1 - x)`` for an edge-perspective polynomial, without cancellation at small x."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore"):  # log1p(-1) = -inf gives 1 - 0**(d-1) = 1, as it should
        return sum(float(f) * -np.expm1((d - 1) * np.log1p(-x)) for d, f in dist.items()) + 0 * x


def _dpoly(dist: dict[int, float], x: np.ndarray | float) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return sum(float(f) * (d - 1) * x ** max(d - 2, 0) for d, f in dist.items() if d >= 2) + 0 * x
