"""Reed-Solomon gradient codes with balanced masks and O(f^2) online decoding.

Halbawi, Azizan, Salehi, Hassibi, "Improving distributed gradient descent
using Reed-Solomon codes" (2017) [1]. Workers ``0..n-1``, data partitions
``0..k-1``; every worker holds ``w`` partitions and sends one complex linear
combination ``c_i = B_i g`` of its partial gradients (eq. (3)). The master
recovers ``1^T g`` from the first ``f = n - s`` workers, where
``s = floor(w n / k) - 1`` attains the bound of eq. (2).

- :func:`row_balanced_mask_matrix` -- Algorithm 1 (fixed column weight ``d``,
  row weights ``floor(kd/n)`` or ``ceil(kd/n)``, Proposition 2 / Corollary 1).
- :func:`mask_matrix` -- Algorithm 4, the column-balanced mask with every row of
  weight ``w``, also when ``nw/k`` is not an integer (Appendix 8.2).
- :func:`rs_encoding_matrix`, :func:`rs_polynomials` -- Algorithm 2: column
  ``j`` of ``B`` is the evaluation on the n-th roots of unity of
  ``t_j(x) = prod_{r : M[r, j] = 0} (x - alpha^r) / (-alpha^r)`` (eqs. (7)-(10)),
  so ``B = G T`` with ``G`` the Vandermonde matrix of eq. (6), ``t_j(0) = 1``.
- :func:`rs_inverse_table`, :func:`rs_decoding_vector` -- Algorithm 3: the
  decoding vector is the first row of ``G_F^{-1}`` (eq. (12)), whose entries
  are ``prod_{j != l} (1 - alpha^{i_l - i_j})^{-1}`` (eq. (14)), computed in
  ``O(f^2)`` operations from a table of the ``n - 1`` values
  ``(1 - alpha^i)^{-1}``.
- :class:`ReedSolomonCode` -- the code behind the :mod:`gctheory.codes.base`
  interface.

Complex arithmetic: ``B`` is complex, so a real gradient is decoded as a
complex number whose imaginary part is pure rounding. The decoder returns the
real part and reports the imaginary residue ``max |Im|`` (see
:class:`RSDecodeResult`, returned by :meth:`ReedSolomonCode.decode_detail`).

References
----------
.. [1] W. Halbawi, N. Azizan, F. Salehi, B. Hassibi, "Improving distributed
   gradient descent using Reed-Solomon codes", arXiv:1706.05436 (2017).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gctheory._validate import check_array, check_flag, check_memory
from gctheory.codes._survivors import Survivors
from gctheory.codes.base import (
    DecodeResult,
    DecodingCost,
    GradientCode,
    check_positive_int,
    validate_survivors,
)

__all__ = [
    "row_balanced_mask_matrix",
    "mask_matrix",
    "rs_tolerance",
    "rs_polynomials",
    "rs_encoding_matrix",
    "rs_inverse_table",
    "rs_decoding_vector",
    "rs_decoding_vector_solve",
    "RSDecodeResult",
    "ReedSolomonCode",
]


def _check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < low or (high is not None and value > high):
        rule = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be {rule}, got {name}={value}")
    return value


def row_balanced_mask_matrix(n: int, k: int, d: int, t: int = 0) -> np.ndarray:
    """Algorithm 1 of [1], ``RowBalancedMaskMatrix(n, k, d, t)``.

    Column ``j`` has ones in rows ``(i + j d + t) mod n`` for ``i = 0..d-1``,
    so every column has weight ``d`` and the row weights are ``ceil(kd/n)`` on
    the cyclic run of ``(kd) mod n`` rows starting at row ``t`` and
    ``floor(kd/n)`` elsewhere (Proposition 2 and Corollary 1 of [1]).

    Parameters
    ----------
    n : int
        Number of rows (workers), ``n >= 1``.
    k : int
        Number of columns (data partitions), ``k >= 0`` (an empty matrix for 0).
    d : int
        Weight of every column, ``1 <= d <= n``.
    t : int
        Offset, ``0 <= t < n``.

    Returns
    -------
    numpy.ndarray
        Boolean ``n x k`` mask.

    Examples
    --------
    >>> from gctheory.codes import row_balanced_mask_matrix
    >>> row_balanced_mask_matrix(4, 4, 2).astype(int)
    array([[1, 0, 1, 0],
           [1, 0, 1, 0],
           [0, 1, 0, 1],
           [0, 1, 0, 1]])
    """
    n = _check_int("n", n, 1)
    k = _check_int("k", k, 0)
    d = _check_int("d", d, 1, n)
    t = _check_int("t", t, 0, n - 1)
    check_memory(n * k + 8 * d * k, "n", f"the {n} x {k} mask")
    M = np.zeros((n, k), dtype=bool)
    cols = np.arange(k)
    M[(np.arange(d)[:, None] + (cols * d + t)[None, :]) % n, cols[None, :]] = True
    return M


def _mask_parts(n: int, k: int, w: int) -> tuple[int, int, int, int, int]:
    """``(k_h, d_h, k_l, d_l, t)`` of Algorithm 4 of [1]."""
    k_h = (n * w) % k
    d_h = -(-n * w // k)
    k_l = k - k_h
    d_l = n * w // k
    t = (k_h * d_h) % n
    return k_h, d_h, k_l, d_l, t


def _check_nkw(n: Any, k: Any, w: Any) -> tuple[int, int, int]:
    n = _check_int("n", n, 1)
    k = _check_int("k", k, 1)
    w = _check_int("w", w, 1)
    if w > k:
        raise ValueError(
            f"w must be <= k (a worker holds at most all k partitions), got w={w}, k={k}"
        )
    if n * w < k:
        raise ValueError(
            f"n*w must be >= k so that every partition is held by some worker "
            f"(eq. (2) of Halbawi et al. gives s = floor(wn/k) - 1 >= 0), got n*w={n * w}, k={k}"
        )
    return n, k, w


def _check_rs_memory(n: int, k: int) -> None:
    """Algorithm 2's complex n x k matrix and its O(n^2) products per run length."""
    check_memory(17 * n * k + 24 * n * n, "n", f"the {n} x {k} Reed-Solomon encoding matrix")


def mask_matrix(n: int, k: int, w: int) -> np.ndarray:
    """Algorithm 4 of [1], ``MaskMatrix(n, k, w)``: every row has weight ``w``.

    ``M = [M_h | M_l]`` with ``M_h = RowBalancedMaskMatrix(n, k_h, d_h, 0)``
    and ``M_l = RowBalancedMaskMatrix(n, k_l, d_l, t)``, where
    ``k_h = (nw) mod k``, ``d_h = ceil(nw/k)``, ``k_l = k - k_h``,
    ``d_l = floor(nw/k)``, ``t = (k_h d_h) mod n`` (Appendix 8.2-8.3 of [1]).
    Column weights are ``d_h`` (first ``k_h`` columns) and ``d_l``.

    Parameters
    ----------
    n, k, w : int
        Workers, partitions and partitions per worker; ``1 <= w <= k`` and
        ``n w >= k``.

    Returns
    -------
    numpy.ndarray of bool, shape (n, k)
        The mask ``M``: row ``i`` marks the ``w`` partitions of worker ``i``.

    Examples
    --------
    >>> from gctheory.codes import mask_matrix
    >>> mask_matrix(4, 6, 3).astype(int)
    array([[1, 0, 1, 0, 1, 0],
           [1, 0, 1, 0, 1, 0],
           [0, 1, 0, 1, 0, 1],
           [0, 1, 0, 1, 0, 1]])
    """
    n, k, w = _check_nkw(n, k, w)
    check_memory(n * k, "n", f"the {n} x {k} mask")
    k_h, d_h, k_l, d_l, t = _mask_parts(n, k, w)
    M_h = row_balanced_mask_matrix(n, k_h, d_h, 0) if k_h else np.zeros((n, 0), bool)
    M_l = row_balanced_mask_matrix(n, k_l, d_l, t)
    return np.concatenate([M_h, M_l], axis=1)


def rs_tolerance(n: int, k: int, w: int) -> int:
    """Stragglers tolerated by the RS code: ``floor(wn/k) - 1`` (eq. (2) of [1]).

    Parameters
    ----------
    n : int
        Workers.
    k : int
        Partitions.
    w : int
        Partitions per worker.

    Returns
    -------
    int
        ``floor(w n / k) - 1``.

    Examples
    --------
    >>> from gctheory.codes import rs_tolerance
    >>> rs_tolerance(6, 6, 3), rs_tolerance(10, 20, 5)
    (2, 1)
    """
    n, k, w = _check_nkw(n, k, w)
    return n * w // k - 1


def _roots(n: int) -> np.ndarray:
    """``alpha^m`` for ``m = 0..n-1``, ``alpha = exp(2 pi i / n)``, from exact angles."""
    return np.exp(2j * np.pi * np.arange(n) / n)


def rs_polynomials(M: np.ndarray) -> np.ndarray:
    """Coefficient matrix ``T`` (``f x k``) of the polynomials of Algorithm 2 of [1].

    Column ``j`` holds the coefficients (constant term first) of
    ``t_j(x) = prod_{r : M[r, j] = 0} (x - alpha^r) / (-alpha^r)
    = prod (1 - alpha^{-r} x)``, so ``t_j(0) = 1`` as in eqs. (7)-(10);
    ``f = n - s = n - min_j(column weight) + 1`` and ``B = G T`` (eq. (11)).

    Parameters
    ----------
    M : numpy.ndarray, shape (n, k)
        A 0/1 mask (:func:`mask_matrix`).

    Returns
    -------
    numpy.ndarray, complex, shape (f, k)
        The polynomials' coefficients, constant term first.

    Examples
    --------
    >>> from gctheory.codes import mask_matrix, rs_polynomials
    >>> import numpy as np
    >>> T = rs_polynomials(mask_matrix(6, 6, 3))
    >>> T.shape, np.allclose(T[0], 1)  # t_j(0) = 1
    ((4, 6), True)
    """
    M = _check_mask(M)
    n, k = M.shape
    f = n - int(M.sum(axis=0).min()) + 1
    om = _roots(n)
    T = np.zeros((f, k), dtype=complex)
    for j in range(k):
        c = np.ones(1, dtype=complex)
        for r in np.flatnonzero(~M[:, j]):
            c = np.concatenate([c, [0]]) - np.concatenate([[0], c]) * om[(-r) % n]
        T[: c.size, j] = c
    return T


def _check_mask(M: Any) -> np.ndarray:
    M = np.asarray(M)
    if M.ndim != 2 or M.dtype != bool:
        raise ValueError(f"M must be a 2-D boolean mask, got shape {M.shape}, dtype {M.dtype}")
    if M.shape[1] and M.sum(axis=0).min() < 1:
        raise ValueError("every column of the mask M must have weight >= 1")
    return M


def rs_encoding_matrix(n: int, k: int, w: int) -> np.ndarray:
    """Algorithm 2 of [1], ``EncodingMatrix(n, k, w)``: the complex ``n x k`` matrix ``B``.

    ``B[i, j] = t_j(alpha^i) = prod_{r : M[r, j] = 0} (1 - alpha^{i - r})``
    with ``M = MaskMatrix(n, k, w)`` (Algorithm 4) and ``alpha = exp(2 pi i/n)``.
    ``B`` vanishes exactly (by construction, not by rounding) off the mask.

    Parameters
    ----------
    n : int
        Workers.
    k : int
        Partitions.
    w : int
        Partitions per worker.

    Returns
    -------
    numpy.ndarray, complex, shape (n, k)
        The encoding matrix ``B``, zero off the mask.

    Examples
    --------
    >>> from gctheory.codes import rs_encoding_matrix
    >>> B = rs_encoding_matrix(6, 6, 3)
    >>> B.shape, (B != 0).sum(axis=1).tolist()  # w = 3 partitions per worker
    ((6, 6), [3, 3, 3, 3, 3, 3])
    """
    n, k, w = _check_nkw(n, k, w)
    _check_rs_memory(n, k)
    M = mask_matrix(n, k, w)
    return _encode_from_mask(M)


def _zero_run(col: np.ndarray) -> tuple[int, int] | None:
    """``(start, length)`` if the zeros of a mask column form one cyclic run, else None."""
    z = ~col
    L = int(z.sum())
    if L == 0:
        return 0, 0
    starts = np.flatnonzero(z & ~np.roll(z, 1))  # zero preceded (cyclically) by a one
    if starts.size != 1:
        return None
    return int(starts[0]), L


def _encode_from_mask(M: np.ndarray) -> np.ndarray:
    """``B[i, j] = prod_{r : M[r, j] = 0} (1 - alpha^{i - r})`` (Algorithm 2).

    The masks of Algorithms 1 and 4 have the zeros of every column in one
    cyclic run, so column ``j`` is a cyclic shift of the column for a run of
    the same length starting at row 0: one ``O(n L)`` product per distinct
    run length, ``O(n^2)`` in all. Other masks take the direct ``O(n^2)``
    product per column.
    """
    n, k = M.shape
    om = _roots(n)
    one_minus = 1.0 - om  # 1 - alpha^m, m = 0..n-1 (m = 0 gives exactly 0)
    rows = np.arange(n)
    B = np.zeros((n, k), dtype=complex)
    base: dict[int, np.ndarray] = {}
    for j in range(k):
        run = _zero_run(M[:, j])
        if run is None:
            zeros = np.flatnonzero(~M[:, j])
            B[:, j] = np.prod(one_minus[(rows[:, None] - zeros[None, :]) % n], axis=1)
            continue
        start, L = run
        if L not in base:
            base[L] = np.prod(one_minus[(rows[:, None] - np.arange(L)[None, :]) % n], axis=1)
        B[:, j] = np.roll(base[L], start)
    B[~M] = 0.0
    return B


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


class ReedSolomonCode(GradientCode):
    """Reed-Solomon gradient code of Halbawi et al. 2017 (Algorithms 2-4).

    ``n`` workers, ``k`` partitions, ``w`` partitions per worker (``load``),
    no communication saving (``m = 1``), tolerance
    ``s = floor(w n / k) - 1`` (eq. (2), attained). Column ``j`` of the complex
    encoding matrix ``B`` (``n x k``; :attr:`encoding_matrix` is ``B^T``) is a
    codeword of ``RS[n, f]``, ``f = n - s``, supported on column ``j`` of
    :func:`mask_matrix`. Decoding takes the first ``f`` survivors in the order
    given (the first to respond) and combines them with the Algorithm 3 vector.

    Parameters
    ----------
    n, k, w : int
        ``1 <= w <= k``, ``n w >= k``.

    Notes
    -----
    ``decode``/``decode_detail`` take a keyword ``real`` (default True): for
    a real problem the decoded complex vector is real up to rounding; its real
    part is returned and the imaginary residue is reported
    (:class:`RSDecodeResult`). Accuracy is limited by the size of ``B``'s
    entries, which grows like ``exp(c n)``: with ``s/n = 0.2`` the relative
    error is ~1e-11 at n = 40, ~1e-8 at n = 60 and ~1e-2 at n = 100 (see
    ``docs/codes_rs_approx.md``).

    Examples
    --------
    >>> from gctheory.codes import ReedSolomonCode
    >>> import numpy as np
    >>> code = ReedSolomonCode(n=6, k=6, w=3)
    >>> code, code.s
    (ReedSolomonCode(n=6, k=6, load=3, m=1, s=2), 2)
    >>> g = np.arange(12.0).reshape(6, 2)
    >>> survivors = [0, 1, 2, 5]
    >>> code.decode(survivors, code.encode(g)[survivors]).round(6).tolist()
    [30.0, 36.0]
    >>> g.sum(axis=0).tolist()
    [30.0, 36.0]
    """

    s: int  # an exact code: s = floor(w n / k) - 1

    name = "Reed-Solomon (Halbawi et al. 2017)"

    def __init__(self, n: int, k: int, w: int) -> None:
        n, k, w = _check_nkw(n, k, w)
        _check_rs_memory(n, k)
        self.n, self.k, self.w = n, k, w
        self.m = 1
        self.s = n * w // k - 1
        self.f = n - self.s
        self.support = mask_matrix(n, k, w)
        self.load = int(self.support.sum(axis=1).max())
        self._B = _encode_from_mask(self.support)
        self._table = rs_inverse_table(n)

    @property
    def encoding_matrix(self) -> np.ndarray:
        """``B^T`` (``k x n``), ``B`` from Algorithm 2 of Halbawi et al."""
        return self._B.T

    @property
    def B(self) -> np.ndarray:
        """The ``n x k`` encoding matrix ``B`` of Algorithm 2 (``c = B g``, eq. (3))."""
        return self._B

    @property
    def polynomials(self) -> np.ndarray:
        """Coefficients ``T`` (``f x k``) of ``t_j(x)`` with ``B = G T`` (eq. (11))."""
        return rs_polynomials(self.support)

    def _used(self, T: np.ndarray) -> np.ndarray:
        return T[: self.f]

    def _vandermonde(self, F: np.ndarray) -> np.ndarray:
        return _roots(self.n)[np.outer(F, np.arange(self.f)) % self.n]

    def decoding_matrix(self, survivors: Sequence[int]) -> np.ndarray:
        """``G_F`` (``f x f``), the Vandermonde matrix Algorithm 3 inverts (eq. (12)).

        Built from the first ``f`` of ``survivors``; at least ``f`` are needed.
        """
        T = validate_survivors(survivors, self.n, self.f)
        return self._vandermonde(self._used(T))

    def decoding_vector(self, survivors: Sequence[int]) -> np.ndarray:
        """Algorithm 3's ``a`` for the first ``f`` of ``survivors`` (same order)."""
        T = validate_survivors(survivors, self.n, self.f)
        return rs_decoding_vector(self._used(T), self.n, table=self._table)

    def skeel_condition(self, survivors: Sequence[int]) -> float:
        """``max_j sum_l |a_l| |B[i_l, j]|`` for the first ``f`` survivors (see RSDecodeResult)."""
        T = validate_survivors(survivors, self.n, self.f)
        F = self._used(T)
        a = rs_decoding_vector(F, self.n, table=self._table)
        return float(np.max(np.abs(a) @ np.abs(self._B[F])))

    def _solve(self, T: np.ndarray) -> tuple[np.ndarray, float]:
        F = self._used(T)
        A = np.zeros((T.size, 1), dtype=complex)
        a = rs_decoding_vector(F, self.n, table=self._table)
        A[: F.size, 0] = a
        return A, float(np.max(np.abs(a) @ np.abs(self._B[F])))

    def decode_detail(
        self,
        survivors: Survivors,
        received: np.ndarray,
        d: int | None = None,
        *,
        rtol: float = 1e-6,
        check: bool = True,
        real: bool = True,
        condition: bool = True,
        noise: float | None = None,
        on_noise: str = "warn",
    ) -> RSDecodeResult:
        """Decode with Algorithm 3; see :meth:`GradientCode.decode_detail`.

        ``real=True`` (default) returns the real part and reports the
        imaginary residue; ``real=False`` returns the complex vector.
        """
        real = check_flag(real, "real")
        res = super().decode_detail(
            survivors,
            received,
            d,
            rtol=rtol,
            check=check,
            condition=condition,
            noise=noise,
            on_noise=on_noise,
        )
        g = res.gradient
        out = _fields(res)
        if not real:
            return RSDecodeResult(**out, imag_residue=0.0)
        out["gradient"] = g.real.copy()
        resid = float(np.max(np.abs(g.imag))) if g.size else 0.0
        return RSDecodeResult(**out, imag_residue=resid)

    def decode(
        self,
        survivors: Survivors,
        received: np.ndarray,
        d: int | None = None,
        *,
        rtol: float = 1e-6,
        check: bool = True,
        real: bool = True,
        noise: float | None = None,
        on_noise: str = "warn",
    ) -> np.ndarray:
        """The gradient sum (real part for ``real=True``); see :meth:`decode_detail`.

        Takes the keywords of :meth:`GradientCode.decode` (``rtol``, ``check``,
        ``noise``, ``on_noise``), so ``decode_many`` works as for every code.
        """
        return self.decode_detail(
            survivors,
            received,
            d,
            rtol=rtol,
            check=check,
            real=real,
            condition=False,
            noise=noise,
            on_noise=on_noise,
        ).gradient

    def decoding_cost(self, survivors: Sequence[int] | None = None, d: int = 1) -> DecodingCost:
        """Algorithm 3: ``f (f - 1)`` look-up multiplications, then ``f d`` to combine.

        Section 5 of Halbawi et al. counts the decoding time as
        ``c_m (f - 1) f`` (eq. (20)); combining the ``f`` received vectors
        costs ``f d`` more. Only the first ``f`` survivors are used.
        """
        d = check_positive_int("d", d)
        f = self.f
        return DecodingCost(setup=f * (f - 1), apply=f * d, method="Alg. 3 (Halbawi et al.)")


def _fields(res: DecodeResult) -> dict[str, Any]:
    return {
        "gradient": res.gradient,
        "coefficients": res.coefficients,
        "condition_number": res.condition_number,
        "residual": res.residual,
        "survivors": res.survivors,
        "exact": res.exact,
        "noise_bound": res.noise_bound,
    }
