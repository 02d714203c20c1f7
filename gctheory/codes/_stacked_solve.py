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
- ``"numba"`` (optional ``fast`` extra): up to e = 40, a compiled kernel that
  gathers the rows itself and runs Gaussian elimination on blocks of systems
  stored *interleaved* (the system index innermost), so each elimination step
  is a contiguous loop over systems that the compiler vectorises; LAPACK's
  per-call overhead dominates at these sizes. Two elimination steps share each
  pass over the trailing block. Above e = 40, where LAPACK's blocked LU is
  faster than the interleaved elimination (whose blocks outgrow the cache), a
  compiled loop gathers each system and calls LAPACK's LU on it (about 20% less
  than numpy's stacked solve at e = 100, which gathers and copies
  the whole stack first). A zero pivot makes only that system's Y infinite or
  NaN. The kernels do not check bounds: ``SS`` must hold row indices of W (the
  callers build it from a validated mask).

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
    """The compiled gather-and-solve kernel (numba compiles it once; cached on disk)."""
    from gctheory.codes._stacked_kernel import gather_solve_kernel

    return gather_solve_kernel


@functools.cache
def _lapack_kernel():  # pragma: no cover - compiled code is not traced
    """The compiled loop of LAPACK solves for large systems (cached on disk)."""
    from gctheory.codes._stacked_kernel import gather_solve_lapack_kernel

    return gather_solve_lapack_kernel


def resolve_backend(backend: str, e: int) -> str:
    """``"auto"`` is numba when installed, else numpy (``e`` is kept for callers)."""
    return _compiled.resolve_backend(backend)


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
        SS = np.ascontiguousarray(SS, dtype=np.int64)
        if e <= _NUMBA_MAX_E:
            _kernel()(W, SS, e, Y, R, sq, _BLOCK)
        else:
            _lapack_kernel()(W, SS, e, Y, R, sq)
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
