"""Many small square systems gathered from the rows of one matrix, solved together.

Private to :mod:`gctheory.codes` (one concept: the straggler solves of batched
decoding, :mod:`gctheory.codes._batch`). Set i's system is
``W[S_i, :e] Y_i = W[S_i, e:]`` for a row set ``S_i`` of size e, where
``W = [Z | X0]`` is the code's null-space basis next to its minimum-norm
solution. Returned with each solve's residual ``r_i = W[S_i, e:] - W[S_i, :e] Y_i``,
computed from the original rows.

Two backends give the same numbers up to rounding (both LU with partial
pivoting, backward stable in practice):

- ``"numpy"``: gather the N systems and call ``numpy.linalg.solve`` on the
  stack (one LAPACK ``gesv`` per system). A singular system makes the whole
  stack raise, so every set is then reported as unsolved.
- ``"numba"`` (optional ``fast`` extra): a compiled kernel that gathers the
  rows itself and runs Gaussian elimination on blocks of systems stored
  *interleaved* (the system index innermost), so each elimination step is a
  contiguous loop over systems that the compiler vectorises; LAPACK's
  per-call overhead dominates at these sizes (e <= ~40). Two elimination
  steps share each pass over the trailing block. A zero pivot makes only
  that system's Y infinite or NaN. The kernel does not check bounds: ``SS``
  must hold row indices of W (the callers build it from a validated mask).

Measured by ``benchmarks/bench_decoding.py`` (section 5: the ``numpy`` and
``numba`` columns of ``decode_many``, and numpy's LAPACK solves alone).
"""

from __future__ import annotations

import functools

import numpy as np

from gctheory import _compiled

#: systems per interleaved block (fastest of 16..256 at e = 10..40 on 2 EPYC cores)
_BLOCK = 32
#: above this size LAPACK's blocked LU wins over the interleaved kernel
_NUMBA_MAX_E = 40


@functools.cache
def _kernel():  # pragma: no cover - compiled code is not traced
    """Compile (once, cached on disk) the interleaved gather-and-solve kernel."""
    import numba

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

    @numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")
    def _gather_solve(W, SS, e, Y, R, norms, block):  # noqa: PLR0912
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
            k = 0
            while k < e:
                _pivot(M, b, k, e, m, c, best, prow)
                for t in range(c):
                    piv[t] = 1.0 / M[k, k, t]  # inf for a zero pivot: that system only
                for i in range(k + 1, e):
                    for t in range(c):
                        M[i, k, t] *= piv[t]
                if k + 1 == e:
                    break
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
                k += 2
            for k in range(e - 1, -1, -1):
                for i in range(k + 1, e):
                    for j in range(m):
                        for t in range(c):
                            b[k, j, t] -= M[k, i, t] * b[i, j, t]
                for j in range(m):
                    for t in range(c):
                        b[k, j, t] /= M[k, k, t]
            for t in range(c):
                sq = 0.0
                for i in range(e):
                    for j in range(m):
                        v = b[i, j, t]
                        Y[c0 + t, i, j] = v
                        sq += v.real * v.real + v.imag * v.imag
                norms[c0 + t, 1] = sq
                norms[c0 + t, 0] = 0.0
            for i in range(e):  # residual from the original rows (kept in M0, b0)
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

    return _gather_solve


def resolve_backend(backend: str, e: int) -> str:
    """``"auto"`` is numba when installed and ``e <= 40``, else numpy."""
    return _compiled.resolve_backend(backend, numba_ok=e <= _NUMBA_MAX_E)


def gather_solve(
    W: np.ndarray, SS: np.ndarray, e: int, *, backend: str = "auto"
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Solve ``W[S_i, :e] Y_i = W[S_i, e:]`` for the N row sets ``SS`` (N, e).

    Returns ``Y`` (N, e, m), the residuals ``R`` (N, e, m), their Frobenius
    norms per set (N, 2: ``||R_i||``, ``||Y_i||``) and whether the solves ran
    (False when the numpy stack met a singular system: then Y and R are
    undefined and every set must be decoded another way). Entries of a
    singular system's Y are inf or NaN on the numba backend.
    """
    N = SS.shape[0]
    m = W.shape[1] - e
    if resolve_backend(backend, e) == "numba":
        W = np.ascontiguousarray(W)
        Y = np.empty((N, e, m), dtype=W.dtype)
        R = np.empty((N, e, m), dtype=W.dtype)
        sq = np.empty((N, 2))
        _kernel()(W, np.ascontiguousarray(SS, dtype=np.int64), e, Y, R, sq, _BLOCK)
        return Y, R, np.sqrt(sq), True
    WS = W[SS]
    ZS, XS = WS[:, :, :e], WS[:, :, e:]
    try:
        Y = np.linalg.solve(ZS, XS)
    except np.linalg.LinAlgError:
        z = np.zeros((N, e, m), W.dtype)
        return z, z.copy(), np.full((N, 2), np.inf), False
    R = XS - ZS @ Y
    return Y, R, frobenius_norms(R, Y), True


def frobenius_norms(R: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """(N, 2): ``||R_i||_F`` and ``||Y_i||_F`` of stacked (N, ., .) arrays."""
    out = np.empty((R.shape[0], 2))
    out[:, 0] = np.einsum("iem,iem->i", R, R.conj()).real
    out[:, 1] = np.einsum("ium,ium->i", Y, Y.conj()).real
    return np.sqrt(out, out=out)
