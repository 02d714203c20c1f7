"""The peeling decoder on the erasure channel, bit-parallel over frames.

Peeling repeatedly finds a check with exactly one erased neighbour and
resolves that neighbour (Richardson and Urbanke 2008, Sec. 3.19). The set it
leaves unresolved does not depend on the order of the steps: it is the
largest stopping set contained in the erasure set (Sec. 3.22), so every
backend gives identical results.

Conventions
-----------
A parity-check matrix ``H`` has one row per check and one column per variable,
with entries in {0, 1}; it may be a scipy.sparse matrix or a dense array.
``erased`` is a boolean array over the variables (``True`` = erased, i.e. a
straggler).

References
----------
.. [1] T. Richardson, R. Urbanke, "Modern Coding Theory", Cambridge 2008,
   Chapter 3 (the binary erasure channel).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from scipy import sparse

from gctheory._compiled import HAVE_NUMBA
from gctheory._compiled import resolve_backend as _resolve_backend

__all__ = [
    "HAVE_NUMBA",
    "peel",
    "peel_batch",
]


def _as_parity_check(H: Any, multigraph: bool = False) -> sparse.csc_matrix:
    """Validate ``H`` and return it as a canonical CSC matrix.

    A parity-check matrix must be 0/1. With ``multigraph=True`` the entries are
    edge multiplicities of a Tanner multigraph (non-negative integers, as from
    ``regular_ensemble(..., multi_edges="keep")``) and are kept in ``data``.
    """
    what = "an edge-multiplicity matrix" if multigraph else "a 0/1 matrix (parity-check matrix)"
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
        M = sparse.csc_matrix(A.astype(np.float64) if A.dtype == np.bool_ else A)
        M.eliminate_zeros()
        vals = M.data
    bad = (vals != np.round(vals)) | (vals < 0) if multigraph else vals != 1
    if vals.size and np.any(bad):
        hint = "" if multigraph else "; for a Tanner multigraph pass multigraph=True"
        raise ValueError(f"H must be {what}, found entry {vals[bad][0]!r}{hint}")
    data = vals.astype(np.int32) if multigraph else np.ones(M.nnz, dtype=np.int8)
    M = sparse.csc_matrix(
        (data, M.indices.astype(np.int32), M.indptr.astype(np.int64)), shape=M.shape
    )
    M.sort_indices()
    return M


def _expanded(
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """CSR/CSC structure with every index repeated by its multiplicity (multigraph edges).

    A check that sees an erased variable over two edges then counts it twice,
    which is what peeling on a multigraph does: it never resolves a variable
    through a double edge.
    """
    if data.size == 0 or data.max() <= 1:
        return indptr, indices
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    counts = np.bincount(rows, weights=data, minlength=indptr.size - 1).astype(np.int64)
    return np.concatenate([[0], np.cumsum(counts)]), np.repeat(indices, data)


def _check_bool(value: Any, name: str) -> bool:
    """``value`` if it is a bool (``True``/``False`` or a numpy bool); 1 or "yes" are refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


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


def _peel_numpy(Hc: sparse.csc_matrix, E: np.ndarray, stats: list | None = None) -> np.ndarray:
    """Bit-parallel flooding peeling for a batch, numpy only. ``E`` is (B, n) bool.

    64 frames share a uint64 word per variable. In each round every check
    computes, frame by frame, whether exactly one neighbour is erased
    (``a1 & ~a2`` with ``a1`` = at least one, ``a2`` = at least two) and all
    erased variables adjacent to such a check are resolved at once (a Jacobi
    schedule). The fixed point is the largest stopping set inside the erasure
    set, the same as for any other peeling order. With ``stats``, the number of
    flooding rounds is appended to it (each round reads every edge twice).
    """
    m, n = Hc.shape
    B = E.shape[0]
    if Hc.nnz == 0 or not E.any():
        if stats is not None:
            stats.append(0)
        return E.copy()
    Hr = Hc.tocsr()
    radj = _padded_adjacency(*_expanded(Hr.indptr, Hr.indices, Hr.data), n)  # pad: W[n] = 0
    vadj = _padded_adjacency(Hc.indptr, Hc.indices, m)  # pad -> zero row one[m]
    W = _pack_bits(E)
    G = W.shape[1]
    W = np.vstack([W, np.zeros((1, G), dtype=np.uint64)])
    one = np.zeros((m + 1, G), dtype=np.uint64)
    rounds = 0
    while True:
        rounds += 1
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
    if stats is not None:
        stats.append(rounds)
    return _unpack_bits(W[:n], B)


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
    indptr, indices = _expanded(Hr.indptr, Hr.indices, Hr.data)
    out = np.empty(E.shape, dtype=np.bool_)
    visits = kernel(indptr.astype(np.int64), indices.astype(np.int32), np.ascontiguousarray(E), out)
    if stats is not None:
        stats.append(int(visits))
    return out


def peel_batch(
    H: Any, erased: Any, *, backend: str = "auto", multigraph: bool = False
) -> np.ndarray:
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
    multigraph : bool, keyword-only
        If True, the entries of ``H`` are edge multiplicities of a Tanner
        multigraph (``regular_ensemble(..., multi_edges="keep")``): a check
        counts an erased variable once per edge, so a double edge never
        resolves its variable (peeling on the multigraph, the decoder the
        exact finite-length analysis and density evolution describe).

    Returns
    -------
    numpy.ndarray of bool, shape (B, n)
        The variables still erased after peeling.

    Examples
    --------
    >>> from gctheory.ldpc import peel_batch
    >>> import numpy as np
    >>> H = np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]])
    >>> erased = np.array([[True, True, False, False], [True, True, True, True]])
    >>> peel_batch(H, erased).astype(int).tolist()  # row 1: every check sees two erasures
    [[0, 0, 0, 0], [1, 1, 1, 1]]
    """
    Hc = _as_parity_check(H, _check_bool(multigraph, "multigraph"))
    E = _check_erased(erased, Hc.shape[1], 2)
    return _peel_prepared(Hc, E, _resolve_backend(backend))


def _peel_prepared(Hc: sparse.csc_matrix, E: np.ndarray, backend: str) -> np.ndarray:
    if E.shape[0] == 0:
        return E.copy()
    if backend == "numba":
        return _peel_numba(Hc, E)
    return _peel_numpy(Hc, E)


def peel(H: Any, erased: Any, *, backend: str = "auto", multigraph: bool = False) -> np.ndarray:
    """Peeling decoder for one erasure pattern; see :func:`peel_batch`.

    Parameters
    ----------
    H : scipy.sparse matrix or array_like, shape (m, n)
        0/1 parity-check matrix, rows = checks, columns = variables.
    erased : array_like of bool, shape (n,)
        True where the variable is erased.
    backend : {"auto", "numba", "numpy"}, keyword-only
    multigraph : bool, keyword-only
        ``H`` holds edge multiplicities of a Tanner multigraph (see :func:`peel_batch`).

    Returns
    -------
    numpy.ndarray of bool, shape (n,)
        The variables still erased after peeling (all False = success).

    Examples
    --------
    >>> from gctheory.ldpc import peel
    >>> import numpy as np
    >>> H = np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]])
    >>> peel(H, [True, True, False, False]).tolist()  # check 1 resolves 1, then check 0 resolves 0
    [False, False, False, False]
    >>> H = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]])
    >>> peel(H, [True, True, True]).tolist()  # a stopping set: every check sees two erasures
    [True, True, True]
    """
    Hc = _as_parity_check(H, _check_bool(multigraph, "multigraph"))
    E = _check_erased(erased, Hc.shape[1], 1)
    return _peel_prepared(Hc, E[None, :], _resolve_backend(backend))[0]
