"""The compiled kernel of :mod:`gctheory.codes._stacked_solve` (needs numba).

Module-level functions, so numba's disk cache (``cache=True``) finds them again in a
new process: a kernel defined inside a function, as it was, is a closure whose cache
index never matched, and each process compiled it anew (4.7 s) and wrote another
cache file. Imported only when the ``numba`` backend runs.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["gather_solve_kernel", "gather_solve_lapack_kernel"]


@numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")
def _pivot(M, b, k, e, m, c, best, prow):
    # partial pivoting on column k: largest |M[i, k]| (i >= k), all systems at once;
    # whole rows (from column k - 1, which holds a pending multiplier) swap
    for t in range(c):
        best[t] = abs(M[k, k, t])
        prow[t] = k
    for i in range(k + 1, e):
        for t in range(c):
            v = abs(M[i, k, t])
            if v > best[t]:
                best[t] = v
                prow[t] = i
    lo = k - 1 if k > 0 else 0
    for t in range(c):
        p = prow[t]
        if p != k:
            for j in range(lo, e):
                tmp = M[k, j, t]
                M[k, j, t] = M[p, j, t]
                M[p, j, t] = tmp
            for j in range(m):
                tmp = b[k, j, t]
                b[k, j, t] = b[p, j, t]
                b[p, j, t] = tmp


# the kernel's steps: each inlined into the kernel by numba (inline="always"), so the
# compiled loop over a block of systems makes no call per step
_step = numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy", inline="always")


@_step
def _gather(W, SS, e, m, c0, c, rows, M, b, M0, b0):
    # systems c0 .. c0 + c - 1, interleaved (system t in the last axis), and their copies
    for i in range(e):
        for t in range(c):
            rows[t] = SS[c0 + t, i]
        for j in range(e):
            for t in range(c):
                M[i, j, t] = W[rows[t], j]
                M0[i, j, t] = M[i, j, t]
        for j in range(m):
            for t in range(c):
                b[i, j, t] = W[rows[t], e + j]
                b0[i, j, t] = b[i, j, t]


@_step
def _scale_column(M, k, e, c, piv):
    # the multipliers of column k: below the pivot, divided by it
    for t in range(c):
        piv[t] = 1.0 / M[k, k, t]  # inf for a zero pivot: that system only
    for i in range(k + 1, e):
        for t in range(c):
            M[i, k, t] *= piv[t]


@_step
def _eliminate_pair(M, b, k, e, m, c, best, prow, piv):
    # two elimination steps per pass over the trailing block (half the memory
    # traffic): column k + 1 first, then pivot k + 1, then one rank-2 update
    for i in range(k + 1, e):
        for t in range(c):
            M[i, k + 1, t] -= M[i, k, t] * M[k, k + 1, t]
    _pivot(M, b, k + 1, e, m, c, best, prow)  # swaps carry the pending step k
    for j in range(k + 2, e):
        for t in range(c):
            M[k + 1, j, t] -= M[k + 1, k, t] * M[k, j, t]
    for j in range(m):
        for t in range(c):
            b[k + 1, j, t] -= M[k + 1, k, t] * b[k, j, t]
    for t in range(c):
        piv[t] = 1.0 / M[k + 1, k + 1, t]
    for i in range(k + 2, e):
        for t in range(c):
            M[i, k + 1, t] *= piv[t]
        for j in range(k + 2, e):
            for t in range(c):
                M[i, j, t] -= M[i, k, t] * M[k, j, t] + M[i, k + 1, t] * M[k + 1, j, t]
        for j in range(m):
            for t in range(c):
                b[i, j, t] -= M[i, k, t] * b[k, j, t] + M[i, k + 1, t] * b[k + 1, j, t]


@_step
def _back_substitute(M, b, e, m, c):
    # U y = b, in place in b
    for k in range(e - 1, -1, -1):
        for i in range(k + 1, e):
            for j in range(m):
                for t in range(c):
                    b[k, j, t] -= M[k, i, t] * b[i, j, t]
        for j in range(m):
            for t in range(c):
                b[k, j, t] /= M[k, k, t]


@_step
def _store(b, M0, b0, Y, R, norms, acc, c0, c, e, m):
    # the solutions and their squared norms, then the residual from the original rows
    # (kept in M0, b0) and its squared norm
    for t in range(c):
        sq = 0.0
        for i in range(e):
            for j in range(m):
                v = b[i, j, t]
                Y[c0 + t, i, j] = v
                sq += v.real * v.real + v.imag * v.imag
        norms[c0 + t, 1] = sq
        norms[c0 + t, 0] = 0.0
    for i in range(e):
        for j in range(m):
            for t in range(c):
                acc[t] = b0[i, j, t]
            for u in range(e):
                for t in range(c):
                    acc[t] -= M0[i, u, t] * b[u, j, t]
            for t in range(c):
                v = acc[t]
                R[c0 + t, i, j] = v
                norms[c0 + t, 0] += v.real * v.real + v.imag * v.imag


@numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")
def gather_solve_kernel(W, SS, e, Y, R, norms, block):
    """Solve the systems ``W[SS[i], :e] y = W[SS[i], e:]``, ``block`` at a time interleaved
    (system in the last axis), by LU with partial pivoting, two columns per pass; writes
    the solutions to ``Y``, the residuals to ``R`` and their squared norms to ``norms``
    (residual, solution)."""
    N = SS.shape[0]
    m = W.shape[1] - e
    M = np.empty((e, e, block), dtype=W.dtype)
    b = np.empty((e, m, block), dtype=W.dtype)
    M0 = np.empty((e, e, block), dtype=W.dtype)  # the gathered systems, for the residual
    b0 = np.empty((e, m, block), dtype=W.dtype)
    acc = np.empty(block, dtype=W.dtype)
    piv = np.empty(block, dtype=W.dtype)
    best = np.empty(block)
    prow = np.empty(block, dtype=np.int64)
    rows = np.empty(block, dtype=np.int64)
    for c0 in range(0, N, block):
        c = min(block, N - c0)
        _gather(W, SS, e, m, c0, c, rows, M, b, M0, b0)
        k = 0
        while k < e:
            _pivot(M, b, k, e, m, c, best, prow)
            _scale_column(M, k, e, c, piv)
            if k + 1 == e:
                break
            _eliminate_pair(M, b, k, e, m, c, best, prow, piv)
            k += 2
        _back_substitute(M, b, e, m, c)
        _store(b, M0, b0, Y, R, norms, acc, c0, c, e, m)


@numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")
def gather_solve_lapack_kernel(W, SS, e, Y, R, norms):  # pragma: no cover - compiled code
    """The systems one at a time by LAPACK's LU (``numpy.linalg.solve`` compiled): for
    large e (> 40), where LAPACK's blocked LU beats the interleaved elimination and a
    compiled loop saves numpy's gather of the whole stack and its copies. A singular
    system's Y and residual are NaN (the caller decodes that set another way)."""
    N = SS.shape[0]
    m = W.shape[1] - e
    A = np.empty((e, e), dtype=W.dtype)
    b = np.empty((e, m), dtype=W.dtype)
    for i in range(N):
        for a in range(e):
            row = SS[i, a]
            for j in range(e):
                A[a, j] = W[row, j]
            for j in range(m):
                b[a, j] = W[row, e + j]
        try:
            y = np.ascontiguousarray(np.linalg.solve(A, b))
        except Exception:  # noqa: BLE001 - singular: reported as NaN
            y = np.full((e, m), np.nan, dtype=W.dtype)
        r = b - A @ y
        Y[i] = y
        R[i] = r
        sy = 0.0
        sr = 0.0
        for a in range(e):
            for j in range(m):
                v = y[a, j]
                sy += v.real * v.real + v.imag * v.imag
                v = r[a, j]
                sr += v.real * v.real + v.imag * v.imag
        norms[i, 0] = sr
        norms[i, 1] = sy
