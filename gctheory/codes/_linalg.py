"""Linear-algebra helpers of the code contract: chunking, the target matrix, conditioning.

Private to :mod:`gctheory.codes`; the public names (``split_chunks``,
``join_chunks``, ``target_matrix``, ``effective_condition_number``) are
public through :mod:`gctheory.codes.base`, whose docstring defines the chunk
arrangement and ``C``.
"""

from __future__ import annotations

import math

import numpy as np

from gctheory._validate import check_array, check_memory
from gctheory.codes._survivors import _EPS, check_positive_int


def effective_condition_number(M: np.ndarray) -> float:
    """sigma_max / sigma_r of ``M`` over its numerically non-zero singular values.

    This is the condition number that governs the minimum-norm least-squares
    solution (rank r, singular values below ``max(shape) eps sigma_max`` are
    treated as zero). ``inf`` for an all-zero matrix. ``M``: a finite real or
    complex 2-D array.

    Parameters
    ----------
    M : numpy.ndarray
        A finite real or complex 2-D array.

    Returns
    -------
    float
        ``sigma_max / sigma_r``; ``inf`` for the zero matrix.

    Examples
    --------
    >>> from gctheory.codes import effective_condition_number
    >>> import numpy as np
    >>> round(effective_condition_number(np.diag([4.0, 2.0, 0.0])), 6)  # rank 2
    2.0
    """
    M = check_array(M, "M", ndim=2, complex_ok=True, min_size=0)
    if M.size == 0:
        return math.inf
    sv = np.linalg.svd(M, compute_uv=False)
    if sv[0] == 0:
        return math.inf
    nz = sv[sv > max(M.shape) * _EPS * sv[0]]
    return float(nz[0] / nz[-1])


# ------------------------------------------------------------- chunk helpers
def split_chunks(partials: np.ndarray, m: int) -> tuple[np.ndarray, int]:
    """Pad (k, d) partials to length m r and return them as (k m, r) rows ``j m + u``, and d.

    Parameters
    ----------
    partials : numpy.ndarray, shape (k, d)
        Partial gradients.
    m : int
        Chunks per partial.

    Returns
    -------
    tuple of (numpy.ndarray, int)
        The ``(k m, r)`` rows and the original length ``d``.

    Examples
    --------
    >>> from gctheory.codes import split_chunks
    >>> import numpy as np
    >>> rows, d = split_chunks(np.arange(6.0).reshape(2, 3), 2)
    >>> rows.tolist(), d
    ([[0.0, 1.0], [2.0, 0.0], [3.0, 4.0], [5.0, 0.0]], 3)
    """
    # NaN and inf are refused as the encoders refuse them
    partials = check_array(partials, "partials", ndim=2, complex_ok=True)
    m = check_positive_int("m", m)
    k, d = partials.shape
    r = -(-d // m)
    check_memory(k * m * r * partials.itemsize, "m", f"padding {k} partials to m * r = {m * r}")
    padded = np.zeros((k, m * r), dtype=partials.dtype)
    padded[:, :d] = partials
    return padded.reshape(k * m, r), d


def join_chunks(chunks: np.ndarray, d: int | None) -> np.ndarray:
    """Concatenate (m, r) chunks into one vector and drop padding beyond ``d``.

    Parameters
    ----------
    chunks : numpy.ndarray, shape (m, r)
        The decoded chunks.
    d : int or None
        Length to keep (None: all).

    Returns
    -------
    numpy.ndarray, shape (d,)
        The concatenated vector.

    Examples
    --------
    >>> from gctheory.codes import join_chunks
    >>> import numpy as np
    >>> join_chunks(np.array([[0.0, 1.0], [2.0, 0.0]]), 3).tolist()
    [0.0, 1.0, 2.0]
    """
    flat = check_array(chunks, "chunks", complex_ok=True, finite=False, min_size=0).reshape(-1)
    if d is None:
        return flat
    d = check_positive_int("d", d)
    if d > flat.size:
        raise ValueError(f"d must be at most the {flat.size} entries of chunks, got {d}")
    return flat[:d]


def _join_chunks(chunks: np.ndarray, d: int | None) -> np.ndarray:
    """:func:`join_chunks` for the decoders, whose arguments are already checked."""
    flat = chunks.reshape(-1)
    return flat if d is None else flat[:d]


def target_matrix(k: int, m: int) -> np.ndarray:
    """``C`` (k m x m), ``C[j m + u, u'] = [u == u']``: what ``E_T A`` must equal.

    Parameters
    ----------
    k : int
        Partitions.
    m : int
        Chunks per partial.

    Returns
    -------
    numpy.ndarray, shape (k m, m)
        The target ``C``.

    Examples
    --------
    >>> from gctheory.codes import target_matrix
    >>> target_matrix(2, 2).astype(int).tolist()
    [[1, 0], [0, 1], [1, 0], [0, 1]]
    """
    k, m = check_positive_int("k", k), check_positive_int("m", m)
    check_memory(8 * k * m * m, "m", f"the (k m) x m = {k * m} x {m} target matrix")
    return np.tile(np.eye(m), (k, 1))
