"""Decoding a Reed-Solomon gradient code: the inverse table and the decoding vector
of a set of survivors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import check_array, check_memory
from gctheory.codes.base import (
    DecodeResult,
    validate_survivors,
)
from gctheory.codes.reed_solomon._encoding import _roots
from gctheory.codes.reed_solomon._masks import _check_int

__all__ = ["rs_inverse_table", "rs_decoding_vector", "rs_decoding_vector_solve", "RSDecodeResult"]


def rs_inverse_table(n: int) -> np.ndarray:
    """The table ``(1 - alpha^m)^{-1}``, ``m = 1..n-1``, of Section 4.1 of [1].

    Entry ``0`` is set to 1 (the neutral factor for ``j = l`` in Algorithm 3),
    so ``table[(i_l - i_j) mod n]`` can be looked up for every pair.

    Parameters
    ----------
    n : int
        Code length.

    Returns
    -------
    numpy.ndarray, complex, shape (n,)
        ``(1 - alpha^m)^{-1}`` at ``m = 1..n-1``, and 1 at ``m = 0``.

    Examples
    --------
    >>> from gctheory.codes import rs_inverse_table
    >>> import numpy as np
    >>> t = rs_inverse_table(4)
    >>> (np.round(t, 6) + 0).tolist()  # + 0 turns a -0.0 into 0.0
    [(1+0j), (0.5+0.5j), (0.5+0j), (0.5-0.5j)]
    """
    n = _check_int("n", n, 1)
    check_memory(32 * n, "n", f"the table of {n} complex inverses")
    tab = np.ones(n, dtype=complex)
    tab[1:] = 1.0 / (1.0 - _roots(n)[1:])
    return tab


def _check_survivors(survivors: Any, n: int) -> np.ndarray:
    return validate_survivors(survivors, n, 1)


def rs_decoding_vector(
    survivors: Sequence[int] | np.ndarray, n: int, *, table: np.ndarray | None = None
) -> np.ndarray:
    """Algorithm 3 of [1], ``DecodingVector(F)``: ``a`` with ``a^T G_F = e_1`` (eq. (12)).

    ``a_l = prod_{j != l} (1 - alpha^{i_l - i_j})^{-1}`` (eq. (14)), looked up
    in :func:`rs_inverse_table`; ``f (f - 1)`` table look-ups and complex
    multiplications, i.e. ``O(f^2)`` time and ``O(n)`` extra space. The
    products are accumulated in logarithms (``log`` of the table, summed,
    exponentiated once) because the partial products of the paper's literal
    loop over/underflow double precision for ``n`` in the thousands; the
    operation count is unchanged.

    Parameters
    ----------
    survivors : sequence of int
        The ``f`` distinct surviving workers ``i_1..i_f`` (any order); ``a`` is
        returned in the same order.
    n : int
        Number of workers (the order of ``alpha``).
    table : numpy.ndarray, optional
        A precomputed :func:`rs_inverse_table` ``(n)``.

    Returns
    -------
    numpy.ndarray, complex, shape (f,)
        The decoding vector ``a``, in the order of ``survivors``.

    Examples
    --------
    >>> from gctheory.codes import rs_decoding_vector, rs_decoding_vector_solve
    >>> import numpy as np
    >>> a = rs_decoding_vector([0, 1, 3], 4)
    >>> np.allclose(a, rs_decoding_vector_solve([0, 1, 3], 4))
    True
    """
    n = _check_int("n", n, 1)
    F = _check_survivors(survivors, n)
    f = F.size
    if f == 0:
        raise ValueError("survivors must contain at least one worker")
    if table is None:
        tab = rs_inverse_table(n)
    else:  # validated, but kept as given (an ndarray subclass stays one: the op-count check)
        check_array(table, "table", complex_ok=True)
        tab = np.asanyarray(table)
    if tab.shape != (n,):
        raise ValueError(f"table must have shape ({n},), got {tab.shape}")
    logtab = np.log(tab)  # principal complex log; entry 0 is log 1 = 0
    a = np.empty(f, dtype=complex)
    block = max(1, min(f, (1 << 20) // max(f, 1)))
    for start in range(0, f, block):
        rows = F[start : start + block]
        diff = (rows[:, None] - F[None, :]) % n
        a[start : start + block] = np.exp(logtab[diff].sum(axis=1))
    return a


def rs_decoding_vector_solve(survivors: Sequence[int] | np.ndarray, n: int) -> np.ndarray:
    """The same vector as :func:`rs_decoding_vector` by a generic ``O(f^3)`` solve.

    Solves ``G_F^T a = e_1`` with LAPACK, ``G_F[l, i] = alpha^{i_l i}`` the
    ``f x f`` Vandermonde matrix of eq. (11) of [1]. The baseline of the
    benchmark and the reference of the tests.

    Parameters
    ----------
    survivors : sequence of int
        The ``f`` survivors' indices.
    n : int
        Code length.

    Returns
    -------
    numpy.ndarray, complex, shape (f,)
        ``a`` with ``a^T G_F = e_1``.

    Examples
    --------
    >>> from gctheory.codes import rs_decoding_vector_solve
    >>> import numpy as np
    >>> (np.round(rs_decoding_vector_solve([0, 2], 4), 6) + 0).tolist()  # + 0: no -0.0
    [(0.5+0j), (0.5+0j)]
    """
    n = _check_int("n", n, 1)
    F = _check_survivors(survivors, n)
    f = F.size
    if f == 0:
        raise ValueError("survivors must contain at least one worker")
    check_memory(24 * f * f, "survivors", f"the {f} x {f} Vandermonde matrix")
    G_F = np.exp(2j * np.pi * (np.outer(F, np.arange(f)) % n) / n)  # = _roots(n)[...]
    e1 = np.zeros(f, dtype=complex)
    e1[0] = 1.0
    return np.linalg.solve(G_F.T, e1)


@dataclass(frozen=True)
class RSDecodeResult(DecodeResult):
    """A :class:`~gctheory.codes.base.DecodeResult` plus the imaginary residue.

    For this code ``condition_number`` is the componentwise (Skeel) condition
    number of the decoding map, ``kappa_S = max_j sum_l |a_l| |B[i_l, j]|``
    (``>= 1`` because ``a^T B_F = 1``): encoding ``c = B g`` and combining
    ``a^T c`` in floating point give an error of at most about
    ``(k + f) eps kappa_S sum_j |g_j|`` in each entry, i.e.
    ``error_bound(scale, k + f)`` with ``scale = sum_j max |g_j|``.
    ``kappa_S`` grows exponentially with ``n`` because the entries of ``B``
    do (``|t_j(alpha^i)|`` is a product of ``n - d`` chords of the unit
    circle); ``cond(G_F)`` of the inverted Vandermonde matrix is much smaller
    and is not what limits the accuracy.

    ``imag_residue`` is ``max |Im(a^T C_F)|``, the absolute imaginary part of
    the decoded vector before the real part is taken (``real=True``); for a
    real problem it is pure rounding error, an a-posteriori estimate of the
    error of the real part, and it obeys the same bound.

    Parameters
    ----------
    imag_residue : float
        Largest imaginary part left in the decoded (real) gradient; the other
        fields are those of :class:`~gctheory.codes.base.DecodeResult`.

    Examples
    --------
    >>> import numpy as np
    >>> from gctheory.codes import RSDecodeResult, ReedSolomonCode
    >>> code = ReedSolomonCode(6, 6, 3)  # tolerates 2 stragglers
    >>> g = np.arange(12.0).reshape(6, 2)
    >>> r = code.decode_detail([0, 1, 2, 5], code.encode(g)[[0, 1, 2, 5]])
    >>> r.gradient.round(6).tolist(), r.imag_residue < 1e-12
    ([30.0, 36.0], True)
    """

    imag_residue: float = 0.0
