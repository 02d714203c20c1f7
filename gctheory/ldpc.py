"""LDPC codes on the erasure channel: ensembles, peeling, density evolution.

What this module computes
-------------------------
* Random parity-check matrices of the regular ``(d_v, d_c)`` ensemble from the
  configuration model (:func:`regular_ensemble`).
* The peeling decoder for one erasure pattern (:func:`peel`) and for a batch of
  patterns of the same code (:func:`peel_batch`); it is also the decoder of the
  LDPC-based and raptor-based gradient codes.
* Degree distributions in edge perspective ``lambda(x), rho(x)``, conversions to
  and from node perspective, design rate.
* The BEC density-evolution (peeling) threshold of an ensemble
  (:func:`bec_threshold`, :func:`regular_threshold`) and the density-evolution
  recursion itself (:func:`de_trajectory`).
* Monte Carlo block failure rate and residual erasure fraction at finite length
  (:func:`block_failure_rate`, :func:`residual_erasure_rate`), through
  :mod:`gctheory.montecarlo`.
* LT / batch raptor codes (Wang et al. 2019, Theorem 6): the degree
  distribution ``P_w`` (:func:`raptor_degree_distribution`), a numeric check of
  condition (54) (:func:`check_condition_54`) and the asymptotic residual
  fraction for a given overhead (:func:`lt_residual_fraction`).

Conventions
-----------
A parity-check matrix ``H`` has one row per check and one column per variable,
with entries in {0, 1}; it may be a scipy.sparse matrix or a dense array.
``erased`` is a boolean array over the variables (``True`` = erased, i.e. a
straggler). Peeling repeatedly finds a check with exactly one erased neighbour
and resolves that neighbour. The set it leaves unresolved does not depend on
the order of the steps: it is the largest stopping set contained in the erasure
set (Richardson and Urbanke 2008, Sec. 3.22), so every backend gives identical
results.

Multi-edges in the configuration model cancel modulo 2: the parity-check
matrix entry is the number of sockets joined between a check and a variable,
reduced mod 2 (Richardson and Urbanke 2008, Sec. 3.3, the definition of the
parity-check matrix of a Tanner graph with multiple edges). A double edge thus
disappears (the variable's and the check's degree drop by 2); a triple edge
becomes a single one. The expected number of multi-edges stays bounded as n
grows, so this changes O(1) entries.

References
----------
.. [1] S. Kadhe, O. O. Koyluoglu, K. Ramchandran, "Communication-efficient
   gradient coding for straggler mitigation in distributed learning", 2019,
   Section IV-A (Proposition 2, Remark 3).
.. [2] H. Wang, S. Liu, N. B. Shroff, "Fundamental limits of approximate
   gradient coding", 2019, Theorem 6, eqs. (17), (53)-(55).
.. [3] T. Richardson, R. Urbanke, "Modern Coding Theory", Cambridge 2008,
   Chapter 3 (the binary erasure channel).
"""

from __future__ import annotations

import functools
import importlib.util
import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import optimize, sparse

from gctheory.montecarlo import Estimate, estimate_mean, estimate_probability, seed_sequence

__all__ = [
    "HAVE_NUMBA",
    "RaptorParameters",
    "Threshold",
    "WaterfallPoint",
    "bec_threshold",
    "block_failure_rate",
    "check_condition_54",
    "count_failure_rate",
    "critical_erasure_count",
    "de_fixed_point",
    "de_trajectory",
    "design_rate",
    "edge_to_node",
    "lt_residual_fraction",
    "node_to_edge",
    "peel",
    "peel_batch",
    "raptor_code_matrix",
    "raptor_degree_distribution",
    "raptor_failure_rate",
    "raptor_parameters",
    "raptor_residual_rate",
    "regular_ensemble",
    "regular_threshold",
    "residual_erasure_rate",
    "waterfall",
]

# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------


def _check_int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_eps(eps: Any, name: str = "eps") -> float:
    try:
        e = float(eps)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in [0, 1], got {eps!r}") from None
    if not (0.0 <= e <= 1.0):
        raise ValueError(f"{name} must be in [0, 1], got {eps!r}")
    return e


def _as_parity_check(H: Any) -> sparse.csc_matrix:
    """Validate ``H`` (0/1, 2-D) and return it as a canonical CSC matrix of int8."""
    if sparse.issparse(H):
        M = sparse.csc_matrix(H, copy=True)
        if M.ndim != 2:
            raise ValueError(f"H must be 2-D, got shape {M.shape}")
        M.sum_duplicates()
        M.eliminate_zeros()
        vals = M.data
    else:
        A = np.asarray(H)
        if A.ndim != 2:
            raise ValueError(f"H must be a 2-D parity-check matrix, got shape {A.shape}")
        if A.dtype == object or not (
            np.issubdtype(A.dtype, np.number) or np.issubdtype(A.dtype, np.bool_)
        ):
            raise ValueError(f"H must be a numeric 0/1 matrix, got dtype {A.dtype}")
        vals = A[A != 0]
        M = sparse.csc_matrix((A != 0).astype(np.int8))
    if vals.size and not np.all(vals == 1):
        bad = vals[vals != 1][0]
        raise ValueError(f"H must be a 0/1 matrix (parity-check matrix), found entry {bad!r}")
    M = sparse.csc_matrix(
        (np.ones(M.nnz, dtype=np.int8), M.indices.astype(np.int32), M.indptr.astype(np.int64)),
        shape=M.shape,
    )
    M.sort_indices()
    return M


def _check_erased(erased: Any, n: int, ndim: int) -> np.ndarray:
    E = np.asarray(erased)
    if E.dtype != np.bool_:
        if E.dtype == object or not np.issubdtype(E.dtype, np.number):
            raise ValueError(f"erased must be a boolean array, got dtype {E.dtype}")
        if not np.all((E == 0) | (E == 1)):
            raise ValueError("erased must be boolean (or 0/1), found other values")
        E = E.astype(bool)
    if E.ndim != ndim or E.shape[-1] != n:
        want = "(n,)" if ndim == 1 else "(B, n)"
        raise ValueError(
            f"erased must have shape {want} with n = {n} (the columns of H), got {E.shape}"
        )
    return E


# --------------------------------------------------------------------------
# Ensembles
# --------------------------------------------------------------------------


def regular_ensemble(n: int, dv: int, dc: int, *, rng: Any = None) -> sparse.csr_matrix:
    """Random parity-check matrix of the regular ``(d_v, d_c)`` LDPC ensemble.

    Configuration model (Richardson and Urbanke 2008, Sec. 3.3; the ensemble
    ``C(d_c, d_v)`` of Kadhe et al. 2019, Sec. IV-A): ``n*d_v`` variable
    sockets are matched to ``m*d_c`` check sockets by a uniform random
    permutation, ``m = n*d_v/d_c``. Multi-edges cancel modulo 2 (an entry is
    the number of edges joining its check and variable, mod 2), so the result
    is an exact 0/1 matrix whose column (row) weights are ``d_v`` (``d_c``)
    except at the O(1) expected multi-edges.

    Parameters
    ----------
    n : int
        Code length (number of variables, columns), ``n >= 1``.
    dv, dc : int
        Variable and check degree, ``dv >= 1``, ``dc >= 2``; ``n*dv`` must be
        divisible by ``dc``.
    rng : seed or Generator, keyword-only
        Anything :func:`numpy.random.default_rng` accepts.

    Returns
    -------
    scipy.sparse.csr_matrix of shape ``(n*dv//dc, n)``, dtype int8.
    """
    n = _check_int("n", n, 1)
    dv = _check_int("dv", dv, 1)
    dc = _check_int("dc", dc, 2)
    if (n * dv) % dc:
        raise ValueError(
            f"n*dv must be divisible by dc (m = n*dv/dc checks), got n={n}, dv={dv}, dc={dc}"
        )
    m = n * dv // dc
    rng = np.random.default_rng(rng)
    var_sockets = np.repeat(np.arange(n, dtype=np.int64), dv)
    chk_sockets = np.repeat(np.arange(m, dtype=np.int64), dc)
    chk_sockets = chk_sockets[rng.permutation(chk_sockets.size)]
    return _edges_to_matrix(chk_sockets, var_sockets, m, n)


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
# Peeling decoder
# --------------------------------------------------------------------------


def _padded_adjacency(indptr: np.ndarray, indices: np.ndarray, pad: int) -> np.ndarray:
    """Rows of a CSR/CSC structure as a dense (rows, max degree) index array padded with ``pad``."""
    deg = np.diff(indptr)
    width = int(deg.max()) if deg.size else 0
    out = np.full((deg.size, max(width, 1)), pad, dtype=np.intp)
    pos = np.arange(indices.size) - np.repeat(indptr[:-1], deg)
    out[np.repeat(np.arange(deg.size), deg), pos] = indices
    return out


def _pack_bits(E: np.ndarray) -> np.ndarray:
    """(B, n) bool -> (n, G) uint64 with frame ``b`` in bit ``b % 64`` of word ``b // 64``."""
    B, n = E.shape
    G = -(-B // 64)
    P = np.zeros((G * 64, n), dtype=np.bool_)
    P[:B] = E
    by = np.packbits(P, axis=0, bitorder="little")  # (8G, n): byte j holds frames 8j..8j+7
    return np.ascontiguousarray(by.T).view("<u8").astype(np.uint64)  # (n, G)


def _unpack_bits(W: np.ndarray, B: int) -> np.ndarray:
    """Inverse of :func:`_pack_bits`."""
    n = W.shape[0]
    by = np.ascontiguousarray(W.astype("<u8")).view(np.uint8).reshape(n, -1)  # (n, 8G)
    return np.unpackbits(by.T, axis=0, bitorder="little")[:B].astype(np.bool_)


def _peel_numpy(Hc: sparse.csc_matrix, E: np.ndarray) -> np.ndarray:
    """Bit-parallel flooding peeling for a batch, numpy only. ``E`` is (B, n) bool.

    64 frames share a uint64 word per variable. In each round every check
    computes, frame by frame, whether exactly one neighbour is erased
    (``a1 & ~a2`` with ``a1`` = at least one, ``a2`` = at least two) and all
    erased variables adjacent to such a check are resolved at once (a Jacobi
    schedule). The fixed point is the largest stopping set inside the erasure
    set, the same as for any other peeling order.
    """
    m, n = Hc.shape
    B = E.shape[0]
    if Hc.nnz == 0 or not E.any():
        return E.copy()
    Hr = Hc.tocsr()
    radj = _padded_adjacency(Hr.indptr, Hr.indices, n)  # pad -> zero word W[n]
    vadj = _padded_adjacency(Hc.indptr, Hc.indices, m)  # pad -> zero row one[m]
    W = _pack_bits(E)
    G = W.shape[1]
    W = np.vstack([W, np.zeros((1, G), dtype=np.uint64)])
    one = np.zeros((m + 1, G), dtype=np.uint64)
    while True:
        a1 = np.zeros((m, G), dtype=np.uint64)
        a2 = np.zeros((m, G), dtype=np.uint64)
        for j in range(radj.shape[1]):
            w = W[radj[:, j]]
            a2 |= a1 & w
            a1 |= w
        one[:m] = a1 & ~a2
        if not one.any():
            break
        clear = one[vadj[:, 0]]
        for j in range(1, vadj.shape[1]):
            clear |= one[vadj[:, j]]
        W[:n] &= ~clear
    return _unpack_bits(W[:n], B)


#: True when the optional ``fast`` extra (numba) is importable; numba itself is
#: imported lazily, on the first decode that uses it.
HAVE_NUMBA = importlib.util.find_spec("numba") is not None


@functools.cache
def _numba_kernel():  # pragma: no cover - compiled code is not traced
    """Compile (once, cached on disk) the bit-parallel sequential peeling kernel."""
    import numba

    @numba.njit(cache=True, nogil=True)
    def _peel_batch_numba(rptr, rind, erased, out):  # noqa: PLR0912
        B, n = erased.shape
        m = rptr.size - 1
        W = np.zeros(n, dtype=np.uint64)
        active = np.empty(m, dtype=np.int64)
        one64 = np.uint64(1)
        visits = 0  # check visits (each costs 2 passes over the check's edges at most)
        for b0 in range(0, B, 64):
            b1 = min(B, b0 + 64)
            W[:] = 0
            for b in range(b0, b1):
                sh = np.uint64(b - b0)
                for v in range(n):
                    W[v] |= np.uint64(erased[b, v]) << sh
            for c in range(m):
                active[c] = c
            na = m
            changed = True
            while changed and na > 0:
                # Gauss-Seidel sweep over the checks that still see >= 2 erasures
                changed = False
                keep = 0
                visits += na
                for i in range(na):
                    c = active[i]
                    a1 = np.uint64(0)
                    a2 = np.uint64(0)
                    for k in range(rptr[c], rptr[c + 1]):
                        w = W[rind[k]]
                        a2 |= a1 & w
                        a1 |= w
                    single = a1 & ~a2
                    if single != 0:
                        changed = True
                        for k in range(rptr[c], rptr[c + 1]):
                            W[rind[k]] &= ~single
                    if a2 != 0:
                        active[keep] = c
                        keep += 1
                na = keep
            for b in range(b0, b1):
                sh = np.uint64(b - b0)
                for v in range(n):
                    out[b, v] = ((W[v] >> sh) & one64) != 0
        return visits

    return _peel_batch_numba


def _peel_numba(Hc: sparse.csc_matrix, E: np.ndarray, stats: list | None = None) -> np.ndarray:
    """Run the numba kernel; append the number of check visits to ``stats`` if given."""
    kernel = _numba_kernel()
    Hr = Hc.tocsr()
    out = np.empty(E.shape, dtype=np.bool_)
    visits = kernel(
        Hr.indptr.astype(np.int64), Hr.indices.astype(np.int32), np.ascontiguousarray(E), out
    )
    if stats is not None:
        stats.append(int(visits))
    return out


_BACKENDS = ("auto", "numba", "numpy")


def _resolve_backend(backend: str) -> str:
    if backend not in _BACKENDS:
        raise ValueError(f"backend must be one of {_BACKENDS}, got {backend!r}")
    if backend == "auto":
        return "numba" if HAVE_NUMBA else "numpy"
    if backend == "numba" and not HAVE_NUMBA:
        raise ValueError("backend='numba' needs numba (pip install 'gctheory[fast]')")
    return backend


def peel_batch(H: Any, erased: Any, *, backend: str = "auto") -> np.ndarray:
    """Peeling decoder on the erasure channel for a batch of erasure patterns.

    The iterative (peeling) decoder of LDPC codes on the BEC (Richardson and
    Urbanke 2008, Sec. 3.19), used for the LDPC-based CommFR-GC in Kadhe et
    al. 2019, Sec. IV-A (Proposition 2) and, with ``H`` the received coding
    matrix and every batch erased, for the batch raptor code of Wang et al.
    2019, Algorithm 1. A check with exactly one erased neighbour resolves it;
    this repeats until no such check is left. What stays erased is the largest
    stopping set contained in the erasure set, whatever the order of steps.

    Parameters
    ----------
    H : scipy.sparse matrix or array_like, shape (m, n)
        0/1 parity-check matrix, rows = checks, columns = variables.
    erased : array_like of bool, shape (B, n)
        ``erased[b, j]`` is True if variable ``j`` is erased in frame ``b``.
    backend : {"auto", "numba", "numpy"}, keyword-only
        Both are bit-parallel: 64 frames share one uint64 word per variable and
        a check resolves, in every frame at once, its neighbour when exactly one
        is erased. ``"numba"`` (the ``fast`` extra) sweeps the checks in place
        (Gauss-Seidel) over those still seeing >= 2 erasures; ``"numpy"``
        updates all checks per round (Jacobi) with array gathers. Both reach
        the same fixed point, so results are identical; ``"auto"`` picks numba
        when it is importable.

    Returns
    -------
    numpy.ndarray of bool, shape (B, n)
        The variables still erased after peeling.
    """
    Hc = _as_parity_check(H)
    E = _check_erased(erased, Hc.shape[1], 2)
    return _peel_prepared(Hc, E, _resolve_backend(backend))


def _peel_prepared(Hc: sparse.csc_matrix, E: np.ndarray, backend: str) -> np.ndarray:
    if E.shape[0] == 0:
        return E.copy()
    if backend == "numba":
        return _peel_numba(Hc, E)
    return _peel_numpy(Hc, E)


def peel(H: Any, erased: Any, *, backend: str = "auto") -> np.ndarray:
    """Peeling decoder for one erasure pattern; see :func:`peel_batch`.

    Parameters
    ----------
    H : scipy.sparse matrix or array_like, shape (m, n)
        0/1 parity-check matrix, rows = checks, columns = variables.
    erased : array_like of bool, shape (n,)
        True where the variable is erased.
    backend : {"auto", "numba", "numpy"}, keyword-only

    Returns
    -------
    numpy.ndarray of bool, shape (n,)
        The variables still erased after peeling (all False = success).
    """
    Hc = _as_parity_check(H)
    E = _check_erased(erased, Hc.shape[1], 1)
    return _peel_prepared(Hc, E[None, :], _resolve_backend(backend))[0]


# --------------------------------------------------------------------------
# Degree distributions
# --------------------------------------------------------------------------

Distribution = Mapping[int, float]


def _check_distribution(name: str, dist: Any, min_degree: int) -> dict[int, Any]:
    """Validate {degree: fraction}: integer degrees >= min_degree, fractions >= 0, sum 1."""
    if not isinstance(dist, Mapping) or len(dist) == 0:
        raise ValueError(f"{name} must be a non-empty mapping {{degree: fraction}}, got {dist!r}")
    out: dict[int, Any] = {}
    for d, f in dist.items():
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise ValueError(f"{name}: degrees must be integers, got {d!r}")
        if d < min_degree:
            raise ValueError(f"{name}: degrees must be >= {min_degree}, got degree {d}")
        try:
            ok = math.isfinite(float(f)) and float(f) >= 0
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"{name}: fractions must be finite and >= 0, got {name}[{d}] = {f!r}")
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
    """
    L = _check_distribution(name, node, 1)
    tot = sum(i * f for i, f in L.items())
    return {i: i * f / tot for i, f in L.items()}


def edge_to_node(edge: Distribution, *, name: str = "edge") -> dict[int, Any]:
    """Node-perspective distribution from an edge-perspective one.

    ``L_i = (lambda_i / i) / sum_j lambda_j / j`` (Richardson and Urbanke 2008,
    Sec. 3.3). Exact for :class:`fractions.Fraction` input.
    """
    lam = _check_distribution(name, edge, 1)
    tot = sum(f / i for i, f in lam.items())
    return {i: (f / i) / tot for i, f in lam.items()}


def design_rate(lam: Distribution, rho: Distribution) -> Any:
    """Design rate ``1 - (sum_j rho_j / j) / (sum_i lambda_i / i)`` of an ensemble.

    Richardson and Urbanke 2008, Sec. 3.3; ``lam``/``rho`` are edge-perspective
    {degree: fraction}. The (3, 6) ensemble has rate 1/2, the [10000, 5000]
    code of Kadhe et al. 2019, Remark 3.
    """
    lam = _check_distribution("lam", lam, 1)
    rho = _check_distribution("rho", rho, 2)
    return 1 - sum(f / j for j, f in rho.items()) / sum(f / i for i, f in lam.items())


def _poly(dist: dict[int, float], x: np.ndarray | float) -> np.ndarray:
    """Edge-perspective generating polynomial ``sum_d f_d x^(d-1)``."""
    x = np.asarray(x, dtype=float)
    return sum(float(f) * x ** (d - 1) for d, f in dist.items())


def _one_minus_poly_one_minus(dist: dict[int, float], x: np.ndarray | float) -> np.ndarray:
    """``1 - P(1 - x)`` for an edge-perspective polynomial, without cancellation at small x."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore"):  # log1p(-1) = -inf gives 1 - 0**(d-1) = 1, as it should
        return sum(float(f) * -np.expm1((d - 1) * np.log1p(-x)) for d, f in dist.items()) + 0 * x


def _dpoly(dist: dict[int, float], x: np.ndarray | float) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return sum(float(f) * (d - 1) * x ** max(d - 2, 0) for d, f in dist.items() if d >= 2) + 0 * x


# --------------------------------------------------------------------------
# Density evolution and the BEC threshold
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Threshold:
    """The BEC peeling threshold of an ensemble.

    Attributes
    ----------
    eps : float
        ``eps* = sup{eps : eps*lambda(1 - rho(1 - x)) < x for all x in (0, 1]}``.
    x : float
        The critical point: the minimiser of ``x / lambda(1 - rho(1 - x))``
        (where density evolution first gets stuck at ``eps*``); 0 when the
        threshold is set by the stability condition at ``x -> 0``.
    stability : bool
        True if ``eps* = 1/(lambda_2 rho'(1))`` (the limit ``x -> 0``) binds.
    """

    eps: float
    x: float
    stability: bool

    def __repr__(self) -> str:
        tag = ", stability-limited" if self.stability else ""
        return f"Threshold(eps*={self.eps:.12f}, x*={self.x:.10f}{tag})"


def bec_threshold(lam: Distribution, rho: Distribution) -> Threshold:
    """Density-evolution (peeling) threshold of an LDPC ensemble on the BEC.

    The largest ``eps`` with ``eps * lambda(1 - rho(1 - x)) < x`` for all
    ``x in (0, 1]`` (Kadhe et al. 2019, Sec. IV-A, the threshold ``p*``;
    Richardson and Urbanke 2008, Theorem 3.59), computed from the closed
    characterisation ``eps* = min_{x in (0,1]} x / lambda(1 - rho(1 - x))``:
    the function is tabulated on a fine grid, the best local minima are
    refined by a root of the derivative (Brent), and the ``x -> 0`` limit
    ``1 / (lambda_2 rho'(1))`` (the stability condition) is included. Accurate
    to about 1e-14 for smooth ensembles (tested against mpmath at 50 digits).

    Parameters
    ----------
    lam : mapping {degree: fraction of edges}
        Variable-node edge-perspective distribution, degrees >= 1.
    rho : mapping {degree: fraction of edges}
        Check-node edge-perspective distribution, degrees >= 2.

    Returns
    -------
    Threshold
        ``eps`` (the threshold), ``x`` (critical point), ``stability``.
    """
    lam = _check_distribution("lam", lam, 1)
    rho = _check_distribution("rho", rho, 2)
    lam_f = {d: float(f) for d, f in lam.items()}
    rho_f = {d: float(f) for d, f in rho.items()}
    # x -> 0 limit: x / lambda(1 - rho(1-x)) ~ 1 / (lambda_2 rho'(1)) when lambda_1 = 0
    if lam_f.get(1, 0.0) > 0:
        return Threshold(0.0, 0.0, True)
    lam2 = lam_f.get(2, 0.0)
    stab = 1.0 / (lam2 * float(_dpoly(rho_f, 1.0))) if lam2 > 0 else math.inf

    def f(x):
        y = _poly(lam_f, _one_minus_poly_one_minus(rho_f, x))
        with np.errstate(divide="ignore"):
            return np.where(y > 0, x / np.where(y > 0, y, 1.0), np.inf)

    def h(x):  # numerator of f'(x): lambda(y) - x lambda'(y) rho'(1 - x)
        y = float(_one_minus_poly_one_minus(rho_f, x))
        return float(_poly(lam_f, y)) - x * float(_dpoly(lam_f, y)) * float(_dpoly(rho_f, 1.0 - x))

    grid = np.unique(np.concatenate([np.geomspace(1e-9, 1e-2, 400), np.linspace(1e-2, 1.0, 8001)]))
    fv = f(grid)
    best_eps, best_x = float(fv[-1]), 1.0  # f(1) = 1 / lambda(1) = 1
    # local minima of the tabulated function (interior), best few refined
    inner = np.flatnonzero((fv[1:-1] <= fv[:-2]) & (fv[1:-1] <= fv[2:])) + 1
    for i in inner[np.argsort(fv[inner])[:4]]:
        lo, hi = grid[i - 1], grid[i + 1]
        if h(lo) < 0 < h(hi):
            xs = optimize.brentq(h, lo, hi, xtol=1e-15, rtol=1e-15, maxiter=200)
        else:
            xs = optimize.minimize_scalar(
                lambda t: float(f(t)), bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}
            ).x
        val = float(f(xs))
        if val < best_eps:
            best_eps, best_x = val, float(xs)
    if stab <= best_eps:
        return Threshold(float(stab), 0.0, True)
    return Threshold(best_eps, best_x, False)


def regular_threshold(dv: int, dc: int) -> Threshold:
    """BEC peeling threshold of the regular ``(d_v, d_c)`` ensemble.

    ``p* = sup{eps : eps (1 - (1 - x)^(d_c - 1))^(d_v - 1) < x, x in (0, 1]}``
    (Kadhe et al. 2019, Sec. IV-A); ``p* = 0.4294...`` for (3, 6) (Remark 3).
    See :func:`bec_threshold`.
    """
    dv = _check_int("dv", dv, 1)
    dc = _check_int("dc", dc, 2)
    return bec_threshold({dv: 1.0}, {dc: 1.0})


def de_trajectory(
    lam: Distribution, rho: Distribution, eps: float, iterations: int = 200
) -> np.ndarray:
    """Density evolution on the BEC: ``x_0 = eps``, ``x_{l+1} = eps lambda(1 - rho(1 - x_l))``.

    ``x_l`` is the erasure probability of a variable-to-check message after
    ``l`` rounds of peeling (Richardson and Urbanke 2008, Theorem 3.50;
    Kadhe et al. 2019, Sec. IV-A). Returns the array ``x_0 .. x_iterations``.
    """
    lam = _check_distribution("lam", lam, 1)
    rho = _check_distribution("rho", rho, 2)
    eps = _check_eps(eps)
    iterations = _check_int("iterations", iterations, 0)
    lam_f = {d: float(f) for d, f in lam.items()}
    rho_f = {d: float(f) for d, f in rho.items()}
    x = np.empty(iterations + 1)
    x[0] = eps
    for i in range(iterations):
        x[i + 1] = eps * float(_poly(lam_f, _one_minus_poly_one_minus(rho_f, x[i])))
    return x


def de_fixed_point(lam: Distribution, rho: Distribution, eps: float) -> tuple[float, float]:
    """Limit of density evolution and the asymptotic residual erasure fraction.

    Returns ``(x_inf, residual)``: ``x_inf`` is the largest fixed point of
    ``x = eps lambda(1 - rho(1 - x))`` in ``[0, eps]`` (where the monotone
    recursion from ``x_0 = eps`` stops), and ``residual = eps L(1 - rho(1 -
    x_inf))`` with ``L`` the node-perspective variable distribution, the
    fraction of variables still erased after peeling as ``n -> infinity``
    (Richardson and Urbanke 2008, Sec. 3.13). Both are 0 below the threshold.
    """
    lam = _check_distribution("lam", lam, 1)
    rho = _check_distribution("rho", rho, 2)
    eps = _check_eps(eps)
    lam_f = {d: float(f) for d, f in lam.items()}
    rho_f = {d: float(f) for d, f in rho.items()}
    node = {d: float(f) for d, f in edge_to_node(lam).items()}

    def g(x):
        return eps * _poly(lam_f, _one_minus_poly_one_minus(rho_f, x)) - x

    if eps == 0.0:
        return 0.0, 0.0
    grid = np.linspace(0.0, eps, 20001)
    gv = g(grid)
    # the recursion descends from eps while g < 0; it stops at the largest root below eps
    neg = gv[1:] < 0
    if np.all(neg):
        x_inf = 0.0
    else:
        j = np.flatnonzero(~neg)[-1] + 1  # last grid point with g >= 0
        if gv[j] == 0 or j == len(grid) - 1:
            x_inf = float(grid[j])
        else:
            x_inf = optimize.brentq(g, grid[j], grid[j + 1], xtol=1e-15)
    y = float(_one_minus_poly_one_minus(rho_f, x_inf))
    residual = eps * sum(f * y**d for d, f in node.items())
    return float(x_inf), float(residual)


# --------------------------------------------------------------------------
# Monte Carlo at finite length
# --------------------------------------------------------------------------

_SUB_BATCH = 1024  # frames decoded at once inside one engine chunk (memory bound)
_DEFAULT_CHUNK = 1024


def _residual_frames(
    Hc: sparse.csc_matrix, eps: float, backend: str, rng: np.random.Generator, size: int
) -> np.ndarray:
    """Fraction of variables left erased, for ``size`` fresh BEC(eps) frames."""
    n = Hc.shape[1]
    out = np.empty(size)
    for b0 in range(0, size, _SUB_BATCH):
        b1 = min(size, b0 + _SUB_BATCH)
        E = rng.random((b1 - b0, n)) < eps
        out[b0:b1] = _peel_prepared(Hc, E, backend).sum(axis=1) / n
    return out


def _failure_event(
    Hc: sparse.csc_matrix, eps: float, backend: str, rng: np.random.Generator, size: int
) -> np.ndarray:
    return _residual_frames(Hc, eps, backend, rng, size) > 0


def _count_failure_event(
    Hc: sparse.csc_matrix, t: int, backend: str, rng: np.random.Generator, size: int
) -> np.ndarray:
    """Peeling fails on ``t`` erasures placed uniformly at random (without replacement)."""
    n = Hc.shape[1]
    out = np.empty(size, dtype=bool)
    for b0 in range(0, size, _SUB_BATCH):
        b1 = min(size, b0 + _SUB_BATCH)
        keys = rng.random((b1 - b0, n))
        kth = np.partition(keys, t - 1, axis=1)[:, t - 1 : t] if t > 0 else -np.inf
        E = keys <= kth
        out[b0:b1] = _peel_prepared(Hc, E, backend).any(axis=1)
    return out


def _mc_kwargs(kw: dict[str, Any], trials: int) -> dict[str, Any]:
    kw = dict(kw)
    if kw.get("chunk_size") is None:
        kw["chunk_size"] = min(_DEFAULT_CHUNK, max(int(trials), 1))
    return kw


def block_failure_rate(
    H: Any, eps: float, trials: int, *, rng: Any = None, backend: str = "auto", **engine: Any
) -> Estimate:
    """Monte Carlo block failure rate of peeling on BEC(``eps``) for one code ``H``.

    Each trial erases every variable independently with probability ``eps``
    (a worker straggling independently, Kadhe et al. 2019, Proposition 2) and
    fails if peeling leaves any erasure. The estimate is for this ``H``; to
    speak for an ensemble draw ``H`` from it (at n >= 1000 codes concentrate).

    Parameters
    ----------
    H : sparse or array_like, shape (m, n)
        0/1 parity-check matrix.
    eps : float in [0, 1]
        Erasure (straggling) probability.
    trials : int
        Number of frames.
    rng : seed, keyword-only
    backend : {"auto", "numba", "numpy"}
    **engine
        Passed to :func:`gctheory.montecarlo.estimate_probability` (``level``,
        ``chunk_size`` (default 1024), ``executor``, ``progress``,
        ``checkpoint``, ``interval``).

    Returns
    -------
    Estimate
        Probability of a block failure, with a binomial confidence interval.
    """
    Hc = _as_parity_check(H)
    eps = _check_eps(eps)
    backend = _resolve_backend(backend)
    event = functools.partial(_failure_event, Hc, eps, backend)
    return estimate_probability(event, trials, rng=rng, **_mc_kwargs(engine, trials))


def residual_erasure_rate(
    H: Any, eps: float, trials: int, *, rng: Any = None, backend: str = "auto", **engine: Any
) -> Estimate:
    """Monte Carlo mean fraction of variables left erased by peeling on BEC(``eps``).

    Same frames as :func:`block_failure_rate` for the same ``rng``, ``trials``
    and ``chunk_size``. Compare with :func:`de_fixed_point` (the ``n -> inf``
    limit). Returns an :class:`~gctheory.montecarlo.Estimate` with a CLT interval.

    Notes
    -----
    The interval is the engine's normal-approximation (CLT) interval
    ``mean +- z std / sqrt(trials)``, reported as is and **not clipped** to
    ``[0, 1]``: where residual erasures are rare (just below the threshold, a
    few frames with a stopping set), its lower limit can be negative, e.g.
    about ``[-0.0008, 0.012]`` at ``n = 2000``, ``eps = 0.4``. A negative lower
    limit only says the CLT interval is too coarse there; the fraction itself
    lies in ``[0, 1]``, and its one-sided lower limit is then just 0. For a
    rigorous statement about rare residuals, use the failure probability of
    :func:`block_failure_rate` (a binomial interval inside ``[0, 1]``, Wilson
    or, with ``interval="clopper-pearson"``, exact): the residual is 0 in
    every frame that peels.
    """
    Hc = _as_parity_check(H)
    eps = _check_eps(eps)
    backend = _resolve_backend(backend)
    sampler = functools.partial(_residual_frames, Hc, eps, backend)
    return estimate_mean(sampler, trials, rng=rng, **_mc_kwargs(engine, trials))


def count_failure_rate(
    H: Any, t: int, trials: int, *, rng: Any = None, backend: str = "auto", **engine: Any
) -> Estimate:
    """Monte Carlo probability that peeling fails on ``t`` uniformly random erasures.

    The fixed-count model of Kadhe et al. 2019, Remark 3 ("a random set of t
    stragglers in each group"): ``t`` distinct variables, all subsets equally
    likely. Engine keywords as in :func:`block_failure_rate`.
    """
    Hc = _as_parity_check(H)
    t = _check_int("t", t, 0)
    if t > Hc.shape[1]:
        raise ValueError(f"t must be <= n = {Hc.shape[1]}, got {t}")
    backend = _resolve_backend(backend)
    event = functools.partial(_count_failure_event, Hc, t, backend)
    return estimate_probability(event, trials, rng=rng, **_mc_kwargs(engine, trials))


def _critical_counts(
    Hc: sparse.csc_matrix, backend: str, rng: np.random.Generator, size: int
) -> np.ndarray:
    """Per frame: the largest t such that the first t variables of a random order peel."""
    n = Hc.shape[1]
    out = np.empty(size)
    for b0 in range(0, size, _SUB_BATCH):
        B = min(size, b0 + _SUB_BATCH) - b0
        order = np.argsort(rng.random((B, n)), axis=1)
        ranks = np.empty_like(order)
        np.put_along_axis(ranks, order, np.broadcast_to(np.arange(n), (B, n)), axis=1)
        lo = np.zeros(B, dtype=np.int64)  # t = lo always peels (lo = 0: nothing erased)
        hi = np.full(B, n + 1, dtype=np.int64)  # t = hi fails (n + 1: virtual)
        while np.any(hi - lo > 1):
            mid = (lo + hi) // 2
            ok = ~_peel_prepared(Hc, ranks < mid[:, None], backend).any(axis=1)
            lo = np.where(ok, mid, lo)
            hi = np.where(ok, hi, mid)
        out[b0 : b0 + B] = lo
    return out


def critical_erasure_count(
    H: Any, trials: int, *, rng: Any = None, backend: str = "auto", **engine: Any
) -> Estimate:
    """Mean number of random erasures peeling survives, by Monte Carlo.

    Variables are erased one by one in a uniformly random order; a frame's
    critical count is the largest ``t`` for which the first ``t`` erasures are
    all resolved by peeling (found by bisection, valid because the stopping
    set left by peeling grows with the erasure set). ``P(critical >= t)`` is
    the success probability with ``t`` random stragglers. Returns an
    :class:`~gctheory.montecarlo.Estimate` of the mean (CLT interval).
    """
    Hc = _as_parity_check(H)
    backend = _resolve_backend(backend)
    sampler = functools.partial(_critical_counts, Hc, backend)
    return estimate_mean(sampler, trials, rng=rng, **_mc_kwargs(engine, trials))


@dataclass(frozen=True)
class WaterfallPoint:
    """One point of a finite-length waterfall: code length, erasure probability, estimates."""

    n: int
    eps: float
    failure: Estimate
    residual: Estimate

    def __repr__(self) -> str:
        f, r = self.failure, self.residual
        return (
            f"WaterfallPoint(n={self.n}, eps={self.eps:.4f}, failure={f.value:.4g} "
            f"[{f.low:.4g}, {f.high:.4g}], residual={r.value:.4g} [{r.low:.4g}, {r.high:.4g}])"
        )


def waterfall(
    ns: Any,
    eps_values: Any,
    dv: int,
    dc: int,
    trials: int,
    *,
    rng: Any = None,
    backend: str = "auto",
    **engine: Any,
) -> list[WaterfallPoint]:
    """Block failure rate and residual erasure fraction versus ``eps`` for several lengths.

    For each ``n`` one code is drawn from the regular ``(dv, dc)`` ensemble
    (:func:`regular_ensemble`); for each ``eps`` the same frames give both
    estimates. Seeds: the code for ``n`` and the frames for ``(n, eps)`` draw
    from seed sequences keyed by ``n`` and ``eps`` under ``rng``, so a point
    does not depend on which other points are computed with it.
    As ``n`` grows the failure curve steepens towards the density-evolution
    threshold :func:`regular_threshold` (Richardson and Urbanke 2008, Sec. 3.23).
    """
    ns = [_check_int("n", v, 1) for v in np.atleast_1d(ns).tolist()]
    eps_values = [_check_eps(e) for e in np.atleast_1d(eps_values).tolist()]
    trials = _check_int("trials", trials, 2)
    root = seed_sequence(rng)
    points = []
    for n in ns:
        code_seed = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, n))
        H = regular_ensemble(n, dv, dc, rng=np.random.default_rng(code_seed))
        for e in eps_values:
            key = (*root.spawn_key, n, int(round(e * 1e12)))
            fs = np.random.SeedSequence(root.entropy, spawn_key=key)
            fail = block_failure_rate(H, e, trials, rng=fs, backend=backend, **engine)
            res = residual_erasure_rate(H, e, trials, rng=fs, backend=backend, **engine)
            points.append(WaterfallPoint(n, e, fail, res))
    return points


# --------------------------------------------------------------------------
# LT / batch raptor codes (Wang et al. 2019, Theorem 6)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RaptorParameters:
    """Parameters of Theorem 6 of Wang et al. 2019 for error ``eps`` and straggler ratio ``delta``.

    Attributes
    ----------
    eps, delta : float
        Target error (fraction of batches allowed unrecovered) and ``s/n``.
    D : int
        ``floor(1/eps)``.
    u : float
        ``2 eps (1 - 2 eps) / (1 - 4 eps)^2``.
    b : int
        ``ceil(1/ln(1/delta)) + 1`` (natural logarithm).
    overhead_needed : float
        ``(1 - 2 eps)/(1 - 4 eps)``: received results per batch that (54) uses.
    overhead : float
        ``b (1 - delta)``: received results per batch actually available.
    condition_53 : bool
        ``n(1 - 2eps)/(b(1 - 4eps)) < n - s``, i.e. ``overhead_needed < overhead``.
    mean_degree : float
        ``sum_k k p_k`` (batches per worker); load in partitions is ``b`` times it.
    """

    eps: float
    delta: float
    D: int
    u: float
    b: int
    overhead_needed: float
    overhead: float
    condition_53: bool
    mean_degree: float


def raptor_degree_distribution(eps: float) -> dict[int, Any]:
    """The degree distribution ``P_w`` of Wang et al. 2019, Theorem 6, eq. (17).

    ``p_1 = u/(u+1)``, ``p_k = 1/(k(k-1)(u+1))`` for ``2 <= k <= D``,
    ``p_{D+1} = 1/(D(u+1))``, with ``D = floor(1/eps)`` and ``u = 2 eps (1 -
    2 eps)/(1 - 4 eps)^2``. Defined for ``0 < eps < 1/4`` (``u`` has a pole at
    1/4). Exact (Fractions) when ``eps`` is a :class:`fractions.Fraction`.
    """
    if isinstance(eps, Fraction):
        e: Any = eps
    else:
        e = _check_eps(eps)
    if not (0 < e < Fraction(1, 4)):
        raise ValueError(f"eps must be in (0, 1/4) for Theorem 6's P_w, got {eps!r}")
    D = math.floor(1 / e)
    u = 2 * e * (1 - 2 * e) / (1 - 4 * e) ** 2
    p: dict[int, Any] = {1: u / (u + 1)}
    for k in range(2, D + 1):
        p[k] = 1 / (k * (k - 1) * (u + 1))
    p[D + 1] = 1 / (D * (u + 1))
    return p


def raptor_parameters(eps: float, delta: float) -> RaptorParameters:
    """``D``, ``u``, ``b`` and conditions (53)-(54) of Wang et al. 2019, Theorem 6.

    ``delta = s/n`` in (0, 1), ``eps`` in (0, 1/4).
    """
    eps = _check_eps(eps)
    delta = float(delta)
    if not (0.0 < delta < 1.0):
        raise ValueError(f"delta must be in (0, 1) (delta = s/n), got {delta!r}")
    p = raptor_degree_distribution(eps)
    D = max(p) - 1
    u = 2 * eps * (1 - 2 * eps) / (1 - 4 * eps) ** 2
    b = math.ceil(1 / math.log(1 / delta)) + 1
    need = (1 - 2 * eps) / (1 - 4 * eps)
    have = b * (1 - delta)
    mean = sum(k * float(f) for k, f in p.items())
    return RaptorParameters(eps, delta, D, u, b, need, have, bool(need < have), mean)


def _omega_prime(p: dict[int, float], x: np.ndarray) -> np.ndarray:
    return sum(k * float(f) * x ** (k - 1) for k, f in p.items()) + 0 * x


def check_condition_54(
    p: Distribution, overhead: float, x_max: float, *, grid: int = 20001
) -> tuple[float, float]:
    """Check ``exp(-overhead * Omega'(x)) < 1 - x`` on ``[0, x_max]`` (Wang et al. 2019, eq. (54)).

    ``Omega(x) = sum_k p_k x^k`` is the generating function of the worker
    degree distribution. Returns ``(margin, x_at)``: the minimum of ``(1 - x) -
    exp(-overhead Omega'(x))`` over the interval (grid, then refined with a
    bounded scalar minimiser) and where it occurs. The condition holds iff
    ``margin > 0``.
    """
    p = _check_distribution("p", p, 1)
    overhead = float(overhead)
    if not (overhead > 0 and math.isfinite(overhead)):
        raise ValueError(f"overhead must be a positive number, got {overhead!r}")
    x_max = _check_eps(x_max, "x_max")

    def margin(x):
        x = np.asarray(x, dtype=float)
        return (1 - x) - np.exp(-overhead * _omega_prime(p, x))

    xs = np.linspace(0.0, x_max, grid)
    mv = margin(xs)
    i = int(np.argmin(mv))
    lo, hi = xs[max(i - 1, 0)], xs[min(i + 1, grid - 1)]
    best_x, best = float(xs[i]), float(mv[i])
    if hi > lo:
        r = optimize.minimize_scalar(
            lambda t: float(margin(t)), bounds=(lo, hi), method="bounded", options={"xatol": 1e-12}
        )
        if r.fun < best:
            best_x, best = float(r.x), float(r.fun)
    return best, best_x


def lt_residual_fraction(p: Distribution, overhead: float) -> float:
    """Asymptotic fraction of input symbols (batches) left unrecovered by LT peeling.

    With ``overhead`` received results per input symbol and worker degree
    distribution ``p``, the recovered fraction ``x`` grows while
    ``exp(-overhead Omega'(x)) < 1 - x`` (the and-or tree / ripple analysis
    behind Wang et al. 2019, eq. (54), [11] there); peeling stops at the first
    root ``x*`` of ``(1 - x) - exp(-overhead Omega'(x))``, leaving ``1 - x*``.
    """
    p = _check_distribution("p", p, 1)
    overhead = float(overhead)
    if not (overhead > 0 and math.isfinite(overhead)):
        raise ValueError(f"overhead must be a positive number, got {overhead!r}")

    def margin(x):
        return (1 - x) - np.exp(-overhead * _omega_prime(p, np.asarray(x, dtype=float)))

    xs = np.linspace(0.0, 1.0, 100001)
    mv = margin(xs)
    if mv[0] <= 0:  # no degree-1 symbols: peeling never starts
        return 1.0
    j = int(np.flatnonzero(mv <= 0)[0])  # mv[-1] = -exp(-overhead Omega'(1)) < 0
    x_star = optimize.brentq(lambda t: float(margin(t)), xs[j - 1], xs[j], xtol=1e-15)
    return float(1.0 - x_star)


def raptor_code_matrix(n: int, b: int, p: Distribution, *, rng: Any = None) -> sparse.csr_matrix:
    """Random coding matrix of a ``(b, P)``-batch raptor code (Wang et al. 2019, Definition 5).

    ``n`` workers, ``K = n / b`` batches; worker ``k`` draws a degree ``d`` from
    ``p`` and a uniform ``d``-subset of the batches. Row ``k`` is the 0/1
    indicator of that subset (the batch-level view of ``A^BRC``; each batch
    stands for ``b`` partitions). A degree above ``K`` is refused. Subsets are
    drawn with replacement and rows with a repeated batch are redrawn, which
    gives exactly the uniform distribution on ``d``-subsets.
    """
    n = _check_int("n", n, 1)
    b = _check_int("b", b, 1)
    if n % b:
        raise ValueError(f"b must divide n (K = n/b batches), got n={n}, b={b}")
    p = _check_distribution("p", p, 1)
    K = n // b
    if max(p) > K:
        raise ValueError(f"p has degree {max(p)} > K = n/b = {K} batches")
    rng = np.random.default_rng(rng)
    degs = np.array(list(p))
    probs = np.array([float(v) for v in p.values()])
    d = rng.choice(degs, size=n, p=probs / probs.sum())
    width = int(degs.max())
    cols = np.empty((n, width), dtype=np.int64)
    todo = np.arange(n)
    while todo.size:  # uniform d-subsets: draw with replacement, redraw rows with a repeat
        draw = rng.integers(0, K, size=(todo.size, width))
        used = np.arange(width)[None, :] < d[todo, None]
        srt = np.sort(np.where(used, draw, -1 - np.arange(width)[None, :]), axis=1)
        dup = np.any(srt[:, 1:] == srt[:, :-1], axis=1)
        cols[todo[~dup]] = draw[~dup]
        todo = todo[dup]
    mask = np.arange(width)[None, :] < d[:, None]
    rows = np.repeat(np.arange(n), width)[mask.ravel()]
    return sparse.csr_matrix((np.ones(rows.size, dtype=np.int8), (rows, cols[mask])), shape=(n, K))


def _raptor_residual(
    n: int, b: int, s: int, p: dict, backend: str, rng: np.random.Generator, size: int
) -> np.ndarray:
    """Per trial: fresh code, ``s`` random stragglers, fraction of batches not peeled."""
    K = n // b
    out = np.empty(size)
    for i in range(size):
        A = raptor_code_matrix(n, b, p, rng=rng)
        keep = np.sort(rng.permutation(n)[: n - s])
        Hc = _as_parity_check(A[keep])
        out[i] = _peel_prepared(Hc, np.ones((1, K), dtype=bool), backend).sum() / K
    return out


def raptor_residual_rate(
    n: int,
    s: int,
    eps: float,
    trials: int,
    *,
    rng: Any = None,
    backend: str = "auto",
    **engine: Any,
) -> Estimate:
    """Mean fraction of batches the batch raptor code of Theorem 6 leaves unrecovered.

    Wang et al. 2019, Theorem 6 and Algorithm 1: ``b`` and ``P_w`` from
    :func:`raptor_parameters` (``delta = s/n``), a fresh code per trial, ``s``
    uniformly random stragglers, peeling on the ``n - s`` received rows.
    Theorem 6 says the fraction exceeds ``eps`` with probability
    ``< exp(-c0 n)``. Requires ``b | n``.
    """
    n = _check_int("n", n, 2)
    s = _check_int("s", s, 1)
    if s >= n:
        raise ValueError(f"s must be < n, got s={s}, n={n}")
    prm = raptor_parameters(eps, s / n)
    backend = _resolve_backend(backend)
    p = raptor_degree_distribution(eps)
    if n % prm.b:
        raise ValueError(f"n must be a multiple of b = {prm.b}, got n={n}")
    sampler = functools.partial(_raptor_residual, n, prm.b, s, p, backend)
    kw = dict(engine)
    kw.setdefault("chunk_size", min(64, trials))
    return estimate_mean(sampler, trials, rng=rng, **kw)


def _raptor_failure(n, b, s, p, eps, backend, rng, size) -> np.ndarray:
    return _raptor_residual(n, b, s, p, backend, rng, size) > eps


def raptor_failure_rate(
    n: int,
    s: int,
    eps: float,
    trials: int,
    *,
    rng: Any = None,
    backend: str = "auto",
    **engine: Any,
) -> Estimate:
    """``P(fraction of batches unrecovered > eps)`` for Theorem 6's code, by Monte Carlo.

    Same frames as :func:`raptor_residual_rate` for the same seed and chunking.
    """
    n = _check_int("n", n, 2)
    s = _check_int("s", s, 1)
    if s >= n:
        raise ValueError(f"s must be < n, got s={s}, n={n}")
    prm = raptor_parameters(eps, s / n)
    backend = _resolve_backend(backend)
    p = raptor_degree_distribution(eps)
    if n % prm.b:
        raise ValueError(f"n must be a multiple of b = {prm.b}, got n={n}")
    event = functools.partial(_raptor_failure, n, prm.b, s, p, prm.eps, backend)
    kw = dict(engine)
    kw.setdefault("chunk_size", min(64, trials))
    return estimate_probability(event, trials, rng=rng, **kw)
